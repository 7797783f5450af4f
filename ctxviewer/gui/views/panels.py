"""The window's panels: problems banner, sections, trimming, task facts, tracker, search.

Each panel takes a whole :class:`Trace` (or ``None``) through ``set_trace`` and only
reads it.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSplitter,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from ctxviewer.engine.analysis import upstream_items as nine
from ctxviewer.engine.analysis.explain import Match, find_candidates, keyword_sources
from ctxviewer.engine.project.settings import WHOLE_BUDGET_PROFILES
from ctxviewer.engine.trace.model import FATES, Trace, fate_label
from ctxviewer.gui.widgets.charts import Gauge, GaugeValue, ShareChart, ShareValue, TrimChart, TrimValue
from ctxviewer.gui.widgets.models import (
    keyword_columns,
    search_columns,
    section_columns,
    section_rows,
    setting_columns,
    setting_rows,
    tracked_file_columns,
    trim_columns,
)
from ctxviewer.gui.widgets.tables import RecordTable
from ctxviewer.gui.widgets.wording import SUB_BUDGETS


class ProblemPanel(QFrame):
    """A non-modal banner for engine errors, input problems and warnings."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("problemPanel")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.label = QLabel(self)
        self.label.setWordWrap(True)
        self.label.setTextFormat(Qt.TextFormat.RichText)  # our markup; every message is escaped
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        #: A one-click answer to a notice (e.g. open a project that was not reopened); hidden otherwise.
        self.action_button = QPushButton(self)
        self.action_button.hide()
        self._action: Callable[[], object] | None = None
        self.action_button.clicked.connect(self._run_action)
        self.close_button = QToolButton(self)
        self.close_button.setText("\u2715")
        self.close_button.setToolTip("Hide this panel (it comes back with the next problem)")
        self.close_button.clicked.connect(self.dismiss)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 4, 4, 4)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.action_button, 0, Qt.AlignmentFlag.AlignTop)
        layout.addWidget(self.close_button, 0, Qt.AlignmentFlag.AlignTop)
        self.messages: list[str] = []
        #: Messages about something the user did (a refused save, a task not found) that
        #: stay until dismissed, while the run's own errors and notes come and go.
        self.notices: list[str] = []
        self._shown: tuple[list[str], list[str]] = ([], [])
        self.hide()

    def add_notice(self, message: str) -> None:
        """Show *message* until the panel is dismissed, whatever runs come after."""
        self.notices.append(message)
        self.show_messages(*self._shown)

    def offer(self, text: str, action: Callable[[], object]) -> None:
        """Show a button labelled *text* that runs *action* (and dismisses the panel)."""
        self._action = action
        self.action_button.setText(text)
        self.action_button.show()

    def _run_action(self) -> None:
        action = self._action
        self.dismiss()
        if action is not None:
            action()

    def dismiss(self) -> None:
        self.notices.clear()
        self._action = None
        self.action_button.hide()
        self.hide()

    def show_messages(self, errors: list[str], warnings: list[str]) -> None:
        self._shown = (list(errors), list(warnings))
        self.messages = [*self.notices, *errors, *warnings]
        if not self.messages:
            self.label.clear()
            self.hide()
            return
        lines = [f"<b>Error:</b> {html.escape(e)}" for e in [*self.notices, *errors]]
        lines += [f"<b>Note:</b> {html.escape(w)}" for w in warnings]
        self.label.setText("<br>".join(lines))
        self.setProperty("severity", "error" if errors or self.notices else "warning")
        self.style().unpolish(self)
        self.style().polish(self)
        self.show()


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
        self.arithmetic = QLabel(self)
        self.arithmetic.setWordWrap(True)
        self.arithmetic.setTextFormat(Qt.TextFormat.RichText)
        self.arithmetic.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
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
            return
        self.table.set_rows(section_rows(trace), columns=section_columns(trace.tokenizer))
        self.arithmetic.setText(budget_arithmetic(trace))
        rows = self.table.view.verticalHeader().defaultSectionSize() * (len(trace.sections) + 2) + 80
        rest = max(100, self.splitter.height() - self.chart.sizeHint().height() - rows)
        self.splitter.setSizes([self.chart.sizeHint().height(), rows, rest])


def budget_arithmetic(trace: Trace) -> str:
    """The budget split in words: total, shares, buffer, sub-budgets, and any section's trouble."""
    settings = {k: s.value for k, s in trace.settings.items()}
    if trace.profile in WHOLE_BUDGET_PROFILES:
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
        self.splitter.setSizes([chart_height, max(120, self.splitter.height() - chart_height)])
        if trace is None:
            self.table.set_rows([])
            return
        self.table.set_rows(trace.trim_steps, columns=trim_columns(f"{trace.tokenizer} tokens", trace))


