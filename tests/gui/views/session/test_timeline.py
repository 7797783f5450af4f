"""A worker's timeline: its events and the real tracker recomputed from them, worked out by hand.

The run, written here line by line (``.zerg`` layout, threshold 80): worker 1's first process
starts at T0, completes T1 at T0+10 min and logs its checkpoint at T0+15 min (the state
file's ``worker_checkpoint``); its second process starts at T0+2 h, fails T2 and completes T3
at T0+2.5 h.  The state records ``context_usage`` 0.0175 (3,500 of 200,000) for it, stopped.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from PySide6.QtGui import QColor, QImage

from ctxviewer.engine.runfiles.rundir import discover_run
from ctxviewer.gui.views.session import TimelinePage, TimelinePlot, TimelineValue
from ctxviewer.gui.views.session.plot import LINE_COLORS
from ctxviewer.gui.views.session.runwatch import RunReader
from ctxviewer.gui.views.session.timeline import MARK_COLORS

T0 = 1_771_056_000.0  # 2026-02-14 08:00 UTC


def line(ts: float, message: str, **extra: object) -> str:
    stamp = datetime.fromtimestamp(ts, UTC).isoformat().replace("+00:00", "Z")
    entry = {"ts": stamp, "level": "info", "worker_id": 1, "feature": "shop", "message": message}
    entry.update(extra)
    return json.dumps(entry) + "\n"


def local(ts: float) -> str:
    return datetime.fromtimestamp(ts).isoformat()


@pytest.fixture
def timeline(tmp_path: Path) -> TimelineValue:
    zerg = tmp_path / ".zerg"
    (zerg / "logs" / "workers").mkdir(parents=True)
    (zerg / "state").mkdir()
    (zerg / "config.yaml").write_text("workers:\n  context_threshold_percent: 80\n")
    (zerg / "logs" / "workers" / "worker-1.jsonl").write_text(
        line(T0, "Worker 1 starting for feature shop")
        + line(T0 + 60, "Task T1 started", task_id="T1", event="task_started")
        + line(T0 + 600, "Task T1 completed", task_id="T1", event="task_completed")
        + line(T0 + 900, "Worker 1 checkpointing")
        + line(T0 + 7200, "Worker 1 starting for feature shop")
        + line(T0 + 7260, "Task T2 started", task_id="T2", event="task_started")
        + line(T0 + 7500, "Task T2 failed", task_id="T2", event="task_failed")
        + line(T0 + 9000, "Task T3 completed", task_id="T3", event="task_completed")
    )
    state = {
        "feature": "shop",
        "workers": {
            "1": {
                "worker_id": 1,
                "status": "stopped",
                "context_usage": 0.0175,
                "tasks_completed": 1,
                "started_at": local(T0 + 7200),
                "health_check_at": local(T0 + 9000),
            }
        },
        "tasks": {},
        "execution_log": [
            {
                "timestamp": local(T0 + 900),
                "event": "worker_checkpoint",
                "data": {"worker_id": 1, "tasks_completed": 1, "current_task": None},
            }
        ],
    }
    (zerg / "state" / "shop.json").write_text(json.dumps(state))
    update = RunReader(discover_run(tmp_path)).poll(now=T0 + 86_400)
    (value,) = update.timelines
    return value


def test_the_tracker_is_recomputed_process_by_process(timeline: TimelineValue) -> None:
    assert timeline.worker_id == "1" and timeline.origin == T0
    # Process 1: 0 at its start; after T1 (10 min) 500 + 100 x 10 = 1,500; its last line
    # (15 min) 500 + 1,500 = 2,000.  Process 2, the clock at 0 again: after T3 (30 min)
    # 500 + 3,000 = 3,500 (T2 failed: not counted); its last line is T3's, no extra point.
    # The worker is stopped: its estimate is at its last line, nothing is carried on.
    assert timeline.points == ((0.0, 0), (1 / 6, 1_500), (0.25, 2_000), (2.0, 0), (2.5, 3_500))
    assert timeline.processes == (1, 1, 1, 2, 2)
    assert (timeline.threshold_percent, timeline.max_tokens, timeline.zones) == (80.0, 200_000, ())
    # The recorded usage sits at the curve's last point: 0.0175 is 1.75 %, what the arithmetic gives.
    assert timeline.recorded == (2.5, pytest.approx(1.75))
    assert timeline.span == 2.5 and timeline.restarts == 1


def test_the_marks_come_from_the_log_and_the_state_file(timeline: TimelineValue) -> None:
    marks = [(round(m.hours, 4), m.kind, m.task_id) for m in timeline.marks]
    assert marks == [
        (0.0, "start", None),
        (round(1 / 60, 4), "started", "T1"),
        (round(1 / 6, 4), "completed", "T1"),
        (0.25, "checkpoint", None),  # only in the state file's execution log
        (2.0, "restart", None),
        (round(2 + 1 / 60, 4), "started", "T2"),
        (round(2 + 300 / 3600, 4), "failed", "T2"),
        (2.5, "completed", "T3"),
    ]
    checkpoint = next(m for m in timeline.marks if m.kind == "checkpoint")
    assert checkpoint.label == "worker_checkpoint (state)"
    # Every event of the worker, for the table: five log task events and the checkpoint.
    assert [(e.event, e.source) for e in timeline.events] == [
        ("task_started", "log"),
        ("task_completed", "log"),
        ("worker_checkpoint", "state"),
        ("task_started", "log"),
        ("task_failed", "log"),
        ("task_completed", "log"),
    ]


def test_the_plot_draws_each_process_apart_and_the_marks(qtbot, timeline: TimelineValue) -> None:  # type: ignore[no-untyped-def]
    plot = TimelinePlot()
    qtbot.addWidget(plot)
    plot.setValue(timeline)
    plot.resize(480, 300)
    image = QImage(480, 300, QImage.Format.Format_ARGB32)
    image.fill(QColor("white"))
    plot.render(image)
    rect = plot.plot_rect()
    base = int(rect.bottom()) - 2
    # Under process 2's curve (2.25 h) the area is filled; between the processes (1 h) it is not:
    # no line joins the end of process 1 to the restart.
    inside = image.pixelColor(int(plot.map_point(2.25, 0).x()), base)
    gap = image.pixelColor(int(plot.map_point(1.0, 0).x()), base)
    line_colour = QColor(LINE_COLORS[0])
    assert inside != gap and inside.blue() > inside.red()
    assert abs(gap.blue() - gap.red()) < 20 and line_colour.blue() > line_colour.red()
    # The checkpoint's diamond in the worker lane, at 0.25 h, in its colour.
    checkpoint = next(m for m in timeline.marks if m.kind == "checkpoint")
    pos = plot.mark_pos(checkpoint)
    assert image.pixelColor(int(pos.x()), int(pos.y())) == QColor(MARK_COLORS["checkpoint"][0])
    # Hovering it says what it is.
    assert plot.tooltip_at(pos).startswith("worker_checkpoint (state)")


def test_the_page_chooses_a_worker_and_lists_its_events(qtbot, timeline: TimelineValue) -> None:  # type: ignore[no-untyped-def]
    page = TimelinePage()
    qtbot.addWidget(page)
    page.set_timelines((timeline,))
    assert page.worker.count() == 1 and page.current() is timeline and page.plot.value() is timeline
    assert page.model.rowCount() == 6
    assert page.summary.text() == (
        "2 processes in the log (1 restart) \u00b7 2 tasks completed \u00b7 1 failed \u00b7 "
        "1 checkpoint \u00b7 6 events"
    )
    page.set_timelines(())
    assert page.current() is None and page.model.rowCount() == 0 and page.plot.value() is None
