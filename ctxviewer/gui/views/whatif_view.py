"""The what-if tab: the current run compared with a pinned baseline run.

One header line says what was compared; below it a compact table of per-section
token deltas, a filterable table of the candidates whose fate changed (with both
reasons in its detail pane), and the unified diff of the assembled context, coloured
by :class:`DiffHighlighter`.  The tab only reads a :class:`~ctxviewer.engine.analysis.whatif.TraceDiff`.

:class:`ChangeTable` and :class:`DiffPane` also serve the Compare tab, where the two runs
are sides A and B instead of a baseline and the current run (:class:`RunNames`).
"""

from __future__ import annotations

import html
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QEvent, QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QPalette,
    QSyntaxHighlighter,
    QTextCharFormat,
    QTextDocument,
)
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QSplitter,
    QTableView,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from ctxviewer.engine.analysis.whatif import (
    CHANGE_MEANINGS,
    CHANGES,
    ENTERED,
    GONE,
    GREW,
    LEFT,
    NEW,
    SHRANK,
    ItemChange,
    SectionDelta,
    TraceDiff,
    arrow,
    fate_arrow,
    kind_word,
    setting_text,
    signed,
)
from ctxviewer.engine.trace.model import CUT_FOR_BUDGET, INCLUDED, RULE_FILE, TRUNCATED
from ctxviewer.gui.widgets.fonts import fixed_pitch_font
from ctxviewer.gui.widgets.highlighter import display_text
from ctxviewer.gui.widgets.models import (
    Column,
    RecordFilterProxy,
    RecordModel,
    RowRole,
    StatusRole,
    is_dark,
    status_colour,
)
from ctxviewer.gui.widgets.plaintext import plain_tip
from ctxviewer.gui.widgets.splitters import is_user_sized
from ctxviewer.gui.widgets.tables import RecordTable, make_table_view

EXPLANATION = (
    "Pin a run as the baseline (Run \u25b8 Pin Baseline, Ctrl+B), then change budgets: each run is compared with it."
)
#: Over a comparison with the task's run at the project's own settings (no run pinned).
OWN_CAPTION = (
    "Compared with this task at the project's own settings until you pin a run (Run \u25b8 Pin Baseline, Ctrl+B)."
)
#: The same, while nothing is tuned.
UNTUNED_CAPTION = (
    "Nothing is tuned: this run is the task at the project's own settings.  Change a budget in the Budget "
    "panel to see what enters and leaves, or pin a run (Run \u25b8 Pin Baseline, Ctrl+B) to compare with it."
)

_Index = QModelIndex | QPersistentModelIndex
#: A row's colour, as a status word :func:`status_colour` knows (None: the palette's text colour).
ColourFn = Callable[[Any], str | None]

#: The colour each change is written in, as the status it resembles.
_CHANGE_TONE = {ENTERED: INCLUDED, GREW: INCLUDED, LEFT: CUT_FOR_BUDGET, SHRANK: TRUNCATED, NEW: "empty", GONE: "empty"}


@dataclass(frozen=True, slots=True)
class RunNames:
    """What the two runs of a diff are called in columns, tooltips and the detail pane."""

    #: Labels in the detail pane (``Baseline: ...``, ``Now: ...``).
    before: str = "Baseline"
    after: str = "Now"
    #: The runs in a sentence.
    before_run: str = "the baseline run"
    after_run: str = "the current run"
    #: Header of the reason column.
    reason_header: str = "Reason now"
    #: What each change means (see :data:`~ctxviewer.engine.analysis.whatif.CHANGES`).
    meanings: Mapping[str, str] = field(default_factory=lambda: dict(CHANGE_MEANINGS))


#: The what-if's names: a pinned baseline and the current run.
WHATIF_NAMES = RunNames()


def _delta_tone(value: int) -> str | None:
    return INCLUDED if value > 0 else CUT_FOR_BUDGET if value < 0 else None


