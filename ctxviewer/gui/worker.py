"""One small worker: engine calls run on a thread pool, results come back as signals.

A :class:`Job` runs a plain ``fn(cancel, progress)`` on the pool and reports exactly one of
``finished``, ``errored`` or ``cancelled``, never touching a widget; a :class:`Lane` runs one
kind of job at a time, a newer one cancelling the older, with an explicit :class:`RunState`;
a :class:`Handoff` brings a stream of results to the GUI thread in bursts;
:func:`build_frozen` keeps a loaded project, or a click's trace, out of the garbage collector's way.  See
docs/architecture.md#threads.
"""

from __future__ import annotations

import enum
import gc
import threading
import time
import traceback
from collections.abc import Callable
from typing import Any, TypeVar

from PySide6.QtCore import QObject, QRunnable, Qt, QThreadPool, QTimer, Signal, Slot

from ctxviewer.engine.errors import CtxViewerError
from ctxviewer.engine.profiles.base import Cancelled

#: ``fn(cancel, progress) -> result``; progress takes (stage, fraction 0..1).
JobFn = Callable[[threading.Event, Callable[[str, float], None]], Any]
T = TypeVar("T")


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

    def __init__(self, generation: int, fn: JobFn, quiet_s: float = 0.0) -> None:
        super().__init__()
        self.setAutoDelete(True)
        self.generation = generation
        self.fn = fn
        self.cancel = threading.Event()
        self.signals = JobSignals()
        #: Progress is not reported until the job has run this long (see :class:`Lane`).
        self.quiet_s = quiet_s
        self._speak_at = 0.0

    def _progress(self, stage: str, fraction: float) -> None:
        if self.cancel.is_set():
            raise Cancelled(stage)
        if self.quiet_s and time.monotonic() < self._speak_at:
            return
        self.signals.progress.emit(self.generation, stage, float(fraction))

    def run(self) -> None:
        gen = self.generation
        try:
            if self.cancel.is_set():
                raise Cancelled("start")
            self.signals.started.emit(gen)
            self._speak_at = time.monotonic() + self.quiet_s
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
    """Exclusive runner: one current job; a newer submission cancels the older.

    With *quiet_ms*, a job reports no progress until it has run that long: a quick job's
    every step would otherwise reach the GUI thread as a queued call, while the job holds
    the interpreter lock the GUI thread needs for it, to update a bar not yet shown.
    """

    stateChanged = Signal(object)  # RunState
    progress = Signal(str, float)
    finished = Signal(object)
    errored = Signal(str)
    cancelled = Signal()

    def __init__(self, pool: QThreadPool, name: str, parent: QObject | None = None, quiet_ms: int = 0) -> None:
        super().__init__(parent)
        self.name = name
        self._pool = pool
        self._quiet_s = quiet_ms / 1000
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
        job = Job(self._generation, fn, self._quiet_s)
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


class Handoff(QObject):
    """Items put on any thread, handed to *handle* on this object's (the GUI) thread in bursts.

    Only the first item put into an empty buffer posts a call, which hands over everything
    put until then, in order -- *interval_ms* after the burst before it at the earliest.
    One call (and one repaint) per item would keep the GUI thread busy, every Python slot
    waiting for the interpreter lock the worker holds
    (bench/README.md#figures-behind-the-windows-design).

    Items still waiting when the producer's job reports that it is done are not handed
    over before that report by themselves: call :meth:`flush` first.  :meth:`pause` keeps
    items waiting (the GUI thread has something more urgent to do) until :meth:`resume`.
    """

    _ready = Signal()

    def __init__(
        self, handle: Callable[[list[Any]], None], parent: QObject | None = None, interval_ms: int = 0
    ) -> None:
        super().__init__(parent)
        self._handle = handle
        self._items: list[Any] = []
        self._lock = threading.Lock()
        self._paused = False
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self.flush)
        self._ready.connect(self._arm, Qt.ConnectionType.QueuedConnection)

    def put(self, item: Any) -> None:
        """Queue *item* (thread-safe)."""
        with self._lock:
            self._items.append(item)
            first = len(self._items) == 1
        if first:
            self._ready.emit()

    @Slot()
    def _arm(self) -> None:
        if not self._paused and not self._timer.isActive():
            self._timer.start()

    def pause(self) -> None:
        """Hand nothing over by itself until :meth:`resume` (:meth:`flush` still does)."""
        self._paused = True
        self._timer.stop()

    def resume(self) -> None:
        """Hand over what waits, *interval_ms* from now, and go on as before the pause."""
        self._paused = False
        with self._lock:
            waiting = bool(self._items)
        if waiting:
            self._arm()

    @Slot()
    def flush(self) -> None:
        """Hand everything put so far to *handle* now (on the GUI thread)."""
        self._timer.stop()
        with self._lock:
            items, self._items = self._items, []
        if items:
            self._handle(items)


def reclaim_frozen() -> None:
    """Hand the objects :func:`build_frozen` froze back to the collector and collect once.

    For the GUI thread, before the next load: a reference cycle that died while frozen is
    freed then at the latest, so repeated opening cannot pile garbage up.  Only on the GUI
    thread: a collection may destroy Qt objects (cycles through their Python wrappers),
    and Qt objects must be destroyed on the thread they belong to.
    """
    if gc.get_freeze_count():
        gc.unfreeze()
        gc.collect()


def build_frozen(build: Callable[[], T]) -> T:
    """``build()`` -- loading a project, or a click's run, on a worker -- without the garbage
    collector, then out of its sight.

    A full collection walks every tracked object while holding the interpreter lock, so the
    GUI thread waits through it however well the work is moved off it, and most objects are
    the project's.  So *build* runs with automatic collection off (it frees nothing: a
    collection during it is wasted work), and everything alive after it is frozen
    (``gc.freeze``): later full collections, during the batch pass, skip it.  Frozen objects
    are still freed by reference counting; cycles among them wait for :func:`reclaim_frozen`.
    A click's run makes thousands of objects and no cycle: collected as it went, it paid
    several young-generation collections and now and then a full one (2-14 ms) in the
    middle of the click.

    Another thread turning collection off and on meanwhile cannot leave it off: it is
    turned back on here if it was on before.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        result = build()
        gc.freeze()
    finally:
        if enabled:
            gc.enable()
    return result


def make_pool(threads: int = 3) -> QThreadPool:
    """A private pool: project loading, assembly and the background batch side by side."""
    pool = QThreadPool()
    pool.setMaxThreadCount(threads)
    return pool
