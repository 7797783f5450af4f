"""The Memory tab: the files Claude Code loads as project memory into the task's worker session.

The worker's ``claude --print`` session reads ``CLAUDE.md`` files and ``.claude/rules/**``
(and what they import) from its working folder and the folders above it; the prompt is the
other half of what it starts with (the Prompt tab).  The tab lists every memory file the
trace's worker window found: whether it loads for this task and why, its exact counts, and
its text as the session receives it (with the framing line Claude Code puts before it).
Everything shown is project text: plain cells, escaped HTML in the detail pane.
See docs/gui.md and docs/worker-window.md.
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from ctxviewer.engine.tokens.counting import CL100K, O200K
from ctxviewer.engine.trace.model import MEMORY_BLOCK, ReceivedBlock, Trace
from ctxviewer.engine.wording import plural
from ctxviewer.gui.widgets.empty import NO_TASK
from ctxviewer.gui.widgets.models import Column, fmt_int
from ctxviewer.gui.widgets.splitters import is_user_sized, size_splitter
from ctxviewer.gui.widgets.tables import RecordTable

#: How a loaded file loads, in the table's words (``on_demand`` and the rest as Claude Code names them).
LOAD_WORDS = {"always": "always", "conditional": "for this task's files", "on_demand": "on demand", "import": "import"}
NOT_LOADED = "not loaded"
WORKTREE_COPY, CHECKOUT_COPY = "worktree", "checkout"
#: The Copy column's place in :func:`memory_columns`.
COPY_COLUMN = 1
#: The table's share of the tab's height at most, when it is sized to its rows.
MAX_TABLE_SHARE = 0.4
NO_WINDOW = "This run has no worker window: there is nothing to say about the worker's project memory."
NO_FILES = (
    "No project memory: the worker's session finds no CLAUDE.md, .claude/CLAUDE.md, .claude/rules/** or "
    "CLAUDE.local.md in its folder or the folders above it."
)


def loads_text(block: ReceivedBlock) -> str:
    """How *block* loads into the session, or that it does not."""
    return LOAD_WORDS.get(block.load, block.load.replace("_", " ")) if block.loaded else NOT_LOADED


def copy_text(block: ReceivedBlock) -> str:
    """Which copy the session finds: seen under the worktree's folder, or where the project has it."""
    return WORKTREE_COPY if block.name != block.source else CHECKOUT_COPY


def _exact_column(name: str) -> Column:
    """A column of the exact count of the text the session receives in encoding *name*."""
    return Column(
        name.removesuffix("_base"),
        lambda b: fmt_int(b.tokens.get(name)),
        lambda b: b.tokens.get(name) or 0,
        f"Exact count with tiktoken {name} of the text the session receives",
        numeric=True,
    )


def memory_columns() -> list[Column]:
    return [
        Column("File", lambda b: b.source, None, "The project file the session reads, from the project root"),
        Column(
            "Copy",
            copy_text,
            None,
            "Which copy of the file the session finds: the worktree's (its working folder) or the main "
            "checkout's (in the folders above the worktree); shown when the session runs in a worktree",
        ),
        Column(
            "Loads",
            loads_text,
            lambda b: (not b.loaded, b.load),
            "Whether the file reaches the session for this task, and how: always (at session start), for this "
            "task's files (a rule whose paths match them), on demand, as an import -- or not loaded",
        ),
        *(_exact_column(name) for name in (CL100K, O200K)),
        Column("Chars", lambda b: f"{b.tokens.chars:,}", lambda b: b.tokens.chars, "Characters", numeric=True),
        Column("Why", lambda b: b.note, None, "Why it loads, or why not"),
    ]


