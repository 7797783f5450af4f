"""One small worker: engine calls run on a thread pool, results come back as signals.

A :class:`Job` is a ``QRunnable`` that calls a plain function ``fn(cancel, progress)``
with the engine's cancel token (a ``threading.Event``) and progress callback, catches
everything inside ``run()`` and reports through its :class:`JobSignals`: ``progress``,
``finished``, ``errored`` or ``cancelled``, exactly one of the last three.  It never
touches a widget.

A :class:`Lane` runs one kind of job at a time with exclusive semantics: submitting a
new job cancels the one before it, and signals from a superseded job are ignored, so a
slow old result can never overwrite a newer one.  The lane has an explicit
:class:`RunState` that the window shows.
"""

from __future__ import annotations

import enum
import threading
import traceback
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal, Slot

from ctxviewer.engine.assembly import Cancelled
from ctxviewer.engine.errors import CtxViewerError

#: ``fn(cancel, progress) -> result``; progress takes (stage, fraction 0..1).
JobFn = Callable[[threading.Event, Callable[[str, float], None]], Any]


class RunState(enum.Enum):
    """Where a lane's latest job is."""

    IDLE = "idle"
    PENDING = "pending"
    RUNNING = "running"
    CANCELLED = "cancelled"
    ERROR = "error"
    DONE = "done"


class JobSignals(QObject):
    """Signals of one job; emitted from the pool thread, delivered queued."""

    started = Signal(int)
    progress = Signal(int, str, float)
    finished = Signal(int, object)
    errored = Signal(int, str)
    cancelled = Signal(int)


def describe_error(exc: BaseException) -> str:
    """A message for the error panel: the engine's own words, or the bug's type and place."""
    if isinstance(exc, CtxViewerError):
        return str(exc)
    frames = traceback.extract_tb(exc.__traceback__)
    where = f" (at {frames[-1].filename.rsplit('/', 1)[-1]}:{frames[-1].lineno})" if frames else ""
    return f"internal error: {type(exc).__name__}: {exc}{where}"


class Job(QRunnable):
    """Runs *fn* once on a pool thread and reports the outcome through ``signals``."""

    def __init__(self, generation: int, fn: JobFn) -> None:
        super().__init__()
        self.setAutoDelete(True)
        self.generation = generation
        self.fn = fn
        self.cancel = threading.Event()
        self.signals = JobSignals()

    def _progress(self, stage: str, fraction: float) -> None:
        if self.cancel.is_set():
            raise Cancelled(stage)
        self.signals.progress.emit(self.generation, stage, float(fraction))

    def run(self) -> None:
        gen = self.generation
        try:
            if self.cancel.is_set():
                raise Cancelled("start")
            self.signals.started.emit(gen)
            result = self.fn(self.cancel, self._progress)
            if self.cancel.is_set():
                raise Cancelled("finish")
        except Cancelled:
            self.signals.cancelled.emit(gen)
        except BaseException as exc:  # everything: a worker must never die silently
            self.signals.errored.emit(gen, describe_error(exc))
        else:
            self.signals.finished.emit(gen, result)


class Lane(QObject):
    """Exclusive runner: one current job; a newer submission cancels the older."""

    stateChanged = Signal(object)  # RunState
    progress = Signal(str, float)
    finished = Signal(object)
    errored = Signal(str)
    cancelled = Signal()

    def __init__(self, pool: QThreadPool, name: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.name = name
        self._pool = pool
        self._generation = 0
        self._current: Job | None = None
        # Every job not yet reported back, so no wrapper is collected mid-flight.
        self._live: dict[int, Job] = {}
        self._state = RunState.IDLE
        self._lock = threading.Lock()

    @property
    def state(self) -> RunState:
        return self._state

    @property
    def generation(self) -> int:
        return self._generation

    def is_busy(self) -> bool:
        return self._state in (RunState.PENDING, RunState.RUNNING)

    def _set_state(self, state: RunState) -> None:
        if state is not self._state:
            self._state = state
            self.stateChanged.emit(state)

    def submit(self, fn: JobFn) -> int:
        """Cancel the current job (if any) and start *fn*; returns its generation."""
        self.cancel()
        self._generation += 1
        job = Job(self._generation, fn)
        sig = job.signals
        sig.started.connect(self._on_started)
        sig.progress.connect(self._on_progress)
        sig.finished.connect(self._on_finished)
        sig.errored.connect(self._on_errored)
        sig.cancelled.connect(self._on_cancelled)
        self._current = job
        self._live[self._generation] = job
        self._set_state(RunState.PENDING)
        self._pool.start(job)
        return self._generation

    def cancel(self) -> None:
        """Ask the current job to stop at its next checkpoint."""
        job = self._current
        if job is not None:
            job.cancel.set()
            self._current = None
            if self.is_busy():
                self._set_state(RunState.CANCELLED)
                self.cancelled.emit()

    def running_jobs(self) -> int:
        """Jobs started and not yet reported back (superseded ones included)."""
        return len(self._live)

    def _is_current(self, generation: int) -> bool:
        return self._current is not None and generation == self._generation

    @Slot(int)
    def _on_started(self, generation: int) -> None:
        if self._is_current(generation):
            self._set_state(RunState.RUNNING)

    @Slot(int, str, float)
    def _on_progress(self, generation: int, stage: str, fraction: float) -> None:
        if self._is_current(generation):
            self.progress.emit(stage, fraction)

    @Slot(int, object)
    def _on_finished(self, generation: int, result: object) -> None:
        self._live.pop(generation, None)
        if self._is_current(generation):
            self._current = None
            self._set_state(RunState.DONE)
            self.finished.emit(result)

    @Slot(int, str)
    def _on_errored(self, generation: int, message: str) -> None:
        self._live.pop(generation, None)
        if self._is_current(generation):
            self._current = None
            self._set_state(RunState.ERROR)
            self.errored.emit(message)

    @Slot(int)
    def _on_cancelled(self, generation: int) -> None:
        self._live.pop(generation, None)
        # A job that noticed its cancel flag; the lane already moved on when it was
        # superseded, so only a job cancelled while still current changes the state.
        if self._is_current(generation):
            self._current = None
            self._set_state(RunState.CANCELLED)
            self.cancelled.emit()


def make_pool(threads: int = 3) -> QThreadPool:
    """A private pool: project loading, assembly and the background batch side by side."""
    pool = QThreadPool()
    pool.setMaxThreadCount(threads)
    return pool
