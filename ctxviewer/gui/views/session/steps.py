"""The replay's step table: its columns and :class:`StepModel`, which greys the steps not
yet played and marks the checkpointing ones red and bold; the columns fitted to their texts
(:func:`step_column_widths`).  See docs/gui.md.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QBrush, QFont, QFontMetrics, QGuiApplication, QPalette
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableView, QWidget

from ctxviewer.engine.runs.session import ReplayStep
from ctxviewer.gui.views.session.series import step_detail
from ctxviewer.gui.widgets.models import Column, RecordModel, is_dark, status_colour
from ctxviewer.gui.widgets.plaintext import plain_tip
from ctxviewer.gui.widgets.table_actions import install_table_actions

ROLE = QPalette.ColorRole
#: What a cell adds to its text's width (the item delegate's margins on both sides).
CELL_MARGINS = 8


def step_columns() -> list[Column]:
    return [
        Column("#", lambda s: str(s.index + 1), lambda s: s.index, "Order in the replay", numeric=True),
        Column("Task", lambda s: s.task_id, None, "The task (double-click to open it)"),
        Column("+Tokens", lambda s: f"+{s.added:,}", lambda s: s.added, "What this task added", numeric=True),
        Column("Total", lambda s: f"{s.estimated_tokens:,}", lambda s: s.estimated_tokens, "Estimate after it", True),
        Column(
            "Usage", lambda s: f"{s.usage_percent:.1f}%", lambda s: s.usage_percent, "Of the max context", numeric=True
        ),
    ]


class StepModel(RecordModel):
    """The replay's steps; those not yet played greyed, checkpointing steps red and bold."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(step_columns(), parent)
        self.position = -1
        #: Where the colours come from: the view's palette once the panel sets it.
        self.palette: Callable[[], QPalette] = QGuiApplication.palette

    def set_position(self, position: int) -> None:
        old, self.position = self.position, position
        if self.rowCount() and old != position:
            last = self.index(self.rowCount() - 1, self.columnCount() - 1)
            self.dataChanged.emit(self.index(0, 0), last)

    def data(self, index: Any, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if index.isValid() and index.row() < len(self.rows()):
            step: ReplayStep = self.rows()[index.row()]
            if role == Qt.ItemDataRole.ForegroundRole:
                pal = self.palette()
                if index.row() > self.position:
                    return QBrush(pal.color(ROLE.PlaceholderText))
                if step.checkpoint:
                    return QBrush(status_colour("failed", is_dark(pal)))
                return None
            if role == Qt.ItemDataRole.FontRole and step.checkpoint:
                font = QFont()
                font.setBold(True)
                return font
            if role == Qt.ItemDataRole.ToolTipRole:
                return plain_tip(
                    f"{step.task_id}: {step.title}\n{step_detail(step)}" if step.title else step_detail(step)
                )
        return super().data(index, role)


def step_column_widths(table: QTableView, model: StepModel) -> dict[int, int]:
    """Each column's width fitted to its texts, as ``resizeColumnToContents`` fits it: the
    widest cell text (bold in a checkpointing step's row) with the cell's margins, and never
    narrower than the header wants."""
    plain = table.fontMetrics()
    bold_font = QFont(table.font())
    bold_font.setBold(True)
    bold = QFontMetrics(bold_font)
    header = table.horizontalHeader()
    steps: tuple[ReplayStep, ...] = model.rows()
    widths: dict[int, int] = {}
    for column, spec in enumerate(model.columns()):
        widest = max(
            ((bold if step.checkpoint else plain).horizontalAdvance(spec.text(step)) for step in steps), default=0
        )
        widths[column] = max(header.sectionSizeHint(column), widest + CELL_MARGINS if steps else 0)
    return widths


def step_table(model: StepModel, parent: QWidget) -> QTableView:
    """A compact read-only table over *model*: one row selected at a time, the task column
    stretching, Ctrl+C and a right click copying the selected steps."""
    table = QTableView(parent)
    table.setModel(model)
    model.palette = table.palette
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setAlternatingRowColors(True)
    table.setWordWrap(False)
    table.verticalHeader().setVisible(False)
    table.verticalHeader().setDefaultSectionSize(table.fontMetrics().height() + 6)
    header = table.horizontalHeader()
    header.setHighlightSections(False)
    header.setStretchLastSection(False)
    # Fitted once per replay (SessionPanel.set_replay), not re-measured on every change: with
    # ResizeToContents each step of playback -- a dataChanged over the whole table --
    # asked every cell for its text again, and each ask waits for the interpreter lock
    # while a background batch pass holds it.
    header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
    header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
    install_table_actions(table)  # Ctrl+C copies the selected steps; a right click too
    table.setMinimumHeight(80)
    return table
