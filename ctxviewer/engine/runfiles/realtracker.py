"""The real tracker as production calls it, recomputed from a worker's log (an estimate).

:func:`tracker_estimate` is that arithmetic at one moment, :func:`tracker_timeline` the curve
over a worker's log, process by process (the clock restarts at each worker process).  Both
are ctxviewer's recomputation, named apart from the recorded ``context_usage``:
``docs/run-files.md#the-fleet``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ctxviewer.engine.runfiles.workerlog import PROCESS_START, TASK_COMPLETED, LogRecord
from ctxviewer.engine.runtime.tracker import MAX_CONTEXT_TOKENS, TOKENS_PER_MINUTE, TOKENS_PER_TASK

#: The message ``WorkerProtocol.start`` logs first in every worker process.


@dataclass(frozen=True, slots=True)
class TrackerEstimate:
    """ctxviewer's recomputation of the real tracker for a worker's current process (not recorded).

    ``tokens = 500 x tasks + int(minutes x 100)``, the formula of upstream's
    ``ContextTracker.estimate_tokens`` with the only calls production makes.
    """

    tokens: int
    percent: float
    tasks: int
    """Tasks completed in the current process."""
    minutes: float
    """Minutes from the process's start to :attr:`at`."""
    process_started: float
    at: float
    """The clock: now for a live worker, its last log record for one whose process ended."""


def tracker_estimate(
    tasks: int, process_started: float, at: float, max_tokens: int = MAX_CONTEXT_TOKENS
) -> TrackerEstimate:
    """The real tracker's estimate after *tasks* tasks, *at* (epoch seconds) a process started then."""
    minutes = max(0.0, (at - process_started) / 60)
    tokens = tasks * TOKENS_PER_TASK + int(minutes * TOKENS_PER_MINUTE)
    return TrackerEstimate(tokens, tokens / max_tokens * 100, tasks, minutes, process_started, at)


@dataclass(frozen=True, slots=True)
class TrackerPoint:
    """The recomputed tracker at one line of a worker's log."""

    time: float
    process: int
    """1 for the first process the log shows, 2 after the next start line, ..."""
    kind: str
    """``start`` (a process started: 0 tokens), ``task`` (a task completed) or ``end`` (the
    process's last line: its clock's last reading)."""
    task_id: str | None
    tokens: int
    percent: float


def tracker_timeline(
    records: Iterable[LogRecord], worker: str, max_tokens: int = MAX_CONTEXT_TOKENS
) -> tuple[TrackerPoint, ...]:
    """The recomputed tracker of *worker* over its log records, the clock restarting per process.

    Records of other workers and without a time are skipped.  Lines before the first start
    line belong to a process whose start the log does not show (rotated away): they are
    left out, as their clock cannot be known.
    """
    points: list[TrackerPoint] = []
    process = 0
    started = last = 0.0
    tasks = 0

    def point(moment: float, kind: str, task_id: str | None) -> TrackerPoint:
        estimate = tracker_estimate(tasks, started, moment, max_tokens)
        return TrackerPoint(moment, process, kind, task_id, estimate.tokens, estimate.percent)

    def close() -> None:
        """The ending process's last reading, unless a point already stands there."""
        if process and last > started and points[-1].time != last:
            points.append(point(last, "end", None))

    for record in records:
        if record.worker != worker or record.time is None:
            continue
        if record.message is not None and PROCESS_START.match(record.message):
            close()
            process, started, last, tasks = process + 1, record.time, record.time, 0
            points.append(point(record.time, "start", None))
            continue
        if not process:
            continue
        last = max(last, record.time)
        if record.event == TASK_COMPLETED:
            tasks += 1
            points.append(point(record.time, "task", record.task_id))
    close()
    return tuple(points)
