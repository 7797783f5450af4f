"""The panel in live mode: a worker's event log followed as it is written.

The tests poll by hand; only the watcher and poll-timer test waits, through
``qtbot.waitSignal``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QApplication

from ctxviewer.engine.runs.session import SessionReplay
from ctxviewer.engine.runtime.eventlog import LiveUsage
from ctxviewer.gui.views.session import PlotValue, SessionPanel
from ctxviewer.gui.views.session.live import LiveLog
from tests.gui.widgets.test_charts import painted_pixels


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


def test_catching_up_a_long_log_redraws_now_and_then_and_always_shows_the_end(
    qtbot, panel: SessionPanel, tmp_path: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr("ctxviewer.gui.views.session.live.LIVE_READ_LIMIT", 64)  # about a line a poll
    monkeypatch.setattr("ctxviewer.gui.views.session.panel.CATCH_UP_SHOW_MS", 60_000)  # no redraw by time
    log = tmp_path / "big.jsonl"
    log.write_text("".join(event("tool_call", T0 + i) for i in range(20)), encoding="utf-8")
    shown: list[LiveUsage] = []
    panel.liveUpdated.connect(shown.append)
    panel.follow_log(log)
    assert panel.last_poll is not None and panel.last_poll.more and len(shown) == 1  # the first poll at once
    qtbot.waitUntil(lambda: not panel.last_poll.more, timeout=5000)  # type: ignore[union-attr]
    # Twenty polls: the first shown, the ones catching up not, the last one (and all it read) shown.
    assert len(shown) == 2 and shown[0].events < 20 and shown[1].events == 20
    assert panel.gauge.value().used == shown[1].estimated_tokens  # type: ignore[union-attr]
    assert "20 events" in panel.live_status.text()


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


# -- the log follower on its own --------------------------------------------------------------


def test_live_log_polls_re_reads_on_new_limits_and_stops(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    log = tmp_path / "w.jsonl"
    log.write_text(event("task_executed", T0, id="A"), encoding="utf-8")
    live = LiveLog()
    # Not following: limits are kept (zones without the checkpoint, lowest first), nothing to re-read.
    assert live.set_limits(70.0, 10_000, (("late", 90.0), ("checkpoint", 70.0), ("early", 60.0))) is False
    assert live.zones == (("early", 60.0), ("late", 90.0))
    assert live.following is None and live.usage is None and live.poll() is None
    live.start(log)
    assert live.following == log and live.timer.isActive()
    polled = live.poll()
    assert polled is not None
    result, usage, changed = polled
    # One task: 500 tokens of 10,000.
    assert changed and len(result.events) == 1 and usage.estimated_tokens == 500 and usage.max_tokens == 10_000
    assert live.last_poll is result
    polled = live.poll()
    assert polled is not None and polled[2] is False  # nothing new
    assert live.set_limits(70.0, 10_000, ()) is False and live.zones == ()  # only the zones
    assert live.set_limits(50.0, 4_000, ()) is True  # the maximum changed: read again from the start
    polled = live.poll()
    assert polled is not None and polled[2] is True
    assert (polled[1].events, polled[1].max_tokens) == (1, 4_000)
    assert live.stop() is True and live.following is None and live.last_poll is None
    assert not live.timer.isActive() and live.stop() is False and live.poll() is None


def test_live_log_schedules_one_poll_for_several_notifications(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    live = LiveLog()
    due: list[bool] = []
    live.pollDue.connect(lambda: due.append(True))
    live.schedule_poll()  # not following: nothing
    live.start(tmp_path / "none-yet.jsonl")
    live.timer.stop()  # only the scheduled poll below
    with qtbot.waitSignal(live.pollDue, timeout=1000):
        live.schedule_poll()
        live.schedule_poll()
    QApplication.processEvents()  # a second zero-time poll, were one scheduled, arrives here
    assert due == [True]
    live.stop()
