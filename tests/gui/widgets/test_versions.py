"""The header line naming the upstream version and profile a run reproduces, and why (no Qt needed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxviewer.engine.project.loading import load_project
from ctxviewer.engine.runs.pipeline import assemble, assemble_task
from ctxviewer.gui.widgets.versions import detection_words, upstream_line, upstream_why
from tests.factories import make_project, write

TASKS = [{"id": "T1", "title": "Login session", "files": {"create": ["src/app.py"]}}]


@pytest.fixture
def zerg(tmp_path: Path) -> Path:
    root = make_project(tmp_path / "zerg", TASKS, requirements="Login session.")
    write(root, ".zerg/rules/quality.yaml", "rules: []\n")
    write(root, ".zerg/rules/style.yml", "rules: []\n")
    return root


def test_a_detected_version_names_what_gave_it_away(zerg: Path) -> None:
    trace = assemble(load_project(zerg), "feat", "T1")
    assert upstream_line(trace) == (
        "Reproduces zerg-ai 0.3.2, profile zerg-0.3.2 (detected: engineering rule files in .zerg/rules)"
    )


def test_every_piece_of_evidence_is_named_without_its_file_list(zerg: Path) -> None:
    write(zerg, ".zerg/state/tokens-w1.json", "{}")
    trace = assemble(load_project(zerg), "feat", "T1")
    assert "(quality.yaml, style.yml)" in trace.upstream_reason  # the full reason keeps the names
    assert upstream_line(trace).endswith(
        "(detected: engineering rule files in .zerg/rules, token records in .zerg/state)"
    )


def test_a_chosen_version_says_where_it_was_chosen(zerg: Path) -> None:
    write(zerg, "ctxviewer.yaml", "upstream: latest\n")
    project = load_project(zerg)
    assert upstream_line(assemble(project, "feat", "T1")) == (
        "Reproduces today's nine-section pipeline (mahabharatha main), profile mahabharatha-latest "
        "(upstream=latest, set in ctxviewer.yaml)"
    )
    feature = project.feature("feat")
    settings = project.settings.with_overrides({"upstream": "2026-01-30"}, "gui")
    tuned = assemble_task(project, feature, feature.task("T1"), settings)
    assert upstream_line(tuned) == (
        "Reproduces the context plugin as of 2026-01-30, profile mahabharatha "
        "(upstream=2026-01-30, chosen in the Budget panel)"
    )


def test_a_version_profile_pins_the_version_whatever_upstream_says(zerg: Path) -> None:
    write(zerg, "ctxviewer.yaml", "upstream: latest\nprofile: zerg-0.3.2\n")
    trace = assemble(load_project(zerg), "feat", "T1")
    assert upstream_line(trace) == "Reproduces zerg-ai 0.3.2, profile zerg-0.3.2 (pinned by profile zerg-0.3.2)"


def test_a_project_without_a_later_versions_files_runs_the_plugin_of_2026_01_30(tmp_path: Path) -> None:
    project = load_project(make_project(tmp_path, TASKS, requirements="R.", config="workers: {}\n"))
    assert upstream_line(assemble(project, "feat", "T1")) == (
        "Reproduces the context plugin as of 2026-01-30, profile mahabharatha "
        "(detected: nothing of zerg-ai 0.3.2 or later in the project)"
    )
    # Without the parenthesis, for a label whose tooltip says why (the whole reason is the trace's).
    trace = assemble(project, "feat", "T1")
    assert (
        upstream_line(trace, with_why=False) == "Reproduces the context plugin as of 2026-01-30, profile mahabharatha"
    )
    assert upstream_why(trace) == "detected: nothing of zerg-ai 0.3.2 or later in the project"
    assert trace.upstream_reason == (
        "detected 2026-01-30: no engineering rule files, token records or config keys of zerg-ai 0.3.2 or later "
        "under .zerg/ or .mahabharatha/ (.mahabharatha/ without them), so the context plugin as of 2026-01-30"
    )


def test_a_profile_of_ctxviewers_own_is_not_an_upstream_version(tmp_path: Path) -> None:
    project = load_project(make_project(tmp_path, TASKS, requirements="R."))
    trace = assemble(project, "feat", "T1", {"profile": "drift"})
    assert upstream_line(trace) == "Profile drift: ctxviewer's own strategy, not an upstream version"


def test_detection_words_keep_a_reason_they_cannot_split() -> None:
    assert detection_words("latest", "something else") == "something else"
    assert detection_words("latest", "detected latest: A (x, y); B (z)") == "A, B"
