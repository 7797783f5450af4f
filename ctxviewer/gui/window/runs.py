"""The worker requests behind the result views: the selected task's run and prompt, and the background pass.

Nothing here touches a widget from the pool thread.  See docs/architecture.md (Threads).
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtWidgets import QLabel

from ctxviewer.engine.analysis.findings import ERROR
from ctxviewer.engine.analysis.whatif import TraceDiff, diff_traces
from ctxviewer.engine.errors import CtxViewerError
from ctxviewer.engine.files.reading import one_pass
from ctxviewer.engine.project.loading import Feature, Project, Task
from ctxviewer.engine.project.settings import Settings
from ctxviewer.engine.runs.batch import run_targets
from ctxviewer.engine.runs.pipeline import assemble_task
from ctxviewer.engine.trace.model import Trace
from ctxviewer.engine.upstream.prompt import build_prompt
from ctxviewer.engine.worker.prompt import WorkerPrompt
from ctxviewer.gui.views.findings_view import FindingRow, finding_rows, plural
from ctxviewer.gui.views.outline import TaskTotal
from ctxviewer.gui.widgets.highlighter import LexedText, display_text, lex_blocks
from ctxviewer.gui.worker import Handoff, Lane, RunState, build_frozen

#: Quiet time after a budget change before the batch pass re-runs every task.
BATCH_DELAY_MS = 800
#: After opening, the background pass waits for the first task on screen and this long more.
BATCH_AFTER_TRACE_MS = 150
#: Batch rows reach the outline in bursts at most this often (each burst repaints what it changes).
BATCH_ROWS_MS = 50
#: The pass waits for the selected task's run at most this long at the end of each stage of its tasks.
HOLD_LIMIT_S = 2.0
#: ... and this long more once the run is shown, for the paint that follows.
HOLD_AFTER_MS = 100
#: The worker's prompt for the task shown is composed this long after its trace, once the views
#: have painted (at once while the Prompt tab is shown: :meth:`TaskRun.compose_now`).
PROMPT_AFTER_MS = 150

JobFn = Callable[[threading.Event, Callable[[str, float], None]], Any]


@dataclass(frozen=True)
class Assembled:
    """What the assembly lane returns: the trace, its context lexed for display (None: left for
    after the paint, the Plugin context tab not being in sight), and its what-if diff against
    the baseline pinned when the run was asked for -- with none pinned, against the task's run
    at the project's own settings (:attr:`own`)."""

    trace: Trace
    lexed: LexedText | None
    diff: TraceDiff | None = None
    findings: tuple[FindingRow, ...] | None = None
    own: Trace | None = None


@dataclass(frozen=True)
class ComposedPrompt:
    """What the prompt lane returns: the whole prompt upstream's worker receives for the task,
    and its text lexed (None: it could not be composed from this project's files; the Prompt
    tab says why); with :attr:`context`, the shown trace's context lexed, when its run left that
    for after the paint."""

    prompt: WorkerPrompt | None
    lexed: LexedText | None = None
    context: LexedText | None = None


def assembly_job(
    project: Project,
    feat: Feature,
    task: Task,
    settings: Settings,
    baseline: Trace | None,
    own: Trace | None = None,
    lex: bool = True,
) -> JobFn:
    """The assembly lane's job for *task*: the exact run, diffed against *baseline*, its findings,
    and its context lexed when *lex*.

    With no baseline the run is diffed against the task's run at the project's own settings:
    *own* when the caller kept it from an earlier run, else assembled here (the run itself
    when *settings* are the project's).
    """

    def job(cancel: threading.Event, progress: Callable[[str, float], None]) -> Assembled:
        # One pass over the files for the whole job: each path is resolved and each file
        # stat'ed once (a run asks about many several times), as a batch does for its tasks.
        # Without collections, and what it made frozen: see build_frozen.
        return build_frozen(lambda: one_pass().run(run, cancel, progress))

    def run(cancel: threading.Event, progress: Callable[[str, float], None]) -> Assembled:
        trace = assemble_task(project, feat, task, settings, exact=True, cancel=cancel, progress=progress)
        mine = own
        if baseline is None and mine is None:
            untuned = settings == project.settings
            mine = trace if untuned else assemble_task(project, feat, task, project.settings, exact=True, cancel=cancel)
        against = baseline if baseline is not None else mine
        diff = diff_traces(against, trace) if against is not None else None
        lexed = lex_blocks(display_text(trace.context)) if lex else None
        return Assembled(trace, lexed, diff, finding_rows(trace), mine if baseline is None else None)

    return job