class TaskTab(QWidget):
    """What the pipeline took from the task: keywords, and the effective settings."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.keywords = RecordTable(keyword_columns(), None, statuses=False, noun="keywords", fit=True, parent=self)
        self.settings = RecordTable(setting_columns(), None, statuses=False, noun="settings", fit=True, parent=self)
        splitter = QSplitter(Qt.Orientation.Horizontal, self)
        splitter.addWidget(self.keywords)
        splitter.addWidget(self.settings)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(splitter)

    def set_trace(self, trace: Trace | None) -> None:
        self.keywords.set_rows(trace.keywords if trace else [])
        self.settings.set_rows(setting_rows(trace) if trace else [])


TASK_BUDGET_TIP = (
    "The tracker's own share of the budget for one task: the total budget divided by the number "
    "of the task's files, kept between 500 and the total. The tracker reports it; the context is "
    "sized by its sections' budgets, not by this figure."
)


def task_budget_tip(budget: int, value: int) -> str:
    """The tracker's "budget for task", worked out in words for this run."""
    return (
        f"{value:,} tokens: the tracker's own share of the {budget:,}-token budget for one task "
        f"(the budget divided by the number of the task's files, kept between 500 and {budget:,}). "
        "The tracker reports it; the context is sized by its sections' budgets, not by this figure."
    )


class TrackerPanel(QWidget):
    """The checkpoint gauge and the tracker's figures."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.gauge = Gauge(self)
        self.gauge.setToolTip(
            "The tracker's estimated usage of the maximum context; the worker checkpoints when it reaches the threshold"
        )
        form = QFormLayout()
        form.setLabelAlignment(Qt.AlignmentFlag.AlignLeft)
        self.fields: dict[str, QLabel] = {}
        for key, label, tip in (
            (
                "estimated",
                "Estimated",
                "Tokens the tracker estimates the worker has used: task files read and tasks run",
            ),
            ("maximum", "Max context", "The model context size the tracker measures against"),
            ("threshold", "Checkpoint at", "Usage percentage at which the worker must checkpoint"),
            ("usage", "Usage", "Estimated / max context"),
            ("headroom", "Until checkpoint", "Tokens left before the threshold is reached"),
            ("task_budget", "Budget for task", TASK_BUDGET_TIP),
            ("files", "Files read", "Task files (read and modify) that exist and were counted"),
            ("tasks", "Tasks executed", "Tasks the tracker counted in this single-task view"),
        ):
            value = QLabel("\u2014", self)
            value.setToolTip(tip)
            value.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            name = QLabel(label, self)
            name.setToolTip(tip)
            form.addRow(name, value)
            self.fields[key] = value
        self.files = RecordTable(tracked_file_columns(), None, statuses=False, noun="files", parent=self)
        self.files.filter.hide()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        self.gauge.setMinimumHeight(190)
        layout.addWidget(self.gauge)
        layout.addLayout(form)
        layout.addWidget(self.files, 1)

    def set_trace(self, trace: Trace | None, animate: bool = False) -> None:
        if trace is None:
            self.gauge.setValue(None)
            for value in self.fields.values():
                value.setText("\u2014")
            self.files.set_rows([])
            return
        t = trace.tracker
        self.gauge.setValue(GaugeValue.from_tracker(t), animate=animate)
        limit = int(t.max_tokens * t.threshold_percent / 100)
        self.fields["estimated"].setText(f"{t.estimated_tokens:,} tokens")
        self.fields["maximum"].setText(f"{t.max_tokens:,} tokens")
        self.fields["threshold"].setText(f"{t.threshold_percent:g}% ({limit:,} tokens)")
        self.fields["usage"].setText(
            f"{t.usage_percent:.1f}%" + (" \u2014 over, checkpoint" if t.is_over_threshold else "")
        )
        self.fields["headroom"].setText(f"{max(0, limit - t.estimated_tokens):,} tokens")
        self.fields["task_budget"].setText(f"{t.budget_for_task:,} tokens")
        self.fields["task_budget"].setToolTip(task_budget_tip(trace.budget, t.budget_for_task))
        self.fields["files"].setText(str(t.files_read))
        self.fields["tasks"].setText(str(t.tasks_executed))
        self.files.set_rows(t.files)
        self.files.view.resizeColumnsToContents()


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
        text_parts = [f"{len(found)} candidates contain \u201c{html.escape(text.strip())}\u201d"]
        text_parts.append(", ".join(f"{n} {fate_label(s)}" for s, n in fates.items() if n))
        sources = keyword_sources(self._trace, text)
        if sources:
            text_parts.append(f"it is a task keyword (from {html.escape('; '.join(sources))})")
        elif re.fullmatch(r"[A-Za-z][\w-]{3,}", text.strip()):
            text_parts.append("it is not a task keyword, so it adds nothing to any paragraph's score")
        self.summary.setText(" \u00b7 ".join(p for p in text_parts if p))
