"""Following a real run: when to read its files, reading them off the GUI thread, and what was read.

:class:`RunFollower` polls a :class:`~ctxviewer.engine.runfiles.fleet.RunWatcher` on a private
one-thread pool, never two polls at once, woken by a debounced file-system watcher and a slow
fallback timer; the GUI thread only receives a frozen :class:`RunUpdate`.  Nothing here draws.
See docs/run-files.md#in-the-window.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QFileSystemWatcher, QObject, QThreadPool, QTimer, Signal, Slot

from ctxviewer.engine.runfiles.fleet import FleetSnapshot, RunEvent, RunWatcher, WorkerRow
from ctxviewer.engine.runfiles.realtracker import TrackerPoint, tracker_timeline
from ctxviewer.engine.runfiles.rundir import RunFiles
from ctxviewer.engine.runfiles.workerlog import LogRecord
from ctxviewer.gui.views.session.fleetvalues import FleetValue
from ctxviewer.gui.views.session.timelines import TimelineValue, worker_timeline
from ctxviewer.gui.worker import Job

#: A notification is answered with a poll this long after it (more notifications meanwhile: one poll).
DEBOUNCE_MS = 150
#: The run is polled at least this often, notifications or not (it also moves the estimates' clocks).
FALLBACK_MS = 5000


@dataclass(frozen=True)
class RunUpdate:
    """What one poll of the run found, ready to show."""

    snapshot: FleetSnapshot
    fleet: FleetValue
    timelines: tuple[TimelineValue, ...]
    run: RunFiles
    """The run's files now (a worker started since the last poll has a log in it)."""
    seconds: float
    """How long the poll took on the pool thread."""


class RunReader:
    """The watcher and the tracker curves of one attached run: :meth:`poll` reads what changed and
    builds the :class:`RunUpdate` (called by one thread at a time; plain Python, for tests too)."""

    def __init__(self, run: RunFiles) -> None:
        self.run = run
        self.watcher: RunWatcher | None = None
        self.points: dict[str, tuple[TrackerPoint, ...]] = {}
        #: Per worker, its records' count and last record when its curve was computed.
        self._curve_keys: dict[str, tuple[int, LogRecord | None]] = {}
        self._events: dict[str, tuple[RunEvent, ...]] = {}
        #: Per worker, the timeline and what it was made of (rebuilt only when one of those changed).
        self._timelines: dict[str, tuple[tuple[object, ...], TimelineValue]] = {}

    def poll(self, now: float | None = None) -> RunUpdate:
        began = time.perf_counter()
        if self.watcher is None:
            self.watcher = RunWatcher(self.run)
        watcher = self.watcher
        snapshot = watcher.poll(now)
        if snapshot.changed or snapshot.sequence == 1:
            self._update_points(watcher, [row.worker_id for row in snapshot.workers])
            grouped: dict[str, list[RunEvent]] = {}
            for event in snapshot.events:
                if event.worker_id is not None:
                    grouped.setdefault(event.worker_id, []).append(event)
            known = self._events
            self._events = {w: _same_or_new(known.get(w), events) for w, events in grouped.items()}
        timelines = tuple(self._timeline(row, snapshot) for row in snapshot.workers)
        return RunUpdate(
            snapshot, FleetValue.from_snapshot(snapshot), timelines, watcher.run, time.perf_counter() - began
        )

    def _timeline(self, row: WorkerRow, snapshot: FleetSnapshot) -> TimelineValue:
        points = self.points.get(row.worker_id, ())
        events = self._events.get(row.worker_id, ())
        key = (points, events, row, snapshot.config)
        cached = self._timelines.get(row.worker_id)
        if cached is not None and all(a is b or a == b for a, b in zip(cached[0], key, strict=True)):
            return cached[1]
        value = worker_timeline(row.worker_id, points, events, snapshot.config, row)
        self._timelines[row.worker_id] = (key, value)
        return value

    def _update_points(self, watcher: RunWatcher, workers: list[str]) -> None:
        """Each worker's recomputed tracker over its records on disk; recomputed only for the
        workers whose records changed (a task line of one worker leaves the others' curves)."""
        wanted = set(workers)
        grouped: dict[str, list[LogRecord]] = {w: [] for w in workers}
        for record in watcher.tracker_records:
            worker_id = record.worker_id
            worker = worker_id if isinstance(worker_id, str) else None if worker_id is None else str(worker_id)
            if worker in wanted:
                grouped[worker].append(record)
        points: dict[str, tuple[TrackerPoint, ...]] = {}
        keys: dict[str, tuple[int, LogRecord | None]] = {}
        for worker, records in grouped.items():
            key = (len(records), records[-1] if records else None)
            keys[worker] = key
            known = self.points.get(worker)
            seen = self._curve_keys.get(worker)
            same = seen is not None and seen[0] == key[0] and seen[1] is key[1]
            points[worker] = (
                known if same and known is not None else tracker_timeline(records, worker, watcher.config.max_tokens)
            )
        self.points, self._curve_keys = points, keys


def _same_or_new(known: tuple[RunEvent, ...] | None, events: list[RunEvent]) -> tuple[RunEvent, ...]:
    """*known* when it holds the same events (kept: the timeline built from it stays valid)."""
    if known is not None and len(known) == len(events) and (not events or known[-1] is events[-1]):
        return known
    return tuple(events)


