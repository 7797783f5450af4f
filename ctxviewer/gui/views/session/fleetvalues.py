"""What the fleet view shows: :class:`FleetValue`, one :class:`WorkerGauge` per worker, built
from a :class:`~ctxviewer.engine.runfiles.fleet.FleetSnapshot`.  No Qt:
:class:`~ctxviewer.gui.views.session.fleet.FleetChart` paints it.

A gauge is the worker's **recorded** ``context_usage`` against the project's checkpoint
threshold, coloured in upstream's own dashboard band; the estimate beside it is ctxviewer's
recomputation, named as one.
"""

from __future__ import annotations

from dataclasses import dataclass

from ctxviewer.engine.exports.fleet_text import ago
from ctxviewer.engine.runfiles.fleet import FleetSnapshot, WorkerRow

#: How a recorded status is coloured: a kind per status (the word itself is always shown).
STATUS_KINDS = {
    "running": "live",
    "ready": "live",
    "idle": "live",
    "initializing": "live",
    "blocked": "warn",
    "stalled": "warn",
    "checkpointing": "checkpoint",
    "stopping": "stopped",
    "stopped": "stopped",
    "crashed": "crashed",
}


@dataclass(frozen=True)
class WorkerGauge:
    """One worker's row: its recorded usage against the threshold, and what it is doing."""

    worker_id: str
    status: str
    """As recorded, ``?`` added for a stale worker; ``(log only)`` when no state file names it."""
    status_kind: str
    """``live``, ``warn``, ``checkpoint``, ``stopped``, ``crashed``, ``stale`` or ``unknown``."""
    usage_percent: float | None
    """The recorded ``context_usage`` in percent (None when none is recorded)."""
    threshold_percent: float
    zones: tuple[tuple[str, float], ...]
    """The further zone lines (the checkpoint is :attr:`threshold_percent`)."""
    band: str | None
    zone: str | None
    current_task: str | None
    tasks_done: int
    checkpoints: int
    heartbeat_ago: str
    log_ago: str
    estimate_percent: float | None
    """ctxviewer's recomputation of the real tracker for the current process (not recorded)."""
    detail: str = ""
    """Every figure in words: the row's tooltip."""

    @property
    def over_threshold(self) -> bool:
        """The recorded usage reached the checkpoint threshold."""
        return self.usage_percent is not None and self.usage_percent >= self.threshold_percent

    @property
    def figure(self) -> str:
        """``72.0% / 70%``: the recorded usage over the threshold (``none / 70%`` when the
        worker recorded none: the tooltip and the run's line say why)."""
        used = "none" if self.usage_percent is None else f"{self.usage_percent:.1f}%"
        return f"{used} / {self.threshold_percent:g}%"

    @property
    def facts(self) -> str:
        """The row's small line: tasks done, checkpoints, heartbeat, last log line, the estimate."""
        parts = [f"{self.tasks_done:,} done"]
        if self.checkpoints:
            parts.append(f"{self.checkpoints:,} checkpoint{'s' if self.checkpoints != 1 else ''}")
        parts.append("no heartbeat" if self.heartbeat_ago == "-" else f"heartbeat {self.heartbeat_ago}")
        parts.append("no log line" if self.log_ago == "-" else f"log {self.log_ago}")
        if self.estimate_percent is not None:
            parts.append(f"est {self.estimate_percent:.1f}%")
        return " \u00b7 ".join(parts)


def gauge_of(row: WorkerRow, now: float, zones: tuple[tuple[str, float], ...] = ()) -> WorkerGauge:
    """The painted row of *row* at *now* (epoch seconds: the "ago" texts)."""
    if row.status is None:
        status, kind = "(log only)", "unknown"
    elif row.stale:
        status, kind = f"{row.status}?", "stale"
    else:
        status, kind = row.status, STATUS_KINDS.get(row.status, "unknown")
    estimate = row.estimate
    lines = [f"Worker {row.worker_id}: {status}" + (" (silent for an hour: stale)" if row.stale else "")]
    if row.usage_percent is None:
        lines.append(
            "No context_usage recorded: the state file has no usage for this worker, so there is no gauge "
            "(the estimate, when shown, is ctxviewer's own)"
        )
    else:
        lines.append(
            f"context_usage {row.context_usage:.4f} as recorded = {row.usage_percent:.1f}% "
            f"(checkpoint at {row.threshold_percent:g}%; upstream's colour {row.band})"
        )
        if row.zone:
            lines.append(f"reached the {row.zone} line")
    lines.append(f"current task: {row.current_task or '-'}")
    in_process = "" if row.tasks_in_process is None else f" ({row.tasks_in_process:,} in its current process)"
    lines.append(f"tasks completed in its log: {row.tasks_done:,}{in_process}")
    lines.append(f"checkpoints: {row.checkpoints:,}")
    lines.append(f"last heartbeat: {ago(row.last_heartbeat, now)}; last log line: {ago(row.last_log, now)}")
    if estimate is not None:
        lines.append(
            f"ctxviewer's recomputation of the real tracker (not recorded): {estimate.tokens:,} tokens "
            f"({estimate.percent:.1f}%) = 500 x {estimate.tasks} tasks + 100 x {estimate.minutes:,.1f} min"
        )
    if row.log_file:
        lines.append(f"log: {row.log_file}")
    if row.state_file:
        lines.append(f"state: {row.state_file}")
    return WorkerGauge(
        worker_id=row.worker_id,
        status=status,
        status_kind=kind,
        usage_percent=row.usage_percent,
        threshold_percent=row.threshold_percent,
        zones=zones,
        band=row.band,
        zone=row.zone,
        current_task=row.current_task,
        tasks_done=row.tasks_done,
        checkpoints=row.checkpoints,
        heartbeat_ago=ago(row.last_heartbeat, now),
        log_ago=ago(row.last_log, now),
        estimate_percent=None if estimate is None else estimate.percent,
        detail="\n".join(lines),
    )


@dataclass(frozen=True)
class FleetValue:
    """Every worker's gauge, and the run's line: what the fleet view paints."""

    rows: tuple[WorkerGauge, ...]
    threshold_percent: float
    threshold_origin: str
    summary: str = ""

    @classmethod
    def from_snapshot(cls, snapshot: FleetSnapshot) -> FleetValue:
        config = snapshot.config
        lines = sum(log.records for log in snapshot.logs)
        problems = snapshot.problem_count
        n = len(snapshot.workers)
        summary = (
            f"{n} worker{'s' if n != 1 else ''} \u00b7 checkpoint at {config.threshold_percent:g}% "
            f"({config.threshold_origin}) \u00b7 {lines:,} log line{'s' if lines != 1 else ''} \u00b7 "
            f"{problems:,} problem{'s' if problems != 1 else ''}"
        )
        rows = tuple(gauge_of(row, snapshot.taken_at, config.zones) for row in snapshot.workers)
        if rows and all(r.usage_percent is None for r in rows):
            summary += (
                " · no worker has recorded its context usage yet (context_usage in the state file), "
                "so the bars are empty; the estimates are ctxviewer's"
            )
        return cls(rows, config.threshold_percent, config.threshold_origin, summary)
