"""The Feature Sweep window on the shown feature, in a window of its own (it needs more width than a dock).

See docs/sweeps.md.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QWidget

from ctxviewer.engine.project.loading import Project
from ctxviewer.gui.views.sweep_view import SweepDialog
from ctxviewer.gui.window.state import Shown
from ctxviewer.gui.worker import Lane


class SweepLauncher(QObject):
    """The sweep's window, run on *lane*, on what *shown* shows (see the module docstring)."""

    openRequested = Signal(str, str, object)  # feature, task, settings to apply

    def __init__(self, lane: Lane, shown: Shown, window: QWidget) -> None:
        super().__init__(window)
        self.window = window
        self.lane = lane
        self.shown = shown
        self.dialog: SweepDialog | None = None

    def show(self) -> SweepDialog:
        """Open (or raise) the sweep window on the open project and the feature shown."""
        if self.dialog is None:
            self.dialog = SweepDialog(self.lane, self.window)
            self.dialog.view.openRequested.connect(self.openRequested)
        project, current = self.shown.project, self.shown.current
        if project is not None:
            self.dialog.view.set_target(project, current[0] if current else None, self.shown.run_settings)
        self.dialog.show()
        self.dialog.activateWindow()
        return self.dialog

    def retarget(self, project: Project) -> None:
        """*project* was (re)loaded: an open sweep window follows it."""
        if self.dialog is not None:
            self.dialog.view.set_target(project, None, self.shown.run_settings)
