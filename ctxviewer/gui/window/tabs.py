"""The result tabs: the views of the shown trace, built once and refilled for every run.

:data:`TABS` names them in order.  A view hidden behind another tab is filled when it is
shown or read (:data:`ON_SHOW`).  See docs/gui.md.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QTabWidget, QWidget

from ctxviewer.engine.analysis.findings import describe
from ctxviewer.engine.analysis.whatif import TraceDiff
from ctxviewer.engine.tokens.counting import HEURISTIC
from ctxviewer.engine.trace.model import RULE_FILE, SPEC_PARAGRAPH, Item, Trace
from ctxviewer.engine.worker.prompt import WorkerPrompt
from ctxviewer.gui.views.compare_view import CompareTab
from ctxviewer.gui.views.computed_view import ComputedTab
from ctxviewer.gui.views.context_view import ContextView
from ctxviewer.gui.views.findings_view import FindingRow, FindingsTab
from ctxviewer.gui.views.memory_view import MemoryTab
from ctxviewer.gui.views.prompt_view import PromptView
from ctxviewer.gui.views.sections_tab import SectionsTab
from ctxviewer.gui.views.sensitivity_view import TITLE as SENSITIVITY_TITLE
from ctxviewer.gui.views.sensitivity_view import SensitivityView
from ctxviewer.gui.views.task_tab import TaskTab
from ctxviewer.gui.views.trimming_tab import TrimmingTab
from ctxviewer.gui.views.whatif_view import WhatIfTab
from ctxviewer.gui.widgets.details import paragraph_html, rule_html
from ctxviewer.gui.widgets.highlighter import LexedText
from ctxviewer.gui.widgets.models import paragraph_columns, rule_columns
from ctxviewer.gui.widgets.tables import RecordTable
from ctxviewer.gui.worker import Lane

SENSITIVITY_TIP = (
    "At which values of each setting (budget, shares, top-k, switches) the selected candidate is in the "
    "context, worked out exactly; the smallest change that brings it in, and what it pushes out"
)

#: The tabs in order, by name, with their titles (the Findings and What-if titles get marks).
TAB_TITLES = {
    "sections": "Sections",
    "paragraphs": "Paragraphs",
    "rules": "Rules",
    "computed": "Computed",
    "trimming": "Trimming",
    "context": "Plugin context",
    "whatif": "What-if",
    "compare": "Compare",
    "task": "Task",
    "findings": "Findings",
    "prompt": "Prompt",
    "memory": "Memory",
}
TABS = tuple(TAB_TITLES)
#: The candidate tables keep this many rows in view beside their detail pane and the panels below.
TABLE_ROWS = 6
#: The tabs filled only when they are shown or read: a click on a task pays for the tab in
#: sight, not for every view of a trace of a thousand candidates.  Every tab but Compare,
#: which assembles its own runs when asked.
ON_SHOW = tuple(name for name in TABS if name != "compare")


def item_of(trace: Trace | None, row: object) -> Item | None:
    """*trace*'s candidate a table row is about: the row itself, or the one its id names."""
    if isinstance(row, Item):
        return row
    if isinstance(row, FindingRow) and (trace is None or row.task != trace.task_id):
        return None  # another task's finding: its ids name that task's candidates
    item_id = getattr(row, "item_id", None)
    if not isinstance(item_id, str):
        item_id = getattr(row, "item", None)
    return trace.item(item_id) if isinstance(item_id, str) and trace is not None else None


