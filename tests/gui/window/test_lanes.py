"""The window's lanes alone: one per job, on one pool, all cancelled when the window closes."""

from __future__ import annotations

import threading
from collections.abc import Callable

from PySide6.QtCore import QObject

from ctxviewer.gui.window.lanes import Lanes
from ctxviewer.gui.worker import Lane, RunState


def test_every_lane_is_listed_and_closing_cancels_the_running_job(qtbot) -> None:  # type: ignore[no-untyped-def]
    owner = QObject()
    lanes = Lanes(owner)
    assert set(lanes.all()) == set(lanes.findChildren(Lane)) and len(lanes.all()) == 13
    assert len({lane.name for lane in lanes.all()}) == 13
    started = threading.Event()

    def job(cancel: threading.Event, _progress: Callable[[str, float], None]) -> None:
        started.set()
        cancel.wait(10)

    lanes.batch.submit(job)
    assert started.wait(10)
    lanes.close()
    assert lanes.batch.state is RunState.CANCELLED and lanes.pool.activeThreadCount() == 0
