"""A word-wrapped label that lays its text out once for each width it is asked about.

A layout asks a word-wrapped label its height for a width several times in one pass, and a
rich-text label answers each question by laying out its whole document again.  The label
here keeps the answers until its text, font or style changes.  See docs/architecture.md
("A view reads it like this").
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt
from PySide6.QtWidgets import QLabel, QWidget

#: Heights kept for this many widths (a window being resized asks about many).
KEPT_WIDTHS = 8


class WrappedLabel(QLabel):
    """A :class:`QLabel` with word wrap on whose height for a width is computed once per text."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._heights: dict[int, int] = {}
        self.setWordWrap(True)

    def setText(self, text: str) -> None:
        if text != self.text():
            self._heights.clear()
            super().setText(text)

    def clear(self) -> None:
        self._heights.clear()
        super().clear()

    # What else changes the height for a width: the heights are asked again.
    def setTextFormat(self, text_format: Qt.TextFormat) -> None:
        self._heights.clear()
        super().setTextFormat(text_format)

    def setWordWrap(self, on: bool) -> None:
        self._heights.clear()
        super().setWordWrap(on)

    def setIndent(self, indent: int) -> None:
        self._heights.clear()
        super().setIndent(indent)

    def setMargin(self, margin: int) -> None:
        self._heights.clear()
        super().setMargin(margin)

    def heightForWidth(self, width: int) -> int:
        height = self._heights.get(width)
        if height is None:
            if len(self._heights) >= KEPT_WIDTHS:
                self._heights.clear()
            height = self._heights[width] = super().heightForWidth(width)
        return height

    def changeEvent(self, event: QEvent) -> None:
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange, QEvent.Type.LayoutDirectionChange):
            self._heights.clear()
        super().changeEvent(event)
