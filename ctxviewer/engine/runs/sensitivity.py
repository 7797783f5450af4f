"""Exact sensitivity: at which values of each setting a task's candidates are in its context.

(The computation is being written; :func:`refit_for` is the profiles' entry point.)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial

from ctxviewer.engine.files.reading import one_pass
from ctxviewer.engine.profiles.refit import SHARE_KEYS, Refit, budget_range, with_values
from ctxviewer.engine.profiles.shaktiman.refit import build_refit as shaktiman_refit
from ctxviewer.engine.project.loading import Feature, Project, Task
from ctxviewer.engine.project.settings import Settings
from ctxviewer.engine.runs.pipeline import spec_source

RefitBuilder = Callable[[Project, Feature, Task, Settings], Refit]


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


#: Fast refits by the profile that runs (``mahabharatha`` is the seed's version; see
#: :func:`~ctxviewer.engine.runs.pipeline.run_profile`).  A profile missing here gets
#: :class:`WholeRunRefit`: exact, a whole run per budget.
REFITS: dict[str, RefitBuilder] = {
    # profiles may not import runs: the whole-run fallback and spec_source are passed in.
    "shaktiman": partial(shaktiman_refit, whole=WholeRunRefit, source=spec_source),
}


def refit_for(project: Project, feature: Feature, task: Task, settings: Settings) -> Refit:
    """The fastest refit there is for *task* under *settings*."""
    from ctxviewer.engine.runs.pipeline import run_profile

    builder = REFITS.get(run_profile(project, settings)[0])
    if builder is None:
        return WholeRunRefit(project, feature, task, settings)
    return builder(project, feature, task, settings)
