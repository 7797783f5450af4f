"""The Session panel: a feature's tasks replayed through one worker's ContextTracker.

:class:`SessionPanel` plays a :class:`~ctxviewer.engine.runs.session.SessionReplay` step by
step, follows a live worker's event log (:meth:`SessionPanel.follow_log`), or, attached to a
real run (:meth:`SessionPanel.follow_run`), shows its Fleet, Timeline, Recorded and What-if
replay tabs; double-clicking a worker, an event or a recorded task emits ``runTaskRequested``.
It never recomputes a replay or a comparison: a parameter change emits ``parametersChanged``
and the window answers with :meth:`SessionPanel.set_replay`.  See docs/gui.md and docs/run-files.md.
"""

from __future__ import annotations

import html
import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from PySide6.QtCore import QModelIndex, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QHBoxLayout,
    QLabel,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from ctxviewer.engine.runfiles.rundir import RunFiles, discover_run
from ctxviewer.engine.runs.recorded import TaskComparison
from ctxviewer.engine.runs.session import ReplayStep, SessionReplay
from ctxviewer.engine.runtime.eventlog import LiveUsage, PollResult
from ctxviewer.gui.views.session.controls import ReplayControls
from ctxviewer.gui.views.session.fleet import FleetPage
from ctxviewer.gui.views.session.live import LiveLog
from ctxviewer.gui.views.session.player import ReplayPlayer
from ctxviewer.gui.views.session.plot import UsagePlot
from ctxviewer.gui.views.session.recorded import NOT_COMPARED, RecordedPage
from ctxviewer.gui.views.session.runwatch import RunFollower, RunUpdate
from ctxviewer.gui.views.session.series import PlotValue
from ctxviewer.gui.views.session.steps import StepModel, step_column_widths, step_table
from ctxviewer.gui.views.session.timeline import TimelinePage
from ctxviewer.gui.widgets.charts import Gauge, GaugeValue
from ctxviewer.gui.widgets.empty import NO_RUN
from ctxviewer.gui.widgets.models import is_dark, status_colour
from ctxviewer.gui.widgets.plaintext import plain_tip

#: While a long log is read in bounded polls, its figures, gauge and plot are redrawn at most
#: this often (each redraw costs as much as a poll; the last poll of the backlog is always shown).
CATCH_UP_SHOW_MS = 250


