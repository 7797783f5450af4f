"""The Recorded page over hand-made comparisons: its rows, the marks on what differs, the task chosen."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtTest import QAbstractItemModelTester

from ctxviewer.engine.runs.recorded import (
    FILES_CHANGED,
    SETTINGS,
    RecordedComparison,
    SectionCount,
    TaskComparison,
)
from ctxviewer.gui.views.session.recorded import NOT_COMPARED, RecordedPage, task_verdict

SAME_T = TaskComparison("s/tokens-1.json", "1", "A", "estimated", 5, "feat", 5, (SectionCount("spec_excerpt", 5, 5),))
DIFF_T = TaskComparison(
    "s/tokens-2.json",
    "2",
    "B",
    "estimated",
    30,
    "feat",
    41,
    (
        SectionCount("spec_excerpt", 30, 33, FILES_CHANGED, "d.md"),
        SectionCount("efficiency_hints", None, 8, SETTINGS, "the settings in force stood for them"),
    ),
)
GONE_T = TaskComparison("s/tokens-2.json", "2", "C", "estimated", 4, None, None, (), "not in the project's task graphs")


def _page(qtbot) -> RecordedPage:  # type: ignore[no-untyped-def]
    page = RecordedPage()
    qtbot.addWidget(page)
    page.resize(640, 480)
    for model in (page.tasks_model, page.sections_model):
        QAbstractItemModelTester(model, QAbstractItemModelTester.FailureReportingMode.Fatal, page)
    return page


def test_the_first_task_that_differs_is_chosen_and_its_sections_marked(qtbot) -> None:  # type: ignore[no-untyped-def]
    page = _page(qtbot)
    page.set_comparison(RecordedComparison("/p", "zerg-0.3.2", "detected", (SAME_T, DIFF_T, GONE_T)))
    assert [task_verdict(t) for t in page.tasks_model.rows()] == ["same", "differs", "not reproduced"]
    assert "3 recorded tasks: 1 the same, 1 different, 1 not reproduced" in page.header.text()
    assert page.current_task() is DIFF_T
    sections = page.sections_model
    # 33 - 30 = +3; a section on one side only has no difference to show.
    assert [[sections.data(sections.index(r, c)) for c in range(5)] for r in range(2)] == [
        ["spec_excerpt", "30", "33", "+3", FILES_CHANGED],
        ["efficiency_hints", "-", "8", "", SETTINGS],
    ]
    assert all(sections.data(sections.index(r, 0), Qt.ItemDataRole.ForegroundRole) is not None for r in range(2))
    tasks = page.tasks_model
    assert tasks.data(tasks.index(0, 0), Qt.ItemDataRole.ForegroundRole) is None  # the same: not marked
    assert tasks.data(tasks.index(1, 0), Qt.ItemDataRole.ForegroundRole) is not None
    assert "spec_excerpt: files changed since: d.md" in page.note.text()


def test_the_chosen_task_stays_chosen_and_a_message_clears_the_page(qtbot) -> None:  # type: ignore[no-untyped-def]
    page = _page(qtbot)
    comparison = RecordedComparison("/p", "zerg-0.3.2", "detected", (SAME_T, DIFF_T))
    page.set_comparison(comparison)
    assert page.select_task("A") and page.current_task() is SAME_T
    assert not page.select_task("A", "2")  # A is worker 1's
    page.set_comparison(comparison)
    assert page.current_task() is SAME_T
    with qtbot.waitSignal(page.taskRequested) as asked:
        page.tasks.doubleClicked.emit(page.tasks_model.index(1, 0))
    assert asked.args == [DIFF_T]
    page.set_message(NOT_COMPARED)
    assert page.comparison() is None and page.tasks_model.rowCount() == 0 and page.header.text() == NOT_COMPARED
