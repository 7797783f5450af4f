"""A real run in the window: File > Attach to Run and ``--follow PATH`` open the Session panel
on the run's fleet; a path with no run's files in it is one message, nothing attached."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtGui import QAction

from ctxviewer.gui.window import MainWindow
from ctxviewer.gui.window.session import is_run_path
from tests.runfactory import write_run


@pytest.mark.parametrize(
    ("name", "run"),
    [
        ("proj/.zerg/logs/workers/worker-orchestrator.jsonl", True),  # upstream's folder
        ("copy/worker-3.jsonl", True),  # upstream's name for a worker's log
        ("copy/worker-3.jsonl.1", True),
        ("proj/.mahabharatha/state/shop.json", True),  # a state file
        ("proj/.mahabharatha/logs/worker-auth-sessions.jsonl", False),  # the sample's own-format log
        ("events.jsonl", False),
    ],
)
def test_which_paths_are_runs(tmp_path: Path, name: str, run: bool) -> None:
    assert is_run_path(tmp_path / name) is run
    assert is_run_path(tmp_path)  # any folder is a run (what is in it is checked on attaching)


def test_file_menu_attaches_to_a_run(window: MainWindow) -> None:
    texts = [a.text() for a in window.findChildren(QAction)]
    assert "Attach to R&un\u2026" in texts and "&Attach to Worker Log\u2026" in texts


def test_following_a_run_folder_shows_its_fleet(qtbot, window: MainWindow, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    made = write_run(tmp_path / "proj", workers=3, lines=600, layout=".zerg")
    with qtbot.waitSignal(window.docks.session.runUpdated, timeout=20_000) as shown:
        window.following.follow_log(made.root)  # what --follow calls: a folder is a run, not an event log
    update = shown.args[0]
    assert [r.worker_id for r in update.fleet.rows] == ["1", "2", "3"]
    assert window.docks.session.following_run is not None and window.docks.session.following is None
    assert window.docks.session_dock.isVisible() and window.menus["file.detach"].isEnabled()
    assert window.docks.session.pages.currentWidget() is window.docks.session.fleet
    assert window.docks.session.fleet.chart.isVisible()
    window.following.stop()
    assert window.docks.session.following_run is None and not window.menus["file.detach"].isEnabled()


def test_a_folder_without_a_run_is_one_message(window: MainWindow, tmp_path: Path) -> None:
    window.following.follow_run(tmp_path)
    assert window.docks.session.following_run is None and not window.menus["file.detach"].isEnabled()
    assert len(window.problems.messages) == 1
    assert window.problems.messages[0].startswith(f"attach to run: {tmp_path}: no worker logs")
