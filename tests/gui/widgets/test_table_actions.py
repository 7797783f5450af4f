"""Row copying and context menus shared by every table (ctxviewer.gui.widgets.table_actions)."""

from __future__ import annotations

from typing import NamedTuple

from PySide6.QtCore import QItemSelectionModel, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QMenu

from ctxviewer.gui.widgets.models import Column
from ctxviewer.gui.widgets.tables import RecordTable
from tests.factories import make_item


class Row(NamedTuple):
    name: str
    size: int
    note: str


ROWS = [
    Row("alpha.md", 1200, "kept"),
    Row("b|eta.md", 7, "two\tparts\nand a line"),  # a pipe, a tab and a line break in cells
    Row("gamma.md", 45, ""),
]
COLUMNS = [
    Column("Name", lambda r: r.name),
    Column("Size", lambda r: f"{r.size:,}", lambda r: r.size, numeric=True),
    Column("Note", lambda r: r.note),
]


def _table(qtbot) -> RecordTable:
    table = RecordTable(COLUMNS, None, statuses=False, noun="rows")
    qtbot.addWidget(table)
    table.resize(500, 300)
    table.show()
    table.set_rows(ROWS)
    return table


def _select(table: RecordTable, *rows: int) -> None:
    selection = table.view.selectionModel()
    selection.clear()
    for row in rows:
        selection.select(
            table.proxy.index(row, 0),
            QItemSelectionModel.SelectionFlag.Select | QItemSelectionModel.SelectionFlag.Rows,
        )
    selection.setCurrentIndex(table.proxy.index(rows[-1], 0), QItemSelectionModel.SelectionFlag.NoUpdate)


def test_ctrl_c_copies_the_selected_rows_as_tsv_with_a_header(qtbot) -> None:
    table = _table(qtbot)
    _select(table, 0, 2)
    QGuiApplication.clipboard().clear()
    table.view.setFocus()
    qtbot.keyClick(table.view, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    # The header row, then rows 0 and 2 with their shown texts (1,200 as the column shows it).
    assert QGuiApplication.clipboard().text() == "Name\tSize\tNote\nalpha.md\t1,200\tkept\ngamma.md\t45\t\n"


def test_copied_cells_stay_one_cell_each(qtbot) -> None:
    table = _table(qtbot)
    _select(table, 1)
    assert table.row_actions.copy() == "Name\tSize\tNote\nb|eta.md\t7\ttwo parts and a line\n"


def test_copy_follows_the_sorted_order_and_hidden_columns(qtbot) -> None:
    table = _table(qtbot)
    table.view.sortByColumn(1, Qt.SortOrder.AscendingOrder)  # by size: 7, 45, 1,200
    table.view.setColumnHidden(2, True)
    table.view.selectAll()
    assert table.row_actions.copy() == "Name\tSize\nb|eta.md\t7\ngamma.md\t45\nalpha.md\t1,200\n"


def _menu_action(menu: QMenu, starts: str):
    found = [a for a in menu.actions() if a.text() == starts or a.text().startswith(starts + " (")]
    assert len(found) == 1, [a.text() for a in menu.actions()]
    return found[0]


def test_the_menu_copies_as_markdown_with_numbers_right_aligned(qtbot) -> None:
    table = _table(qtbot)
    _select(table, 0, 1)
    menu = table.row_actions.make_menu()
    action = _menu_action(menu, "Copy 2 rows as Markdown")
    action.trigger()
    assert QGuiApplication.clipboard().text() == (
        "| Name | Size | Note |\n"
        "| --- | ---: | --- |\n"
        "| alpha.md | 1,200 | kept |\n"
        "| b\\|eta.md | 7 | two parts and a line |\n"
    )
    _menu_action(menu, "Copy 2 rows").trigger()
    assert QGuiApplication.clipboard().text().startswith("Name\tSize\tNote\nalpha.md")


def test_linked_tables_show_in_context_and_show_source_lines(qtbot) -> None:
    inside = make_item(id="a", line_start=3, line_end=4, span=(10, 20))
    outside = make_item(id="b", line_start=3, line_end=4)
    items = {"alpha.md": inside, "gamma.md": outside}
    shown: list[tuple[str, str]] = []
    table = _table(qtbot)
    table.row_actions.link(
        lambda row: items.get(row.name),
        lambda item: shown.append(("context", item.id)),
        lambda item: shown.append(("source", item.id)),
    )
    _select(table, 0)
    menu = table.row_actions.make_menu()
    _menu_action(menu, "Show in context").trigger()
    _menu_action(menu, "Show source lines").trigger()
    assert shown == [("context", "a"), ("source", "a")]

    _select(table, 2)  # a candidate not in the context: the jump is offered greyed, saying why
    menu = table.row_actions.make_menu()
    jump = _menu_action(menu, "Show in context")
    assert jump.text() == "Show in context (not in the context)" and not jump.isEnabled()
    assert _menu_action(menu, "Show source lines").isEnabled()

    _select(table, 1)  # not a candidate at all: neither is offered
    menu = table.row_actions.make_menu()
    assert not _menu_action(menu, "Show in context").isEnabled()
    assert not _menu_action(menu, "Show source lines").isEnabled()


def test_a_right_click_outside_the_selection_selects_that_row(qtbot) -> None:
    table = _table(qtbot)
    _select(table, 0)
    pos = table.view.visualRect(table.proxy.index(2, 0)).center()
    table.row_actions.make_menu(pos)
    assert table.row_actions.copy().splitlines()[1:] == ["gamma.md\t45\t"]


def test_every_table_of_the_window_copies_rows_and_has_a_menu(qtbot, window) -> None:
    from PySide6.QtWidgets import QTableView

    from ctxviewer.gui.widgets.table_actions import TableActions

    views = window.findChildren(QTableView)
    assert len(views) >= 10
    for view in views:
        assert isinstance(view.findChild(TableActions), TableActions), view.parent()
        assert view.contextMenuPolicy() == Qt.ContextMenuPolicy.CustomContextMenu


def test_fate_chips_wrap_under_the_filter_when_the_table_is_narrow(qtbot) -> None:
    table = RecordTable(COLUMNS, None, statuses=True, noun="rows")
    qtbot.addWidget(table)
    table.resize(1000, 300)
    table.show()
    qtbot.waitUntil(lambda: table.width() == 1000)
    assert not table.chips_wrapped()
    # Five chips need ~430 px beside a 160 px filter: at 420 px they take a row of their own,
    # and the table no longer demands their width as its minimum.
    table.resize(420, 300)
    qtbot.waitUntil(lambda: table.chips_wrapped())
    assert table.minimumWidth() < 430
    assert all(chip.isVisible() for chip in table.status_buttons.values())
    table.resize(1000, 300)
    qtbot.waitUntil(lambda: not table.chips_wrapped())


def test_one_row_is_counted_in_the_singular(qtbot) -> None:
    from ctxviewer.gui.widgets.tables import singular

    assert [singular(n) for n in ("findings", "rule files", "entries", "steps")] == [
        "finding",
        "rule file",
        "entry",
        "step",
    ]
    table = _table(qtbot)
    table.set_rows(ROWS[:1])
    assert table.count.text() == "1 row"
    table.set_rows(ROWS)
    assert table.count.text() == "3 rows"
