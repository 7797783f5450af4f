"""Readable at 1280x800: column widths, elision and tooltips, menus that copy and jump, source lines."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import pytest
from PySide6.QtCore import QItemSelectionModel, Qt
from PySide6.QtGui import QGuiApplication

from ctxviewer.engine.files.reading import ProjectFS
from ctxviewer.engine.trace.model import SPEC_PARAGRAPH
from ctxviewer.gui.widgets.models import RowRole
from ctxviewer.gui.widgets.source_lines import MARK, item_excerpt, source_excerpt, source_file
from ctxviewer.gui.widgets.tables import LAST_COLUMN_SHARE, share_widths
from ctxviewer.gui.window import MainWindow
from tests.conftest import SAMPLES
from tests.factories import make_item, make_project
from tests.gui.conftest import open_and_wait

STOREFRONT = SAMPLES / "storefront-web"
# Lines 1, 3, 5, ... 13 hold one paragraph each; the task's keywords are rotate, signing,
# keys (title words over 3 characters) and vault (the stem of src/vault.py).
REQUIREMENTS = (
    "Rotate signing keys daily.\n\nRotate keys weekly.\n\nSigning is audited.\n\nRotate nothing else.\n\n"
    "Keys are stored apart.\n\nRotate again later.\n\nNothing relevant here.\n"
)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    task = {
        "id": "T-1",
        "title": "Rotate signing keys",
        "description": "",
        "files": {"create": [], "modify": ["src/vault.py"], "read": []},
    }
    return make_project(tmp_path / "proj", [task], requirements=REQUIREMENTS)


# -- column widths (pure) ------------------------------------------------------------------


def test_columns_that_fit_get_what_they_want() -> None:
    assert share_widths([40, 100, 60, 200], 600) == [40, 100, 60, 200]


def test_the_widest_columns_give_way_and_the_last_keeps_its_share() -> None:
    # Room 500: the last keeps 30% = 150; 350 for the rest.  Fixed (numbers) 40 and 60 stay;
    # 250 is left for two text columns wanting 300 and 100: the cap is 150, so 150 and 100.
    assert LAST_COLUMN_SHARE == 0.3
    assert share_widths([40, 300, 60, 100, 400], 500, [True, False, True, False]) == [40, 150, 60, 100, 150]


def test_no_text_column_is_squeezed_below_the_floor() -> None:
    # Room 300: the last's share is 90; 210 for two fixed 100s leaves 10 for the text column:
    # it keeps 80; the last then takes what is left (20), but not under the floor: 80.
    assert share_widths([100, 100, 250, 500], 300, [True, True, False], floor=80) == [100, 100, 80, 80]
    # A text column wanting less than the floor keeps what it wants; 300 - 230 = 70 is left for
    # the last, under the floor again.
    assert share_widths([100, 100, 30, 500], 300, [True, True, False], floor=80) == [100, 100, 30, 80]
    # With room to spare after the floors, the last gets its share, not more.
    assert share_widths([50, 300, 500], 400, [True, False], floor=80) == [50, 230, 120]


# -- source lines (through the project's contained reader) ------------------------------------


def test_source_lines_show_the_range_with_lines_around(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("".join(f"line {n}\n" for n in range(1, 21)), encoding="utf-8")
    excerpt = source_excerpt(ProjectFS(tmp_path), "a.md", 10, 11, around=3)
    assert excerpt.error == "" and excerpt.total == 20
    assert [n for n, _ in excerpt.lines] == list(range(7, 15))
    assert excerpt.lines[0] == (7, "line 7")
    text = excerpt.as_text().splitlines()
    assert text[3] == f"{MARK} 10  line 10" and text[4] == f"{MARK} 11  line 11" and text[2] == "   9  line 9"


def test_source_lines_at_the_edges_and_without_a_range(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("one\ntwo\nthree\n", encoding="utf-8")
    fs = ProjectFS(tmp_path)
    assert [n for n, _ in source_excerpt(fs, "a.md", 1, 1).lines] == [1, 2, 3]
    whole = source_excerpt(fs, "a.md", None, None)
    assert whole.lines == ((1, "one"), (2, "two"), (3, "three")) and not any(whole.marked(n) for n in (1, 2, 3))
    assert "has 3 lines now, not 7" in source_excerpt(fs, "a.md", 7, 8).error
    clipped = source_excerpt(fs, "a.md", None, None, limit=2)
    assert clipped.clipped and clipped.as_text().endswith("1 more lines not shown")


def test_source_lines_never_leave_the_project(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    (tmp_path / "secret.txt").write_text("password\n", encoding="utf-8")
    os.symlink(tmp_path / "secret.txt", root / "link.md")
    fs = ProjectFS(root)
    for rel in ("../secret.txt", str(tmp_path / "secret.txt"), "link.md"):
        excerpt = source_excerpt(fs, rel, 1, 1)
        assert excerpt.lines == () and excerpt.error, rel
        assert "password" not in excerpt.error
    assert source_excerpt(fs, "missing.md", 1, 1).error.endswith("does not exist")


def test_a_computed_entry_shows_its_file_and_names_the_entry(tmp_path: Path) -> None:
    (tmp_path / "map.yaml").write_text("knowledge:\n  - a\n  - b\n", encoding="utf-8")
    fs = ProjectFS(tmp_path)
    assert source_file(fs, "map.yaml knowledge[1]") == ("map.yaml", "knowledge[1]")
    assert source_file(fs, "map.yaml") == ("map.yaml", "")
    entry = make_item(
        kind="knowledge_node",
        section="knowledge",
        part="knowledge",
        source="map.yaml knowledge[1]",
        line_start=None,
        line_end=None,
    )
    excerpt = item_excerpt(fs, entry)
    assert excerpt.error == "" and excerpt.lines == ((1, "knowledge:"), (2, "  - a"), (3, "  - b"))
    # The split never leads out of the project: the file part is read through the same reader.
    outside = dataclasses.replace(entry, source="../map.yaml knowledge[1]")
    assert item_excerpt(fs, outside).lines == () and item_excerpt(fs, outside).error


# -- the window ------------------------------------------------------------------------------


def _select_row(table, predicate) -> object:
    assert table.select(predicate)
    return table.current_row()


def test_ctrl_c_in_the_paragraphs_table_copies_the_rows(qtbot, window: MainWindow, project: Path) -> None:
    trace = open_and_wait(qtbot, window, project)
    window.tabs.show_tab("paragraphs")
    table = window.tabs.paragraphs
    second = _select_row(table, lambda i: i.rank == 2)  # "Rotate keys weekly.", line 3
    first_index = table.proxy.mapFromSource(table.model.index(table.model.row_of(lambda i: i.rank == 1), 0))
    table.view.selectionModel().select(
        first_index, QItemSelectionModel.SelectionFlag.Select | QItemSelectionModel.SelectionFlag.Rows
    )
    first = trace.items_of(SPEC_PARAGRAPH)[0]
    table.view.setFocus()
    QGuiApplication.clipboard().clear()
    qtbot.keyClick(table.view, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    # Score and Lines are hidden by default (the number of matched keywords; the detail pane); the rows in table
    # order: line 1 (rank 1, 26 chars // 4 = 6 tokens) before line 3 (19 // 4 = 4); keywords
    # listed alphabetically; both reach the worker in the prompt's spec fallback.
    assert QGuiApplication.clipboard().text() == (
        "Rank\tFile\tKeywords\tTokens\tStatus\tWorker\tReason\n"
        f"1\trequirements.md\tkeys, rotate, signing\t6\tincluded\tprompt\t{first.reason}\n"
        f"2\trequirements.md\tkeys, rotate\t4\tincluded\tprompt\t{second.reason}\n"
    )


def test_row_menu_shows_the_paragraph_in_context_and_its_source_lines(qtbot, window: MainWindow, project: Path) -> None:
    trace = open_and_wait(qtbot, window, project)
    window.tabs.show_tab("paragraphs")
    _select_row(window.tabs.paragraphs, lambda i: i.rank == 2)
    menu = window.tabs.paragraphs.row_actions.make_menu()
    actions = {a.text(): a for a in menu.actions()}
    actions["Show source lines"].trigger()
    dialog = window.source.dialog
    assert dialog is not None and dialog.isVisible()
    assert dialog.excerpt is not None
    # Line 3 with three lines either side, cut at the file's start: lines 1-6.
    assert [n for n, _ in dialog.excerpt.lines] == [1, 2, 3, 4, 5, 6]
    assert [n for n, _ in dialog.excerpt.lines if dialog.excerpt.marked(n)] == [3]
    assert f"{MARK} 3  Rotate keys weekly." in dialog.text.toPlainText()
    actions["Show in context"].trigger()
    assert window.tabs.current_tab() == "context"
    start, end = window.tabs.context.selected_span()
    assert trace.context[start:end] == "Rotate keys weekly."


def test_context_menu_in_the_text_goes_to_the_table_and_copies_markdown(
    qtbot, window: MainWindow, project: Path
) -> None:
    trace = open_and_wait(qtbot, window, project)
    window.tabs.show_tab("context")
    view = window.tabs.context
    offset = trace.context.index("Rotate keys weekly.") + 3
    assert view.item_at(offset) is not None and view.item_at(offset).rank == 2
    cursor = view.editor.textCursor()
    cursor.setPosition(offset)
    pos = view.editor.cursorRect(cursor).center()
    menu = view.context_menu(pos)
    actions = {a.text(): a for a in menu.actions()}
    view.editor.setTextCursor(cursor)  # no selection: the candidate under the pointer is copied
    actions["Copy as Markdown"].trigger()
    assert QGuiApplication.clipboard().text() == (
        "From the context of T-1 (.gsd/specs/feat/requirements.md, lines 3\u20133, included):\n\n"
        "```markdown\nRotate keys weekly.\n```\n"
    )
    actions["Show in the Paragraphs table"].trigger()
    assert window.tabs.current_tab() == "paragraphs"
    assert window.tabs.paragraphs.current_row().rank == 2
    # The side list offers the same for its candidates.
    window.tabs.show_tab("context")
    model = view.outline_model
    spec = next(model.item(r) for r in range(model.rowCount()) if model.item(r).text() == "Spec excerpts")
    node = next(spec.child(r) for r in range(spec.rowCount()) if spec.child(r).text() == "requirements.md:3")
    pos = view.outline.visualRect(node.index()).center()
    side = {a.text(): a for a in view.outline_menu(pos).actions()}
    with qtbot.waitSignal(view.showSource, timeout=2000) as blocker:
        side["Show source lines"].trigger()
    assert blocker.args[0].rank == 2


def test_at_1280x800_reasons_have_room_and_long_texts_have_tooltips(qtbot, window: MainWindow) -> None:
    trace = open_and_wait(qtbot, window, STOREFRONT, "cart-checkout", "CHK-L1-001")
    for tab, table in (("paragraphs", window.tabs.paragraphs), ("rules", window.tabs.rules)):
        window.tabs.show_tab(tab)
        qtbot.waitUntil(lambda t=table: t.view.viewport().width() > 300)
        table.fit_columns()
        view, header = table.view, table.view.horizontalHeader()
        last = table.model.columnCount() - 1
        # The whole table is in view, and the reason has at least the share it is promised.
        assert header.length() <= view.viewport().width(), tab
        qtbot.waitUntil(lambda v=view: v.horizontalScrollBar().maximum() == 0)  # its range follows a moment later
        assert header.sectionSize(last) >= int(view.viewport().width() * table.last_share) - 1, tab
        assert table.last_share >= 0.25
        assert view.textElideMode() == Qt.TextElideMode.ElideMiddle
        for row in range(table.proxy.rowCount()):
            index = table.proxy.index(row, last)
            item = index.data(RowRole)
            assert item.reason in index.data(Qt.ItemDataRole.ToolTipRole)
    # The outline's task labels are cut at 1280x800; their tooltips carry the whole title.
    tree = window.docks.outline.tree
    first = tree.model().index(0, 0, tree.model().index(0, 0))
    title = window.project.feature("cart-checkout").tasks[0].title
    assert window.docks.outline.tooltip(first) == f"CHK-L1-001: {title}"
    assert trace.task_title == title


def test_trim_steps_and_the_tracker_speak_plainly(qtbot, window: MainWindow) -> None:
    # CHK-L1-001 at the defaults: the JavaScript rule file (matched by src/lib/http.ts) does not
    # fit the security budget, then each spec part keeps its top 5 paragraphs -- the design
    # part of this feature is architecture.md.  Words from the engine's step labels.
    trace = open_and_wait(qtbot, window, STOREFRONT, "cart-checkout", "CHK-L1-001")
    table = window.tabs.trimming.table
    cells = [[table.proxy.index(r, c).data() for c in (1, 2, 3)] for r in range(table.proxy.rowCount())]
    assert cells == [
        ["Security rules", "rule file left out", "the security rule file languages/javascript/CLAUDE.md"],
        ["Spec excerpts", "kept the best paragraphs", "requirements.md"],
        ["Spec excerpts", "kept the best paragraphs", "architecture.md"],
    ]
    labels = [bar.label for bar in window.tabs.trimming.chart.value().steps]
    assert labels == [
        "1. the security rule file languages/javascript/CLAUDE.md: rule file left out",
        "2. requirements.md: kept the best paragraphs",
        "3. architecture.md: kept the best paragraphs",
    ]
    first = trace.trim_steps[0]
    assert (first.action, first.target) == ("skip_block", "rule:languages/javascript/CLAUDE.md")
    # Before -> after per step, as the table shows them: the spec section's two steps chain
    # (the second starts where the first ended); removed = before - after.
    numbers = [[table.proxy.index(r, c).data() for c in (4, 5, 6)] for r in range(3)]
    assert numbers[1][1] == numbers[2][0]
    for before, after, removed in numbers:
        assert int(before.replace(",", "")) - int(after.replace(",", "")) == int(removed.replace(",", ""))
    # One task file (src/lib/http.ts): the tracker's share is 3,000 // 1, within [500, 3,000].
    tip = window.docks.tracker.fields["task_budget"].toolTip()
    assert tip.startswith("3,000 tokens: the tracker's own share of the 3,000-token budget for one task")
    files = window.docks.tracker.files
    assert files.proxy.index(0, 3).data() == "modified by the task"


def test_the_search_results_open_at_a_useful_height(qtbot, app_style: None, window: MainWindow) -> None:
    open_and_wait(qtbot, window, STOREFRONT, "cart-checkout", "CHK-L1-001")
    assert not window.docks.search_dock.isVisible()
    window.docks.search.field.setText("payment")
    qtbot.waitUntil(lambda: window.docks.search_dock.isVisible(), timeout=20_000)
    # Asked for 40% of the window (320 px); the central views' minimum height (the tallest
    # tab's) leaves it about 196 px at 1280x800 in the app's style: four result rows under
    # the summary and the status bar (it used to open two rows tall).
    view = window.docks.search.results.view
    rows = 4 * view.verticalHeader().defaultSectionSize()
    qtbot.waitUntil(lambda: view.viewport().height() >= rows, timeout=20_000)


def test_reasons_are_cut_at_the_end_and_paths_in_the_middle(qtbot, window: MainWindow, project: Path) -> None:
    from PySide6.QtWidgets import QStyleOptionViewItem

    open_and_wait(qtbot, window, project)
    table = window.tabs.paragraphs
    headers = [table.model.headerData(c, Qt.Orientation.Horizontal) for c in range(table.model.columnCount())]
    row = table.proxy.index(0, 0).row()

    def mode(column: str) -> Qt.TextElideMode:
        option = QStyleOptionViewItem()
        index = table.proxy.index(row, headers.index(column))
        table.view.itemDelegate().initStyleOption(option, index)
        assert option.text == index.data()  # the cell's own text decides
        return option.textElideMode

    # A reason is words ("rank 1 of 5 kept ..."): cut at its end.  A file name has no
    # space: cut in the middle, so its folder and extension stay.
    assert " " in table.proxy.index(row, headers.index("Reason")).data()
    assert mode("Reason") == Qt.TextElideMode.ElideRight
    assert mode("File") == Qt.TextElideMode.ElideMiddle


def test_setting_names_are_cut_at_the_end_not_in_the_middle(qtbot, window: MainWindow, project: Path) -> None:
    """'security_share' cut in the middle read 'secu…hare' in the Task tab at 1280x800; a name
    with no folder and no extension is cut at its end ('security_s…').  File names stay cut in
    the middle (test_reasons_are_cut_at_the_end_and_paths_in_the_middle)."""
    from PySide6.QtWidgets import QStyleOptionViewItem

    open_and_wait(qtbot, window, project)
    table = window.tabs.task.settings
    names = [table.proxy.index(r, 0).data() for r in range(table.proxy.rowCount())]
    index = table.proxy.index(names.index("security_share"), 0)
    option = QStyleOptionViewItem()
    table.view.itemDelegate().initStyleOption(option, index)
    assert option.text == "security_share" and option.textElideMode == Qt.TextElideMode.ElideRight


def test_a_task_title_has_a_line_of_its_own_in_the_tree(qtbot, window: MainWindow) -> None:
    # Beside its id a title had about eight characters at 1280x800; on its own line it has
    # the tree's whole width.  Every row is two lines high (uniform heights stay fast).
    storefront = SAMPLES / "storefront-web"
    open_and_wait(qtbot, window, storefront, "cart-checkout", "CHK-L1-001")
    tree = window.docks.outline.tree
    task = window.docks.outline.proxy.index(0, 0, window.docks.outline.proxy.index(0, 0))
    assert task.data() == "CHK-L1-001\nIdempotency and payment-action support in the HTTP client"
    lines = tree.fontMetrics().lineSpacing()
    assert tree.visualRect(task).height() >= 2 * lines
    assert tree.visualRect(window.docks.outline.proxy.index(0, 0)).height() == tree.visualRect(task).height()
