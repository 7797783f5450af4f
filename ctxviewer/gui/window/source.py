"""The Show source lines window: a candidate's lines in its file, read inside the project only.

See docs/gui.md and docs/security.md.
"""

from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QWidget

from ctxviewer.engine.trace.model import Item
from ctxviewer.gui.widgets.source_lines import SourceLinesDialog, item_excerpt
from ctxviewer.gui.window.state import Shown


class SourceLines(QObject):
    """The source window (:attr:`dialog`, None until first asked for) over the open project's files."""

    def __init__(self, shown: Shown, window: QWidget) -> None:
        super().__init__(window)
        self.shown = shown
        self.window = window
        self.dialog: SourceLinesDialog | None = None

    def show(self, item: Item) -> None:
        """Show *item*'s lines in its file in the source window."""
        project = self.shown.project
        if project is None:
            return
        excerpt = item_excerpt(project.fs, item)
        if self.dialog is None:
            self.dialog = SourceLinesDialog(self.window)
        self.dialog.show_excerpt(item, excerpt)
        self.dialog.show()
        self.dialog.activateWindow()
