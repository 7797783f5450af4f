"""Counting the events a widget receives, for tests that say what did or did not happen."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject


class EventCount(QObject):
    """Installed on a widget, counts the events of *kind* it receives."""

    def __init__(self, watched: QObject, kind: QEvent.Type) -> None:
        super().__init__()
        self.kind = kind
        self.count = 0
        watched.installEventFilter(self)

    def eventFilter(self, _obj: QObject, event: QEvent) -> bool:
        self.count += event.type() == self.kind
        return False