class DiffModel(RecordModel):
    """A :class:`RecordModel` whose rows may be coloured per column and filtered by ``change``.

    ``StatusRole`` (what the status buttons filter on) is the row's ``change`` when it
    has one; *colours* maps a column to the status word its cell is coloured like.
    """

    def __init__(self, columns: Sequence[Column], colours: Mapping[int, ColourFn], parent: Any = None) -> None:
        super().__init__(columns, parent)
        self._colours = dict(colours)

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role == StatusRole and index.isValid():
            return getattr(super().data(index, RowRole), "change", None)
        if role == Qt.ItemDataRole.ForegroundRole and index.column() in self._colours:
            row = super().data(index, RowRole)
            tone = None if row is None else self._colours[index.column()](row)
            return None if tone is None else QBrush(status_colour(tone))  # palette read now: follows a theme switch
        return super().data(index, role)


# -- columns ----------------------------------------------------------------------------------


def _short_label(change: ItemChange) -> str:
    """The candidate without its folders: ``design.md:45-45``, ``python/CLAUDE.md``."""
    if change.kind == RULE_FILE:
        return change.label.split("/security/", 1)[-1]
    return change.label.rsplit("/", 1)[-1]


def section_delta_columns(tokenizer: str) -> list[Column]:
    return [
        Column("Section", lambda s: s.title, None, "A section of the assembled context, or the whole context"),
        Column(
            "Budget",
            lambda s: arrow(s.budget_before, s.budget_after),
            lambda s: s.budget_after,
            f"The section's budget in the baseline \u2192 now ({tokenizer} tokens)",
            numeric=True,
        ),
        Column(
            "Before",
            lambda s: f"{s.tokens_before:,}",
            lambda s: s.tokens_before,
            f"{tokenizer} tokens in the baseline run",
            numeric=True,
        ),
        Column(
            "After",
            lambda s: f"{s.tokens_after:,}",
            lambda s: s.tokens_after,
            f"{tokenizer} tokens in the current run",
            numeric=True,
        ),
        Column(
            "\u0394",
            lambda s: signed(s.delta),
            lambda s: s.delta,
            "Current minus baseline: positive means the section grew",
            numeric=True,
        ),
        Column(
            "Status",
            lambda s: arrow(s.status_before, s.status_after, ""),
            None,
            "The section's status in the baseline \u2192 now",
        ),
    ]


SECTION_COLOURS: Mapping[int, ColourFn] = {4: lambda s: _delta_tone(s.delta)}


def change_columns(tokenizer: str, names: RunNames = WHATIF_NAMES) -> list[Column]:
    meanings = "; ".join(f"{k}: {v}" for k, v in names.meanings.items())
    return [
        Column("Change", lambda c: c.change, lambda c: CHANGES.index(c.change), meanings),
        Column(
            "Candidate",
            _short_label,
            lambda c: c.label,
            "The spec paragraph (file:lines) or security rule file",
        ),
        Column(
            "Status",
            lambda c: fate_arrow(c.status_before, c.status_after),
            None,
            f"Its status in {names.before_run} \u2192 {names.after_run} (\u2014: the run has no such candidate)",
        ),
        Column(
            "Tokens \u0394",
            lambda c: signed(c.delta),
            lambda c: c.delta,
            f"{tokenizer} tokens of its kept text, {names.after_run} minus {names.before_run} "
            "(truncated text counted as kept)",
            numeric=True,
        ),
        Column(
            names.reason_header,
            lambda c: c.reason_after or f"(not in {names.after_run})",
            None,
            f"Why the pipeline did this in {names.after_run}",
        ),
    ]


CHANGE_COLOURS: Mapping[int, ColourFn] = {0: lambda c: _CHANGE_TONE.get(c.change), 3: lambda c: _delta_tone(c.delta)}


def change_html(change: ItemChange, names: RunNames = WHATIF_NAMES) -> str:
    """The detail pane of one item change: what happened, and the reason in each run."""
    e = html.escape
    tokens = f"{change.tokens_before:,} \u2192 {change.tokens_after:,} ({signed(change.delta)})"
    rows = [
        f"<b>{e(change.label)}</b> ({kind_word(change.kind)})",
        f"<b>{e(change.change)}</b>: {e(names.meanings.get(change.change, ''))}",
        f"Status: {e(fate_arrow(change.status_before, change.status_after))} \u00b7 tokens in the context: {e(tokens)}",
    ]
    before = e(change.reason_before) if change.reason_before else f"<i>not in {e(names.before_run)}</i>"
    now = e(change.reason_after) if change.reason_after else f"<i>not in {e(names.after_run)}</i>"
    rows += [f"<br><b>{e(names.before)}:</b> {before}", f"<b>{e(names.after)}:</b> {now}"]
    return "<br>".join(rows)


