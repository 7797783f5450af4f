"""A container that passes its content's layout requests on only when its size hints changed.

Qt lays a window out again from the top whenever anything in it asks: a label given a new
text asks its parent's layout, which, laid out, asks its own parent unconditionally ("ideally
only if sizeHint() or sizePolicy() has changed", says Qt's source), up to the main window,
whose layout then measures every dock again.  On each task shown, the header, the notes and
the tabs ask several times, and the main window was laid out about three times a click
(1-1.5 ms each) with nothing in it moving.  Around the central widget, a :class:`LayoutFence`
stops those requests where nothing the main window reads has changed.  See
docs/architecture.md ("A view reads it like this").
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QSize
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QSizePolicy, QWidget

#: What the layout around the fence reads from it, as last passed on.
_Hints = tuple[QSize, QSize, QSize, QSize, QSizePolicy, bool, int]


class LayoutFence(QWidget):
    """Holds *content* at its own size, with no layout of its own, and answers the size hints
    with *content*'s.

    *content*'s layout requests reach the fence as events (a widget without a layout gets them
    so).  The fence lays nothing out for them: it compares what its parent's layout reads
    (size hint, least size hint, explicit least and most sizes, size policy, visibility, the
    height for its width) with what it last passed on, and asks its parent to lay out again
    only when one changed.
    """

    def __init__(self, content: QWidget, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.content = content
        content.setParent(self)
        content.move(0, 0)
        content.show()
        self._passed: _Hints | None = None
        # Shown again while the fence is hidden, it sends the fence no layout request.
        content.installEventFilter(self)
        self._pass_on()

    def _hints(self) -> _Hints:
        c = self.content
        height = c.heightForWidth(self.width()) if c.hasHeightForWidth() else -1
        return (
            c.sizeHint(),
            c.minimumSizeHint(),
            c.minimumSize(),
            c.maximumSize(),
            c.sizePolicy(),
            c.isHidden(),
            height,
        )

    def _pass_on(self) -> None:
        """Take *content*'s hints as the fence's own and ask the parent's layout about them."""
        hints = self._hints()
        if hints == self._passed:
            return
        self._passed = hints
        _hint, _least, least, most, policy, hidden, _height = hints
        # The explicit sizes and the policy are plain properties, not virtual: copied over.
        if self.minimumSize() != least:
            self.setMinimumSize(least)
        if self.maximumSize() != most:
            self.setMaximumSize(most)
        if self.sizePolicy() != policy:
            self.setSizePolicy(policy)
        if self.isHidden() != hidden:
            self.setHidden(hidden)
        self.updateGeometry()

    def sizeHint(self) -> QSize:
        return self.content.sizeHint()

    def minimumSizeHint(self) -> QSize:
        return self.content.minimumSizeHint()

    def hasHeightForWidth(self) -> bool:
        return self.content.hasHeightForWidth()

    def heightForWidth(self, width: int) -> int:
        return self.content.heightForWidth(width)

    def resizeEvent(self, event: QResizeEvent) -> None:
        self.content.setGeometry(self.rect())
        super().resizeEvent(event)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.content and event.type() in (QEvent.Type.ShowToParent, QEvent.Type.HideToParent):
            self._pass_on()
        return False

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.LayoutRequest:
            self._pass_on()
            return True
        return super().event(event)
