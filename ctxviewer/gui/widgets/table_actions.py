"""Copying and context menus shared by every table of the window.

Ctrl+C copies the selected rows as tab-separated text under a header row, from the full
texts the model holds (a tab or line break in a cell becomes a space); right-clicking the
column names shows or hides columns; right-clicking a row offers Copy, Copy as Markdown and,
where the window links the table to the trace's candidates, Show in context and Show source
lines.  :func:`~ctxviewer.gui.widgets.tables.make_table_view` installs them
(:func:`install_table_actions`); other views call it themselves.  See docs/gui.md.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from PySide6.QtCore import QEvent, QItemSelectionModel, QModelIndex, QObject, QPoint, Qt
from PySide6.QtGui import QAction, QGuiApplication, QKeyEvent, QKeySequence
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QMenu

from ctxviewer.engine.trace.model import Item

#: The row object behind an index; the same role as models.RowRole (kept literal here so
#: this module imports nothing from the models and can serve any table).
ROW_ROLE = Qt.ItemDataRole.UserRole + 1

#: Maps a table's row object to the trace candidate it is about (None: not a candidate).
ItemOf = Callable[[Any], Item | None]
ItemAction = Callable[[Item], None]


def _cell(text: object) -> str:
    """One cell as a single line: tabs and line breaks become spaces."""
    value = "" if text is None else str(text)
    return " ".join(value.replace("\t", " ").splitlines()) if value else ""


def visible_columns(view: QAbstractItemView) -> list[int]:
    """The logical columns the view shows, in the order they are shown."""
    model = view.model()
    if model is None:
        return []
    header = getattr(view, "horizontalHeader", None)
    count = model.columnCount()
    if header is None:
        return list(range(count))
    head = header()
    shown = [c for c in range(count) if not head.isSectionHidden(c)]
    return sorted(shown, key=head.visualIndex)


def selected_rows(view: QAbstractItemView) -> list[int]:
    """The view-model rows selected (in the view's order); the current row when none is."""
    selection = view.selectionModel()
    rows: set[int] = set()
    if selection is not None:
        rows = {index.row() for index in selection.selectedIndexes()}
        if not rows and view.currentIndex().isValid():
            rows = {view.currentIndex().row()}
    return sorted(rows)


def table_cells(view: QAbstractItemView, rows: Sequence[int]) -> tuple[list[str], list[list[str]], list[bool]]:
    """Headers, cell texts and which columns are numeric (right-aligned), for *rows*."""
    model = view.model()
    columns = visible_columns(view)
    headers = [_cell(model.headerData(c, Qt.Orientation.Horizontal)) for c in columns]
    cells = [[_cell(model.index(r, c).data()) for c in columns] for r in rows]
    numeric = []
    for c in columns:
        align = model.index(rows[0], c).data(Qt.ItemDataRole.TextAlignmentRole) if rows else None
        numeric.append(bool(align is not None and int(align) & int(Qt.AlignmentFlag.AlignRight)))
    return headers, cells, numeric


def rows_as_tsv(view: QAbstractItemView, rows: Sequence[int] | None = None) -> str:
    """The header row and *rows* (default: the selected ones) as tab-separated lines."""
    rows = selected_rows(view) if rows is None else list(rows)
    if not rows:
        return ""
    headers, cells, _numeric = table_cells(view, rows)
    return "\n".join("\t".join(line) for line in [headers, *cells]) + "\n"


def _md(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|")


def rows_as_markdown(view: QAbstractItemView, rows: Sequence[int] | None = None) -> str:
    """A Markdown table of *rows* (default: the selected ones); numbers right-aligned."""
    rows = selected_rows(view) if rows is None else list(rows)
    if not rows:
        return ""
    headers, cells, numeric = table_cells(view, rows)
    lines = ["| " + " | ".join(_md(h) for h in headers) + " |"]
    lines.append("|" + "|".join(" ---: " if n else " --- " for n in numeric) + "|")
    lines += ["| " + " | ".join(_md(c) for c in line) + " |" for line in cells]
    return "\n".join(lines) + "\n"


class TableActions(QObject):
    """Ctrl+C and the context menu of one table view (see the module docstring).

    :meth:`link` connects the table to the trace's candidates; until then the menu holds
    only the copy actions.
    """

    def __init__(self, view: QAbstractItemView) -> None:
        super().__init__(view)
        self.view = view
        self._item_of: ItemOf | None = None
        self._show_in_context: ItemAction | None = None
        self._show_source: ItemAction | None = None
        self._extra: list[Callable[[QMenu, Any], None]] = []
        view.installEventFilter(self)
        view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        view.customContextMenuRequested.connect(self._open_menu)
        header = self._header()
        if header is not None:
            header.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
            header.customContextMenuRequested.connect(self._open_header_menu)

    def _header(self) -> QHeaderView | None:
        get = getattr(self.view, "horizontalHeader", None)
        return get() if get is not None else None

    def header_menu(self) -> QMenu:
        """A right click on the column names: a check box per column, to show or hide it."""
        menu = QMenu(self.view)
        header, model = self._header(), self.view.model()
        if header is None or model is None:
            return menu
        shown = [c for c in range(model.columnCount()) if not header.isSectionHidden(c)]
        for column in range(model.columnCount()):
            name = str(model.headerData(column, Qt.Orientation.Horizontal) or "")
            action = menu.addAction(name)
            action.setCheckable(True)
            action.setChecked(column in shown)
            action.setEnabled(shown != [column])  # the last column shown stays
            action.toggled.connect(lambda on, c=column: header.setSectionHidden(c, not on))
        return menu

    def _open_header_menu(self, pos: QPoint) -> None:
        header = self._header()
        if header is None:
            return
        menu = self.header_menu()
        menu.exec(header.mapToGlobal(pos))
        menu.deleteLater()

    def hide_columns(self, *names: str) -> None:
        """Hide the columns named *names* (the user can show them again from the header's menu)."""
        header, model = self._header(), self.view.model()
        if header is None or model is None:
            return
        for column in range(model.columnCount()):
            if model.headerData(column, Qt.Orientation.Horizontal) in names:
                header.setSectionHidden(column, True)

    def link(self, item_of: ItemOf, show_in_context: ItemAction, show_source: ItemAction) -> None:
        """Offer *Show in context* and *Show source lines* for rows that *item_of* maps to a candidate."""
        self._item_of = item_of
        self._show_in_context = show_in_context
        self._show_source = show_source

    def add_menu_entries(self, add: Callable[[QMenu, Any], None]) -> None:
        """Let a table add its own entries: *add(menu, row)* is called as the menu is built."""
        self._extra.append(add)

    # -- copying ----------------------------------------------------------------------------

    def copy(self) -> str:
        """Copy the selected rows as TSV (with the header row); returns what was copied."""
        text = rows_as_tsv(self.view)
        if text:
            QGuiApplication.clipboard().setText(text)
        return text

    def copy_markdown(self) -> str:
        """Copy the selected rows as a Markdown table; returns what was copied."""
        text = rows_as_markdown(self.view)
        if text:
            QGuiApplication.clipboard().setText(text)
        return text

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        # The view's own Ctrl+C copies the current cell only; the filter sees the key first.
        if watched is self.view and event.type() in (QEvent.Type.KeyPress, QEvent.Type.ShortcutOverride):
            assert isinstance(event, QKeyEvent)
            if event.matches(QKeySequence.StandardKey.Copy):
                if event.type() == QEvent.Type.ShortcutOverride:
                    event.accept()  # ours, not a window shortcut's
                    return True
                self.copy()
                return True
        return super().eventFilter(watched, event)

    # -- the menu -------------------------------------------------------------------------------

    def row_at(self, index: QModelIndex) -> Any:
        return index.data(ROW_ROLE) if index.isValid() else None

    def make_menu(self, pos: QPoint | None = None) -> QMenu:
        """The context menu for the row at *pos* (viewport coordinates; None: the current row).

        A right click on a row outside the selection selects it first, as file managers do.
        """
        index = self.view.indexAt(pos) if pos is not None else self.view.currentIndex()
        selection = self.view.selectionModel()
        if index.isValid() and selection is not None and not selection.isRowSelected(index.row(), index.parent()):
            selection.setCurrentIndex(
                index, QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows
            )
        if not index.isValid():
            index = self.view.currentIndex()
        row = self.row_at(index)
        menu = QMenu(self.view)
        rows = selected_rows(self.view)
        noun = "row" if len(rows) == 1 else f"{len(rows)} rows"
        copy = _action(menu, f"Copy {noun}", self.copy, bool(rows))
        copy.setShortcut(QKeySequence(QKeySequence.StandardKey.Copy))
        copy.setToolTip("Tab-separated, with the column names as the first line (pastes into a spreadsheet)")
        _action(menu, f"Copy {noun} as Markdown", self.copy_markdown, bool(rows)).setToolTip(
            "A Markdown table of the selected rows, with the column names"
        )
        item = self._item_of(row) if self._item_of is not None and row is not None else None
        if self._item_of is not None:
            menu.addSeparator()
            in_context = item is not None and item.span is not None
            show = self._show_in_context
            label = "Show in context" if in_context or item is None else "Show in context (not in the context)"
            _action(menu, label, lambda: show(item) if show and item else None, in_context)
            source = self._show_source
            has_source = item is not None and bool(item.source)
            _action(menu, "Show source lines", lambda: source(item) if source and item else None, has_source)
        for add in self._extra:
            add(menu, row)
        return menu

    def _open_menu(self, pos: QPoint) -> None:
        menu = self.make_menu(pos)
        menu.exec(self.view.viewport().mapToGlobal(pos))
        menu.deleteLater()


def _action(menu: QMenu, text: str, slot: Callable[[], Any], enabled: bool) -> QAction:
    action = menu.addAction(text)
    action.triggered.connect(lambda _checked=False: slot())
    action.setEnabled(enabled)
    return action


def install_table_actions(view: QAbstractItemView) -> TableActions:
    """Give *view* row copying and a context menu (once; a second call returns the first)."""
    existing = view.findChild(TableActions)
    if isinstance(existing, TableActions):
        return existing
    return TableActions(view)
