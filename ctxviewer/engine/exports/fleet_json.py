"""A fleet snapshot as JSON-ready data: one document, or the changes between two snapshots.

:func:`fleet_document` for ``follow --once --format json``, :func:`fleet_changes` for
``--format jsonl`` (one object per line); every value is plain, so ``json.dumps`` takes it as
it is.  The fields: ``docs/run-files.md#as-json``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ctxviewer.engine.exports.schemas import SCHEMA_VERSIONS, versioned
from ctxviewer.engine.runfiles.fleet import FleetSnapshot, RunEvent, WorkerRow
from ctxviewer.engine.runfiles.plausible import iso
from ctxviewer.engine.runfiles.realtracker import TrackerEstimate
from ctxviewer.engine.runfiles.tokenrecords import TokenRecord

#: Changes to the document's shape bump this.
DOCUMENT_VERSION = 1


def _estimate(estimate: TrackerEstimate | None) -> dict[str, Any] | None:
    if estimate is None:
        return None
    return {
        "tokens": estimate.tokens,
        "percent": estimate.percent,
        "tasks": estimate.tasks,
        "minutes": estimate.minutes,
        "process_started": iso(estimate.process_started),
        "at": iso(estimate.at),
    }


def worker_data(row: WorkerRow) -> dict[str, Any]:
    """One worker: what was recorded, then ctxviewer's ``tracker`` estimate."""
    return {
        "worker_id": row.worker_id,
        "feature": row.feature,
        "status": row.status,
        "stale": row.stale,
        "context_usage": row.context_usage,
        "threshold_percent": row.threshold_percent,
        "zone": row.zone,
        "band": row.band,
        "current_task": row.current_task,
        "tasks_done": row.tasks_done,
        "tasks_in_process": row.tasks_in_process,
        "checkpoints": row.checkpoints,
        "last_heartbeat": iso(row.last_heartbeat),
        "last_log": iso(row.last_log),
        "tracker": _estimate(row.estimate),
        "log_file": row.log_file,
        "state_file": row.state_file,
    }


def event_data(event: RunEvent) -> dict[str, Any]:
    """One event: when, which worker, what, which task, and where it was read."""
    return {
        "time": iso(event.time),
        "worker_id": event.worker_id,
        "event": event.event,
        "task_id": event.task_id,
        "source": event.source,
        "file": event.file,
        "line": event.line,
    }


def token_data(record: TokenRecord) -> dict[str, Any]:
    """One token record: each task's total, mode, time and tokens per section."""
    return {
        "file": record.file,
        "worker_id": record.worker_id,
        "tasks": [
            {
                "task_id": task.task_id,
                "total": task.total,
                "mode": task.mode,
                "timestamp": task.timestamp,
                "sections": dict(task.sections),
            }
            for task in record.tasks
        ],
        "cumulative": {"total_tokens": record.cumulative_total, "tasks_completed": record.cumulative_tasks},
    }


def fleet_document(snapshot: FleetSnapshot) -> dict[str, Any]:
    """The whole snapshot: run, scale, workers, logs (with their events), token records, problems.

    ``problems`` are the snapshot's new problems (for :func:`~.fleet.read_run`'s snapshot:
    all of them); ``problem_count`` counts every problem, kept or not.
    """
    config = snapshot.config
    by_file: dict[str, list[dict[str, Any]]] = {}
    for event in snapshot.events:
        if event.source == "log":
            by_file.setdefault(event.file, []).append(event_data(event))
    logs = []
    for log in snapshot.logs:
        events = [e for name, found in by_file.items() if name in (log.file, log.file + ".1") for e in found]
        logs.append(
            {
                "file": log.file,
                "records": log.records,
                "tasks_executed": log.tasks_executed,
                "pending_line": log.pending_line,
                "events": events,
            }
        )
    return {
        "schema_version": SCHEMA_VERSIONS["follow"],
        "version": DOCUMENT_VERSION,
        "root": snapshot.root,
        "taken_at": iso(snapshot.taken_at),
        "threshold_percent": config.threshold_percent,
        "threshold_origin": config.threshold_origin,
        "zones": [{"name": name, "percent": percent} for name, percent in config.all_zones],
        "max_tokens": config.max_tokens,
        "workers": [worker_data(row) for row in snapshot.workers],
        "logs": logs,
        "execution_log": [event_data(e) for e in snapshot.events if e.source == "state"],
        "token_records": [token_data(record) for record in snapshot.token_records],
        "problems": [p.describe() for p in snapshot.new_problems],
        "problem_count": snapshot.problem_count,
        "events_dropped": snapshot.events_dropped,
    }


def fleet_changes(previous: FleetSnapshot | None, current: FleetSnapshot) -> list[dict[str, Any]]:
    """What *current* adds to *previous*, one object per change, each with a ``type``.

    ``worker`` for a worker new or different (the whole row), ``event`` for each new event,
    ``problem`` for each new problem.  With no *previous*, every worker is new.  A live
    worker's estimate grows with the clock alone: that is not a change by itself.
    """
    before = {} if previous is None else {row.worker_id: replace(row, estimate=None) for row in previous.workers}
    out: list[dict[str, Any]] = []
    for row in current.workers:
        if before.get(row.worker_id) != replace(row, estimate=None):
            out.append(versioned("follow-change", {"type": "worker", **worker_data(row)}))
    out += [versioned("follow-change", {"type": "event", **event_data(event)}) for event in current.new_events]
    out += [
        versioned("follow-change", {"type": "problem", "problem": problem.describe()})
        for problem in current.new_problems
    ]
    return out
