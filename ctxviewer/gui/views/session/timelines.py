"""What happened to one worker, as the timeline plot draws it: :class:`TimelineValue`.  No Qt.

Built from the run's files, not simulated: the worker's task events, the state file's
execution log, its process starts, and the real tracker's arithmetic recomputed over them
(:func:`~ctxviewer.engine.runfiles.realtracker.tracker_timeline`), its clock restarting at each
process.  Times are hours since :attr:`TimelineValue.origin`.  See docs/run-files.md#in-the-window.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ctxviewer.engine.runfiles.fleet import RunEvent, WorkerRow
from ctxviewer.engine.runfiles.fleetconfig import FleetConfig
from ctxviewer.engine.runfiles.realtracker import TrackerPoint
from ctxviewer.engine.runfiles.statefile import CHECKPOINT_EVENT

#: The marks drawn under the curve, by the event that makes them; other events are listed only.
MARK_KINDS = {
    "task_started": "started",
    "task_completed": "completed",
    "task_failed": "failed",
    CHECKPOINT_EVENT: "checkpoint",
}
#: The lane each mark kind is drawn in (0: tasks, 1: the worker's processes).
LANES = {"started": 0, "completed": 0, "failed": 0, "checkpoint": 1, "start": 1, "restart": 1}


@dataclass(frozen=True)
class TimelineMark:
    """One event on the timeline, at *hours* since the value's origin."""

    hours: float
    kind: str
    """``started``, ``completed``, ``failed``, ``checkpoint``, ``start`` or ``restart``."""
    task_id: str | None
    label: str


@dataclass(frozen=True)
class TimelineValue:
    """One worker's recomputed tracker over time, its events, and its recorded usage."""

    worker_id: str
    origin: float
    """Epoch seconds of hour 0: the worker's first process start (or first event)."""
    points: tuple[tuple[float, int], ...]
    """``(hours, tokens)`` of the recomputed tracker."""
    processes: tuple[int, ...]
    """The process number of each point (a new number: the curve restarts at 0)."""
    labels: tuple[str, ...]
    marks: tuple[TimelineMark, ...]
    max_tokens: int
    threshold_percent: float
    zones: tuple[tuple[str, float], ...] = ()
    recorded: tuple[float, float] | None = None
    """``(hours, percent)``: the state file's ``context_usage``, at the log's last line (a live
    worker's curve goes on to now after it)."""
    events: tuple[RunEvent, ...] = ()
    """Every event of this worker (the table under the plot)."""

    @property
    def span(self) -> float:
        """Hours from the origin to the last point or mark (at least a minute)."""
        last = max([h for h, _ in self.points] + [m.hours for m in self.marks], default=0.0)
        return max(last, 1 / 60)

    @property
    def restarts(self) -> int:
        return sum(1 for m in self.marks if m.kind == "restart")


def _hours(moment: float, origin: float) -> float:
    return (moment - origin) / 3600


def worker_timeline(
    worker_id: str,
    points: Sequence[TrackerPoint],
    events: Iterable[RunEvent],
    config: FleetConfig,
    row: WorkerRow | None = None,
) -> TimelineValue:
    """The timeline of *worker_id* from its tracker *points*, the run's *events* and its fleet *row*.

    A live worker's curve is carried on to its row's estimate (the clock now), when that
    estimate is of the process the curve ends in.
    """
    mine = tuple(e for e in events if e.worker_id == worker_id)
    times = [p.time for p in points] + [e.time for e in mine if e.time is not None]
    origin = min(times) if times else 0.0
    out_points: list[tuple[float, int]] = []
    processes: list[int] = []
    labels: list[str] = []
    marks: list[TimelineMark] = []
    for point in points:
        hours = _hours(point.time, origin)
        out_points.append((hours, point.tokens))
        processes.append(point.process)
        what = {"start": "process start", "task": f"after {point.task_id}", "end": "the process's last line"}
        labels.append(
            f"process {point.process}, {what.get(point.kind, point.kind)}: {point.tokens:,} tokens "
            f"({point.percent:.1f}%)"
        )
        if point.kind == "start":
            kind = "start" if point.process == 1 else "restart"
            marks.append(TimelineMark(hours, kind, None, f"process {point.process} starts: the tracker's clock at 0"))
    recorded = None
    if row is not None and row.usage_percent is not None and out_points:
        # At the log's last line: the state file's value is what the tracker said at its last update.
        recorded = (out_points[-1][0], row.usage_percent)
    estimate = None if row is None else row.estimate
    if (
        estimate is not None
        and points
        and estimate.process_started == max(p.time for p in points if p.kind == "start")
        and estimate.at > points[-1].time
    ):
        hours = _hours(estimate.at, origin)
        out_points.append((hours, estimate.tokens))
        processes.append(points[-1].process)
        labels.append(
            f"process {points[-1].process}, now: {estimate.tokens:,} tokens ({estimate.percent:.1f}%), "
            f"{estimate.tasks} tasks + {estimate.minutes:,.1f} min"
        )
    for event in mine:
        mark_kind = MARK_KINDS.get(event.event)
        if mark_kind is None or event.time is None:
            continue
        task = f" {event.task_id}" if event.task_id else ""
        marks.append(
            TimelineMark(_hours(event.time, origin), mark_kind, event.task_id, f"{event.event}{task} ({event.source})")
        )
    marks.sort(key=lambda m: m.hours)
    return TimelineValue(
        worker_id=worker_id,
        origin=origin,
        points=tuple(out_points),
        processes=tuple(processes),
        labels=tuple(labels),
        marks=tuple(marks),
        max_tokens=config.max_tokens,
        threshold_percent=config.threshold_percent,
        zones=config.zones,
        recorded=recorded,
        events=mine,
    )
