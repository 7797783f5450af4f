"""Table models over a trace's rows: paragraphs, rule files, sections, trim steps, ...

Every table is a :class:`RecordModel`: a read-only ``QAbstractTableModel`` over a
tuple of immutable rows, described by a list of :class:`Column` s (header, how to
show a row, how to sort it, what the number means).  Sorting and filtering happen in
:class:`RecordFilterProxy`; the models never change a row.  See docs/architecture.md.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
)
from PySide6.QtGui import QBrush, QColor, QGuiApplication, QPalette

from ctxviewer.engine.tokens.counting import CL100K, EXACT_ENCODINGS, HEURISTIC, O200K, TokenCounts
from ctxviewer.engine.trace.model import (
    CUT_FOR_BUDGET,
    INCLUDED,
    NOT_CANDIDATE,
    OUTRANKED,
    TRUNCATED,
    Item,
    Section,
    Trace,
    fate_label,
    step_label,
)
from ctxviewer.gui.widgets.plaintext import plain_tip

#: The row object behind an index (for views that want the whole row).
RowRole = Qt.ItemDataRole.UserRole + 1
#: The value the proxy sorts by (numbers sort as numbers, None last).
SortRole = Qt.ItemDataRole.UserRole + 2
#: The status string of the row, when it has one (filtering by fate).
StatusRole = Qt.ItemDataRole.UserRole + 3

_Index = QModelIndex | QPersistentModelIndex

# The roles as plain ints, and the answers that never change, made once: a view asks every
# cell it paints for a dozen roles, each a call into Python.
_DISPLAY = int(Qt.ItemDataRole.DisplayRole)
_TOOLTIP = int(Qt.ItemDataRole.ToolTipRole)
_ALIGNMENT = int(Qt.ItemDataRole.TextAlignmentRole)
_FOREGROUND = int(Qt.ItemDataRole.ForegroundRole)
#: The roles a cell answers; any other is None at once.
_ANSWERED = frozenset({_DISPLAY, _TOOLTIP, _ALIGNMENT, _FOREGROUND, SortRole, RowRole, StatusRole})
_RIGHT = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
_LEFT = int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
_CELL_FLAGS = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemNeverHasChildren
_NO_FLAGS = Qt.ItemFlag.NoItemFlags


def is_dark(palette: QPalette | None = None) -> bool:
    """Whether the palette is a dark one (window darker than its text)."""
    pal = palette or QGuiApplication.palette()
    return pal.color(QPalette.ColorRole.Window).lightness() < pal.color(QPalette.ColorRole.WindowText).lightness()


_STATUS_COLOURS = {
    # (light palette, dark palette).  Only the drops (and failures) are red or orange:
    # a candidate that was never in the running is muted, not alarming.
    INCLUDED: ("#1b7f3b", "#7bd88f"),
    TRUNCATED: ("#1f5fa8", "#8ab4f8"),
    CUT_FOR_BUDGET: ("#b3261e", "#ff8a80"),
    OUTRANKED: ("#a35c00", "#ffb454"),
    NOT_CANDIDATE: ("#6b6b6b", "#a0a0a0"),
    "failed": ("#b3261e", "#ff8a80"),
    "empty": ("#6b6b6b", "#a0a0a0"),
}

#: What each fate means, for tooltips.
FATE_TIPS = {
    INCLUDED: "in the context whole",
    TRUNCATED: "in the context, partly",
    CUT_FOR_BUDGET: "a candidate (matched or scored) that lost for lack of room",
    OUTRANKED: "a candidate that lost to better-ranked ones (a top-k or a count cap), not to room",
    NOT_CANDIDATE: "never in the running: no task file matched it, it scored 0, its file is missing ... "
    "(the reason says which)",
}
STATUS_TIP = "; ".join(f"{fate_label(f)}: {t}" for f, t in FATE_TIPS.items())


def status_colour(status: str, dark: bool | None = None) -> QColor:
    """The colour a status is written in; the word itself is always shown too."""
    light_c, dark_c = _STATUS_COLOURS.get(status, ("#6b6b6b", "#a0a0a0"))
    return QColor(dark_c if (is_dark() if dark is None else dark) else light_c)


def fmt_int(value: int | None) -> str:
    return "n/a" if value is None else f"{value:,}"


def fmt_delta(exact: int | None, estimate: int) -> str:
    """Exact minus estimate, signed (a true minus sign), or n/a."""
    if exact is None:
        return "n/a"
    diff = exact - estimate
    if diff == 0:
        return "0"
    return f"+{diff:,}" if diff > 0 else f"\u2212{-diff:,}"


@dataclass(frozen=True)
class Column:
    """One column: its header, its cell text, its sort key and what it means."""

    header: str
    text: Callable[[Any], str]
    key: Callable[[Any], Any] | None = None
    tip: str = ""
    numeric: bool = False
    status: bool = False
    #: Its texts are short and must be read whole (a file name, a setting's key): the table
    #: fits the column to them, as it does numbers and statuses, before it shares out the rest.
    whole: bool = False
    #: A row's own words for the cell's tooltip (beside the column's tip).
    detail: Callable[[Any], str] | None = None


class RecordModel(QAbstractTableModel):
    """A read-only table over immutable rows."""

    def __init__(self, columns: Sequence[Column], parent: Any = None) -> None:
        super().__init__(parent)
        self._columns = tuple(columns)
        self._rows: tuple[Any, ...] = ()

    # -- content -------------------------------------------------------------------

    def set_rows(self, rows: Sequence[Any], columns: Sequence[Column] | None = None) -> None:
        """Show *rows*, with new *columns* when the run's tokenizer changes their headers/tips."""
        self.beginResetModel()
        if columns is not None:
            self._columns = tuple(columns)
        self._rows = tuple(rows)
        self.endResetModel()

    def rows(self) -> tuple[Any, ...]:
        return self._rows

    def columns(self) -> tuple[Column, ...]:
        return self._columns

    def row_of(self, predicate: Callable[[Any], bool]) -> int | None:
        return next((n for n, r in enumerate(self._rows) if predicate(r)), None)

    # -- Qt model API ---------------------------------------------------------------

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._columns)

    def flags(self, index: _Index) -> Qt.ItemFlag:
        return _CELL_FLAGS if index.isValid() else _NO_FLAGS

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(self._columns):
            return None
        col = self._columns[section]
        if role == Qt.ItemDataRole.DisplayRole:
            return col.header
        if role == Qt.ItemDataRole.ToolTipRole:
            return col.tip or None
        return None

    def data(self, index: _Index, role: int = _DISPLAY) -> Any:
        if role not in _ANSWERED or not index.isValid():
            return None
        r, c = index.row(), index.column()
        if r >= len(self._rows) or c >= len(self._columns):
            return None
        row = self._rows[r]
        col = self._columns[c]
        if role == _DISPLAY:
            return fate_label(col.text(row)) if col.status else col.text(row)
        if role == _TOOLTIP:
            text = fate_label(col.text(row)) if col.status else col.text(row)
            if col.detail is not None and col.detail(row):
                text = f"{text}: {col.detail(row)}"
            return plain_tip(f"{col.header}: {text}\n{col.tip}" if col.tip else text)
        if role == _ALIGNMENT:
            return _RIGHT if col.numeric else _LEFT
        if role == _FOREGROUND:
            # palette read now: follows a theme switch
            return QBrush(status_colour(col.text(row))) if col.status else None
        if role == SortRole:
            value = col.key(row) if col.key else fate_label(col.text(row)) if col.status else col.text(row)
            return _sortable(value)
        if role == RowRole:
            return row
        if role == StatusRole:
            return getattr(row, "status", None)
        return None


