"""The status bar part alone: its permanent widgets, messages, progress and the run's state."""

from __future__ import annotations

from PySide6.QtWidgets import QMainWindow

from ctxviewer.gui.window.status import PROGRESS_AFTER_MS, StatusLine
from ctxviewer.gui.worker import RunState


def test_the_run_s_state_and_progress_show_until_it_stops(qtbot) -> None:  # type: ignore[no-untyped-def]
    window = QMainWindow()
    qtbot.addWidget(window)
    status = StatusLine(window)
    bar = window.statusBar()
    assert all(w.parent() is bar for w in (status.batch_label, status.progress, status.state_label))
    assert status.state_label.text() == "idle" and status.progress.isHidden()
    status.show_progress("rank", 0.42)
    # A quick run shows no bar: it appears once the run has taken a moment.
    assert (status.progress.isHidden(), status.progress.value(), status.progress.toolTip()) == (
        True,
        42,
        "Stage: rank",
    )
    qtbot.waitUntil(lambda: not status.progress.isHidden(), timeout=2_000)
    status.show_state("assembly", RunState.RUNNING)
    assert status.state_label.text() == "assembly: running" and not status.progress.isHidden()
    status.show_state("assembly", RunState.CANCELLED)
    assert status.state_label.text() == "assembly: cancelled" and status.progress.isHidden()
    status.show_progress("rank", 0.5)
    status.hide_progress()  # done before the bar appeared: it never does
    with qtbot.assertNotEmitted(status._reveal.timeout, wait=PROGRESS_AFTER_MS + 100):
        pass
    assert status.progress.isHidden()
    status.say("Opened /p", 0)
    assert bar.currentMessage() == "Opened /p"