class RunFollower(QObject):
    """One attached run (or none): watched, polled off the GUI thread, each poll's result emitted.

    ``updated`` carries a :class:`RunUpdate` after every poll; ``failed`` a poll's error
    (the follower keeps going: the next notification polls again).
    """

    updated = Signal(object)  # RunUpdate
    failed = Signal(str)

    def __init__(
        self,
        parent: QObject | None = None,
        *,
        debounce_ms: int = DEBOUNCE_MS,
        fallback_ms: int = FALLBACK_MS,
        clock: Callable[[], float] | None = None,
    ) -> None:
        super().__init__(parent)
        self._pool = QThreadPool(self)
        self._pool.setMaxThreadCount(1)
        self._reader: RunReader | None = None
        self._job: Job | None = None
        self._generation = 0
        self._again = False
        #: The clock of each poll's ``now`` (None: the time now); set before :meth:`start`.
        self.clock = clock
        self._fs: QFileSystemWatcher | None = None
        #: What the last poll found; None before it and when not following.
        self.last_update: RunUpdate | None = None
        self.polls = 0
        self.debounce = QTimer(self)
        self.debounce.setSingleShot(True)
        self.debounce.setInterval(debounce_ms)
        self.debounce.timeout.connect(self.poll_now)
        self.fallback = QTimer(self)
        self.fallback.setInterval(fallback_ms)
        self.fallback.timeout.connect(self.poll_now)

    @property
    def following(self) -> RunFiles | None:
        """The attached run, or None."""
        return self._reader.run if self._reader is not None else None

    def is_polling(self) -> bool:
        return self._job is not None

    def start(self, run: RunFiles) -> None:
        """Attach to *run*: watch its folders and files, poll it now and whenever they change."""
        self.stop()
        self._reader = RunReader(run)
        self._fs = QFileSystemWatcher(self)
        self._fs.fileChanged.connect(self.schedule_poll)
        self._fs.directoryChanged.connect(self.schedule_poll)
        self._watch(run)
        self.fallback.start()
        self.poll_now()

    def stop(self) -> bool:
        """Detach (waiting for a poll in flight to end); False when nothing was attached."""
        if self._reader is None:
            return False
        self._generation += 1
        self.debounce.stop()
        self.fallback.stop()
        if self._fs is not None:
            paths = self._fs.files() + self._fs.directories()
            if paths:
                self._fs.removePaths(paths)
            self._fs.deleteLater()
            self._fs = None
        self._pool.waitForDone()
        self._job = None
        self._again = False
        self._reader = None
        self.last_update = None
        return True

    # -- when to poll ------------------------------------------------------------------------

    @Slot()
    def schedule_poll(self, *_args: object) -> None:
        """A file or folder changed: poll once the debounce runs out (not restarted by more changes,
        so a worker writing without pause is still read every :data:`DEBOUNCE_MS`)."""
        if self._reader is not None and not self.debounce.isActive():
            self.debounce.start()

    @Slot()
    def poll_now(self) -> None:
        """Poll on the pool thread now (when a poll is in flight: once more after it)."""
        reader = self._reader
        if reader is None:
            return
        if self._job is not None:
            self._again = True
            return
        self._again = False
        clock = self.clock

        def read(cancel: threading.Event, progress: Callable[[str, float], None]) -> RunUpdate:
            return reader.poll(None if clock is None else clock())

        self._generation += 1
        job = Job(self._generation, read)
        job.signals.finished.connect(self._on_finished)
        job.signals.errored.connect(self._on_errored)
        self._job = job
        self._pool.start(job)

    @Slot(int, object)
    def _on_finished(self, generation: int, update: RunUpdate) -> None:
        if generation != self._generation or self._reader is None:
            return  # detached (or attached elsewhere) since
        self._job = None
        self.polls += 1
        self.last_update = update
        self._watch(update.run)
        self.updated.emit(update)
        if self._again or update.snapshot.more:
            self.poll_now()

    @Slot(int, str)
    def _on_errored(self, generation: int, message: str) -> None:
        if generation != self._generation or self._reader is None:
            return
        self._job = None
        self.failed.emit(message)
        if self._again:
            self.poll_now()

    def _watch(self, run: RunFiles) -> None:
        """Watch the run's folders and every file of it there is (again after a rotation or a rewrite)."""
        fs = self._fs
        if fs is None:
            return
        root = Path(run.root)
        folders = {root / folder for folder, _ in run.scans}
        files = [root / rel for rel in (*run.worker_logs, *run.state_files, *run.token_records, *run.heartbeats)]
        if not run.scans:  # a single file: its folder tells of a rotation or a replacement
            folders |= {f.parent for f in files}
        files += [f.with_name(f.name + ".1") for f in (root / rel for rel in run.worker_logs)]
        have_dirs, have_files = set(fs.directories()), set(fs.files())
        new_dirs = [str(d) for d in folders if str(d) not in have_dirs and d.is_dir()]
        new_files = [str(f) for f in files if str(f) not in have_files and f.is_file()]
        if new_dirs or new_files:
            fs.addPaths(new_dirs + new_files)
