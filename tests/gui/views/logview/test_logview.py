"""The Worker logs panel: its model, its filters, following the logs live, and opening a task."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QAbstractItemModelTester

from ctxviewer.engine.runfiles.logstore import ANY_EVENT, LogFilter
from ctxviewer.gui.views.logview import LogView
from ctxviewer.gui.views.logview.model import COLUMNS
from tests.engine.runfiles.small_log import line, write_small_run
from tests.gui.hostile_text import OpenWatch, hostile_strings, inotify_available, interpreted, model_texts


@pytest.fixture
def logs(qtbot, tmp_path: Path) -> LogView:
    """The panel on the small run, shown and fully read."""
    write_small_run(tmp_path)
    view = LogView()
    qtbot.addWidget(view)
    view.resize(1100, 500)
    view.show()
    with qtbot.waitSignal(view.loaded, timeout=10_000):
        assert view.open_path(tmp_path)
    yield view
    view.stop()


def cells(view: LogView, column: int) -> list[str]:
    model = view.model
    return [model.data(model.index(row, column)) for row in range(model.rowCount())]


def where(view: LogView) -> list[tuple[str, int]]:
    return [(view.model.row(n).file, view.model.row(n).line) for n in range(view.model.rowCount())]


def settle(qtbot, view: LogView) -> None:
    qtbot.waitUntil(lambda: not view.is_busy(), timeout=10_000)


def test_the_model_passes_the_model_tester_while_rows_arrive_and_filters_change(qtbot, tmp_path: Path) -> None:
    write_small_run(tmp_path)
    view = LogView()
    qtbot.addWidget(view)
    QAbstractItemModelTester(view.model, QAbstractItemModelTester.FailureReportingMode.Fatal)
    view.show()
    with qtbot.waitSignal(view.loaded, timeout=10_000):
        view.open_path(tmp_path)
    for spec in (LogFilter(level="error"), LogFilter(text="task"), LogFilter()):
        view.set_filter(spec)
        settle(qtbot, view)
    assert view.model.rowCount() == 8


def test_the_columns_show_each_line_worked_out_by_hand(logs: LogView) -> None:
    assert [logs.model.headerData(c, Qt.Orientation.Horizontal) for c in range(7)] == list(COLUMNS)
    assert logs.model.rowCount() == 8  # worker 1's five lines (one not JSON), then worker 2's three
    row = [logs.model.data(logs.model.index(3, c)) for c in range(7)]
    assert row == ["02-14 08:02:00.000", "info", "1", "shop", "T1", "task_completed", "Task T1 completed"]
    assert cells(logs, 1)[4] == "(not a record)"
    assert cells(logs, 6)[4] == "oops {"
    assert logs.count.text() == "8 lines"


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        (LogFilter(level="error"), [("worker-2.jsonl", 2), ("worker-2.jsonl", 3)]),
        (LogFilter(worker="1", level="info"), [("worker-1.jsonl", 1), ("worker-1.jsonl", 2), ("worker-1.jsonl", 4)]),
        (LogFilter(task="T1"), [("worker-1.jsonl", 2), ("worker-1.jsonl", 4)]),
        (LogFilter(event=ANY_EVENT, worker="2"), [("worker-2.jsonl", 1), ("worker-2.jsonl", 2)]),
        (LogFilter(text="lint found"), [("worker-1.jsonl", 3)]),
    ],
)
def test_the_filter_bar_shows_the_rows_worked_out_by_hand(qtbot, logs: LogView, spec: LogFilter, expected) -> None:
    logs.set_filter(spec)
    settle(qtbot, logs)
    assert where(logs) == expected
    assert logs.count.text() == f"{len(expected)} of 8 lines"


def test_the_combos_list_the_values_the_logs_hold(logs: LogView) -> None:
    def items(combo) -> list[str]:
        return [combo.itemText(n) for n in range(combo.count())]

    assert items(logs.level_box) == ["All levels", "error", "info", "warning"]
    assert items(logs.worker_box) == ["All workers", "worker 1", "worker 2"]
    assert items(logs.event_box) == ["All lines", "Any event", "task_completed", "task_failed", "task_started"]


def test_typing_in_the_search_field_filters_once_typing_pauses(qtbot, logs: LogView) -> None:
    logs.search.setText("FAILED")
    qtbot.waitUntil(lambda: logs.model.spec.text == "FAILED", timeout=5_000)
    settle(qtbot, logs)
    assert where(logs) == [("worker-2.jsonl", 2), ("worker-2.jsonl", 3)]
    logs.level_box.setCurrentIndex(logs.level_box.findData("info"))  # a combo applies at once
    settle(qtbot, logs)
    assert where(logs) == []


def test_an_appended_line_shows_once_the_watcher_fires(qtbot, logs: LogView, tmp_path: Path) -> None:
    logs.set_filter(LogFilter(level="error"))
    settle(qtbot, logs)
    log = tmp_path / ".mahabharatha" / "logs" / "workers" / "worker-2.jsonl"
    with log.open("a", encoding="utf-8") as f:
        f.write(line("08:04:00", "info", 2, "Task T3 started", task_id="T3", event="task_started"))
        f.write(line("08:05:00", "error", 2, "Task T3 failed: out of memory", task_id="T3", event="task_failed"))
    logs._fallback.stop()  # only the watcher may wake the poll here
    qtbot.waitUntil(lambda: logs.model.rowCount() == 3, timeout=5_000)
    assert where(logs)[-1] == ("worker-2.jsonl", 5)
    assert cells(logs, 6)[-1] == "Task T3 failed: out of memory"
    assert len(logs.store) == 10  # the info line is read too, just not shown
    assert logs.event_box.findData("task_failed") > 0


def test_a_new_worker_log_is_followed_too(qtbot, logs: LogView, tmp_path: Path) -> None:
    log = tmp_path / ".mahabharatha" / "logs" / "workers" / "worker-3.jsonl"
    log.write_text(line("09:00:00", "info", 3, "Worker 3 starting for feature shop"), encoding="utf-8")
    qtbot.waitUntil(lambda: logs.model.rowCount() == 9, timeout=5_000)
    assert where(logs)[-1] == ("worker-3.jsonl", 1)
    assert logs.worker_box.findData("3") > 0


def test_a_rewritten_log_is_read_again_from_its_start(qtbot, logs: LogView, tmp_path: Path) -> None:
    log = tmp_path / ".mahabharatha" / "logs" / "workers" / "worker-1.jsonl"
    log.write_text(line("10:00:00", "info", 1, "a fresh log"), encoding="utf-8")
    qtbot.waitUntil(lambda: len(logs.store) == 4 and not logs.is_busy(), timeout=5_000)
    assert "fresh log" in cells(logs, 6)[0]
    assert "truncated or replaced" in logs.status.text()


def test_a_task_row_asks_for_its_assembly_with_its_feature_and_task(qtbot, logs: LogView) -> None:
    view = logs.view
    view.setCurrentIndex(logs.model.index(3, 0))
    assert "duration_ms: 115000" in logs.detail.toPlainText()
    with qtbot.waitSignal(logs.taskRequested) as blocker:
        assert logs.open_task()
    assert blocker.args == ["shop", "T1"]
    with qtbot.waitSignal(logs.taskRequested) as blocker:
        view.activated.emit(logs.model.index(6, 2))  # double-click or Enter on worker 2's failure
    assert blocker.args == ["shop", "T2"]
    view.setCurrentIndex(logs.model.index(2, 0))  # the lint warning names no task
    with qtbot.assertNotEmitted(logs.taskRequested):
        assert not logs.open_task()


def test_a_folder_without_logs_is_said_in_the_status_line(qtbot, tmp_path: Path) -> None:
    view = LogView()
    qtbot.addWidget(view)
    assert not view.open_path(tmp_path)
    assert "no worker logs" in view.status.text()
    assert view.model.rowCount() == 0


def test_a_hidden_panel_reads_its_logs_only_once_shown(qtbot, tmp_path: Path) -> None:
    write_small_run(tmp_path)
    view = LogView()
    qtbot.addWidget(view)
    view.follow_project(tmp_path)
    assert len(view.store) == 0 and "read when this panel is shown" in view.status.text()
    with qtbot.waitSignal(view.loaded, timeout=10_000):
        view.show()
    assert len(view.store) == 8


def test_hostile_text_in_a_log_is_shown_as_plain_text(qtbot, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "canary.png").write_bytes(b"\x89PNG")
    h = hostile_strings(outside)
    folder = tmp_path / "run" / ".zerg" / "logs" / "workers"
    folder.mkdir(parents=True)
    entry = {"ts": h.title, "level": h.zone, "worker_id": h.root_name, "feature": h.feature, "message": h.paragraph}
    entry |= {"task_id": h.task_id, "event": h.event}
    (folder / "worker-1.jsonl").write_text(json.dumps(entry) + "\n" + h.rule_text + "\n", encoding="utf-8")
    watch = OpenWatch(outside) if inotify_available else None
    view = LogView()
    qtbot.addWidget(view)
    view.resize(1000, 400)
    view.show()
    with qtbot.waitSignal(view.loaded, timeout=10_000):
        view.open_path(tmp_path / "run")
    assert view.model.rowCount() == 2
    pairs = h.pairs()
    wrong = []
    for _where, role, text in model_texts(view.model):
        # an item view paints DisplayRole as plain text; a tooltip (ToolTipRole) Qt reads as it likes
        plain = role == Qt.ItemDataRole.DisplayRole
        wrong += interpreted(text, Qt.TextFormat.PlainText if plain else Qt.TextFormat.AutoText, pairs)
    assert wrong == []
    assert cells(view, 4) == [h.task_id, ""] and cells(view, 6)[1] == h.rule_text
    view.view.setCurrentIndex(view.model.index(0, 0))
    assert h.paragraph in view.detail.toPlainText() and h.task_id in view.detail.toPlainText()
    view.view.viewport().grab()  # painted: nothing named is loaded
    if watch is not None:
        assert watch.opened() == []
        watch.close()


def test_the_row_menu_offers_the_task_assembly_only_for_a_task_row(qtbot, logs: LogView) -> None:
    def entry(row: int) -> bool:
        logs.view.setCurrentIndex(logs.model.index(row, 0))
        menu = logs.row_actions.make_menu()
        action = next(a for a in menu.actions() if a.text() == "Open this task's assembly")
        enabled = action.isEnabled()
        if enabled:
            with qtbot.waitSignal(logs.taskRequested) as blocker:
                action.trigger()
            assert blocker.args == ["shop", "T2"]
        menu.deleteLater()
        return enabled

    assert entry(5)  # worker 2's task_started of T2
    assert not entry(7)  # worker 2's last line names T2 in its message only
