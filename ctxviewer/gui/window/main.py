"""The inspector window: it makes its parts, binds the action table to them, and passes the shown task between them.

The parts: docs/architecture.md (The window); what the window shows: docs/gui.md.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from PySide6.QtCore import QCoreApplication, QEvent, QSettings, QTimer, Signal
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import QMainWindow, QVBoxLayout, QWidget

from ctxviewer.engine.analysis.whatif import TraceDiff
from ctxviewer.engine.errors import CtxViewerError
from ctxviewer.engine.project.loading import Project
from ctxviewer.engine.project.settings import Settings
from ctxviewer.engine.trace.model import Trace
from ctxviewer.gui.resources import app_icon
from ctxviewer.gui.views.findings_view import FindingRow, finding_rows
from ctxviewer.gui.views.problems import ProblemPanel
from ctxviewer.gui.widgets.fence import LayoutFence
from ctxviewer.gui.widgets.highlighter import LexedText
from ctxviewer.gui.widgets.models import is_dark
from ctxviewer.gui.window.actions import BY_ID, When
from ctxviewer.gui.window.baseline import Baseline
from ctxviewer.gui.window.docks import DockPanels
from ctxviewer.gui.window.export import Exporter, ShownRun
from ctxviewer.gui.window.findings import FindingsFeed
from ctxviewer.gui.window.following import Following
from ctxviewer.gui.window.header import FindingsLine, TaskHeader, effect_lines
from ctxviewer.gui.window.lanes import Lanes
from ctxviewer.gui.window.menus import build_menus, shortcuts_line
from ctxviewer.gui.window.opening import Opening
from ctxviewer.gui.window.persistence import WindowSettings
from ctxviewer.gui.window.placement import Placement
from ctxviewer.gui.window.project import ProjectOpener, load_warnings, refresh_target
from ctxviewer.gui.window.recorded import RecordedFeed
from ctxviewer.gui.window.revisions import RevisionLauncher
from ctxviewer.gui.window.runs import PROMPT_AFTER_MS, Assembled, BatchPass, ComposedPrompt, TaskRun
from ctxviewer.gui.window.sensitivity import SensitivityFeed
from ctxviewer.gui.window.session import SessionFeeds
from ctxviewer.gui.window.source import SourceLines
from ctxviewer.gui.window.status import StatusLine
from ctxviewer.gui.window.sweep import SweepLauncher
from ctxviewer.gui.window.tabs import TABS, ResultTabs
from ctxviewer.gui.window.tuning import Tuner
from ctxviewer.gui.window.window_blocks import go_to_block

#: A new feature's session replay starts this long after the first of its tasks is shown.
REPLAY_AFTER_MS = PROMPT_AFTER_MS


#: Rounds of layout requests :func:`lay_out_now` carries out: a new trace's texts set off a chain
#: six deep on a nine-section task (the notes, the tabs, the splitter, the window, ...).
LAYOUT_ROUNDS = 8


def lay_out_now() -> None:
    """Carry out, now, the layout requests the views' new texts made, and those they set off.

    A widget whose text changed asks its parent to lay out again; the parent, laid out, may
    change its own size hint and ask its parent in turn, a round of posted events each.
    Left to the event loop, the paint comes between the rounds: the window is painted with
    the notes or the header at their old heights, then laid out and painted whole again,
    twice (6-13 ms a full paint).  Done here, the first paint after a trace is its last.
    A round with nothing left to lay out costs a look at the queue.
    """
    for _ in range(LAYOUT_ROUNDS):
        QCoreApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)


class MainWindow(QMainWindow):
    """The ctxviewer inspector.

    Signals: ``projectLoaded(Project)``, ``projectRefreshed(Project)`` (after a change on
    disk, or F5), ``traceShown(Trace)``, ``batchFinished()``, ``replayShown(SessionReplay)``,
    ``exportFinished(path, error)`` (error ``''`` when it worked), ``settingsSaved(SaveResult)``.

    Methods: :meth:`open_project`, :meth:`select_task`, :meth:`show_trace`, :meth:`start_batch`,
    :meth:`run_settings`, :meth:`is_settled`.  What is shown: :attr:`project`, :attr:`current`
    (feature, task), :attr:`trace` (the window is the parts' ``Shown``).

    Parts, each reached by its name: ``tabs`` (the views, by tab name), ``docks`` (the panels),
    ``header``, ``findings_line``, ``problems``, ``status``, ``menus`` (the actions by id), ``lanes``,
    ``store`` (what is kept between sessions), ``placement``, ``opening``, ``opener``, ``runs``, ``batch``,
    ``baseline``, ``findings``, ``exporter``, ``following``, ``replays``, ``recorded``, ``sensitivity``,
    ``sweeps``, ``revisions``, ``tuner``, ``source``.
    """

    projectLoaded = Signal(object)
    traceShown = Signal(object)
    batchFinished = Signal()
    exportFinished = Signal(str, str)  # path, error ('' when it worked)
    settingsSaved = Signal(object)  # SaveResult
    replayShown = Signal(object)  # SessionReplay
    projectRefreshed = Signal(object)  # Project, after a change on disk (or F5)

    def __init__(self, settings: QSettings | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.store = WindowSettings(settings or QSettings())
        self.setWindowTitle("ctxviewer")
        self.setWindowIcon(app_icon())
        self.current: tuple[str, str] | None = None
        self.lanes = Lanes(self)
        self.runs = TaskRun(self.lanes.run, self.lanes.prompt, self)
        self.sensitivity = SensitivityFeed(self.lanes.sensitivity, self)
        self.sweeps = SweepLauncher(self.lanes.sweep, self, self)
        self.opener = ProjectOpener(self.lanes.load, self.lanes.refresh, self)
        self.exporter = Exporter(self.lanes.export, self.store, self, self._shown_run)
        self._build_parts()
        #: A new feature's session replay waits for the views' paint: on the pool meanwhile it
        #: would share the interpreter lock with the paint, and showing it lays out the docks.
        self._replay_timer = QTimer(self)
        self._replay_timer.setSingleShot(True)
        self._replay_timer.setInterval(REPLAY_AFTER_MS)
        self._replay_timer.timeout.connect(self._replay_feature)
        self.placement = Placement(self, self.store, self.docks)
        self._build_menus()
        self._connect_lanes()

    @property
    def project(self) -> Project | None:
        """The open project (None until one has loaded)."""
        return self.opener.project

    @property
    def trace(self) -> Trace | None:
        """The trace shown (None from opening a project until its first task is shown)."""
        return self.tabs.trace

    def _build_parts(self) -> None:
        self.problems = ProblemPanel(self)
        self.header = TaskHeader(self)
        #: One line under the header naming the task's findings; a click opens the Findings tab.
        self.findings_line = FindingsLine(self)
        self.tabs = tabs = ResultTabs(self.lanes.compare, self)
        central = QWidget(self)
        layout = QVBoxLayout(central)
        layout.setContentsMargins(6, 6, 6, 0)
        for widget in (self.problems, self.header, self.findings_line):
            layout.addWidget(widget)
        layout.addWidget(tabs, 1)
        # Its new texts on each task shown do not lay the docks out again (see LayoutFence).
        self.setCentralWidget(LayoutFence(central, self))
        self.docks = docks = DockPanels(self)
        self.replays = SessionFeeds(self.lanes.replay, docks.session, self)
        self.recorded = RecordedFeed(self.lanes.recorded, docks.session, self)
        self.status = StatusLine(self)
        self.batch = BatchPass(self.lanes.batch, self.status.batch_label, self)
        self.batch.give_way_to(self.lanes.run)
        self.findings = FindingsFeed(self, tabs, self.batch, self)
        self.baseline = Baseline(self, tabs, self.status, self)
        self.source = SourceLines(self, self)
        self.following = Following(self, self, docks, self.replays, self.problems, self.status)
        self.tuner = Tuner(self, self, docks.budget, self.problems, self.status)
        self.revisions = RevisionLauncher(self.lanes.revisions, self, self.status, self, self.lanes.bisect)
        self.opening = Opening(self, self.opener, self.store, self.lanes, self.problems, self.status)

        self.findings_line.linkActivated.connect(lambda _link: self.findings.show(feature=False))
        tabs.message.connect(self.status.say)
        for view in tabs.sensitivity_views.values():
            self.sensitivity.add_view(view)
        self.sensitivity.applyRequested.connect(self.tuner.apply)
        self.sweeps.openRequested.connect(self._open_sweep_cell)
        docks.outline.taskChosen.connect(self.select_task)
        docks.logs.taskRequested.connect(self.select_task)  # "Open this task's assembly"
        docks.search.matchChosen.connect(lambda match: tabs.select_candidate(match.kind, match.item_id))
        docks.window_view.blockActivated.connect(lambda name: go_to_block(name, tabs, docks, self.status.say))
        self.replays.bind(self, self.tuner.set_values, docks.budget.is_pending, self.select_task)
        docks.session.parametersChanged.connect(self.replays.on_parameters)
        docks.session.taskActivated.connect(self.replays.on_task)
        changed = (self.tuner.retuned, self.projectLoaded, self.projectRefreshed)
        self.recorded.bind(self, self.tuner.set_values, self.select_task, self.problems, changed)
        linked = (
            tabs.paragraphs,
            tabs.rules,
            docks.search.results,
            tabs.computed.entries,
            tabs.whatif.changes,
            tabs.findings.table,
        )
        for table in linked:
            table.row_actions.link(tabs.item_of, tabs.jump_to_item, self.source.show)
        tabs.context.showSource.connect(self.source.show)
        self.findings.taskRequested.connect(self.select_task)
        self.findings.itemRequested.connect(self.baseline.go_to_item)
        self.batch.due.connect(self.start_batch)
        self.batch.totalsArrived.connect(docks.outline.set_totals)
        self.batch.finished.connect(self.batchFinished)  # after the findings feed's own update
        self.tuner.retuned.connect(self._on_retuned)
        self.tuner.saved.connect(self._on_saved)
        self.projectLoaded.connect(self.sweeps.retarget)
        self.projectRefreshed.connect(self.sweeps.retarget)
        self.opener.disk.changed.connect(self.opening.refresh)

    def _build_menus(self) -> None:
        stack = self.docks.budget.undo_stack
        parts = {
            "run.undo": stack.createUndoAction(self, BY_ID["run.undo"].text),
            "run.redo": stack.createRedoAction(self, BY_ID["run.redo"].text),
            **self.docks.toggle_actions(),
        }
        slots: dict[str, Callable[[], object]] = {
            **self.exporter.commands(),
            **self.following.commands(),
            **self.baseline.commands(),
            **self.revisions.commands(),
            "file.open": self.opening.ask,
            "file.quit": self.close,
            "run.rerun": self.opening.refresh,
            "run.cancel": self.lanes.run.cancel,
            "run.batch": self.start_batch,
            "run.sweep": self.sweeps.show,
            "run.reset_budgets": self.docks.budget.reset,
            "run.save_settings": self.tuner.save,
            "view.find": self.docks.focus_search,
            "view.filter_tasks": self.docks.focus_outline,
            "view.reset_layout": self.placement.reset,
            **{f"view.tab.{name}": partial(self.tabs.show_tab, name) for name in TABS},
            "help.shortcuts": lambda: self.problems.show_messages([], [shortcuts_line(self.actions())]),
        }
        self.menus = build_menus(self, slots, parts)
        self.baseline.pinned.connect(partial(self.menus.set_condition, When.BASELINE_PINNED))
        self.following.following.connect(partial(self.menus.set_condition, When.FOLLOWING))
        self.opening.fill_recent(self.menus.recent)

    def _connect_lanes(self) -> None:
        lanes, problems, say = self.lanes, self.problems, self.status.say
        self.opener.loaded.connect(self._on_project_loaded)
        self.opener.refreshed.connect(self._on_refreshed)
        lanes.load.stateChanged.connect(lambda s: self.status.show_state("loading", s))
        self.runs.assembled.connect(self._on_assembled)
        self.runs.composed.connect(self._on_composed)
        self.tabs.currentChanged.connect(lambda _index: self._on_tab_changed())
        lanes.run.errored.connect(self._on_run_error)
        lanes.run.progress.connect(self.status.show_progress)
        lanes.run.stateChanged.connect(lambda s: self.status.show_state("assembly", s))
        lanes.refresh.errored.connect(lambda m: problems.show_messages([f"reloading failed: {m}"], []))
        self.replays.replayed.connect(lambda _replay: self._show_effect())
        self.replays.replayed.connect(self.replayShown)
        self.replays.failed.connect(lambda m: problems.show_messages([f"session replay: {m}"], []))
        self.exporter.wrote.connect(lambda path: say(f"Wrote {path}", 6000))
        self.exporter.message.connect(say)
        self.exporter.failed.connect(lambda m: problems.show_messages([f"export failed: {m}"], []))
        self.exporter.finished.connect(self.exportFinished)

    def _shown_run(self) -> ShownRun:
        return ShownRun(
            self.trace, self.baseline.diff, self.tabs.prompt.prompt(), self.sensitivity.report_entries(self.trace)
        )

    def open_project(
        self,
        path: str | Path,
        feature: str | None = None,
        task: str | None = None,
        *,
        tune: dict[str, Any] | None = None,
        compare: bool = False,
    ) -> None:
        """Load *path* off the GUI thread; then show *feature*/*task* (see :meth:`Opening.open`)."""
        self.opening.open(path, feature, task, tune=tune, compare=compare)

    def _on_project_loaded(self, project: Project, recovered: bool) -> None:
        if recovered:
            self.problems.dismiss()  # the notice that the open failed
        self.tabs.trace = None
        self.tuner.tuned = None
        self.current = None
        self.baseline.keep_for(str(project.root))
        self.tabs.compare.clear()  # the next selected task is compared
        self.replays.feature = None
        self.docks.budget.set_base(project.settings, self.tuner.take_note())
        self.docks.budget.setEnabled(True)
        self.batch.totals.clear()
        self.setWindowTitle(f"{project.name} \u2014 ctxviewer")
        self.docks.outline.set_project(project)
        self.docks.logs.follow_project(project.root)
        self.opening.remember(str(project.root))
        self.projectLoaded.emit(project)
        self.problems.show_messages([], load_warnings(project))
        target = self.opening.first_target(project)
        if target is None:
            self.header.show_no_task(project.name)
            self.status.say(f"Opened {project.root}: no task to show")
            self._watch_project()
            self.store.finish_open()
            self.start_batch()
            return
        # Replaced by "Assembled ..." once the run is done; says the open is over meanwhile
        # (and after a run that fails).
        self.status.say(f"Opened {project.root}")
        self.select_task(*target)
        self._watch_project()
        self.batch.defer_until_shown()  # the background pass starts once the first task is on screen

    def _watch_project(self) -> None:
        self.opener.disk.watch_project(self.project, self.current[0] if self.current else None)

    def _on_refreshed(self, project: Project, before: Project, changed: tuple[str, ...]) -> None:
        if project is not before:
            if project.settings != before.settings:
                self.tuner.rebase(project.settings)
            self.docks.outline.set_project(project, self.batch.totals.values())
            self.replays.feature = None
            self.status.say(f"Reloaded: {', '.join(changed)} changed on disk", 6000)
            self.batch.schedule()
        if self.current is not None:
            target = refresh_target(project, self.current)
            if target is not None:
                self.select_task(*target)
        self._watch_project()
        self.projectRefreshed.emit(project)

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
        self.batch.hold_now()  # the pass gives way from here, not only once the run is submitted
        feature_changed = self.current is None or self.current[0] != feature
        self.current = (feature, task_id)
        if feature_changed:
            self._watch_project()
        self.docks.outline.select_task(feature, task_id)
        self.store.set_last_task(project.root, feature, task_id)
        settings = self.run_settings()
        self.tabs.compare.set_target(project, feat, task, settings)
        self.sensitivity.set_target(project, feat, task, settings)
        self._replay_timer.stop()  # a replay waits for this run's trace
        lex = self.tabs.current_tab() == "context"  # else lexed after the paint, with the prompt
        self.runs.request(project, feat, task, settings, self.baseline.trace, lex)

    def run_settings(self) -> Settings:
        """The settings runs use: the tuned ones, else the project's (the panel's with none open)."""
        return self.tuner.settings_for(self.project)

    def _on_retuned(self) -> None:
        if self.current is not None:
            self.select_task(*self.current)
        self.batch.schedule()
        if self.replays.changes_replay(self.run_settings()):
            self.replays.update(keep_position=True)

    def _on_assembled(self, result: Assembled) -> None:
        self.status.hide_progress()
        self.show_trace(result.trace, result.lexed, result.diff, result.findings)
        self.sensitivity.show_trace(result.trace)
        self.tabs.show_prompt(None)  # not the task before's, while its own is composed
        if self.tabs.current_tab() == "prompt":
            self.runs.compose_now()

    def _replay_feature(self) -> None:
        if self.current is not None and self.current[0] != self.replays.feature:
            self.replays.update()

    def _on_composed(self, composed: ComposedPrompt) -> None:
        self.tabs.show_prompt(composed.prompt, composed.lexed)
        if composed.context is not None:
            self.tabs.keep_lexed_context(composed.context)

    def _on_tab_changed(self) -> None:
        if self.tabs.current_tab() == "prompt":
            self.runs.compose_now()  # the shown task's prompt, if it waits for its time

    def _on_run_error(self, message: str) -> None:
        self.status.hide_progress()
        self.problems.show_messages([message], [])
        self.store.finish_open()
        self.batch.start_deferred()

    def show_trace(
        self,
        trace: Trace,
        lexed: LexedText | None = None,
        diff: TraceDiff | None = None,
        findings: tuple[FindingRow, ...] | None = None,
    ) -> None:
        """Show a finished trace in every view (and its diff against the pinned baseline, its findings)."""
        self.tabs.trace = trace
        self.baseline.compare(trace, diff)
        self.header.show_trace(trace)
        # The findings line before the views: they size their splitters to the room left.
        rows = finding_rows(trace) if findings is None else findings
        self.findings_line.set_rows(rows, is_dark(self.palette()))
        self.tabs.set_findings_count(len(rows))
        self.tabs.show_trace(trace, lexed)
        self.docks.show_trace(trace)
        self.docks.search.set_trace(trace)
        self.docks.budget.show_trace(trace)  # what "auto" detected, for the Upstream box
        self.findings.show_task(trace, rows)
        self.problems.show_messages([e.one_line() for e in trace.errors], list(trace.warnings))
        self.menus.set_condition(When.TRACE_SHOWN, True)
        self.status.say(f"Assembled {trace.task_id}", 4000)
        self._show_effect()
        if trace.feature != self.replays.feature:
            self._replay_timer.start()  # the Session panel's replay of the new feature, after the paint
        self.store.finish_open()
        lay_out_now()
        self.traceShown.emit(trace)
        self.batch.start_deferred()
        self.opening.run_startup(self.baseline.pin, self.tuner.apply_command_line)

    def is_settled(self) -> bool:
        """Whether everything asked for is shown: no run, batch or pending change in flight."""
        session = self.docks.session
        return (
            self.trace is not None
            and self.opening.startup == ({}, False)
            and not self.runs.is_busy()
            and self.batch.is_settled()
            and not self.docks.budget.is_pending()
            and not self.lanes.replay.is_busy()
            and not self._replay_timer.isActive()
            and not self.lanes.recorded.is_busy()
            and (session.following_run is None or session.last_run_update is not None)
            and self.tabs.compare.is_settled()
        )

    def _show_effect(self) -> None:  # the Budget panel's summary of what the settings do
        self.docks.budget.show_effect(effect_lines(self.trace, self.docks.session.replay()))

    def start_batch(self) -> None:
        """Assemble every task in the background to fill the outline's totals."""
        if self.project is not None:
            self.batch.start(self.project, self.run_settings())

    def _open_sweep_cell(self, feature: str, task_id: str, values: dict[str, Any]) -> None:
        """Show *task_id* with *values* (a sweep cell's budget and share) applied in the Budget panel (undoable)."""
        if self.tuner.set_values(values, "settings of a sweep cell", "sweep cell not applied"):
            self.select_task(feature, task_id)
            self.activateWindow()

    def _on_saved(self, result: object) -> None:
        self.settingsSaved.emit(result)
        if self.project is not None:
            self.open_project(self.project.root, *(self.current or (None, None)))

    def closeEvent(self, event: QCloseEvent) -> None:
        self.placement.save()
        self.store.flush()
        self.docks.stop()
        self.opener.disk.stop()
        self.batch.stop_timers()
        self.runs.stop_timers()
        self._replay_timer.stop()
        self.findings.timer.stop()
        self.lanes.close()
        super().closeEvent(event)
