"""A filterable, sortable table of trace rows with a detail pane underneath."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from PySide6.QtCore import QItemSelectionModel, QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QResizeEvent, QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QSplitter,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableView,
    QTabWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from ctxviewer.engine.trace.model import FATES, fate_label
from ctxviewer.gui.widgets.models import FATE_TIPS, Column, RecordFilterProxy, RecordModel, RowRole
from ctxviewer.gui.widgets.plaintext import NoResourceBrowser
from ctxviewer.gui.widgets.table_actions import TableActions, install_table_actions

DetailFn = Callable[[Any], str]

#: When the columns do not all fit, the last one (the reason, the description) keeps at
#: least this share of the table's width; the widest of the others give way first.
LAST_COLUMN_SHARE = 0.3
#: The first column (it names the row) keeps its full width up to this share.
FIRST_COLUMN_SHARE = 0.25
#: A text column is not squeezed narrower than this (pixels) to make room for the others.
MIN_COLUMN = 80
#: A table is never narrower than this; its filter box not narrower than FILTER_MIN_WIDTH
#: beside the fate chips (else the chips take a row of their own).
MIN_TABLE_WIDTH = 240
FILTER_MIN_WIDTH = 160
#: Fitting a column measures the rows on screen and at most this many others.
FIT_ROWS = 200
#: What a cell adds to its text's width (the delegate's text margins on both sides).
CELL_MARGINS = 8
#: Texts whose width a table keeps for its column fit, at most (then it starts again).
KEPT_WIDTHS = 4096
#: A wrapping table (``wrap=True``) of at most this many rows fits its row heights to
#: their texts; longer ones keep one line a row, elided, so they stay fast.
WRAP_ROWS = 400


def share_widths(
    wanted: Sequence[int],
    room: int,
    fixed: Sequence[bool] = (),
    floor: int = MIN_COLUMN,
    last_share: float = LAST_COLUMN_SHARE,
) -> list[int]:
    """Widths for columns that want *wanted* pixels in *room*; the last one stretches.

    When everything fits, each column gets what it wants.  When not, the last column
    keeps *last_share* of the room (or what it wants, if less) and the others
    share the rest by capping the widest: a column wanting more than the cap gets the
    cap, the narrow ones keep their full width.  Columns marked in *fixed* (numbers,
    statuses) always get what they want; the others never go under *floor* (nor under
    what they want, if that is less) -- the table scrolls sideways before a column
    becomes unreadable.  The last width is the last column's share; the view's stretch
    gives it any pixels left over.
    """
    if not wanted:
        return []
    wants = [max(0, w) for w in wanted]
    *head, last = wants
    if sum(wants) <= room:
        return wants
    last_w = min(last, int(room * last_share))
    pinned = [n < len(fixed) and fixed[n] for n in range(len(head))]
    rest = room - last_w - sum(w for w, p in zip(head, pinned, strict=True) if p)
    free = sorted(w for w, p in zip(head, pinned, strict=True) if not p)
    # The largest cap with sum(min(want, cap)) <= rest over the free columns.
    cap = float(max(free, default=0))
    spent = 0
    for n, want in enumerate(free):
        left = len(free) - n
        if want * left + spent > rest:
            cap = max(0, rest - spent) / left
            break
        spent += want
    out = [w if p else max(min(w, floor), min(w, int(cap))) for w, p in zip(head, pinned, strict=True)]
    # When the others' floors eat into its share, the last column takes what is left.
    return [*out, min(last_w, max(floor, room - sum(out)))]


class _ElideByKind(QStyledItemDelegate):
    """Elides a path in the middle (its folder and its file name stay) and words at the end.

    A reason cut in the middle ("score 0: no ta…d occurs in it") reads as nonsense;
    cut at the end it reads as the start of the sentence.  A cell is a path when it has no
    space in it and names a folder or an extension (``/`` or ``.``); a bare name such as a
    setting (``security_share``) is cut at its end too ("secu…hare" read as nothing).  The
    whole text is in the cell's tooltip either way.
    """

    def initStyleOption(self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> None:
        super().initStyleOption(option, index)
        text = option.text
        path = " " not in text and ("/" in text or "." in text)
        option.textElideMode = Qt.TextElideMode.ElideMiddle if path else Qt.TextElideMode.ElideRight


def make_table_view(proxy: Any, parent: QWidget | None = None) -> QTableView:
    """A read-only table view with the house defaults (sortable, row selection).

    Rows are selected whole, several at once (Ctrl/Shift+click); Ctrl+C copies them and a
    right click offers more (:mod:`ctxviewer.gui.widgets.table_actions`).  Long cells are elided:
    a path in the middle, so it keeps its folder and its file name, words at the end, so
    a reason reads as the start of its sentence; the tooltip has it all.
    """
    view = QTableView(parent)
    view.setModel(proxy)
    view.setSortingEnabled(True)
    # Start in the trace's own order (the pipeline's order); a header click sorts.
    view.sortByColumn(-1, Qt.SortOrder.AscendingOrder)
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
    view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    view.setAlternatingRowColors(True)
    view.setWordWrap(False)
    view.setTextElideMode(Qt.TextElideMode.ElideMiddle)
    view.setItemDelegate(_ElideByKind(view))
    view.verticalHeader().setVisible(False)
    view.verticalHeader().setDefaultSectionSize(view.fontMetrics().height() + 8)
    header = view.horizontalHeader()
    header.setHighlightSections(False)
    header.setStretchLastSection(True)
    header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
    install_table_actions(view)
    return view


def singular(noun: str) -> str:
    """``1 finding``, ``1 rule file``, ``1 entry`` -- the nouns the tables count in."""
    if noun.endswith("ies"):
        return noun[:-3] + "y"
    return noun[:-1] if noun.endswith("s") else noun


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
        fit: bool = False,
        wrap: bool = False,
        last_share: float = LAST_COLUMN_SHARE,
        first_share: float = FIRST_COLUMN_SHARE,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        #: Columns sized to their texts and the table's width (:func:`share_widths`), again
        #: with each new set of rows and when the table is resized -- until the user drags one.
        self.fit = fit
        #: Long cells go onto more lines (tables of few rows whose reasons are long).
        self.wrap = wrap
        #: The share of the width the last column keeps when the columns do not all fit.
        self.last_share = last_share
        #: The share of the width the first column (it names the row) keeps at most.
        self.first_share = first_share
        self._fitting = False
        self._user_sized = False
        self._fit_pending = False
        #: Each text's width in the view's font (its key), kept for the column fit.
        self._widths: dict[str, int] = {}
        self._widths_font = ""
        self.model = RecordModel(columns, self)
        self._columns = tuple(columns)
        self.proxy = RecordFilterProxy(self)
        self.proxy.setSourceModel(self.model)
        self._detail = detail
        self._noun = noun

        self.filter = QLineEdit(self)
        self.filter.setPlaceholderText(f"Filter {noun}\u2026")
        self.filter.setClearButtonEnabled(True)
        self.filter.setToolTip(f"Show only {noun} whose cells contain this text (any column)")
        self.filter.textChanged.connect(self._on_filter)
        bar = self._bar = QHBoxLayout()
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
        # A column's fitted width looks at the rows on screen and at most this many more.
        self.view.verticalHeader().setResizeContentsPrecision(FIT_ROWS)
        #: Ctrl+C and the context menu (the window links them to the trace's candidates).
        self.row_actions: TableActions = install_table_actions(self.view)
        self.view.selectionModel().currentRowChanged.connect(self._on_current)
        self.view.activated.connect(self._on_activated)
        self.view.horizontalHeader().sectionResized.connect(self._on_section_resized)
        self.detail = NoResourceBrowser(self)  # its HTML quotes the project: nothing it names is loaded
        self.detail.setOpenLinks(False)
        self.detail.setPlaceholderText("Select a row to see why it is where it is.")
        #: The detail's pages, once :meth:`add_detail_page` has added one.
        self.detail_pages: QTabWidget | None = None
        splitter = self.splitter = QSplitter(Qt.Orientation.Vertical, self)
        splitter.addWidget(self.view)
        splitter.addWidget(self.detail)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 2)
        if detail is None:
            self.detail.hide()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(bar)
        #: The fate chips go here, under the filter, when the table is too narrow for one row.
        self._chips_row = QHBoxLayout()
        self._chips_row.setContentsMargins(0, 0, 0, 0)
        self._chips_row.addStretch(1)
        self._chips_wrapped = False
        layout.addLayout(self._chips_row)
        layout.addWidget(splitter, 1)
        # Five fate chips in one row would make the table (and every tab holding one) at
        # least ~590 px wide, squeezing the docks at 1280x800; they wrap instead.
        self.setMinimumWidth(MIN_TABLE_WIDTH)
        self.proxy.rowsInserted.connect(self._update_count)
        self.proxy.rowsRemoved.connect(self._update_count)
        self.proxy.modelReset.connect(self._update_count)
        self.proxy.layoutChanged.connect(self._update_count)
        self._update_count()

    def rows_height(self, rows: int) -> int:
        """The view's height that shows *rows* rows whole: its header, the rows, room for a
        horizontal scroll bar, and its frame."""
        view = self.view
        return (
            view.horizontalHeader().sizeHint().height()
            + rows * view.verticalHeader().defaultSectionSize()
            + view.horizontalScrollBar().sizeHint().height()
            + 2 * view.frameWidth()
        )

    def keep_rows(self, rows: int) -> None:
        """Keep *rows* rows of the table in view however the detail pane and the panels around
        are sized: the splitter's handle stops there, and the detail pane cannot be collapsed."""
        view = self.view
        view.setMinimumHeight(
            view.horizontalHeader().sizeHint().height()
            + rows * view.verticalHeader().defaultSectionSize()
            + view.horizontalScrollBar().sizeHint().height()
            + 2 * view.frameWidth()
        )
        self.splitter.setChildrenCollapsible(False)

    # -- content ---------------------------------------------------------------------

    def set_rows(
        self, rows: Sequence[Any], widths: Sequence[int] | None = None, columns: Sequence[Column] | None = None
    ) -> None:
        self.model.set_rows(rows, columns)
        if columns is not None:
            self._columns = tuple(columns)
        self.detail.clear()
        if widths:
            for col, width in enumerate(widths):
                self.view.setColumnWidth(col, width)
        elif self.fit:
            self._user_sized = False
            self.fit_columns()
        self._update_count()

    def fit_columns(self) -> None:
        """Size the columns to their texts (the rows on screen) within the table's width.

        Only while the table is shown: hidden, Qt measures a column over *every* row (half a
        second for a few thousand paragraphs), so a hidden table is fitted when it is shown.
        """
        view, header = self.view, self.view.horizontalHeader()
        count = self.model.columnCount()
        if not count:
            return
        if not view.isVisible():
            self._fit_pending = True
            return
        self._fit_pending = False
        shown = [c for c in range(count) if not header.isSectionHidden(c)]
        wrap = self.wrap and self.model.rowCount() <= WRAP_ROWS
        view.setWordWrap(False)  # measure each text on one line
        metrics = header.fontMetrics()
        heads = [str(self.model.headerData(c, Qt.Orientation.Horizontal) or "") for c in shown]
        order, widths = self._fit_order(), self._kept_widths()
        wanted = [
            max(metrics.horizontalAdvance(h) + 14, self._text_width(c, order, widths))
            for c, h in zip(shown, heads, strict=True)
        ]
        room = view.viewport().width()
        if not view.verticalScrollBar().isVisible() and view.verticalHeader().length() > view.viewport().height():
            # Shown a moment ago, the rows will need the scroll bar the viewport does not have yet.
            room -= view.style().pixelMetric(QStyle.PixelMetric.PM_ScrollBarExtent, None, view)
        columns = self._columns
        # The first column names the row: it keeps its width, up to a quarter of the table's
        # (all of it when its texts are to be read whole).
        if shown and not (columns and (columns[shown[0]].numeric or columns[shown[0]].whole)):
            wanted[0] = min(wanted[0], max(MIN_COLUMN, int(room * self.first_share)))
        # Numbers, statuses and texts read whole keep their width, and so does the first column.
        fixed = [
            n == 0 or (c < len(columns) and (columns[c].numeric or columns[c].status or columns[c].whole))
            for n, c in enumerate(shown)
        ]
        self._fitting = True
        try:
            # The last column is left to the header's stretch: it takes what the others leave.
            for column, width in list(
                zip(shown, share_widths(wanted, room, fixed, last_share=self.last_share), strict=True)
            )[:-1]:
                header.resizeSection(column, width)
        finally:
            self._fitting = False
        view.setWordWrap(wrap)
        if wrap:
            view.resizeRowsToContents()

    def _fit_order(self) -> list[int]:
        """The model rows of the first :data:`FIT_ROWS` rows in the table's order (sorted, filtered)."""
        proxy = self.proxy
        return [proxy.mapToSource(proxy.index(r, 0)).row() for r in range(min(FIT_ROWS, proxy.rowCount()))]

    def _kept_widths(self) -> dict[str, int]:
        """Each text's width measured so far, kept while the view's font stays: the next
        task's table has most of the same names, statuses and numbers."""
        font = self.view.font().key()
        if font != self._widths_font or len(self._widths) > KEPT_WIDTHS:
            self._widths_font = font
            self._widths = {}
        return self._widths

    def _text_width(self, column: int, order: Sequence[int], widths: dict[str, int]) -> int:
        """The width *column*'s texts want: the widest of the rows *order* names, in the view's
        font, with the cell's margins -- what the view's own ``sizeHintForColumn`` gives for
        these text cells, measured without asking the delegate of every cell (a few
        milliseconds, not a few hundred, for a nine-section task's table).  A text already in
        *widths* is not measured again."""
        metrics = self.view.fontMetrics()
        rows = self.model.rows()
        spec = self._columns[column] if column < len(self._columns) else None
        widest = -1
        for row in order:
            text = spec.text(rows[row]) if spec is not None else str(self.model.index(row, column).data() or "")
            width = widths.get(text)
            if width is None:
                width = widths[text] = max(map(metrics.horizontalAdvance, text.split("\n")))
            widest = max(widest, width)
        return widest + CELL_MARGINS if widest >= 0 else 0

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._arrange_bar()
        if self.fit and not self._user_sized and event.size().width() != event.oldSize().width():
            self.fit_columns()

    def _arrange_bar(self) -> None:
        """The chips beside the filter when they fit the width, else on a row of their own."""
        chips = list(self.status_buttons.values())
        if not chips:
            return
        spacing = max(0, self._bar.spacing())
        one_row = (
            FILTER_MIN_WIDTH
            + sum(c.sizeHint().width() + spacing for c in chips)
            + self.count.sizeHint().width()
            + 2 * spacing
            + 8
        )
        wrap = self.width() < one_row
        if wrap == self._chips_wrapped:
            return
        self._chips_wrapped = wrap
        for chip in chips:
            self._bar.removeWidget(chip)
            self._chips_row.removeWidget(chip)
        if wrap:
            for n, chip in enumerate(chips):
                self._chips_row.insertWidget(n, chip)
        else:
            for chip in chips:
                self._bar.insertWidget(self._bar.indexOf(self.count), chip)

    def chips_wrapped(self) -> bool:
        return self._chips_wrapped

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        # New rows came while hidden (a tab not shown): fit them now, at the real width.
        if self.fit and (self._fit_pending or not self._user_sized):
            self.fit_columns()

    def _on_section_resized(self, column: int, _old: int, _new: int) -> None:
        # The stretching last column follows the table's width; any other change is the user's.
        if not self._fitting and column < self.model.columnCount() - 1:
            self._user_sized = True

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

    def add_detail_page(self, widget: QWidget, title: str, tip: str = "") -> QTabWidget:
        """Show *widget* as a second page of the detail pane (the detail itself becomes the first, "Why").

        The pages share the detail's room under the table rather than taking more of it.
        """
        pages = self.detail_pages
        if pages is None:
            pages = self.detail_pages = QTabWidget(self)
            pages.setDocumentMode(True)
            self.splitter.replaceWidget(self.splitter.indexOf(self.detail), pages)
            pages.addTab(self.detail, "Why")
            pages.setTabToolTip(0, "Why the selected row is where it is")
        index = pages.addTab(widget, title)
        if tip:
            pages.setTabToolTip(index, tip)
        return pages

    def detail_area(self) -> QWidget:
        """What sits under the table: the detail pane, or its pages once a page is added."""
        return self.detail_pages if self.detail_pages is not None else self.detail

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
            self.detail.replace_html(self._detail(row))
        self.rowSelected.emit(row)

    def _on_activated(self, index: QModelIndex) -> None:
        row = index.data(RowRole)
        if row is not None:
            self.rowActivated.emit(row)

    def _update_count(self, *_args: object) -> None:
        total = self.model.rowCount()
        shown = self.proxy.rowCount()
        if shown != total:
            self.count.setText(f"{shown:,} of {total:,} {self._noun}")
        else:
            self.count.setText(f"{total:,} {singular(self._noun) if total == 1 else self._noun}")
