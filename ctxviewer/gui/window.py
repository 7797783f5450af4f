"""The inspector window: outline, result tabs, tracker, search, and the worker lanes.

Everything slow runs on a :class:`~ctxviewer.gui.worker.Lane`: loading a project,
assembling the selected task, the background batch pass over every task, and exports.
The window only reads the immutable results.
"""

from __future__ import annotations

import functools
import html
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtCore import QFileSystemWatcher, QSettings, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QCloseEvent, QDragEnterEvent, QDropEvent, QGuiApplication, QKeySequence
from PySide6.QtWidgets import (
    QDockWidget,
    QFileDialog,
    QLabel,
    QMainWindow,
    QMenu,
    QMessageBox,
    QProgressBar,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from ctxviewer.engine.analysis.explain import Match
from ctxviewer.engine.analysis.findings import ERROR, describe
from ctxviewer.engine.analysis.whatif import TraceDiff, diff_traces
from ctxviewer.engine.errors import CtxViewerError
from ctxviewer.engine.exports import report
from ctxviewer.engine.files.reading import OutsideRootError, ProjectFS
from ctxviewer.engine.project.loading import Project, load_project, refresh_project
from ctxviewer.engine.project.settings import Settings
from ctxviewer.engine.project.tuning import plan_save, save_ctxviewer_yaml
from ctxviewer.engine.runs.batch import run_batch
from ctxviewer.engine.runs.pipeline import assemble_task
from ctxviewer.engine.runs.session import SessionReplay, replay_session
from ctxviewer.engine.tokens.counting import HEURISTIC
from ctxviewer.engine.trace.model import RULE_FILE, SPEC_PARAGRAPH, Item, Trace
from ctxviewer.gui.resources import app_icon
from ctxviewer.gui.views.budget import BudgetPanel
from ctxviewer.gui.views.compare_view import CompareTab
from ctxviewer.gui.views.computed_view import ComputedTab
from ctxviewer.gui.views.context_view import ContextView
from ctxviewer.gui.views.findings_view import FindingRow, FindingsTab, finding_rows, findings_line, plural
from ctxviewer.gui.views.outline import ProjectOutline, TaskTotal
from ctxviewer.gui.views.panels import ProblemPanel, SearchPanel, SectionsTab, TaskTab, TrackerPanel, TrimmingTab
from ctxviewer.gui.views.session import SessionPanel
from ctxviewer.gui.views.whatif_view import WhatIfTab
from ctxviewer.gui.views.window_view import WindowLayoutTab
from ctxviewer.gui.widgets.details import paragraph_html, rule_html
from ctxviewer.gui.widgets.highlighter import LexedText, display_text, lex_blocks
from ctxviewer.gui.widgets.models import is_dark, paragraph_columns, rule_columns
from ctxviewer.gui.widgets.plaintext import safe_file_name
from ctxviewer.gui.widgets.source_lines import SourceLinesDialog, item_excerpt
from ctxviewer.gui.widgets.tables import RecordTable
from ctxviewer.gui.worker import Handoff, Lane, RunState, build_frozen, make_pool, reclaim_frozen

TABS = ("sections", "paragraphs", "rules", "computed", "trimming", "context", "whatif", "compare", "task", "findings")
MAX_RECENT = 10
#: Settings key holding the folder being opened until its first task is on screen.  Still set
#: at the next start, it means that open never finished (the window crashed or was closed on
#: it), so a bare ``ctxviewer`` does not reopen it by itself (see :meth:`MainWindow.reopen_last`).
OPENING_KEY = "opening-project"
#: Quiet time after a budget change before the batch pass re-runs every task.
BATCH_DELAY_MS = 800
#: After opening, the background pass waits for the first task on screen and this long more.
BATCH_AFTER_TRACE_MS = 150
#: Batch rows reach the outline in bursts at most this often (each burst repaints what it changes).
BATCH_ROWS_MS = 50
#: The whole feature's findings list is refilled at most this often during the background pass.
FEATURE_FINDINGS_MS = 500
#: Quiet time after a change on disk before the project is refreshed (editors write in bursts).
DISK_DELAY_MS = 300
#: At most this many project paths are watched (inotify watches are a shared resource).
MAX_WATCHED = 400


@dataclass(frozen=True)
class Assembled:
    """What the assembly lane returns: the trace, its context lexed for display, and its
    what-if diff against the baseline pinned when the run was asked for."""

    trace: Trace
    lexed: LexedText
    diff: TraceDiff | None = None
    findings: tuple[FindingRow, ...] | None = None


@dataclass(frozen=True)
class _Watch:
    """The paths a loaded project watches besides its current feature's folder.

    Worked out with the project (off the GUI thread, where stat'ing them belongs): *head*
    goes before the current feature's files and *tail* after them, so the list watched
    -- and what the MAX_WATCHED cap keeps -- is the same as if it were built at once.
    """

    project: Project
    head: tuple[str, ...]
    tail: tuple[str, ...]


def project_watch(project: Project) -> _Watch:
    """The root, specs folder, configs and task graphs (head); the rules folder and rule files (tail).

    Only what exists inside the project (``fs.lstat``) is kept.  Stats every task graph
    and rule file, so it runs on a worker, with the load or the refresh.
    """
    fs, paths = project.fs, project.settings.paths

    def present(rels: list[str]) -> tuple[str, ...]:
        return tuple(str(project.root / rel) for rel in dict.fromkeys(rels) if fs.lstat(rel) is not None)

    head = present([".", paths.specs, "ctxviewer.yaml", *(p for p in project.sources if p.endswith(".yaml"))])
    tail = present([paths.rules, *fs.walk_files(paths.rules, ".md", limit=MAX_WATCHED)])
    return _Watch(project, head, tail)


def _load(folder: str) -> tuple[Project, _Watch]:
    project = build_frozen(lambda: load_project(folder))
    return project, project_watch(project)


class MainWindow(QMainWindow):
    """The ctxviewer inspector."""

    projectLoaded = Signal(object)
    traceShown = Signal(object)
    batchFinished = Signal()
    exportFinished = Signal(str, str)  # path, error ('' when it worked)
    settingsSaved = Signal(object)  # SaveResult
    replayShown = Signal(object)  # SessionReplay
    projectRefreshed = Signal(object)  # Project, after a change on disk (or F5)

    def __init__(self, settings: QSettings | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.settings = settings or QSettings()
        self.setWindowTitle("ctxviewer")
        self.setWindowIcon(app_icon())
        self.setAcceptDrops(True)
        self.project: Project | None = None
        self.trace: Trace | None = None
        self.current: tuple[str, str] | None = None
        self._wanted: tuple[str | None, str | None] = (None, None)
        self._batch_id = 0
        self._batch_size = 0
        self._export_path = ""
        self.batch_totals: dict[tuple[str, str], TaskTotal] = {}
        #: Settings tuned in the budget panel; None while they are the project's own.
        self.tuned: Settings | None = None
        #: The pinned what-if baseline and the current run's diff against it.
        self.baseline: Trace | None = None
        self.diff: TraceDiff | None = None
        self._saved_note = ""
        self._startup: tuple[dict[str, Any], bool] = ({}, False)
        self._opening = ""
        #: A folder whose last open failed: F5 and changes on disk try it again.
        self._failed = ""
        #: The shown task's findings; a finding of another task to go to once that task is shown.
        self.task_findings: tuple[FindingRow, ...] = ()
        self._pending_finding: FindingRow | None = None

        self.pool = make_pool(4)
        self.load_lane = Lane(self.pool, "load", self)
        self.run_lane = Lane(self.pool, "assemble", self)
        self.batch_lane = Lane(self.pool, "batch", self)
        self.export_lane = Lane(self.pool, "export", self)
        self.session_lane = Lane(self.pool, "replay", self)
        self.refresh_lane = Lane(self.pool, "refresh", self)
        self.compare_lane = Lane(self.pool, "compare", self)
        #: Files and folders of the open project whose changes re-run the task.
        self.watcher = QFileSystemWatcher(self)
        self.watcher.fileChanged.connect(self._on_disk_change)
        self.watcher.directoryChanged.connect(self._on_disk_change)
        self._disk_timer = QTimer(self)
        self._disk_timer.setSingleShot(True)
        self._disk_timer.setInterval(DISK_DELAY_MS)
        self._disk_timer.timeout.connect(self.refresh)
        #: Feature of the replay shown (or asked for), and whether it resets after checkpoints.
        self._replay_feature: str | None = None
        self._replay_reset = False
        self._keep_replay_position = False
        self._replay_inputs: tuple[Any, ...] = ()
        self._live_limits: tuple[float, int, tuple[tuple[str, float], ...]] | None = None
        #: What the open project watches apart from the current feature (see project_watch).
        self._watch: _Watch | None = None
        #: Batch rows, (batch id, TaskTotal), from the pool thread to the GUI thread in bursts.
        self._batch_rows = Handoff(self._on_batch_rows, self, BATCH_ROWS_MS)
        self._batch_done = 0
        self._build_widgets()
        self._build_actions()
        self._connect_lanes()
        self._restore_geometry()

    # -- construction ------------------------------------------------------------------

    def _build_widgets(self) -> None:
        self.problems = ProblemPanel(self)
        self.header = QLabel(self)
        self.header.setObjectName("taskHeader")
        self.header.setWordWrap(True)
        self.header.setTextFormat(Qt.TextFormat.RichText)
        self.header.setText("Open a project folder (Ctrl+O) or drop one here.")
        #: One line under the header naming the task's findings; a click opens the Findings tab.
        self.findings_label = QLabel(self)
        self.findings_label.setObjectName("taskFindings")
        self.findings_label.setTextFormat(Qt.TextFormat.RichText)
        self.findings_label.setWordWrap(True)
        self.findings_label.setToolTip("What ctxviewer found in this task's context; click to list the findings")
        self.findings_label.linkActivated.connect(lambda _link: self.show_findings(feature=False))
        self.findings_label.hide()
        self.tabs = QTabWidget(self)
        self.tabs.setDocumentMode(True)
        self.sections_tab = SectionsTab(self)
        self.paragraphs = RecordTable(paragraph_columns(HEURISTIC), self._paragraph_detail, noun="paragraphs", fit=True)
        # A paragraph's score is the number of its matched keywords, which are shown.
        self.paragraphs.row_actions.hide_columns("Score")
        self.rules = RecordTable(rule_columns(HEURISTIC), rule_html, noun="rule files", fit=True, wrap=True)
        # What triggers a file and its character counts are in the detail pane (and in the
        # reason); hidden, the reason has room at 1280x800.  The header's menu shows them.
        self.rules.row_actions.hide_columns("Trigger", "Needed", "Left")
        self.trimming = TrimmingTab(self)
        self.context_view = ContextView(self)
        self.computed_tab = ComputedTab(self)
        self.computed_tab.itemActivated.connect(self.jump_to_item)
        self.window_tab = WindowLayoutTab(self)
        self.whatif = WhatIfTab(self)
        self.whatif.itemActivated.connect(self._go_to_item_id)
        self.compare_tab = CompareTab(self.compare_lane, self)
        self.task_tab = TaskTab(self)
        self.findings_tab = FindingsTab(self)
        self.findings_tab.findingActivated.connect(self.go_to_finding)
        self.findings_tab.whole_feature.toggled.connect(self._on_whole_feature)
        for widget, title, tip in (
            (self.sections_tab, "Sections", "Token share of each section against its budget"),
            (self.paragraphs, "Paragraphs", "Every candidate spec paragraph, its score and fate"),
            (self.rules, "Rules", "Every security rule file and why it matched or was skipped"),
            (
                self.computed_tab,
                "Computed",
                "The task's signals (every profile); the computed profile's knowledge, prior work and code "
                "references with their scores and fates; its Context Debug record",
            ),
            (self.trimming, "Trimming", "The cuts, in order, with tokens before and after"),
            (self.context_view, "Context", "The assembled context, exactly as the worker sees it"),
            (self.whatif, "What-if", "This run against the pinned baseline: token deltas, what entered or left"),
            (self.compare_tab, "Compare", "This task assembled two ways side by side: two profiles, or two settings"),
            (self.task_tab, "Task", "The task's keywords and the effective settings"),
            (
                self.findings_tab,
                "Findings",
                "What ctxviewer found: matched rule files cut for budget, empty sections, ties, ... "
                "for this task or every task of the feature",
            ),
        ):
            index = self.tabs.addTab(widget, title)
            self.tabs.setTabToolTip(index, tip)
        central = QWidget(self)
        layout = QVBoxLayout(central)
        layout.setContentsMargins(6, 6, 6, 0)
        layout.addWidget(self.problems)
        layout.addWidget(self.header)
        layout.addWidget(self.findings_label)
        layout.addWidget(self.tabs, 1)
        self.setCentralWidget(central)

        self.outline = ProjectOutline(self)
        self.outline.taskChosen.connect(self.select_task)
        self.tracker = TrackerPanel(self)
        self.search = SearchPanel(self)
        self.search.matchChosen.connect(self._go_to_match)
        self.budget = BudgetPanel(self)
        self.budget.setEnabled(False)  # until a project is open: its settings are the base
        self.budget.settingsChanged.connect(self._on_tuned)
        self.budget.saveRequested.connect(self.save_settings)
        self.outline_dock = self._dock("Project", self.outline, Qt.DockWidgetArea.LeftDockWidgetArea)
        self.budget_dock = self._dock("Budget", self.budget, Qt.DockWidgetArea.RightDockWidgetArea)
        self.tracker_dock = self._dock("Tracker", self.tracker, Qt.DockWidgetArea.RightDockWidgetArea)
        self.session = SessionPanel(self)
        self.session.parametersChanged.connect(self._on_replay_parameters)
        self.session.taskActivated.connect(self._on_replay_task)
        self.session_dock = self._dock("Session", self.session, Qt.DockWidgetArea.RightDockWidgetArea)
        self.tabifyDockWidget(self.budget_dock, self.tracker_dock)
        self.window_dock = self._dock("Window", self.window_tab, Qt.DockWidgetArea.RightDockWidgetArea)
        self.window_dock.setToolTip(
            "The worker's whole context window: base prompt, command, this context, the conversation and "
            "the response reserve, against the checkpoint and compaction thresholds"
        )
        self.tabifyDockWidget(self.tracker_dock, self.session_dock)
        self.tabifyDockWidget(self.session_dock, self.window_dock)
        self.budget_dock.raise_()
        self._batch_after_trace = False
        self._first_batch_timer = QTimer(self)
        self._first_batch_timer.setSingleShot(True)
        self._first_batch_timer.setInterval(BATCH_AFTER_TRACE_MS)
        self._first_batch_timer.timeout.connect(self.start_batch)
        #: Refreshes the whole feature's findings list while the background pass fills it.
        self._feature_findings_timer = QTimer(self)
        self._feature_findings_timer.setSingleShot(True)
        self._feature_findings_timer.setInterval(FEATURE_FINDINGS_MS)
        self._feature_findings_timer.timeout.connect(self._update_feature_findings)
        self._batch_timer = QTimer(self)
        self._batch_timer.setSingleShot(True)
        self._batch_timer.setInterval(BATCH_DELAY_MS)
        self._batch_timer.timeout.connect(self.start_batch)
        self.search_dock = self._dock("Why was it dropped?", self.search, Qt.DockWidgetArea.BottomDockWidgetArea)
        self.search_dock.hide()
        self.search.field.textChanged.connect(self._on_search_text)
        toolbar = self.addToolBar("Search")
        toolbar.setObjectName("searchToolbar")
        toolbar.setMovable(False)
        self.search.field.setMinimumWidth(420)
        toolbar.addWidget(self.search.field)
        self.resizeDocks([self.outline_dock, self.budget_dock], [270, 320], Qt.Orientation.Horizontal)

        self.sections_tab.sectionClicked.connect(self.jump_to_section)
        self.paragraphs.rowActivated.connect(self.jump_to_item)
        self.rules.rowActivated.connect(self.jump_to_item)
        #: The Show source lines window, made the first time it is asked for.
        self.source_dialog: SourceLinesDialog | None = None
        linked = (
            self.paragraphs,
            self.rules,
            self.search.results,
            self.computed_tab.entries,
            self.whatif.changes,
            self.findings_tab.table,
        )
        for table in linked:
            table.row_actions.link(self._item_of, self.jump_to_item, self.show_source_lines)
        self.context_view.showInTable.connect(self._go_to_item_id)
        self.context_view.showSource.connect(self.show_source_lines)

        self.state_label = QLabel("idle", self)
        self.state_label.setTextFormat(Qt.TextFormat.PlainText)
        self.state_label.setToolTip("State of the latest assembly run")
        self.progress = QProgressBar(self)
        self.progress.setRange(0, 100)
        self.progress.setMaximumWidth(160)
        self.progress.setTextVisible(False)
        self.progress.hide()
        self.batch_label = QLabel("", self)
        self.batch_label.setTextFormat(Qt.TextFormat.PlainText)  # says why a pass failed, in project words
        self.batch_label.setToolTip("Background pass over every task (totals in the outline)")
        bar = self.statusBar()
        bar.addPermanentWidget(self.batch_label)
        bar.addPermanentWidget(self.progress)
        bar.addPermanentWidget(self.state_label)

    def _dock(self, title: str, widget: QWidget, area: Qt.DockWidgetArea) -> QDockWidget:
        dock = QDockWidget(title, self)
        dock.setObjectName(title)
        dock.setWidget(widget)
        dock.setFeatures(
            QDockWidget.DockWidgetFeature.DockWidgetMovable | QDockWidget.DockWidgetFeature.DockWidgetClosable
        )
        self.addDockWidget(area, dock)
        return dock

    def _action(self, menu: QMenu, text: str, slot: Callable[[], Any], shortcut: Any = None, tip: str = "") -> QAction:
        action = QAction(text, self)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
        if tip:
            action.setStatusTip(tip)
            action.setToolTip(tip)
        action.triggered.connect(lambda _checked=False: slot())
        menu.addAction(action)
        self.addAction(action)
        return action

    def _build_actions(self) -> None:
        bar = self.menuBar()
        file = bar.addMenu("&File")
        self._action(
            file, "&Open Folder\u2026", self.open_dialog, QKeySequence.StandardKey.Open, "Open a project folder"
        )
        self.recent_menu = file.addMenu("Open &Recent")
        self._fill_recent()
        file.addSeparator()
        self.export_actions = [
            self._action(
                file,
                "&Export Context (.md)\u2026",
                lambda: self.export_dialog("markdown"),
                "Ctrl+E",
                "Save exactly the assembled context",
            ),
            self._action(
                file,
                "Export &Trace (.json)\u2026",
                lambda: self.export_dialog("json"),
                "Ctrl+Shift+E",
                "Save the full decision trace as JSON",
            ),
            self._action(
                file,
                "Export &HTML Report\u2026",
                lambda: self.export_dialog("html"),
                "Ctrl+Alt+E",
                "Save a self-contained report that opens in any browser",
            ),
            self._action(
                file, "&Copy Context", self.copy_context, "Ctrl+Shift+C", "Copy the assembled context to the clipboard"
            ),
        ]
        self.whatif_export = self._action(
            file,
            "Export &What-if (.whatif.md)\u2026",
            lambda: self.export_dialog("whatif-md"),
            None,
            "Save the diff against the pinned baseline as Markdown (JSON and HTML exports include it too)",
        )
        self.whatif_export.setEnabled(False)
        file.addSeparator()
        self._action(
            file,
            "&Attach to Worker Log\u2026",
            self.follow_dialog,
            "Ctrl+Shift+L",
            "Follow a running worker's JSON-lines event log in the Session panel",
        )
        self.detach_action = self._action(file, "&Detach from Worker Log", self.stop_following)
        self.detach_action.setEnabled(False)
        file.addSeparator()
        self._action(file, "&Quit", self.close, QKeySequence.StandardKey.Quit)

        run = bar.addMenu("&Run")
        self._action(run, "&Re-run", self.refresh, "F5", "Pick up changes on disk and assemble the selected task again")
        self._action(run, "&Cancel", self.cancel_run, "Esc", "Stop the running assembly")
        self._action(run, "Re-run &Batch Pass", self.start_batch, "Shift+F5", "Recompute every task's total")
        run.addSeparator()
        self._action(run, "&Pin as Baseline", self.pin_baseline, "Ctrl+B", "Compare every later run with this one")
        self.clear_baseline_action = self._action(
            run, "C&lear Baseline", self.clear_baseline, "Ctrl+Shift+B", "Stop comparing"
        )
        self.clear_baseline_action.setEnabled(False)
        run.addSeparator()
        self.undo_action = self.budget.undo_stack.createUndoAction(self, "&Undo Budget Change")
        self.undo_action.setShortcut(QKeySequence.StandardKey.Undo)
        self.redo_action = self.budget.undo_stack.createRedoAction(self, "&Redo Budget Change")
        self.redo_action.setShortcut(QKeySequence.StandardKey.Redo)
        for action in (self.undo_action, self.redo_action):
            action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
            run.addAction(action)
        self._action(run, "Reset &Budgets", self.budget.reset, "Ctrl+0", "Back to the project's own settings")
        self._action(
            run, "&Save Settings to ctxviewer.yaml\u2026", self.save_settings, "Ctrl+S", "Write the tuned settings"
        )

        view = bar.addMenu("&View")
        self._action(
            view,
            "&Find Candidate\u2026",
            self.focus_search,
            QKeySequence.StandardKey.Find,
            "Why was it dropped? Search every candidate",
        )
        self._action(view, "Filter &Tasks", self.focus_outline, "Ctrl+L", "Filter the project outline")
        view.addSeparator()
        for n, name in enumerate(TABS, start=1):
            key = f"Ctrl+{n}" if n <= 9 else None  # Ctrl+0 resets the budgets
            self._action(view, f"Show {self.tabs.tabText(n - 1)}", functools.partial(self.show_tab, name), key)
        view.addSeparator()
        for dock in (self.outline_dock, self.budget_dock, self.tracker_dock, self.session_dock, self.search_dock):
            view.addAction(dock.toggleViewAction())
        help_menu = bar.addMenu("&Help")
        self._action(help_menu, "&Keyboard Shortcuts", self.show_shortcuts, QKeySequence.StandardKey.HelpContents)
        self._set_exports_enabled(False)

    def _connect_lanes(self) -> None:
        self.load_lane.finished.connect(self._on_loaded)
        self.load_lane.errored.connect(self._on_load_error)
        self.load_lane.stateChanged.connect(lambda s: self._show_state("loading", s))
        self.run_lane.finished.connect(self._on_assembled)
        self.run_lane.errored.connect(self._on_run_error)
        self.run_lane.progress.connect(self._on_progress)
        self.run_lane.stateChanged.connect(lambda s: self._show_state("assembly", s))
        self.batch_lane.finished.connect(self._on_batch_done)
        self.batch_lane.errored.connect(lambda m: self.batch_label.setText(f"batch pass failed: {m}"))
        self.refresh_lane.finished.connect(self._on_refreshed)
        self.refresh_lane.errored.connect(lambda m: self.problems.show_messages([f"reloading failed: {m}"], []))
        self.session_lane.finished.connect(self._on_replayed)
        self.session_lane.errored.connect(self._on_replay_error)
        self.export_lane.finished.connect(self._on_exported)
        self.export_lane.errored.connect(self._on_export_error)

    # -- opening -------------------------------------------------------------------------

    def open_project(
        self,
        path: str | Path,
        feature: str | None = None,
        task: str | None = None,
        *,
        tune: dict[str, Any] | None = None,
        compare: bool = False,
    ) -> None:
        """Load *path* off the GUI thread; then select *feature*/*task* (or the last or first).

        Once the first task is shown, *compare* pins it as the what-if baseline and *tune*
        (flat settings, as ``--set``) is applied in the budget panel.
        """
        folder = str(Path(path).expanduser())
        self.problems.dismiss()  # notices were about what came before
        self._opening = folder
        self._wanted = (feature, task)
        self._startup = (dict(tune or {}), compare)
        self.run_lane.cancel()
        self.batch_lane.cancel()
        self.statusBar().showMessage(f"Opening {folder}\u2026")
        self.settings.setValue(OPENING_KEY, folder)
        self.settings.sync()  # on disk now: a crash while opening must not lose it
        reclaim_frozen()  # what the load before froze (here: a collection may destroy Qt objects)
        self.load_lane.submit(lambda cancel, progress: _load(folder))

    def reopen_last(self, feature: str | None = None, task: str | None = None, **startup: Any) -> bool:
        """Reopen the last project, as a bare ``ctxviewer`` does -- unless its last open never finished.

        When the folder opened last time never got its first task on screen (the window
        crashed on it, or was closed while opening), it is not opened again by itself: a
        project that crashes the window would otherwise crash every later start.  The
        window starts empty and offers to open it.  True when a project is being opened.
        *feature*, *task* and *startup* (``tune``, ``compare``) go to :meth:`open_project`.
        """
        unfinished = self.settings.value(OPENING_KEY)
        if unfinished:
            folder = str(unfinished)
            self.problems.add_notice(
                f"ctxviewer did not finish opening {folder} last time (it crashed or was closed before the "
                "first task was shown), so it was not reopened"
            )
            self.problems.offer("Open It Anyway", lambda: self.open_project(folder, feature, task, **startup))
            self.statusBar().showMessage(f"Not reopened: {folder}")
            return False
        last = self.settings.value("last-project")
        if last and Path(str(last)).is_dir():
            self.open_project(str(last), feature, task, **startup)
            return True
        return False

    def _opened_cleanly(self) -> None:
        """The open in progress got as far as it goes (a task shown, no task, or an error shown)."""
        if self.settings.contains(OPENING_KEY):
            self.settings.remove(OPENING_KEY)
            self.settings.sync()

    def open_dialog(self) -> None:
        start = str(self.project.root.parent) if self.project else str(Path.home())
        folder = QFileDialog.getExistingDirectory(self, "Open project folder", start)
        if folder:
            self.open_project(folder)

    def _on_loaded(self, result: tuple[Project, _Watch]) -> None:
        project, self._watch = result
        self._on_project_loaded(project)

    def _on_project_loaded(self, project: Project) -> None:
        if self._failed:
            self._failed = ""
            self.problems.dismiss()
        self.project = project
        self.trace = None
        self.tuned = None
        self.current = None
        if self.baseline is not None and self.baseline.project != str(project.root):
            self.clear_baseline()  # a baseline from another project compares nothing useful
        self.compare_tab.clear()  # the next selected task is compared
        self._replay_feature = None
        self.budget.set_base(project.settings, self._saved_note)
        self.budget.setEnabled(True)
        self._saved_note = ""
        self.batch_totals.clear()
        self.setWindowTitle(f"{project.name} \u2014 ctxviewer")
        self.outline.set_project(project)
        self._remember_project(str(project.root))
        self.projectLoaded.emit(project)
        warnings = list(project.warnings) + [
            f"{f.name}: {f.graph_error}" for f in project.features if f.graph_error is not None
        ]
        self.problems.show_messages([], warnings)
        feature, task = self._wanted
        target: tuple[str, str] | None = None
        if feature or task:
            target = resolve_target(project, feature, task)
            if target is None:
                self.problems.add_notice(
                    f"no task {task or '(any)'} in feature {feature or '(any)'}; showing the first task"
                )
        else:
            last = self.settings.value(f"last-task/{project.root}")
            if isinstance(last, str) and "\n" in last:
                target = resolve_target(project, *last.split("\n", 1))
        target = target or resolve_target(project, None, None)
        if target is None:
            self.header.setText(
                f"<b>{html.escape(project.name)}</b>: no task to show \u2014 no feature has a readable task graph."
            )
            self.statusBar().showMessage(f"Opened {project.root}: no task to show")
        else:
            # Replaced by "Assembled ..." once the run is done; says the open is over meanwhile
            # (and after a run that fails).
            self.statusBar().showMessage(f"Opened {project.root}")
            self.select_task(*target)
        self._watch_project()
        if target is None:
            self._opened_cleanly()
            self.start_batch()
        else:
            # The background pass starts once the first task is on screen: filling every view
            # asks Python for hundreds of cells, and each ask waits for the interpreter lock
            # while a pass holds it (measured: a 300-550 ms freeze at 1,000 tasks).
            self._batch_after_trace = True

    def _on_load_error(self, message: str) -> None:
        folder = self._opening
        self._failed = folder
        self.problems.add_notice(
            f"could not open {folder}: {message} \u2014 fix it and the window tries again when the file "
            "changes (or press F5)"
        )
        self.statusBar().showMessage("Open failed", 5000)
        self._opened_cleanly()
        if folder and Path(folder).is_dir():
            self._remember_project(folder)
            self._watch_folder(folder)

    def _watch_folder(self, folder: str) -> None:
        """Watch a project that failed to load: its root, configs and specs folder.

        Through the project's contained file access, as a loaded project is watched: a
        path that leaves the folder (a symlink out, a loop) is neither stat'ed nor watched,
        and what is watched is the real path inside, so the watcher follows no symlink.
        """
        rels = (".", "ctxviewer.yaml", ".mahabharatha", ".mahabharatha/config.yaml", ".zerg/config.yaml", ".gsd/specs")
        fs = ProjectFS(folder)
        paths: list[str] = []
        for rel in rels:
            try:
                real = fs.resolve(rel)
            except (OutsideRootError, OSError):  # refused, or a link changed while followed
                continue
            if fs.lstat(rel) is not None:
                paths.append(str(real))
        self._watch_paths(list(dict.fromkeys(paths)))

    # -- assembling ------------------------------------------------------------------------

    def select_task(self, feature: str, task_id: str) -> None:
        """Assemble *task_id* of *feature* in the background (cancelling any older run)."""
        project = self.project
        if project is None:
            return
        try:
            feat = project.feature(feature)
            task = feat.task(task_id)
        except CtxViewerError as exc:
            self.problems.show_messages([str(exc)], [])
            return
        feature_changed = self.current is None or self.current[0] != feature
        self.current = (feature, task_id)
        if feature_changed:
            self._watch_project()
        self.outline.select_task(feature, task_id)
        self.settings.setValue(f"last-task/{project.root}", f"{feature}\n{task_id}")

        settings = self.run_settings()
        baseline = self.baseline
        self.compare_tab.set_target(project, feat, task, settings)

        def job(cancel: threading.Event, progress: Callable[[str, float], None]) -> Assembled:
            trace = assemble_task(project, feat, task, settings, exact=True, cancel=cancel, progress=progress)
            diff = diff_traces(baseline, trace) if baseline is not None else None
            return Assembled(trace, lex_blocks(display_text(trace.context)), diff, finding_rows(trace))

        self.run_lane.submit(job)

    def run_settings(self) -> Settings:
        """The settings runs use: the tuned ones, else the project's (the panel's with none open)."""
        if self.project is None:
            return self.budget.settings()
        return self.tuned or self.project.settings

    def _on_tuned(self, settings: Settings) -> None:
        if self.project is None:  # the panel is disabled then; nothing to run in any case
            return
        before = self._replay_inputs
        self.tuned = settings if self.budget.is_tuned() else None
        self.rerun()
        self._batch_timer.start()
        if _replay_inputs(self.run_settings()) != before:  # budgets and shares do not change a replay
            self.update_replay(keep_position=True)

    # -- session replay and live log -------------------------------------------------------

    def update_replay(self, keep_position: bool = False) -> None:
        """Replay the current feature's tasks with the settings in force (off the GUI thread)."""
        project = self.project
        if project is None or self.current is None:
            return
        settings = self.run_settings()
        self._apply_live_limits(settings)
        self._replay_inputs = _replay_inputs(settings)
        feature = project.feature(self.current[0])
        reset = self._replay_reset
        self._replay_feature = feature.name
        self._keep_replay_position = keep_position

        def job(cancel: threading.Event, progress: Callable[[str, float], None]) -> SessionReplay:
            return replay_session(project, feature, settings, reset_on_checkpoint=reset)

        self.session_lane.submit(job)

    def _on_replayed(self, replay: SessionReplay) -> None:
        if replay.feature != self._replay_feature:
            return
        self.session.set_replay(replay, keep_position=self._keep_replay_position)
        self._show_effect()
        self.replayShown.emit(replay)

    def _show_effect(self) -> None:
        """The Budget panel's summary of what the settings do to this task and its feature."""
        trace = self.trace
        if trace is None:
            self.budget.show_effect([])
            return
        used = trace.context_tokens.get(trace.tokenizer) or 0
        kept = sum(1 for i in trace.items_of(SPEC_PARAGRAPH) if i.status in ("included", "truncated"))
        rules = sum(1 for i in trace.items_of(RULE_FILE) if i.status in ("included", "truncated"))
        share = f"{100 * used / trace.budget:.0f}%" if trace.budget else "n/a"
        over = " \u2014 <b>over budget</b>" if trace.over_budget else ""
        e = html.escape  # the panel's label is rich text: project names escaped
        lines = [
            f"<b>{e(trace.task_id)}</b>: context <b>{used:,}</b> of {trace.budget:,} {e(trace.tokenizer)} tokens "
            f"({share}){over}; {kept} spec paragraph(s) and {rules} rule file(s) in, "
            f"{len(trace.trim_steps)} trim step(s).",
            f"Tracker after this task alone: {trace.tracker.usage_percent:.1f}% of "
            f"{trace.tracker.max_tokens:,} (checkpoint at {trace.tracker.threshold_percent:g}%; the task and "
            "its reads only, no tool calls or minutes \u2014 the replay adds those).",
        ]
        replay = self.session.replay()
        if replay is not None and replay.feature == trace.feature:
            if replay.first_checkpoint is None:
                last = replay.steps[-1].usage_percent if replay.steps else 0.0
                lines.append(
                    f"Replaying <b>{e(replay.feature)}</b>: no checkpoint in {len(replay.steps)} task(s), "
                    f"ending at {last:.1f}%."
                )
            else:
                step = replay.steps[replay.first_checkpoint]
                lines.append(
                    f"Replaying <b>{e(replay.feature)}</b>: the worker must checkpoint after task "
                    f"{step.index + 1} of {len(replay.steps)} ({e(step.task_id)}, {step.usage_percent:.1f}%)."
                )
        self.budget.show_effect(lines)

    def _on_replay_error(self, message: str) -> None:
        self.session.set_replay(None)
        self.problems.show_messages([f"session replay: {message}"], [])

    def _on_replay_parameters(self, tool_calls: int, minutes: float, reset: bool) -> None:
        self._replay_reset = reset
        refusal = self.budget.set_values(
            {"replay_tool_calls": tool_calls, "replay_minutes": minutes}, "replay tool calls and minutes"
        )
        if refusal:
            self.problems.add_notice(f"replay parameters not applied: {refusal}")
            return
        self.budget.flush()  # the tuned settings re-run the task and the replay
        if not self.budget.is_pending():
            self.update_replay(keep_position=True)

    def _on_replay_task(self, task_id: str) -> None:
        if self._replay_feature is not None:
            self.select_task(self._replay_feature, task_id)

    def _apply_live_limits(self, settings: Settings) -> None:
        limits = (settings.threshold_percent, settings.max_context_tokens, settings.all_zones)
        if limits != self._live_limits:
            self._live_limits = limits
            self.session.set_live_limits(*limits)

    def follow_log(self, path: str | Path) -> None:
        """Follow a worker's JSON-lines event log in the Session panel."""
        if self.project is not None:
            self._apply_live_limits(self.run_settings())
        self.session.follow_log(path)
        self.detach_action.setEnabled(True)
        self.session_dock.show()
        self.session_dock.raise_()
        self.statusBar().showMessage(f"Following {path}", 5000)

    def stop_following(self) -> None:
        self.session.stop_following()
        self.detach_action.setEnabled(False)

    def follow_dialog(self) -> None:
        start = str(Path.home())
        if self.project is not None:
            logs = self.project.root / ".mahabharatha" / "logs"
            start = str(logs if logs.is_dir() else self.project.root)
        path, _ = QFileDialog.getOpenFileName(
            self, "Attach to a worker's event log", start, "Event logs (*.jsonl *.ndjson *.log *.json);;All files (*)"
        )
        if path:
            self.follow_log(path)

    def save_settings(self, confirm: bool = True) -> None:
        """Write the tuned settings to the project's ctxviewer.yaml (after asking), then reload."""
        project = self.project
        if project is None:
            return
        self.budget.flush()
        tuned = self.budget.settings()
        try:
            plan = plan_save(project, tuned)
        except CtxViewerError as exc:
            self.problems.add_notice(f"settings not saved: {exc}")
            return
        if not plan.changes:
            self.statusBar().showMessage("Nothing to save: these are the project's values", 5000)
            return
        if confirm:
            box = QMessageBox(self)
            box.setIcon(QMessageBox.Icon.Question)
            box.setWindowTitle("Save settings")
            box.setTextFormat(Qt.TextFormat.PlainText)  # the path and the values are the project's
            box.setText(f"Write {len(plan.changes)} change(s) to {plan.path}?")
            box.setInformativeText(
                "\n".join(c.describe() for c in plan.changes)
                + ("\n\nSome comments in the file cannot be kept." if plan.comments_lost else "")
            )
            box.setDetailedText(plan.text)
            box.setStandardButtons(QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Cancel)
            if box.exec() != QMessageBox.StandardButton.Save:
                return
        try:
            result = save_ctxviewer_yaml(project, tuned, plan)
        except CtxViewerError as exc:
            self.problems.add_notice(
                f"settings not saved: {exc} \u2014 your tuned values are kept; save again to write them over it"
            )
            return
        self._saved_note = result.summary()
        self.statusBar().showMessage(f"Saved {len(result.changes)} setting(s) to {result.path}", 6000)
        self.settingsSaved.emit(result)
        feature, task = self.current or (None, None)
        self.open_project(project.root, feature, task)

    # -- changes on disk ----------------------------------------------------------------------

    def _watch_project(self) -> None:
        """Watch the configs, the task graphs, the current feature's files and the rule files.

        All but the current feature's folder were stat'ed with the load or refresh that
        made the project (:func:`project_watch`), off the GUI thread; only that folder's
        few files are listed and stat'ed here.
        """
        project = self.project
        if project is None:
            self._watch_paths([])
            return
        watch = self._watch
        if watch is None or watch.project is not project:  # a project handed in directly
            watch = self._watch = project_watch(project)
        current: list[str] = []
        if self.current is not None:
            fs = project.fs
            spec_dir = project.feature(self.current[0]).spec_dir
            rels = [spec_dir, *(f"{spec_dir}/{n}" for n in fs.list_dir(spec_dir))]
            current = [str(project.root / rel) for rel in dict.fromkeys(rels) if fs.lstat(rel) is not None]
        self._watch_paths(list(dict.fromkeys([*watch.head, *current, *watch.tail])))

    def _watch_paths(self, paths: list[str]) -> None:
        """Watch exactly *paths* (at most MAX_WATCHED), instead of what was watched before."""
        old = self.watcher.files() + self.watcher.directories()
        if old:
            self.watcher.removePaths(old)
        if paths:
            self.watcher.addPaths(paths[:MAX_WATCHED])

    def _on_disk_change(self, _path: str) -> None:
        self._disk_timer.start()

    def refresh(self) -> None:
        """Bring the project up to date with the disk and re-run the task (F5 does this too)."""
        if self._failed:
            self.open_project(self._failed, *self._wanted)
            return
        project = self.project
        if project is None:
            return

        def job(
            cancel: threading.Event, progress: Callable[[str, float], None]
        ) -> tuple[Project, tuple[str, ...], _Watch]:
            fresh, changed = refresh_project(project)
            return fresh, changed, project_watch(fresh)

        self.refresh_lane.submit(job)

    def _on_refreshed(self, result: tuple[Project, tuple[str, ...], _Watch]) -> None:
        project, changed, watch = result
        if self.project is None or project.root != self.project.root:
            return
        self._watch = watch
        if project is not self.project:
            settings_changed = project.settings != self.project.settings
            self.project = project
            if settings_changed:
                self.budget.rebase(project.settings)
                self.tuned = self.budget.settings() if self.budget.is_tuned() else None
            self.outline.set_project(project, self.batch_totals.values())
            self._replay_feature = None
            self.statusBar().showMessage(f"Reloaded: {', '.join(changed)} changed on disk", 6000)
            self._batch_timer.start()
        if self.current is not None:
            target = resolve_target(project, *self.current) or resolve_target(project, self.current[0], None)
            target = target or resolve_target(project, None, None)
            if target is not None:
                self.select_task(*target)
        self._watch_project()
        self.projectRefreshed.emit(project)

    def rerun(self) -> None:
        if self.current is not None:
            self.select_task(*self.current)

    def cancel_run(self) -> None:
        self.run_lane.cancel()

    def _on_progress(self, stage: str, fraction: float) -> None:
        self.progress.show()
        self.progress.setValue(int(fraction * 100))
        self.progress.setToolTip(f"Stage: {stage}")

    def _on_assembled(self, result: Assembled) -> None:
        self.progress.hide()
        self.show_trace(result.trace, result.lexed, result.diff, result.findings)

    def _on_run_error(self, message: str) -> None:
        self.progress.hide()
        self.problems.show_messages([message], [])
        self._opened_cleanly()
        self._start_deferred_batch()

    def _start_deferred_batch(self) -> None:
        """Start the background pass an open deferred until the first task was shown (or failed),
        a moment later, once the views have painted."""
        if self._batch_after_trace:
            self._batch_after_trace = False
            self._first_batch_timer.start()

    def _show_state(self, what: str, state: RunState) -> None:
        self.state_label.setText(f"{what}: {state.value}")
        if state in (RunState.CANCELLED, RunState.ERROR):
            self.progress.hide()

    def show_trace(
        self,
        trace: Trace,
        lexed: LexedText | None = None,
        diff: TraceDiff | None = None,
        findings: tuple[FindingRow, ...] | None = None,
    ) -> None:
        """Show a finished trace in every view (and its diff against the pinned baseline, its findings)."""
        self.trace = trace
        if self.baseline is not None and (diff is None or diff.baseline is not self.baseline):
            diff = diff_traces(self.baseline, trace)  # pinned after the run was asked for
        self.diff = diff if self.baseline is not None else None
        self.whatif.set_diff(self.diff, self._baseline_label())
        self.header.setText(self._header_html(trace))
        # The findings line before the views: they size their splitters to the room left.
        rows = finding_rows(trace) if findings is None else findings
        self._show_findings_line(rows)
        self.header.setToolTip(
            f"context: size of the assembled context in {trace.tokenizer} tokens (the tokenizer the "
            f"pipeline decides with) against the task budget of {trace.budget:,}; exact: the same text "
            "counted with tiktoken's cl100k_base and o200k_base encodings"
        )
        self.sections_tab.set_trace(trace)
        self.paragraphs.set_rows(trace.items_of(SPEC_PARAGRAPH), columns=paragraph_columns(trace.tokenizer))
        self.rules.set_rows(trace.items_of(RULE_FILE), columns=rule_columns(trace.tokenizer))
        # Start with the most telling candidate explained: a truncated paragraph (the cut
        # shows), else the best-ranked one; the first rule file.
        if not self.paragraphs.select(lambda i: i.status == "truncated"):
            self.paragraphs.select(lambda i: i.rank == 1)
        self.rules.select(lambda i: True)
        self.trimming.set_trace(trace)
        self.context_view.set_trace(trace, lexed)
        self.task_tab.set_trace(trace)
        self.computed_tab.set_trace(trace)
        self.window_tab.set_trace(trace)
        self.tracker.set_trace(trace)
        self.search.set_trace(trace)
        self._show_findings(trace, rows)
        errors = [e.one_line() for e in trace.errors]
        self.problems.show_messages(errors, list(trace.warnings))
        self._set_exports_enabled(True)
        self.statusBar().showMessage(f"Assembled {trace.task_id}", 4000)
        self._show_effect()
        if trace.feature != self._replay_feature:
            self.update_replay()
        self._opened_cleanly()
        self.traceShown.emit(trace)
        self._start_deferred_batch()
        self._run_startup()

    def _run_startup(self) -> None:
        tune, compare = self._startup
        if not tune and not compare:
            return
        self._startup = ({}, False)
        if compare:
            self.pin_baseline()
        if tune:
            refusal = self.budget.set_values(tune, "settings from the command line")
            if refusal:
                self.problems.add_notice(f"--set not applied: {refusal}")
            self.budget.flush()

    def is_settled(self) -> bool:
        """Whether everything asked for is shown: no run, batch or pending change in flight."""
        return (
            self.trace is not None
            and self._startup == ({}, False)
            and not self.run_lane.is_busy()
            and not self.batch_lane.is_busy()
            and not self._batch_timer.isActive()
            and not self._first_batch_timer.isActive()
            and not self._batch_after_trace
            and not self.budget.is_pending()
            and not self.session_lane.is_busy()
            and self.compare_tab.is_settled()
        )

    def _header_html(self, trace: Trace) -> str:
        used = trace.context_tokens.get(trace.tokenizer)
        used_text = "n/a" if used is None else f"{used:,}"
        exact = [
            f"{name} {value:,}"
            for name in ("cl100k_base", "o200k_base")
            if (value := trace.context_tokens.get(name)) is not None
        ]
        over = ' <span style="color:#d32f2f"><b>over budget</b></span>' if trace.over_budget else ""
        e = html.escape  # the markup is ours; every name in it is the project's, shown as text
        return (
            f"<span style='font-size:13pt'><b>{e(trace.task_id)}</b> {e(trace.task_title)}</span><br>"
            f"feature <b>{e(trace.feature)}</b> \u00b7 profile {e(trace.profile)} \u00b7 context "
            f"<b>{used_text}</b> of {trace.budget:,} {e(trace.tokenizer)} tokens{over}"
            f" \u00b7 exact: {', '.join(exact) or 'n/a'}"
        )

    # -- what-if ------------------------------------------------------------------------------

    def pin_baseline(self) -> None:
        """Pin the shown run: every later run is compared with it in the What-if tab."""
        if self.trace is None:
            self.statusBar().showMessage("Nothing to pin yet", 4000)
            return
        self.baseline = self.trace
        self.diff = diff_traces(self.baseline, self.trace)
        self.whatif.set_diff(self.diff, self._baseline_label())
        self.clear_baseline_action.setEnabled(True)
        self.whatif_export.setEnabled(True)
        self.tabs.setTabText(TABS.index("whatif"), "What-if \u25cf")
        self.statusBar().showMessage(f"Pinned {self._baseline_label()} as the baseline", 5000)

    def clear_baseline(self) -> None:
        self.baseline = None
        self.diff = None
        self.whatif.set_diff(None)
        self.clear_baseline_action.setEnabled(False)
        self.whatif_export.setEnabled(False)
        self.tabs.setTabText(TABS.index("whatif"), "What-if")

    def _baseline_label(self) -> str:
        b = self.baseline
        if b is None:
            return ""
        return b.task_id

    def _go_to_item_id(self, item_id: str) -> None:
        item = self.trace.item(item_id) if self.trace else None
        if item is None and self.baseline is not None:
            gone = self.baseline.item(item_id)
            # Said in words ("paragraph 12 of requirements.md (lines 40-44)"), not by its id.
            what = describe(gone) if gone is not None else item_id
            message = f"{what} is only in the baseline" if gone else f"{what} is in neither run"
            self.statusBar().showMessage(message, 5000)
            return
        if item is not None:
            self._select_candidate(item.kind, item_id)

    # -- navigation ---------------------------------------------------------------------------

    def show_panel(self, name: str) -> None:
        """Bring a right-hand panel to the front: ``budget``, ``tracker``, ``session`` or ``window``."""
        dock = {
            "budget": self.budget_dock,
            "tracker": self.tracker_dock,
            "session": self.session_dock,
            "window": self.window_dock,
        }[name]
        dock.show()
        dock.raise_()

    def show_tab(self, name: str) -> None:
        self.tabs.setCurrentIndex(TABS.index(name))

    def current_tab(self) -> str:
        return TABS[self.tabs.currentIndex()]

    def jump_to_section(self, name: str) -> None:
        section = self.trace.section(name) if self.trace else None
        if section is None or section.span is None:
            self.statusBar().showMessage(f"{name} is not in the context", 4000)
            return
        self.show_tab("context")
        self.context_view.show_span(*section.span)

    def jump_to_item(self, item: Item) -> None:
        if item.span is None:
            self.statusBar().showMessage(f"{item.source} is not in the context: {item.reason}", 6000)
            return
        self.show_tab("context")
        self.context_view.show_span(*item.span)

    def _item_of(self, row: object) -> Item | None:
        """The current trace's candidate a table row is about: the row itself, or the one its id names."""
        if isinstance(row, Item):
            return row
        if isinstance(row, FindingRow) and (self.trace is None or row.task != self.trace.task_id):
            return None  # another task's finding: its ids name that task's candidates
        item_id = getattr(row, "item_id", None)
        if not isinstance(item_id, str):
            item_id = getattr(row, "item", None)
        return self.trace.item(item_id) if isinstance(item_id, str) and self.trace is not None else None

    def show_source_lines(self, item: Item) -> None:
        """Show *item*'s lines in its file (read inside the project only) in the source window."""
        if self.project is None:
            return
        excerpt = item_excerpt(self.project.fs, item)
        if self.source_dialog is None:
            self.source_dialog = SourceLinesDialog(self)
        self.source_dialog.show_excerpt(item, excerpt)
        self.source_dialog.show()
        self.source_dialog.activateWindow()

    # -- findings ---------------------------------------------------------------------------------

    def _show_findings_line(self, rows: tuple[FindingRow, ...]) -> None:
        line = findings_line(rows, is_dark(self.palette()))
        self.findings_label.setText(line)
        self.findings_label.setVisible(bool(line))
        title = f"Findings ({len(rows)})" if rows else "Findings"
        self.tabs.setTabText(TABS.index("findings"), title)

    def _show_findings(self, trace: Trace, rows: tuple[FindingRow, ...]) -> None:
        self.task_findings = rows
        self.findings_tab.set_task(trace.feature, trace.task_id, rows)
        self._update_feature_findings()
        pending, self._pending_finding = self._pending_finding, None
        if pending is not None and (pending.finding.feature, pending.task) == (trace.feature, trace.task_id):
            self.go_to_finding(pending)

    def feature_findings(self, feature: str) -> tuple[tuple[FindingRow, ...], int]:
        """Every task's findings of *feature* from the background pass, in task order, and the
        number of tasks the pass has not reached yet."""
        if self.project is None:
            return (), 0
        try:
            tasks = self.project.feature(feature).tasks
        except CtxViewerError:
            return (), 0
        rows: list[FindingRow] = []
        pending = 0
        for task in tasks:
            total = self.batch_totals.get((feature, task.id))
            if total is None:
                pending += 1
            else:
                rows.extend(total.findings)
        return tuple(rows), pending

    def _update_feature_findings(self) -> None:
        if self.current is not None:
            self.findings_tab.set_feature(*self.feature_findings(self.current[0]))

    def _on_whole_feature(self, on: bool) -> None:
        if on:
            self._update_feature_findings()

    def show_findings(self, feature: bool = False) -> None:
        """Open the Findings tab on this task's findings (or the whole feature's)."""
        self.findings_tab.show_feature(feature)
        self.show_tab("findings")

    def go_to_finding(self, row: FindingRow) -> None:
        """Show what *row* is about: its item in its table, else its section in the context.

        A finding of another task selects that task first and goes there once it is shown.
        """
        finding = row.finding
        trace = self.trace
        if trace is None or (finding.feature, finding.task) != (trace.feature, trace.task_id):
            self._pending_finding = row
            self.select_task(finding.feature, finding.task)
            return
        if finding.item and trace.item(finding.item) is not None:
            self._go_to_item_id(finding.item)
        elif finding.section:
            self.jump_to_section(finding.section)

    def _go_to_match(self, match: Match) -> None:
        self._select_candidate(match.kind, match.item_id)

    def _select_candidate(self, kind: str, item_id: str) -> None:
        """Show the paragraph, rule file or computed entry *item_id* selected in its table."""
        if kind not in (SPEC_PARAGRAPH, RULE_FILE):
            self.show_tab("computed")
            self.computed_tab.select_item(item_id)
            return
        table = self.paragraphs if kind == SPEC_PARAGRAPH else self.rules
        self.show_tab("paragraphs" if kind == SPEC_PARAGRAPH else "rules")
        table.select(lambda i: i.id == item_id)

    def _on_search_text(self, text: str) -> None:
        # The results panel appears with the first query; closing it is the user's call.
        if text.strip() and not self.search_dock.isVisible():
            self.search_dock.show()
            # Tall enough for the summary, the filter bar and a dozen rows (it opened two rows
            # tall: the size given while hidden does not hold).
            self.resizeDocks([self.search_dock], [search_dock_height(self.height())], Qt.Orientation.Vertical)

    def focus_search(self) -> None:
        self.search.field.setFocus()
        self.search.field.selectAll()

    def focus_outline(self) -> None:
        self.outline_dock.show()
        self.outline.filter.setFocus()

    def _paragraph_detail(self, item: Item) -> str:
        return paragraph_html(self.trace, item) if self.trace else ""

    # -- batch pass ----------------------------------------------------------------------------

    def start_batch(self) -> None:
        """Assemble every task in the background to fill the outline's totals."""
        project = self.project
        if project is None:
            return
        self._batch_id += 1
        batch_id = self._batch_id
        rows = self._batch_rows
        count = sum(len(f.tasks) for f in project.features)
        settings = self.run_settings()

        def job(cancel: threading.Event, progress: Callable[[str, float], None]) -> int:
            exact = settings.tokenizer != HEURISTIC
            # Progress is counted from the rows themselves (_on_batch_rows): no signal per row.
            for row in run_batch(project, None, settings, exact=exact, cancel=cancel, collect_errors=True):
                if row.trace is None:
                    total = TaskTotal(row.feature.name, row.task.id, 0, 0, "", row.error)
                else:
                    used = row.trace.context_tokens.get(row.trace.tokenizer) or 0
                    total = TaskTotal(
                        row.feature.name,
                        row.task.id,
                        used,
                        row.trace.budget,
                        row.trace.tokenizer,
                        findings=finding_rows(row.trace),
                    )
                rows.put((batch_id, total))
            return count

        self._batch_size = count
        self._batch_done = 0
        self.batch_label.setText(f"batch pass: 0 of {count}")
        self.batch_lane.submit(job)

    def _on_batch_rows(self, rows: list[tuple[int, TaskTotal]]) -> None:
        done = 0
        for batch_id, total in rows:
            if batch_id != self._batch_id:
                continue
            self.batch_totals[(total.feature, total.task_id)] = total
            self.outline.set_total(total)
            done += 1
        if done:
            self._batch_done += done
            self.batch_label.setText(f"batch pass: {self._batch_done} of {self._batch_size}")
            if self.current_tab() == "findings" and self.findings_tab.whole_feature.isChecked():
                self._feature_findings_timer.start()  # at most twice a second while the pass runs

    def _on_batch_done(self, count: int) -> None:
        self._batch_rows.flush()  # the last rows, before the tally
        over = sum(1 for t in self.batch_totals.values() if t.over)
        errors = sum(1 for t in self.batch_totals.values() if any(f.severity == ERROR for f in t.findings))
        self.batch_label.setText(f"{plural(count, 'task')}, {over:,} over budget, {errors:,} with error findings")
        self.batch_label.setToolTip(
            "Background pass over every task: totals in the outline, a marker on each task with findings "
            "(the Findings tab lists a whole feature's)"
        )
        self._update_feature_findings()
        self.batchFinished.emit()

    # -- export ----------------------------------------------------------------------------------

    def _set_exports_enabled(self, enabled: bool) -> None:
        for action in self.export_actions:
            action.setEnabled(enabled)

    def export_dialog(self, fmt: str) -> None:
        if self.trace is None:
            return
        suffix = report.SUFFIXES[fmt]
        # The task id is the project's: made one harmless name, so '../' cannot lead out of the folder.
        name = safe_file_name(self.trace.task_id) + suffix
        default = str(Path(str(self.settings.value("export-dir", str(Path.home())))) / name)
        filters = {
            "markdown": "Markdown (*.md)",
            "json": "JSON (*.json)",
            "html": "HTML (*.html)",
            "whatif-md": "What-if Markdown (*.whatif.md)",
        }
        path, _ = QFileDialog.getSaveFileName(self, "Export", default, filters[fmt])
        if path:
            if not Path(path).suffix:
                path += suffix
            self.settings.setValue("export-dir", str(Path(path).parent))
            self.export_to(path, fmt)

    def export_to(self, path: str, fmt: str) -> None:
        """Write the current trace as *fmt* to *path* atomically, off the GUI thread."""
        trace, diff = self.trace, self.diff
        if trace is None:
            self.exportFinished.emit(path, "nothing to export yet")
            return
        if fmt in report.DIFF_FORMATS and diff is None:
            self.exportFinished.emit(path, "no baseline is pinned: nothing to compare")
            return
        self._export_path = path

        def job(cancel: threading.Event, progress: Callable[[str, float], None]) -> str:
            report.export(trace, path, fmt, diff=diff)
            return path

        self.export_lane.submit(job)

    def _on_exported(self, path: str) -> None:
        self.statusBar().showMessage(f"Wrote {path}", 6000)
        self.exportFinished.emit(path, "")

    def _on_export_error(self, message: str) -> None:
        self.problems.show_messages([f"export failed: {message}"], [])
        self.exportFinished.emit(self._export_path, message)

    def copy_context(self) -> None:
        if self.trace is not None:
            QGuiApplication.clipboard().setText(self.trace.context)
            self.statusBar().showMessage(f"Copied {len(self.trace.context):,} characters", 4000)

    # -- recent projects, geometry, drops ---------------------------------------------------------

    def _remember_project(self, path: str) -> None:
        recent = [p for p in self.recent_projects() if p != path]
        recent.insert(0, path)
        self.settings.setValue("recent", recent[:MAX_RECENT])
        self.settings.setValue("last-project", path)
        self._fill_recent()

    def recent_projects(self) -> list[str]:
        value = self.settings.value("recent", [])
        if isinstance(value, str):
            return [value]
        return [str(v) for v in value] if isinstance(value, list | tuple) else []

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        recent = self.recent_projects()
        for path in recent:
            action = self.recent_menu.addAction(path.replace("&", "&&"))  # a menu takes '&' for a shortcut
            action.triggered.connect(lambda _c=False, p=path: self.open_project(p))
        if not recent:
            none = self.recent_menu.addAction("(none yet)")
            none.setEnabled(False)

    def _restore_geometry(self) -> None:
        geometry = self.settings.value("geometry")
        if geometry is not None:
            self.restoreGeometry(geometry)
        state = self.settings.value("window-state")
        if state is not None:
            self.restoreState(state)

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        urls = event.mimeData().urls()
        if urls and urls[0].isLocalFile() and Path(urls[0].toLocalFile()).is_dir():
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        urls = event.mimeData().urls()
        if urls and urls[0].isLocalFile():
            self.open_project(urls[0].toLocalFile())
            event.acceptProposedAction()

    def show_shortcuts(self) -> None:
        lines = [
            f"{a.text().replace('&', '')}: {a.shortcut().toString(QKeySequence.SequenceFormat.NativeText)}"
            for a in self.actions()
            if not a.shortcut().isEmpty()
        ]
        self.problems.show_messages([], ["Shortcuts \u2014 " + "; ".join(lines)])

    def closeEvent(self, event: QCloseEvent) -> None:
        self.settings.setValue("geometry", self.saveGeometry())
        self.settings.setValue("window-state", self.saveState())
        self.session.stop_following()
        self.session.player.pause()
        self.budget.stop()
        for timer in (self._disk_timer, self._batch_timer, self._first_batch_timer, self._feature_findings_timer):
            timer.stop()
        lanes = (
            self.load_lane,
            self.run_lane,
            self.batch_lane,
            self.export_lane,
            self.session_lane,
            self.refresh_lane,
            self.compare_lane,
        )
        for lane in lanes:
            lane.cancel()
        self.pool.waitForDone(10_000)
        super().closeEvent(event)


def search_dock_height(window_height: int) -> int:
    """The results panel's height when it opens: 40% of the window, at least 240 pixels."""
    return max(240, int(window_height * 0.4))


def _replay_inputs(settings: Settings) -> tuple[Any, ...]:
    """The settings a session replay depends on."""
    return (
        settings.threshold_percent,
        settings.max_context_tokens,
        settings.zones,
        settings.replay_tool_calls,
        settings.replay_minutes,
    )


def resolve_target(project: Project, feature: str | None, task: str | None) -> tuple[str, str] | None:
    """The first (feature, task) matching the given parts; with neither, the first task.

    Walks the features in place (no list of every task is built: a project may hold
    tens of thousands).
    """
    for feat in project.features:
        if feature is not None and feat.name != feature:
            continue
        for t in feat.tasks:
            if task is None or t.id == task:
                return feat.name, t.id
    return None
