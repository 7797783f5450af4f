"""The Worker logs panel in the window: it follows the open project's run, and a task row selects that task."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from ctxviewer.gui.window import MainWindow
from tests.gui.conftest import LEDGER, open_and_wait


def write_log(root: Path) -> None:
    folder = root / ".mahabharatha" / "logs" / "workers"
    folder.mkdir(parents=True)
    lines = [
        {"ts": "2026-02-14T08:00:00Z", "level": "info", "worker_id": 1, "feature": "auth-sessions", "message": "hi"},
        {"ts": "2026-02-14T08:00:05Z", "level": "info", "worker_id": 1, "feature": "auth-sessions",
         "message": "Task AUTH-L1-002 started", "task_id": "AUTH-L1-002", "event": "task_started"},
    ]  # fmt: skip
    (folder / "worker-1.jsonl").write_text("".join(json.dumps(e) + "\n" for e in lines), encoding="utf-8")


def test_the_logs_of_the_open_project_open_a_task_assembly(qtbot, window: MainWindow, tmp_path: Path) -> None:
    root = tmp_path / "ledger"
    shutil.copytree(LEDGER, root)
    write_log(root)
    first = open_and_wait(qtbot, window, root, "auth-sessions", "AUTH-L1-001")
    assert first.task_id == "AUTH-L1-001"
    assert not window.docks.logs_dock.isVisible()  # hidden until asked for: nothing read yet
    assert len(window.docks.logs.store) == 0
    with qtbot.waitSignal(window.docks.logs.loaded, timeout=10_000):
        window.docks.show_logs()
    assert window.docks.logs.model.rowCount() == 2
    # The right-hand panels' minimum height leaves the bottom dock about 200 pixels at 1280x800:
    # the table still shows five rows.
    table = window.docks.logs.view
    qtbot.waitUntil(lambda: table.viewport().height() // table.verticalHeader().defaultSectionSize() >= 5)
    window.docks.logs.view.setCurrentIndex(window.docks.logs.model.index(1, 0))
    with qtbot.waitSignal(window.traceShown, timeout=30_000) as blocker:
        window.docks.logs.open_task()
    assert (blocker.args[0].feature, blocker.args[0].task_id) == ("auth-sessions", "AUTH-L1-002")
    assert window.current == ("auth-sessions", "AUTH-L1-002")


def test_open_worker_logs_shows_a_log_picked_alone(qtbot, window: MainWindow, tmp_path: Path) -> None:
    write_log(tmp_path)
    assert any(a.text() == "Open Worker &Logs\u2026" for a in window.actions())
    with qtbot.waitSignal(window.docks.logs.loaded, timeout=10_000):
        window.following.open_logs(tmp_path / ".mahabharatha" / "logs" / "workers" / "worker-1.jsonl")
    assert window.docks.logs_dock.isVisible()
    assert window.docks.logs.model.rowCount() == 2
