"""The window's status bar: passing messages, the assembly's progress and state, the background pass's line.

See docs/gui.md.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QLabel, QMainWindow, QProgressBar, QWidget

from ctxviewer.gui.worker import RunState

#: A run reports progress, and so shows its bar, once it has taken this long (the run lane's
#: quiet time): a quick run shows none (each step of a bar on screen repaints it at once, in
#: the middle of the click it answers).
PROGRESS_AFTER_MS = 300


#: Qt's QWIDGETSIZE_MAX (no size limit), which PySide6 does not export.
_NO_LIMIT = (1 << 24) - 1
#: What :meth:`StatusLine.show_state` reports the state of.
RUN_KINDS = ("loading", "assembly")


class _StateLabel(QLabel):
    """The latest run's state, in a box that fits the widest of its *texts*.

    A label sized to its text would lay the status bar out again at each new state, and with
    it the whole window, twice a click; a fixed box only repaints."""

    def __init__(self, texts: tuple[str, ...], parent: QWidget) -> None:
        super().__init__(texts[0], parent)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self._texts = texts
        self._fit()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange):
            self._fit()

    def _fit(self) -> None:
        shown = self.text()
        self.setMinimumSize(0, 0)
        self.setMaximumSize(_NO_LIMIT, _NO_LIMIT)
        sizes = []
        for text in self._texts:
            self.setText(text)
            sizes.append(self.sizeHint())
        self.setText(shown)
        self.setFixedSize(max(s.width() for s in sizes), max(s.height() for s in sizes))


class StatusLine(QObject):
    """*window*'s status bar: its permanent widgets (the background pass's line, the progress
    bar, the run's state) and its messages."""

    def __init__(self, window: QMainWindow) -> None:
        super().__init__(window)
        states = tuple(f"{what}: {state.value}" for what in RUN_KINDS for state in RunState)
        self.state_label: QLabel = _StateLabel(("idle", *states), window)
        self.state_label.setToolTip("State of the latest assembly run")
        self.progress = QProgressBar(window)
        self.progress.setRange(0, 100)
        self.progress.setMaximumWidth(160)
        self.progress.setTextVisible(False)
        self.progress.hide()
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
        """The run is at *stage*, *fraction* done: shown in the bar (the run lane reports
        nothing before PROGRESS_AFTER_MS)."""
        self.progress.setValue(int(fraction * 100))
        self.progress.setToolTip(f"Stage: {stage}")
        self.progress.show()

    def hide_progress(self) -> None:
        self.progress.hide()

    def show_state(self, what: str, state: RunState) -> None:
        """The latest run of *what* (``loading``, ``assembly``) is in *state*."""
        self.state_label.setText(f"{what}: {state.value}")
        if state in (RunState.CANCELLED, RunState.ERROR):
            self.hide_progress()
