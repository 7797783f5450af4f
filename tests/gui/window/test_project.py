"""The project part alone: the task shown first, and the paths a project (or a failed one) watches."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from ctxviewer.engine.project.loading import Project, load_project
from ctxviewer.gui.window.project import (
    ProjectOpener,
    ProjectWatcher,
    failed_folder_paths,
    first_target,
    load_warnings,
    project_watch,
    refresh_target,
)
from ctxviewer.gui.worker import Lane, make_pool
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


def test_after_a_refresh_the_same_task_else_its_feature_s_first_else_the_first(two_features: Project) -> None:
    assert refresh_target(two_features, ("beta", "B2")) == ("beta", "B2")
    assert refresh_target(two_features, ("beta", "B9")) == ("beta", "B1")  # the task went
    assert refresh_target(two_features, ("gone", "B2")) == ("alpha", "A1")  # the feature went


def test_the_load_warnings_name_each_unreadable_task_graph(tmp_path: Path) -> None:
    make_project(tmp_path, [task("A1")], feature="alpha")
    write(tmp_path, ".gsd/specs/beta/task-graph.json", "{not json")
    project = load_project(tmp_path)
    warnings = load_warnings(project)
    assert warnings[: len(project.warnings)] == list(project.warnings)
    assert [w for w in warnings if w.startswith("beta: ")] == warnings[len(project.warnings) :]
    assert len(warnings) == len(project.warnings) + 1


@pytest.fixture
def opener(qtbot) -> Iterator[ProjectOpener]:
    pool = make_pool(1)
    yield ProjectOpener(Lane(pool, "load"), Lane(pool, "refresh"))
    pool.waitForDone(10_000)


def test_a_folder_that_fails_to_open_is_kept_and_watched_until_it_opens(
    qtbot, opener: ProjectOpener, tmp_path: Path
) -> None:
    root = tmp_path / "proj"
    make_project(root, [task("A1")], feature="alpha")
    write(root, "ctxviewer.yaml", "budget: [")
    with qtbot.waitSignal(opener.failed, timeout=10_000) as failed:
        opener.open(str(root))
    assert failed.args[0] == str(root) and failed.args[1]
    assert opener.failed_folder == str(root) and opener.project is None
    assert os.path.realpath(root) in opener.disk.watcher.directories()

    (root / "ctxviewer.yaml").unlink()  # fixed
    with qtbot.waitSignal(opener.loaded, timeout=10_000) as loaded:
        opener.open(str(root))
    project, recovered = loaded.args
    assert recovered and opener.failed_folder == "" and opener.project is project
    assert [f.name for f in project.features] == ["alpha"]

    # Nothing changed on disk: the same project comes back, with nothing named.
    with qtbot.waitSignal(opener.refreshed, timeout=10_000) as refreshed:
        opener.refresh()
    assert refreshed.args == [project, project, ()]
    # A second feature appears: a new project replaces the old one.
    make_project(root, [task("B1")], feature="beta")
    with qtbot.waitSignal(opener.refreshed, timeout=10_000) as refreshed:
        opener.refresh()
    fresh, before, changed = refreshed.args
    assert before is project and fresh is opener.project and fresh is not project
    assert changed == (".gsd/specs (features added or removed)",)
    assert [f.name for f in fresh.features] == ["alpha", "beta"]
