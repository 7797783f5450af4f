"""The fleet view: every worker's recorded gauge, painted, and live as a run's files change.

The live tests attach the panel to a run written by ``tests/runfactory.py`` and wait for the
file watcher (the fallback timer is stopped, so only a notification can bring a poll).
"""

from __future__ import annotations

import json
import os
import threading
from datetime import UTC, datetime
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QRectF, Qt
from PySide6.QtGui import QColor, QImage

from ctxviewer.gui.views.session import FleetChart, FleetValue, SessionPanel, WorkerGauge
from ctxviewer.gui.views.session.fleet import BAND_COLORS
from ctxviewer.gui.views.session.runwatch import RunReader
from ctxviewer.gui.widgets.charts import AMBER, GREEN, OVER_COLOR
from tests.gui.widgets.test_charts import painted_pixels
from tests.runfactory import GeneratedRun, write_run


def gauge(worker: str, usage: float | None, band: str | None, **kw: object) -> WorkerGauge:
    values: dict[str, object] = {
        "worker_id": worker,
        "status": "running",
        "status_kind": "live",
        "usage_percent": usage,
        "threshold_percent": 70.0,
        "zones": (),
        "band": band,
        "zone": None,
        "current_task": "TASK-0001",
        "tasks_done": 3,
        "checkpoints": 0,
        "heartbeat_ago": "5s ago",
        "log_ago": "5s ago",
        "estimate_percent": None,
    }
    values.update(kw)
    return WorkerGauge(**values)  # type: ignore[arg-type]


def red_pixels(image: QImage, rect: QRectF) -> int:
    """Pixels in *rect* close to the over-threshold red (text is antialiased: a tolerance)."""
    count = 0
    want = OVER_COLOR
    for x in range(int(rect.left()), int(rect.right())):
        for y in range(int(rect.top()), int(rect.bottom())):
            c = image.pixelColor(x, y)
            if (
                abs(c.red() - want.red()) < 40
                and abs(c.green() - want.green()) < 40
                and abs(c.blue() - want.blue()) < 40
            ):
                count += 1
    return count


def render(widget: FleetChart, width: int, height: int) -> QImage:
    widget.resize(width, height)
    image = QImage(width, height, QImage.Format.Format_ARGB32)
    image.fill(QColor("white"))
    widget.render(image)
    return image


def test_worker_gauge_figures_worked_by_hand() -> None:
    over = gauge("4", 72.0, "yellow", tasks_done=12, checkpoints=2, estimate_percent=4.25)
    assert over.over_threshold and over.figure == "72.0% / 70%"
    assert over.facts == "12 done \u00b7 2 checkpoints \u00b7 heartbeat 5s ago \u00b7 log 5s ago \u00b7 est 4.2%"
    exactly = gauge("1", 70.0, "green")  # the threshold reached is over it (>=), as the tracker's check
    assert exactly.over_threshold
    assert not gauge("2", 69.9, "green").over_threshold
    none = gauge("3", None, None, checkpoints=1)
    assert not none.over_threshold and none.figure == "none / 70%" and "1 checkpoint \u00b7" in none.facts


def test_fleet_chart_paints_bands_the_threshold_and_the_over_threshold_figure(qtbot) -> None:  # type: ignore[no-untyped-def]
    chart = FleetChart()
    qtbot.addWidget(chart)
    value = FleetValue((gauge("4", 72.0, "yellow"), gauge("5", 40.0, "green")), 70.0, "default", "2 workers")
    chart.setValue(value)
    image = render(chart, 420, 160)
    # Inside each bar (left of its usage): upstream's band colour, filled without antialiasing.
    for row, colour in ((0, AMBER), (1, GREEN)):
        bar = chart.bar_rect(row)
        x, y = int(chart.x_of(row, 35.0)), int(bar.center().y())
        assert image.pixelColor(x, y) == colour
    assert BAND_COLORS["yellow"] == AMBER
    # Past the usage and the threshold: the track tinted red (more red than green or blue).
    bar = chart.bar_rect(1)
    tinted = image.pixelColor(int(chart.x_of(1, 90.0)), int(bar.center().y()))
    assert tinted.red() > tinted.green() and tinted.red() > tinted.blue()
    # Below the threshold (at 50 %, past row 1's 40 % usage): the plain track, not tinted.
    plain = image.pixelColor(int(chart.x_of(1, 55.0)), int(bar.center().y()))
    assert plain.red() == plain.green() == plain.blue()
    # The figure: in the over-threshold red for 72 % of 70 %, not for 40 %.
    assert red_pixels(image, chart.figure_rect(0)) > 10
    assert red_pixels(image, chart.figure_rect(1)) == 0


