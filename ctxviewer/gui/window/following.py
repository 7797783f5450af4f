"""Following what workers do: an event log or a real run in the Session panel, worker logs in theirs.

See docs/gui.md (Session, Worker logs) and docs/run-files.md.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QMainWindow

from ctxviewer.engine.errors import CtxViewerError
from ctxviewer.gui.views.logview import ask_worker_logs
from ctxviewer.gui.views.problems import ProblemPanel
from ctxviewer.gui.window.docks import DockPanels
from ctxviewer.gui.window.session import SessionFeeds, ask_log_path, ask_run_path, is_run_path
from ctxviewer.gui.window.state import Shown
from ctxviewer.gui.window.status import StatusLine

StrPath = str | Path


class Following(QObject):
    """Attaching the Session panel of *docks* to a log or a run, detaching it, and opening worker logs.

    :attr:`following` says when the panel starts or stops following (the Detach action).
    """

    following = Signal(bool)

    def __init__(
        self,
        window: QMainWindow,
        shown: Shown,
        docks: DockPanels,
        replays: SessionFeeds,
        problems: ProblemPanel,
        status: StatusLine,
    ) -> None:
        super().__init__(window)
        self.window = window
        self.shown = shown
        self.docks = docks
        self.replays = replays
        self.problems = problems
        self.status = status

    def follow_log(self, path: StrPath) -> None:
        """Follow a worker's JSON-lines event log in the Session panel (a real run's folder or file: its fleet)."""
        if is_run_path(path):
            self.follow_run(path)
            return
        if self.shown.project is not None:
            self.replays.apply_live_limits(self.shown.run_settings())
        self.docks.session.follow_log(path)
        self.following.emit(True)
        self.docks.session_dock.show()
        self.docks.session_dock.raise_()
        self.status.say(f"Following {path}", 5000)

    def follow_run(self, path: StrPath) -> None:
        """Show the real run at *path* (a project or run folder, or one of its files) in the Session panel."""
        try:
            self.docks.session.follow_run(path)
        except CtxViewerError as exc:
            self.problems.show_messages([f"attach to run: {exc}"], [])
            return
        self.following.emit(True)
        dock = self.docks.session_dock
        dock.show()
        dock.raise_()
        self.window.resizeDocks([dock], [max(420, self.window.width() * 2 // 5)], Qt.Orientation.Horizontal)
        self.status.say(f"Attached to the run in {path}", 5000)

    def commands(self) -> dict[str, Callable[[], object]]:
        """The File menu's commands for following a log or a run, by action id."""
        return {
            "file.attach_run": self.ask_run,
            "file.attach_log": self.ask_log,
            "file.detach": self.stop,
            "file.worker_logs": self.ask_logs,
        }

    def stop(self) -> None:
        self.docks.session.stop_following()
        self.following.emit(False)

    def ask_log(self) -> None:
        """Ask for an event log to follow."""
        path = ask_log_path(self.window, self.shown.project)
        if path:
            self.follow_log(path)

    def ask_run(self) -> None:
        """Ask for a run's folder to attach to."""
        path = ask_run_path(self.window, self.shown.project)
        if path:
            self.follow_run(path)

    def open_logs(self, path: StrPath) -> None:
        """Show the worker logs found from *path* (a project, an upstream folder, a log) in the Worker logs panel."""
        self.docks.logs.open_path(path)
        self.docks.show_logs()

    def ask_logs(self) -> None:
        """Ask for worker logs to open."""
        project = self.shown.project
        path = ask_worker_logs(self.window, project.root if project is not None else None)
        if path:
            self.open_logs(path)
