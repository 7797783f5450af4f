"""A word-wrapped label that lays its text out once for each width it is asked about.

A layout asks a word-wrapped label its height for a width several times in one pass, and a
rich-text label answers each question by laying out its whole document again.  The label
here keeps the answers until its text, font or style changes.  Its size hints are answered
from those heights too: QLabel's own lay a new rich text out six to ten times (a trial width,
the widest word, one long line, each then undone), a millisecond a label on every new task.
See docs/architecture.md ("A view reads it like this").
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QSize, Qt
from PySide6.QtWidgets import QLabel, QWidget

#: Heights kept for this many widths (a window being resized asks about many).
KEPT_WIDTHS = 8
#: A wrapped label's preferred width, in average characters (QLabel's own, for plain text).
HINT_CHARS = 80
#: Its least width, in average characters: narrower than its widest word, the label clips
#: that word, where QLabel's hint would make one long word in a task's title (a commit hash,
#: a URL) the window's least width.
MIN_CHARS = 12


class WrappedLabel(QLabel):
    """A :class:`QLabel` with word wrap on whose height for a width is computed once per text."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._heights: dict[int, int] = {}
        self._hints: tuple[QSize, QSize] | None = None
        self.setWordWrap(True)

    def _forget(self) -> None:
        self._heights.clear()
        self._hints = None

    def setText(self, text: str) -> None:
        if text != self.text():
            self._forget()
            super().setText(text)

    def clear(self) -> None:
        self._forget()
        super().clear()

    # What else changes the height for a width: the heights are asked again.
    def setTextFormat(self, text_format: Qt.TextFormat) -> None:
        self._forget()
        super().setTextFormat(text_format)

    def setWordWrap(self, on: bool) -> None:
        self._forget()
        super().setWordWrap(on)

    def setIndent(self, indent: int) -> None:
        self._forget()
        super().setIndent(indent)

    def setMargin(self, margin: int) -> None:
        self._forget()
        super().setMargin(margin)

    def heightForWidth(self, width: int) -> int:
        height = self._heights.get(width)
        if height is None:
            if len(self._heights) >= KEPT_WIDTHS:
                self._heights.clear()
            height = self._heights[width] = super().heightForWidth(width)
        return height

    def sizeHint(self) -> QSize:
        if not self.wordWrap() or not self.text():
            return super().sizeHint()
        return QSize(self._size_hints()[0])

    def minimumSizeHint(self) -> QSize:
        if not self.wordWrap() or not self.text():
            return super().minimumSizeHint()
        return QSize(self._size_hints()[1])

    def _size_hints(self) -> tuple[QSize, QSize]:
        """(preferred, least): HINT_CHARS wide at its height there; MIN_CHARS wide, a line high."""
        if self._hints is None:
            metrics = self.fontMetrics()
            margins = self.contentsMargins()
            frame = 2 * (self.margin() + self.frameWidth())
            extra = margins.left() + margins.right() + frame + max(self.indent(), 0)
            width = min(metrics.averageCharWidth() * HINT_CHARS + extra, self.maximumWidth())
            height = self.heightForWidth(width)
            least = QSize(
                min(width, metrics.averageCharWidth() * MIN_CHARS + extra),
                min(height, metrics.lineSpacing() + margins.top() + margins.bottom() + frame),
            )
            self._hints = (QSize(width, height), least)
        return self._hints

    def changeEvent(self, event: QEvent) -> None:
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange, QEvent.Type.LayoutDirectionChange):
            self._forget()
        super().changeEvent(event)
