"""Edits on disk reach the window: a spec edit re-runs the task, a task-graph edit
re-reads that feature, a config edit changes the settings; F5 does the same at once."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ctxviewer.engine.project.loading import load_project
from ctxviewer.engine.runs.pipeline import assemble
from ctxviewer.gui.window import MainWindow
from tests.gui.conftest import LEDGER, open_and_wait

FEATURE, TASK = "auth-sessions", "AUTH-L1-001"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    target = tmp_path / "ledger"
    shutil.copytree(LEDGER, target)
    return target


def test_a_spec_edit_reruns_the_task(qtbot, window: MainWindow, root: Path) -> None:
    open_and_wait(qtbot, window, root, FEATURE, TASK)
    requirements = root / f".gsd/specs/{FEATURE}/requirements.md"
    new = "REQ-NEW: password hashing rehash argon2id iterations algorithm upgrade stored verify."
    with qtbot.waitSignal(window.traceShown, timeout=15_000) as shown:
        requirements.write_text(new + "\n\n" + requirements.read_text(encoding="utf-8"), encoding="utf-8")
    trace = shown.args[0]
    assert trace.context == assemble(load_project(root), FEATURE, TASK).context
    assert new in trace.context


def test_a_task_graph_edit_rereads_the_feature(qtbot, window: MainWindow, root: Path) -> None:
    open_and_wait(qtbot, window, root, FEATURE, TASK)
    graph = root / f".gsd/specs/{FEATURE}/task-graph.json"
    text = graph.read_text(encoding="utf-8")
    old_title = "Upgrade password hashing with rehash support"
    assert old_title in text
    with qtbot.waitSignal(window.projectRefreshed, timeout=15_000), qtbot.waitSignal(window.traceShown, timeout=15_000):
        graph.write_text(text.replace(old_title, "Hash passwords with Argon2id"), encoding="utf-8")
    assert window.trace is not None and window.trace.task_title == "Hash passwords with Argon2id"
    assert window.project is not None
    assert window.project.feature("reconciliation") is not None


def test_a_config_edit_changes_settings_and_keeps_tuned_values(qtbot, window: MainWindow, root: Path) -> None:
    open_and_wait(qtbot, window, root, FEATURE, TASK)
    with qtbot.waitSignal(window.traceShown, timeout=15_000):
        window.docks.budget.set_values({"top_k": 2})
    with qtbot.waitSignal(window.projectRefreshed, timeout=15_000), qtbot.waitSignal(window.traceShown, timeout=15_000):
        (root / "ctxviewer.yaml").write_text("budget:\n  total: 2500\n", encoding="utf-8")
    trace = window.trace
    assert trace is not None and trace.budget == 2500
    assert trace.settings["budget"].origin == "ctxviewer.yaml"
    assert trace.settings["top_k"].value == 2  # still tuned
    assert window.docks.budget.base.budget == 2500


def test_f5_picks_up_changes_at_once(qtbot, window: MainWindow, root: Path) -> None:
    open_and_wait(qtbot, window, root, FEATURE, TASK)
    window.opener.disk.watcher.blockSignals(True)  # no watcher: only F5 may notice
    (root / "ctxviewer.yaml").write_text("budget:\n  total: 1800\n", encoding="utf-8")
    with qtbot.waitSignal(window.traceShown, timeout=15_000) as shown:
        window.opening.refresh()
    assert shown.args[0].budget == 1800


def test_a_project_that_failed_to_open_opens_once_fixed(qtbot, window: MainWindow, root: Path) -> None:
    (root / "ctxviewer.yaml").write_text("budget:\n  total: [unclosed\n", encoding="utf-8")
    with qtbot.waitSignal(window.lanes.load.errored, timeout=10_000):
        window.open_project(root, FEATURE, TASK)
    text = window.problems.label.text()
    assert "ctxviewer.yaml:3" in text and "press F5" in text
    assert str(root) in window.store.recent_projects()
    # Fixing the file is enough: the window watches it and tries again.
    with qtbot.waitSignal(window.traceShown, timeout=15_000) as shown:
        (root / "ctxviewer.yaml").write_text("budget:\n  total: 2000\n", encoding="utf-8")
    assert shown.args[0].budget == 2000 and shown.args[0].task_id == TASK
    assert not window.problems.notices


def test_a_refused_save_stays_on_screen(qtbot, window: MainWindow, root: Path) -> None:
    open_and_wait(qtbot, window, root, FEATURE, TASK)
    with qtbot.waitSignal(window.traceShown, timeout=15_000):
        window.docks.budget.set_values({"budget": 2200})
    (root / "ctxviewer.yaml").write_text("budget: [broken\n", encoding="utf-8")
    window.tuner.save(confirm=False)
    # Later runs (here the watcher's re-run after the edit) do not wipe the message.
    window.opening.refresh()
    qtbot.waitUntil(lambda: not window.lanes.refresh.is_busy() and not window.lanes.run.is_busy(), timeout=10_000)
    assert any("settings not saved" in m for m in window.problems.messages)
