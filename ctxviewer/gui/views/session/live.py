"""Following a running worker's JSON-lines event log: when to read it, and what was read.

:class:`LiveLog` owns the :class:`~ctxviewer.engine.runtime.eventlog.EventLogFollower`, a
file-system watcher on the log and its folder, and a one-second poll timer.  It emits
``pollDue`` whenever the log may have grown; the panel answers with :meth:`LiveLog.poll`
and shows what it returns.  Nothing here draws.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import QFileSystemWatcher, QObject, QTimer, Signal

from ctxviewer.engine.runtime.eventlog import EventLogFollower, LiveUsage, LogProblem, PollResult

#: Live mode: the log is polled at least this often, file-system notifications or not.
LIVE_POLL_MS = 1000
#: Bytes of log one poll reads at most (the rest follows in later polls): parsing happens on the
#: GUI thread (bench/README.md#figures-behind-the-windows-design).
LIVE_READ_LIMIT = 64_000
#: A poll asked for (the log changed, or a poll stopped at the read limit) runs this much later.
POLL_AGAIN_MS = 5


class LiveLog(QObject):
    """One followed event log (or none), read against the tracker limits last set."""

    pollDue = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._follower: EventLogFollower | None = None
        self._path: Path | None = None
        self._threshold = 70.0
        self._max = 200_000
        self._zones: tuple[tuple[str, float], ...] = ()
        self._polled = False
        self._poll_pending = False
        self._watcher: QFileSystemWatcher | None = None
        #: What the last :meth:`poll` found; None before it and when not following.
        self.last_poll: PollResult | None = None
        self.timer = QTimer(self)
        self.timer.setInterval(LIVE_POLL_MS)
        self.timer.timeout.connect(self.pollDue)

    # -- state -------------------------------------------------------------------------------

    @property
    def following(self) -> Path | None:
        """The event log being followed, or None."""
        return self._path if self._follower is not None else None

    @property
    def usage(self) -> LiveUsage | None:
        """The estimate so far, or None when not following."""
        return self._follower.usage if self._follower is not None else None

    @property
    def zones(self) -> tuple[tuple[str, float], ...]:
        """The zones other than the checkpoint, lowest first."""
        return self._zones

    @property
    def problems(self) -> tuple[LogProblem, ...]:
        """The follower's problems since its last restart (none when not following)."""
        return self._follower.problems if self._follower is not None else ()

    def set_limits(self, threshold_percent: float, max_tokens: int, zones: Sequence[tuple[str, float]]) -> bool:
        """Read against these limits from now on; True when that means reading the log again.

        The estimate's percentages and first checkpoint depend on the threshold and the
        maximum, so a change of either starts the followed log over; the zones only redraw.
        """
        limits = (float(threshold_percent), int(max_tokens))
        changed = limits != (self._threshold, self._max)
        self._threshold, self._max = limits
        self._zones = tuple(sorted(((str(n), float(p)) for n, p in zones if n != "checkpoint"), key=lambda z: z[1]))
        if changed and self._follower is not None and self._path is not None:
            self._follower = self._new_follower(self._path)
            self._polled = False
            return True
        return False

    def _new_follower(self, path: Path) -> EventLogFollower:
        # Reads are parsed on the GUI thread: LIVE_READ_LIMIT per poll with the event loop
        # running between polls, so a long existing log never freezes the window.
        return EventLogFollower(path, self._threshold, self._max, read_limit=LIVE_READ_LIMIT)

    # -- following ---------------------------------------------------------------------------

    def start(self, path: Path) -> None:
        """Follow the log at *path*: watch it and its folder, and start the poll timer."""
        self._path = path
        self._follower = self._new_follower(path)
        self._polled = False
        self._watcher = QFileSystemWatcher(self)
        self._watcher.fileChanged.connect(self.schedule_poll)
        self._watcher.directoryChanged.connect(self.schedule_poll)
        self._watch()
        self.timer.start()

    def stop(self) -> bool:
        """Stop following; False when there was nothing to stop."""
        if self._follower is None:
            return False
        self.timer.stop()
        if self._watcher is not None:
            paths = self._watcher.files() + self._watcher.directories()
            if paths:
                self._watcher.removePaths(paths)
            self._watcher.deleteLater()
            self._watcher = None
        self._follower = None
        self.last_poll = None
        return True

    def _watch(self) -> None:
        """Watch the log and its folder (re-adding the log once it exists again)."""
        if self._watcher is None or self._path is None:
            return
        folder = self._path.parent
        if folder.is_dir() and str(folder) not in self._watcher.directories():
            self._watcher.addPath(str(folder))
        if self._path.is_file() and str(self._path) not in self._watcher.files():
            self._watcher.addPath(str(self._path))

    def schedule_poll(self, *_args: object) -> None:
        """Emit ``pollDue`` once the event loop is back (several notifications: once).

        A few milliseconds later rather than at once: catching up a long log polls again and
        again, and a chain of zero-delay calls keeps the window's other timers waiting.
        """
        if self._poll_pending or self._follower is None:
            return
        self._poll_pending = True
        QTimer.singleShot(POLL_AGAIN_MS, self, self._deferred_poll)

    def _deferred_poll(self) -> None:
        self._poll_pending = False
        self.pollDue.emit()

    def poll(self) -> tuple[PollResult, LiveUsage, bool] | None:
        """Read what the log gained: the result, the estimate, and whether there is anything new
        to show (always on the first poll of a log); None when not following."""
        follower = self._follower
        if follower is None:
            return None
        result = follower.poll()
        self.last_poll = result
        self._watch()
        changed = bool(result.events or result.problems or result.restarted or not self._polled)
        self._polled = True
        return result, follower.usage, changed

    def status_text(self, result: PollResult) -> str:
        """The follower's status (the log named by its file name; the header has the path) and problems."""
        follower, path = self._follower, self._path
        text = result.status
        if path is not None and path.name:
            text = text.replace(str(path), path.name)
        if follower is not None and follower.problems:
            count = follower.problem_count
            last = follower.problems[-1].message
            if path is not None and path.name:
                last = last.replace(str(path), path.name)
            text += f"\n{count:,} problem{'s' if count != 1 else ''}; last: {last}"
        return text
