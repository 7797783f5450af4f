"""The *Computed* tab: the task's signals, the computed profile's entries, its debug record.

The signals show for every profile; the entries (activating one emits
:attr:`ComputedTab.itemActivated` with its :class:`~ctxviewer.engine.trace.model.Item`) and
seed 004's Context Debug record for the ``computed`` profile, and say why they are empty for
the others.  The row and HTML helpers are plain functions, tested without a window.
See docs/gui.md and docs/computed-context.md.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping, Sequence
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import QLabel, QPlainTextEdit, QSplitter, QVBoxLayout, QWidget

from ctxviewer.engine.analysis import upstream_items as nine
from ctxviewer.engine.profiles.computed import (
    CODE_REFS,
    DECISIONS,
    DEPENDENCY,
    KNOWLEDGE,
    MAP_ENTRY,
    PATTERNS,
    PRIOR_WORK,
    QUESTION,
    QUESTIONS,
    RELATED,
    SECTIONS,
    WARNINGS,
)
from ctxviewer.engine.registry import find
from ctxviewer.engine.trace.model import INCLUDED, KEPT, Item, Signals, Trace, fate_label
from ctxviewer.engine.trace.model import Signal as TaskSignal
from ctxviewer.engine.wording import plural
from ctxviewer.gui.widgets.details import reached_rows
from ctxviewer.gui.widgets.empty import NO_TASK
from ctxviewer.gui.widgets.fonts import fixed_pitch_font
from ctxviewer.gui.widgets.models import STATUS_TIP, Column, fmt_int, reached_column
from ctxviewer.gui.widgets.splitters import is_user_sized
from ctxviewer.gui.widgets.tables import RecordTable

#: The item kinds the computed profile produces (the Entries table shows these).
ENTRY_KINDS = (KNOWLEDGE, MAP_ENTRY, DEPENDENCY, QUESTION)
#: Section names to the headings of seed 004's injection format, plus the related tasks.
SECTION_TITLES: Mapping[str, str] = {**dict(SECTIONS), RELATED: "Related tasks"}
#: The order the Entries table starts in: the injection's sections, related tasks last.
SECTION_ORDER: tuple[str, ...] = (PATTERNS, WARNINGS, DECISIONS, PRIOR_WORK, CODE_REFS, QUESTIONS, RELATED)
#: How a signal's kind is shown; the stopwords are words removed before matching.
SIGNAL_KINDS: Mapping[str, str] = {
    "keyword": "keyword",
    "domain": "domain",
    "file": "file",
    "type": "type",
    "phase": "phase",
    "complexity": "complexity",
    "stopword": "stopword",
}
#: Short section names for the Entries table's narrow first column.
SECTION_SHORT: Mapping[str, str] = {
    PATTERNS: "Patterns",
    WARNINGS: "Warnings",
    DECISIONS: "Decisions",
    PRIOR_WORK: "Prior work",
    CODE_REFS: "Code refs",
    QUESTIONS: "Questions",
    RELATED: "Related",
}
#: Seed 004's phase 4 weights, for the score breakdown of a context-map entry.
COMPONENT_WEIGHTS: tuple[tuple[str, int, str], ...] = (
    ("component", 2, "keyword in the component name"),
    ("location", 1, "keyword in the location"),
    ("notes", 1, "domain in the notes"),
    ("file", 3, "file mentioned, in the location"),
)

NOT_COMPUTED = (
    "Knowledge, prior work and code references are chosen by the computed profile \u2014 "
    "choose Profile \u25b8 computed in the Budget panel. The signals on the left are every profile's."
)
ENTRIES_TIP = (
    "Every knowledge node, context-map entry, dependency and blocking question the computed profile considered"
)
SIGNALS_TIP = "What the task says about itself: its keywords, domains, files, type and phase (every profile's)"
DEBUG_TIP = "The computed profile's Context Debug record of this run: its signals, what it chose and why"
NO_TRACE = NO_TASK
NO_SIGNALS = "This trace carries no signals (it was saved by an older ctxviewer)."
DASH = "\u2014"


# -- signals ------------------------------------------------------------------------------


def signal_rows(signals: Signals) -> list[TaskSignal]:
    """Every signal in the order the panel lists them: keywords, domains, files, task, stopwords."""
    return [*signals.keywords, *signals.domains, *signals.files, *signals.task, *signals.stopwords]


def signal_kind(signal: TaskSignal) -> str:
    return SIGNAL_KINDS.get(signal.kind, signal.kind)


#: The entries table keeps this many rows in view beside its detail pane and the Context Debug record.
ENTRY_ROWS = 4


def signal_columns() -> list[Column]:
    return [
        Column(
            "Kind",
            signal_kind,
            None,
            "keyword, domain, file (mentioned in the task's text), type, phase, complexity, "
            "or a stopword (removed before matching)",
        ),
        Column("Value", lambda s: s.value, None, "The signal's value (keywords lowercased, plurals folded)"),
        Column("From", lambda s: "; ".join(s.sources), None, "The task fields it came from"),
    ]


def signals_summary(signals: Signals) -> str:
    """One line: ``12 keywords · domains: auth, database · 2 files mentioned · complexity normal``."""
    if not signal_rows(signals):
        return NO_SIGNALS
    parts = [plural(len(signals.keywords), "keyword")]
    domains = [s.value for s in signals.domains]
    parts.append(f"domains: {', '.join(domains)}" if domains else "no domain")
    parts.append(f"{plural(len(signals.files), 'file')} mentioned" if signals.files else "no file mentioned")
    parts += [f"{s.kind} {s.value}" for s in signals.task]
    if signals.stopwords:
        parts.append(f"{plural(len(signals.stopwords), 'stopword')} removed")
    return " \u00b7 ".join(parts)


# -- entries ------------------------------------------------------------------------------


def entry_items(trace: Trace) -> list[Item]:
    """The computed profile's items, by section (injection order), then rank (unranked last)."""
    items = [i for i in trace.items if i.kind in ENTRY_KINDS]
    order = {name: n for n, name in enumerate(SECTION_ORDER)}
    positions = {id(i): n for n, i in enumerate(items)}
    return sorted(
        items,
        key=lambda i: (
            order.get(i.section, len(order)),
            i.rank is None,
            i.rank if i.rank is not None else 0,
            positions[id(i)],
        ),
    )


