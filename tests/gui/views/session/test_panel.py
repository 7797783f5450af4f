"""The session panel replaying a feature: playback, the gauge, plot and table following
it, the parameters, and the panel drawn mid-replay.

Playback is driven by hand (``player.step()`` or the injected timer's ``timeout``);
only the test that exercises the real timer waits, through ``qtbot.waitSignal``.
The live mode's tests are in ``test_live``.
"""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QImage, QPalette

from ctxviewer.engine.runs.session import SessionReplay
from ctxviewer.gui.views.session import PlotValue, SessionPanel
from ctxviewer.gui.widgets.charts import RED, zone_color
from tests.gui.views.session.conftest import ManualTimer
from tests.gui.widgets.test_charts import close, painted_pixels


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
