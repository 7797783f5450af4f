"""Where the window opens and how its room is shared: the layout the user left, or a first one fitted to the screen.

See docs/gui.md (The window's layout).
"""

from __future__ import annotations

from PySide6.QtCore import QByteArray, QEvent, QObject, QRect, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QMainWindow, QSplitter, QStyle, QWidget

from ctxviewer.gui.widgets.splitters import mark_user_sized, track_user_sizes
from ctxviewer.gui.window.docks import DockPanels
from ctxviewer.gui.window.persistence import WindowSettings

#: The first launch's size where the screen has room for it (else the screen's available area).
FIRST_SIZE = QSize(1280, 800)
#: On a larger screen the first launch takes this share of the available area.
SCREEN_SHARE = 0.9
#: The Project pane's first width: task ids, titles and totals without dragging.
PROJECT_WIDTH = 260
#: The right-hand panels' first width (the Budget panel's sliders and values).
PANELS_WIDTH = 340


def first_geometry(available: QRect, frame: QSize | None = None) -> QRect:
    """The window's first client geometry on a screen whose free area is *available*.

    At least :data:`FIRST_SIZE` where the screen allows, else the whole available area; on a
    larger screen :data:`SCREEN_SHARE` of it; centred.  *frame* is what the window manager
    adds around the client area (title bar and borders): the frame stays inside *available*.
    """
    frame = frame or QSize(0, 0)
    room = QSize(max(1, available.width() - frame.width()), max(1, available.height() - frame.height()))
    wanted = QSize(
        max(FIRST_SIZE.width(), int(available.width() * SCREEN_SHARE)),
        max(FIRST_SIZE.height(), int(available.height() * SCREEN_SHARE)),
    )
    size = wanted.boundedTo(room)
    outer = QStyle.alignedRect(Qt.LayoutDirection.LeftToRight, Qt.AlignmentFlag.AlignCenter, size + frame, available)
    border = frame.width() // 2
    return QRect(outer.left() + border, outer.top() + frame.height() - border, size.width(), size.height())


def fits(frame: QRect, available: QRect) -> bool:
    """Whether a window whose frame is *frame* is usable on a screen whose free area is *available*:
    no larger than it and mostly on it (a saved layout from a larger or another screen is not)."""
    if frame.isEmpty():
        return False
    if frame.width() > available.width() + 8 or frame.height() > available.height() + 8:
        return False
    seen = frame.intersected(available)
    return seen.width() * seen.height() >= 0.8 * frame.width() * frame.height()


def splitter_key(splitter: QSplitter, top: QWidget) -> str:
    """A name for *splitter* that is the same in every session: its path of class names and
    positions among same-class siblings from *top*."""
    parts: list[str] = []
    widget: QObject | None = splitter
    while widget is not None and widget is not top:
        parent = widget.parent()
        if parent is None:
            break
        siblings = [c for c in parent.children() if type(c) is type(widget)]
        parts.append(f"{type(widget).__name__}{siblings.index(widget)}")
        widget = parent
    return ".".join(reversed(parts))


class Placement(QObject):
    """Places *window* when it is first shown: the geometry, docks and splitters *store* kept,
    when they are readable and fit the screen; otherwise a first layout (:func:`first_geometry`,
    the Project pane :data:`PROJECT_WIDTH` wide, the panels :data:`PANELS_WIDTH`).

    A window given a size before it is shown (``--screenshot``, tests) keeps that size.
    :meth:`save` keeps the layout for the next launch; :meth:`reset` is View > Reset Layout.
    :attr:`placed` is emitted once the layout is in place.
    """

    placed = Signal()

    def __init__(self, window: QMainWindow, store: WindowSettings, docks: DockPanels) -> None:
        super().__init__(window)
        self.window = window
        self.store = store
        self.docks = docks
        #: The dock layout as built, before anything was restored: what Reset Layout goes back to.
        self._built: QByteArray | None = None
        window.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.window and event.type() == QEvent.Type.Show and self._built is None:
            self._place()
        return super().eventFilter(watched, event)

    def _splitters(self) -> dict[str, QSplitter]:
        return {splitter_key(s, self.window): s for s in self.window.findChildren(QSplitter)}

    def _available(self) -> QRect:
        screen = self.window.screen() or QGuiApplication.primaryScreen()
        return screen.availableGeometry()

    def _place(self) -> None:
        self._built = self.window.saveState()
        splitters = self._splitters()
        for splitter in splitters.values():
            track_user_sizes(splitter)
        # Qt's restoreGeometry squeezes a window saved on another screen onto this one, guessing a
        # frame: the frame saved beside it decides instead whether the saved layout still fits.
        frame, maximised = self.store.saved_frame()
        restored = (maximised or fits(frame, self._available())) and self.store.restore_window(self.window)
        if restored:
            if maximised:  # on the screen it opens on now (and where no window manager maximises)
                self._fit_to_screen()
            for key, state in self.store.splitter_states().items():
                saved = splitters.get(key)
                if saved is not None and saved.restoreState(state):
                    mark_user_sized(saved)
            self.placed.emit()
            return
        if not self.window.testAttribute(Qt.WidgetAttribute.WA_Resized) or self.store.saved_geometry() is not None:
            self._fit_to_screen()
        # The docks take their widths once the window has its size.
        QTimer.singleShot(0, self._size_docks)

    def _fit_to_screen(self) -> None:
        window, available = self.window, self._available()
        frame = window.frameGeometry().size() - window.geometry().size()
        geometry = first_geometry(available, frame)
        window.setGeometry(geometry)
        if (
            geometry.width() + frame.width() < available.width()
            and geometry.height() + frame.height() < available.height()
        ):
            return  # the screen has room to spare: the window keeps its share of it
        self._maximise()

    def _maximise(self) -> None:
        # A screen no larger than the first size: the window takes all of it.  Maximised, a
        # window manager fits its own frame (not known before the window is first framed).
        self.window.setWindowState(self.window.windowState() | Qt.WindowState.WindowMaximized)

    def _size_docks(self) -> None:
        docks = self.docks
        self.window.resizeDocks(
            [docks.outline_dock, docks.budget_dock], [PROJECT_WIDTH, PANELS_WIDTH], Qt.Orientation.Horizontal
        )
        QTimer.singleShot(0, self.placed.emit)  # once the docks are laid out at those widths

    def save(self) -> None:
        """Keep the window's geometry, docks and the splitters the user moved for the next launch."""
        self.store.save_window(self.window)
        self.store.set_splitter_states(
            {key: s.saveState() for key, s in self._splitters().items() if s.property("userSized")}
        )

    def reset(self) -> None:
        """View > Reset Layout: the first launch's layout, and splitters back to what the views choose."""
        if self._built is not None:
            self.window.restoreState(self._built)
        self.store.forget_window()
        for splitter in self._splitters().values():
            splitter.setProperty("userSized", False)
        self.window.showNormal()
        self._fit_to_screen()
        QTimer.singleShot(0, self._size_docks)
