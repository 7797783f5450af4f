"""The Feature Sweep window: made the first time the Run menu asks for it, kept on its own lane.

:class:`SweepLauncher` owns the sweep's :class:`~ctxviewer.gui.worker.Lane` and the
:class:`~ctxviewer.gui.views.sweep_view.SweepDialog`; :meth:`~SweepLauncher.show` points it
at the open project, the feature shown and a function giving the settings in force, and
passes on the view's request to open a task at a cell's settings (:attr:`openRequested`).
A non-modal window rather than a dock: a heatmap of a feature's tasks by 29 budgets needs
more width than the right-hand docks have at 1280 x 800, and stays open beside the window
while the cells it opens are inspected.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QThreadPool, Signal
from PySide6.QtWidgets import QWidget

from ctxviewer.engine.project.loading import Project
from ctxviewer.engine.project.settings import Settings
from ctxviewer.gui.views.sweep_view import SweepDialog
from ctxviewer.gui.worker import Lane


class SweepLauncher(QObject):
    """The sweep's lane and window (see the module docstring)."""

    openRequested = Signal(str, str, object)  # feature, task, settings to apply

    def __init__(self, pool: QThreadPool, window: QWidget) -> None:
        super().__init__(window)
        self.window = window
        self.lane = Lane(pool, "sweep", self)
        self.dialog: SweepDialog | None = None

    def show(self, project: Project | None, feature: str | None, settings: Callable[[], Settings]) -> SweepDialog:
        """Open (or raise) the sweep window on *project* and *feature*."""
        if self.dialog is None:
            self.dialog = SweepDialog(self.lane, self.window)
            self.dialog.view.openRequested.connect(self.openRequested)
        if project is not None:
            self.dialog.view.set_target(project, feature, settings)
        self.dialog.show()
        self.dialog.activateWindow()
        return self.dialog

    def retarget(self, project: Project, feature: str | None, settings: Callable[[], Settings]) -> None:
        """A project was (re)loaded: an open sweep window follows it."""
        if self.dialog is not None:
            self.dialog.view.set_target(project, feature, settings)