def _sortable(value: Any) -> Any:
    # QSortFilterProxyModel compares QVariants; keep numbers numeric and put blanks last.
    if value is None:
        return float("inf")
    return value


class RecordFilterProxy(QSortFilterProxyModel):
    """Sorts by :data:`SortRole`; filters by status and by free text.

    The text filter matches any column's text and, for candidates, their full text,
    so a paragraph can be found by words that are not shown in a column.
    """

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.setSortRole(SortRole)
        self._statuses: frozenset[str] | None = None
        self._needle = ""

    def set_text(self, text: str) -> None:
        """Show only rows containing *text* (case-insensitive); '' shows all."""
        self.beginFilterChange()
        self._needle = text.strip().lower()
        self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def set_statuses(self, statuses: frozenset[str] | None) -> None:
        """Show only rows whose status is in *statuses* (None: all)."""
        self.beginFilterChange()
        self._statuses = statuses
        self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def filterAcceptsRow(self, source_row: int, source_parent: _Index) -> bool:
        model = self.sourceModel()
        if self._statuses is not None:
            status = model.data(model.index(source_row, 0, source_parent), StatusRole)
            if status not in self._statuses:
                return False
        if not self._needle:
            return True
        for column in range(model.columnCount(source_parent)):
            cell = model.data(model.index(source_row, column, source_parent))
            if cell and self._needle in str(cell).lower():
                return True
        row = model.data(model.index(source_row, 0, source_parent), RowRole)
        return self._needle in str(getattr(row, "text", "")).lower()

    def lessThan(self, left: _Index, right: _Index) -> bool:
        a, b = left.data(SortRole), right.data(SortRole)
        try:
            return bool(a < b)
        except TypeError:
            return str(a) < str(b)


