"""Re-assembly after a settings change: cached work gives the same trace as a cold run,
re-reads and re-tokenizes nothing it has seen, and sees edits on disk."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from ctxviewer.engine.files.reading import ProjectFS
from ctxviewer.engine.profiles import mahabharatha
from ctxviewer.engine.project.loading import load_project
from ctxviewer.engine.runs.pipeline import assemble_task
from ctxviewer.engine.signals import spec as spec_mod
from ctxviewer.engine.tokens import counting as tokens
from ctxviewer.engine.trace.model import INCLUDED, TRUNCATED
from tests.factories import make_project

KEYWORDS = ["ledger", "session", "token", "refund", "audit", "queue"]


def _spec(paragraphs: int, seed: int) -> str:
    # Paragraph n mentions a varying subset of the keywords, so scores spread over 0..4.
    out = []
    for n in range(paragraphs):
        words = [KEYWORDS[(n * seed + k) % len(KEYWORDS)] for k in range(n % 5)]
        out.append(f"Paragraph {n} about " + " and ".join(words or ["nothing"]) + ". " + "Filler text. " * (n % 7))
    return "\n\n".join(out) + "\n"


@pytest.fixture
def project_root(tmp_path: Path) -> Path:
    task = {
        "id": "T",
        "title": "Ledger session token refund audit",
        "files": {"create": ["src/ledger_queue.py"]},
    }
    rules = {"_core/owasp-2025.md": "## Rule: Validate input\n**Level**: strict\n" * 20}
    return make_project(tmp_path, [task], requirements=_spec(400, 1), design=_spec(300, 5), rules=rules)


def _cold() -> None:
    spec_mod.clear_caches()
    mahabharatha.clear_caches()


CHANGES: list[dict[str, Any]] = [
    {"budget": 900},
    {"budget": 12_000},
    {"spec_share": 0.2},
    {"spec_share": 0.65, "security_share": 0.1},
    {"top_k": 2},
    {"top_k": 40},
    {"tokenizer": "cl100k_base"},
    {},
]


@pytest.mark.parametrize("exact", [False, True])
def test_warm_rebudget_equals_a_cold_run(project_root: Path, exact: bool) -> None:
    project = load_project(project_root)
    feature = project.feature("feat")
    task = feature.task("T")
    warm = []
    assemble_task(project, feature, task, exact=exact)  # fills the caches
    for change in CHANGES:
        warm.append(assemble_task(project, feature, task, project.settings.with_overrides(change, "t"), exact=exact))
    for change, trace in zip(CHANGES, warm, strict=True):
        _cold()
        cold = assemble_task(
            load_project(project_root), feature, task, project.settings.with_overrides(change, "t"), exact=exact
        )
        assert trace == cold, change


def test_rebudget_reads_and_tokenizes_nothing_it_has_seen(project_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = load_project(project_root)
    feature = project.feature("feat")
    task = feature.task("T")
    first = assemble_task(project, feature, task, exact=True)

    reads: list[str] = []
    original_read = ProjectFS._read_text
    monkeypatch.setattr(ProjectFS, "_read_text", lambda self, rel: reads.append(rel) or original_read(self, rel))
    tokenized: list[str] = []
    original_remember = tokens.TiktokenCounter._remember

    def remember(self: tokens.TiktokenCounter, values: dict[str, int]) -> None:
        tokenized.extend(values)
        original_remember(self, values)

    monkeypatch.setattr(tokens.TiktokenCounter, "_remember", remember)
    second = assemble_task(project, feature, task, project.settings.with_overrides({"budget": 300}, "t"), exact=True)

    # (A rule file that does not exist is looked for again: a failed open, not a read.)
    assert [r for r in reads if (project_root / r).exists()] == []
    paragraphs = {i.text for i in first.items}
    assert not paragraphs & set(tokenized), "a paragraph already counted was tokenized again"
    # What is new is the assembled text itself: the context and the sections that changed.
    assert second.context != first.context
    assert second.context in tokenized


def test_an_edit_on_disk_is_seen_by_the_next_run(project_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = load_project(project_root)
    feature = project.feature("feat")
    task = feature.task("T")
    assemble_task(project, feature, task, exact=False)

    requirements = project_root / ".gsd/specs/feat/requirements.md"
    text = requirements.read_text(encoding="utf-8")
    new_paragraph = "Every refund needs an audit ledger session token entry, always."
    requirements.write_text(new_paragraph + "\n\n" + text, encoding="utf-8")
    stat = requirements.stat()
    os.utime(requirements, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))

    reads: list[str] = []
    original_read = ProjectFS._read_text
    monkeypatch.setattr(ProjectFS, "_read_text", lambda self, rel: reads.append(rel) or original_read(self, rel))
    trace = assemble_task(project, feature, task, exact=False)

    # Only the edited file is read again; the new paragraph scores 5 and ranks first.
    assert [r for r in reads if (project_root / r).exists()] == [".gsd/specs/feat/requirements.md"]
    first = trace.item("requirements:1")
    assert first is not None and first.text == new_paragraph
    assert first.rank == 1 and first.status in (INCLUDED, TRUNCATED)


def test_refresh_redoes_only_what_changed(project_root: Path) -> None:
    from ctxviewer.engine.project.loading import refresh_project
    from tests.factories import write

    write(project_root, ".gsd/specs/other/task-graph.json", '{"tasks": [{"id": "O1", "title": "Other"}]}')
    project = load_project(project_root)
    same, changed = refresh_project(project)
    assert same is project and changed == ()

    # A spec edit needs no refresh (runs re-read it); the project object stays.
    (project_root / ".gsd/specs/feat/requirements.md").write_text("Edited.\n", encoding="utf-8")
    assert refresh_project(project)[0] is project

    # A task graph edit re-reads that feature only.
    write(project_root, ".gsd/specs/feat/task-graph.json", '{"tasks": [{"id": "T9", "title": "New task"}]}')
    graph = project_root / ".gsd/specs/feat/task-graph.json"
    st = graph.stat()
    os.utime(graph, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    fresh, changed = refresh_project(project)
    assert changed == (".gsd/specs/feat/task-graph.json",)
    assert [t.id for t in fresh.feature("feat").tasks] == ["T9"]
    assert fresh.feature("other") is project.feature("other")
    assert fresh.settings is project.settings
    assert refresh_project(fresh) == (fresh, ())

    # A config change reloads everything, settings included.
    write(project_root, "ctxviewer.yaml", "budget:\n  total: 1234\n")
    reloaded, changed = refresh_project(fresh)
    assert changed == ("ctxviewer.yaml",) and reloaded.settings.budget == 1234

    # A new feature folder reloads the feature list.
    write(project_root, ".gsd/specs/third/requirements.md", "Third.\n")
    listed, changed = refresh_project(reloaded)
    assert [f.name for f in listed.features] == ["feat", "other", "third"] and "features added" in changed[0]