def test_fleet_chart_empty_and_clicks(qtbot) -> None:  # type: ignore[no-untyped-def]
    chart = FleetChart()
    qtbot.addWidget(chart)
    assert painted_pixels(render(chart, 300, 80)) > 0  # "No run attached", in words
    chart.setValue(FleetValue((gauge("7", 10.0, "green"),), 70.0, "default"))
    chart.resize(300, 120)
    with qtbot.waitSignal(chart.workerActivated) as blocker:
        qtbot.mouseClick(chart, Qt.MouseButton.LeftButton, pos=chart.bar_rect(0).center().toPoint())
    assert blocker.args == ["7"] and chart.selected() == "7"
    with qtbot.assertNotEmitted(chart.workerActivated):  # below the last row: nobody
        qtbot.mouseClick(chart, Qt.MouseButton.LeftButton, pos=QPoint(150, 115))


# -- a generated run, followed live ---------------------------------------------------------


@pytest.fixture
def generated(tmp_path: Path) -> GeneratedRun:
    """A run of 4 workers (about 1,600 log lines), worker 4's recorded usage set to 0.72."""
    made = write_run(tmp_path / "proj", workers=4, lines=1_600)
    state = tmp_path / "proj" / ".mahabharatha" / "state" / "checkout-flow.json"
    doc = json.loads(state.read_text())
    doc["workers"]["4"]["context_usage"] = 0.72
    state.write_text(json.dumps(doc))
    return made


def utc(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).isoformat().replace("+00:00", "Z")


def log_line(worker: int, ts: float, message: str, **extra: object) -> str:
    entry = {"ts": utc(ts), "level": "info", "worker_id": worker, "feature": "checkout-flow", "message": message}
    entry.update(extra)
    return json.dumps(entry) + "\n"


def row(panel: SessionPanel, worker: str) -> WorkerGauge | None:
    value = panel.fleet.chart.value()
    return None if value is None else next((r for r in value.rows if r.worker_id == worker), None)


@pytest.fixture
def attached(qtbot, generated: GeneratedRun) -> SessionPanel:  # type: ignore[no-untyped-def]
    panel = SessionPanel()
    qtbot.addWidget(panel)
    panel.resize(420, 700)
    with qtbot.waitSignal(panel.runUpdated, timeout=20_000):
        panel.follow_run(generated.root)
    panel.run.fallback.stop()  # from here on only the file watcher brings a poll
    yield panel
    panel.stop_following()


def test_attaching_shows_the_fleet_tab_and_every_worker(attached: SessionPanel, generated: GeneratedRun) -> None:
    panel = attached
    assert panel.pages.currentWidget() is panel.fleet and not panel.pages.isHidden()
    assert [panel.pages.tabText(i) for i in range(panel.pages.count())] == [
        "Fleet",
        "Timeline",
        "Recorded",
        "What-if replay",
    ]
    assert panel.following_run is not None and panel.following_run.root == generated.root
    value = panel.fleet.chart.value()
    assert value is not None and [r.worker_id for r in value.rows] == ["1", "2", "3", "4"]
    # The statuses the generator gave (worker 4 "running", silent since February: stale).
    assert [r.status for r in value.rows] == ["stopped", "checkpointing", "crashed", "running?"]
    four = row(panel, "4")
    assert four is not None
    # Recorded 0.72 against the config's 70: over the threshold; upstream's band above 70 % is yellow.
    assert four.usage_percent == pytest.approx(72.0) and four.threshold_percent == 70.0
    assert four.over_threshold and four.band == "yellow" and four.zone == "checkpoint"
    for wid, truth in generated.workers.items():
        shown = row(panel, wid)
        assert shown is not None and shown.tasks_done == truth.task_completed
        assert shown.checkpoints == truth.checkpoints
    assert "checkpoint at 70% (.mahabharatha/config.yaml)" in value.summary
    assert "no worker has recorded" not in value.summary  # some have: the run's line says nothing of it
    three = row(panel, "3")
    assert three is not None and (three.usage_percent is not None or "No context_usage recorded" in three.detail)
    # The painted figure of worker 4 is in the over-threshold red.
    chart = panel.fleet.chart
    image = chart.grab().toImage()
    assert red_pixels(image, chart.figure_rect(3)) > 10
    assert red_pixels(image, chart.figure_rect(0)) == 0  # worker 1: about 30 %


