"""The window's docked panels (outline, Budget, Tracker, Session, Window, search, worker logs) and their layout.

The window wires the panels' signals; the docks only place them and bring one to the front.
See docs/gui.md.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QDockWidget, QFrame, QMainWindow, QScrollArea, QWidget

from ctxviewer.engine.trace.model import Trace
from ctxviewer.gui.views.budget import BudgetPanel
from ctxviewer.gui.views.logview import LogView
from ctxviewer.gui.views.outline import ProjectOutline
from ctxviewer.gui.views.search_panel import SearchPanel
from ctxviewer.gui.views.session import SessionPanel
from ctxviewer.gui.views.tracker_panel import TrackerPanel
from ctxviewer.gui.views.window_view import WindowLayoutTab
from ctxviewer.gui.widgets.insight import WhenInSight


def search_dock_height(window_height: int) -> int:
    """The results panel's height when it opens: 40% of the window, at least 240 pixels."""
    return max(240, int(window_height * 0.4))


class DockPanels:
    """The panels docked around *window*'s tabs.

    The Tracker and Window panels show a trace when in sight (:meth:`show_trace`): reading
    :attr:`tracker` or :attr:`window_view` gives them the shown trace first.
    """

    def __init__(self, window: QMainWindow) -> None:
        self.window = window
        self.outline = ProjectOutline(window)
        self._tracker = TrackerPanel(window)
        self.search = SearchPanel(window)
        self.budget = BudgetPanel(window)
        self.budget.setEnabled(False)  # until a project is open: its settings are the base
        self.outline_dock = self._dock("Project", self.outline, Qt.DockWidgetArea.LeftDockWidgetArea)
        # In a scroll area: with the upstream switches the panel is taller than what is left
        # of 800 pixels when the results panel opens below; it scrolls rather than squeeze it.
        scroller = QScrollArea(window)
        scroller.setObjectName("budgetScroller")
        scroller.setWidget(self.budget)
        scroller.setWidgetResizable(True)
        scroller.setFrameShape(QFrame.Shape.NoFrame)
        scroller.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        # as wide as the panel needs (the dock sized itself by the panel before it scrolled)
        scroller.setMinimumWidth(
            self.budget.minimumSizeHint().width() + scroller.verticalScrollBar().sizeHint().width()
        )
        self.budget_dock = self._dock("Budget", scroller, Qt.DockWidgetArea.RightDockWidgetArea)
        self.tracker_dock = self._dock("Tracker", self._tracker, Qt.DockWidgetArea.RightDockWidgetArea)
        self.session = SessionPanel(window)
        self.session_dock = self._dock("Session", self.session, Qt.DockWidgetArea.RightDockWidgetArea)
        window.tabifyDockWidget(self.budget_dock, self.tracker_dock)
        self._window_view = WindowLayoutTab(window)  # in the keyboard's order, after the panels tabbed before it
        self.window_dock = self._dock("Window", self._window_view, Qt.DockWidgetArea.RightDockWidgetArea)
        self.window_dock.setToolTip(
            "The worker's whole context window: base prompt, command, this context, the conversation and "
            "the response reserve, against the checkpoint and compaction thresholds"
        )
        window.tabifyDockWidget(self.tracker_dock, self.session_dock)
        window.tabifyDockWidget(self.session_dock, self.window_dock)
        self.budget_dock.raise_()
        self._tracker_fill = WhenInSight(self.tracker_dock)
        self._window_fill = WhenInSight(self.window_dock)
        self.search_dock = self._dock("Why was it dropped?", self.search, Qt.DockWidgetArea.BottomDockWidgetArea)
        self.search_dock.hide()
        # The logs take the window's whole width (seven columns), hidden until asked for.
        self.logs = LogView(window)
        self.logs_dock = self._dock("Worker logs", self.logs, Qt.DockWidgetArea.BottomDockWidgetArea)
        window.tabifyDockWidget(self.search_dock, self.logs_dock)
        # At 1280x800 the right-hand panels leave a bottom dock about 200 pixels: this one may float.
        self.logs_dock.setFeatures(self.logs_dock.features() | QDockWidget.DockWidgetFeature.DockWidgetFloatable)
        self.logs_dock.hide()
        self.search.field.textChanged.connect(self._on_search_text)
        toolbar = window.addToolBar("Search")
        toolbar.setObjectName("searchToolbar")
        toolbar.setMovable(False)
        self.search.field.setMinimumWidth(420)
        toolbar.addWidget(self.search.field)

    @property
    def tracker(self) -> TrackerPanel:
        """The Tracker panel, showing the trace last shown."""
        self._tracker_fill.flush()
        return self._tracker

    @property
    def window_view(self) -> WindowLayoutTab:
        """The Window panel's view, showing the trace last shown."""
        self._window_fill.flush()
        return self._window_view

    def show_trace(self, trace: Trace) -> None:
        """Show *trace* in the Tracker and Window panels: now in a panel in sight, else when it
        comes into sight (its tab raised, the panel opened) or is read."""
        self._tracker_fill.owe(lambda: self._tracker.set_trace(trace))
        self._window_fill.owe(lambda: self._window_view.set_trace(trace))

    def _dock(self, title: str, widget: QWidget, area: Qt.DockWidgetArea) -> QDockWidget:
        dock = QDockWidget(title, self.window)
        dock.setObjectName(title)
        dock.setWidget(widget)
        dock.setFeatures(
            QDockWidget.DockWidgetFeature.DockWidgetMovable | QDockWidget.DockWidgetFeature.DockWidgetClosable
        )
        self.window.addDockWidget(area, dock)
        return dock

    def toggle_actions(self) -> dict[str, QAction]:
        """The View menu's show/hide action of each panel, by its id in the action table."""
        return {
            "view.panel.outline": self.outline_dock.toggleViewAction(),
            "view.panel.budget": self.budget_dock.toggleViewAction(),
            "view.panel.tracker": self.tracker_dock.toggleViewAction(),
            "view.panel.session": self.session_dock.toggleViewAction(),
            "view.panel.window": self.window_dock.toggleViewAction(),
            "view.panel.search": self.search_dock.toggleViewAction(),
            "view.panel.logs": self.logs_dock.toggleViewAction(),
        }

    def show_panel(self, name: str) -> None:
        """Bring a right-hand panel to the front: ``budget``, ``tracker``, ``session`` or ``window``."""
        dock = {
            "budget": self.budget_dock,
            "tracker": self.tracker_dock,
            "session": self.session_dock,
            "window": self.window_dock,
        }[name]
        dock.show()
        dock.raise_()

    def show_logs(self) -> None:
        """Bring the worker logs to the front, as tall as the panels above allow when they were hidden."""
        hidden = not self.logs_dock.isVisible()
        self.logs_dock.show()
        self.logs_dock.raise_()
        if hidden:
            # Once the dock is laid out (a size given before that does not hold): half the window
            # asked, which the right-hand panels' minimum height cuts to about 200 pixels at 800.
            QTimer.singleShot(0, self.window, self._size_logs)

    def _size_logs(self) -> None:
        self.window.resizeDocks([self.logs_dock], [self.window.height() // 2], Qt.Orientation.Vertical)

    def focus_search(self) -> None:
        self.search.field.setFocus()
        self.search.field.selectAll()

    def focus_outline(self) -> None:
        self.outline_dock.show()
        self.outline.filter.setFocus()

    def _on_search_text(self, text: str) -> None:
        # The results panel appears with the first query; closing it is the user's call.
        if text.strip() and not self.search_dock.isVisible():
            self.search_dock.show()
            # Tall enough for the summary, the filter bar and a dozen rows (it opened two rows
            # tall: the size given while hidden does not hold).
            self.window.resizeDocks(
                [self.search_dock], [search_dock_height(self.window.height())], Qt.Orientation.Vertical
            )

    def stop(self) -> None:
        """The window closes: stop following a run, tailing logs and playing a replay; drop pending changes' timers."""
        self.session.stop_following()
        self.logs.stop()
        self.session.player.pause()
        self.budget.stop()
