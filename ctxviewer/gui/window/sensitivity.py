"""The shown task's exact sensitivity ("What would get it in?"), worked out on its lane and handed to the views.

Nothing is worked out until one of its pages has been shown; a candidate's two-setting change is
worked out, on the same lane, when a view shows a candidate no single setting brings in.  See
docs/sensitivity.md.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from PySide6.QtCore import QObject, Signal

from ctxviewer.engine.profiles.refit_contract import SHARE_KEYS
from ctxviewer.engine.project.loading import Feature, Project, Task
from ctxviewer.engine.project.settings import Settings
from ctxviewer.engine.runs.pairs import PairSearch, PairSuggestion, suggestion_entry
from ctxviewer.engine.runs.sensitivity import BUDGET, CHOICES, TOP_K, Sensitivity, merged, sensitivity
from ctxviewer.engine.trace.model import KEPT, Trace
from ctxviewer.gui.views.sensitivity_view import SensitivityView
from ctxviewer.gui.worker import JobFn, Lane

#: The axes of the second job: every one but the budget (those a profile lacks are skipped).
REST = (*SHARE_KEYS, TOP_K, *dict.fromkeys(key for table in CHOICES.values() for key, _values in table))


def sensitivity_job(
    project: Project, feat: Feature, task: Task, settings: Settings, trace: Trace, keys: Sequence[str]
) -> JobFn:
    """The lane's job: *trace*'s candidates along the axes *keys*."""

    def job(cancel: threading.Event, progress: Callable[[str, float], None]) -> Sensitivity:
        return sensitivity(project, feat, task, settings, trace, keys=list(keys), cancel=cancel, progress=progress)

    return job


@dataclass(frozen=True)
class PairAnswer:
    """What a pair job returns: *item_id*'s smallest two-setting change (None: no two settings do)."""

    item_id: str
    pair: PairSuggestion | None


def pair_job(search: PairSearch, item_id: str) -> JobFn:
    """The lane's job: the smallest change of two settings that brings *item_id* in."""

    def job(cancel: threading.Event, progress: Callable[[str, float], None]) -> PairAnswer:
        return PairAnswer(item_id, search.suggestion(item_id, cancel))

    return job


class SensitivityFeed(QObject):
    """Works out the shown task's sensitivity and keeps its views up to date.

    ``applyRequested`` carries a view's ``({key: value}, words)``; ``worked`` the whole
    result once it is in (tests and the screenshot wait for it).
    """

    applyRequested = Signal(object, str)
    worked = Signal(object)

    def __init__(self, lane: Lane, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.lane = lane
        self.views: list[SensitivityView] = []
        #: Set once a view has been shown: every shown trace is worked out from then on.
        self.wanted = False
        self._target: tuple[Project, Feature, Task, Settings] | None = None
        self._trace: Trace | None = None
        self._first: Sensitivity | None = None
        self.result: Sensitivity | None = None
        #: The two-setting search over :attr:`result` (its answers kept), and the candidate whose
        #: answer is being worked out.
        self.pairs: PairSearch | None = None
        self._pairing: str | None = None
        self.lane.progress.connect(self._on_progress)
        self.lane.finished.connect(self._on_finished)
        self.lane.errored.connect(self._on_errored)

    def add_view(self, view: SensitivityView) -> None:
        self.views.append(view)
        view.startRequested.connect(self.start)
        view.stopRequested.connect(self.stop)
        view.applyRequested.connect(self.applyRequested)
        view.pairRequested.connect(self.want_pair)

    # -- what the window tells it -----------------------------------------------------------

    def set_target(self, project: Project, feat: Feature, task: Task, settings: Settings) -> None:
        """A new run was asked for: whatever is being worked out is for a trace about to go."""
        self.lane.cancel()
        self._target = (project, feat, task, settings)
        self._trace = None
        self._first = self.result = None
        self.pairs, self._pairing = None, None
        for view in self.views:
            view.clear()

    def show_trace(self, trace: Trace) -> None:
        """The run asked for is shown: work it out if anyone is looking."""
        self._trace = trace
        if self.wanted or any(view.isVisible() for view in self.views):
            self.start()

    def start(self) -> None:
        """Work out the shown trace (unless it is being worked out or is done)."""
        self.wanted = True
        target, trace = self._target, self._trace
        if target is None or trace is None or trace.task_id != target[2].id:
            return
        if self.lane.is_busy() or self.result is not None:
            return
        self._first = None
        for view in self.views:
            view.show_computing(BUDGET, 0.0)
        self.lane.submit(sensitivity_job(*target, trace, [BUDGET]))

    def want_pair(self, item_id: str) -> None:
        """Work out *item_id*'s smallest two-setting change (once the whole result is in)."""
        if self.pairs is None or self._pairing == item_id:
            return
        self._pairing = item_id
        self.lane.submit(pair_job(self.pairs, item_id))

    def stop(self) -> None:
        if self.lane.is_busy():
            self.lane.cancel()
            for view in self.views:
                view.show_stopped()

    def stop_silently(self) -> None:
        """Cancel without a word (the window is closing)."""
        self.lane.cancel()

    def is_done(self) -> bool:
        return self.result is not None

    def report_entries(self, trace: Trace | None) -> dict[str, Mapping[str, object]] | None:
        """What the HTML report shows of *trace*'s left-out candidates: the smallest change of each
        one worked out so far (one setting, or two together once asked for); None when *trace* is
        not the one worked out."""
        result, pairs = self.result, self.pairs
        if result is None or pairs is None or trace is None or trace is not self._trace:
            return None
        out: dict[str, Mapping[str, object]] = {}
        for item_id, status in zip(result.item_ids, result.vectors[result.current], strict=True):
            if status in KEPT:
                continue
            if result.suggestion(item_id) is not None:
                out[item_id] = suggestion_entry(result, item_id, None)
            elif pairs.known(item_id):
                out[item_id] = suggestion_entry(result, item_id, pairs.suggestion(item_id))
        return out

    # -- the lane ---------------------------------------------------------------------------

    def _on_progress(self, stage: str, fraction: float) -> None:
        for view in self.views:
            view.show_computing(stage, fraction)

    def _on_finished(self, result: Sensitivity | PairAnswer) -> None:
        target, trace = self._target, self._trace
        if target is None or trace is None:
            return
        if isinstance(result, PairAnswer):
            if self._pairing == result.item_id:
                self._pairing = None
            for view in self.views:
                view.show_pair(result.item_id, result.pair)
            return
        if self._first is None:  # the budget: shown now, the rest asked for
            self._first = result
            for view in self.views:
                view.show_result(result, trace, partial=True)
            self.lane.submit(sensitivity_job(*target, trace, REST))
            return
        self.result = merged(self._first, result)
        self.pairs = PairSearch(*target, trace, self.result)
        for view in self.views:
            view.show_result(self.result, trace)
        self.worked.emit(self.result)

    def _on_errored(self, message: str) -> None:
        for view in self.views:
            view.show_error(message)
