"""The window's worker lanes, one per kind of job, on one private thread pool.

See docs/architecture.md (Threads).
"""

from __future__ import annotations

from PySide6.QtCore import QObject

from ctxviewer.gui.window.status import PROGRESS_AFTER_MS
from ctxviewer.gui.worker import Lane, make_pool


class Lanes(QObject):
    """Every lane of the window by its job, and the pool they share (:attr:`pool`)."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.pool = make_pool(4)
        self.load = Lane(self.pool, "load", self)
        #: The selected task's run; its progress bar shows only once it has taken a while.
        self.run = Lane(self.pool, "assemble", self, quiet_ms=PROGRESS_AFTER_MS)
        #: The worker's prompt for the task shown, composed once its trace is.
        self.prompt = Lane(self.pool, "prompt", self)
        self.batch = Lane(self.pool, "batch", self)
        self.export = Lane(self.pool, "export", self)
        self.replay = Lane(self.pool, "replay", self)
        self.refresh = Lane(self.pool, "refresh", self)
        self.compare = Lane(self.pool, "compare", self)
        #: The shown task's exact sensitivity ("What would get it in?").
        self.sensitivity = Lane(self.pool, "sensitivity", self)
        self.revisions = Lane(self.pool, "revisions", self)
        #: Find the Commit: the shown task followed through a range of commits.
        self.bisect = Lane(self.pool, "bisect", self)
        self.sweep = Lane(self.pool, "sweep", self)
        #: An attached run's token records beside their reproduction.
        self.recorded = Lane(self.pool, "recorded", self)

    def all(self) -> tuple[Lane, ...]:
        return (
            self.load,
            self.run,
            self.prompt,
            self.batch,
            self.export,
            self.replay,
            self.refresh,
            self.compare,
            self.revisions,
            self.bisect,
            self.sweep,
            self.sensitivity,
            self.recorded,
        )

    def close(self, timeout_ms: int = 10_000) -> None:
        """Cancel every lane's job and wait for the pool (the window is closing)."""
        for lane in self.all():
            lane.cancel()
        self.pool.waitForDone(timeout_ms)
