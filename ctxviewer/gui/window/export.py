"""Exporting the shown run: the save dialog, the writing on the export lane, the clipboard.

Every file goes through ``ctxviewer.engine.exports.report``, which writes atomically.
See docs/gui.md (Export).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QFileDialog, QWidget

from ctxviewer.engine.analysis.whatif import TraceDiff
from ctxviewer.engine.exports import report
from ctxviewer.engine.trace.model import Trace
from ctxviewer.engine.worker.prompt import WorkerPrompt
from ctxviewer.gui.widgets.plaintext import safe_file_name
from ctxviewer.gui.window.persistence import WindowSettings
from ctxviewer.gui.worker import Lane

#: The save dialog's file filter for each export format.
FILTERS = {
    "markdown": "Markdown (*.md)",
    "json": "JSON (*.json)",
    "html": "HTML (*.html)",
    "whatif-md": "What-if Markdown (*.whatif.md)",
}


def default_export_path(folder: str, task_id: str, fmt: str) -> str:
    """The path the save dialog suggests: *task_id* as one harmless file name, with *fmt*'s
    suffix, in *folder*.  The task id is the project's: '../' in it cannot lead out of the folder."""
    return str(Path(folder) / (safe_file_name(task_id) + report.SUFFIXES[fmt]))


def with_suffix(path: str, fmt: str) -> str:
    """*path* as chosen in the dialog, given *fmt*'s suffix when it has none."""
    return path if Path(path).suffix else path + report.SUFFIXES[fmt]


@dataclass(frozen=True)
class ShownRun:
    """What the window's exports write: the trace shown, its diff against the pinned baseline,
    the worker's prompt composed for it (None until it is) and the smallest changes worked out
    for its left-out candidates (None until they are)."""

    trace: Trace | None
    diff: TraceDiff | None = None
    prompt: WorkerPrompt | None = None
    suggestions: Mapping[str, Mapping[str, Any]] | None = None

    def prompt_json(self) -> Mapping[str, Any] | None:
        """The prompt as the HTML report takes it, if it is the shown task's."""
        if self.prompt is None or self.trace is None or self.prompt.task_id != self.trace.task_id:
            return None
        return self.prompt.to_json()


class Exporter(QObject):
    """Writes traces on *lane*; remembers the folder of the last export in *settings*.

    After each :meth:`export`, :attr:`wrote` (the path) or :attr:`failed` (the error) for
    an export that ran, then :attr:`finished` for every one: the path and ``''``, or the
    reason it failed or was refused.  Given *shown* (what the window shows, when asked), it
    exports that (:meth:`export_shown`, :meth:`ask_and_export`, :meth:`copy_context`);
    :attr:`message` is a status-bar line and how long it shows.
    """

    wrote = Signal(str)
    failed = Signal(str)
    finished = Signal(str, str)  # path, error ('' when it worked)
    message = Signal(str, int)

    def __init__(
        self,
        lane: Lane,
        settings: WindowSettings,
        parent: QWidget,
        shown: Callable[[], ShownRun] = lambda: ShownRun(None),
    ) -> None:
        super().__init__(parent)
        self.lane = lane
        self.settings = settings
        self.shown = shown
        self._parent = parent
        self._path = ""
        lane.finished.connect(self._on_exported)
        lane.errored.connect(self._on_error)

    def ask_path(self, fmt: str, task_id: str) -> str:
        """Ask where to write *task_id*'s *fmt* export; ``''`` when the dialog was cancelled."""
        trace = self.shown().trace
        # Before the first export, the open project's folder (the home folder without one).
        folder = self.settings.export_dir(trace.project if trace is not None else str(Path.home()))
        default = default_export_path(folder, task_id, fmt)
        path, _ = QFileDialog.getSaveFileName(self._parent, "Export", default, FILTERS[fmt])
        if not path:
            return ""
        path = with_suffix(path, fmt)
        self.settings.set_export_dir(str(Path(path).parent))
        return path

    def export(
        self,
        path: str,
        fmt: str,
        trace: Trace | None,
        diff: TraceDiff | None,
        prompt: Mapping[str, Any] | None = None,
        suggestions: Mapping[str, Mapping[str, Any]] | None = None,
    ) -> None:
        """Write *trace* as *fmt* to *path* atomically, off the GUI thread (*diff* for the formats with one;
        *prompt*, the worker's prompt as a mapping, and *suggestions*, for the HTML report)."""
        if trace is None:
            self.finished.emit(path, "nothing to export yet")
            return
        if fmt in report.DIFF_FORMATS and diff is None:
            self.finished.emit(path, "no baseline is pinned: nothing to compare")
            return
        self._path = path

        def job(cancel: threading.Event, progress: Callable[[str, float], None]) -> str:
            report.export(trace, path, fmt, diff=diff, prompt=prompt, suggestions=suggestions)
            return path

        self.lane.submit(job)

    def export_shown(self, path: str, fmt: str) -> None:
        """Write the shown run as *fmt* to *path* atomically, off the GUI thread."""
        run = self.shown()
        self.export(path, fmt, run.trace, run.diff, run.prompt_json(), run.suggestions)

    def commands(self) -> dict[str, Callable[[], object]]:
        """The File menu's export commands, by action id (gui/window/actions.py)."""
        export = self.ask_and_export
        return {
            "file.export_markdown": partial(export, "markdown"),
            "file.export_json": partial(export, "json"),
            "file.export_html": partial(export, "html"),
            "file.copy_context": self.copy_context,
            "file.export_whatif": partial(export, "whatif-md"),
        }

    def ask_and_export(self, fmt: str) -> None:
        """Ask where to write the shown run as *fmt*, then write it there."""
        trace = self.shown().trace
        if trace is None:
            return
        path = self.ask_path(fmt, trace.task_id)
        if path:
            self.export_shown(path, fmt)

    def copy_context(self) -> None:
        """Put the shown run's context on the clipboard."""
        trace = self.shown().trace
        if trace is not None:
            QGuiApplication.clipboard().setText(trace.context)
            self.message.emit(f"Copied {len(trace.context):,} characters", 4000)

    def _on_exported(self, path: str) -> None:
        self.wrote.emit(path)
        self.finished.emit(path, "")

    def _on_error(self, message: str) -> None:
        self.failed.emit(message)
        self.finished.emit(self._path, message)
