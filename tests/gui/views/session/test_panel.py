"""The session panel: replay playback, parameters, the usage plot, and live mode.

Playback is driven by hand (``player.step()`` or the injected timer's ``timeout``);
only the tests that exercise the real timers wait, through ``qtbot.waitSignal``.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QPointF, Qt, QTimer
from PySide6.QtGui import QImage, QPalette
from PySide6.QtWidgets import QApplication

from ctxviewer.engine.project.loading import load_project
from ctxviewer.engine.runs.session import SessionReplay, replay_session
from ctxviewer.engine.runtime.eventlog import LiveUsage
from ctxviewer.gui.app import dark_palette
from ctxviewer.gui.views.session import (
    BASE_INTERVAL_MS,
    PlotValue,
    ReplayPlayer,
    SessionPanel,
    UsagePlot,
    nice_step,
    nice_ticks,
    parse_minutes,
    parse_tool_calls,
    plot_top,
    tokens_k,
)
from ctxviewer.gui.widgets.charts import RED, zone_color
from tests.conftest import SAMPLES
from tests.gui.widgets.test_charts import close, painted_pixels

LEDGER = SAMPLES / "ledger-service"


class ManualTimer(QTimer):
    """A timer that never fires by itself: tests emit ``timeout`` when they want a tick."""

    def __init__(self) -> None:
        super().__init__()
        self.started = 0
        self.running = False

    def start(self, *args: Any) -> None:
        self.started += 1
        self.running = True

    def stop(self) -> None:
        self.running = False


@pytest.fixture(scope="module")
def ledger_replays() -> dict[str, SessionReplay]:
    project = load_project(LEDGER)
    feature = project.feature("auth-sessions")
    low = project.settings.with_overrides({"max_context_tokens": 18_000, "zones": {"compaction": 75.0}}, "test")
    return {
        "plain": replay_session(project, feature),
        "low": replay_session(project, feature, low),
        "reset": replay_session(project, feature, low, reset_on_checkpoint=True),
    }


@pytest.fixture
def replay(ledger_replays: dict[str, SessionReplay]) -> SessionReplay:
    """auth-sessions with an 18,000-token context: the checkpoint fires at the 6th task."""
    return ledger_replays["low"]


@pytest.fixture
def dark_app() -> Iterator[None]:
    """The dark palette application-wide, as the app sets it (a widget palette loses to a style sheet)."""
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    old = app.palette()
    app.setPalette(dark_palette())
    yield
    app.setPalette(old)


@pytest.fixture
def timer() -> ManualTimer:
    return ManualTimer()


@pytest.fixture
def panel(qtbot, timer: ManualTimer) -> Iterator[SessionPanel]:  # type: ignore[no-untyped-def]
    widget = SessionPanel(timer=timer)
    qtbot.addWidget(widget)
    widget.resize(380, 640)
    yield widget
    widget.stop_following()


# -- pure helpers --------------------------------------------------------------------------


def test_axis_helpers() -> None:
    assert [tokens_k(v) for v in (0, 750, 1000, 2500, 12_000, 12_345, 1_250_000, -3000)] == [
        "0",
        "750",
        "1k",
        "2.5k",
        "12k",
        "12.3k",
        "1.25M",
        "-3k",
    ]
    assert tokens_k(float("nan")) == "0"
    assert nice_step(24_124, 3) == 10_000
    assert nice_step(24_124, 5) == 5_000
    assert nice_step(24_124, 10) == 2_500
    assert nice_step(7, 7) == 1 and nice_step(0, 4) == 0.25
    assert nice_ticks(24_124, 5) == (0, 5_000, 10_000, 15_000, 20_000, 25_000)
    assert nice_ticks(20_000, 4) == (0, 5_000, 10_000, 15_000, 20_000)
    assert nice_ticks(float("inf"), 3)[0] == 0


def test_parameter_parsing() -> None:
    assert parse_tool_calls(" 12 ") == (12, "")
    assert parse_tool_calls("0") == (0, "")
    assert parse_tool_calls("abc") == (None, "not a whole number")
    assert parse_tool_calls("2.5")[0] is None
    assert parse_tool_calls("-1") == (None, "0 to 10,000")
    assert parse_tool_calls("")[0] is None
    assert parse_minutes("0.5") == (0.5, "")
    assert parse_minutes("nan") == (None, "0 to 10000")
    assert parse_minutes("x") == (None, "not a number")
    assert parse_minutes("-2")[0] is None


def test_plot_value_from_replay(replay: SessionReplay) -> None:
    value = PlotValue.from_replay(replay)
    assert value.points == tuple((i + 1.0, s.estimated_tokens) for i, s in enumerate(replay.steps))
    assert value.first_checkpoint == replay.first_checkpoint == 5
    assert value.zones == (("compaction", 75.0),)
    assert value.lines() == (("checkpoint", 70.0, -1), ("compaction", 75.0, 0))
    assert value.labels[5] == "Task 6 of 8: AUTH-L2-003"
    assert "the worker checkpoints after this task" in value.details[5]
    # The top leaves room above the highest point (21,931) and the highest line (13,500).
    assert plot_top(value) == pytest.approx(21_931 * 1.1)


# -- the player ------------------------------------------------------------------------------


def test_player_steps_plays_and_finishes(qtbot, timer: ManualTimer) -> None:  # type: ignore[no-untyped-def]
    player = ReplayPlayer(timer=timer)
    positions: list[int] = []
    player.positionChanged.connect(positions.append)
    player.set_count(3)
    assert player.position == -1 and positions == [-1]
    assert player.interval() == BASE_INTERVAL_MS
    with qtbot.waitSignal(player.playingChanged, timeout=1000) as blocker:
        player.play()
    assert blocker.args == [True] and timer.running and player.playing
    assert player.position == 0  # the first step comes at once
    timer.timeout.emit()
    assert player.position == 1
    with qtbot.waitSignal(player.finished, timeout=1000):
        timer.timeout.emit()
    assert player.position == 2 and not player.playing and not timer.running
    assert player.step() is False
    player.play()  # at the end: plays again from the start
    assert player.position == 0 and player.playing
    player.pause()
    player.reset()
    assert player.position == -1 and positions[-3:] == [-1, 0, -1]
    for speed, interval in ((2.0, 300), (4.0, 150), (0.5, 1200), (1.0, 600)):
        player.set_speed(speed)
        assert player.interval() == interval == timer.interval()
    with pytest.raises(ValueError):
        player.set_speed(0)
    player.set_count(0)
    player.play()
    assert not player.playing


def test_player_with_a_timer_factory_and_the_real_timer(qtbot) -> None:  # type: ignore[no-untyped-def]
    made: list[QTimer] = []

    def factory() -> QTimer:
        made.append(QTimer())
        return made[-1]

    player = ReplayPlayer(timer=factory)
    assert player.timer is made[0]
    player.set_count(4)
    player.set_speed(4.0)
    with qtbot.waitSignal(player.finished, timeout=5000):
        player.play()
    assert player.position == 3 and not player.playing


# -- the panel: replay -------------------------------------------------------------------------


def test_set_replay_is_ready_at_step_zero(panel: SessionPanel, replay: SessionReplay) -> None:
    assert panel.gauge.value() is None and not panel.play_button.isEnabled()
    panel.set_replay(replay)
    assert panel.player.position == -1 and panel.player.count == 8
    gauge = panel.gauge.value()
    assert gauge is not None and gauge.used == 0 and panel.gauge.property("displayed") == 0
    assert (gauge.maximum, gauge.threshold_percent, gauge.zones) == (18_000, 70.0, (("compaction", 75.0),))
    assert panel.plot.current() == -1 and panel.plot.value() == PlotValue.from_replay(replay)
    assert panel.model.rowCount() == 8 and not panel.table.selectionModel().hasSelection()
    assert "first checkpoint after task 6" in panel.header.text()
    assert "Ready: 8 tasks" in panel.breakdown.text()
    assert (panel.tool_calls.text(), panel.minutes.text(), panel.reset_after.isChecked()) == ("10", "5", False)
    assert panel.play_button.isEnabled()


def test_stepping_moves_gauge_plot_and_table(qtbot, panel: SessionPanel, replay: SessionReplay) -> None:  # type: ignore[no-untyped-def]
    panel.set_replay(replay)
    seen: list[int] = []
    panel.stepped.connect(seen.append)
    for n, step in enumerate(replay.steps[:-1]):
        qtbot.mouseClick(panel.step_button, Qt.MouseButton.LeftButton)
        gauge = panel.gauge.value()
        assert gauge is not None and gauge.used == step.estimated_tokens
        assert panel.plot.current() == n
        assert panel.table.currentIndex().row() == n
        assert panel.current_step() == step
        assert step.task_id in panel.breakdown.text()
        assert f"+{step.added:,}" in panel.breakdown.text()
    assert seen == list(range(7))
    with qtbot.waitSignal(panel.finished, timeout=1000):
        panel.player.step()
    assert seen[-1] == 7 and panel.player.position == 7
    final = pytest.approx(replay.steps[-1].usage_percent)
    qtbot.waitUntil(lambda: panel.gauge.displayed == final, timeout=2000)
    qtbot.mouseClick(panel.reset_button, Qt.MouseButton.LeftButton)
    assert panel.player.position == -1 and panel.plot.current() == -1
    assert panel.gauge.value() is not None and panel.gauge.value().used == 0  # type: ignore[union-attr]


def test_play_pause_button_with_the_injected_timer(
    qtbot: Any, panel: SessionPanel, replay: SessionReplay, timer: ManualTimer
) -> None:
    panel.set_replay(replay)
    qtbot.mouseClick(panel.play_button, Qt.MouseButton.LeftButton)
    assert panel.play_button.text() == "Pause" and timer.running and panel.player.position == 0
    timer.timeout.emit()
    timer.timeout.emit()
    assert panel.player.position == 2
    qtbot.mouseClick(panel.play_button, Qt.MouseButton.LeftButton)
    assert panel.play_button.text() == "Play" and not timer.running
    qtbot.mouseClick(panel.play_button, Qt.MouseButton.LeftButton)
    with qtbot.waitSignal(panel.finished, timeout=1000):
        for _ in range(10):
            timer.timeout.emit()
    assert panel.player.position == 7 and panel.play_button.text() == "Play"


def test_play_with_the_real_timer_finishes(qtbot, replay: SessionReplay) -> None:  # type: ignore[no-untyped-def]
    panel = SessionPanel()
    qtbot.addWidget(panel)
    panel.set_replay(replay)
    panel.speed.setCurrentIndex(panel.speed.findData(4.0))
    with qtbot.waitSignal(panel.finished, timeout=10_000):
        panel.player.play()
    assert panel.player.position == 7


def test_speed_changes_the_timer_interval(panel: SessionPanel, replay: SessionReplay, timer: ManualTimer) -> None:
    panel.set_replay(replay)
    assert [panel.speed.itemText(i) for i in range(panel.speed.count())] == [
        "0.5\u00d7",
        "1\u00d7",
        "2\u00d7",
        "4\u00d7",
    ]
    assert panel.player.interval() == 600
    for text, interval in (("2\u00d7", 300), ("4\u00d7", 150), ("0.5\u00d7", 1200)):
        panel.speed.setCurrentIndex(panel.speed.findText(text))
        assert panel.player.interval() == interval == timer.interval()


def test_first_checkpoint_is_marked(panel: SessionPanel, replay: SessionReplay) -> None:
    panel.set_replay(replay)
    for _ in range(6):
        panel.player.step()
    assert panel.current_step() is not None and panel.current_step().checkpoint  # type: ignore[union-attr]
    assert panel.plot.value().first_checkpoint == 5  # type: ignore[union-attr]
    assert "checkpoint" in panel.breakdown.text()
    row = panel.model.index(5, 4)
    assert row.data() == f"{replay.steps[5].usage_percent:.1f}%"
    assert row.data(Qt.ItemDataRole.FontRole).bold()
    assert panel.model.index(4, 4).data(Qt.ItemDataRole.FontRole) is None
    # The plot draws a red vertical marker at the first checkpoint.
    panel.plot.resize(360, 220)
    image = QImage(360, 220, QImage.Format.Format_ARGB32)
    image.fill(panel.plot.palette().color(QPalette.ColorRole.Window))
    panel.plot.render(image)
    x = int(panel.plot.point_pos(5).x())
    rect = panel.plot.plot_rect()
    rows = range(int(rect.top()) + 2, int(rect.bottom()) - 25)
    reds = sum(any(close(image.pixelColor(x + dx, y), RED, 60) for dx in (-1, 0, 1)) for y in rows)
    assert reds > len(rows) * 0.8
    # ... and not elsewhere: the marker is where the checkpoint is.
    x0 = int(panel.plot.point_pos(1).x())
    assert sum(close(image.pixelColor(x0, y), RED, 60) for y in rows) < len(rows) * 0.2


def test_table_rows_seek_and_double_click_activates(qtbot, panel: SessionPanel, replay: SessionReplay) -> None:  # type: ignore[no-untyped-def]
    panel.set_replay(replay)
    panel.show()
    qtbot.waitExposed(panel)
    rect = panel.table.visualRect(panel.model.index(2, 1))
    qtbot.mouseClick(panel.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert panel.player.position == 2
    with qtbot.waitSignal(panel.taskActivated, timeout=1000) as blocker:
        qtbot.mouseDClick(panel.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert blocker.args == [replay.steps[2].task_id]


def test_plot_tooltip_and_click(qtbot, panel: SessionPanel, replay: SessionReplay) -> None:  # type: ignore[no-untyped-def]
    panel.set_replay(replay)
    panel.show()
    qtbot.waitExposed(panel)
    target = panel.plot.point_pos(3).toPoint()
    qtbot.mouseMove(panel.plot, target)
    qtbot.waitUntil(lambda: panel.plot.toolTip() != "", timeout=1000)
    step = replay.steps[3]
    assert panel.plot.toolTip().startswith(f"Task 4 of 8: {step.task_id}\n{step.estimated_tokens:,} tokens")
    assert panel.plot.point_at(QPointF(2, 2)) is None
    qtbot.mouseClick(panel.plot, Qt.MouseButton.LeftButton, pos=target)
    assert panel.player.position == 3


def test_invalid_parameters_show_a_message_and_do_not_emit(qtbot, panel: SessionPanel, replay: SessionReplay) -> None:  # type: ignore[no-untyped-def]
    panel.set_replay(replay)
    panel.show()
    emitted: list[tuple[int, float, bool]] = []
    panel.parametersChanged.connect(lambda *args: emitted.append(args))
    panel.tool_calls.selectAll()
    qtbot.keyClicks(panel.tool_calls, "abc")
    qtbot.keyClick(panel.tool_calls, Qt.Key.Key_Return)
    assert "not a whole number" in panel.tool_calls_error.text()
    assert emitted == [] and panel.parameters() is None
    panel.minutes.setText("-3")
    assert panel.apply_parameters() is False and "0 to 10000" in panel.minutes_error.text()
    panel.reset_after.setChecked(True)  # still invalid fields: nothing
    assert emitted == []
    panel.tool_calls.selectAll()
    qtbot.keyClicks(panel.tool_calls, "12")
    panel.minutes.selectAll()
    qtbot.keyClicks(panel.minutes, "2.5")
    qtbot.keyClick(panel.minutes, Qt.Key.Key_Return)
    assert emitted == [(12, 2.5, True)]
    assert panel.tool_calls_error.text() == "" and panel.minutes_error.text() == ""
    qtbot.keyClick(panel.minutes, Qt.Key.Key_Return)  # unchanged: not again
    assert len(emitted) == 1
    panel.reset_after.setChecked(False)
    assert emitted[-1] == (12, 2.5, False)
    # The window answers with a new replay: the fields follow it, without emitting.
    panel.set_replay(replay)
    assert (panel.tool_calls.text(), panel.minutes.text()) == ("10", "5") and len(emitted) == 2


def test_reset_mode_replay_and_keep_position(panel: SessionPanel, ledger_replays: dict[str, SessionReplay]) -> None:
    reset = ledger_replays["reset"]
    panel.set_replay(reset)
    assert panel.reset_after.isChecked()
    for _ in range(7):
        panel.player.step()
    assert panel.gauge.value().used == reset.steps[6].estimated_tokens  # type: ignore[union-attr]
    assert reset.steps[6].estimated_tokens < reset.steps[5].estimated_tokens  # a fresh worker
    panel.set_replay(ledger_replays["low"], keep_position=True)
    assert panel.player.position == 6
    panel.set_replay(None)
    assert panel.gauge.value() is None and panel.model.rowCount() == 0 and not panel.step_button.isEnabled()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_panel_renders_mid_replay(request, qtbot, replay: SessionReplay, scheme: str) -> None:  # type: ignore[no-untyped-def]
    """Step 5 (the 6th task, where the checkpoint fires) at 380x640; saved to /tmp for a look."""
    if scheme == "dark":
        request.getfixturevalue("dark_app")  # before the panel exists, as in the app
    panel = request.getfixturevalue("panel")
    panel.set_replay(replay)
    for _ in range(6):
        panel.player.step()
    panel.gauge.setValue(panel.gauge.value())  # skip the animation
    panel.show()
    qtbot.waitExposed(panel)
    image = panel.grab().toImage()
    assert image.width() == 380 and image.height() == 640
    assert painted_pixels(image) > 2000
    assert panel.grab().save("/tmp/session.png" if scheme == "light" else "/tmp/session_dark.png")
    # The compaction zone line is drawn in its colour across the plot.
    plot = panel.plot
    y = int(plot.map_point(0, 18_000 * 0.75).y())
    shot = plot.grab().toImage()
    colour = zone_color(0, scheme == "dark")
    columns = range(int(plot.plot_rect().left()), 120)
    hits = max(sum(close(shot.pixelColor(x, y + dy), colour, 50) for x in columns) for dy in (-1, 0, 1))
    assert hits > len(columns) * 0.4


def test_usage_plot_copes_with_odd_values(qtbot) -> None:  # type: ignore[no-untyped-def]
    plot = UsagePlot()
    qtbot.addWidget(plot)
    values = [
        None,
        PlotValue((), 0, 0.0),
        PlotValue(((1.0, 5),), 200_000, 70.0),
        PlotValue(((0.0, 10**12), (float("nan"), -5)), 0, float("nan"), (("z", 150.0),), integer_x=False),
        PlotValue(tuple((float(i), i * 10) for i in range(5000)), 60_000, 70.0, integer_x=False, first_checkpoint=4999),
    ]
    for value in values:
        plot.setValue(value)
        for current in (None, -1, 0, 10**6):
            plot.setCurrent(current)
            for w, h in ((360, 200), (40, 30), (1, 1)):
                plot.resize(w, h)
                image = QImage(max(1, w), max(1, h), QImage.Format.Format_ARGB32)
                plot.render(image)


# -- live mode ------------------------------------------------------------------------------


def event(kind: str, ts: float, **fields: Any) -> str:
    return json.dumps({"ts": ts, "event": kind, **fields}) + "\n"


def append(path: Path, text: str) -> None:
    with path.open("a", encoding="utf-8") as handle:
        handle.write(text)


T0 = 1_790_000_000.0


def test_live_mode_reads_a_log_written_in_pieces(qtbot, panel: SessionPanel, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    log = tmp_path / "worker.jsonl"
    panel.set_live_limits(70.0, 10_000, (("compaction", 75.0), ("checkpoint", 70.0)))
    updates: list[LiveUsage] = []
    panel.liveUpdated.connect(updates.append)
    panel.follow_log(log)
    assert panel.following == log and panel.table.isHidden() and panel.replay_controls.isHidden()
    assert "waiting for" in panel.live_status.text() and len(updates) == 1
    append(log, event("task_executed", T0, id="AUTH-L1-001"))
    panel.poll_log()
    usage = panel.live_usage()
    assert usage is not None and usage.events == 1 and usage.estimated_tokens == 500
    assert updates[-1] == usage
    gauge = panel.gauge.value()
    assert gauge is not None and (gauge.used, gauge.maximum, gauge.zones) == (500, 10_000, (("compaction", 75.0),))
    append(log, event("file_read", T0 + 30, path="src/a.py", size=4000) + event("tool_call", T0 + 60, count=4))
    result = panel.poll_log()
    assert result is not None and len(result.events) == 2
    usage = panel.live_usage()
    assert usage is not None
    # 500 + (1000 + 100) + 4 * 50 + int(1.0 min * 100)
    assert usage.estimated_tokens == 500 + 1100 + 200 + 100 == 1900
    plot = panel.plot.value()
    assert plot is not None and plot.points == usage.history and len(plot.points) == 3
    assert plot.integer_x is False and panel.plot.current() is None
    assert "following" in panel.live_status.text() and "3 events" in panel.live_status.text()
    assert "AUTH-L1-001" in panel.breakdown.text()
    # A bad line is a problem, shown with the count and the last message.
    append(log, "{not json\n")
    panel.poll_log()
    assert "1 problem; last: line 4: not JSON" in panel.live_status.text()
    # Crossing the threshold (7,000 of 10,000) marks the first checkpoint.
    append(log, event("file_read", T0 + 90, path="big.bin", size=24_000))
    panel.poll_log()
    usage = panel.live_usage()
    assert usage is not None and usage.is_over_threshold and usage.first_checkpoint == 3
    assert panel.plot.value().first_checkpoint == 3  # type: ignore[union-attr]
    assert "checkpoint since" in panel.breakdown.text()
    count = len(updates)
    panel.poll_log()  # nothing new: no update
    assert len(updates) == count


def test_live_torn_last_line_waits_for_its_newline(panel: SessionPanel, tmp_path: Path) -> None:
    log = tmp_path / "worker.jsonl"
    log.write_text(event("task_executed", T0, id="A"), encoding="utf-8")
    panel.follow_log(log)
    assert panel.live_usage().events == 1  # type: ignore[union-attr]
    line = event("task_executed", T0 + 60, id="B")
    append(log, line[:20])
    panel.poll_log()
    assert panel.live_usage().events == 1  # type: ignore[union-attr]
    assert "<b>A</b>" in panel.breakdown.text() and "<b>B</b>" not in panel.breakdown.text()
    assert len(panel.plot.value().points) == 1  # type: ignore[union-attr]
    append(log, line[20:])
    panel.poll_log()
    usage = panel.live_usage()
    assert usage is not None and usage.events == 2 and usage.last_task == "B"
    assert "<b>B</b>" in panel.breakdown.text()
    assert len(panel.plot.value().points) == 2  # type: ignore[union-attr]


def test_live_updates_come_from_the_watcher_or_the_poll_timer(qtbot, panel: SessionPanel, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    log = tmp_path / "live.jsonl"
    panel.follow_log(log)  # the file does not exist yet: the folder is watched
    with qtbot.waitSignal(panel.liveUpdated, timeout=5000, check_params_cb=lambda u: u.events == 1) as blocker:
        append(log, event("task_executed", T0, id="T1"))
    assert blocker.args[0].estimated_tokens == 500
    with qtbot.waitSignal(panel.liveUpdated, timeout=5000, check_params_cb=lambda u: u.events == 3):
        append(log, event("tool_call", T0 + 1) + event("tool_call", T0 + 2, count=2))
    assert panel.live_usage().tool_calls == 3  # type: ignore[union-attr]


def test_live_more_polls_again_at_once(qtbot, panel: SessionPanel, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr("ctxviewer.gui.views.session.live.LIVE_READ_LIMIT", 64)
    log = tmp_path / "big.jsonl"
    log.write_text("".join(event("tool_call", T0 + i) for i in range(20)), encoding="utf-8")
    panel.follow_log(log)
    assert panel.last_poll is not None and panel.last_poll.more
    qtbot.waitUntil(lambda: panel.live_usage().events == 20, timeout=5000)  # type: ignore[union-attr]


def test_live_limits_and_stop_following(panel: SessionPanel, replay: SessionReplay, tmp_path: Path) -> None:
    log = tmp_path / "w.jsonl"
    log.write_text(event("file_read", T0, path="x", size=8000), encoding="utf-8")
    panel.set_replay(replay)
    panel.player.step()
    panel.follow_log(log)
    assert panel.live_usage().estimated_tokens == 2100  # type: ignore[union-attr]
    assert panel.gauge.value().maximum == 200_000  # type: ignore[union-attr]
    panel.set_live_limits(50.0, 4000, ())
    usage = panel.live_usage()
    assert usage is not None and usage.max_tokens == 4000 and usage.is_over_threshold
    assert panel.gauge.value().threshold_percent == 50.0  # type: ignore[union-attr]
    panel.stop_following()
    assert panel.following is None and panel.live_usage() is None
    assert not panel.table.isHidden() and not panel.replay_controls.isHidden()
    assert panel.gauge.value().used == replay.steps[0].estimated_tokens  # type: ignore[union-attr]
    assert panel.plot.value() == PlotValue.from_replay(replay) and panel.plot.current() == 0
    assert panel.poll_log() is None


def test_live_dark_render(qtbot, dark_app: None, panel: SessionPanel, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    log = tmp_path / "w.jsonl"
    lines = [event("task_executed", T0, id="AUTH-L1-001")]
    lines += [event("file_read", T0 + 60 * i, path=f"f{i}.py", size=3000 * i) for i in range(1, 9)]
    lines.append("oops\n")
    log.write_text("".join(lines), encoding="utf-8")
    panel.set_live_limits(70.0, 30_000, (("compaction", 75.0),))
    panel.follow_log(log)
    panel.show()
    qtbot.waitExposed(panel)
    qtbot.waitUntil(lambda: panel.gauge.displayed == pytest.approx(97.0), timeout=2000)
    assert "w.jsonl: 9 events, 1 problem\n1 problem; last: line 10: not JSON" in panel.live_status.text()
    image = panel.grab().toImage()
    assert painted_pixels(image) > 1000
    assert image.save("/tmp/session_live_dark.png")
    assert panel.plot.palette().color(QPalette.ColorRole.Window).lightness() < 60


def test_thin_history_keeps_the_shape_and_the_first_checkpoint() -> None:
    from ctxviewer.gui.views.session import thin_history

    history = [(i / 10, 100 * i) for i in range(10_000)]
    points, first = thin_history(history, 4321, limit=1000)
    assert len(points) <= 1002 and points[0] == history[0] and points[-1] == history[-1]
    assert first is not None and points[first] == history[4321]
    # Every 10th point (the highest of its run of 10) is kept, so no rise is lost by more than a run.
    assert all(b[1] - a[1] <= 1000 for a, b in itertools.pairwise(points))
    short = [(0.0, 1), (1.0, 2)]
    assert thin_history(short, None) == (tuple(short), None)


def test_point_at_finds_the_nearest_point(qtbot) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtCore import QPointF

    from ctxviewer.gui.views.session import PlotValue, UsagePlot

    plot = UsagePlot()
    qtbot.addWidget(plot)
    plot.resize(400, 300)
    points = tuple((float(i), 1000 * i) for i in range(1, 9))
    plot.setValue(PlotValue(points=points, max_tokens=20_000, threshold_percent=70.0))
    for i in range(len(points)):
        pos = plot.point_pos(i)
        assert plot.point_at(QPointF(pos.x() + 3, pos.y())) == i
    far_left = plot.plot_rect().left() - 30
    assert plot.point_at(QPointF(far_left, plot.plot_rect().center().y())) is None
