"""A batch's token records in upstream's own format, to diff against what its workers wrote.

:func:`token_records_json` writes the ``<state>/tokens-<worker>.json`` a worker of zerg-ai
0.3.2 onward would leave after building the batch's tasks in batch order, starting from no
file (``TokenTracker.record_task``), byte for byte as upstream writes it
(``json.dump(indent=2)``, ASCII escapes, no final newline); each task's breakdown is its
trace's :attr:`~ctxviewer.engine.trace.model.Trace.token_record`.  See docs/cli.md#batch.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from ctxviewer.engine.trace.model import Trace

#: The task id upstream records a task without one under (``task.get("id", "unknown")``).
NO_ID = "unknown"


@dataclass(frozen=True, slots=True)
class TaskRecord:
    """One record upstream writes: the task's raw ``id`` and its components' counts."""

    task_id: Any
    breakdown: Mapping[str, int]


def worker_name(worker_id: str | None) -> str:
    """The worker a record file is named after: the ``worker_id`` setting, ``unknown`` when unset
    (upstream reads the variable with that default, so a variable set to ``""`` stays ``""``)."""
    return NO_ID if worker_id is None else worker_id


def record_of(trace: Trace, raw_task: Mapping[str, Any]) -> TaskRecord | None:
    """What upstream records for the task *trace* ran (None: nothing, see :attr:`Trace.token_record`;
    with ``enabled`` false the plugin is not registered and never runs)."""
    enabled = trace.settings.get("enabled")
    if trace.token_record is None or (enabled is not None and enabled.value is False):
        return None
    return TaskRecord(raw_task.get("id", NO_ID), dict(trace.token_record))


def utc_now() -> str:
    """A record's timestamp as upstream writes it (``datetime.now(UTC).isoformat()``)."""
    return datetime.now(UTC).isoformat()


def token_records_json(worker_id: str, records: Iterable[TaskRecord], now: Callable[[], str] = utc_now) -> str:
    """The ``tokens-<worker_id>.json`` text a worker leaves after *records*, in order, from no file."""
    data: dict[str, Any] = {
        "worker_id": worker_id,
        "tasks": {},
        "cumulative": {"total_tokens": 0, "tasks_completed": 0},
    }
    last = ""  # the file as last written, when it cannot be written again from *data*
    for record in records:
        try:
            hash(record.task_id)
        except TypeError:
            continue  # upstream's record_task raises setting the key, logs it and writes nothing
        tasks = data["tasks"]
        breakdown = dict(record.breakdown)
        tasks[record.task_id] = {
            "breakdown": breakdown,
            "total": sum(int(v) for v in breakdown.values()),
            "mode": "estimated",
            "timestamp": now(),
        }
        data["cumulative"] = {
            "total_tokens": sum(t.get("total", 0) for t in tasks.values()),
            "tasks_completed": len(tasks),
        }
        if not isinstance(record.task_id, str):
            # Written, then read back before the next record: the key becomes its JSON text.
            written = json.dumps(data, indent=2)
            data = json.loads(written)
            last = written
            continue
        last = ""
    return last or json.dumps(data, indent=2)
