"""The Find the Commit dialog: which commits of a range changed the shown task, found off the GUI thread.

Two lists offer the project's recent commits (A, the start, and B, the end of the range) and a
third what to follow (context, worker prompt, worker window); Find runs
:func:`~ctxviewer.engine.runs.bisection.bisect_task` on a worker
:class:`~ctxviewer.gui.worker.Lane` with progress and Cancel, and the table lists each commit
that changed the task.  Activating a row asks for the revision comparison of that commit with
its first parent (:attr:`BisectDialog.compareRequested`).  See docs/bisect.md.
"""

from __future__ import annotations

import html
import threading
from collections.abc import Callable

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QWidget,
)

from ctxviewer.engine.files.git import Commit
from ctxviewer.engine.runs.bisection import WHATS, Bisection, CommitChange, bisect_task
from ctxviewer.engine.runs.bisection_report import WHAT_WORDS
from ctxviewer.engine.runs.revision_report import task_summary
from ctxviewer.engine.wording import plural
from ctxviewer.gui.views.commit_range import CommitRangeDialog
from ctxviewer.gui.widgets.models import Column
from ctxviewer.gui.widgets.tables import RecordTable
from ctxviewer.gui.worker import Lane

IDLE_TEXT = "Choose the range's start (A) and end (B), then Find."


def _moves(c: CommitChange) -> str:
    if c.blocks:
        return "; ".join(f"{b.change} {b.title}" for b in c.blocks)
    if c.task.changes:
        return "; ".join(f"{x.change.change} {x.words}" for x in c.task.changes)
    if c.error_after or c.error_before:
        return c.error_after or "assembles again"
    return {"added": "the task appears", "removed": "the task is gone"}.get(c.task.presence, "the context text")


def bisect_columns() -> list[Column]:
    return [
        Column("Commit", lambda c: c.commit.sha[:7], tip="the commit (double-click: compare it with its first parent)"),
        Column(
            "Subject",
            lambda c: c.commit.subject + (" (merge)" if c.commit.merge else ""),
            tip="its subject; a merge is compared with its first parent",
        ),
        Column("Inputs touched", lambda c: ", ".join(c.inputs), tip="the files it changed that the task reads"),
        Column("What changed", _moves, tip="the candidates (or blocks) that entered, left or changed"),
    ]


def commit_detail(c: CommitChange) -> str:
    """The detail pane's HTML for one commit, every piece of project text escaped."""
    e = html.escape
    parts = [
        f"<p><b>{e(c.commit.sha[:7])}</b> {e(c.commit.subject)}</p>",
        f"<p>Inputs touched: {e(', '.join(c.inputs))}</p>",
    ]
    if c.task.before is not None or c.task.after is not None:
        parts.append(f"<p>Context {e(task_summary(c.task))}</p>")
    items = [
        f"<li>{e(x.change.change)} {e(x.words)}: {e('; '.join(k.text for k in x.causes))}</li>" for x in c.task.changes
    ]
    items += [f"<li>{e(b.change)} {e(b.title)}{e(' (edit: ' + b.edit + ')' if b.edit else '')}</li>" for b in c.blocks]
    if items:
        parts.append(f"<ul>{''.join(items)}</ul>")
    return "".join(parts)


class BisectDialog(CommitRangeDialog):
    """Pick a range; see each commit of it that changed the shown task, and open one's comparison."""

    #: The bisection shown (a :class:`Bisection`), once a search is done.
    bisectionShown = Signal(object)
    #: Compare the task at two revisions: (project folder, feature, task, A's id, B's id).
    compareRequested = Signal(object, str, str, str, str)

    def __init__(self, lane: Lane, parent: QWidget | None = None) -> None:
        super().__init__(lane, "Find the Commit", "&Find", "Searching", IDLE_TEXT, parent)
        self.bisection: Bisection | None = None
        self.rev_a.setToolTip("A, the range's start: the commits after it are searched")
        self.rev_b.setToolTip("B, the range's end (searched along its first parents)")
        self.what = QComboBox(self)
        for what in WHATS:
            self.what.addItem(WHAT_WORDS[what], what)
        self.what.setToolTip("What to follow: the assembled context, the worker's prompt, or its whole window")
        self.table = RecordTable(bisect_columns(), commit_detail, statuses=False, noun="commits", fit=True)
        self.table.rowActivated.connect(self._open)
        self._lay_out([("A (start):", self.rev_a), ("B (end):", self.rev_b), ("Follow:", self.what)], [self.table])

    def _clear(self) -> None:
        self.bisection = None
        self.table.set_rows([])

    def _fill(self, commits: tuple[Commit, ...]) -> None:
        for combo in (self.rev_a, self.rev_b):
            combo.clear()
        for c in commits:
            text = f"{c.short}  {c.subject}"
            self.rev_a.addItem(text, c.sha)
            self.rev_b.addItem(text, c.sha)
        if commits:
            self.rev_a.setCurrentIndex(len(commits) - 1)  # the oldest listed .. the newest
        self.go_button.setEnabled(len(commits) > 1)
        self.state.setText(IDLE_TEXT if len(commits) > 1 else "The repository has fewer than two commits of it.")
        self.commitsListed.emit(commits)

    def start(self) -> None:
        """Search the range A..B on the lane (a newer request replaces it)."""
        if self._target is None or self.rev_a.currentData() is None or self.rev_b.currentData() is None:
            return
        root, feature, task_id = self._target
        rev = f"{self.rev_a.currentData()}..{self.rev_b.currentData()}"
        what: str = self.what.currentData()

        def job(cancel: threading.Event, progress: Callable[[str, float], None]) -> Bisection:
            return bisect_task(root, rev, feature=feature, task=task_id, what=what, cancel=cancel, progress=progress)

        self._listing = False
        self.table.set_rows([])
        self.lane.submit(job)

    def _show(self, result: object) -> None:
        assert isinstance(result, Bisection)
        self.show_bisection(result)

    def show_bisection(self, found: Bisection) -> None:
        self.bisection = found
        what = WHAT_WORDS[found.what]
        changed = (
            plural(len(found.changes), "commit") + f" changed its {what}"
            if found.changes
            else f"no commit changed its {what}"
        )
        self.state.setText(
            f"Done: {plural(len(found.commits), 'commit')} from {found.a.label} to {found.b.label}, "
            f"{found.assembled:,} assembled; {changed}."
            + (" Double-click one to compare it with its first parent." if found.changes else "")
        )
        self.table.set_rows(found.changes)
        self.bisectionShown.emit(found)

    def _open(self, row: object) -> None:
        if self._target is None or not isinstance(row, CommitChange) or row.commit.parent is None:
            return
        root, feature, task_id = self._target
        self.compareRequested.emit(root, feature, task_id, row.commit.parent, row.commit.sha)
