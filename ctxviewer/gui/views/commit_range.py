"""What Compare Revisions and Find the Commit share: a task, two revisions picked from its
project's commits, and work on one lane with progress, Cancel and a state line.

See docs/gui.md (Compare Revisions, Find the Commit).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
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
from ctxviewer.gui.worker import Lane, RunState


class CommitRangeDialog(QDialog):
    """The task (:attr:`task_label`), revisions A and B (:attr:`rev_a`, :attr:`rev_b`) filled from
    the project's commits, :attr:`go_button` starting :meth:`start` on *lane*, Cancel, a progress
    bar and :attr:`state`.  A subclass fills the combos (:meth:`_fill`), says what a target
    change clears (:meth:`_clear`) and shows a result (:meth:`_show`); *busy* names the work in
    the state line while it runs ("Comparing", "Searching")."""

    #: The commit list arrived (a tuple of :class:`Commit`).
    commitsListed = Signal(object)

    def __init__(
        self, lane: Lane, title: str, go_text: str, busy: str, idle: str, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self.lane = lane
        self._busy = busy
        self._target: tuple[Path, str, str] | None = None
        self._listing = False
        self.task_label = QLabel(self)
        self.task_label.setTextFormat(Qt.TextFormat.PlainText)
        self.rev_a = QComboBox(self)
        self.rev_b = QComboBox(self)
        for combo in (self.rev_a, self.rev_b):
            combo.setMinimumContentsLength(40)
            combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.go_button = QPushButton(go_text, self)
        self.go_button.clicked.connect(self.start)
        self.cancel_button = QPushButton("Cancel", self)
        self.cancel_button.setToolTip(f"Stop the {busy.lower()} running")
        self.cancel_button.clicked.connect(self.lane.cancel)
        self.cancel_button.setEnabled(False)
        self.progress = QProgressBar(self)
        self.progress.setRange(0, 100)
        self.progress.hide()
        self.state = QLabel(idle, self)
        self.state.setTextFormat(Qt.TextFormat.PlainText)
        self.state.setWordWrap(True)
        lane.progress.connect(self._on_progress)
        lane.finished.connect(self._on_finished)
        lane.errored.connect(self._on_error)
        lane.stateChanged.connect(self._on_state)
        self.resize(980, 560)

    def _lay_out(self, rows: Sequence[tuple[str, QWidget]], below: Sequence[QWidget]) -> None:
        """The task line, a labelled row per (label, widget), the buttons, the state, then *below*
        (the last of them takes the room left)."""
        grid = QGridLayout()
        for n, (label, widget) in enumerate(rows):
            grid.addWidget(QLabel(label, self), n, 0)
            grid.addWidget(widget, n, 1)
        grid.setColumnStretch(1, 1)
        buttons = QHBoxLayout()
        buttons.addWidget(self.go_button)
        buttons.addWidget(self.cancel_button)
        buttons.addWidget(self.progress, 1)
        layout = QVBoxLayout(self)
        layout.addWidget(self.task_label)
        layout.addLayout(grid)
        layout.addLayout(buttons)
        layout.addWidget(self.state)
        for n, widget in enumerate(below):
            layout.addWidget(widget, 1 if n == len(below) - 1 else 0)

    def set_target(self, project: Path, feature: str, task_id: str) -> None:
        """Work on *task_id* of *feature* in the project at *project*; lists its commits (on the lane)."""
        root = Path(project)
        self._target = (root, feature, task_id)
        self.task_label.setText(f"Task {feature}/{task_id} of {root.name}")
        self._listing = True
        self._clear()
        self.go_button.setEnabled(False)
        self.state.setText("Reading the project's commits\u2026")

        def job(_cancel: threading.Event, _progress: Callable[[str, float], None]) -> tuple[Commit, ...]:
            return recent_commits(open_repository(root))

        self.lane.submit(job)

    def start(self) -> None:
        """Start the work on the chosen revisions (a newer request replaces a running one)."""
        raise NotImplementedError

    def _clear(self) -> None:
        """The target changed: forget what was shown of the last one."""
        raise NotImplementedError

    def _fill(self, commits: tuple[Commit, ...]) -> None:
        raise NotImplementedError

    def _show(self, result: object) -> None:
        raise NotImplementedError

    def _on_progress(self, stage: str, fraction: float) -> None:
        self.progress.show()
        self.progress.setValue(int(fraction * 100))
        self.state.setText(f"{self._busy}: {stage}")

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
        self._show(result)

    def _on_error(self, message: str) -> None:
        self._listing = False
        self.state.setText(message)
