"""A fitted table's columns take their widest text, in the view's font, in the table's order."""

from __future__ import annotations

from typing import NamedTuple

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont

from ctxviewer.gui.widgets import tables
from ctxviewer.gui.widgets.models import Column
from ctxviewer.gui.widgets.tables import CELL_MARGINS, RecordTable


class _Row(NamedTuple):
    name: str
    size: str
    note: str


COLUMNS = [
    Column("Name", lambda r: r.name, whole=True),
    Column("Size", lambda r: r.size, numeric=True),
    Column("Note", lambda r: r.note),
]


def _table(qtbot) -> RecordTable:
    table = RecordTable(COLUMNS, None, statuses=False, fit=True)
    qtbot.addWidget(table)
    table.resize(900, 300)
    table.show()
    qtbot.waitExposed(table)
    return table


def _want(table: RecordTable, texts: list[str]) -> int:
    metrics = table.view.fontMetrics()
    return max(metrics.horizontalAdvance(t) for t in texts) + CELL_MARGINS


def test_a_fixed_column_takes_its_widest_text(qtbot) -> None:
    table = _table(qtbot)
    rows = [_Row("a", "1", "x"), _Row("a much longer name", "1,234,567", "y"), _Row("mid name", "12", "z")]
    table.set_rows(rows)
    header = table.view.horizontalHeader()
    assert header.sectionSize(0) == _want(table, ["Name", "a much longer name"])
    head = table.view.horizontalHeader().fontMetrics().horizontalAdvance("Size") + 14
    assert header.sectionSize(1) == max(_want(table, ["1,234,567"]), head)


def test_the_next_rows_are_measured_in_a_new_font(qtbot) -> None:
    # The widths a table keeps for its texts are the font's: a bigger font measures again.
    table = _table(qtbot)
    rows = [_Row("a much longer name", "1,234,567", "y")]
    table.set_rows(rows)
    small = table.view.horizontalHeader().sectionSize(0)
    font = QFont(table.view.font())
    font.setPointSizeF(font.pointSizeF() * 2)
    table.view.setFont(font)
    table.set_rows(list(rows))
    big = table.view.horizontalHeader().sectionSize(0)
    assert big == _want(table, ["a much longer name"])
    assert big > small * 1.5


def test_the_fit_measures_the_first_rows_in_the_tables_order(qtbot, monkeypatch) -> None:
    monkeypatch.setattr(tables, "FIT_ROWS", 2)
    table = _table(qtbot)
    rows = [_Row("b short", "1", "n"), _Row("c short", "2", "n"), _Row("z the longest name of all", "3", "n")]
    table.set_rows(rows)
    header = table.view.horizontalHeader()
    assert header.sectionSize(0) == _want(table, ["b short", "c short"])  # the longest is third
    table.view.sortByColumn(0, Qt.SortOrder.DescendingOrder)
    table.fit_columns()
    assert header.sectionSize(0) == _want(table, ["z the longest name of all"])
