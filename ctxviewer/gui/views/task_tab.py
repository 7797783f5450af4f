"""The Task tab: the task's keywords and the effective settings with where each came from.

It takes a whole :class:`~ctxviewer.engine.trace.model.Trace` (or ``None``) and only reads it.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from ctxviewer.engine.trace.model import Trace
from ctxviewer.gui.widgets.models import (
    keyword_columns,
    setting_columns,
    setting_rows,
)
from ctxviewer.gui.widgets.tables import RecordTable


class TaskTab(QWidget):
    """What the pipeline took from the task: keywords, and the effective settings."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.keywords = RecordTable(keyword_columns(), None, statuses=False, noun="keywords", fit=True, parent=self)
        self.settings = RecordTable(setting_columns(), None, statuses=False, noun="settings", fit=True, parent=self)
        splitter = QSplitter(Qt.Orientation.Horizontal, self)
        splitter.addWidget(self.keywords)
        splitter.addWidget(self.settings)
        # The settings' keys are read whole and their values beside them: they take the larger part.
        splitter.setStretchFactor(0, 2)
        splitter.setStretchFactor(1, 3)
        splitter.setSizes([400, 600])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(splitter)

    def set_trace(self, trace: Trace | None) -> None:
        self.keywords.set_rows(trace.keywords if trace else [])
        self.settings.set_rows(setting_rows(trace) if trace else [])