class SessionPanel(QWidget):
    """Replay a feature's tasks through the tracker, or follow a live worker's event log."""

    stepped = Signal(int)
    finished = Signal()
    taskActivated = Signal(str)
    parametersChanged = Signal(int, float, bool)
    liveUpdated = Signal(object)
    runUpdated = Signal(object)  # RunUpdate
    #: A task of the run to open: its feature ('' when the run does not say), its id, the worker's id.
    runTaskRequested = Signal(str, str, str)

    def __init__(
        self,
        parent: QWidget | None = None,
        *,
        timer: QTimer | Callable[[], QTimer] | None = None,
    ) -> None:
        super().__init__(parent)
        self._replay: SessionReplay | None = None
        self.live = LiveLog(self)
        self.live.pollDue.connect(self.poll_log)
        self.run = RunFollower(self)
        self.run.updated.connect(self._on_run_update)
        self.run.failed.connect(self._on_run_failed)
        #: When the live figures were last shown, and whether a poll since has not been.
        self._shown_at = 0.0
        self._unshown = False

        self.player = ReplayPlayer(self, timer=timer)
        self.player.positionChanged.connect(self._on_position)
        self.player.playingChanged.connect(self._on_playing)
        self.player.finished.connect(self.finished)

        self.header = QLabel("No feature replayed", self)
        self.header.setWordWrap(True)
        self.header.setTextFormat(Qt.TextFormat.RichText)

        self.replay_controls = ReplayControls(self)
        rc = self.replay_controls
        rc.play_button.clicked.connect(self.player.toggle)
        rc.step_button.clicked.connect(self.player.step)
        rc.reset_button.clicked.connect(self.player.reset)
        rc.speedChanged.connect(self.player.set_speed)
        rc.parametersChanged.connect(self.parametersChanged)
        # The controls under the names the window and the tests use.
        self.play_button, self.step_button, self.reset_button = rc.play_button, rc.step_button, rc.reset_button
        self.speed, self.reset_after = rc.speed, rc.reset_after
        self.tool_calls, self.tool_calls_error = rc.tool_calls, rc.tool_calls_error
        self.minutes, self.minutes_error = rc.minutes, rc.minutes_error

        # Gauge and the current task's figures.
        self.gauge = Gauge(self)
        self.gauge.setMinimumSize(150, 130)
        self.gauge.setToolTip("The tracker's estimate after the current task, against the checkpoint and zones")
        self.breakdown = QLabel(self)
        self.breakdown.setWordWrap(True)
        self.breakdown.setTextFormat(Qt.TextFormat.RichText)
        self.breakdown.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        self.breakdown.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.breakdown.setMinimumWidth(120)
        top = QHBoxLayout()
        top.setSpacing(4)
        top.addWidget(self.gauge, 5)
        top.addWidget(self.breakdown, 4)

        self.plot = UsagePlot(self)
        self.plot.pointClicked.connect(self._on_point_clicked)

        self.model = StepModel(self)
        self._fitted = True
        self.table = step_table(self.model, self)
        self.table.clicked.connect(lambda index: self.player.seek(index.row()))
        self.table.doubleClicked.connect(self._on_double_clicked)

        self.splitter = QSplitter(Qt.Orientation.Vertical, self)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.addWidget(self.plot)
        self.splitter.addWidget(self.table)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 2)

        self.live_status = QLabel(self)
        self.live_status.setTextFormat(Qt.TextFormat.PlainText)  # event names and paths from the log
        self.live_status.setWordWrap(True)
        self.live_status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.live_status.hide()

        self.whatif_note = QLabel(
            "<i>A what-if:</i> ctxviewer's tracker replayed over the project's tasks, adding file reads and "
            "tool calls real workers never count. What the run's workers did is on the Timeline tab.",
            self,
        )
        self.whatif_note.setWordWrap(True)
        self.whatif_note.hide()

        self.whatif_page = whatif = QWidget(self)
        layout = QVBoxLayout(whatif)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(6)
        layout.addWidget(self.whatif_note)
        layout.addWidget(self.header)
        layout.addWidget(self.replay_controls)
        layout.addWidget(self.live_status)
        layout.addLayout(top)
        layout.addWidget(self.splitter, 1)

        # A real run's pages, shown only while one is attached.
        self.fleet = FleetPage(self)
        self.timeline = TimelinePage(self)
        self.recorded = RecordedPage(self)
        self.fleet.chart.workerActivated.connect(self._on_worker_activated)
        self.fleet.chart.workerDoubleClicked.connect(self._on_worker_double_clicked)
        self.timeline.table.doubleClicked.connect(self._on_event_double_clicked)
        self.recorded.taskRequested.connect(self._on_recorded_requested)
        # A click on a worker shows its timeline once it is not the first of a double-click.
        self._to_timeline = QTimer(self)
        self._to_timeline.setSingleShot(True)
        self._to_timeline.setInterval(QApplication.styleHints().mouseDoubleClickInterval())
        self._to_timeline.timeout.connect(self._show_timeline)
        self.pages = QTabWidget(self)
        self.pages.setDocumentMode(True)
        self.pages.addTab(self.fleet, "Fleet")
        self.pages.addTab(self.timeline, "Timeline")
        self.pages.addTab(self.recorded, "Recorded")
        self.pages.setTabToolTip(0, "Every worker's recorded context usage against the checkpoint threshold")
        self.pages.setTabToolTip(1, "What happened to a worker, and the real tracker's arithmetic recomputed from it")
        self.pages.setTabToolTip(2, "Each recorded task's token record beside what the detected version reproduces")
        # Without a run the replay is the panel's only content, outside the tabs: a hidden tab
        # widget takes no room, so the panel keeps the replay's own minimum size.
        self._outer = QVBoxLayout(self)
        self._outer.setContentsMargins(6, 6, 6, 6)
        self._outer.addWidget(self.pages)
        self._outer.addWidget(whatif)
        self.pages.hide()
        self.set_replay(None)

    def sizeHint(self) -> QSize:
        return QSize(380, 640)

    # -- replay ------------------------------------------------------------------------------

    def replay(self) -> SessionReplay | None:
        return self._replay

    def _fit_columns(self) -> None:
        """Size the columns to their contents once a replay (the step text column stretches).

        Measured from the columns' texts (:func:`step_column_widths`) rather than by asking
        the model for every cell and role, which a new feature's replay paid on every click.
        """
        self._fitted = True
        for column, width in step_column_widths(self.table, self.model).items():
            if column != 1 and self.table.columnWidth(column) != width:
                self.table.setColumnWidth(column, width)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if not self._fitted and self.model.rowCount():
            self._fit_columns()

    def set_replay(self, replay: SessionReplay | None, *, keep_position: bool = False) -> None:
        """Show *replay* ready to play from the start (or at the same step, with *keep_position*)."""
        position = self.player.position
        self._replay = replay
        steps = replay.steps if replay is not None else ()
        self.model.set_rows(steps)
        self.model.set_position(-1)
        if steps and self.table.isVisible():
            self._fit_columns()
        else:
            self._fitted = False  # fitted when first shown
        if replay is not None:
            self.replay_controls.show_values(
                replay.tool_calls_per_task, replay.minutes_per_task, replay.reset_on_checkpoint
            )
        self._update_header()
        if self.live.following is not None:
            self.player.set_count(len(steps))
            return
        self.plot.setValue(PlotValue.from_replay(replay) if replay is not None else None, "No feature replayed")
        self.replay_controls.set_playable(bool(steps))
        self.player.set_count(len(steps))
        if keep_position and position >= 0:
            self.player.seek(min(position, len(steps) - 1))

    def current_step(self) -> ReplayStep | None:
        replay, pos = self._replay, self.player.position
        if replay is None or not 0 <= pos < len(replay.steps):
            return None
        return replay.steps[pos]

    def _gauge_value(self, tokens: int) -> GaugeValue | None:
        replay = self._replay
        if replay is None:
            return None
        return GaugeValue(tokens, replay.max_tokens, replay.threshold_percent, zones=replay.further_zones)

    def _update_header(self) -> None:
        replay = self._replay
        path = self.live.following
        if path is not None:
            self.header.setText(f"<b>Live:</b> <b>{_esc(path.name)}</b> in {_esc(str(path.parent))}")
            self.header.setToolTip(plain_tip(str(path)))
            return
        if replay is None:
            self.header.setText("No feature replayed")
            self.header.setToolTip("")
            return
        n = len(replay.steps)
        parts = [f"<b>{_esc(replay.feature)}</b> \u00b7 {n} task{'s' if n != 1 else ''}"]
        fc = replay.first_checkpoint
        if fc is not None:
            first = f"after task {fc + 1} ({_nowrap(replay.steps[fc].task_id)})"
            count = len(replay.checkpoints)
            if replay.reset_on_checkpoint and count > 1:
                parts.append(f"{count} checkpoints, the first {first}")
            else:
                parts.append(f"first checkpoint {first}")
        elif n:
            peak = max(s.usage_percent for s in replay.steps)
            parts.append(f"no checkpoint (peak {peak:.1f}%)")
        text = " \u00b7 ".join(parts)
        if replay.notes:
            count = len(replay.notes)
            text += f"<br><i>{count} note{'s' if count != 1 else ''} on the task order (hover)</i>"
        self.header.setText(text)
        self.header.setToolTip(plain_tip("\n".join(replay.notes)))

    def _on_position(self, position: int) -> None:
        if self.live.following is not None:
            return
        replay = self._replay
        self.model.set_position(position)
        self.plot.setCurrent(position)
        step = self.current_step()
        if replay is None:
            self.gauge.setValue(None)
            self.breakdown.setText("")
            return
        self.gauge.setValue(self._gauge_value(step.estimated_tokens if step else 0), animate=step is not None)
        self._show_breakdown(step)
        if step is None:
            self.table.clearSelection()
            self.table.setCurrentIndex(QModelIndex())
            self.table.scrollToTop()
            return
        index = self.model.index(position, 0)
        self.table.selectRow(position)
        self.table.scrollTo(index, QAbstractItemView.ScrollHint.EnsureVisible)
        self.stepped.emit(position)

    def _show_breakdown(self, step: ReplayStep | None) -> None:
        replay = self._replay
        if replay is None:
            self.breakdown.setText("")
            return
        n = len(replay.steps)
        if step is None:
            per = f"{replay.tool_calls_per_task} tool calls, {replay.minutes_per_task:g} min"
            self.breakdown.setText(f"Ready: {n} task{'s' if n != 1 else ''}<br>{per} each<br>Press Play or Step")
            return
        level = f" \u00b7 level {step.level}" if step.level is not None else " \u00b7 no level"
        rows = [
            f"Task {step.index + 1} of {n}{level}",
            f"<b>{_esc(step.task_id)}</b>",
            f"<b>+{step.added:,}</b> tokens:"
            "<table cellspacing='0' cellpadding='0'>"
            f"<tr><td>task&nbsp;</td><td align='right'>{step.task_tokens:,}</td>"
            f"<td>&nbsp;&nbsp;reads&nbsp;</td><td align='right'>{step.read_tokens:,}</td></tr>"
            f"<tr><td>tools&nbsp;</td><td align='right'>{step.tool_tokens:,}</td>"
            f"<td>&nbsp;&nbsp;time&nbsp;</td><td align='right'>{step.time_tokens:,}</td></tr></table>"
            f"Total {step.estimated_tokens:,} ({step.usage_percent:.1f}%)",
        ]
        if step.checkpoint:
            colour = status_colour("failed", is_dark(self.palette())).name()
            rows.append(f"<span style='color:{colour}'><b>checkpoint</b></span>")
        others = [z for z in step.zones_reached if z != "checkpoint"]
        if others:
            rows.append("reached " + _esc(", ".join(others)))
        self.breakdown.setText("<br>".join(rows))
        self.breakdown.setToolTip(
            plain_tip("\n".join(f"{f.path}: {f.tokens:,} tokens ({f.note})" for f in step.files) or "No task files")
        )

    def _on_playing(self, playing: bool) -> None:
        self.replay_controls.set_playing(playing)

    def _on_point_clicked(self, index: int) -> None:
        if self.live.following is None:
            self.player.seek(index)

    def _on_double_clicked(self, index: QModelIndex) -> None:
        rows = self.model.rows()
        if index.isValid() and index.row() < len(rows):
            self.taskActivated.emit(rows[index.row()].task_id)

    # -- parameters --------------------------------------------------------------------------
    def parameters(self) -> tuple[int, float, bool] | None:
        """The replay parameters as entered, or None when a field is invalid."""
        return self.replay_controls.parameters()

    def apply_parameters(self) -> bool:
        """Emit ``parametersChanged`` if the fields are valid and differ from the replay's."""
        return self.replay_controls.apply_parameters()

    # -- live mode ---------------------------------------------------------------------------

    @property
    def following(self) -> Path | None:
        """The event log being followed, or None."""
        return self.live.following

    @property
    def last_poll(self) -> PollResult | None:
        """What the last poll of the followed log found, or None."""
        return self.live.last_poll

    def live_usage(self) -> LiveUsage | None:
        return self.live.usage

    def set_live_limits(
        self, threshold_percent: float, max_tokens: int, zones: Sequence[tuple[str, float]] = ()
    ) -> None:
        """The tracker limits for live mode; re-reads the log when following one."""
        if self.live.set_limits(threshold_percent, max_tokens, zones):
            self.poll_log()
        else:
            usage, last = self.live.usage, self.live.last_poll
            if usage is not None and last is not None:  # only the zones changed: redraw
                self._show_live(usage, last)

    # -- a real run ----------------------------------------------------------------------------

    @property
    def following_run(self) -> RunFiles | None:
        """The real run attached, or None."""
        return self.run.following

    @property
    def last_run_update(self) -> RunUpdate | None:
        """What the last poll of the attached run found, or None."""
        return self.run.last_update

    def _show_run_pages(self, on: bool) -> None:
        """With a run: the Fleet, Timeline and What-if replay tabs; without: the replay alone."""
        whatif = self.whatif_page
        index = self.pages.indexOf(whatif)
        if on and index < 0:
            self._outer.removeWidget(whatif)
            index = self.pages.addTab(whatif, "What-if replay")
            self.pages.setTabToolTip(
                index, "ctxviewer's heuristic replay of the project's tasks: a what-if, not a record"
            )
        elif not on and index >= 0:
            self.pages.removeTab(index)
            self._outer.addWidget(whatif)
            whatif.show()
        self.pages.setVisible(on)
        self.whatif_note.setVisible(on)
        if on:
            self.pages.setCurrentIndex(0)

    def follow_run(self, path: str | os.PathLike[str] | RunFiles) -> RunFiles:
        """Attach to the real run at *path* (a project or run folder, or one of its files) and show
        its fleet; raises :class:`~ctxviewer.engine.errors.ProjectError` when nothing there is a run's."""
        run = path if isinstance(path, RunFiles) else discover_run(path)
        self.stop_following()
        self.player.pause()
        self.run.start(run)
        self._show_run_pages(True)
        self.fleet.show_fleet(None, str(run.root), "reading…")
        self.timeline.set_timelines(())
        self.recorded.set_message(NOT_COMPARED)
        return run

    def _on_run_update(self, update: RunUpdate) -> None:
        snapshot = update.snapshot
        status = f"poll {snapshot.sequence}: {update.seconds * 1000:,.0f} ms"
        if snapshot.more:
            status += ", reading on"
        if snapshot.problem_count:
            status += f"; {snapshot.problem_count:,} problem{'s' if snapshot.problem_count != 1 else ''}"
            problems = [p.describe() for p in snapshot.new_problems[-20:]]
            if problems:
                self.fleet.status.setToolTip(plain_tip("\n".join(problems)))
        self.fleet.show_fleet(update.fleet, snapshot.root, status)
        self.timeline.set_timelines(update.timelines)
        self.runUpdated.emit(update)

    def _on_run_failed(self, message: str) -> None:
        self.fleet.status.setText(f"reading the run failed: {message}")

    def _on_worker_activated(self, worker_id: str) -> None:
        self.timeline.show_worker(worker_id)
        self._to_timeline.start()

    def _show_timeline(self) -> None:
        self.pages.setCurrentWidget(self.timeline)

    def _feature_of(self, worker_id: str | None) -> str:
        update = self.run.last_update
        if update is None or worker_id is None:
            return ""
        row = next((r for r in update.snapshot.workers if r.worker_id == worker_id), None)
        return (row.feature or "") if row is not None else ""

    def worker_task(self, worker_id: str) -> str | None:
        """The task a worker is on, else the last one its events name (None: none)."""
        update = self.run.last_update
        if update is None:
            return None
        row = next((r for r in update.snapshot.workers if r.worker_id == worker_id), None)
        if row is not None and row.current_task:
            return row.current_task
        timeline = next((v for v in update.timelines if v.worker_id == worker_id), None)
        events = timeline.events if timeline is not None else ()
        return next((e.task_id for e in reversed(events) if e.task_id), None)

    def _on_worker_double_clicked(self, worker_id: str) -> None:
        self._to_timeline.stop()
        task = self.worker_task(worker_id)
        if task is not None:
            self.runTaskRequested.emit(self._feature_of(worker_id), task, worker_id)

    def _on_event_double_clicked(self, index: QModelIndex) -> None:
        rows = self.timeline.model.rows()
        if not index.isValid() or index.row() >= len(rows):
            return
        event = rows[index.row()]
        current = self.timeline.current()
        worker = event.worker_id or (current.worker_id if current is not None else None)
        if event.task_id:
            self.runTaskRequested.emit(self._feature_of(worker), event.task_id, worker or "")

    def _on_recorded_requested(self, task: TaskComparison) -> None:
        self.runTaskRequested.emit(task.feature or "", task.task_id, task.worker_id)

    # -- a worker's event log (ctxviewer's own format) ---------------------------------------

    def follow_log(self, path: str | os.PathLike[str]) -> None:
        """Follow the JSON-lines event log at *path* (replay playback pauses)."""
        self.stop_following()
        self.player.pause()
        live_path = Path(path)
        self._shown_at, self._unshown = 0.0, False
        self.live.start(live_path)
        self.replay_controls.hide()
        self.table.hide()
        self.live_status.show()
        self.live_status.setText(f"following {live_path}")
        self._update_header()
        self.plot.setValue(None, "Waiting for events")
        self.plot.setCurrent(None)
        self.poll_log()

    def stop_following(self) -> None:
        """Stop following the log or the run and show the replay again."""
        if self.run.stop():
            self._to_timeline.stop()
            self._show_run_pages(False)
            self.fleet.show_fleet(None)
            self.timeline.set_timelines(())
            self.recorded.set_message(NO_RUN)
        if not self.live.stop():
            return
        self.live_status.hide()
        self.replay_controls.show()
        self.table.show()
        replay = self._replay
        self._update_header()
        self.plot.setValue(PlotValue.from_replay(replay) if replay is not None else None, "No feature replayed")
        position = self.player.position
        self.plot.setCurrent(position)
        self.model.set_position(position)
        step = self.current_step()
        self.gauge.setValue(self._gauge_value(step.estimated_tokens if step else 0))
        self._show_breakdown(step)

    def poll_log(self) -> PollResult | None:
        """Read what the log gained since the last poll and show it; None when not following."""
        polled = self.live.poll()
        if polled is None:
            return None
        result, usage, changed = polled
        if changed and result.more and time.monotonic() - self._shown_at < CATCH_UP_SHOW_MS / 1000:
            changed, self._unshown = False, True  # catching up: shown in a moment, or once read
        elif self._unshown:
            changed, self._unshown = True, False
        if changed:
            self._shown_at = time.monotonic()
            self._show_live(usage, result)
        else:
            self.live_status.setText(self.live.status_text(result))
        if result.more:
            self.live.schedule_poll()
        if changed:
            self.liveUpdated.emit(usage)
        return result

    def _show_live(self, usage: LiveUsage, result: PollResult) -> None:
        self.live_status.setText(self.live.status_text(result))
        problems = self.live.problems
        if problems:
            self.live_status.setToolTip(plain_tip("\n".join(p.message for p in problems[-20:])))
        self.gauge.setValue(
            GaugeValue(usage.estimated_tokens, usage.max_tokens, usage.threshold_percent, zones=self.live.zones),
            animate=True,
        )
        if usage.history:
            self.plot.setValue(PlotValue.from_live(usage, self.live.zones))
        else:
            self.plot.setValue(None, "Waiting for events")
        self.plot.setCurrent(None)
        rows = [
            f"<b>{usage.estimated_tokens:,}</b> tokens ({usage.usage_percent:.1f}%)",
            f"{usage.events:,} events \u00b7 {usage.elapsed_minutes:,.1f} min",
            f"tasks {usage.tasks_executed:,} \u00b7 files {usage.files_read:,}",
            f"tool calls {usage.tool_calls:,}",
        ]
        if usage.last_task:
            rows.insert(0, f"Last task: <b>{_esc(usage.last_task)}</b>")
        if usage.first_checkpoint is not None and usage.first_checkpoint < len(usage.history):
            minutes = usage.history[usage.first_checkpoint][0]
            colour = status_colour("failed", is_dark(self.palette())).name()
            rows.append(f"<span style='color:{colour}'>checkpoint since {minutes:,.1f} min</span>")
        self.breakdown.setText("<br>".join(rows))
        self.breakdown.setToolTip("")


def _nowrap(text: str) -> str:
    """*text* escaped, kept on one line (task ids have hyphens a label would break at)."""
    return f"<span style='white-space:nowrap'>{_esc(text)}</span>"


def _esc(text: str) -> str:
    return html.escape(text, quote=False)
