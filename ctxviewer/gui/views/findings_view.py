"""The window's findings: the Findings tab, the header's line and the outline's markers.

Findings come from :func:`ctxviewer.engine.analysis.findings.findings_of`: for the task on
screen from its trace, for every task from the background pass, which keeps no traces, so each
finding travels with the words naming its item (:class:`FindingRow`).  :class:`FindingsTab`
lists them and emits ``findingActivated``; :func:`findings_line` is the line under the task
header; :func:`severity_icon` and :func:`findings_tooltip` mark the outline.  See docs/findings.md.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache

from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QFont, QIcon, QPainter, QPixmap, QPolygonF
from PySide6.QtWidgets import QButtonGroup, QHBoxLayout, QLabel, QRadioButton, QVBoxLayout, QWidget

from ctxviewer.engine.analysis.findings import CODES, ERROR, INFO, WARNING, Finding, findings_of
from ctxviewer.engine.trace.model import Trace
from ctxviewer.gui.widgets.models import Column, is_dark
from ctxviewer.gui.widgets.tables import RecordTable
from ctxviewer.gui.widgets.wording import section_words, target_words

#: Worst first.
SEVERITIES = (ERROR, WARNING, INFO)
_RANK = {s: n for n, s in enumerate(SEVERITIES)}
#: (light palette, dark palette) per severity; the word is always written too.
_COLOURS = {
    ERROR: ("#b3261e", "#ff8a80"),
    WARNING: ("#a35c00", "#ffb454"),
    INFO: ("#1f5fa8", "#8ab4f8"),
}
_SIGNS = {ERROR: "!", WARNING: "!", INFO: "i"}


@dataclass(frozen=True)
class FindingRow:
    """A finding and the plain words for its item (worked out where the trace was)."""

    finding: Finding
    item_label: str = ""

    # The table's fields, by name (the free-text filter reads ``text``).
    @property
    def severity(self) -> str:
        return self.finding.severity

    @property
    def code(self) -> str:
        return self.finding.code

    @property
    def task(self) -> str:
        return self.finding.task

    @property
    def item(self) -> str | None:
        return self.finding.item

    @property
    def text(self) -> str:
        return f"{self.finding.message} {self.item_label}"


def finding_rows(trace: Trace, findings: Iterable[Finding] | None = None) -> tuple[FindingRow, ...]:
    """*trace*'s findings (all of them unless given), each with its item in plain words."""
    found = findings_of(trace) if findings is None else findings
    return tuple(FindingRow(f, item_label(f, trace)) for f in found)


def item_label(finding: Finding, trace: Trace | None = None) -> str:
    """What a finding is about, in words: its file (and lines), else its section."""
    if finding.item:
        return target_words(finding.item, trace)
    if finding.section:
        return section_words(finding.section, trace)
    return ""


def worst(findings: Iterable[FindingRow | Finding]) -> str | None:
    """The worst severity among *findings* (None when there are none)."""
    severities = [f.severity for f in findings]
    return min(severities, key=lambda s: _RANK.get(s, len(SEVERITIES)), default=None)


def severity_colour(severity: str, dark: bool | None = None) -> QColor:
    light_c, dark_c = _COLOURS.get(severity, ("#6b6b6b", "#a0a0a0"))
    return QColor(dark_c if (is_dark() if dark is None else dark) else light_c)


@cache
def _icon(severity: str, dark: bool) -> QIcon:
    size = 16
    pixmap = QPixmap(size, size)
    pixmap.fill(Qt.GlobalColor.transparent)
    p = QPainter(pixmap)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    p.setPen(Qt.PenStyle.NoPen)
    p.setBrush(severity_colour(severity, dark))
    rect = QRectF(1.5, 1.5, size - 3, size - 3)
    if severity == WARNING:  # a triangle for warnings, a disc for the others: not colour alone
        p.drawPolygon(QPolygonF([rect.bottomLeft(), rect.bottomRight(), QPointF(rect.center().x(), 1.0)]))
    else:
        p.drawEllipse(rect)
    font = QFont()
    font.setBold(True)
    font.setPixelSize(11)
    p.setFont(font)
    p.setPen(QColor("#ffffff") if not dark else QColor("#202124"))
    p.drawText(rect.adjusted(0, 2 if severity == WARNING else 0, 0, 0), Qt.AlignmentFlag.AlignCenter, _SIGNS[severity])
    p.end()
    return QIcon(pixmap)


def severity_icon(severity: str | None, dark: bool | None = None) -> QIcon | None:
    """The outline's marker for a task whose worst finding is *severity* (None: no marker)."""
    if severity not in _COLOURS:
        return None
    return _icon(severity, is_dark() if dark is None else dark)


def plural(n: int, word: str) -> str:
    return f"{n:,} {word}" + ("" if n == 1 or word == INFO else "s")


def count_phrase(findings: Sequence[FindingRow | Finding]) -> str:
    """``3 findings (1 error, 2 warnings)``."""
    counts = [(s, sum(1 for f in findings if f.severity == s)) for s in SEVERITIES]
    parts = ", ".join(plural(n, s) for s, n in counts if n)
    return plural(len(findings), "finding") + (f" ({parts})" if parts else "")


def findings_tooltip(task_id: str, findings: Sequence[FindingRow]) -> str:
    """The outline's tooltip part for a task's findings: a count, then one line each."""
    if not findings:
        return ""
    lines = [f"{task_id}: {count_phrase(findings)}"]
    lines += [f"\u2022 {f.severity}: {f.finding.message}" for f in findings[:12]]
    if len(findings) > 12:
        lines.append(f"\u2026 and {len(findings) - 12:,} more (the Findings tab lists them all)")
    return "\n".join(lines)


