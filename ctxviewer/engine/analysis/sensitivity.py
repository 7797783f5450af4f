"""Exact sensitivity: at which values of each setting a task's candidates are in its context.

(The computation is being written; :func:`refit_for` is the profiles' entry point.)
"""

from __future__ import annotations

from collections.abc import Callable

from ctxviewer.engine.profiles.refit import Refit, WholeRunRefit
from ctxviewer.engine.project.loading import Feature, Project, Task
from ctxviewer.engine.project.settings import Settings

RefitBuilder = Callable[[Project, Feature, Task, Settings], Refit]

#: Fast refits by the profile that runs (``mahabharatha`` is the seed's version; see
#: :func:`~ctxviewer.engine.runs.pipeline.run_profile`).  A profile missing here gets
#: :class:`WholeRunRefit`: exact, a whole run per budget.
REFITS: dict[str, RefitBuilder] = {}


def refit_for(project: Project, feature: Feature, task: Task, settings: Settings) -> Refit:
    """The fastest refit there is for *task* under *settings*."""
    from ctxviewer.engine.runs.pipeline import run_profile

    builder = REFITS.get(run_profile(project, settings)[0])
    if builder is None:
        return WholeRunRefit(project, feature, task, settings)
    return builder(project, feature, task, settings)
