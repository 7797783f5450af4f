"""The log table's model: the rows of a :class:`~ctxviewer.engine.runfiles.logstore.LogStore`
that pass the filter.

A ``QSortFilterProxyModel`` asks a Python ``filterAcceptsRow`` about every row, one call
each: at 300,000 rows a filter change blocks the window for seconds (``bench/bench_logview.py``
measures it).  So :class:`LogTableModel` filters itself: it keeps the list of store rows
shown, and :meth:`LogTableModel.scan` tests the rows not tested yet a bounded number at a
time (integer codes, and for a text search the lines read back from disk:
:class:`~ctxviewer.engine.runfiles.logstore.RowTest`), appending the matches.  A new filter
empties the table and the scans refill it; rows read from the log later are tested by the
same scans.  Rows stay in the order read.
"""

from __future__ import annotations

from array import array
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor

from ctxviewer.engine.runfiles.logstore import LogFilter, LogRow, LogStore, RowTest
from ctxviewer.gui.widgets.models import RowRole, is_dark
from ctxviewer.gui.widgets.plaintext import plain_tip

_Index = QModelIndex | QPersistentModelIndex

COLUMNS = ("Time", "Level", "Worker", "Feature", "Task", "Event", "Message")
_TIPS = (
    "When the line was written (UTC; the tooltip has the time as written)",
    "The line's level",
    "The worker that wrote it (orchestrator: the orchestrator's own log)",
    "The feature the worker runs",
    "The task the line is about (task lines only)",
    "The task event (task_started, task_completed, ...); most lines have none",
    "The message (its first line; the tooltip and the pane below have all of it)",
)
#: A tooltip shows at most this many characters of a message.
TIP_CHARS = 2_000
#: Rows tested per scan when no time limit is given.
SCAN_ROWS = 50_000

_LEVEL_COLOURS = {  # (light, dark)
    "error": ("#b3261e", "#ff8a80"),
    "critical": ("#b3261e", "#ff8a80"),
    "warning": ("#a35c00", "#ffb454"),
    "debug": ("#6b6b6b", "#a0a0a0"),
}
_BAD = ("#b3261e", "#ff8a80")


def short_time(ts: str) -> str:
    """``2026-02-14T08:00:37.123456Z`` as ``02-14 08:00:37.123``; other text as it is."""
    if len(ts) >= 19 and ts[10] == "T" and ts[4] == "-":
        return f"{ts[5:10]} {ts[11:23]}"
    return ts


def first_line(message: str) -> str:
    """The message's first line, with ``…`` when there is more."""
    cut = message.find("\n")
    return message if cut < 0 else message[:cut].rstrip("\r") + " \u2026"


class LogTableModel(QAbstractTableModel):
    """The store's rows passing :attr:`spec`, tested :meth:`scan` by scan."""

    def __init__(self, store: LogStore, parent: Any = None) -> None:
        super().__init__(parent)
        self.store = store
        self.spec = LogFilter()
        self._test = RowTest(store, self.spec)
        #: The store rows shown, in order (an array: a million rows shown cost 4 MB, not 36).
        self.shown = array("I")
        #: Store rows tested so far (rows ``0 .. scanned - 1``).
        self.scanned = 0
        self._dark = is_dark()

    # -- content ---------------------------------------------------------------------

    def set_store(self, store: LogStore) -> None:
        """Show *store* (a log read again from its start) under the same filter."""
        self.beginResetModel()
        self.store = store
        self._test = RowTest(store, self.spec)
        self.shown = array("I")
        self.scanned = 0
        self.endResetModel()

    def set_filter(self, spec: LogFilter) -> None:
        """Empty the table for *spec*; :meth:`scan` fills it again."""
        self.beginResetModel()
        self.spec = spec
        self._test = RowTest(self.store, spec)
        self.shown = array("I")
        self.scanned = 0
        self.endResetModel()

    def refresh_codes(self) -> None:
        """The store has new field values (a worker, a task): the filter looks them up again."""
        self._test = RowTest(self.store, self.spec)

    @property
    def pending(self) -> int:
        """Store rows not tested yet."""
        return len(self.store) - self.scanned

    def scan(self, rows: int = SCAN_ROWS) -> int:
        """Test up to *rows* more store rows, appending the matches; returns how many were tested."""
        start = self.scanned
        stop = min(len(self.store), start + rows)
        if stop <= start:
            return 0
        matches = self._test.rows(start, stop)
        self.scanned = stop
        if matches:
            first = len(self.shown)
            self.beginInsertRows(QModelIndex(), first, first + len(matches) - 1)
            self.shown.extend(matches)
            self.endInsertRows()
        return stop - start

    def scan_all(self) -> None:
        """Test every row not tested yet (tests and small logs)."""
        while self.scan():
            pass

    def row(self, row: int) -> LogRow:
        """The shown row *row* (0-based in the table)."""
        return self.store.row(self.shown[row])

    def source_row(self, row: int) -> int:
        return self.shown[row]

    # -- Qt model API --------------------------------------------------------------------

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.shown)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(COLUMNS)

    def flags(self, index: _Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemNeverHasChildren

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(COLUMNS):
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section]
        if role == Qt.ItemDataRole.ToolTipRole:
            return _TIPS[section]
        return None

    def _cell(self, n: int, column: int) -> str:
        s = self.store
        if column == 0:
            return short_time(s.row(n).ts)
        if column == 1:
            return s.levels.values[s.level[n]] or ("(not a record)" if n in s.bad else "")
        if column == 2:
            return s.workers.values[s.worker[n]] or ""
        if column == 3:
            return s.features.values[s.feature[n]] or ""
        if column == 4:
            return s.tasks.values[s.task[n]] or ""
        if column == 5:
            return s.events.values[s.event[n]] or ""
        return first_line(s.row(n).message)

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        row, column = index.row(), index.column()
        if row >= len(self.shown) or column >= len(COLUMNS):
            return None
        n = self.shown[row]
        if role == Qt.ItemDataRole.DisplayRole:
            return self._cell(n, column)
        if role == Qt.ItemDataRole.ToolTipRole:
            s = self.store
            if column == 0:
                text = s.row(n).ts
            elif column == 6:
                text = s.row(n).message[:TIP_CHARS]
                if n in s.bad:
                    text = f"{s.bad[n]}:\n{text}"
            else:
                text = self._cell(n, column)
            return plain_tip(text) if text else None
        if role == Qt.ItemDataRole.ForegroundRole:
            s = self.store
            if n in s.bad:
                colours: tuple[str, str] | None = _BAD
            else:
                level = s.levels.values[s.level[n]]
                colours = _LEVEL_COLOURS.get(level.lower()) if level else None
            if colours is not None and (column in (1, 6) or n in s.bad):
                return QBrush(QColor(colours[1] if self._dark else colours[0]))
            return None
        if role == RowRole:
            return self.store.row(n)
        return None