# -- the item-change table ----------------------------------------------------------------------


class ChangeTable(RecordTable):
    """A :class:`RecordTable` of item changes whose toggle buttons filter by change."""

    def __init__(self, parent: QWidget | None = None, names: RunNames = WHATIF_NAMES) -> None:
        columns = change_columns("heuristic", names)
        super().__init__(columns, lambda c: change_html(c, names), statuses=False, noun="changes", parent=parent)
        self.names = names
        old = self.model
        self.model = DiffModel(columns, CHANGE_COLOURS, self)
        self.proxy.setSourceModel(self.model)
        old.deleteLater()
        outer = self.layout()
        first = outer.itemAt(0) if outer is not None else None
        bar = first.layout() if first is not None else None  # RecordTable's filter bar: filter box ... count
        assert isinstance(bar, QHBoxLayout)
        for change in CHANGES:
            button = QToolButton(self)
            button.setCheckable(True)
            button.setChecked(True)
            button.setToolTip(f"Show candidates that {change}: {names.meanings[change]}")
            button.toggled.connect(self._on_status)
            bar.insertWidget(bar.indexOf(self.count), button)
            self.status_buttons[change] = button
        self.filter.setPlaceholderText("Filter candidates\u2026")
        self.detail.setPlaceholderText(
            f"Select a candidate to see its reason in {names.before_run} and in {names.after_run}."
        )

    def set_changes(self, changes: Sequence[ItemChange], tokenizer: str) -> None:
        """Show *changes*; a change button shows its count and is hidden when there are none."""
        self.set_rows(changes, widths=[64, 190, 144, 66], columns=change_columns(tokenizer, self.names))
        for change, button in self.status_buttons.items():
            n = sum(1 for c in changes if c.change == change)
            button.setText(f"{change} {n}")
            button.setVisible(n > 0)


# -- the context diff -----------------------------------------------------------------------------

#: (light, dark) colours of the diff pane.
_DIFF_COLOURS = {
    "add": ("#d2f4d9", "#1d4428"),
    "del": ("#ffd7d5", "#5a2225"),
    "hunk": ("#6e7781", "#8b949e"),
    "hunk-bg": ("#eef1f4", "#1c2128"),
}


class DiffHighlighter(QSyntaxHighlighter):
    """Colours unified-diff lines: added green, removed red, hunk headers and file lines dim."""

    def __init__(self, document: QTextDocument, dark: bool = False) -> None:
        super().__init__(document)
        self._formats: dict[str, QTextCharFormat] = {}
        self.set_dark(dark)

    def set_dark(self, dark: bool) -> None:
        pick = 1 if dark else 0
        add, remove, hunk = QTextCharFormat(), QTextCharFormat(), QTextCharFormat()
        add.setBackground(QColor(_DIFF_COLOURS["add"][pick]))
        remove.setBackground(QColor(_DIFF_COLOURS["del"][pick]))
        hunk.setForeground(QColor(_DIFF_COLOURS["hunk"][pick]))
        hunk.setBackground(QColor(_DIFF_COLOURS["hunk-bg"][pick]))
        meta = QTextCharFormat(hunk)
        meta.setFontWeight(QFont.Weight.Bold)
        more = QTextCharFormat(hunk)
        more.setFontItalic(True)
        self._formats = {"add": add, "del": remove, "hunk": hunk, "meta": meta, "more": more}
        self.rehighlight()

    @staticmethod
    def kind(line: str) -> str | None:
        """What a diff line is: ``meta`` (file lines), ``hunk``, ``add``, ``del``, ``more`` or None."""
        if line.startswith(("+++ ", "--- ")):
            return "meta"
        if line.startswith("@@"):
            return "hunk"
        if line.startswith("+"):
            return "add"
        if line.startswith("-"):
            return "del"
        if line.startswith("\u2026"):
            return "more"
        return None

    def highlightBlock(self, text: str) -> None:
        kind = self.kind(text)
        if kind is not None:
            self.setFormat(0, max(len(text), 1), self._formats[kind])


