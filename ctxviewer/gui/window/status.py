"""The window's status bar: passing messages, the assembly's progress and state, the background pass's line.

See docs/gui.md.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Qt, QTimer
from PySide6.QtWidgets import QLabel, QMainWindow, QProgressBar

from ctxviewer.gui.worker import RunState

#: A run's progress bar shows once the run has taken this long: a quick run shows none (each
#: step of a bar on screen repaints it at once, in the middle of the click it answers).
PROGRESS_AFTER_MS = 300


class StatusLine(QObject):
    """*window*'s status bar: its permanent widgets (the background pass's line, the progress
    bar, the run's state) and its messages."""

    def __init__(self, window: QMainWindow) -> None:
        super().__init__(window)
        self.state_label = QLabel("idle", window)
        self.state_label.setTextFormat(Qt.TextFormat.PlainText)
        self.state_label.setToolTip("State of the latest assembly run")
        self.progress = QProgressBar(window)
        self.progress.setRange(0, 100)
        self.progress.setMaximumWidth(160)
        self.progress.setTextVisible(False)
        self.progress.hide()
        self._reveal = QTimer(self)
        self._reveal.setSingleShot(True)
        self._reveal.setInterval(PROGRESS_AFTER_MS)
        self._reveal.timeout.connect(self.progress.show)
        self.batch_label = QLabel("", window)
        self.batch_label.setTextFormat(Qt.TextFormat.PlainText)  # says why a pass failed, in project words
        self.batch_label.setToolTip("Background pass over every task (totals in the outline)")
        self.bar = bar = window.statusBar()
        bar.addPermanentWidget(self.batch_label)
        bar.addPermanentWidget(self.progress)
        bar.addPermanentWidget(self.state_label)

    def say(self, message: str, timeout_ms: int = 0) -> None:
        """Show *message* for *timeout_ms* (0: until the next one)."""
        self.bar.showMessage(message, timeout_ms)

    def show_progress(self, stage: str, fraction: float) -> None:
        """The run is at *stage*, *fraction* done: shown in the bar, which appears once the run
        has taken PROGRESS_AFTER_MS."""
        if self.progress.isHidden() and not self._reveal.isActive():
            self._reveal.start()
        self.progress.setValue(int(fraction * 100))
        self.progress.setToolTip(f"Stage: {stage}")

    def hide_progress(self) -> None:
        self._reveal.stop()
        self.progress.hide()

    def show_state(self, what: str, state: RunState) -> None:
        """The latest run of *what* (``loading``, ``assembly``) is in *state*."""
        self.state_label.setText(f"{what}: {state.value}")
        if state in (RunState.CANCELLED, RunState.ERROR):
            self.hide_progress()
