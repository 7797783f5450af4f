"""What the window says and watches once an open is over: a final status message whatever
the project holds, and after a failed open only real paths inside the project watched."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ctxviewer.gui.window import MainWindow
from tests.engine.test_hostile_corpus import needs_symlinks
from tests.factories import make_project, write

TASK = {"id": "T1", "title": "Login session", "files": {"create": ["src/app.py"]}}


def test_a_project_with_only_broken_task_graphs_says_it_is_open(qtbot, window: MainWindow, tmp_path: Path) -> None:
    root = make_project(tmp_path / "p", [TASK], requirements="Login.")
    write(root, ".gsd/specs/feat/task-graph.json", '{"tasks": [')
    with qtbot.waitSignal(window.projectLoaded, timeout=15_000):
        window.open_project(root)
    assert window.statusBar().currentMessage() == f"Opened {os.path.realpath(root)}: no task to show"


def test_a_project_with_a_task_stops_saying_opening_even_before_its_run_reports(
    qtbot, window: MainWindow, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_project(tmp_path / "p", [TASK], requirements="Login.")
    chosen: list[tuple[str, str]] = []
    monkeypatch.setattr(window, "select_task", lambda feature, task: chosen.append((feature, task)))
    with qtbot.waitSignal(window.projectLoaded, timeout=15_000):
        window.open_project(root)
    # a run that fails or is cancelled says so elsewhere; the open itself is over
    assert chosen == [("feat", "T1")]
    assert window.statusBar().currentMessage() == f"Opened {os.path.realpath(root)}"


@needs_symlinks
def test_a_failed_open_watches_real_paths_inside_and_skips_loops(qtbot, window: MainWindow, tmp_path: Path) -> None:
    base = tmp_path.resolve()
    root = make_project(base / "p", [TASK], requirements="Login.")
    write(root, "ctxviewer.yaml", "budget: [unclosed\n")
    # a config folder that is a symlink inside the project, a config that is a loop
    write(root, "configs/mahabharatha/config.yaml", "workers: {}\n")
    os.symlink("configs/mahabharatha", root / ".mahabharatha")
    (root / ".zerg").mkdir()
    os.symlink("config.yaml", root / ".zerg/config.yaml")  # a link to itself
    with qtbot.waitSignal(window.lanes.load.errored, timeout=15_000):
        window.open_project(root)
    watched = sorted(window.opener.disk.watcher.files() + window.opener.disk.watcher.directories())
    expected = [root, *(root / rel for rel in ("ctxviewer.yaml", "configs/mahabharatha", ".gsd/specs"))]
    expected.append(root / "configs/mahabharatha/config.yaml")
    assert watched == sorted(str(p) for p in expected)