# -- column sets -------------------------------------------------------------------------

#: A candidate's path to the worker, in a table cell.
REACHED_CELLS = {"memory": "memory", "prompt": "prompt", "prompt_part": "partly", "no": "no", "": ""}
REACHED_TIP = (
    "Whether this candidate's text reached the worker's model session (its prompt and project memory), "
    "and how: memory (its file loads as Claude Code project memory), prompt (all its lines are in the "
    "prompt), partly (some are) or no (docs/worker-window.md). The plugin's context reaches the worker "
    "only through a task's design-time context."
)


def reached_column() -> Column:
    """The *Reached worker* column every candidate table has beside the plugin's fate."""
    return Column(
        "Worker",
        lambda i: REACHED_CELLS.get(i.reached, i.reached),
        lambda i: ("memory", "prompt", "prompt_part", "no", "").index(i.reached) if i.reached in REACHED_CELLS else 9,
        REACHED_TIP,
        detail=lambda i: i.reached_how,
    )


def _tok(counts: TokenCounts, tokenizer: str) -> int:
    value = counts.get(tokenizer)
    return counts.heuristic if value is None else value


def paragraph_columns(tokenizer: str) -> list[Column]:
    return [
        Column(
            "Rank",
            lambda i: "" if i.rank is None else str(i.rank),
            lambda i: i.rank,
            "Position after a stable sort by score, highest first (ties keep file order); blank when the score is 0",
            numeric=True,
        ),
        Column(
            "File",
            lambda i: i.source.rsplit("/", 1)[-1],
            lambda i: (i.source, i.line_start or 0),
            "The spec file the paragraph comes from",
            whole=True,
        ),
        Column(
            "Lines",
            lambda i: "" if i.line_start is None else f"{i.line_start}\u2013{i.line_end}",
            lambda i: i.line_start,
            "Where the paragraph sits in its file",
            numeric=True,
        ),
        Column(
            "Score",
            lambda i: fmt_int(i.score),
            lambda i: i.score,
            "Keyword score: how many task keywords occur in the lowercased paragraph",
            numeric=True,
        ),
        Column(
            "Keywords",
            lambda i: ", ".join(i.matched_keywords),
            lambda i: len(i.matched_keywords),
            "Matched keywords: the task keywords found in this paragraph",
        ),
        Column(
            "Tokens",
            lambda i: fmt_int(_tok(i.tokens, tokenizer)),
            lambda i: _tok(i.tokens, tokenizer),
            f"Size of the whole paragraph in {tokenizer} tokens",
            numeric=True,
        ),
        Column(
            "Status",
            lambda i: i.status,
            None,
            STATUS_TIP,
            status=True,
        ),
        reached_column(),
        Column("Reason", lambda i: i.reason, None, "Why the pipeline did this"),
    ]