def memory_html(block: ReceivedBlock) -> str:
    """The detail pane of one memory file: how it loads and why, its counts, and its text."""
    counts = [f"{block.tokens.chars:,} characters"]
    counts += [f"{name} {fmt_int(block.tokens.get(name))}" for name in (CL100K, O200K)]
    lines = [
        f"<b>{html.escape(block.title)}</b>",
        f"Seen by the session as {html.escape(block.name)}; the text of {html.escape(block.source)}",
    ]
    if block.loaded:
        lines.append(f"<i>Loads</i> ({html.escape(loads_text(block))}): {html.escape(block.note)}")
        lines.append(" \u00b7 ".join(counts))
        lines.append("<i>The text the session receives, framing line included:</i>")
    else:
        lines.append(f"<i>Not loaded for this task:</i> {html.escape(block.note)}")
        lines.append(" \u00b7 ".join(counts) + " (not in the session: not counted in its window)")
        lines.append("<i>Its text, which the session does not receive:</i>")
    body = f'<pre style="white-space: pre-wrap">{html.escape(block.text)}</pre>'
    return "<br>".join(lines) + body


def memory_summary(trace: Trace) -> str:
    """One plain paragraph: how many files load and what they cost, how many do not, and from where."""
    worker = trace.worker
    if worker is None:
        return NO_WINDOW
    files = [b for b in worker.blocks if b.kind == MEMORY_BLOCK]
    if not files:
        return NO_FILES
    loaded = [b for b in files if b.loaded]
    tokens = sum(b.size for b in loaded)
    said = (
        f"The worker's session for {trace.feature} / {trace.task_id} loads "
        f"{plural(len(loaded), 'file')} as project memory, {tokens:,} tokens (cl100k_base)"
    )
    if len(loaded) < len(files):
        said += f"; {len(files) - len(loaded):,} more listed, not loaded"
    folder = worker.folder or "the project root"
    return f"{said}. Working folder: {folder} ({worker.folder_reason})."


class MemoryTab(QWidget):
    """The worker session's project memory files: a table, each file's text in the detail pane."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.summary = QLabel(NO_TASK, self)
        self.summary.setObjectName("memorySummary")
        self.summary.setTextFormat(Qt.TextFormat.PlainText)
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.notes = QLabel("", self)
        self.notes.setTextFormat(Qt.TextFormat.PlainText)
        self.notes.setWordWrap(True)
        self.notes.hide()
        # A path's ends tell the files apart (which copy, which file): the first column keeps up
        # to a third of the width; the reasons (whole in the detail pane) get what is left.
        self.table = RecordTable(
            memory_columns(),
            memory_html,
            statuses=False,
            noun="memory files",
            fit=True,
            last_share=0.2,
            first_share=0.34,
            parent=self,
        )
        self.table.detail.setPlaceholderText("Select a file to see its text as the worker's session receives it.")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.summary)
        layout.addWidget(self.notes)
        layout.addWidget(self.table, 1)

    def set_trace(self, trace: Trace | None) -> None:
        """Show *trace*'s memory files (None: nothing yet); the first file that loads is selected."""
        worker = trace.worker if trace is not None else None
        files = [b for b in worker.blocks if b.kind == MEMORY_BLOCK] if worker is not None else []
        self.summary.setText(memory_summary(trace) if trace is not None else NO_TASK)
        notes = list(worker.notes) if worker is not None else []
        self.notes.setText("\n".join(f"Note: {n}" for n in notes))
        self.notes.setVisible(bool(notes))
        # Which copy a file is says something only when the session runs in a worktree.
        self.table.view.setColumnHidden(COPY_COLUMN, worker is None or not worker.folder)
        self.table.set_rows(files)
        if not self.table.select(lambda b: b.loaded):
            self.table.select(lambda b: True)
        self._fit_table()

    def _fit_table(self) -> None:
        """Give the table the height of its rows (up to 40 % of the tab) and the file's text the rest:
        a session loads a few files, and their text is what is read here."""
        splitter = self.table.splitter
        if is_user_sized(splitter):
            return
        total = sum(splitter.sizes()) or splitter.height()
        table = min(self.table.rows_height(max(3, self.table.model.rowCount())), int(total * MAX_TABLE_SHARE))
        size_splitter(splitter, [table, max(80, total - table)])

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit_table()