def findings_line(findings: Sequence[FindingRow], dark: bool = False) -> str:
    """The header's line (rich text): ``2 findings: a matched rule file cut for budget, ...``, a link to the list.

    Empty when there are none.  Each distinct code is named once, by its description,
    worst first.
    """
    if not findings:
        return ""
    ordered = sorted(findings, key=lambda f: _RANK.get(f.severity, len(SEVERITIES)))
    seen: list[str] = []
    for f in ordered:
        if f.code not in seen:
            seen.append(f.code)
    words = [html.escape(CODES[c][1] if c in CODES else c) for c in seen[:3]]
    more = ", \u2026" if len(seen) > 3 else ""
    colour = severity_colour(worst(findings) or INFO, dark).name()
    return (
        f"<a href='findings' style='color:{colour}; text-decoration:none'>"
        f"<b>{html.escape(plural(len(findings), 'finding'))}</b>: {', '.join(words)}{more}</a>"
    )


def finding_columns(with_task: bool = True) -> list[Column]:
    columns = [
        Column(
            "Severity",
            lambda r: r.severity,
            lambda r: _RANK.get(r.severity, len(SEVERITIES)),
            "error: the context lacks something it should hold (check fails on it); warning: worth a look; "
            "info: how a tie or a detail was decided",
        ),
        Column("Code", lambda r: r.code, None, "The finding's stable code (docs/findings.md lists them)"),
        Column("Task", lambda r: r.task, None, "The task whose context this is about"),
        Column("Item", lambda r: r.item_label, None, "The file, paragraph or section it is about"),
        Column("Message", lambda r: r.finding.message, None, "What was found, in one sentence"),
    ]
    return columns if with_task else [c for c in columns if c.header != "Task"]


def finding_html(row: FindingRow) -> str:
    f = row.finding
    described = CODES.get(f.code, ("", ""))[1]
    lines = [
        f"<b style='color:{severity_colour(f.severity).name()}'>{html.escape(f.severity)}</b> "
        f"<b>{html.escape(f.code)}</b>" + (f" \u2014 {html.escape(described)}" if described else ""),
        html.escape(f.message),
        f"Task {html.escape(f.task)} of {html.escape(f.feature)}"
        + (f" \u00b7 {html.escape(row.item_label)}" if row.item_label else ""),
        "<i>Double-click (or Enter) to see it in its tab.</i>",
    ]
    return "<br>".join(lines)


class FindingsTab(QWidget):
    """This task's findings, or every task's of its feature (from the background pass).

    ``findingActivated`` carries the :class:`FindingRow` double-clicked (or Enter).
    """

    findingActivated = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.this_task = QRadioButton("This task", self)
        self.this_task.setToolTip("The findings of the task on screen")
        self.whole_feature = QRadioButton("Whole feature", self)
        self.whole_feature.setToolTip("Every task's findings in this feature, from the background pass over all tasks")
        self.this_task.setChecked(True)
        group = QButtonGroup(self)
        group.addButton(self.this_task)
        group.addButton(self.whole_feature)
        self.this_task.toggled.connect(lambda _on: self._show())
        self.summary = QLabel(self)
        self.summary.setTextFormat(Qt.TextFormat.PlainText)
        self.summary.setWordWrap(True)
        bar = QHBoxLayout()
        bar.setContentsMargins(4, 4, 4, 0)
        bar.addWidget(self.this_task)
        bar.addWidget(self.whole_feature)
        bar.addWidget(self.summary, 1)
        # The message is what a finding says: it keeps half the width, on two or three lines.
        self.table = RecordTable(
            finding_columns(), finding_html, statuses=False, noun="findings", fit=True, wrap=True, last_share=0.55
        )
        self.table.detail.setPlaceholderText("Select a finding to see what it means.")
        self.table.splitter.setStretchFactor(0, 4)  # the list first; the detail says a few lines
        self.table.splitter.setStretchFactor(1, 1)
        self.table.rowActivated.connect(self.findingActivated)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(bar)
        layout.addWidget(self.table, 1)
        self._task: tuple[str, str] | None = None
        self._task_rows: tuple[FindingRow, ...] = ()
        self._feature_rows: tuple[FindingRow, ...] = ()
        self._feature_pending = 0
        self._show()

    def set_task(self, feature: str, task_id: str, rows: Sequence[FindingRow]) -> None:
        """The task on screen and its findings."""
        self._task = (feature, task_id)
        self._task_rows = tuple(rows)
        self._show()

    def set_feature(self, rows: Sequence[FindingRow], pending: int = 0) -> None:
        """Every task's findings of the feature on screen; *pending* tasks the pass has not reached yet."""
        self._feature_rows = tuple(rows)
        self._feature_pending = pending
        if self.whole_feature.isChecked():
            self._show()

    def rows(self) -> tuple[FindingRow, ...]:
        return self.table.model.rows()

    def show_feature(self, on: bool) -> None:
        (self.whole_feature if on else self.this_task).setChecked(True)

    def _show(self) -> None:
        feature = self.whole_feature.isChecked()
        rows = self._feature_rows if feature else self._task_rows
        self.table.set_rows(rows)
        if rows:  # the worst first is explained at once
            self.table.select(lambda _r: True)
        if self._task is None:
            self.summary.setText("No task yet.")
            return
        name, task_id = self._task
        if feature:
            tasks = len({r.task for r in rows})
            text = f"{count_phrase(rows)} in {plural(tasks, 'task')} of {name}" if rows else f"No findings in {name}"
            if self._feature_pending:
                text += f" ({plural(self._feature_pending, 'task')} not assessed yet: the background pass is running)"
        else:
            text = f"{count_phrase(rows)} in {task_id}" if rows else f"No findings in {task_id}"
        self.summary.setText(text + ".")
