"""A docked view is filled when it is in sight: the latest fill owed to it waits while its dock
is closed or behind another dock's tab, and is made when the dock comes to the front or the
view is read.

See docs/architecture.md ("A view reads it like this").
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QDockWidget


def in_sight(dock: QDockWidget) -> bool:
    """Whether any of *dock* is on screen: open, and not behind another dock's tab (a dock
    behind a tab stays "visible" to Qt, with nothing of it painted)."""
    return dock.isVisible() and not dock.visibleRegion().isEmpty()


class WhenInSight(QObject):
    """The fill owed to the view in *dock*, made at once when the dock is in sight, else when
    it comes into sight (its tab raised, the dock opened) or :meth:`flush` is called (the view
    is read).  Only the latest fill is kept: an older one is never made after a newer."""

    def __init__(self, dock: QDockWidget) -> None:
        super().__init__(dock)
        self._dock = dock
        self._fill: Callable[[], None] | None = None
        dock.visibilityChanged.connect(self._on_visibility)

    def owe(self, fill: Callable[[], None]) -> None:
        """Make *fill* now if the dock is in sight, else when it comes into sight."""
        self._fill = fill
        if in_sight(self._dock):
            self.flush()

    def is_owed(self) -> bool:
        """Whether a fill waits for the dock to come into sight."""
        return self._fill is not None

    def flush(self) -> None:
        """Make the fill owed, if any."""
        fill, self._fill = self._fill, None
        if fill is not None:
            fill()

    def _on_visibility(self, visible: bool) -> None:
        if visible:
            self.flush()