def test_a_task_completed_line_updates_tasks_done_when_the_watcher_fires(
    qtbot, attached: SessionPanel, generated: GeneratedRun
) -> None:  # type: ignore[no-untyped-def]
    panel = attached
    before = generated.workers["2"].task_completed
    timeline = panel.timeline
    timeline.show_worker("2")
    shown = timeline.current()
    assert shown is not None and sum(m.kind == "completed" for m in shown.marks) == before
    last = generated.workers["2"].last_time
    log = generated.root / ".mahabharatha" / "logs" / "workers" / "worker-2.jsonl"
    with log.open("a", encoding="utf-8") as handle:
        handle.write(log_line(2, last + 60, "Task TASK-9999 completed", task_id="TASK-9999", event="task_completed"))
    qtbot.waitUntil(lambda: (r := row(panel, "2")) is not None and r.tasks_done == before + 1, timeout=4_000)
    events = panel.last_run_update.snapshot.events  # type: ignore[union-attr]
    assert any(e.task_id == "TASK-9999" and e.event == "task_completed" for e in events)
    # The worker's timeline was rebuilt too: one more completed task, the curve's last point after it.
    shown = timeline.current()
    assert shown is not None and shown.worker_id == "2"
    assert sum(m.kind == "completed" for m in shown.marks) == before + 1
    assert "after TASK-9999" in shown.labels[-1]


def test_a_worker_started_mid_run_appears(qtbot, attached: SessionPanel, generated: GeneratedRun) -> None:  # type: ignore[no-untyped-def]
    panel = attached
    log = generated.root / ".mahabharatha" / "logs" / "workers" / "worker-9.jsonl"
    t = generated.workers["1"].last_time
    log.write_text(
        log_line(9, t, "Worker 9 starting for feature checkout-flow")
        + log_line(9, t + 30, "Task TASK-7000 completed", task_id="TASK-7000", event="task_completed")
    )
    qtbot.waitUntil(lambda: row(panel, "9") is not None, timeout=4_000)
    nine = row(panel, "9")
    assert nine is not None and nine.status == "(log only)" and nine.tasks_done == 1 and nine.usage_percent is None


def test_polls_run_off_the_gui_thread(qtbot, generated: GeneratedRun, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    threads: list[threading.Thread] = []
    original = RunReader.poll

    def spy(self: RunReader, now: float | None = None):  # type: ignore[no-untyped-def]
        threads.append(threading.current_thread())
        return original(self, now)

    monkeypatch.setattr(RunReader, "poll", spy)
    panel = SessionPanel()
    qtbot.addWidget(panel)
    with qtbot.waitSignal(panel.runUpdated, timeout=20_000):
        panel.follow_run(generated.root)
    panel.stop_following()
    assert threads and all(t is not threading.main_thread() for t in threads)
    assert panel.following_run is None and panel.pages.isHidden()
    # Back to the replay alone, out of the tabs.
    assert panel.pages.indexOf(panel.whatif_page) < 0 and not panel.whatif_page.isHidden()
    with qtbot.waitSignal(panel.runUpdated, timeout=20_000):  # and attached again: the four tabs back
        panel.follow_run(generated.root)
    assert panel.pages.count() == 4 and panel.pages.widget(3) is panel.whatif_page
    panel.stop_following()


def test_detaching_and_following_a_log_instead(qtbot, attached: SessionPanel, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    panel = attached
    panel.follow_log(tmp_path / "events.jsonl")  # ctxviewer's own format: the run is let go
    assert panel.following_run is None and panel.following == tmp_path / "events.jsonl"
    assert panel.pages.isHidden() and panel.whatif_note.isHidden() and not panel.whatif_page.isHidden()
    panel.stop_following()


def test_reader_poll_is_plain_python(generated: GeneratedRun) -> None:
    from ctxviewer.engine.runfiles.rundir import discover_run

    reader = RunReader(discover_run(generated.root))
    update = reader.poll(now=generated.workers["4"].last_time + 120)
    assert [t.worker_id for t in update.timelines] == ["1", "2", "3", "4"]
    four = next(r for r in update.snapshot.workers if r.worker_id == "4")
    # Live ("running") and heard from 2 minutes ago: not stale, the clock is now.
    assert not four.stale and update.fleet.rows[3].status == "running"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_a_named_pipe_in_the_run_is_in_the_problem_list(qtbot, generated: GeneratedRun) -> None:  # type: ignore[no-untyped-def]
    """A pipe under a state file's name is never opened: it is named with what it is, and counted."""
    pipe = next(generated.root.glob("*/state")) / "other.json"
    os.mkfifo(pipe)
    shown = pipe.relative_to(generated.root).as_posix()
    panel = SessionPanel()
    qtbot.addWidget(panel)
    with qtbot.waitSignal(panel.runUpdated, timeout=20_000) as blocker:
        panel.follow_run(generated.root)
    snapshot = blocker.args[0].snapshot
    status, tip = panel.fleet.status.text(), panel.fleet.status.toolTip()
    panel.stop_following()
    assert [p.describe() for p in snapshot.new_problems] == [f"{shown}: not read: a named pipe, not a file"]
    assert status.endswith("; 1 problem") and f"{shown}: not read: a named pipe, not a file" in tip
