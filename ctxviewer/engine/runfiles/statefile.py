"""Reading upstream's feature state, ``state/<feature>.json``: workers, tasks, the execution log.

:class:`StateFileReader` re-reads the file when it changed (upstream replaces it whole) and
takes each worker's status and recorded ``context_usage``, the tasks and the execution log;
a value of the wrong type is one :class:`~.problems.RunProblem` with its line, and is left
out.  The fields and their problems: ``docs/run-files.md#state-files-and-token-records``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ctxviewer.engine.errors import json_type
from ctxviewer.engine.files.reading import ProjectFS
from ctxviewer.engine.runfiles.jsondoc import Fields, JsonDocument
from ctxviewer.engine.runfiles.plausible import COUNT, USAGE
from ctxviewer.engine.runfiles.problems import ProblemList, RunProblem, worker_order

#: ``constants.py:WorkerStatus``.
WORKER_STATUSES = (
    "initializing",
    "ready",
    "running",
    "idle",
    "checkpointing",
    "stopping",
    "stopped",
    "crashed",
    "blocked",
    "stalled",
)
#: Statuses of a worker whose process is (as recorded) still there, its tracker's clock running.
LIVE_STATUSES = frozenset({"initializing", "ready", "running", "idle", "blocked", "stalled"})
#: The execution-log event a checkpoint writes.
CHECKPOINT_EVENT = "worker_checkpoint"


@dataclass(frozen=True, slots=True)
class WorkerState:
    """``workers["<id>"]`` of a state file; a value absent or of the wrong type is None."""

    worker_id: str
    status: str | None
    current_task: str | None
    tasks_completed: int | None
    """Tasks completed by the worker's current process (upstream's counter starts at 0 in each)."""
    context_usage: float | None
    """0-1 as recorded: the real tracker's ``usage_percent / 100`` at the worker's last update."""
    started_at: float | None
    health_check_at: float | None
    ready_at: float | None
    last_task_completed_at: float | None
    branch: str | None = None


@dataclass(frozen=True, slots=True)
class TaskState:
    """``tasks["<id>"]`` of a state file."""

    task_id: str
    status: str | None
    worker_id: str | None


@dataclass(frozen=True, slots=True)
class ExecutionEvent:
    """One entry of ``execution_log``."""

    index: int
    """Its 0-based position in the log."""
    timestamp: str | None
    time: float | None
    event: str | None
    worker_id: str | None
    """``data.worker_id`` as text, when the event names a worker."""
    task_id: str | None
    """``data.task_id`` (or ``data.current_task`` for a checkpoint)."""
    data: Mapping[str, Any] | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class FeatureState:
    """One state file as last read."""

    file: str
    feature: str | None
    workers: tuple[WorkerState, ...]
    tasks: tuple[TaskState, ...]
    execution_log: tuple[ExecutionEvent, ...]
    paused: bool | None = None
    error: str | None = None


@dataclass(frozen=True, slots=True)
class StatePoll:
    """What one :meth:`StateFileReader.poll` found."""

    changed: bool
    state: FeatureState | None
    """The state as last read successfully (None before any)."""
    new_events: tuple[ExecutionEvent, ...]
    """Execution-log entries added since the last read (all of them when it was rewritten otherwise)."""
    problems: tuple[RunProblem, ...]


def _id(value: Any) -> str | None:
    if isinstance(value, bool) or not isinstance(value, int | str):
        return None
    return str(value)


class StateFileReader:
    """Follows one feature state file; call :meth:`poll` on a timer."""

    def __init__(self, fs: ProjectFS, rel: str, shown: str | None = None) -> None:
        self.rel = rel
        self.shown = shown or rel
        self.problems = ProblemList()
        self._doc = JsonDocument(fs, rel, self.shown, self.problems)
        self._seen: set[str] = set()
        self._state: FeatureState | None = None
        # The execution log as last parsed, raw and checked: upstream only appends to it, so
        # a rewrite whose log starts with the same entries re-checks only the new ones.
        self._raw_log: list[Any] = []
        self._events: tuple[ExecutionEvent, ...] = ()
        self._kept = 0

    @property
    def state(self) -> FeatureState | None:
        """The state as last read successfully (None before any)."""
        return self._state

    @property
    def modified(self) -> int | None:
        """The file's modification time (ns) as last seen, or None."""
        return self._doc.modified

    @property
    def reads(self) -> int:
        """How often the file was read whole (it is read again only when it changed)."""
        return self._doc.reads

    def poll(self) -> StatePoll:
        """Read the file again if it changed."""
        read = self._doc.poll()
        new = list(read.problems)
        if not read.changed:
            return StatePoll(False, self._state, (), tuple(new))
        state = self._parse(read.data, read.text, new)
        if state is None:
            return StatePoll(False, self._state, (), tuple(new))
        new_events = state.execution_log[self._kept :]
        self._state = state
        return StatePoll(True, state, new_events, tuple(new))

    def _parse(self, data: Any, text: str, new: list[RunProblem]) -> FeatureState | None:
        check = Fields(self.shown, self.problems, new, text=text, seen=self._seen)
        if not isinstance(data, dict):
            check.report((), f"not a feature state file (the document is {json_type(data)}, not an object)")
            return None
        if not any(k in data for k in ("workers", "tasks", "execution_log")):
            check.report((), "not a feature state file (no workers, tasks or execution_log)")
            return None
        workers: list[WorkerState] = []
        for key, entry in sorted((check.mapping(data, "workers", ()) or {}).items(), key=lambda kv: _sort_key(kv[0])):
            path: tuple[str | int, ...] = ("workers", key)
            if not isinstance(entry, dict):
                check.report(path, f'"workers.{key}" must be an object, not {json_type(entry)}')
                continue
            workers.append(
                WorkerState(
                    worker_id=key,
                    status=check.string(entry, "status", path),
                    current_task=check.string(entry, "current_task", path),
                    tasks_completed=check.integer(entry, "tasks_completed", path, kind=COUNT),
                    context_usage=check.number(entry, "context_usage", path, kind=USAGE),
                    started_at=check.time(entry, "started_at", path, naive_is_utc=False),
                    health_check_at=check.time(entry, "health_check_at", path, naive_is_utc=False),
                    ready_at=check.time(entry, "ready_at", path, naive_is_utc=False),
                    last_task_completed_at=check.time(entry, "last_task_completed_at", path, naive_is_utc=False),
                    branch=check.string(entry, "branch", path),
                )
            )
        tasks: list[TaskState] = []
        for key, entry in (check.mapping(data, "tasks", ()) or {}).items():
            path = ("tasks", key)
            if not isinstance(entry, dict):
                check.report(path, f'"tasks.{key}" must be an object, not {json_type(entry)}')
                continue
            worker = entry.get("worker_id")
            tasks.append(TaskState(key, check.string(entry, "status", path), _id(worker)))
        raw_log = check.array(data, "execution_log", ()) or []
        known = len(self._raw_log)
        reused = known <= len(raw_log) and raw_log[:known] == self._raw_log
        events: list[ExecutionEvent] = list(self._events) if reused else []
        self._kept = len(events)  # events carried over from the last read: the rest are new
        for index in range(known if reused else 0, len(raw_log)):
            entry = raw_log[index]
            path = ("execution_log", index)
            if not isinstance(entry, dict):
                check.report(path, f'"execution_log.{index}" must be an object, not {json_type(entry)}')
                continue
            info = check.mapping(entry, "data", path)
            task = None
            if info is not None:
                task = info.get("task_id") if "task_id" in info else info.get("current_task")
            events.append(
                ExecutionEvent(
                    index=index,
                    timestamp=check.string(entry, "timestamp", path),
                    time=check.time(entry, "timestamp", path, naive_is_utc=False),
                    event=check.string(entry, "event", path),
                    worker_id=None if info is None else _id(info.get("worker_id")),
                    task_id=task if isinstance(task, str) else None,
                    data=info,
                )
            )
        self._raw_log, self._events = raw_log, tuple(events)
        paused = data.get("paused")
        error = data.get("error")
        return FeatureState(
            file=self.shown,
            feature=check.string(data, "feature", ()),
            workers=tuple(workers),
            tasks=tuple(tasks),
            execution_log=self._events,
            paused=paused if isinstance(paused, bool) else None,
            error=error if isinstance(error, str) else None,
        )


def _sort_key(worker_id: str) -> tuple[int, int, str]:
    """Workers in number order (``2`` before ``10``), others after."""
    return worker_order(worker_id)
