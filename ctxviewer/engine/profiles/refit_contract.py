"""Recomputing one task's fit decisions at other budgets, without reading or scoring again.

Sensitivity ("at which budgets is this paragraph in?") needs a task's candidates' fates at
every integer budget up to the point where nothing changes any more.  A whole run reads
files, scores, counts and builds a trace: about a millisecond even with the file system
cached, far too slow for tens of thousands of budgets.  A :class:`Refit` is built once per
(project, task, settings) from what a run already worked out -- the candidates, their
order, their costs in the decision unit -- and recomputes only the decisions that depend
on the budget.

The contract every refit keeps, and that ``tests/engine/profiles/*/test_refit.py`` check
against whole runs at every integer budget on small projects:

* :meth:`Refit.fates` returns, for every item id of the trace the built settings give, the
  status (one of :data:`~ctxviewer.engine.trace.model.FATES`) a whole run
  (:func:`~ctxviewer.engine.runs.pipeline.assemble_task`) gives it with the budget (and the
  section shares named in :attr:`Refit.keys`) replaced;
* :meth:`Refit.ceiling` returns a budget at and above which :meth:`fates` (with the built
  shares) no longer changes.  It may be larger than the last change, never smaller; the
  enumeration above the current budget stops there, so keep it within a small factor of
  the truth.

:class:`~ctxviewer.engine.runs.sensitivity.WholeRunRefit` keeps the contract for any profile
by running the whole pipeline in one cached file-system pass; profiles register faster refits
in :data:`ctxviewer.engine.runs.sensitivity.REFITS`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Protocol

from ctxviewer.engine.project.settings import BUDGET_RANGE, SHAKTIMAN_BUDGET_RANGE, Settings

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


def with_values(settings: Settings, budget: int, shares: Mapping[str, float] | None = None) -> Settings:
    """*settings* with *budget* and *shares* in place, unchecked (the caller keeps them in range)."""
    shares = shares or {}
    return replace(
        settings,
        budget=budget,
        security_share=shares.get("security_share", settings.security_share),
        spec_share=shares.get("spec_share", settings.spec_share),
    )


def budget_range(settings: Settings) -> tuple[int, int]:
    """The budgets ctxviewer accepts for *settings*' profile."""
    return SHAKTIMAN_BUDGET_RANGE if settings.profile == "shaktiman" else BUDGET_RANGE
