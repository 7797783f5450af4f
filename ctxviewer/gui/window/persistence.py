"""What the window keeps between sessions, and the only place that knows its ``QSettings`` keys.

Recent projects, the last task per project, the folder being opened, the export folder,
the window's geometry.  See docs/security.md (The window).
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QByteArray, QRect, QSettings, Qt, QTimer
from PySide6.QtWidgets import QMainWindow

MAX_RECENT = 10
#: Settings key holding the folder being opened until its first task is on screen.  Still set
#: at the next start, it means that open never finished (the window crashed or was closed on
#: it), so a bare ``ctxviewer`` does not reopen it by itself (see ``Opening.reopen_last``).
OPENING_KEY = "opening-project"


#: The task shown is written to the settings this long after it changes (and when the window
#: closes): each write is the whole file, flushed to disk, on the GUI thread, and arrowing
#: through a feature would write it at every task.
LAST_TASK_DELAY_MS = 2000


class WindowSettings:
    """The window's keys in *store* (the user's settings, or a throwaway file in tests)."""

    def __init__(self, store: QSettings) -> None:
        self.store = store
        #: Last tasks not written yet, by settings key.
        self._due: dict[str, str] = {}
        self._write_timer = QTimer()
        self._write_timer.setSingleShot(True)
        self._write_timer.setInterval(LAST_TASK_DELAY_MS)
        self._write_timer.timeout.connect(self.flush)

    def flush(self) -> None:
        """Write what waits for its time (the last task) now."""
        self._write_timer.stop()
        due, self._due = self._due, {}
        for key, value in due.items():
            self.store.setValue(key, value)

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
        key = f"last-task/{root}"
        value = self._due.get(key, self.store.value(key))
        if isinstance(value, str) and "\n" in value:
            feature, task = value.split("\n", 1)
            return feature, task
        return None

    def set_last_task(self, root: str | Path, feature: str, task: str) -> None:
        """Keep (*feature*, *task*) as the task shown last in the project at *root*: written
        LAST_TASK_DELAY_MS later, unless another replaces it first, or at :meth:`flush`."""
        self._due[f"last-task/{root}"] = f"{feature}\n{task}"
        self._write_timer.start()

    # -- exports and the window --------------------------------------------------------------

    def export_dir(self, first: str) -> str:
        """The folder the last export went to (*first* before the first export)."""
        value = self.store.value("export-dir")
        return str(value) if value else first

    def set_export_dir(self, folder: str) -> None:
        self.store.setValue("export-dir", folder)

    def saved_geometry(self) -> QByteArray | None:
        geometry = self.store.value("geometry")
        return geometry if isinstance(geometry, QByteArray) else None

    def restore_window(self, window: QMainWindow) -> bool:
        """Give *window* the geometry and dock layout it was closed with; False when there was
        none or it could not be read (the window is then as it was)."""
        geometry = self.store.value("geometry")
        if not isinstance(geometry, QByteArray) or not window.restoreGeometry(geometry):
            return False
        state = self.store.value("window-state")
        if isinstance(state, QByteArray):
            window.restoreState(state)  # unreadable, the docks stay as built
        return True

    def save_window(self, window: QMainWindow) -> None:
        self.store.setValue("geometry", window.saveGeometry())
        self.store.setValue("window-state", window.saveState())
        maximised = bool(window.windowState() & Qt.WindowState.WindowMaximized)
        self.store.setValue("frame", window.normalGeometry() if maximised else window.frameGeometry())
        self.store.setValue("maximised", maximised)

    def saved_frame(self) -> tuple[QRect, bool]:
        """The window's frame when it was saved (its normal one if it was maximised) and
        whether it was maximised; an empty rectangle when none was saved or it is unreadable."""
        frame = self.store.value("frame")
        maximised = self.store.value("maximised", False)
        return (
            frame if isinstance(frame, QRect) else QRect(),
            maximised is True or maximised == "true",
        )

    def splitter_states(self) -> dict[str, QByteArray]:
        """The splitters the user sized, by their names (see ``placement.splitter_key``)."""
        self.store.beginGroup("splitters")
        try:
            return {key: v for key in self.store.childKeys() if isinstance(v := self.store.value(key), QByteArray)}
        finally:
            self.store.endGroup()

    def set_splitter_states(self, states: dict[str, QByteArray]) -> None:
        self.store.remove("splitters")
        for key, state in states.items():
            self.store.setValue(f"splitters/{key}", state)

    def forget_window(self) -> None:
        """Reset Layout: the next launch opens as the first did."""
        for key in ("geometry", "window-state", "frame", "maximised", "splitters"):
            self.store.remove(key)
