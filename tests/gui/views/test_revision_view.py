"""The revision diff dialog: commits listed, the current task compared on the lane, cancel, errors.

The repository is tests/factories.make_git_project (worked by hand in
tests/engine/runs/test_revisions.py): from the first commit to the second, paragraph 6 of
requirements.md (line 11) enters and pushes paragraph 5 out.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtGui import QAction
from PySide6.QtTest import QAbstractItemModelTester

from ctxviewer.gui.views.revision_view import IDLE_TEXT, RevisionDiffDialog
from ctxviewer.gui.window import MainWindow
from ctxviewer.gui.worker import RunState
from tests.factories import REQUIREMENTS, make_git_project
from tests.gui.conftest import open_and_wait
from tests.gui.views.conftest import listed, range_dialog

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed: revision diffs need it")


@pytest.fixture
def dialog(qtbot) -> Iterator[RevisionDiffDialog]:  # type: ignore[no-untyped-def]
    yield from range_dialog(qtbot, RevisionDiffDialog, "revisions")


def test_lists_commits_and_shows_what_moved_between_them(qtbot, dialog: RevisionDiffDialog, tmp_path: Path) -> None:
    root = make_git_project(tmp_path / "proj")
    commits = listed(qtbot, dialog, root)
    assert [c.subject for c in commits] == ["second", "first"]
    assert dialog.state.text() == IDLE_TEXT and dialog.go_button.isEnabled()
    # A offers the commits; B the working tree first, then the commits.
    assert [dialog.rev_a.itemData(i) for i in range(dialog.rev_a.count())] == [c.sha for c in commits]
    assert dialog.rev_b.itemText(0) == "(working tree)" and dialog.rev_b.itemData(0) is None
    assert dialog.rev_a.itemText(1).endswith("first")

    dialog.rev_a.setCurrentIndex(1)  # first
    dialog.rev_b.setCurrentIndex(1)  # second
    with qtbot.waitSignal(dialog.diffShown, timeout=30_000) as blocker:
        dialog.start()
    diff = blocker.args[0]
    assert (diff.a.sha, diff.b.sha) == (commits[1].sha, commits[0].sha)
    model = dialog.table.model
    QAbstractItemModelTester(model, QAbstractItemModelTester.FailureReportingMode.Fatal)
    cells = [[model.index(r, c).data() for c in range(model.columnCount())] for r in range(model.rowCount())]
    assert [row[:3] for row in cells] == [
        ["paragraph 6 of requirements.md (line 11)", "entered", "not a candidate \u2192 included"],
        ["paragraph 5 of requirements.md (line 9)", "left", "included \u2192 outranked"],
    ]
    assert [row[5] for row in cells] == [f"{REQUIREMENTS}:11", f"{REQUIREMENTS}:11"]
    assert cells[1][4].startswith("moved by paragraph 6 of requirements.md (line 11), which entered")
    assert dialog.state.text() == "Done: 2 candidates moved."
    assert "Files changed: .gsd/specs/feat/requirements.md." in dialog.summary.text()
    assert not dialog.progress.isVisible() and not dialog.cancel_button.isEnabled()

    # The detail pane of a row: the cause with its file and lines, both reasons.
    dialog.table.view.setCurrentIndex(dialog.table.proxy.index(1, 0))
    detail = dialog.table.detail.toPlainText()
    assert "displaced: moved by paragraph 6" in detail
    assert "B: rank 6, only the top 5 are kept (score 1)" in detail


def test_cancel_stops_a_comparison(qtbot, dialog: RevisionDiffDialog, tmp_path: Path) -> None:
    root = make_git_project(tmp_path / "proj")
    listed(qtbot, dialog, root)
    with qtbot.waitSignal(dialog.lane.cancelled, timeout=5000):
        dialog.start()
        assert dialog.cancel_button.isEnabled()
        dialog.cancel_button.click()
    assert dialog.lane.state is RunState.CANCELLED
    assert dialog.state.text() == "Cancelled."
    qtbot.waitUntil(lambda: dialog.lane.running_jobs() == 0, timeout=20_000)
    assert dialog.diff is None


def test_a_folder_outside_git_is_explained(qtbot, dialog: RevisionDiffDialog, tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    with qtbot.waitSignal(dialog.lane.errored, timeout=20_000):
        dialog.set_target(plain, "feat", "T1")
    assert "not in a git repository" in dialog.state.text()
    assert not dialog.go_button.isEnabled()


def test_the_run_menu_opens_it_for_the_task_shown(qtbot, window: MainWindow, tmp_path: Path) -> None:
    root = make_git_project(tmp_path / "proj")
    open_and_wait(qtbot, window, root, "feat", "T1")
    action = next(a for a in window.findChildren(QAction) if a.text().replace("&", "") == "Compare Revisions\u2026")
    assert action.shortcut().toString() == "Ctrl+Shift+D"
    action.trigger()
    dialog = window.revisions.dialog
    assert dialog is not None and dialog.isVisible()
    qtbot.waitUntil(lambda: dialog.rev_a.count() == 2, timeout=20_000)
    assert dialog.task_label.text() == "Task feat/T1 of proj"
    with qtbot.waitSignal(dialog.diffShown, timeout=30_000) as blocker:
        dialog.start()  # A: the newest commit, B: the working tree -- the same files
    assert blocker.args[0].tasks[0].unchanged
    assert dialog.state.text() == "Done: no candidate moved."
    dialog.close()
    assert window.lanes.revisions.state is RunState.DONE
