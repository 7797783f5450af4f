"""Opening projects in the window: the folder and task asked for, a failed open and its retry, the recent list.

Reopening at start: docs/security.md (The window).  See docs/gui.md.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QDropEvent
from PySide6.QtWidgets import QMenu, QWidget

from ctxviewer.engine.project.loading import Project
from ctxviewer.gui.views.problems import ProblemPanel
from ctxviewer.gui.window.lanes import Lanes
from ctxviewer.gui.window.menus import fill_recent
from ctxviewer.gui.window.persistence import WindowSettings
from ctxviewer.gui.window.project import ProjectOpener, ask_project_folder, first_target
from ctxviewer.gui.window.status import StatusLine

Startup = tuple[dict[str, Any], bool]


class Opening(QObject):
    """Opens folders through *opener* for *window*; remembers them in *store*.

    :attr:`wanted` is the (feature, task) the last open asked for; :attr:`startup` what to do
    once its first task is shown (``--set`` values to tune, whether to pin it), until
    :meth:`run_startup` does it.  A folder dropped on the window is opened.
    """

    def __init__(
        self,
        window: QWidget,
        opener: ProjectOpener,
        store: WindowSettings,
        lanes: Lanes,
        problems: ProblemPanel,
        status: StatusLine,
    ) -> None:
        super().__init__(window)
        self.window = window
        self.opener = opener
        self.store = store
        self.lanes = lanes
        self.problems = problems
        self.status = status
        self.wanted: tuple[str | None, str | None] = (None, None)
        self.startup: Startup = ({}, False)
        self.recent_menu: QMenu | None = None
        opener.failed.connect(self._on_failed)
        window.setAcceptDrops(True)
        window.installEventFilter(self)

    def open(
        self,
        path: str | Path,
        feature: str | None = None,
        task: str | None = None,
        *,
        tune: dict[str, Any] | None = None,
        compare: bool = False,
    ) -> None:
        """Load *path* off the GUI thread; then *feature*/*task* is shown (or the last or first).

        Once the first task is shown, *compare* pins it as the what-if baseline and *tune*
        (flat settings, as ``--set``) is applied in the budget panel.
        """
        folder = str(Path(path).expanduser())
        self.problems.dismiss()  # notices were about what came before
        self.wanted = (feature, task)
        self.startup = (dict(tune or {}), compare)
        self.lanes.run.cancel()
        self.lanes.batch.cancel()
        self.status.say(f"Opening {folder}\u2026")
        self.store.begin_open(folder)
        self.opener.open(folder)

    def reopen_last(self, feature: str | None = None, task: str | None = None, **startup: Any) -> bool:
        """Reopen the last project, as a bare ``ctxviewer`` does -- unless its last open never finished.

        When the folder opened last time never got its first task on screen (the window
        crashed on it, or was closed while opening), it is not opened again by itself: a
        project that crashes the window would otherwise crash every later start.  The
        window starts empty and offers to open it.  True when a project is being opened.
        *feature*, *task* and *startup* (``tune``, ``compare``) go to :meth:`open`.
        """
        folder = self.store.unfinished_open()
        if folder:
            self.problems.add_notice(
                f"ctxviewer did not finish opening {folder} last time (it crashed or was closed before the "
                "first task was shown), so it was not reopened"
            )
            self.problems.offer("Open It Anyway", lambda: self.open(folder, feature, task, **startup))
            self.status.say(f"Not reopened: {folder}")
            return False
        last = self.store.last_project()
        if last and Path(last).is_dir():
            self.open(last, feature, task, **startup)
            return True
        return False

    def ask(self) -> None:
        """Ask for a folder to open."""
        folder = ask_project_folder(self.window, self.opener.project)
        if folder:
            self.open(folder)

    def refresh(self) -> None:
        """Bring the project up to date with the disk (a folder that failed to open: try it again)."""
        if self.opener.failed_folder:
            self.open(self.opener.failed_folder, *self.wanted)
        else:
            self.opener.refresh()

    def first_target(self, project: Project) -> tuple[str, str] | None:
        """The task to show now that *project* is open (a notice says when the one asked for is not there)."""
        target, notice = first_target(project, self.wanted, self.store.last_task(project.root))
        if notice:
            self.problems.add_notice(notice)
        return target

    def run_startup(self, pin: Callable[[], object], tune: Callable[[dict[str, Any]], object]) -> None:
        """The first task of an open is shown: *pin* it and *tune* the ``--set`` values, if asked."""
        values, compare = self.startup
        self.startup = ({}, False)
        if compare:
            pin()
        if values:
            tune(values)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """A folder dragged onto the window is opened when dropped."""
        if watched is self.window and event.type() in (QEvent.Type.DragEnter, QEvent.Type.Drop):
            urls = cast(QDropEvent, event).mimeData().urls()
            folder = urls[0].toLocalFile() if urls and urls[0].isLocalFile() else ""
            if folder and Path(folder).is_dir():
                if event.type() == QEvent.Type.Drop:
                    self.open(folder)
                cast(QDropEvent, event).acceptProposedAction()
                return True
        return super().eventFilter(watched, event)

    def remember(self, folder: str) -> None:
        """Put *folder* first in the recent projects (and in Open Recent)."""
        self.store.remember_project(folder)
        self.fill_recent()

    def fill_recent(self, menu: QMenu | None = None) -> None:
        """Fill Open Recent (*menu*, from then on) with the recent projects."""
        self.recent_menu = menu or self.recent_menu
        if self.recent_menu is not None:
            fill_recent(self.recent_menu, self.store.recent_projects(), self.open)

    def _on_failed(self, folder: str, message: str) -> None:
        self.problems.add_notice(
            f"could not open {folder}: {message} \u2014 fix it and the window tries again when the file "
            "changes (or press F5)"
        )
        self.status.say("Open failed", 5000)
        self.store.finish_open()
        if folder and Path(folder).is_dir():
            self.remember(folder)  # (and the opener watches it for the fix)
