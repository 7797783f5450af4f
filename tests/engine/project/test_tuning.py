"""Saving tuned settings to ctxviewer.yaml: what is written, what is kept, round trips."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from ctxviewer.engine.errors import SettingsError
from ctxviewer.engine.project.loading import load_project
from ctxviewer.engine.project.tuning import plan_save, save_ctxviewer_yaml
from tests.factories import make_project, write

TASK = {"id": "T", "title": "Login session", "files": {"create": ["src/app.py"]}}
SYSTEM = (
    "workers:\n  context_threshold_percent: 65\n"
    "plugins:\n  context_engineering:\n    task_context_budget_tokens: 5000\n"
)


def _project(tmp_path: Path, ctxviewer_yaml: str | None = None) -> Path:
    root = make_project(tmp_path, [TASK], requirements="Login.", design="Session.", config=SYSTEM)
    if ctxviewer_yaml is not None:
        write(root, "ctxviewer.yaml", ctxviewer_yaml)
    return root


def test_save_creates_the_file_and_it_round_trips(tmp_path: Path) -> None:
    root = _project(tmp_path)
    project = load_project(root)
    tuned = project.settings.with_overrides(
        {"budget": 2500, "spec_share": 0.4, "zones": {"compaction": 75}, "replay_minutes": 2.5}, "gui"
    )
    result = save_ctxviewer_yaml(project, tuned)

    assert [c.key for c in result.changes] == ["budget", "spec_share", "zones", "replay_minutes"]
    assert result.changes[0].before == 5000 and result.changes[0].after == 2500  # from the system config
    data = yaml.safe_load((root / "ctxviewer.yaml").read_text(encoding="utf-8"))
    assert data == {
        "budget": {"total": 2500, "shares": {"spec_excerpts": 0.4}},
        "zones": {"compaction": 75.0},
        "replay": {"minutes_per_task": 2.5},
    }
    again = load_project(root).settings
    assert (again.budget, again.spec_share, again.zones, again.replay_minutes) == (
        2500,
        0.4,
        (("compaction", 75.0),),
        2.5,
    )
    assert again.origin("budget") == "ctxviewer.yaml"
    # The system's own config is never written.
    assert (root / ".mahabharatha/config.yaml").read_text(encoding="utf-8") == SYSTEM


def test_the_upstream_version_is_one_change_though_it_has_two_spellings(tmp_path: Path) -> None:
    # ctxviewer.yaml takes `upstream: latest` and `upstream: {version: latest}`: one setting, one change.
    project = load_project(_project(tmp_path))
    result = save_ctxviewer_yaml(project, project.settings.with_overrides({"upstream": "latest"}, "gui"))
    assert [(c.key, c.before, c.after) for c in result.changes] == [("upstream", "auto", "latest")]
    assert result.summary().splitlines()[1:] == ["  upstream: auto \u2192 latest"]
    assert yaml.safe_load((tmp_path / "ctxviewer.yaml").read_text(encoding="utf-8")) == {
        "upstream": {"version": "latest"}
    }
    assert load_project(tmp_path).settings.upstream == "latest"


def test_existing_keys_and_the_leading_comment_are_kept(tmp_path: Path) -> None:
    original = "# team settings\n# keep this\ntop_k: 7\nbudget:\n  total: 3000  # tuned last week\n"
    root = _project(tmp_path, original)
    project = load_project(root)
    result = save_ctxviewer_yaml(project, project.settings.with_overrides({"budget": 3600}, "gui"))

    text = (root / "ctxviewer.yaml").read_text(encoding="utf-8")
    assert text.startswith("# team settings\n# keep this\n")
    assert yaml.safe_load(text) == {"budget": {"total": 3600}, "top_k": 7}
    assert result.comments_lost == 1  # the trailing comment on the budget line
    assert "could not be kept" in result.summary()
    assert "budget: 3,000 \u2192 3,600" in result.summary()


def test_an_unchanged_save_writes_nothing(tmp_path: Path) -> None:
    root = _project(tmp_path)
    project = load_project(root)
    result = save_ctxviewer_yaml(project, project.settings)
    assert result.changes == () and not result.written
    assert not (root / "ctxviewer.yaml").exists()
    assert "nothing written" in result.summary()


def test_a_value_equal_to_the_lower_layers_is_not_added(tmp_path: Path) -> None:
    root = _project(tmp_path)
    project = load_project(root)
    # threshold is 65 from the system config; "tuning" it to 65 changes nothing.
    result = plan_save(project, project.settings.with_overrides({"threshold_percent": 65, "top_k": 3}, "gui"))
    assert [c.key for c in result.changes] == ["top_k"]
    assert yaml.safe_load(result.text) == {"top_k": 3}


def test_a_broken_ctxviewer_yaml_is_refused_and_left_alone(tmp_path: Path) -> None:
    root = _project(tmp_path)
    project = load_project(root)
    write(root, "ctxviewer.yaml", "budget: [unclosed\n")
    with pytest.raises(SettingsError):
        save_ctxviewer_yaml(project, project.settings.with_overrides({"budget": 900}, "gui"))
    assert (root / "ctxviewer.yaml").read_text(encoding="utf-8") == "budget: [unclosed\n"


def test_a_planned_save_is_refused_if_the_file_changed_since(tmp_path: Path) -> None:
    from ctxviewer.engine.errors import WriteError

    root = _project(tmp_path, "top_k: 7\n")
    project = load_project(root)
    plan = plan_save(project, project.settings.with_overrides({"budget": 900}, "gui"))
    write(root, "ctxviewer.yaml", "top_k: 8\n# edited by someone else meanwhile\n")
    with pytest.raises(WriteError, match="changed on disk"):
        save_ctxviewer_yaml(project, project.settings, plan)
    assert (root / "ctxviewer.yaml").read_text(encoding="utf-8") == "top_k: 8\n# edited by someone else meanwhile\n"
