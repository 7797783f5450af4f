"""The revision diff dialog: the current task at two git revisions, and the edit behind each change.

Two lists offer the project's recent commits and the working tree; Compare runs
:func:`~ctxviewer.engine.runs.revisions.diff_revisions` for the task shown on a worker
:class:`~ctxviewer.gui.worker.Lane` (listing the commits runs there too), and the table lists
every candidate whose fate changed with its cause.  Errors (no repository, git missing) are
shown in the dialog.  See docs/revision-diff.md.
"""

from __future__ import annotations

import html
import threading
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QLabel,
    QWidget,
)

from ctxviewer.engine.analysis.whatif import fate_arrow, signed
from ctxviewer.engine.files.git import Commit
from ctxviewer.engine.runs.revision_report import task_summary
from ctxviewer.engine.runs.revisions import (
    CAUSES,
    REVISION_MEANINGS,
    WORKING_TREE,
    CandidateChange,
    RevisionDiff,
    diff_revisions,
)
from ctxviewer.gui.views.commit_range import CommitRangeDialog
from ctxviewer.gui.widgets.models import Column
from ctxviewer.gui.widgets.tables import RecordTable
from ctxviewer.gui.worker import Lane

IDLE_TEXT = "Choose revision A and revision B, then Compare."


def _cause_text(c: CandidateChange) -> str:
    return "; ".join(k.text for k in c.causes)


def _where(c: CandidateChange) -> str:
    return ", ".join(dict.fromkeys(k.where for k in c.causes if k.where))


def revision_columns() -> list[Column]:
    return [
        Column("Candidate", lambda c: c.words, tip="the candidate as the trace names it"),
        Column(
            "Change",
            lambda c: c.change.change,
            tip="; ".join(f"{k}: {v}" for k, v in REVISION_MEANINGS.items()),
        ),
        Column(
            "Fate A \u2192 B",
            lambda c: fate_arrow(c.change.status_before, c.change.status_after),
            tip="its fate at revision A and at revision B",
        ),
        Column(
            "Tokens",
            lambda c: signed(c.change.delta),
            key=lambda c: c.change.delta,
            numeric=True,
            tip="tokens it has in the context at B minus at A",
        ),
        Column("Cause", _cause_text, tip="; ".join(f"{k}: {v}" for k, v in CAUSES.items())),
        Column("Edit at", _where, tip="the file and lines of the edit that moved it (file:lines)"),
    ]


def change_detail(c: CandidateChange) -> str:
    """The detail pane's HTML for one row, every piece of project text escaped."""
    e = html.escape
    i = c.change
    causes = "".join(f"<li><b>{e(k.kind)}</b>: {e(k.text)}</li>" for k in c.causes)
    return (
        f"<p><b>{e(c.words)}</b> \u2014 {e(i.change)}: {e(REVISION_MEANINGS.get(i.change, ''))}</p>"
        f"<p>Fate: {e(fate_arrow(i.status_before, i.status_after))}; tokens {i.tokens_before:,} \u2192 "
        f"{i.tokens_after:,}</p><ul>{causes}</ul>"
        f"<p>A: {e(i.reason_before or '(no such candidate at A)')}<br>"
        f"B: {e(i.reason_after or '(no such candidate at B)')}</p>"
    )


class RevisionDiffDialog(CommitRangeDialog):
    """Pick two revisions; see which candidates of the current task moved between them, and why."""

    #: The diff shown (a :class:`RevisionDiff`), once a comparison is done.
    diffShown = Signal(object)

    def __init__(self, lane: Lane, parent: QWidget | None = None) -> None:
        super().__init__(lane, "Compare Revisions", "&Compare", "Comparing", IDLE_TEXT, parent)
        self.diff: RevisionDiff | None = None
        self._pending: tuple[str, str] | None = None
        self.rev_a.setToolTip("Revision A, the 'before': a commit of the project")
        self.rev_b.setToolTip("Revision B, the 'after': a commit or the working tree (the files on disk now)")
        self.summary = QLabel(self)
        self.summary.setTextFormat(Qt.TextFormat.PlainText)
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.table = RecordTable(revision_columns(), change_detail, statuses=False, noun="changes", fit=True)
        self._lay_out([("A (before):", self.rev_a), ("B (after):", self.rev_b)], [self.summary, self.table])

    def _clear(self) -> None:
        self.diff = None
        self.summary.clear()
        self.table.set_rows([])

    def compare_commits(self, project: Path, feature: str, task_id: str, a: str, b: str) -> None:
        """Compare *task_id* between commits *a* and *b* (ids) once the project's commits are listed."""
        self._pending = (a, b)
        self.set_target(project, feature, task_id)

    def _fill(self, commits: tuple[Commit, ...]) -> None:
        for combo in (self.rev_a, self.rev_b):
            combo.clear()
        self.rev_b.addItem(f"({WORKING_TREE})", None)
        for c in commits:
            text = f"{c.short}  {c.subject}"
            self.rev_a.addItem(text, c.sha)
            self.rev_b.addItem(text, c.sha)
        self.go_button.setEnabled(bool(commits))
        self.state.setText(IDLE_TEXT if commits else "The repository has no commit of this project yet.")
        self.commitsListed.emit(commits)
        pending, self._pending = self._pending, None
        if pending is not None and commits:
            for combo, sha in ((self.rev_a, pending[0]), (self.rev_b, pending[1])):
                at = combo.findData(sha)
                if at < 0:  # older than the commits listed
                    combo.addItem(sha[:7], sha)
                    at = combo.count() - 1
                combo.setCurrentIndex(at)
            self.start()

    # -- comparing ----------------------------------------------------------------------------

    def start(self) -> None:
        """Diff the task between the chosen revisions on the lane (a newer request replaces it)."""
        if self._target is None or self.rev_a.currentData() is None:
            return
        root, feature, task_id = self._target
        rev_a: str = self.rev_a.currentData()
        rev_b: str | None = self.rev_b.currentData()

        def job(cancel: threading.Event, progress: Callable[[str, float], None]) -> RevisionDiff:
            return diff_revisions(root, rev_a, rev_b, feature=feature, task=task_id, cancel=cancel, progress=progress)

        self._listing = False
        self.summary.clear()
        self.table.set_rows([])
        self.lane.submit(job)

    def _show(self, result: object) -> None:
        assert isinstance(result, RevisionDiff)
        self.show_diff(result)

    def show_diff(self, diff: RevisionDiff) -> None:
        self.diff = diff
        task = diff.tasks[0] if diff.tasks else None
        files = ", ".join(diff.changed_files) or "none"
        head = f"A {diff.a.label} \u2192 B {diff.b.label}. Files changed: {files}."
        if task is None:
            self.state.setText("The task exists at neither revision.")
            self.summary.setText(head)
            self.table.set_rows([])
        else:
            moved = len(task.changes)
            what = f"{moved} candidate{'s' if moved != 1 else ''} moved" if moved else "no candidate moved"
            self.state.setText(f"Done: {what}.")
            self.summary.setText(f"{head}\nContext {task_summary(task)}.")
            self.table.set_rows(task.changes)
        self.diffShown.emit(diff)
