"""Replay timing: :class:`ReplayPlayer` steps a position through a replay's tasks on a QTimer.

The player knows only a step count, a position and a speed; the panel shows what the
position means.  Tests hand it a timer of their own and emit its ``timeout`` themselves.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer, Signal

from ctxviewer.gui.views.session.ticks import is_number

#: Playback speeds offered, and the time one task takes at 1x.
SPEEDS = (0.5, 1.0, 2.0, 4.0)
BASE_INTERVAL_MS = 600


class ReplayPlayer(QObject):
    """Steps a position through ``count`` steps, on a timer while playing.

    ``position`` is the index of the last step shown, ``-1`` before the first.  *timer*
    (a QTimer, or a function making one) replaces the internal timer, so tests can emit
    its ``timeout`` themselves instead of waiting.
    """

    positionChanged = Signal(int)
    playingChanged = Signal(bool)
    finished = Signal()

    def __init__(
        self,
        parent: QObject | None = None,
        *,
        timer: QTimer | Callable[[], QTimer] | None = None,
    ) -> None:
        super().__init__(parent)
        if timer is None:
            self.timer = QTimer(self)
        elif isinstance(timer, QTimer):
            self.timer = timer
        else:
            self.timer = timer()
        self.timer.setSingleShot(False)
        self.timer.setInterval(BASE_INTERVAL_MS)
        self.timer.timeout.connect(self._tick)
        self._count = 0
        self._position = -1
        self._playing = False
        self._speed = 1.0

    # -- state -------------------------------------------------------------------------------

    @property
    def count(self) -> int:
        return self._count

    @property
    def position(self) -> int:
        return self._position

    @property
    def playing(self) -> bool:
        return self._playing

    @property
    def speed(self) -> float:
        return self._speed

    def interval(self) -> int:
        """Milliseconds between two steps while playing."""
        return int(self.timer.interval())

    def set_count(self, count: int) -> None:
        """Start over with *count* steps (paused, before the first step)."""
        self.pause()
        self._count = max(0, int(count))
        self._position = -1
        self.positionChanged.emit(-1)

    # -- control -----------------------------------------------------------------------------

    def play(self) -> None:
        """Play from here (from the start when at the end); the first step comes at once."""
        if self._count == 0 or self._playing:
            return
        if self._position >= self._count - 1:
            self.seek(-1)
        self._playing = True
        self.timer.start()
        self.playingChanged.emit(True)
        self._tick()

    def pause(self) -> None:
        if not self._playing:
            return
        self._playing = False
        self.timer.stop()
        self.playingChanged.emit(False)

    def toggle(self) -> None:
        if self._playing:
            self.pause()
        else:
            self.play()

    def step(self) -> bool:
        """Show the next step; False when already at the last one."""
        if self._position >= self._count - 1:
            return False
        self.seek(self._position + 1)
        return True

    def reset(self) -> None:
        """Pause and go back before the first step."""
        self.pause()
        self.seek(-1)

    def seek(self, position: int) -> None:
        """Show step *position* (clamped to ``-1 .. count - 1``)."""
        position = min(max(-1, int(position)), self._count - 1)
        if position == self._position:
            return
        self._position = position
        self.positionChanged.emit(position)
        if self._count and position == self._count - 1:
            self.pause()
            self.finished.emit()

    def set_speed(self, speed: float) -> None:
        """Play at *speed* times the base pace (600 ms a task at 1x)."""
        if not is_number(speed) or speed <= 0:
            raise ValueError(f"speed must be a positive number, not {speed!r}")
        self._speed = float(speed)
        self.timer.setInterval(max(1, round(BASE_INTERVAL_MS / self._speed)))

    def _tick(self) -> None:
        if not self.step():
            self.pause()
