"""The search panel: every candidate that mentions a word, with its fate and why ("why was it dropped?").

It takes a whole :class:`~ctxviewer.engine.trace.model.Trace` (or ``None``) and only reads it.
"""

from __future__ import annotations

import html
import re

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QLabel,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from ctxviewer.engine.analysis.explain import Match, find_candidates, keyword_sources
from ctxviewer.engine.trace.model import FATES, Trace, fate_label
from ctxviewer.engine.wording import plural
from ctxviewer.gui.widgets.models import (
    search_columns,
)
from ctxviewer.gui.widgets.tables import RecordTable


class SearchPanel(QWidget):
    """ "Why was it dropped?": every candidate containing a word, rule name or file.

    ``field`` is not laid out here: the window puts it in its toolbar, so it is
    always at hand while the results panel only takes room once there is a query.
    """

    matchChosen = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.field = QLineEdit()
        self.field.setPlaceholderText("Why was it dropped? A word, rule name or file (Ctrl+F)")
        self.field.setClearButtonEnabled(True)
        self.field.setToolTip("Lists every spec paragraph and rule file containing the text, with its fate")
        self.field.textChanged.connect(self._search)
        self.summary = QLabel(self)
        self.summary.setTextFormat(Qt.TextFormat.RichText)  # the query and sources in it are escaped
        self.summary.setWordWrap(True)
        self.results = RecordTable(search_columns(), None, statuses=True, noun="candidates", fit=True, parent=self)
        self.results.filter.hide()
        self.results.rowActivated.connect(self.matchChosen)
        self.results.view.clicked.connect(lambda _i: self._chosen())
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.summary)
        layout.addWidget(self.results, 1)
        self._trace: Trace | None = None

    def set_trace(self, trace: Trace | None) -> None:
        self._trace = trace
        self._search(self.field.text())

    def matches(self) -> tuple[Match, ...]:
        return self.results.model.rows()

    def _chosen(self) -> None:
        row = self.results.current_row()
        if row is not None:
            self.matchChosen.emit(row)

    def _search(self, text: str) -> None:
        if self._trace is None or not text.strip():
            self.results.set_rows([])
            self.summary.setText("")
            return
        found = find_candidates(self._trace, text)
        self.results.set_rows(found)
        fates = {s: sum(1 for m in found if m.status == s) for s in FATES}
        contain = "contains" if len(found) == 1 else "contain"
        text_parts = [f"{plural(len(found), 'candidate')} {contain} \u201c{html.escape(text.strip())}\u201d"]
        text_parts.append(", ".join(f"{n} {fate_label(s)}" for s, n in fates.items() if n))
        sources = keyword_sources(self._trace, text)
        if sources:
            text_parts.append(f"it is a task keyword (from {html.escape('; '.join(sources))})")
        elif re.fullmatch(r"[A-Za-z][\w-]{3,}", text.strip()):
            text_parts.append("it is not a task keyword, so it adds nothing to any paragraph's score")
        self.summary.setText(" \u00b7 ".join(p for p in text_parts if p))