class DiffPane(QWidget):
    """A caption over a read-only, monospaced unified diff coloured by :class:`DiffHighlighter`."""

    def __init__(self, parent: QWidget | None = None, placeholder: str = "") -> None:
        super().__init__(parent)
        self.caption = QLabel(self)
        self.caption.setTextFormat(Qt.TextFormat.PlainText)
        self.caption.setWordWrap(True)
        self.view = QPlainTextEdit(self)
        self.view.setReadOnly(True)
        self.view.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse | Qt.TextInteractionFlag.TextSelectableByKeyboard
        )
        self.view.setFont(fixed_pitch_font())
        self.view.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.view.setPlaceholderText(placeholder)
        self.highlighter = DiffHighlighter(self.view.document(), is_dark(self.palette()))
        box = QVBoxLayout(self)
        box.setContentsMargins(4, 4, 4, 4)
        box.addWidget(self.caption)
        box.addWidget(self.view, 1)

    def set_lines(self, lines: Sequence[str], caption: str) -> None:
        self.view.setPlainText(display_text("\n".join(lines)))
        self.caption.setText(caption)

    def follow_palette(self, palette: QPalette) -> None:
        """Colour the diff for *palette*: the pane's own, or its tab's (with an application style
        sheet, a palette set on the tab does not reach the widgets inside it)."""
        self.highlighter.set_dark(is_dark(palette))

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.PaletteChange:  # follow a light/dark switch
            self.follow_palette(self.palette())
        super().changeEvent(event)


def diff_caption(diff: TraceDiff, arrow_text: str = "baseline \u2192 current", same: str = "the baseline's") -> str:
    """What the context diff holds: lines added and removed, or why there is none."""
    lines = diff.context_diff
    if not lines:
        if diff.baseline.context != diff.current.context:
            return "The contexts differ only in line endings or other line separators."
        return f"Context diff: none, the assembled context is the same as {same}."
    added = sum(1 for x in lines if x.startswith("+") and not x.startswith("+++ "))
    removed = sum(1 for x in lines if x.startswith("-") and not x.startswith("--- "))
    return f"Context diff, {arrow_text}: {_lines(added)} added, {_lines(removed)} removed"


# -- the tab --------------------------------------------------------------------------------------


class WhatIfTab(QWidget):
    """The current run against the pinned baseline; ``itemActivated`` carries an item id."""

    itemActivated = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.header = QLabel(self)
        self.header.setWordWrap(True)
        self.header.setTextFormat(Qt.TextFormat.RichText)
        self.header.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        self.sections_model = DiffModel(section_delta_columns("heuristic"), SECTION_COLOURS, self)
        self.sections_proxy = RecordFilterProxy(self)
        self.sections_proxy.setSourceModel(self.sections_model)
        self.sections: QTableView = make_table_view(self.sections_proxy, self)
        self.sections.setToolTip("Tokens per section in the baseline and now")
        self.sections.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # a summary; keyboard focus goes to the changes

        self.changes = ChangeTable(self)
        self.changes.rowActivated.connect(self._on_item_activated)

        self.diff_pane = DiffPane(self, "The assembled context is the same as the baseline's.")
        self.diff_caption, self.diff_view = self.diff_pane.caption, self.diff_pane.view
        self.highlighter = self.diff_pane.highlighter

        self.panes = QSplitter(Qt.Orientation.Horizontal, self)
        self.panes.addWidget(self.changes)
        self.panes.addWidget(self.diff_pane)
        self.panes.setStretchFactor(0, 1)
        self.panes.setStretchFactor(1, 1)
        self.splitter = QSplitter(Qt.Orientation.Vertical, self)
        self.splitter.addWidget(self.sections)
        self.splitter.addWidget(self.panes)
        self.splitter.setStretchFactor(0, 0)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setChildrenCollapsible(False)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.header)
        layout.addWidget(self.splitter, 1)
        layout.addStretch(0)

        self._diff: TraceDiff | None = None
        self._pinned_label = ""
        self._own = False
        self.set_diff(None)

    # -- content ---------------------------------------------------------------------------

    def diff(self) -> TraceDiff | None:
        return self._diff

    def set_diff(self, diff: TraceDiff | None, pinned_label: str = "", own: bool = False) -> None:
        """Show *diff* (None: nothing to compare, explain how to pin a run); *own*: it is against
        the task's run at the project's own settings, not a pinned run."""
        self._diff, self._pinned_label, self._own = diff, pinned_label, own
        self._update_header()
        self.splitter.setVisible(diff is not None)
        if diff is None:
            self.sections_model.set_rows([])
            self.changes.set_changes([], "heuristic")
            self.diff_pane.set_lines((), "")
            return
        rows = [*diff.sections, _whole_context(diff)]
        self.sections_model.set_rows(rows, section_delta_columns(diff.tokenizer))
        for col, width in enumerate((120, 110, 64, 64, 64)):
            self.sections.setColumnWidth(col, width)
        self.changes.set_changes(diff.items, diff.tokenizer)
        if diff.items:  # show the first change's reasons right away
            self.changes.select(lambda _row: True)
        self.diff_pane.set_lines(diff.context_diff, diff_caption(diff))
        self._fit_sections(len(rows))

    def _fit_sections(self, rows: int) -> None:
        """Give the sections table just the height of its rows; the rest goes to the panes below."""
        view = self.sections
        height = view.horizontalHeader().sizeHint().height() + rows * view.verticalHeader().defaultSectionSize()
        height += 2 * view.frameWidth() + 2
        view.setMinimumHeight(min(height, 160))
        total = max(self.splitter.height(), height + 200)
        if not is_user_sized(self.splitter):
            self.splitter.setSizes([height, total - height])

    def _update_header(self) -> None:
        diff = self._diff
        if diff is None:
            self.header.setText(html.escape(EXPLANATION))
            self.header.setToolTip("")
            return
        text = header_html(diff, self._pinned_label, is_dark(self.palette()))
        if self._own:
            text = html.escape(UNTUNED_CAPTION if diff.unchanged else OWN_CAPTION) + "<br>" + text
        self.header.setText(text)
        self.header.setToolTip(
            plain_tip(f"Baseline: {diff.baseline.task_id} ({diff.baseline.feature}), {diff.baseline.project}")
        )

    def changeEvent(self, event: QEvent) -> None:
        # Follow a light/dark switch: diff colours and the header's coloured delta.
        if event.type() == QEvent.Type.PaletteChange:
            self.diff_pane.follow_palette(self.palette())
            self._update_header()
        super().changeEvent(event)

    def _on_item_activated(self, row: object) -> None:
        if isinstance(row, ItemChange):
            self.itemActivated.emit(row.item_id)