def section_title(item: Item) -> str:
    return SECTION_TITLES.get(item.section, item.section.replace("_", " "))


_BOLD = re.compile(r"\*\*(.+?)\*\*")


def _table_cells(text: str) -> list[str]:
    """The cells of one markdown table row (``| a | b | c |``), pipes in cells unescaped."""
    inner = text.strip()
    if not (inner.startswith("|") and inner.endswith("|")):
        return []
    cells = re.split(r"(?<!\\)\|", inner[1:-1])
    return [c.strip().strip("`").replace("\\|", "|") for c in cells]


def component_name(item: Item) -> str:
    """A context-map entry's component name (its location when it has none)."""
    name = item.details.get("component")
    if isinstance(name, str) and name:
        return name
    cells = _table_cells(item.text)
    if len(cells) >= 2 and cells[1]:
        return cells[1]
    location = item.details.get("location")
    if isinstance(location, str) and location:
        return location
    return cells[0] if cells else item.id


def entry_label(item: Item) -> str:
    """What the entry is, in a few words: the node's summary, the component, the dependency."""
    summary = item.details.get("summary")
    if isinstance(summary, str) and summary:
        return summary
    if item.kind == MAP_ENTRY:
        return component_name(item)
    if item.kind == DEPENDENCY:
        dep = item.id.split(":", 1)[-1]
        title = next((line[5:].strip() for line in item.text.splitlines() if line.startswith("#### ")), "")
        return f"{dep} \u2014 {title}" if title and title != dep else dep
    first = item.text.strip().splitlines()[0] if item.text.strip() else ""
    if item.kind == KNOWLEDGE and first:
        first = first.removeprefix("- ")
        first = re.sub(r"^\u26a0\ufe0f\s*\*\*[^*]+\*\*:\s*", "", first)  # "⚠️ **high**: "
        first = re.sub(r"\s*\(see: [^)]*\)$", "", first)
        return _BOLD.sub(r"\1", first)
    if item.kind == QUESTION and first:
        return _BOLD.sub(r"\1", first.removeprefix("- "))
    node_id = item.details.get("id")
    if isinstance(node_id, str) and node_id:
        return node_id
    if first:
        return first
    # A node with nothing rendered (a related task): where it is in the context map.
    where = item.source.rsplit(" ", 1)[-1] if item.source else item.id
    return f"{item.part} {where}" if item.part and not where.startswith(item.part) else where


