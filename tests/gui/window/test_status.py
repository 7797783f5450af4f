"""The status bar part alone: its permanent widgets, messages, progress and the run's state."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QMainWindow

from ctxviewer.gui.window.status import RUN_KINDS, StatusLine
from ctxviewer.gui.worker import RunState


def test_the_run_s_state_and_progress_show_until_it_stops(qtbot) -> None:  # type: ignore[no-untyped-def]
    window = QMainWindow()
    qtbot.addWidget(window)
    status = StatusLine(window)
    bar = window.statusBar()
    assert all(w.parent() is bar for w in (status.batch_label, status.progress, status.state_label))
    assert status.state_label.text() == "idle" and status.progress.isHidden()
    # The run lane reports progress only once the run has taken PROGRESS_AFTER_MS: the bar
    # shows with the first report.
    status.show_progress("rank", 0.42)
    assert (status.progress.isHidden(), status.progress.value(), status.progress.toolTip()) == (
        False,
        42,
        "Stage: rank",
    )
    status.show_state("assembly", RunState.RUNNING)
    assert status.state_label.text() == "assembly: running" and not status.progress.isHidden()
    status.show_state("assembly", RunState.CANCELLED)
    assert status.state_label.text() == "assembly: cancelled" and status.progress.isHidden()
    status.say("Opened /p", 0)
    assert bar.currentMessage() == "Opened /p"


def test_a_new_state_repaints_its_label_without_laying_the_bar_out(qtbot) -> None:  # type: ignore[no-untyped-def]
    window = QMainWindow()
    qtbot.addWidget(window)
    status = StatusLine(window)
    label = status.state_label
    texts = ["idle", *(f"{what}: {state.value}" for what in RUN_KINDS for state in RunState)]
    # Fixed to the widest of its texts: each fits, and none changes the label's size.
    probe = QLabel()
    widest = max(probe.fontMetrics().horizontalAdvance(t) for t in texts)
    assert label.minimumSize() == label.maximumSize() and label.width() >= widest
    size = label.size()
    for what in RUN_KINDS:
        for state in RunState:
            status.show_state(what, state)
            assert label.size() == size
    # A larger font makes the box larger, still fixed.
    font = label.font()
    font.setPointSize(font.pointSize() * 2)
    label.setFont(font)
    assert label.minimumSize() == label.maximumSize() and label.minimumWidth() > size.width()
