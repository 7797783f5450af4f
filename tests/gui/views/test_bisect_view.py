"""Find the Commit: the shown task's range searched on a lane, with cancel, and a row opening the comparison.

The repository is tests/factories.make_git_project (worked by hand in
tests/engine/runs/test_revisions.py): two commits, ``first`` then ``second``, which rewrites
paragraph 6 of requirements.md: it enters T1's context and pushes paragraph 5 out.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtGui import QAction
from PySide6.QtTest import QAbstractItemModelTester

from ctxviewer.gui.views.bisect_view import IDLE_TEXT, BisectDialog
from ctxviewer.gui.window import MainWindow
from ctxviewer.gui.worker import RunState
from tests.factories import REQUIREMENTS, make_git_project
from tests.gui.conftest import open_and_wait
from tests.gui.views.conftest import listed, range_dialog

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed: bisect needs it")


@pytest.fixture
def dialog(qtbot) -> Iterator[BisectDialog]:  # type: ignore[no-untyped-def]
    yield from range_dialog(qtbot, BisectDialog, "bisect")


def test_finds_the_commit_and_a_row_asks_for_its_comparison(qtbot, dialog: BisectDialog, tmp_path: Path) -> None:
    root = make_git_project(tmp_path / "proj")
    commits = listed(qtbot, dialog, root)
    assert [c.subject for c in commits] == ["second", "first"]
    # A starts at the oldest commit listed, B at the newest.
    assert (dialog.rev_a.currentData(), dialog.rev_b.currentData()) == (commits[1].sha, commits[0].sha)
    assert dialog.state.text() == IDLE_TEXT and dialog.go_button.isEnabled()

    with qtbot.waitSignal(dialog.bisectionShown, timeout=30_000) as blocker:
        dialog.start()
    found = blocker.args[0]
    assert [c.commit.sha for c in found.changes] == [commits[0].sha] and found.assembled == 1
    model = dialog.table.model
    QAbstractItemModelTester(model, QAbstractItemModelTester.FailureReportingMode.Fatal)
    cells = [[model.index(r, c).data() for c in range(model.columnCount())] for r in range(model.rowCount())]
    assert cells == [
        [
            commits[0].short,
            "second",
            REQUIREMENTS,
            "entered paragraph 6 of requirements.md (line 11); left paragraph 5 of requirements.md (line 9)",
        ]
    ]
    assert dialog.state.text().startswith("Done: 1 commit from ") and "1 assembled; 1 commit changed its" in (
        dialog.state.text()
    )
    assert not dialog.progress.isVisible() and not dialog.cancel_button.isEnabled()

    with qtbot.waitSignal(dialog.compareRequested) as asked:
        dialog.table.rowActivated.emit(found.changes[0])
    assert asked.args == [root, "feat", "T1", commits[1].sha, commits[0].sha]


def test_cancel_stops_a_search(qtbot, dialog: BisectDialog, tmp_path: Path) -> None:
    root = make_git_project(tmp_path / "proj")
    listed(qtbot, dialog, root)
    with qtbot.waitSignal(dialog.lane.cancelled, timeout=5000):
        dialog.start()
        assert dialog.cancel_button.isEnabled()
        dialog.cancel_button.click()
    assert dialog.lane.state is RunState.CANCELLED
    assert dialog.state.text() == "Cancelled."
    qtbot.waitUntil(lambda: dialog.lane.running_jobs() == 0, timeout=20_000)
    assert dialog.bisection is None


def test_the_run_menu_opens_it_and_a_row_opens_the_revision_comparison(
    qtbot, window: MainWindow, tmp_path: Path
) -> None:
    root = make_git_project(tmp_path / "proj")
    open_and_wait(qtbot, window, root, "feat", "T1")
    action = next(a for a in window.findChildren(QAction) if a.text().replace("&", "") == "Find the Commit\u2026")
    action.trigger()
    dialog = window.revisions.bisect_dialog
    assert dialog is not None and dialog.isVisible()
    qtbot.waitUntil(lambda: dialog.rev_a.count() == 2, timeout=20_000)
    assert dialog.task_label.text() == "Task feat/T1 of proj"
    with qtbot.waitSignal(dialog.bisectionShown, timeout=30_000) as blocker:
        dialog.start()
    [change] = blocker.args[0].changes

    dialog.table.rowActivated.emit(change)
    compare = window.revisions.dialog
    assert compare is not None and compare.isVisible()
    qtbot.waitUntil(lambda: compare.diff is not None, timeout=30_000)
    assert (compare.diff.a.sha, compare.diff.b.sha) == (change.commit.parent, change.commit.sha)
    assert compare.state.text() == "Done: 2 candidates moved."
    compare.close()
    dialog.close()
    assert window.lanes.bisect.state is RunState.DONE
