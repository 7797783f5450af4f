"""The inspector window: it makes the parts, connects their signals, and holds the actions and menus.

The parts, one job each: the result tabs (:mod:`.tabs`), the docked panels (:mod:`.docks`),
the task header, findings line and budget summary (:mod:`.header`), the runs on the worker
lanes (:mod:`.runs`: the selected task and the background pass), the Session panel's
replay and live log (:mod:`.session`), opening and watching a project (:mod:`.project`),
exports (:mod:`.export`), saving tuned settings (:mod:`.tuning`) and what is kept between
sessions (:mod:`.persistence`).  What is left here is the state they share (the project,
the task and trace shown, the baseline) and the handlers that pass it between them.
Everything slow runs on a :class:`~ctxviewer.gui.worker.Lane`; the window only reads the
immutable results.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QSettings, Qt, QTimer, Signal
from PySide6.QtGui import QCloseEvent, QDragEnterEvent, QDropEvent, QGuiApplication, QKeySequence
from PySide6.QtWidgets import (
    QFileDialog,
    QLabel,
    QMainWindow,
    QProgressBar,
    QVBoxLayout,
    QWidget,
)

from ctxviewer.engine.analysis.explain import Match
from ctxviewer.engine.analysis.whatif import TraceDiff, diff_traces
from ctxviewer.engine.errors import CtxViewerError
from ctxviewer.engine.project.loading import Project
from ctxviewer.engine.project.settings import Settings
from ctxviewer.engine.runs.session import SessionReplay
from ctxviewer.engine.trace.model import Item, Trace
from ctxviewer.gui.resources import app_icon
from ctxviewer.gui.views.findings_view import FindingRow, finding_rows
from ctxviewer.gui.views.logview import ask_worker_logs
from ctxviewer.gui.views.outline import TaskTotal
from ctxviewer.gui.views.problems import ProblemPanel
from ctxviewer.gui.views.revision_view import RevisionDiffDialog
from ctxviewer.gui.widgets.highlighter import LexedText
from ctxviewer.gui.widgets.models import is_dark
from ctxviewer.gui.widgets.source_lines import SourceLinesDialog, item_excerpt
from ctxviewer.gui.window.docks import DockPanels
from ctxviewer.gui.window.export import Exporter
from ctxviewer.gui.window.header import FindingsLine, TaskHeader, effect_lines
from ctxviewer.gui.window.menus import build_menus
from ctxviewer.gui.window.persistence import WindowSettings
from ctxviewer.gui.window.project import ProjectOpener, first_target, load_warnings, refresh_target
from ctxviewer.gui.window.runs import (
    Assembled,
    BatchPass,
    ComposedPrompt,
    assembly_job,
    feature_findings,
    prompt_job,
)
from ctxviewer.gui.window.sensitivity import SensitivityFeed
from ctxviewer.gui.window.session import SessionFeeds, ask_log_path, ask_run_path, is_run_path
from ctxviewer.gui.window.sweep import SweepLauncher
from ctxviewer.gui.window.tabs import ResultTabs
from ctxviewer.gui.window.tuning import save_tuned
from ctxviewer.gui.worker import JobFn, Lane, RunState, make_pool

#: The whole feature's findings list is refilled at most this often during the background pass.
FEATURE_FINDINGS_MS = 500


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
        self.store = WindowSettings(self.settings)
        self.setWindowTitle("ctxviewer")
        self.setWindowIcon(app_icon())
        self.setAcceptDrops(True)
        self.current: tuple[str, str] | None = None
        self._wanted: tuple[str | None, str | None] = (None, None)
        #: Settings tuned in the budget panel; None while they are the project's own.
        self.tuned: Settings | None = None
        #: The pinned what-if baseline and the current run's diff against it.
        self.baseline: Trace | None = None
        self.diff: TraceDiff | None = None
        self._saved_note = ""
        self._startup: tuple[dict[str, Any], bool] = ({}, False)
        #: The shown task's findings; a finding of another task to go to once that task is shown.
        self.task_findings: tuple[FindingRow, ...] = ()
        self._pending_finding: FindingRow | None = None

        self.pool = make_pool(4)
        self.load_lane = Lane(self.pool, "load", self)
        self.run_lane = Lane(self.pool, "assemble", self)
        #: The worker's prompt for the task shown, composed once its trace is (see _on_assembled).
        self.prompt_lane = Lane(self.pool, "prompt", self)
        self._prompt_for: JobFn | None = None
        self.batch_lane = Lane(self.pool, "batch", self)
        self.export_lane = Lane(self.pool, "export", self)
        self.session_lane = Lane(self.pool, "replay", self)
        self.refresh_lane = Lane(self.pool, "refresh", self)
        self.compare_lane = Lane(self.pool, "compare", self)
        #: The shown task's exact sensitivity ("What would get it in?"), worked out once it is shown.
        self.sensitivity = SensitivityFeed(self.pool, self)
        self.revision_lane = Lane(self.pool, "revisions", self)
        self.revision_dialog: RevisionDiffDialog | None = None
        #: The Feature Sweep window and its lane (made when the Run menu first asks).
        self.sweeps = SweepLauncher(self.pool, self)
        self.sweeps.openRequested.connect(self.open_at)
        self.projectLoaded.connect(lambda p: self.sweeps.retarget(p, None, self.run_settings))
        self.projectRefreshed.connect(lambda p: self.sweeps.retarget(p, None, self.run_settings))
        self.opener = ProjectOpener(self.load_lane, self.refresh_lane, self)
        self.disk = self.opener.disk
        self.watcher = self.disk.watcher
        self.disk.changed.connect(self.refresh)
        self.exporter = Exporter(self.export_lane, self.store, self)
        self._build_widgets()
        self._build_actions()
        self._connect_lanes()
        self.store.restore_window(self)

    @property
    def project(self) -> Project | None:
        """The open project (None until one has loaded)."""
        return self.opener.project

    @property
    def trace(self) -> Trace | None:
        """The trace shown (None from opening a project until its first task is shown)."""
        return self.tabs.trace

    @trace.setter
    def trace(self, trace: Trace | None) -> None:
        self.tabs.trace = trace

    # -- construction ------------------------------------------------------------------

    def _build_widgets(self) -> None:
        self.problems = ProblemPanel(self)
        self.header = TaskHeader(self)
        #: One line under the header naming the task's findings; a click opens the Findings tab.
        self.findings_label = FindingsLine(self)
        self.findings_label.linkActivated.connect(lambda _link: self.show_findings(feature=False))
        self.tabs = tabs = ResultTabs(self.compare_lane, self)
        tabs.message.connect(self._status)
        self.sections_tab, self.paragraphs, self.rules = tabs.sections_tab, tabs.paragraphs, tabs.rules
        self.trimming, self.context_view, self.computed_tab = tabs.trimming, tabs.context_view, tabs.computed_tab
        self.window_tab, self.whatif, self.compare_tab = tabs.window_view, tabs.whatif, tabs.compare_tab
        self.task_tab, self.findings_tab = tabs.task_tab, tabs.findings_tab
        self.whatif.itemActivated.connect(self._go_to_item_id)
        for view in tabs.sensitivity_views.values():
            self.sensitivity.add_view(view)
        self.sensitivity.applyRequested.connect(self.apply_values)
        self.findings_tab.findingActivated.connect(self.go_to_finding)
        self.findings_tab.whole_feature.toggled.connect(self._on_whole_feature)
        central = QWidget(self)
        layout = QVBoxLayout(central)
        layout.setContentsMargins(6, 6, 6, 0)
        layout.addWidget(self.problems)
        layout.addWidget(self.header)
        layout.addWidget(self.findings_label)
        layout.addWidget(self.tabs, 1)
        self.setCentralWidget(central)

        self.docks = docks = DockPanels(self, self.window_tab)
        self.outline, self.tracker, self.search = docks.outline, docks.tracker, docks.search
        self.budget, self.session = docks.budget, docks.session
        self.outline_dock, self.budget_dock, self.session_dock = (
            docks.outline_dock,
            docks.budget_dock,
            docks.session_dock,
        )
        self.tracker_dock, self.window_dock, self.search_dock = docks.tracker_dock, docks.window_dock, docks.search_dock
        self.outline.taskChosen.connect(self.select_task)
        self.logs = docks.logs
        self.logs.taskRequested.connect(self.select_task)  # "Open this task's assembly"
        self.search.matchChosen.connect(self._go_to_match)
        self.budget.settingsChanged.connect(self._on_tuned)
        self.budget.saveRequested.connect(self.save_settings)
        self.session.parametersChanged.connect(self._on_replay_parameters)
        self.session.taskActivated.connect(self._on_replay_task)
        self.replays = SessionFeeds(self.session_lane, self.session, self)
        #: Refreshes the whole feature's findings list while the background pass fills it.
        self._feature_findings_timer = QTimer(self)
        self._feature_findings_timer.setSingleShot(True)
        self._feature_findings_timer.setInterval(FEATURE_FINDINGS_MS)
        self._feature_findings_timer.timeout.connect(self._update_feature_findings)

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
            table.row_actions.link(tabs.item_of, tabs.jump_to_item, self.show_source_lines)
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
        self.batch = BatchPass(self.batch_lane, self.batch_label, self)
        self.batch.due.connect(self.start_batch)
        self.batch.give_way_to(self.run_lane)
        self.batch.totalsArrived.connect(self._on_batch_totals)
        self.batch.finished.connect(self._on_batch_finished)
        self.batch_totals: dict[tuple[str, str], TaskTotal] = self.batch.totals

    def _build_actions(self) -> None:
        menus = build_menus(self)
        self.recent_menu = menus.recent
        self.export_actions = menus.exports
        self.whatif_export = menus.whatif_export
        self.detach_action = menus.detach
        self.clear_baseline_action = menus.clear_baseline
        self.undo_action, self.redo_action = menus.undo, menus.redo
        self._fill_recent()
        self._set_exports_enabled(False)

    def _connect_lanes(self) -> None:
        self.opener.loaded.connect(self._on_project_loaded)
        self.opener.failed.connect(self._on_load_error)
        self.opener.refreshed.connect(self._on_refreshed)
        self.load_lane.stateChanged.connect(lambda s: self._show_state("loading", s))
        self.run_lane.finished.connect(self._on_assembled)
        self.run_lane.errored.connect(self._on_run_error)
        self.run_lane.progress.connect(self._on_progress)
        self.run_lane.stateChanged.connect(lambda s: self._show_state("assembly", s))
        self.prompt_lane.finished.connect(self._on_prompt)
        self.refresh_lane.errored.connect(lambda m: self.problems.show_messages([f"reloading failed: {m}"], []))
        self.replays.replayed.connect(self._on_replayed)
        self.replays.failed.connect(lambda m: self.problems.show_messages([f"session replay: {m}"], []))
        self.exporter.wrote.connect(lambda path: self._status(f"Wrote {path}", 6000))
        self.exporter.failed.connect(lambda m: self.problems.show_messages([f"export failed: {m}"], []))
        self.exporter.finished.connect(self.exportFinished)

    def _status(self, message: str, timeout_ms: int = 0) -> None:
        self.statusBar().showMessage(message, timeout_ms)

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
        self._wanted = (feature, task)
        self._startup = (dict(tune or {}), compare)
        self.run_lane.cancel()
        self.batch_lane.cancel()
        self._status(f"Opening {folder}\u2026")
        self.store.begin_open(folder)
        self.opener.open(folder)

    def reopen_last(self, feature: str | None = None, task: str | None = None, **startup: Any) -> bool:
        """Reopen the last project, as a bare ``ctxviewer`` does -- unless its last open never finished.

        When the folder opened last time never got its first task on screen (the window
        crashed on it, or was closed while opening), it is not opened again by itself: a
        project that crashes the window would otherwise crash every later start.  The
        window starts empty and offers to open it.  True when a project is being opened.
        *feature*, *task* and *startup* (``tune``, ``compare``) go to :meth:`open_project`.
        """
        folder = self.store.unfinished_open()
        if folder:
            self.problems.add_notice(
                f"ctxviewer did not finish opening {folder} last time (it crashed or was closed before the "
                "first task was shown), so it was not reopened"
            )
            self.problems.offer("Open It Anyway", lambda: self.open_project(folder, feature, task, **startup))
            self._status(f"Not reopened: {folder}")
            return False
        last = self.store.last_project()
        if last and Path(last).is_dir():
            self.open_project(last, feature, task, **startup)
            return True
        return False

    def open_dialog(self) -> None:
        start = str(self.project.root.parent) if self.project else str(Path.home())
        folder = QFileDialog.getExistingDirectory(self, "Open project folder", start)
        if folder:
            self.open_project(folder)

    def _on_project_loaded(self, project: Project, recovered: bool) -> None:
        if recovered:
            self.problems.dismiss()  # the notice that the open failed
        self.trace = None
        self.tuned = None
        self.current = None
        if self.baseline is not None and self.baseline.project != str(project.root):
            self.clear_baseline()  # a baseline from another project compares nothing useful
        self.compare_tab.clear()  # the next selected task is compared
        self.replays.feature = None
        self.budget.set_base(project.settings, self._saved_note)
        self.budget.setEnabled(True)
        self._saved_note = ""
        self.batch_totals.clear()
        self.setWindowTitle(f"{project.name} \u2014 ctxviewer")
        self.outline.set_project(project)
        self.logs.follow_project(project.root)
        self._remember_project(str(project.root))
        self.projectLoaded.emit(project)
        self.problems.show_messages([], load_warnings(project))
        target, notice = first_target(project, self._wanted, self.store.last_task(project.root))
        if notice:
            self.problems.add_notice(notice)
        if target is None:
            self.header.show_no_task(project.name)
            self._status(f"Opened {project.root}: no task to show")
        else:
            # Replaced by "Assembled ..." once the run is done; says the open is over meanwhile
            # (and after a run that fails).
            self._status(f"Opened {project.root}")
            self.select_task(*target)
        self._watch_project()
        if target is None:
            self.store.finish_open()
            self.start_batch()
        else:
            self.batch.defer_until_shown()  # the background pass starts once the first task is on screen

    def _on_load_error(self, folder: str, message: str) -> None:
        self.problems.add_notice(
            f"could not open {folder}: {message} \u2014 fix it and the window tries again when the file "
            "changes (or press F5)"
        )
        self._status("Open failed", 5000)
        self.store.finish_open()
        if folder and Path(folder).is_dir():
            self._remember_project(folder)  # (and the opener watches it for the fix)

    def _watch_project(self) -> None:
        self.disk.watch_project(self.project, self.current[0] if self.current is not None else None)

    def refresh(self) -> None:
        """Bring the project up to date with the disk and re-run the task (F5 does this too)."""
        if self.opener.failed_folder:
            self.open_project(self.opener.failed_folder, *self._wanted)
        else:
            self.opener.refresh()

    def _on_refreshed(self, project: Project, before: Project, changed: tuple[str, ...]) -> None:
        if project is not before:
            if project.settings != before.settings:
                self.budget.rebase(project.settings)
                self.tuned = self.budget.settings() if self.budget.is_tuned() else None
            self.outline.set_project(project, self.batch_totals.values())
            self.replays.feature = None
            self._status(f"Reloaded: {', '.join(changed)} changed on disk", 6000)
            self.batch.schedule()
        if self.current is not None:
            target = refresh_target(project, self.current)
            if target is not None:
                self.select_task(*target)
        self._watch_project()
        self.projectRefreshed.emit(project)

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
        self.store.set_last_task(project.root, feature, task_id)
        settings = self.run_settings()
        self.compare_tab.set_target(project, feat, task, settings)
        self.sensitivity.set_target(project, feat, task, settings)
        self.run_lane.submit(assembly_job(project, feat, task, settings, self.baseline))
        self._prompt_for = prompt_job(project, feat, task, settings)

    def run_settings(self) -> Settings:
        """The settings runs use: the tuned ones, else the project's (the panel's with none open)."""
        if self.project is None:
            return self.budget.settings()
        return self.tuned or self.project.settings

    def _on_tuned(self, settings: Settings) -> None:
        if self.project is None:  # the panel is disabled then; nothing to run in any case
            return
        self.tuned = settings if self.budget.is_tuned() else None
        self.rerun()
        self.batch.schedule()
        if self.replays.changes_replay(self.run_settings()):
            self.update_replay(keep_position=True)

    def rerun(self) -> None:
        if self.current is not None:
            self.select_task(*self.current)

    def cancel_run(self) -> None:
        self.run_lane.cancel()

    def show_revision_diff(self) -> None:
        """Open the revision diff dialog for the task shown (git revisions of the project)."""
        if self.project is None or self.current is None:
            self._status("Open a project and choose a task to compare its revisions", 4000)
            return
        if self.revision_dialog is None:
            self.revision_dialog = RevisionDiffDialog(self.revision_lane, self)
        self.revision_dialog.set_target(self.project.root, *self.current)
        self.revision_dialog.show()
        self.revision_dialog.activateWindow()

    def _on_progress(self, stage: str, fraction: float) -> None:
        self.progress.show()
        self.progress.setValue(int(fraction * 100))
        self.progress.setToolTip(f"Stage: {stage}")

    def _on_assembled(self, result: Assembled) -> None:
        self.progress.hide()
        self.show_trace(result.trace, result.lexed, result.diff, result.findings)
        self.sensitivity.show_trace(result.trace)
        if self._prompt_for is not None:
            self.tabs.prompt_view.show_prompt(None)  # not the task before's meanwhile
            self.prompt_lane.submit(self._prompt_for)

    def _on_prompt(self, composed: ComposedPrompt) -> None:
        self.tabs.prompt_view.show_prompt(composed.prompt, composed.lexed)

    def _on_run_error(self, message: str) -> None:
        self.progress.hide()
        self.problems.show_messages([message], [])
        self.store.finish_open()
        self.batch.start_deferred()

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
        self.header.show_trace(trace)
        # The findings line before the views: they size their splitters to the room left.
        rows = finding_rows(trace) if findings is None else findings
        self.findings_label.set_rows(rows, is_dark(self.palette()))
        self.tabs.set_findings_count(len(rows))
        self.tabs.show_trace(trace, lexed)
        self.tracker.set_trace(trace)
        self.search.set_trace(trace)
        self.budget.show_trace(trace)  # what "auto" detected, for the Upstream box
        self._show_findings(trace, rows)
        errors = [e.one_line() for e in trace.errors]
        self.problems.show_messages(errors, list(trace.warnings))
        self._set_exports_enabled(True)
        self._status(f"Assembled {trace.task_id}", 4000)
        self._show_effect()
        if trace.feature != self.replays.feature:
            self.update_replay()
        self.store.finish_open()
        self.traceShown.emit(trace)
        self.batch.start_deferred()
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
            and not self.prompt_lane.is_busy()
            and self.batch.is_settled()
            and not self.budget.is_pending()
            and not self.session_lane.is_busy()
            and (self.session.following_run is None or self.session.last_run_update is not None)
            and self.compare_tab.is_settled()
        )

    def _show_effect(self) -> None:
        """The Budget panel's summary of what the settings do to this task and its feature."""
        self.budget.show_effect(effect_lines(self.trace, self.session.replay()))

    # -- session replay and live log -------------------------------------------------------

    def update_replay(self, keep_position: bool = False) -> None:
        """Replay the current feature's tasks with the settings in force (off the GUI thread)."""
        project = self.project
        if project is None or self.current is None:
            return
        self.replays.replay(project, self.current[0], self.run_settings(), keep_position)

    def _on_replayed(self, replay: SessionReplay) -> None:
        self._show_effect()
        self.replayShown.emit(replay)

    def _on_replay_parameters(self, tool_calls: int, minutes: float, reset: bool) -> None:
        self.replays.reset = reset
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
        if self.replays.feature is not None:
            self.select_task(self.replays.feature, task_id)

    def follow_log(self, path: str | Path) -> None:
        """Follow a worker's JSON-lines event log in the Session panel (a real run's folder or file: its fleet)."""
        if is_run_path(path):
            self.follow_run(path)
            return
        if self.project is not None:
            self.replays.apply_live_limits(self.run_settings())
        self.session.follow_log(path)
        self.detach_action.setEnabled(True)
        self.session_dock.show()
        self.session_dock.raise_()
        self._status(f"Following {path}", 5000)

    def follow_run(self, path: str | Path) -> None:
        """Show the real run at *path* (a project or run folder, or one of its files) in the Session panel."""
        try:
            self.session.follow_run(path)
        except CtxViewerError as exc:
            self.problems.show_messages([f"attach to run: {exc}"], [])
            return
        self.detach_action.setEnabled(True)
        self.session_dock.show()
        self.session_dock.raise_()
        self.resizeDocks([self.session_dock], [max(420, self.width() * 2 // 5)], Qt.Orientation.Horizontal)
        self._status(f"Attached to the run in {path}", 5000)

    def follow_run_dialog(self) -> None:
        path = ask_run_path(self, self.project)
        if path:
            self.follow_run(path)

    def stop_following(self) -> None:
        self.session.stop_following()
        self.detach_action.setEnabled(False)

    def follow_dialog(self) -> None:
        path = ask_log_path(self, self.project)
        if path:
            self.follow_log(path)

    def open_logs(self, path: str | Path) -> None:
        """Show the worker logs found from *path* (a project, an upstream folder, a log) in the Worker logs panel."""
        self.logs.open_path(path)
        self.docks.show_logs()

    def logs_dialog(self) -> None:
        path = ask_worker_logs(self, self.project.root if self.project is not None else None)
        if path:
            self.open_logs(path)

    def save_settings(self, confirm: bool = True) -> None:
        """Write the tuned settings to the project's ctxviewer.yaml (after asking), then reload."""
        project = self.project
        if project is None:
            return
        self.budget.flush()
        outcome = save_tuned(self, project, self.budget.settings(), confirm)
        if outcome.notice:
            self.problems.add_notice(outcome.notice)
        if outcome.message:
            self._status(outcome.message, 5000)
        result = outcome.result
        if result is None:
            return
        self._saved_note = result.summary()
        self._status(f"Saved {len(result.changes)} setting(s) to {result.path}", 6000)
        self.settingsSaved.emit(result)
        feature, task = self.current or (None, None)
        self.open_project(project.root, feature, task)

    # -- what-if ------------------------------------------------------------------------------

    def pin_baseline(self) -> None:
        """Pin the shown run: every later run is compared with it in the What-if tab."""
        if self.trace is None:
            self._status("Nothing to pin yet", 4000)
            return
        self.baseline = self.trace
        self.diff = diff_traces(self.baseline, self.trace)
        self.whatif.set_diff(self.diff, self._baseline_label())
        self.clear_baseline_action.setEnabled(True)
        self.whatif_export.setEnabled(True)
        self.tabs.mark_baseline(True)
        self._status(f"Pinned {self._baseline_label()} as the baseline", 5000)

    def clear_baseline(self) -> None:
        self.baseline = None
        self.diff = None
        self.whatif.set_diff(None)
        self.clear_baseline_action.setEnabled(False)
        self.whatif_export.setEnabled(False)
        self.tabs.mark_baseline(False)

    def _baseline_label(self) -> str:
        return self.baseline.task_id if self.baseline is not None else ""

    def _go_to_item_id(self, item_id: str) -> None:
        self.tabs.go_to_item_id(item_id, self.baseline)

    # -- navigation ---------------------------------------------------------------------------

    def show_panel(self, name: str) -> None:
        """Bring a right-hand panel to the front: ``budget``, ``tracker``, ``session`` or ``window``."""
        self.docks.show_panel(name)

    def show_tab(self, name: str) -> None:
        self.tabs.show_tab(name)

    def current_tab(self) -> str:
        return self.tabs.current_tab()

    def jump_to_section(self, name: str) -> None:
        self.tabs.jump_to_section(name)

    def jump_to_item(self, item: Item) -> None:
        self.tabs.jump_to_item(item)

    def focus_search(self) -> None:
        self.docks.focus_search()

    def focus_outline(self) -> None:
        self.docks.focus_outline()

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

    def _go_to_match(self, match: Match) -> None:
        self.tabs.select_candidate(match.kind, match.item_id)

    # -- findings ---------------------------------------------------------------------------------

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
        return feature_findings(self.project, feature, self.batch_totals)

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

    # -- batch pass ----------------------------------------------------------------------------

    def start_batch(self) -> None:
        """Assemble every task in the background to fill the outline's totals."""
        if self.project is not None:
            self.batch.start(self.project, self.run_settings())

    def _on_batch_totals(self, totals: list[TaskTotal]) -> None:
        for total in totals:
            self.outline.set_total(total)
        if self.current_tab() == "findings" and self.findings_tab.whole_feature.isChecked():
            self._feature_findings_timer.start()  # at most twice a second while the pass runs

    def _on_batch_finished(self) -> None:
        self._update_feature_findings()
        self.batchFinished.emit()

    # -- feature sweep ---------------------------------------------------------------------------

    def show_sweep(self) -> None:
        """Open the Feature Sweep window on the shown task's feature."""
        self.sweeps.show(self.project, self.current[0] if self.current else None, self.run_settings)

    def apply_values(self, values: dict[str, Any], text: str) -> None:
        """Set *values* (a suggested change) in the Budget panel: one undoable change, run at once."""
        refusal = self.budget.set_values(values, text)
        if refusal:
            self.problems.add_notice(f"not applied: {refusal}")
            return
        self.budget.flush()
        self._status(f"Applied {text}; Undo in the Budget panel takes it back", 6000)

    def open_at(self, feature: str, task_id: str, values: dict[str, Any]) -> None:
        """Show *task_id* with *values* (a sweep cell's budget and share) applied in the Budget panel (undoable)."""
        refusal = self.budget.set_values(values, "settings of a sweep cell")
        if refusal:
            self.problems.add_notice(f"sweep cell not applied: {refusal}")
            return
        self.budget.flush()
        self.select_task(feature, task_id)
        self.activateWindow()

    # -- export ----------------------------------------------------------------------------------

    def _set_exports_enabled(self, enabled: bool) -> None:
        for action in self.export_actions:
            action.setEnabled(enabled)

    def export_dialog(self, fmt: str) -> None:
        if self.trace is None:
            return
        path = self.exporter.ask_path(fmt, self.trace.task_id)
        if path:
            self.export_to(path, fmt)

    def export_to(self, path: str, fmt: str) -> None:
        """Write the current trace as *fmt* to *path* atomically, off the GUI thread."""
        prompt = self.tabs.prompt_view.prompt()
        shown = self.trace
        same_task = prompt is not None and shown is not None and prompt.task_id == shown.task_id
        self.exporter.export(path, fmt, shown, self.diff, prompt.to_json() if same_task and prompt else None)

    def copy_context(self) -> None:
        if self.trace is not None:
            QGuiApplication.clipboard().setText(self.trace.context)
            self._status(f"Copied {len(self.trace.context):,} characters", 4000)

    # -- recent projects, drops, closing ---------------------------------------------------------

    def _remember_project(self, path: str) -> None:
        self.store.remember_project(path)
        self._fill_recent()

    def recent_projects(self) -> list[str]:
        return self.store.recent_projects()

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        recent = self.store.recent_projects()
        for path in recent:
            action = self.recent_menu.addAction(path.replace("&", "&&"))  # a menu takes '&' for a shortcut
            action.triggered.connect(lambda _c=False, p=path: self.open_project(p))
        if not recent:
            none = self.recent_menu.addAction("(none yet)")
            none.setEnabled(False)

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
        self.store.save_window(self)
        self.session.stop_following()
        self.logs.stop()
        self.session.player.pause()
        self.budget.stop()
        self.disk.stop()
        self.batch.stop_timers()
        self._feature_findings_timer.stop()
        lanes = (
            self.load_lane,
            self.run_lane,
            self.prompt_lane,
            self.batch_lane,
            self.export_lane,
            self.session_lane,
            self.refresh_lane,
            self.compare_lane,
            self.revision_lane,
            self.sweeps.lane,
            self.sensitivity.lane,
        )
        for lane in lanes:
            lane.cancel()
        self.pool.waitForDone(10_000)
        super().closeEvent(event)