def _detail_int(item: Item, key: str) -> int | None:
    value = item.details.get(key)
    return value if isinstance(value, int) else None


def _matched_by(item: Item) -> str:
    entries = item.details.get("matched_by") or ()
    parts = [f"{e.get('file')} ({e.get('by')})" for e in entries if isinstance(e, dict)]
    return ", ".join(parts)


def rule_columns(tokenizer: str) -> list[Column]:
    return [
        Column(
            "Rule file",
            lambda i: i.source.split("/security/", 1)[-1],
            lambda i: i.source,
            "The security rule file under the rules folder",
        ),
        Column(
            "Trigger",
            lambda i: str(i.details.get("trigger", "")),
            None,
            "What makes the pipeline consider this file for a task",
        ),
        Column("Matched by", _matched_by, None, "The task file (and its extension or name) that matched"),
        Column("Status", lambda i: i.status, None, STATUS_TIP, status=True),
        reached_column(),
        Column(
            "Needed",
            lambda i: fmt_int(_detail_int(i, "needed")),
            lambda i: _detail_int(i, "needed"),
            "Characters of kept rule lines this file would add",
            numeric=True,
        ),
        Column(
            "Left",
            lambda i: fmt_int(_detail_int(i, "left")),
            lambda i: _detail_int(i, "left"),
            "Characters still free in the security budget when this file came up",
            numeric=True,
        ),
        Column(
            "Tokens",
            lambda i: fmt_int(_tok(i.tokens, tokenizer)),
            lambda i: _tok(i.tokens, tokenizer),
            f"Size of the kept block in {tokenizer} tokens",
            numeric=True,
        ),
        Column("Reason", lambda i: i.reason, None, "Why the pipeline did this"),
    ]


@dataclass(frozen=True)
class SectionRow:
    """A section, or the whole context (``section`` None), for the sections table."""

    title: str
    budget: int | None
    tokens: TokenCounts
    status: str
    reason: str
    section: Section | None


def section_rows(trace: Trace) -> list[SectionRow]:
    rows = [SectionRow(s.title, s.budget, s.tokens, s.status, s.reason, s) for s in trace.sections]
    rows.append(
        SectionRow(
            "Whole context",
            trace.budget,
            trace.context_tokens,
            "over budget" if trace.over_budget else "within budget",
            f"budget {trace.budget:,}; the pipeline keeps a {trace.buffer:,}-token buffer",
            None,
        )
    )
    return rows


def section_columns(tokenizer: str) -> list[Column]:
    return [
        Column("Section", lambda r: r.title, None, "A section of the assembled context"),
        Column(
            "Budget",
            lambda r: fmt_int(r.budget),
            lambda r: r.budget,
            f"Token budget of the section ({tokenizer} tokens, as the pipeline decides)",
            numeric=True,
        ),
        Column(
            "Estimate",
            lambda r: fmt_int(r.tokens.heuristic),
            lambda r: r.tokens.heuristic,
            "The pipeline's own estimate: the characters divided by 4",
            numeric=True,
        ),
        *[col for name in EXACT_ENCODINGS for col in _exact_columns(name)],
        Column("Chars", lambda r: fmt_int(r.tokens.chars), lambda r: r.tokens.chars, "Characters", numeric=True),
        Column("Status", lambda r: r.status, None, "Whether the section made it into the context", status=True),
        Column("Reason", lambda r: r.reason, None, "Why"),
    ]


_EXACT_TIPS = {CL100K: "GPT-4 / GPT-3.5", O200K: "GPT-4o family"}


