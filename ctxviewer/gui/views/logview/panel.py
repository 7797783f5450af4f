"""The Worker logs panel: a run's worker logs as one filterable, live table.

:class:`LogView` reads the logs of a run (:func:`~ctxviewer.engine.runfiles.rundir.discover_run`)
on the GUI thread in slices of about :data:`SLICE_SECONDS` each, with the event loop running
between them: the first slice shows the first screenful at once, the rest of a 50 MB log
follows in about a second (``bench/bench_logview.py``), and the window never waits on it.
A filter change tests the rows in the same slices.  Once read, the logs stay live: a file
watcher on the logs and their folder wakes a debounced poll, and a slow timer polls anyway
(a watcher can miss a change on some file systems).  A task event's row offers "Open this
task's assembly", which emits :attr:`LogView.taskRequested` with its feature and task id.
"""

from __future__ import annotations

import time
from functools import partial
from pathlib import Path

from PySide6.QtCore import QFileSystemWatcher, QModelIndex, Qt, QTimer, Signal
from PySide6.QtGui import QGuiApplication, QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMenu,
    QPlainTextEdit,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from ctxviewer.engine.errors import CtxViewerError
from ctxviewer.engine.files.reading import ProjectFS
from ctxviewer.engine.runfiles.logpieces import LogTail
from ctxviewer.engine.runfiles.logstore import ANY_EVENT, Codes, LogFilter, LogRow, LogStore, values_of
from ctxviewer.engine.runfiles.rundir import RunFiles, discover_run, rescan
from ctxviewer.gui.views.logview.model import LogTableModel
from ctxviewer.gui.widgets.table_actions import install_table_actions

#: The GUI thread works on the logs at most this long at a time, then lets the event loop run.
SLICE_SECONDS = 0.025
#: Rows tested against the filter at a time (a search through 20,000 messages: about 5 ms).
SCAN_ROWS = 20_000
#: Bytes the first read takes (the first screenful, at once); later reads are sized to the slice.
FIRST_READ = 256 * 1024
MIN_READ, MAX_READ = 64 * 1024, 4 * 1024 * 1024
#: After a watcher notification, wait this long for more before polling (a writer's burst: one poll).
DEBOUNCE_MS = 150
#: The logs are polled at least this often, notifications or not.
FALLBACK_POLL_MS = 2000
#: Filter text is applied once typing pauses this long.
TYPING_MS = 200


def row_text(row: LogRow) -> str:
    """Every field of *row*, one a line, for the detail pane and the clipboard."""
    lines = [f"{row.file}:{row.line}"]
    if row.bad:
        lines.append(f"not a log record: {row.bad}")
    for name, value in (
        ("time", row.ts),
        ("level", row.level),
        ("worker", row.worker),
        ("feature", row.feature),
        ("task", row.task),
        ("phase", row.phase),
        ("event", row.event),
        ("duration_ms", row.duration_ms),
    ):
        if value:
            lines.append(f"{name}: {value}")
    lines.append(row.message)
    return "\n".join(lines)