def prompt_job(project: Project, feat: Feature, task: Task, settings: Settings, context: str | None = None) -> JobFn:
    """The prompt lane's job for *task*, asked for once its trace is shown: the worker's whole
    prompt, lexed, and the trace's *context* lexed when given (its run left it out).  Composed
    after the run rather than in it, so the trace reaches the views without waiting for the
    lexing."""

    def job(_cancel: threading.Event, _progress: Callable[[str, float], None]) -> ComposedPrompt:
        lexed_context = lex_blocks(display_text(context)) if context is not None else None
        try:
            prompt = build_prompt(project, feat, task, settings, exact=True)
        except CtxViewerError:
            # upstream's own failures are in the prompt; ours must not cost the run
            return ComposedPrompt(None, context=lexed_context)
        return ComposedPrompt(prompt, lex_blocks(display_text(prompt.text)), lexed_context)

    return job


class TaskRun(QObject):
    """The selected task's run on *run_lane*, then the worker's prompt for it on *prompt_lane*.

    :meth:`request` asks for a task (a newer request cancels the older); :attr:`assembled`
    carries its :class:`Assembled`, after which the prompt is composed and :attr:`composed`
    carries it.  Errors come from the lanes themselves.

    The prompt waits PROMPT_AFTER_MS after the trace: composing and lexing it on the pool
    while the GUI thread paints the views made the paint wait for the interpreter lock.  The
    trace's context, unless shown at once, is lexed with it (:attr:`ComposedPrompt.context`).
    :meth:`compose_now` starts it at once (the Prompt tab shown).  A prompt never arrives for
    a task other than the one shown: a new request or trace cancels the one in flight.
    """

    assembled = Signal(object)  # Assembled
    composed = Signal(object)  # ComposedPrompt

    def __init__(self, run_lane: Lane, prompt_lane: Lane, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.run_lane = run_lane
        self.prompt_lane = prompt_lane
        #: What the prompt of the run asked for is composed from, until its trace comes.
        self._prompt_for: tuple[Project, Feature, Task, Settings] | None = None
        #: The prompt job of the trace shown, until it is submitted.
        self._prompt_due: JobFn | None = None
        self._prompt_timer = QTimer(self)
        self._prompt_timer.setSingleShot(True)
        self._prompt_timer.setInterval(PROMPT_AFTER_MS)
        self._prompt_timer.timeout.connect(self.compose_now)
        #: The last task's run at its project's own settings, by (project, its settings, feature, task).
        self._own: tuple[tuple[object, ...], Trace] | None = None
        self._asked: tuple[object, ...] | None = None
        run_lane.finished.connect(self._on_assembled)
        prompt_lane.finished.connect(self.composed)

    def request(
        self,
        project: Project,
        feat: Feature,
        task: Task,
        settings: Settings,
        baseline: Trace | None,
        lex: bool = True,
    ) -> None:
        """Assemble *task* with *settings* (diffed against *baseline*); its prompt follows the trace,
        and so does its context's lexing unless *lex* (the context shown at once)."""
        key = (id(project), project.settings, feat.name, task.id)
        own = self._own[1] if self._own is not None and self._own[0] == key else None
        self._asked = key
        # The prompt of the trace shown now is not composed: this run's trace replaces it.
        self._prompt_timer.stop()
        self._prompt_due = None
        self.run_lane.submit(assembly_job(project, feat, task, settings, baseline, own, lex))
        self._prompt_for = (project, feat, task, settings)

    def compose_now(self) -> None:
        """Compose the shown trace's prompt now, if it waits (the Prompt tab is shown)."""
        self._prompt_timer.stop()
        job, self._prompt_due = self._prompt_due, None
        if job is not None:
            self.prompt_lane.submit(job)

    def is_busy(self) -> bool:
        return self.run_lane.is_busy() or self.prompt_lane.is_busy() or self._prompt_due is not None

    def stop_timers(self) -> None:
        self._prompt_timer.stop()
        self._prompt_due = None

    def _on_assembled(self, result: Assembled) -> None:
        if result.own is not None and self._asked is not None:
            self._own = (self._asked, result.own)
        self.prompt_lane.cancel()  # the task before's: it must not arrive after this trace
        asked, self._prompt_for = self._prompt_for, None
        if asked is not None:
            self._prompt_due = prompt_job(*asked, context=result.trace.context if result.lexed is None else None)
        self.assembled.emit(result)
        if self._prompt_due is not None:
            self._prompt_timer.start()


def feature_findings(
    project: Project | None, feature: str, totals: dict[tuple[str, str], TaskTotal]
) -> tuple[tuple[FindingRow, ...], int]:
    """Every task's findings of *feature* in *totals* (from the background pass), in task order,
    and the number of its tasks the pass has not reached yet."""
    if project is None:
        return (), 0
    try:
        tasks = project.feature(feature).tasks
    except CtxViewerError:
        return (), 0
    rows: list[FindingRow] = []
    pending = 0
    for task in tasks:
        total = totals.get((feature, task.id))
        if total is None:
            pending += 1
        else:
            rows.extend(total.findings)
    return tuple(rows), pending


def pass_order(project: Project) -> list[tuple[Feature, Task]]:
    """The background pass's tasks: the first of each feature, then the rest in the project's order.

    A feature's first task reads its specs: their word tables, their paragraphs cut and counted
    exactly, the spec text of the worker's prompt counted (about twice what a task of it costs
    after that).  Done for every feature first, a click anywhere finds that work done within
    the pass's first second or two, where in the project's order a click on the last feature
    paid it until the pass got there.  Each task's trace does not depend on the order.
    Features whose task graph is broken are left out (the outline names them).
    """
    features = [f for f in project.features if f.graph_error is None and f.tasks]
    return [(f, f.tasks[0]) for f in features] + [(f, t) for f in features for t in f.tasks[1:]]


def _wait_for(go: threading.Event, cancel: threading.Event, limit_s: float) -> None:
    """Wait until *go* is set, *cancel* is, or *limit_s* have passed (a pass never stalls for good)."""
    waited = 0.0
    while not go.is_set() and not cancel.is_set() and waited < limit_s:
        go.wait(0.02)
        waited += 0.02


class BatchPass(QObject):
    """The background pass over every task: its lane, its totals, when it runs and its status line.

    :meth:`start` runs a pass at once; :meth:`schedule` after a quiet time (budget changes
    come in bursts) and :meth:`start_deferred` a moment after the first task is shown, if
    :meth:`defer_until_shown` asked for it -- both by emitting :attr:`due`, for the window
    to start it with the project and settings then in force.  The rows reach the GUI
    thread in bursts: :attr:`totalsArrived` carries each burst's new totals (already in
    :attr:`totals`); :attr:`finished` follows the last one.  *label* shows the progress.

    The pass gives way to the task the user asked for (:meth:`give_way_to`): while that
    run is in flight and until its result is painted, the pass waits at the end of the
    stage of its task it is in (the rules, the spec, the map...), not only before its next task.
    Both want the interpreter lock, and so does every Python call of the GUI thread filling
    the views: with the pass waiting, a click shows about as fast as with no pass
    (bench/README.md, The window's targets).
    """

    due = Signal()
    totalsArrived = Signal(list)  # list[TaskTotal]
    finished = Signal()

    def __init__(self, lane: Lane, label: QLabel, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.lane = lane
        self.label = label
        self.totals: dict[tuple[str, str], TaskTotal] = {}
        self._id = 0
        self._size = 0
        self._done = 0
        self._after_trace = False
        #: Clear while the selected task's run is in flight: the pass waits (see give_way_to).
        self._go = threading.Event()
        self._go.set()
        self._release_timer = QTimer(self)
        self._release_timer.setSingleShot(True)
        self._release_timer.setInterval(HOLD_AFTER_MS)
        self._release_timer.timeout.connect(self._release)
        #: Batch rows, (batch id, TaskTotal), from the pool thread to the GUI thread in bursts.
        self._rows = Handoff(self._on_rows, self, BATCH_ROWS_MS)
        self._first_timer = self._timer(BATCH_AFTER_TRACE_MS)
        self._delay_timer = self._timer(BATCH_DELAY_MS)
        lane.finished.connect(self._on_done)
        lane.errored.connect(lambda m: self.label.setText(f"batch pass failed: {m}"))

    def _timer(self, interval_ms: int) -> QTimer:
        timer = QTimer(self)
        timer.setSingleShot(True)
        timer.setInterval(interval_ms)
        timer.timeout.connect(self.due)
        return timer

    def start(self, project: Project, settings: Settings) -> None:
        """Assemble every task of *project* with *settings* in the background (replacing any pass running)."""
        self._id += 1
        batch_id = self._id
        rows = self._rows
        go = self._go
        count = sum(len(f.tasks) for f in project.features)

        def job(cancel: threading.Event, progress: Callable[[str, float], None]) -> int:
            # Exact, as a click's run is, even where the profile decides with the estimate: what
            # the pass counts and builds once per spec file (its paragraphs' items, keyed by the
            # encodings counted) is then what a click finds ready, and its findings are the
            # click's.
            # Progress is counted from the rows themselves (_on_rows): no signal per row.  The
            # tasks' own progress, at the end of each stage, is where the pass gives way.
            def between_stages(_stage: str, _fraction: float) -> None:
                _wait_for(go, cancel, HOLD_LIMIT_S)

            rows_of = run_targets(
                project,
                pass_order(project),
                settings,
                exact=True,
                cancel=cancel,
                collect_errors=True,
                progress=between_stages,
            )
            for row in rows_of:
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
                _wait_for(go, cancel, HOLD_LIMIT_S)
            return count

        self._size = count
        self._done = 0
        self.label.setText(f"batch pass: 0 of {count}")
        self.lane.submit(job)

    def give_way_to(self, lane: Lane) -> None:
        """Hold the pass while *lane* (the selected task's) runs and until its result is shown.

        The pass goes on HOLD_AFTER_MS after the lane's last signal: after the handler that
        fills the views, and after the paint it asks for (painting the tables calls Python for
        every cell shown: a pass going on meanwhile made the paint wait for the lock too).
        """
        lane.stateChanged.connect(self._on_lane_state)

    def hold_now(self) -> None:
        """Hold the pass from now, before the run for a task just asked for is submitted: the
        pass goes on HOLD_AFTER_MS later unless that run starts meanwhile (then as above)."""
        self._hold()
        self._release_timer.start()

    def _on_lane_state(self, state: RunState) -> None:
        if state in (RunState.PENDING, RunState.RUNNING):
            self._release_timer.stop()
            self._hold()
        else:
            self._release_timer.start()

    def _hold(self) -> None:
        # The rows already done wait too: filling the outline and the findings with them is
        # work for the GUI thread in the middle of the click's.
        self._go.clear()
        self._rows.pause()

    def _release(self) -> None:
        self._go.set()
        self._rows.resume()

    def is_holding(self) -> bool:
        """Whether the pass is waiting for the selected task's run."""
        return not self._go.is_set()

    def schedule(self) -> None:
        """Ask for a pass once the settings have been still for BATCH_DELAY_MS."""
        self._delay_timer.start()

    def defer_until_shown(self) -> None:
        """Hold the pass an open asks for until the first task is shown (see :meth:`start_deferred`).

        Filling every view asks Python for hundreds of cells, and each ask waits for the
        interpreter lock while a pass holds it: the window would freeze on a large project.
        """
        self._after_trace = True

    def start_deferred(self) -> None:
        """Ask for the pass an open deferred until the first task was shown (or failed),
        a moment later, once the views have painted."""
        if self._after_trace:
            self._after_trace = False
            self._first_timer.start()

    def is_settled(self) -> bool:
        """No pass running, waiting for its time, or waiting for the first task."""
        return (
            not self.lane.is_busy()
            and not self._delay_timer.isActive()
            and not self._first_timer.isActive()
            and not self._after_trace
        )

    def stop_timers(self) -> None:
        self._delay_timer.stop()
        self._first_timer.stop()
        self._release_timer.stop()
        self._release()

    def _on_rows(self, rows: list[tuple[int, TaskTotal]]) -> None:
        fresh = [total for batch_id, total in rows if batch_id == self._id]
        for total in fresh:
            self.totals[(total.feature, total.task_id)] = total
        if fresh:
            # The totals live until the next pass replaces them (then reference counting frees
            # them: no cycles).  Out of the collector's sight, as the project is: each full
            # collection during a pass would walk every total so far, holding the lock the GUI
            # thread waits for.
            gc.freeze()
            self._done += len(fresh)
            self.label.setText(f"batch pass: {self._done} of {self._size}")
            self.totalsArrived.emit(fresh)

    def _on_done(self, count: int) -> None:
        self._rows.flush()  # the last rows, before the tally
        over = sum(1 for t in self.totals.values() if t.over)
        errors = sum(1 for t in self.totals.values() if any(f.severity == ERROR for f in t.findings))
        self.label.setText(f"{plural(count, 'task')}, {over:,} over budget, {errors:,} with error findings")
        self.label.setToolTip(
            "Background pass over every task: totals in the outline, a marker on each task with findings "
            "(the Findings tab lists a whole feature's)"
        )
        self.finished.emit()
