"""Shared by the tests of the dialogs over a commit range (Compare Revisions, Find the Commit)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

from PySide6.QtWidgets import QWidget

from ctxviewer.gui.views.commit_range import CommitRangeDialog
from ctxviewer.gui.worker import Lane, make_pool

D = TypeVar("D", bound=CommitRangeDialog)


def range_dialog(qtbot, make: Callable[[Lane], D], lane_name: str) -> Iterator[D]:  # type: ignore[no-untyped-def]
    """A shown dialog made by *make* on a lane of its own; fails if its work outlives the test."""
    pool = make_pool(2)
    holder = QWidget()
    lane = Lane(pool, lane_name, holder)
    widget = make(lane)
    qtbot.addWidget(widget)
    qtbot.addWidget(holder)
    widget.show()
    qtbot.waitExposed(widget)
    yield widget
    lane.cancel()
    pool.waitForDone(10_000)
    assert pool.activeThreadCount() == 0, f"the {lane_name} work outlived the test"


def listed(qtbot, dialog: CommitRangeDialog, root: Path) -> tuple:  # type: ignore[no-untyped-def]
    """Aim *dialog* at T1 of feature ``feat`` in *root* and wait for its commits to be listed."""
    with qtbot.waitSignal(dialog.commitsListed, timeout=20_000) as blocker:
        dialog.set_target(root, "feat", "T1")
    return blocker.args[0]  # type: ignore[no-any-return]
