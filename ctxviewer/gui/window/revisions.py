"""The Compare Revisions window (the task shown assembled at two git revisions) and the Find the
Commit window (the commits of a range that changed it), whose rows open the first.

See docs/revision-diff.md and docs/bisect.md.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QWidget

from ctxviewer.gui.views.bisect_view import BisectDialog
from ctxviewer.gui.views.revision_view import RevisionDiffDialog
from ctxviewer.gui.window.state import Shown
from ctxviewer.gui.window.status import StatusLine
from ctxviewer.gui.worker import Lane


class RevisionLauncher(QObject):
    """The revision diff window (:attr:`dialog`, None until asked for), run on *lane*, and the Find
    the Commit window (:attr:`bisect_dialog`), run on *bisect_lane*."""

    def __init__(self, lane: Lane, shown: Shown, status: StatusLine, window: QWidget, bisect_lane: Lane) -> None:
        super().__init__(window)
        self.window = window
        self.lane = lane
        self.bisect_lane = bisect_lane
        self.shown = shown
        self.status = status
        self.dialog: RevisionDiffDialog | None = None
        self.bisect_dialog: BisectDialog | None = None

    def commands(self) -> dict[str, Callable[[], object]]:
        """The Run menu's commands on the task shown, by action id."""
        return {"run.revisions": self.show, "run.bisect": self.show_bisect}

    def show(self) -> None:
        """Open (or raise) the window on the task shown."""
        project, current = self.shown.project, self.shown.current
        if project is None or current is None:
            self.status.say("Open a project and choose a task to compare its revisions", 4000)
            return
        dialog = self._revision_dialog()
        dialog.set_target(project.root, *current)
        dialog.show()
        dialog.activateWindow()

    def _revision_dialog(self) -> RevisionDiffDialog:
        if self.dialog is None:
            self.dialog = RevisionDiffDialog(self.lane, self.window)
        return self.dialog

    def show_bisect(self) -> None:
        """Open (or raise) Find the Commit on the task shown."""
        project, current = self.shown.project, self.shown.current
        if project is None or current is None:
            self.status.say("Open a project and choose a task to find the commit that changed it", 4000)
            return
        if self.bisect_dialog is None:
            self.bisect_dialog = BisectDialog(self.bisect_lane, self.window)
            self.bisect_dialog.compareRequested.connect(self.compare)
        self.bisect_dialog.set_target(project.root, *current)
        self.bisect_dialog.show()
        self.bisect_dialog.activateWindow()

    def compare(self, project: Path, feature: str, task_id: str, a: str, b: str) -> None:
        """Open Compare Revisions on *task_id* between commits *a* and *b*, and run it."""
        dialog = self._revision_dialog()
        dialog.compare_commits(project, feature, task_id, a, b)
        dialog.show()
        dialog.activateWindow()
