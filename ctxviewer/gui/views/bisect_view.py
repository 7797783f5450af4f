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
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from ctxviewer.engine.files.git import Commit, open_repository, recent_commits
from ctxviewer.engine.runs.bisection import WHATS, Bisection, CommitChange, bisect_task
from ctxviewer.engine.runs.bisection_report import WHAT_WORDS
from ctxviewer.engine.runs.revision_report import task_summary
from ctxviewer.engine.wording import plural
from ctxviewer.gui.widgets.models import Column
from ctxviewer.gui.widgets.tables import RecordTable
from ctxviewer.gui.worker import Lane, RunState

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


class BisectDialog(QDialog):
    """Pick a range; see each commit of it that changed the shown task, and open one's comparison."""

    #: The bisection shown (a :class:`Bisection`), once a search is done.
    bisectionShown = Signal(object)
    #: The commit list arrived (a tuple of :class:`Commit`).
    commitsListed = Signal(object)
    #: Compare the task at two revisions: (project folder, feature, task, A's id, B's id).
    compareRequested = Signal(object, str, str, str, str)

    def __init__(self, lane: Lane, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Find the Commit")
        self.lane = lane
        self.bisection: Bisection | None = None
        self._target: tuple[Path, str, str] | None = None
        self._listing = False

        self.task_label = QLabel(self)
        self.task_label.setTextFormat(Qt.TextFormat.PlainText)
        self.rev_a = QComboBox(self)
        self.rev_b = QComboBox(self)
        for combo in (self.rev_a, self.rev_b):
            combo.setMinimumContentsLength(40)
            combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.rev_a.setToolTip("A, the range's start: the commits after it are searched")
        self.rev_b.setToolTip("B, the range's end (searched along its first parents)")
        self.what = QComboBox(self)
        for what in WHATS:
            self.what.addItem(WHAT_WORDS[what], what)
        self.what.setToolTip("What to follow: the assembled context, the worker's prompt, or its whole window")
        self.find_button = QPushButton("&Find", self)
        self.find_button.clicked.connect(self.search)
        self.cancel_button = QPushButton("Cancel", self)
        self.cancel_button.setToolTip("Stop the search running")
        self.cancel_button.clicked.connect(self.lane.cancel)
        self.cancel_button.setEnabled(False)
        self.progress = QProgressBar(self)
        self.progress.setRange(0, 100)
        self.progress.hide()
        self.state = QLabel(IDLE_TEXT, self)
        self.state.setTextFormat(Qt.TextFormat.PlainText)
        self.state.setWordWrap(True)
        self.table = RecordTable(bisect_columns(), commit_detail, statuses=False, noun="commits", fit=True)
        self.table.rowActivated.connect(self._open)

        grid = QGridLayout()
        grid.addWidget(QLabel("A (start):", self), 0, 0)
        grid.addWidget(self.rev_a, 0, 1)
        grid.addWidget(QLabel("B (end):", self), 1, 0)
        grid.addWidget(self.rev_b, 1, 1)
        grid.addWidget(QLabel("Follow:", self), 2, 0)
        grid.addWidget(self.what, 2, 1)
        grid.setColumnStretch(1, 1)
        buttons = QHBoxLayout()
        buttons.addWidget(self.find_button)
        buttons.addWidget(self.cancel_button)
        buttons.addWidget(self.progress, 1)
        layout = QVBoxLayout(self)
        layout.addWidget(self.task_label)
        layout.addLayout(grid)
        layout.addLayout(buttons)
        layout.addWidget(self.state)
        layout.addWidget(self.table, 1)

        lane.progress.connect(self._on_progress)
        lane.finished.connect(self._on_finished)
        lane.errored.connect(self._on_error)
        lane.stateChanged.connect(self._on_state)
        self.resize(980, 560)

    def set_target(self, project: Path, feature: str, task_id: str) -> None:
        """Search *task_id* of *feature* in the project at *project*; lists its commits (on the lane)."""
        self._target = (Path(project), feature, task_id)
        self.task_label.setText(f"Task {feature}/{task_id} of {Path(project).name}")
        self._listing = True
        self.bisection = None
        self.table.set_rows([])
        self.find_button.setEnabled(False)
        self.state.setText("Reading the project's commits\u2026")
        root = Path(project)

        def job(_cancel: threading.Event, _progress: Callable[[str, float], None]) -> tuple[Commit, ...]:
            return recent_commits(open_repository(root))

        self.lane.submit(job)

    def _fill(self, commits: tuple[Commit, ...]) -> None:
        for combo in (self.rev_a, self.rev_b):
            combo.clear()
        for c in commits:
            text = f"{c.short}  {c.subject}"
            self.rev_a.addItem(text, c.sha)
            self.rev_b.addItem(text, c.sha)
        if commits:
            self.rev_a.setCurrentIndex(len(commits) - 1)  # the oldest listed .. the newest
        self.find_button.setEnabled(len(commits) > 1)
        self.state.setText(IDLE_TEXT if len(commits) > 1 else "The repository has fewer than two commits of it.")
        self.commitsListed.emit(commits)

    def search(self) -> None:
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

    def _on_progress(self, stage: str, fraction: float) -> None:
        self.progress.show()
        self.progress.setValue(int(fraction * 100))
        self.state.setText(f"Searching: {stage}")

    def _on_state(self, state: RunState) -> None:
        busy = state in (RunState.PENDING, RunState.RUNNING)
        self.cancel_button.setEnabled(busy and not self._listing)
        if not busy:
            self.progress.hide()
        if state is RunState.CANCELLED and not self._listing:
            self.state.setText("Cancelled.")

    def _on_finished(self, result: object) -> None:
        if self._listing:
            self._listing = False
            assert isinstance(result, tuple)
            self._fill(result)
            return
        assert isinstance(result, Bisection)
        self.show_bisection(result)

    def _on_error(self, message: str) -> None:
        self._listing = False
        self.state.setText(message)

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