def _whole_context(diff: TraceDiff) -> SectionDelta:
    b, c = diff.baseline, diff.current
    over_b = "over budget" if b.over_budget else "within budget"
    over_c = "over budget" if c.over_budget else "within budget"
    return SectionDelta(
        name="",
        title="Whole context",
        budget_before=b.budget,
        budget_after=c.budget,
        tokens_before=diff.context_tokens_before,
        tokens_after=diff.context_tokens_after,
        status_before=over_b,
        status_after=over_c,
    )


def _lines(n: int) -> str:
    return f"{n:,} line" if n == 1 else f"{n:,} lines"


def header_html(diff: TraceDiff, pinned_label: str = "", dark: bool = False) -> str:
    """The one-line header: the baseline, the settings that changed, the context's size before and now."""
    e = html.escape
    b, c = diff.baseline, diff.current
    text = f"<b>Baseline:</b> {e(pinned_label or b.task_id)}"
    if not diff.same_task:
        text = (
            f"<b>Different task:</b> the baseline is {e(b.task_id)} ({e(b.feature)}), "
            f"the current run {e(c.task_id)} ({e(c.feature)}). " + text
        )
    changes = [f"budget {b.budget:,} \u2192 current budget {c.budget:,}"] if b.budget != c.budget else []
    others = [s for s in diff.settings if s.key != "budget"]
    changes += [f"{s.key} {setting_text(s.before)} \u2192 {setting_text(s.after)}" for s in others[:2]]
    if len(others) > 2:
        changes.append(f"{len(others) - 2} more settings")
    text += ", " + e(", ".join(changes) if changes else "same settings")
    tone = _delta_tone(diff.context_delta)
    delta = e(f"({signed(diff.context_delta)})")
    if tone is not None:
        delta = f'<span style="color:{status_colour(tone, dark).name()}">{delta}</span>'
    context = f"{diff.context_tokens_before:,} \u2192 {diff.context_tokens_after:,} {diff.tokenizer} tokens"
    text += f"; context {e(context)} {delta}"
    if diff.unchanged:
        text += " \u2014 no change"
    elif not diff.items and b.context == c.context:
        text += " \u2014 same context"
    return text