class ResultTabs(QTabWidget):
    """The twelve result tabs over the shown trace (``trace``; None from opening a project until
    its first task is shown).

    Each tab's view is the attribute named as the tab in :data:`TABS`: ``sections``,
    ``paragraphs``, ``rules``, ``computed``, ``trimming``, ``context``, ``whatif``,
    ``compare``, ``task``, ``findings``, ``prompt``, ``memory``.  Those of :data:`ON_SHOW` show the shown
    trace however they are reached: the attribute fills a view whose trace is pending, and so
    does showing its tab.
    """

    message = Signal(str, int)  # a status-bar message and how long it shows, in ms

    def __init__(self, compare_lane: Lane, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        #: The fill each view of ON_SHOW still owes the shown task, by tab name.
        self._pending: dict[str, Callable[[], None]] = {}
        self.setDocumentMode(True)
        # Twelve tabs do not fit beside the panels at 1280 wide: every title is shown whole and
        # the bar scrolls (arrows, the wheel; the tab selected is kept in view, Ctrl+1..9 reach them).
        self.tabBar().setUsesScrollButtons(True)
        self.tabBar().setElideMode(Qt.TextElideMode.ElideNone)
        self.trace: Trace | None = None
        self._sections = SectionsTab(self)
        # The file name is read whole beside the rank, tokens, fate and the Worker column: the
        # reason is promised a quarter of the width (its first words, the rest in its tooltip).
        self._paragraphs = RecordTable(
            paragraph_columns(HEURISTIC), self._paragraph_detail, noun="paragraphs", fit=True, last_share=0.25
        )
        # A paragraph's score is the number of its matched keywords, which are shown; its lines
        # are in the detail pane.  Hidden, the reason keeps its room at 1280x800 beside the
        # Worker column.  The header's menu shows them.
        self.paragraphs.row_actions.hide_columns("Score", "Lines")
        self._rules = RecordTable(rule_columns(HEURISTIC), rule_html, noun="rule files", fit=True, wrap=True)
        # What triggers a file, what matched it and its character counts are in the detail pane
        # (and in the reason); hidden, the reason has room at 1280x800.  The header's menu shows them.
        self.rules.row_actions.hide_columns("Trigger", "Matched by", "Needed", "Left")
        for table in (self.paragraphs, self.rules):
            table.keep_rows(TABLE_ROWS)
        self._trimming = TrimmingTab(self)
        self._context = ContextView(self)
        self._computed = ComputedTab(self)
        self.computed.itemActivated.connect(self.jump_to_item)
        self._whatif = WhatIfTab(self)
        self.compare = CompareTab(compare_lane, self)
        self._task = TaskTab(self)
        self._findings = FindingsTab(self)
        self._prompt = PromptView(self)
        self._memory = MemoryTab(self)
        tips = {
            "sections": "Token share of each section against its budget",
            "paragraphs": "Every candidate spec paragraph, its score and fate",
            "rules": "Every security rule file and why it matched or was skipped",
            "computed": "The task's signals (every profile); the computed profile's knowledge, prior work and code "
            "references with their scores and fates, its Context Debug record; zerg-ai 0.3.2's and today's pipeline's "
            "engineering rules, MCP servers, switches and repository map, their cuts and compact mode",
            "trimming": "The cuts, in order, with tokens before and after",
            "context": "The plugin's assembled context, exactly: it reaches the worker only as a task's "
            "design-time context",
            "whatif": "This run against the pinned baseline: token deltas, what entered or left",
            "compare": "This task assembled two ways side by side: two profiles, or two settings",
            "task": "The task's keywords and the effective settings",
            "findings": "What ctxviewer found: matched rule files cut for budget, empty sections, ties, ... "
            "for this task or every task of the feature",
            "prompt": "The whole prompt upstream's worker gives the model for this task, each part with its source "
            "and counts",
            "memory": "The files Claude Code loads as project memory into this task's worker session (CLAUDE.md, "
            ".claude/rules/**, their imports): whether each loads and why, its counts and its text",
        }
        for name, title in TAB_TITLES.items():
            index = self.addTab(self.view(name), title)
            self.setTabToolTip(index, tips[name])
        self.sections.sectionClicked.connect(self.jump_to_section)
        #: "What would get it in?": a page of the detail pane of each candidate table.
        self.sensitivity_views: dict[str, SensitivityView] = {}
        for name, table in (
            ("paragraphs", self.paragraphs),
            ("rules", self.rules),
            ("computed", self.computed.entries),
        ):
            view = SensitivityView(table)
            table.add_detail_page(view, SENSITIVITY_TITLE, SENSITIVITY_TIP)
            table.rowSelected.connect(lambda row, v=view: v.set_item(self.item_of(row)))
            self.sensitivity_views[name] = view
        self.paragraphs.rowActivated.connect(self.jump_to_item)
        self.rules.rowActivated.connect(self.jump_to_item)
        self.currentChanged.connect(lambda index: self.fill(TABS[index]) if 0 <= index < len(TABS) else None)

    # -- the views filled when shown ------------------------------------------------------------

    @property
    def sections(self) -> SectionsTab:
        self.fill("sections")
        return self._sections

    @property
    def paragraphs(self) -> RecordTable:
        self.fill("paragraphs")
        return self._paragraphs

    @property
    def rules(self) -> RecordTable:
        self.fill("rules")
        return self._rules

    @property
    def computed(self) -> ComputedTab:
        self.fill("computed")
        return self._computed

    @property
    def trimming(self) -> TrimmingTab:
        self.fill("trimming")
        return self._trimming

    @property
    def whatif(self) -> WhatIfTab:
        self.fill("whatif")
        return self._whatif

    @property
    def findings(self) -> FindingsTab:
        self.fill("findings")
        return self._findings

    @property
    def context(self) -> ContextView:
        self.fill("context")
        return self._context

    @property
    def task(self) -> TaskTab:
        self.fill("task")
        return self._task

    @property
    def prompt(self) -> PromptView:
        self.fill("prompt")
        return self._prompt

    @property
    def memory(self) -> MemoryTab:
        self.fill("memory")
        return self._memory

    def fill(self, name: str) -> None:
        """Give the view of tab *name* the shown trace, if it still waits for it."""
        fill = self._pending.pop(name, None)
        if fill is not None:
            fill()

    def is_pending(self, name: str) -> bool:
        """Whether the view of tab *name* waits to be shown or read before it shows the trace."""
        return name in self._pending

    def view(self, name: str) -> QWidget:
        """The view of the tab *name* (one of :data:`TABS`)."""
        if name not in TAB_TITLES:
            raise KeyError(name)
        widget: QWidget = getattr(self, name)
        return widget

    def show_trace(self, trace: Trace, lexed: LexedText | None = None) -> None:
        """Show *trace* in every tab but What-if, Compare, Findings and Prompt (:meth:`show_diff`,
        :meth:`owe`, :meth:`show_prompt`).

        The tab in sight is filled now; the others when shown or read.
        """
        self.trace = trace
        for view in self.sensitivity_views.values():
            view.set_item(None)  # the row selected again when filled names the new run's candidate
        # Every fill owed to an earlier trace is replaced: none is made after this one's.  The
        # prompt, the diff and the findings come on their own (show_prompt, show_diff, owe).
        self._pending |= {
            "sections": lambda: self._sections.set_trace(trace),
            "paragraphs": lambda: self._fill_paragraphs(trace),
            "rules": lambda: self._fill_rules(trace),
            "trimming": lambda: self._trimming.set_trace(trace),
            "context": lambda: self._context.set_trace(trace, lexed),
            "task": lambda: self._task.set_trace(trace),
            "computed": lambda: self._computed.set_trace(trace),
            "memory": lambda: self._memory.set_trace(trace),
        }
        self.fill(self.current_tab())

    def show_prompt(self, prompt: WorkerPrompt | None, lexed: LexedText | None = None) -> None:
        """Show the worker's *prompt* (None: not composed yet) in the Prompt tab, now if it is in
        sight, else when it is shown or read (see :meth:`PromptView.show_prompt`)."""
        self.owe("prompt", lambda: self._prompt.show_prompt(prompt, lexed))

    def show_diff(self, diff: TraceDiff | None, pinned_label: str = "", own: bool = False) -> None:
        """Show *diff* in the What-if tab, now if it is in sight, else when it is shown or read
        (see :meth:`WhatIfTab.set_diff`)."""
        self.owe("whatif", lambda: self._whatif.set_diff(diff, pinned_label, own))

    def owe(self, name: str, fill: Callable[[], None]) -> None:
        """Give the view of tab *name* *fill* (in place of any it owes): now if the tab is in
        sight, else when it is shown or read."""
        self._pending[name] = fill
        if self.current_tab() == name:
            self.fill(name)

    def keep_lexed_context(self, lexed: LexedText) -> None:
        """The shown trace's context lexed after its paint: for the Plugin context tab's fill,
        if it still waits (the view lexes the text itself when *lexed* is not of it)."""
        trace = self.trace
        if trace is not None and "context" in self._pending:
            self._pending["context"] = lambda: self._context.set_trace(trace, lexed)

    def _fill_paragraphs(self, trace: Trace) -> None:
        table = self._paragraphs
        table.set_rows(trace.items_of(SPEC_PARAGRAPH), columns=paragraph_columns(trace.tokenizer))
        # Start with the most telling candidate explained: a truncated paragraph (the cut
        # shows), else the best-ranked one.
        if not table.select(lambda i: i.status == "truncated"):
            table.select(lambda i: i.rank == 1)

    def _fill_rules(self, trace: Trace) -> None:
        self._rules.set_rows(trace.items_of(RULE_FILE), columns=rule_columns(trace.tokenizer))
        self._rules.select(lambda i: True)  # the first rule file explained

    # -- titles ---------------------------------------------------------------------------------

    def set_findings_count(self, count: int) -> None:
        self._retitle("findings", f"Findings ({count})" if count else "Findings")

    def mark_baseline(self, pinned: bool) -> None:
        """A dot on the What-if tab while a baseline is pinned."""
        self._retitle("whatif", "What-if \u25cf" if pinned else "What-if")

    def _retitle(self, name: str, title: str) -> None:
        # A title set, even to itself, lays the tab bar and the window out again.
        index = TABS.index(name)
        if self.tabText(index) != title:
            self.setTabText(index, title)

    # -- moving around --------------------------------------------------------------------------

    def show_tab(self, name: str) -> None:
        self.setCurrentIndex(TABS.index(name))

    def current_tab(self) -> str:
        return TABS[self.currentIndex()]

    def jump_to_section(self, name: str) -> None:
        """Show section *name* selected in the Context tab."""
        section = self.trace.section(name) if self.trace else None
        if section is None or section.span is None:
            self.message.emit(f"{name} is not in the context", 4000)
            return
        self.show_tab("context")
        self.context.show_span(*section.span)

    def jump_to_item(self, item: Item) -> None:
        """Show *item* selected in the Context tab (or say why it is not there)."""
        if item.span is None:
            self.message.emit(f"{item.source} is not in the context: {item.reason}", 6000)
            return
        self.show_tab("context")
        self.context.show_span(*item.span)

    def go_to_item_id(self, item_id: str, baseline: Trace | None) -> None:
        """Show the candidate *item_id* in its table; one only in the *baseline* is said in words."""
        item = self.trace.item(item_id) if self.trace else None
        if item is None and baseline is not None:
            gone = baseline.item(item_id)
            # Said in words ("paragraph 12 of requirements.md (lines 40-44)"), not by its id.
            what = describe(gone) if gone is not None else item_id
            self.message.emit(f"{what} is only in the baseline" if gone else f"{what} is in neither run", 5000)
            return
        if item is not None:
            self.select_candidate(item.kind, item_id)

    def select_candidate(self, kind: str, item_id: str) -> None:
        """Show the paragraph, rule file or computed entry *item_id* selected in its table."""
        if kind not in (SPEC_PARAGRAPH, RULE_FILE):
            self.show_tab("computed")
            self.computed.select_item(item_id)
            return
        table = self.paragraphs if kind == SPEC_PARAGRAPH else self.rules
        self.show_tab("paragraphs" if kind == SPEC_PARAGRAPH else "rules")
        table.select(lambda i: i.id == item_id)

    def item_of(self, row: object) -> Item | None:
        """The shown trace's candidate a table row is about (see :func:`item_of`)."""
        return item_of(self.trace, row)

    def _paragraph_detail(self, item: Item) -> str:
        return paragraph_html(self.trace, item) if self.trace else ""