class LogView(QWidget):
    """The worker logs of one run (or none), as a table with filters, a detail pane and a status line."""

    taskRequested = Signal(str, str)  # feature, task id
    loaded = Signal()  # every log read to its end (the first time, and after each re-read)
    rowsRead = Signal(int)  # rows added to the store by one slice

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.run: RunFiles | None = None
        self.store = LogStore()
        self.tails: list[LogTail] = []
        #: The store's segment of each (tail, file identity) read: its lines are read back from there.
        self._segments: dict[tuple[int, tuple[int, int]], int] = {}
        self.problems: list[str] = []
        self.model = LogTableModel(self.store, self)
        #: perf_counter times of the current read: started, first rows shown, everything read.
        self.timings: dict[str, float] = {}
        self._queue: list[int] = []
        self._read_limit = FIRST_READ
        self._loading = False
        self._wanted = False  # a run is set but not read yet (read when the panel is shown)
        self._sizes = (0, 0, 0, 0, 0)
        self._signature: tuple[tuple[str, ...], ...] = ()

        self.level_box = self._combo("All levels", "Show only lines of this level")
        self.worker_box = self._combo("All workers", "Show only this worker's lines")
        self.feature_box = self._combo("All features", "Show only this feature's lines")
        self.event_box = self._combo("All lines", "Show only lines with this task event (most lines have none)")
        self.event_box.addItem("Any event", ANY_EVENT)
        self.task = QLineEdit(self)
        self.task.setPlaceholderText("Task\u2026")
        self.task.setClearButtonEnabled(True)
        self.task.setToolTip("Show only lines of tasks whose id contains this")
        self.task.setMaximumWidth(140)
        self.search = QLineEdit(self)
        self.search.setPlaceholderText("Search the logs\u2026")
        self.search.setClearButtonEnabled(True)
        self.search.setToolTip("Show only lines containing this text (message or any column; any case)")
        self.count = QLabel(self)
        self.count.setTextFormat(Qt.TextFormat.PlainText)
        bar = QHBoxLayout()
        bar.setContentsMargins(0, 0, 0, 0)
        for widget in (self.level_box, self.worker_box, self.feature_box, self.event_box, self.task):
            bar.addWidget(widget)
        bar.addWidget(self.search, 1)
        bar.addWidget(self.count)

        self.view = QTableView(self)
        self.view.setModel(self.model)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.view.setAlternatingRowColors(True)
        self.view.setWordWrap(False)
        self.view.setTextElideMode(Qt.TextElideMode.ElideRight)
        rows = self.view.verticalHeader()
        rows.setVisible(False)
        rows.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)  # no row measured: 300,000 rows stay cheap
        rows.setDefaultSectionSize(self.view.fontMetrics().height() + 6)
        header = self.view.horizontalHeader()
        header.setHighlightSections(False)
        header.setStretchLastSection(True)
        metrics = self.view.fontMetrics()
        for column, sample in enumerate(("02-14 08:00:37.123", "warning", "orchestrator", "checkout-flow",
                                         "TASK-0000", "verification_passed")):  # fmt: skip
            header.resizeSection(column, metrics.horizontalAdvance(sample) + 18)
        #: Ctrl+C and the right-click menu of every table, with this table's own entries.
        self.row_actions = install_table_actions(self.view)
        self.row_actions.add_menu_entries(self._menu_entries)
        self.view.activated.connect(self._on_activated)
        self.view.selectionModel().currentRowChanged.connect(self._on_current)

        self.detail = QPlainTextEdit(self)  # plain text: a log line is shown as written, never as markup
        self.detail.setReadOnly(True)
        self.detail.setPlaceholderText("Select a line to see all of it.")
        #: Which logs, whether they are being read or followed, and the last problem (under the table).
        self.status = QLabel(self)
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        # The panel is wide and short (a bottom dock at 1280x800 is about 200 pixels tall): the
        # line's detail goes beside the table, so the table keeps every row the height allows.
        splitter = QSplitter(Qt.Orientation.Horizontal, self)
        splitter.addWidget(self.view)
        splitter.addWidget(self.detail)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([760, 260])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 2, 4, 2)
        layout.setSpacing(2)
        layout.addLayout(bar)
        layout.addWidget(splitter, 1)
        layout.addWidget(self.status)

        self._work = QTimer(self)
        self._work.setSingleShot(True)
        self._work.setInterval(0)
        self._work.timeout.connect(self._step)
        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(DEBOUNCE_MS)
        self._debounce.timeout.connect(self.poll_now)
        self._fallback = QTimer(self)
        self._fallback.setInterval(FALLBACK_POLL_MS)
        self._fallback.timeout.connect(self.poll_now)
        self._typing = QTimer(self)
        self._typing.setSingleShot(True)
        self._typing.setInterval(TYPING_MS)
        self._typing.timeout.connect(self.apply_filter)
        self.watcher = QFileSystemWatcher(self)
        self.watcher.fileChanged.connect(self._on_disk)
        self.watcher.directoryChanged.connect(self._on_folder)
        for combo in (self.level_box, self.worker_box, self.feature_box, self.event_box):
            combo.currentIndexChanged.connect(self.apply_filter)
        self.task.textChanged.connect(lambda _t: self._typing.start())
        self.search.textChanged.connect(lambda _t: self._typing.start())
        self._show_status()

    def _combo(self, everything: str, tip: str) -> QComboBox:
        combo = QComboBox(self)
        combo.addItem(everything, None)
        combo.setToolTip(tip)
        combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        return combo

    # -- the run -------------------------------------------------------------------------

    def set_run(self, run: RunFiles | None) -> None:
        """Show *run*'s worker logs (read now if the panel is shown, else when it is)."""
        self.stop()
        self.run = run
        self._wanted = run is not None and bool(run.worker_logs)
        self._reset_store()
        if self._wanted and self.isVisible():
            self.start()
        self._show_status()

    def open_path(self, path: str | Path) -> bool:
        """Show the worker logs found from *path* (a project, an upstream folder, a log); False when none."""
        try:
            run = discover_run(path)
        except CtxViewerError as exc:
            self.set_run(None)
            self.problems = [str(exc)]
            self._show_status()
            return False
        if not run.worker_logs:
            self.set_run(None)
            self.problems = [f"{path}: no worker logs (logs/workers/worker-<id>.jsonl) found"]
            self._show_status()
            return False
        self.set_run(run)
        return True

    def follow_project(self, root: str | Path) -> None:
        """Show the worker logs of the run in the project at *root* (its ``.mahabharatha/`` or
        ``.zerg/`` folder), or none when it has none (not a problem: most projects never ran)."""
        try:
            run = discover_run(root)
        except CtxViewerError:
            run = None
        self.set_run(run if run is not None and run.worker_logs else None)

    def start(self) -> None:
        """Read the run's logs from their start, then follow them."""
        run = self.run
        if run is None:
            return
        self._wanted = False
        fs = ProjectFS(run.root)
        self.tails = [LogTail(fs, rel) for rel in run.worker_logs]
        self._reset_store()
        self._queue = list(range(len(self.tails)))
        self._read_limit = FIRST_READ
        self._loading = True
        self.timings = {"started": time.perf_counter()}
        self._signature = self._scan_signature()
        self._watch()
        self._fallback.start()
        self._work.start()

    def stop(self) -> None:
        """Stop reading and following (the window closes, another run is shown)."""
        for timer in (self._work, self._debounce, self._fallback, self._typing):
            timer.stop()
        paths = self.watcher.files() + self.watcher.directories()
        if paths:
            self.watcher.removePaths(paths)
        self.tails = []
        self._queue = []
        self._loading = False

    def is_busy(self) -> bool:
        """Whether there is reading or filtering left to do."""
        return bool(self._queue) or self.model.pending > 0 or self._wanted

    def _reset_store(self) -> None:
        self.store = LogStore()
        self._segments = {}
        self.problems = []
        self._sizes = (0, 0, 0, 0, 0)
        self.model.set_store(self.store)
        self._fill_combos()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self._wanted:
            self.start()

    # -- reading, in slices ------------------------------------------------------------------

    def _step(self) -> None:
        """One slice: read some of the logs, test rows against the filter; again soon if more is left."""
        clock = time.perf_counter
        began = clock()
        cpu = time.process_time()
        deadline = began + SLICE_SECONDS
        # Reading leaves a little of the slice to put the rows read in the table.
        while self._queue and clock() < deadline - SLICE_SECONDS / 5:
            self._read_one()
        while self.model.pending:
            self.model.scan(SCAN_ROWS)
            if clock() >= deadline:
                break
        if "first" not in self.timings and self.model.rowCount() and "started" in self.timings:
            self.timings["first"] = clock()
        if self._loading and not self._queue and not self.model.pending:
            self._loading = False
            self.timings["loaded"] = clock()
            self.loaded.emit()
        self._show_status()
        # The CPU time of the longest slice: the wall time adds whatever else the machine runs.
        self.timings["slice_cpu"] = max(self.timings.get("slice_cpu", 0.0), time.process_time() - cpu)
        if self._queue or self.model.pending:
            self._work.start()

    def _read_one(self) -> None:
        index = self._queue[0]
        tail = self.tails[index]
        began = time.perf_counter()
        read = tail.poll(self._read_limit)
        if read.restart:
            self.problems.append(f"{tail.shown}: truncated or replaced; read again from the start")
            problems = self.problems[-20:]
            self.start()
            self.problems = problems
            return
        if read.problem:
            self.problems.append(read.problem)
        before = len(self.store)
        size = 0
        for piece in read.pieces:
            key = (index, piece.identity)
            segment = self._segments.get(key)
            if segment is None:
                segment = self._segments[key] = self.store.segment(partial(tail.read_back, piece.identity))
            self.store.add_lines(piece.data, self.store.file_code(piece.shown), piece.first_line, segment, piece.offset)
            size += len(piece.data)
        for shown, line in read.skipped:
            self.store.add_bad("", "longer than 4,000,000 bytes; skipped", self.store.file_code(shown), line)
        if not read.more:
            self._queue.pop(0)
        took = time.perf_counter() - began
        if size > 16_384 and took > 0:
            # Size the next read to what fits in a slice at the speed just seen.
            self._read_limit = int(min(MAX_READ, max(MIN_READ, size / took * SLICE_SECONDS * 0.8)))
        added = len(self.store) - before
        if added:
            self._codes_grew()
            self.rowsRead.emit(added)

    def _codes_grew(self) -> None:
        s = self.store
        sizes = tuple(len(c.values) for c in (s.levels, s.workers, s.features, s.events, s.tasks))
        if sizes != self._sizes:
            self._sizes = sizes  # type: ignore[assignment]
            self.model.refresh_codes()
            self._fill_combos()

    def poll_now(self) -> None:
        """Read what the logs gained (the watcher and the fallback timer call this)."""
        if not self.tails:
            return
        signature = self._scan_signature()
        if signature != self._signature and self.run is not None:
            self._signature = signature
            self._add_new_logs(rescan(self.run))
        for index in range(len(self.tails)):
            if index not in self._queue:
                self._queue.append(index)
        self._watch()
        self._work.start()

    def _add_new_logs(self, run: RunFiles) -> None:
        known = {tail.rel for tail in self.tails}
        fs = ProjectFS(run.root)
        for rel in run.worker_logs:
            if rel not in known:
                self.tails.append(LogTail(fs, rel))
        self.run = run

    def _scan_signature(self) -> tuple[tuple[str, ...], ...]:
        if self.run is None or not self.run.scans:
            return ()
        fs = ProjectFS(self.run.root)
        return tuple(tuple(fs.list_dir(folder)) for folder, kinds in self.run.scans if kinds != "state")

    def _watch(self) -> None:
        run = self.run
        if run is None:
            return
        wanted: set[str] = set()
        for rel in run.worker_logs:
            path = run.root / rel
            wanted.add(str(path.parent))
            for candidate in (path, path.with_name(path.name + ".1")):
                if candidate.is_file():
                    wanted.add(str(candidate))
        have = set(self.watcher.files() + self.watcher.directories())
        missing = sorted(wanted - have)
        if missing:
            self.watcher.addPaths(missing)

    def _on_disk(self, *_args: object) -> None:
        self._debounce.start()

    def _on_folder(self, *_args: object) -> None:
        self._debounce.start()

    # -- filters ------------------------------------------------------------------------------

    def current_filter(self) -> LogFilter:
        return LogFilter(
            level=self.level_box.currentData(),
            worker=self.worker_box.currentData(),
            feature=self.feature_box.currentData(),
            event=self.event_box.currentData(),
            task=self.task.text(),
            text=self.search.text(),
        )

    def apply_filter(self, *_args: object) -> None:
        """Show only the rows the filter bar asks for (tested in slices from the first row)."""
        self._typing.stop()
        spec = self.current_filter()
        if spec == self.model.spec:
            return
        self.model.set_filter(spec)
        self.detail.clear()
        self._work.start()

    def _fill_combos(self) -> None:
        s = self.store
        for combo, codes, keep in (
            (self.level_box, s.levels, 1),
            (self.worker_box, s.workers, 1),
            (self.feature_box, s.features, 1),
            (self.event_box, s.events, 2),
        ):
            self._fill(combo, codes, keep)

    @staticmethod
    def _fill(combo: QComboBox, codes: Codes, keep: int) -> None:
        chosen = combo.currentData()
        values = list(values_of(codes))
        if chosen is not None and chosen != ANY_EVENT and chosen not in values:
            values.append(chosen)  # the filter stays until the user changes it
        have = [combo.itemData(n) for n in range(keep, combo.count())]
        if have == values:
            return
        combo.blockSignals(True)
        while combo.count() > keep:
            combo.removeItem(keep)
        worker = combo.itemText(0) == "All workers"
        for value in values:
            combo.addItem(f"worker {value}" if worker and value.isdigit() else value, value)
        combo.setCurrentIndex(max(0, combo.findData(chosen)) if chosen is not None else 0)
        combo.blockSignals(False)

    def set_filter(self, spec: LogFilter) -> None:
        """Set the filter bar to *spec* (values not seen yet are added) and apply it."""
        boxes = (self.level_box, self.worker_box, self.feature_box, self.event_box)
        for combo, value in zip(boxes, (spec.level, spec.worker, spec.feature, spec.event), strict=True):
            combo.blockSignals(True)
            if value is not None and combo.findData(value) < 0:
                combo.addItem(value, value)
            combo.setCurrentIndex(combo.findData(value) if value is not None else 0)
            combo.blockSignals(False)
        for field, text in ((self.task, spec.task), (self.search, spec.text)):
            field.blockSignals(True)
            field.setText(text)
            field.blockSignals(False)
        self.apply_filter()

    # -- rows ---------------------------------------------------------------------------------

    def current_row(self) -> LogRow | None:
        index = self.view.currentIndex()
        return self.model.row(index.row()) if index.isValid() else None

    def open_task(self, row: LogRow | None = None) -> bool:
        """Ask for the assembly of *row*'s task (the current row's); False when it names none."""
        row = row or self.current_row()
        if row is None or not row.task or not row.feature:
            return False
        self.taskRequested.emit(row.feature, row.task)
        return True

    def _on_activated(self, index: QModelIndex) -> None:
        if index.isValid():
            self.open_task(self.model.row(index.row()))

    def _on_current(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if current.isValid():
            self.detail.setPlainText(row_text(self.model.row(current.row())))
        else:
            self.detail.clear()

    def _menu_entries(self, menu: QMenu, row: object) -> None:
        if not isinstance(row, LogRow):
            return
        menu.addSeparator()
        action = menu.addAction("Open this task's assembly")
        action.setEnabled(bool(row.task and row.feature))
        action.triggered.connect(lambda _c=False, r=row: self.open_task(r))
        copy = menu.addAction("Copy line with every field")
        copy.triggered.connect(lambda _c=False, r=row: QGuiApplication.clipboard().setText(row_text(r)))

    # -- status ---------------------------------------------------------------------------------

    def _show_status(self) -> None:
        total, shown = len(self.store), self.model.rowCount()
        self.count.setText(f"{shown:,} of {total:,} lines" if shown != total else f"{total:,} lines")
        run = self.run
        if run is None:
            text = "No worker logs: open a project with a run, or File \u2192 Open Worker Logs\u2026"
        else:
            names = [rel.rsplit("/", 1)[-1] for rel in run.worker_logs]
            what = ", ".join(names[:4]) + (f" and {len(names) - 4} more" if len(names) > 4 else "")
            text = f"{run.root}: {what}"
            if self._wanted:
                text += " (read when this panel is shown)"
            elif self._queue and self._loading:
                text += " \u2014 reading\u2026"
            elif self.model.pending:
                text += " \u2014 filtering\u2026"
            elif self.tails:
                text += " \u2014 following"
            waiting = sum(tail.waiting_line for tail in self.tails)
            if waiting:
                text += f"; {waiting} last line{'s' if waiting != 1 else ''} waiting for its newline"
        if self.problems:
            count = len(self.problems)
            text += f"\n{count:,} problem{'s' if count != 1 else ''}; last: {self.problems[-1]}"
        self.status.setText(text)


def ask_worker_logs(parent: QWidget, project_root: Path | None) -> str:
    """Ask for a worker log to show (starting in the project's log folder); ``''`` if none.

    Any log of a run shows the whole run's logs only when a folder is picked; a log picked
    alone is shown alone (with its ``.1``).
    """
    start = str(Path.home())
    if project_root is not None:
        start = str(project_root)
        for layout in (".mahabharatha", ".zerg"):
            folder = project_root / layout / "logs" / "workers"
            if folder.is_dir():
                start = str(folder)
                break
    path, _ = QFileDialog.getOpenFileName(
        parent, "Open a worker log", start, "Worker logs (*.jsonl *.jsonl.1);;All files (*)"
    )
    return path
