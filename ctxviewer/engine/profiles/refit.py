"""Recomputing one task's fit decisions at other budgets, without reading or scoring again.

Sensitivity ("at which budgets is this paragraph in?") needs a task's candidates' fates at
every integer budget up to the point where nothing changes any more.  A whole run reads
files, scores, counts and builds a trace: about a millisecond even with the file system
cached, far too slow for tens of thousands of budgets.  A :class:`Refit` is built once per
(project, task, settings) from what a run already worked out -- the candidates, their
order, their costs in the decision unit -- and recomputes only the decisions that depend
on the budget.

The contract every refit keeps, and that ``tests/engine/profiles/test_refit_*.py`` check
against whole runs at every integer budget on small projects:

* :meth:`Refit.fates` returns, for every item id of the trace the built settings give, the
  status (one of :data:`~ctxviewer.engine.trace.model.FATES`) a whole run
  (:func:`~ctxviewer.engine.runs.pipeline.assemble_task`) gives it with the budget (and the
  section shares named in :attr:`Refit.keys`) replaced;
* :meth:`Refit.ceiling` returns a budget at and above which :meth:`fates` (with the built
  shares) no longer changes.  It may be larger than the last change, never smaller; the
  enumeration above the current budget stops there, so keep it within a small factor of
  the truth.

:class:`WholeRunRefit` keeps the contract for any profile by running the whole pipeline in
one cached file-system pass; profiles register faster refits in
:mod:`ctxviewer.engine.analysis.sensitivity`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from ctxviewer.engine.files.reading import one_pass
from ctxviewer.engine.project.loading import Feature, Project, Task
from ctxviewer.engine.project.settings import BUDGET_RANGE, Settings

#: The settings a refit may vary besides the budget: the two section shares.
SHARE_KEYS: tuple[str, ...] = ("security_share", "spec_share")


class Refit(Protocol):
    """A task's fates as a function of its budget (and, for sectioned profiles, its shares)."""

    #: ``"budget"`` always; ``"security_share"``/``"spec_share"`` when :meth:`fates` honours them.
    @property
    def keys(self) -> frozenset[str]: ...

    def fates(self, budget: int, shares: Mapping[str, float] | None = None) -> Mapping[str, str]:
        """Item id -> status with *budget* (and *shares*, keys of :attr:`keys`) in place of the built settings'."""
        ...

    def ceiling(self) -> int:
        """A budget at and above which :meth:`fates` (with the built shares) no longer changes."""
        ...


def with_values(settings: Settings, budget: int, shares: Mapping[str, float] | None) -> Settings:
    """*settings* with *budget* and *shares* in place, unchecked (the caller keeps them in range)."""
    from dataclasses import replace

    return replace(settings, budget=budget, **dict(shares or {}))


class WholeRunRefit:
    """The contract kept the slow way: a whole run per call, files read once per refit.

    The ceiling is found by doubling from the built budget until the fates equal those at the
    largest budget ctxviewer accepts, then halving back to the smallest budget that still gives
    them.  That relies on what holds for every fit in ctxviewer's profiles: once everything
    that can fit fits, a larger budget fits it too.
    """

    def __init__(self, project: Project, feature: Feature, task: Task, settings: Settings) -> None:
        from ctxviewer.engine.project.settings import WHOLE_BUDGET_PROFILES
        from ctxviewer.engine.runs.pipeline import run_profile

        self.project, self.feature, self.task, self.settings = project, feature, task, settings
        self._pass = one_pass()
        profile = run_profile(project, settings)[0]
        sectioned = profile in ("mahabharatha", "ctxviewer") and profile not in WHOLE_BUDGET_PROFILES
        self._keys = frozenset({"budget", *(SHARE_KEYS if sectioned else ())})
        self._ceiling: int | None = None

    @property
    def keys(self) -> frozenset[str]:
        return self._keys

    def fates(self, budget: int, shares: Mapping[str, float] | None = None) -> Mapping[str, str]:
        from ctxviewer.engine.runs.pipeline import assemble_task

        settings = with_values(self.settings, budget, shares)
        trace = self._pass.run(assemble_task, self.project, self.feature, self.task, settings, exact=False)
        return {item.id: item.status for item in trace.items}

    def ceiling(self) -> int:
        if self._ceiling is None:
            top = self._top()
            target = self.fates(top)
            hi = max(1, self.settings.budget)
            while hi < top and self.fates(hi) != target:
                hi = min(top, hi * 2)
            lo = 0  # fates(lo) != target, or lo is below the range
            while hi - lo > 1:
                mid = (lo + hi) // 2
                if mid >= self._bottom() and self.fates(mid) == target:
                    hi = mid
                else:
                    lo = mid
            self._ceiling = max(hi, self._bottom())
        return self._ceiling

    def _bottom(self) -> int:
        return budget_range(self.settings)[0]

    def _top(self) -> int:
        return budget_range(self.settings)[1]


def budget_range(settings: Settings) -> tuple[int, int]:
    """The budgets ctxviewer accepts for *settings*' profile."""
    from ctxviewer.engine.project.settings import SHAKTIMAN_BUDGET_RANGE

    return SHAKTIMAN_BUDGET_RANGE if settings.profile == "shaktiman" else BUDGET_RANGE