def entry_columns() -> list[Column]:
    return [
        Column(
            "Section",
            lambda i: SECTION_SHORT.get(i.section, section_title(i)),
            lambda i: (SECTION_ORDER.index(i.section) if i.section in SECTION_ORDER else 99, i.rank or 0),
            "The injection section the entry belongs to: Patterns to Follow, Warnings, Relevant Decisions, "
            "Prior Work, Code References, Open Questions (Blocking); Related tasks are counted, never rendered",
        ),
        Column("Entry", entry_label, None, "The node's summary, the component, or the dependency"),
        Column(
            "Score",
            lambda i: "" if i.score is None else fmt_int(i.score),
            lambda i: i.score,
            "Knowledge: tags among the query's words; components: the computed profile's relevance score",
            numeric=True,
        ),
        Column(
            "Rank",
            lambda i: "" if i.rank is None else str(i.rank),
            lambda i: i.rank,
            "Position in its section after a stable sort by score (dependencies: their order)",
            numeric=True,
        ),
        Column("Status", lambda i: i.status, None, STATUS_TIP, status=True),
        reached_column(),
        Column("Reason", lambda i: i.reason, None, "Why the profile did this"),
    ]


def _list(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return ", ".join(html.escape(str(v)) for v in value) or "none"
    return html.escape(str(value))


def _breakdown(details: Mapping[str, Any]) -> list[str]:
    """The phase 4 score of a component, term by term (empty when the details lack it)."""
    why = details.get("score_breakdown") or details.get("matched") or details
    if not isinstance(why, Mapping):
        return []
    rows = []
    for key, weight, what in COMPONENT_WEIGHTS:
        words = why.get(key)
        if isinstance(words, (list, tuple)) and words:
            rows.append(f"+{weight * len(words)} = {len(words)} \u00d7 {weight} ({what}: {_list(words)})")
    return rows


def _tags(details: Mapping[str, Any], matched: Sequence[str]) -> str:
    tags = details.get("tags")
    if not isinstance(tags, (list, tuple)) or not tags:
        return "none"
    hit = set(matched)
    return ", ".join(f"<b>{html.escape(str(t))}</b>" if t in hit else html.escape(str(t)) for t in tags)


_SKIP_KEYS = {"summary", "score_breakdown", "matched", "tags"}


def entry_html(item: Item) -> str:
    """The detail pane of one entry: what it is, its fate and why, where from, its text."""
    if item.kind in nine.NINE_KINDS:
        return nine_html(item)
    status = fate_label(item.status)
    rows = [
        f"<b>{html.escape(entry_label(item))}</b>",
        f"{html.escape(section_title(item))} \u00b7 {html.escape(item.part)}"
        + (f" \u00b7 score <b>{item.score}</b>" if item.score is not None else "")
        + (f" \u00b7 rank <b>{item.rank}</b>" if item.rank is not None else ""),
        f"<b>{status}</b>: {html.escape(item.reason) or DASH}",
        *reached_rows(item),
        f"Source: {html.escape(item.source)}",
    ]
    d = item.details
    if item.kind == KNOWLEDGE:
        rows.append(f"Tags (matched in bold): {_tags(d, item.matched_keywords)}")
    elif item.matched_keywords:
        rows.append(f"Matched: {_list(item.matched_keywords)}")
    if item.kind == MAP_ENTRY:
        rows.append(f"Component: {html.escape(component_name(item))}")
        cells = _table_cells(item.text)
        location = d.get("location") if isinstance(d.get("location"), str) else (cells[0] if cells else "")
        notes = d.get("notes") if isinstance(d.get("notes"), str) else (cells[2] if len(cells) > 2 else "")
        rows.append(f"Location: {html.escape(str(location)) or DASH}")
        rows.append(f"Notes: {html.escape(str(notes)) or DASH}")
        terms = _breakdown(d)
        if terms:
            rows.append("Score: " + "<br>&nbsp;&nbsp;".join(["", *terms]))
        elif item.score == 0:
            rows.append("Score 0: nothing of the task's signals in it")
    for key, value in d.items():
        if key in _SKIP_KEYS or item.kind == MAP_ENTRY:
            continue
        label = key.replace("_", " ")
        rows.append(f"{html.escape(label.capitalize())}: {_list(value)}")
    body = "<br>".join(rows)
    if item.text:
        body += f'<pre style="white-space: pre-wrap">{html.escape(item.text)}</pre>'
    elif item.status not in KEPT:
        body += "<p><i>Not rendered: it has no place in the context.</i></p>"
    return body


# -- the nine-section versions' candidates ---------------------------------------------------

NINE_HEADING = "Sections' candidates"
NINE_TIP = (
    "Every engineering rule, MCP server, switch and repository-map module and symbol the nine-section "
    "version considered, with its fate and why (spec paragraphs and security rule files have their own tabs)"
)
NINE_DEBUG_HEADING = "Compact mode and cuts"
NINE_DEBUG_TIP = (
    "Where the character limits fell, and every replacement of the compact formatter with the text before and after"
)


#: Short section names for the table's narrow first column (the detail pane says them in full).
NINE_SHORT: Mapping[str, str] = {
    "engineering_rules": "Engineering",
    "mcp_hints": "MCP",
    "depth_guidance": "Depth",
    "behavioral_mode": "Mode",
    "tdd_enforcement": "TDD",
    "efficiency_hints": "Efficiency",
    "repo_map": "Repo map",
}


def nine_columns() -> list[Column]:
    return [
        Column(
            "Section",
            lambda i: NINE_SHORT.get(i.section, nine.section_title(i)),
            lambda i: list(nine.SECTION_TITLES).index(i.section) if i.section in nine.SECTION_TITLES else 99,
            "The section of the nine the candidate belongs to",
        ),
        Column(
            "Entry", nine.item_label, None, "The rule (id: title), the server, the variable, the module or the symbol"
        ),
        Column(
            "Rank",
            lambda i: "" if i.rank is None else str(i.rank),
            lambda i: i.rank,
            "Engineering rules: the line of the summary after sorting by priority",
            numeric=True,
        ),
        Column("Status", lambda i: i.status, None, STATUS_TIP, status=True),
        reached_column(),
        Column("Reason", lambda i: i.reason, None, "Why the version did this"),
    ]


def nine_html(item: Item) -> str:
    """The detail pane of a nine-section candidate: its fate and why, its facts, its text."""
    rows = [
        f"<b>{html.escape(nine.item_label(item))}</b> ({html.escape(nine.KIND_WORDS.get(item.kind, item.kind))})",
        f"<b>{fate_label(item.status)}</b>: {html.escape(item.reason) or DASH}",
        *reached_rows(item),
    ]
    long_facts = []
    for label, value in nine.item_facts(item):
        if "\n" in value or label.endswith("compact mode"):
            long_facts.append(
                f'<i>{html.escape(label)}:</i><pre style="white-space: pre-wrap">{html.escape(value)}</pre>'
            )
        else:
            rows.append(f"{html.escape(label)}: {html.escape(value)}")
    body = "<br>".join(rows)
    if long_facts:
        body += "".join(long_facts)
    elif item.text:
        body += f'<pre style="white-space: pre-wrap">{html.escape(item.text)}</pre>'
    elif item.status not in KEPT:
        body += "<p><i>Not rendered: it has no place in the context.</i></p>"
    return body


def nine_debug_text(trace: Trace) -> str:
    """The plain-text pane under the table: the cuts, compact mode's replacements, the run's notes."""
    lines = ["Character limits:"]
    lines += [f"  {c}" for c in nine.cuts(trace)] or ["  none was reached"]
    compact = trace.settings.get("compact_mode")
    value = compact.value if compact is not None else None
    lines += ["", f"Compact mode (compact_mode = {'unset' if value is None else repr(value)}):"]
    found = nine.replacements(trace)
    if not found:
        lines.append("  off: no abbreviation" if value not in ("1", "true") else "  on, and nothing to abbreviate")
    for r in found:
        change = f"{r.tokens_before:,} \u2192 {r.tokens_after:,} tokens"
        lines.append(f"  #{r.order} {r.section}: {r.full!r} \u2192 {r.short!r}, {r.count} time(s); {change}")
    for item in nine.compacted_items(trace):  # each changed line, before (-) and after (+)
        lines += ["", f"{nine.section_title(item)} \u00b7 {nine.item_label(item)}:"]
        lines += [f"  {line}" for line in nine.changed_lines(item)]
    if trace.warnings:
        lines += ["", "Notes:", *(f"  {w}" for w in trace.warnings)]
    return "\n".join(lines)


def entries_summary(items: Sequence[Item]) -> str:
    """``23 of 71 entries included · Patterns to Follow 5 · Warnings 3 · …`` (kept per section)."""
    kept = [i for i in items if i.status == INCLUDED]
    parts = [f"{len(kept):,} of {plural(len(items), 'entry', 'entries')} included"]
    for name, title in SECTIONS:
        n = sum(1 for i in kept if i.section == name)
        if n:
            parts.append(f"{title} {n}")
    return " \u00b7 ".join(parts)


def _heading(text: str, tip: str, parent: QWidget) -> QLabel:
    label = QLabel(f"<b>{html.escape(text)}</b>", parent)
    label.setTextFormat(Qt.TextFormat.RichText)
    label.setToolTip(tip)
    return label


# -- the tab ------------------------------------------------------------------------------


class ComputedTab(QWidget):
    """Signals | (Entries over Context Debug), for one trace.

    ``itemActivated`` carries the :class:`~ctxviewer.engine.trace.model.Item` of an entry that
    was double-clicked or had Enter pressed on it.
    """

    itemActivated = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._trace: Trace | None = None
        self._fitted = False
        self._nine_sized = False

        # Signals (left)
        self.signals_summary = QLabel(NO_TRACE, self)
        self.signals_summary.setTextFormat(Qt.TextFormat.PlainText)  # quotes the task's own words
        self.signals_summary.setWordWrap(True)
        self.signals_summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.signals = RecordTable(signal_columns(), None, statuses=False, noun="signals", parent=self)
        left = self.left = QWidget(self)
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.setSpacing(2)
        left_layout.addWidget(
            _heading(
                "Signals",
                "What the task says about itself: its keywords, domains, files, type and phase (every profile's)",
                left,
            )
        )
        left_layout.addWidget(self.signals_summary)
        left_layout.addWidget(self.signals, 1)

        # Entries (right, top)
        self.entries_message = QLabel(NO_TRACE, self)
        self.entries_message.setTextFormat(Qt.TextFormat.PlainText)
        self.entries_message.setWordWrap(True)
        self.entries_message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.entries = RecordTable(entry_columns(), entry_html, statuses=True, noun="entries", parent=self)
        self.entries.detail.setPlaceholderText("Select an entry to see its score, where it came from and why.")
        self.entries.rowActivated.connect(self._on_activated)
        self.entries.keep_rows(ENTRY_ROWS)
        top = QWidget(self)
        top_layout = QVBoxLayout(top)
        top_layout.setContentsMargins(0, 0, 0, 0)
        top_layout.setSpacing(2)
        self.entries_heading = _heading("Entries", ENTRIES_TIP, top)
        top_layout.addWidget(self.entries_heading)
        top_layout.addWidget(self.entries_message)
        top_layout.addWidget(self.entries, 1)

        # Context Debug (right, bottom)
        self.debug = QPlainTextEdit(self)
        self.debug.setReadOnly(True)
        self.debug.setFont(fixed_pitch_font())
        self.debug.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.debug.setPlainText(NO_TRACE)
        bottom = QWidget(self)
        bottom_layout = QVBoxLayout(bottom)
        bottom_layout.setContentsMargins(0, 0, 0, 0)
        bottom_layout.setSpacing(2)
        self.debug_heading = _heading("Context Debug", DEBUG_TIP, bottom)
        bottom_layout.addWidget(self.debug_heading)
        bottom_layout.addWidget(self.debug, 1)

        self.right = QSplitter(Qt.Orientation.Vertical, self)
        self.right.addWidget(top)
        self.right.addWidget(bottom)
        self.right.setStretchFactor(0, 3)
        self.right.setStretchFactor(1, 1)
        self.right.setChildrenCollapsible(False)
        self.splitter = QSplitter(Qt.Orientation.Horizontal, self)
        self.splitter.addWidget(left)
        self.splitter.addWidget(self.right)
        self.splitter.setStretchFactor(0, 34)
        self.splitter.setStretchFactor(1, 66)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.setSizes([340, 660])
        self.right.setSizes([450, 150])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.splitter)

    # -- content ----------------------------------------------------------------------

    def trace(self) -> Trace | None:
        return self._trace

    def set_trace(self, trace: Trace | None) -> None:
        """Show *trace* (None: the empty state, with words, not blanks)."""
        self._trace = trace
        if trace is None:
            self.signals_summary.setText(NO_TRACE)
            self.signals.set_rows([])
            self._show_entries(NO_TRACE, [])
            self.debug.setPlainText(NO_TRACE)
            return
        self.signals_summary.setText(signals_summary(trace.signals))
        self.signals.set_rows(signal_rows(trace.signals))
        self._fit_signal_columns()
        upstream = nine.nine_items(trace)
        self._set_headings(bool(upstream))
        # The nine-section versions match words their own way (each candidate says how): the
        # signals pane gives its width to their candidates; the Task tab keeps the keywords.
        self.left.setVisible(not upstream)
        if upstream:  # a nine-section version: its own candidates, its cuts and compact mode
            if not self._nine_sized:  # the signals matter less here: the candidates get the room
                self._nine_sized = self.isVisible()  # hidden, sizes are only proportions: again when shown
                self._size_for_nine()
            self._show_entries(nine.counts_line(upstream), upstream, nine_columns())
            self.entries.select(lambda i: True)
            self.debug.setPlainText(nine_debug_text(trace))
            self.debug.verticalScrollBar().setValue(0)  # from the top: the cuts come first
            return
        profile = find(trace.profile)
        if not trace.debug and (profile is None or not profile.debug_record):
            # No entries: the signals (every profile's) take half, their sources readable.
            if not is_user_sized(self.splitter):
                half = max(self.splitter.width(), 2) // 2
                self.splitter.setSizes([half, half])
            self._show_entries(NOT_COMPUTED, [])
            self.debug.setPlainText(
                f"This run used the {trace.profile} profile, which keeps no Context Debug record.\n\n" + NOT_COMPUTED
            )
            return
        if not is_user_sized(self.splitter):  # the computed profile's entries take the larger part
            width = max(self.splitter.width(), 100)
            self.splitter.setSizes([width * 34 // 100, width - width * 34 // 100])
        items = entry_items(trace)
        self._show_entries(entries_summary(items), items)
        if items:  # start with an entry explained rather than an empty pane
            self.entries.select(lambda i: True)
        self.debug.setPlainText(trace.debug or "This trace carries no Context Debug record.")

    def _set_headings(self, nine_sections: bool) -> None:
        """The right-hand headings: the computed profile's, or the nine-section versions'."""
        entries = (NINE_HEADING, NINE_TIP) if nine_sections else ("Entries", ENTRIES_TIP)
        debug = (NINE_DEBUG_HEADING, NINE_DEBUG_TIP) if nine_sections else ("Context Debug", DEBUG_TIP)
        for label, (text, tip) in ((self.entries_heading, entries), (self.debug_heading, debug)):
            label.setText(f"<b>{html.escape(text)}</b>")
            label.setToolTip(tip)

    def _show_entries(self, message: str, items: Sequence[Item], columns: list[Column] | None = None) -> None:
        self.entries_message.setText(message)
        self.entries.set_rows(items, columns=columns or entry_columns())
        # Without entries the detail pane would only be an empty box under an empty table.
        self.entries.detail_area().setVisible(bool(items))
        self._fit_entry_columns()

    def _fit_signal_columns(self) -> None:
        fm, view = self.signals.view.fontMetrics(), self.signals.view
        kinds = [signal_kind(s) for s in self.signals.model.rows()] or ["keyword"]
        view.setColumnWidth(0, max(fm.horizontalAdvance(k) for k in kinds) + 14)
        values = [s.value for s in self.signals.model.rows()] or ["keyword"]
        view.setColumnWidth(1, min(120, max(fm.horizontalAdvance(v) for v in values) + 14))

    def _fit_entry_columns(self) -> None:
        """Section, Score, Rank and Status as narrow as their words; Entry takes the room
        left (at least 120 px) so the status stays in sight in a narrow pane."""
        view = self.entries.view
        fm = view.fontMetrics()
        if self.entries_heading.text() == f"<b>{html.escape(NINE_HEADING)}</b>":
            fixed = {
                0: fm.horizontalAdvance("Engineering") + 14,
                2: fm.horizontalAdvance("Rank") + 14,
                3: fm.horizontalAdvance("cut for budget") + 14,
            }
        else:
            fixed = {
                0: fm.horizontalAdvance("Prior work") + 14,
                2: fm.horizontalAdvance("Score") + 14,
                3: fm.horizontalAdvance("Rank") + 14,
                4: fm.horizontalAdvance("included") + 14,
            }
        for column, width in fixed.items():
            view.setColumnWidth(column, width)
        room = view.viewport().width() - sum(fixed.values()) - 24
        if 4 in fixed:
            view.setColumnWidth(1, max(120, min(420, room)))
        else:  # the reason is the last column and says the most: the entry takes half the room
            view.setColumnWidth(1, max(120, min(300, room // 2)))

    def _size_for_nine(self) -> None:
        """Room for the candidates: the table over its detail, then the cuts and compact mode below."""
        height = max(self.right.height(), 400)
        if not is_user_sized(self.right):
            self.right.setSizes([height * 7 // 10, height - height * 7 // 10])
        inner = max(self.entries.splitter.height(), 240)
        if not is_user_sized(self.entries.splitter):
            self.entries.splitter.setSizes([inner // 2, inner - inner // 2])

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if not self._nine_sized and self._trace is not None and nine.nine_items(self._trace):
            self._nine_sized = True
            self._size_for_nine()
        if not self._fitted:  # the first time the pane has its real width
            self._fitted = True
            self._fit_entry_columns()

    def select_item(self, item_id: str) -> bool:
        """Select the entry with id *item_id* (e.g. ``knowledge:4``); False when it is not listed."""
        return self.entries.select(lambda i: i.id == item_id)

    def _on_activated(self, item: object) -> None:
        if isinstance(item, Item):
            self.itemActivated.emit(item)
