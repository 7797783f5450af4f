"""The Sections tab: each section's token share against its budget, and the budget arithmetic in words.

It takes a whole :class:`~ctxviewer.engine.trace.model.Trace` (or ``None``) and only reads it.
See docs/gui.md.
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QFrame,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from ctxviewer.engine.analysis import upstream_items as nine
from ctxviewer.engine.registry import find
from ctxviewer.engine.trace.model import Trace
from ctxviewer.gui.widgets.charts import ShareChart, ShareValue
from ctxviewer.gui.widgets.models import (
    section_columns,
    section_rows,
)
from ctxviewer.gui.widgets.plaintext import NoResourceBrowser
from ctxviewer.gui.widgets.splitters import is_user_sized, size_splitter
from ctxviewer.gui.widgets.tables import RecordTable
from ctxviewer.gui.widgets.wording import SUB_BUDGETS


class SectionsTab(QWidget):
    """Token shares: the chart and the per-section numbers (estimate vs exact)."""

    sectionClicked = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.chart = ShareChart(self)
        self.chart.sectionClicked.connect(self.sectionClicked)
        self.table = RecordTable(
            section_columns("heuristic"), None, statuses=False, noun="sections", fit=True, parent=self
        )
        self.table.filter.hide()
        # A pane that scrolls, not a word-wrapped label: a label's size hints lay its text out
        # at several widths on each new text, and the splitter asks for them on every click.
        self.arithmetic = NoResourceBrowser(self)
        self.arithmetic.setFrameShape(QFrame.Shape.NoFrame)
        self.arithmetic.viewport().setAutoFillBackground(False)  # on the tab's own background
        self.arithmetic.setToolTip("How the pipeline split the budget for this run")
        self.splitter = QSplitter(Qt.Orientation.Vertical, self)
        self.splitter.addWidget(self.chart)
        self.splitter.addWidget(self.table)
        self.splitter.addWidget(self.arithmetic)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.splitter)

    def set_trace(self, trace: Trace | None) -> None:
        self.chart.setValue(ShareValue.from_trace(trace) if trace else None)
        if trace is None:
            self.table.set_rows([])
            self.arithmetic.clear()
            return
        self.table.set_rows(section_rows(trace), columns=section_columns(trace.tokenizer))
        self.arithmetic.replace_html(budget_arithmetic(trace))
        rows = self.table.view.verticalHeader().defaultSectionSize() * (len(trace.sections) + 2) + 80
        rest = max(100, self.splitter.height() - self.chart.sizeHint().height() - rows)
        if not is_user_sized(self.splitter):
            size_splitter(self.splitter, [self.chart.sizeHint().height(), rows, rest])


def budget_arithmetic(trace: Trace) -> str:
    """The budget split in words: total, shares, buffer, sub-budgets, and any section's trouble."""
    settings = {k: s.value for k, s in trace.settings.items()}
    profile = find(trace.profile)
    if profile is not None and profile.whole_budget:
        return _whole_budget_arithmetic(trace)
    parts = [f"<b>Budget {trace.budget:,}</b> {html.escape(trace.tokenizer)} tokens"]
    fixed = nine.is_nine_section(trace)  # upstream's nine sections: fixed shares, not the settings'
    for section in trace.sections:
        if fixed:
            share = nine.SECTION_SHARES.get(section.name)
            if share is None:
                parts.append(f"{html.escape(section.title)} (no budget)")
                continue
        else:
            share = settings.get("security_share" if section.name == "security_rules" else "spec_share")
        share_text = f" ({float(share):.0%})" if isinstance(share, int | float) else ""
        parts.append(f"{html.escape(section.title)}{share_text} = {section.budget:,}")
    parts.append(f"buffer = {trace.buffer:,}")
    lines = [" \u2192 ".join(parts[:1]) + ": " + ", ".join(parts[1:]) + "."]
    limit_unit = "characters" if trace.tokenizer == "heuristic" else "tokens"
    for section in trace.sections:
        if section.sub_budgets:
            subs = ", ".join(
                f"{html.escape(SUB_BUDGETS.get(k, k))} {v:,}" + (f" {limit_unit}" if k == "summary_limit" else "")
                for k, v in section.sub_budgets.items()
            )
            line = f"{html.escape(section.title)} sub-budgets: {subs}."
            if section.name == "spec_excerpts" and sum(section.sub_budgets.values()) > section.budget:
                line += (
                    " (They add up to more than the section's budget: the design part gets what "
                    "the requirements left or a quarter of the budget, whichever is more, as the real "
                    "pipeline does.)"
                )
            lines.append(line)
    if fixed:  # which variable made the depth, mode, TDD and efficiency sections (or did not)
        lines += [html.escape(line) for line in nine.switch_lines(trace)]
    return "<br>".join(lines + _troubles(trace))


def _whole_budget_arithmetic(trace: Trace) -> str:
    """The budget of a profile that holds the whole context, not each section, to it."""
    text = f"<b>Budget {trace.budget:,}</b> {html.escape(trace.tokenizer)} tokens for the whole context"
    if trace.buffer:
        text += f", {trace.buffer:,} of them kept free as a safety margin"
    text += (
        f"; the {html.escape(trace.profile)} profile gives its sections no budgets of their own "
        "(the shares are not used)."
    )
    return "<br>".join([text, *_troubles(trace)])


def _troubles(trace: Trace) -> list[str]:
    return [
        f"<b>{html.escape(section.title)}: {html.escape(section.status)}</b> \u2014 {html.escape(section.reason)}"
        for section in trace.sections
        if section.status != "included"
    ]
