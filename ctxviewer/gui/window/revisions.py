"""The Compare Revisions window: the task shown assembled at two git revisions.

See docs/revision-diff.md.
"""

from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QWidget

from ctxviewer.gui.views.revision_view import RevisionDiffDialog
from ctxviewer.gui.window.state import Shown
from ctxviewer.gui.window.status import StatusLine
from ctxviewer.gui.worker import Lane


class RevisionLauncher(QObject):
    """The revision diff window (:attr:`dialog`, None until asked for), run on *lane*."""

    def __init__(self, lane: Lane, shown: Shown, status: StatusLine, window: QWidget) -> None:
        super().__init__(window)
        self.window = window
        self.lane = lane
        self.shown = shown
        self.status = status
        self.dialog: RevisionDiffDialog | None = None

    def show(self) -> None:
        """Open (or raise) the window on the task shown."""
        project, current = self.shown.project, self.shown.current
        if project is None or current is None:
            self.status.say("Open a project and choose a task to compare its revisions", 4000)
            return
        if self.dialog is None:
            self.dialog = RevisionDiffDialog(self.lane, self.window)
        self.dialog.set_target(project.root, *current)
        self.dialog.show()
        self.dialog.activateWindow()
