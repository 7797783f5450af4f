"""What the window keeps between sessions, and the only place that knows its ``QSettings`` keys.

Recent projects, the last task per project, the folder being opened, the export folder,
the window's geometry.  See docs/security.md (The window).
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QMainWindow

MAX_RECENT = 10
#: Settings key holding the folder being opened until its first task is on screen.  Still set
#: at the next start, it means that open never finished (the window crashed or was closed on
#: it), so a bare ``ctxviewer`` does not reopen it by itself (see ``Opening.reopen_last``).
OPENING_KEY = "opening-project"


class WindowSettings:
    """The window's keys in *store* (the user's settings, or a throwaway file in tests)."""

    def __init__(self, store: QSettings) -> None:
        self.store = store

    # -- the open in progress ----------------------------------------------------------------

    def begin_open(self, folder: str) -> None:
        """Note that *folder* is being opened, on disk at once: a crash while opening must not lose it."""
        self.store.setValue(OPENING_KEY, folder)
        self.store.sync()

    def finish_open(self) -> None:
        """The open in progress got as far as it goes (a task shown, no task, or an error shown)."""
        if self.store.contains(OPENING_KEY):
            self.store.remove(OPENING_KEY)
            self.store.sync()

    def unfinished_open(self) -> str:
        """The folder whose open never finished last time, or ``""``."""
        value = self.store.value(OPENING_KEY)
        return str(value) if value else ""

    # -- projects and tasks ------------------------------------------------------------------

    def remember_project(self, path: str) -> None:
        """Put *path* first in the recent projects (at most MAX_RECENT) and make it the last project."""
        recent = [p for p in self.recent_projects() if p != path]
        recent.insert(0, path)
        self.store.setValue("recent", recent[:MAX_RECENT])
        self.store.setValue("last-project", path)

    def recent_projects(self) -> list[str]:
        """The recent project folders, the latest first."""
        value = self.store.value("recent", [])
        if isinstance(value, str):  # an INI file gives a one-item list back as a string
            return [value]
        return [str(v) for v in value] if isinstance(value, list | tuple) else []

    def last_project(self) -> str:
        """The folder opened last, or ``""`` (it may have gone since)."""
        value = self.store.value("last-project")
        return str(value) if value else ""

    def last_task(self, root: str | Path) -> tuple[str, str] | None:
        """The (feature, task) shown last in the project at *root*, if one was."""
        value = self.store.value(f"last-task/{root}")
        if isinstance(value, str) and "\n" in value:
            feature, task = value.split("\n", 1)
            return feature, task
        return None

    def set_last_task(self, root: str | Path, feature: str, task: str) -> None:
        self.store.setValue(f"last-task/{root}", f"{feature}\n{task}")

    # -- exports and the window --------------------------------------------------------------

    def export_dir(self) -> str:
        """The folder the last export went to (the home folder before the first)."""
        return str(self.store.value("export-dir", str(Path.home())))

    def set_export_dir(self, folder: str) -> None:
        self.store.setValue("export-dir", folder)

    def restore_window(self, window: QMainWindow) -> None:
        """Give *window* the geometry and dock layout it was closed with."""
        geometry = self.store.value("geometry")
        if geometry is not None:
            window.restoreGeometry(geometry)
        state = self.store.value("window-state")
        if state is not None:
            window.restoreState(state)

    def save_window(self, window: QMainWindow) -> None:
        self.store.setValue("geometry", window.saveGeometry())
        self.store.setValue("window-state", window.saveState())