def _exact_columns(name: str) -> tuple[Column, Column]:
    """An exact encoding's count and its difference from the pipeline's estimate."""
    return (
        Column(
            name,
            lambda r: fmt_int(r.tokens.get(name)),
            lambda r: r.tokens.get(name),
            f"Exact count with tiktoken {name} ({_EXACT_TIPS.get(name, name)})",
            numeric=True,
        ),
        Column(
            "\u0394 " + name.split("_")[0],
            lambda r: fmt_delta(r.tokens.get(name), r.tokens.heuristic),
            lambda r: _diff(r.tokens, name),
            f"{name} count minus the estimate",
            numeric=True,
        ),
    )


def _diff(counts: TokenCounts, name: str) -> int | None:
    value = counts.get(name)
    return None if value is None else value - counts.get(HEURISTIC)  # type: ignore[operator]


def trim_columns(unit: str, trace: Trace | None = None) -> list[Column]:
    """The trim steps' columns, in plain words (the identifiers are in the trace and exports)."""
    from ctxviewer.gui.widgets.wording import section_words

    return [
        Column("#", lambda s: str(s.order), lambda s: s.order, "Order in which the cuts happened", numeric=True),
        Column("Section", lambda s: section_words(s.section, trace), None, "Section the cut applies to"),
        Column("Action", lambda s: step_label(s.action), None, "What this step did (the description says how)"),
        Column(
            "Target",
            lambda s: trace.step_target(s) if trace is not None else s.target,
            None,
            "What the step cut: a candidate, a spec file or a source",
        ),
        Column(
            "Before",
            lambda s: fmt_int(s.tokens_before),
            lambda s: s.tokens_before,
            f"{unit} before this step",
            numeric=True,
        ),
        Column(
            "After",
            lambda s: fmt_int(s.tokens_after),
            lambda s: s.tokens_after,
            f"{unit} after this step",
            numeric=True,
        ),
        Column(
            "Removed",
            lambda s: fmt_int(s.tokens_before - s.tokens_after),
            lambda s: s.tokens_before - s.tokens_after,
            f"{unit} this step removed",
            numeric=True,
        ),
        Column("Description", lambda s: s.description, None, "What happened"),
    ]


def search_columns() -> list[Column]:
    return [
        Column("Candidate", lambda m: m.label, None, "Spec paragraph (file:lines) or rule file"),
        Column("Kind", lambda m: "paragraph" if m.kind == "spec_paragraph" else "rule file", None, "What it is"),
        Column("Status", lambda m: m.status, None, "Its fate in this task's context", status=True),
        Column(
            "Found in",
            lambda m: ", ".join(m.found_in),
            None,
            "Where the search text occurs: source (file name), keyword, text, rule (trigger or matching file)",
        ),
        Column("Reason", lambda m: m.reason, None, "Why the pipeline did this"),
        Column("Excerpt", lambda m: m.excerpt, None, "The text around the first occurrence"),
    ]


def keyword_columns() -> list[Column]:
    return [
        Column("Keyword", lambda k: k.word, None, "A task keyword the pipeline scores paragraphs with"),
        Column("From", lambda k: "; ".join(k.sources), None, "Where in the task the keyword came from"),
    ]


def tracked_file_columns() -> list[Column]:
    from ctxviewer.gui.widgets.wording import tracked_note_words

    return [
        Column("File", lambda f: f.path, None, "A task file the tracker counts as read"),
        Column("Size", lambda f: fmt_int(f.size), lambda f: f.size, "Bytes on disk", numeric=True),
        Column(
            "Tokens",
            lambda f: fmt_int(f.tokens),
            lambda f: f.tokens,
            "The tracker's charge for reading it: size * 0.25 + 100 per file read",
            numeric=True,
        ),
        Column("Note", lambda f: tracked_note_words(f.note), None, "Why it counted or did not"),
    ]


def setting_rows(trace: Trace) -> list[tuple[str, str, str]]:
    return [(name, str(s.value), s.origin) for name, s in trace.settings.items()]


def setting_columns() -> list[Column]:
    return [
        Column("Setting", lambda r: r[0], None, "Effective setting", whole=True),
        Column("Value", lambda r: r[1], None, "Its value in this run"),
        Column("From", lambda r: r[2], None, "Where the value came from (default, a config file, an override)"),
    ]
