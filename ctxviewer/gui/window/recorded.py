"""An attached run's token records beside their reproduction, and opening a run's task at its recorded settings.

See docs/run-files.md (In the window) and docs/gui.md (Session).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

from PySide6.QtCore import QObject, Signal, SignalInstance

from ctxviewer.engine.project.loading import Project
from ctxviewer.engine.runfiles.rundir import RunFiles
from ctxviewer.engine.runfiles.tokenrecords import TokenRecord
from ctxviewer.engine.runs.recorded import RecordedComparison, compare_records, record_profile, recorded_values
from ctxviewer.gui.views.problems import ProblemPanel
from ctxviewer.gui.views.session import SessionPanel
from ctxviewer.gui.views.session.runwatch import RunUpdate
from ctxviewer.gui.window.state import Shown
from ctxviewer.gui.worker import Lane

NO_PROJECT = "Open the run's project (File \u25b8 Open Folder) to reproduce its recorded tasks."
NO_RECORDS = (
    "No token records in this run: zerg-ai 0.3.2 and later write state/tokens-<worker>.json "
    "as each task's context is built."
)


class RecordedFeed(QObject):
    """Compares the attached run's token records with the open project on *lane*, for *panel*'s
    Recorded page, again when the records, the project or the settings change; opens the
    run's tasks the panel asks for (:meth:`open_task`).  :attr:`compared` follows each
    comparison shown."""

    compared = Signal(object)  # RecordedComparison

    def __init__(self, lane: Lane, panel: SessionPanel, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.lane = lane
        self.panel = panel
        self._shown: Shown | None = None
        self._set_values: Callable[[dict[str, Any], str, str], bool] = lambda *_: False
        self._select: Callable[[str, str], None] = lambda feature, task: None
        self._problems: ProblemPanel | None = None
        self._records: tuple[TokenRecord, ...] = ()
        self._prefer: tuple[str, ...] = ()
        self._asked: tuple[Any, ...] | None = None
        self._run: RunFiles | None = None
        self.comparison: RecordedComparison | None = None
        panel.runUpdated.connect(self.on_run_update)
        panel.runTaskRequested.connect(self.open_task)
        lane.finished.connect(self._on_compared)
        lane.errored.connect(lambda message: panel.recorded.set_message(f"Reproducing the records failed: {message}"))

    def bind(
        self,
        shown: Shown,
        set_values: Callable[[dict[str, Any], str, str], bool],
        select: Callable[[str, str], None],
        problems: ProblemPanel,
        changed: Sequence[SignalInstance] = (),
    ) -> None:
        """The window shown, the tuner's ``set_values``, selecting a task, where notices go, and
        the signals after which the records are compared again (settings retuned, project opened)."""
        self._shown, self._set_values, self._select, self._problems = shown, set_values, select, problems
        for signal in changed:
            signal.connect(lambda *_args: self.update())

    def on_run_update(self, update: RunUpdate) -> None:
        """A poll of the run: compare again when its token records changed."""
        snapshot = update.snapshot
        run = self.panel.following_run
        if run is not self._run:  # attached anew: compare whatever the last run's were
            self._run, self._asked, self.comparison = run, None, None
        self._prefer = tuple(dict.fromkeys(row.feature for row in snapshot.workers if row.feature))
        if snapshot.token_records != self._records or self._asked is None:
            self._records = snapshot.token_records
            self.update()

    def update(self) -> None:
        """Compare the records with the open project and the settings in force (off the GUI thread)."""
        shown = self._shown
        if self.panel.following_run is None or shown is None:
            return
        project = shown.project
        if project is None:
            self._asked = ()
            self.panel.recorded.set_message(NO_PROJECT)
            return
        if not self._records:
            self._asked = ()
            self.panel.recorded.set_message(NO_RECORDS)
            return
        settings = shown.run_settings()
        asked = (project, settings, self._records, self._prefer)
        if asked == self._asked:
            return
        self._asked = asked
        records, prefer = self._records, self._prefer

        def job(cancel: threading.Event, progress: Callable[[str, float], None]) -> RecordedComparison:
            def step(done: int, total: int) -> None:
                progress(f"reproducing recorded tasks: {done:,} of {total:,}", done / max(1, total))

            return compare_records(
                project, records, settings=settings, prefer_features=prefer, cancel=cancel, progress=step
            )

        self.lane.submit(job)

    def _on_compared(self, comparison: RecordedComparison) -> None:
        if self.panel.following_run is None:
            return
        self.comparison = comparison
        self.panel.recorded.set_comparison(comparison)
        self.compared.emit(comparison)

    def open_task(self, feature: str, task_id: str, worker_id: str) -> None:
        """Show the run's task *task_id* in the window at the settings it was recorded with: the
        profile of the version that ran and the worker's id (one undoable change)."""
        shown = self._shown
        project = shown.project if shown is not None else None
        if project is None:
            self._notice(f"task {task_id} of the run: {NO_PROJECT}")
            return
        found = _find_task(project, feature, task_id)
        if found is None:
            self._notice(f"task {task_id} of the run is in none of the open project's task graphs")
            return
        values = recorded_values(self._profile(), worker_id or None)
        words = f"the recorded settings of {task_id} (W{worker_id})" if worker_id else f"the settings of {task_id}"
        if values and not self._set_values(values, words, "recorded settings not applied"):
            return
        self.panel.recorded.select_task(task_id, worker_id or None)
        self._select(found, task_id)

    def _profile(self) -> str | None:
        """The profile that reproduces the run: the comparison's, else the one its folder names."""
        if self.comparison is not None and self.comparison.profile:
            return self.comparison.profile
        run = self.panel.following_run
        layouts = run.layouts if run is not None else ()
        return next((p for p in (record_profile(f"{layout}/state") for layout in layouts) if p), None)

    def _notice(self, text: str) -> None:
        if self._problems is not None:
            self._problems.add_notice(text)


def _find_task(project: Project, feature: str, task_id: str) -> str | None:
    """The feature to open *task_id* in: *feature* when it has the task, else the first that does."""
    features = [f.name for f, task in project.tasks() if task.id == task_id]
    if feature in features:
        return feature
    return features[0] if features else None
