"""The project part alone: the task shown first, and the paths a project (or a failed one) watches."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ctxviewer.engine.project.loading import Project, load_project
from ctxviewer.gui.window.project import ProjectWatcher, failed_folder_paths, first_target, project_watch
from tests.engine.test_hostile_corpus import needs_symlinks
from tests.factories import make_project, write


def task(task_id: str) -> dict[str, object]:
    return {"id": task_id, "title": f"Task {task_id}", "files": {}}


@pytest.fixture
def two_features(tmp_path: Path) -> Project:
    """Features alpha (A1, A2) and beta (B1, B2), listed in that (sorted) order; one rule file."""
    root = tmp_path / "proj"
    make_project(root, [task("A1"), task("A2")], requirements="Alpha.", feature="alpha")
    make_project(root, [task("B1"), task("B2")], feature="beta", rules={"_core/owasp.md": "## Rule: x\n"})
    return load_project(root)


def test_the_first_task_shown_is_the_one_asked_for_else_the_last_else_the_first(two_features: Project) -> None:
    p = two_features
    assert first_target(p, (None, None), None) == (("alpha", "A1"), "")
    assert first_target(p, ("beta", None), None) == (("beta", "B1"), "")
    assert first_target(p, (None, "B2"), None) == (("beta", "B2"), "")
    # The last task shown in this project, when nothing is asked for ...
    assert first_target(p, (None, None), ("beta", "B2")) == (("beta", "B2"), "")
    # ... but what is asked for wins over it.
    assert first_target(p, (None, "A2"), ("beta", "B2")) == (("alpha", "A2"), "")
    # A last task that has gone is quietly replaced by the first.
    assert first_target(p, (None, None), ("beta", "B9")) == (("alpha", "A1"), "")


def test_a_task_asked_for_that_is_not_there_is_said_and_the_first_shown(two_features: Project) -> None:
    p = two_features
    assert first_target(p, ("beta", "A1"), None) == (
        ("alpha", "A1"),
        "no task A1 in feature beta; showing the first task",
    )
    assert first_target(p, ("gamma", None), ("beta", "B2")) == (
        ("alpha", "A1"),
        "no task (any) in feature gamma; showing the first task",
    )


def test_a_project_without_tasks_has_nothing_to_show(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    assert first_target(load_project(tmp_path / "empty"), (None, "A1"), None) == (
        None,
        "no task A1 in feature (any); showing the first task",
    )
    assert first_target(load_project(tmp_path / "empty"), (None, None), None) == (None, "")


def test_a_project_watches_its_folders_the_current_feature_and_the_rules(qtbot, two_features: Project) -> None:
    root = str(two_features.root)
    specs, rules = f"{root}/.gsd/specs", f"{root}/.claude/rules/security"
    watch = project_watch(two_features)
    # No config file exists, so the head is the root and the specs folder; the tail the rules.
    assert watch.head == (root, specs)
    assert watch.tail == (rules, f"{rules}/_core/owasp.md")

    disk = ProjectWatcher()
    disk.watch_project(two_features, "alpha")
    assert disk.watcher.directories() == [root, specs, f"{specs}/alpha", rules]
    assert disk.watcher.files() == [
        f"{specs}/alpha/requirements.md",
        f"{specs}/alpha/task-graph.json",
        f"{rules}/_core/owasp.md",
    ]
    disk.watch_project(two_features, "beta")  # beta instead of alpha, not as well
    assert disk.watcher.directories() == [root, specs, f"{specs}/beta", rules]
    assert disk.watcher.files() == [f"{specs}/beta/task-graph.json", f"{rules}/_core/owasp.md"]
    disk.watch_project(None, None)
    assert disk.watcher.directories() == [] and disk.watcher.files() == []


@needs_symlinks
def test_a_failed_project_watches_its_configs_but_no_link_out(tmp_path: Path) -> None:
    root = tmp_path / "broken"
    write(root, "ctxviewer.yaml", "budget: [")
    (root / ".gsd" / "specs").mkdir(parents=True)
    write(tmp_path, "outside/config.yaml", "x: 1")
    os.symlink(tmp_path / "outside", root / ".mahabharatha")  # leads out of the project
    real = os.path.realpath(root)
    # Of the six places looked at, three exist inside: the root, ctxviewer.yaml and the specs
    # folder; .mahabharatha (and its config.yaml) lead outside, .zerg/config.yaml is absent.
    assert failed_folder_paths(str(root)) == [real, f"{real}/ctxviewer.yaml", f"{real}/.gsd/specs"]
