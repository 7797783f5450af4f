"""The Trimming tab: the cuts in order, with tokens before and after, charted and listed.

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
from ctxviewer.gui.widgets.charts import TrimChart, TrimValue
from ctxviewer.gui.widgets.models import (
    trim_columns,
)
from ctxviewer.gui.widgets.splitters import is_user_sized
from ctxviewer.gui.widgets.tables import RecordTable


class TrimmingTab(QWidget):
    """The cuts in order: a step chart and the list."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.chart = TrimChart(self)
        self.table = RecordTable(
            trim_columns("tokens"), None, statuses=False, noun="steps", fit=True, wrap=True, parent=self
        )
        self.chart.stepClicked.connect(lambda n: self.table.select(lambda s: s.order == n + 1))
        self.splitter = QSplitter(Qt.Orientation.Vertical, self)
        self.splitter.addWidget(self.chart)
        self.splitter.addWidget(self.table)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.splitter)

    def set_trace(self, trace: Trace | None) -> None:
        self.chart.setValue(TrimValue.from_trace(trace) if trace else None)
        chart_height = min(self.chart.sizeHint().height(), max(120, self.splitter.height() * 2 // 3))
        if not is_user_sized(self.splitter):
            self.splitter.setSizes([chart_height, max(120, self.splitter.height() - chart_height)])
        if trace is None:
            self.table.set_rows([])
            return
        self.table.set_rows(trace.trim_steps, columns=trim_columns(f"{trace.tokenizer} tokens", trace))
