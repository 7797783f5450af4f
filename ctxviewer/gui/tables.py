"""A filterable, sortable table of trace rows with a detail pane underneath."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from PySide6.QtCore import QItemSelectionModel, QModelIndex, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QSplitter,
    QTableView,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from ctxviewer.engine.trace import FATES, fate_label
from ctxviewer.gui.models import FATE_TIPS, Column, RecordFilterProxy, RecordModel, RowRole
from ctxviewer.gui.plaintext import NoResourceBrowser

DetailFn = Callable[[Any], str]


def make_table_view(proxy: Any, parent: QWidget | None = None) -> QTableView:
    """A read-only table view with the house defaults (sortable, row selection)."""
    view = QTableView(parent)
    view.setModel(proxy)
    view.setSortingEnabled(True)
    # Start in the trace's own order (the pipeline's order); a header click sorts.
    view.sortByColumn(-1, Qt.SortOrder.AscendingOrder)
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    view.setAlternatingRowColors(True)
    view.setWordWrap(False)
    view.verticalHeader().setVisible(False)
    view.verticalHeader().setDefaultSectionSize(view.fontMetrics().height() + 8)
    header = view.horizontalHeader()
    header.setHighlightSections(False)
    header.setStretchLastSection(True)
    header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
    return view


class RecordTable(QWidget):
    """Filter bar + table + detail pane over one :class:`RecordModel`.

    ``rowActivated`` carries the row object when a row is double-clicked or Enter is
    pressed on it (the window jumps to it in the context).
    """

    rowSelected = Signal(object)
    rowActivated = Signal(object)

    def __init__(
        self,
        columns: Sequence[Column],
        detail: DetailFn | None = None,
        *,
        statuses: bool = True,
        noun: str = "rows",
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.model = RecordModel(columns, self)
        self.proxy = RecordFilterProxy(self)
        self.proxy.setSourceModel(self.model)
        self._detail = detail
        self._noun = noun

        self.filter = QLineEdit(self)
        self.filter.setPlaceholderText(f"Filter {noun}\u2026")
        self.filter.setClearButtonEnabled(True)
        self.filter.setToolTip(f"Show only {noun} whose cells contain this text (any column)")
        self.filter.textChanged.connect(self._on_filter)
        bar = QHBoxLayout()
        bar.setContentsMargins(0, 0, 0, 0)
        bar.addWidget(self.filter, 1)
        self.status_buttons: dict[str, QToolButton] = {}
        if statuses:
            for status in FATES:
                button = QToolButton(self)
                button.setText(fate_label(status))
                button.setCheckable(True)
                button.setChecked(True)
                button.setToolTip(f"Show {noun} whose fate is '{fate_label(status)}': {FATE_TIPS[status]}")
                button.toggled.connect(self._on_status)
                self.status_buttons[status] = button
                bar.addWidget(button)
        self.count = QLabel(self)
        self.count.setToolTip(f"{noun.capitalize()} shown by the filter, of all {noun} in this run")
        bar.addWidget(self.count)

        self.view = make_table_view(self.proxy, self)
        self.view.selectionModel().currentRowChanged.connect(self._on_current)
        self.view.activated.connect(self._on_activated)
        self.detail = NoResourceBrowser(self)  # its HTML quotes the project: nothing it names is loaded
        self.detail.setOpenLinks(False)
        self.detail.setPlaceholderText("Select a row to see why it is where it is.")
        splitter = QSplitter(Qt.Orientation.Vertical, self)
        splitter.addWidget(self.view)
        splitter.addWidget(self.detail)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 2)
        if detail is None:
            self.detail.hide()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(bar)
        layout.addWidget(splitter, 1)
        self.proxy.rowsInserted.connect(self._update_count)
        self.proxy.rowsRemoved.connect(self._update_count)
        self.proxy.modelReset.connect(self._update_count)
        self.proxy.layoutChanged.connect(self._update_count)
        self._update_count()

    # -- content ---------------------------------------------------------------------

    def set_rows(
        self, rows: Sequence[Any], widths: Sequence[int] | None = None, columns: Sequence[Column] | None = None
    ) -> None:
        self.model.set_rows(rows, columns)
        self.detail.clear()
        if widths:
            for col, width in enumerate(widths):
                self.view.setColumnWidth(col, width)
        self._update_count()

    def select(self, predicate: Callable[[Any], bool]) -> bool:
        """Select (and scroll to) the first row matching *predicate*; clears filters that hide it."""
        row = self.model.row_of(predicate)
        if row is None:
            return False
        source = self.model.index(row, 0)
        index = self.proxy.mapFromSource(source)
        if not index.isValid():
            self.filter.clear()
            for button in self.status_buttons.values():
                button.setChecked(True)
            index = self.proxy.mapFromSource(source)
        self.view.selectionModel().setCurrentIndex(
            index, QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows
        )
        self.view.scrollTo(index, QAbstractItemView.ScrollHint.PositionAtCenter)
        return True

    def current_row(self) -> Any:
        index = self.view.currentIndex()
        return index.data(RowRole) if index.isValid() else None

    def shown(self) -> int:
        return self.proxy.rowCount()

    # -- slots -----------------------------------------------------------------------------

    def _on_filter(self, text: str) -> None:
        self.proxy.set_text(text)
        self._update_count()

    def _on_status(self) -> None:
        chosen = frozenset(s for s, b in self.status_buttons.items() if b.isChecked())
        self.proxy.set_statuses(None if len(chosen) == len(self.status_buttons) else chosen)
        self._update_count()

    def _on_current(self, current: QModelIndex, _previous: QModelIndex) -> None:
        row = current.data(RowRole) if current.isValid() else None
        if row is None:
            self.detail.clear()
            return
        if self._detail is not None:
            self.detail.setHtml(self._detail(row))
        self.rowSelected.emit(row)

    def _on_activated(self, index: QModelIndex) -> None:
        row = index.data(RowRole)
        if row is not None:
            self.rowActivated.emit(row)

    def _update_count(self, *_args: object) -> None:
        total = self.model.rowCount()
        shown = self.proxy.rowCount()
        self.count.setText(f"{shown:,} of {total:,} {self._noun}" if shown != total else f"{total:,} {self._noun}")
