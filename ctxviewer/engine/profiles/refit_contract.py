"""What a profile's refit promises: a task's fates at other budgets, without reading or scoring again.

Each profile's refit (``<package>/refit.py``, named in its registry record) keeps the
:class:`Refit` contract; ``docs/sensitivity.md`` (the refit contract) states it and says why.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Protocol

from ctxviewer.engine.project.loading import Feature, Project, Task
from ctxviewer.engine.project.settings import Settings, accepted_budgets

#: The settings a refit may vary besides the budget: the two section shares.
SHARE_KEYS: tuple[str, ...] = ("security_share", "spec_share")


@dataclass(frozen=True)
class Sections:
    """The candidates a refit decides by one section budget alone.

    For each id in :attr:`through`, its fate under :meth:`Refit.fates` is a function of
    ``int(budget * shares[key])`` alone, *key* the share it maps to, at every budget and shares
    (so ``fates(n, {key: 1.0, other: 0.0})`` gives it at section budget *n*); from the section
    budget :attr:`tops` gives for *key* on, none of those fates changes any more.
    """

    through: Mapping[str, str]
    tops: Mapping[str, int]


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

    @property
    def decided(self) -> frozenset[str] | None:
        """The item ids whose fate :meth:`fates` may give otherwise than the built run (at least
        those); every other id keeps the built run's status at every budget and share.  None:
        any may change."""
        ...

    @property
    def sections(self) -> Sections | None:
        """The candidates decided by one section budget alone (None: no shares, or none is)."""
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
    return accepted_budgets(settings.profile)


#: The whole-run refit a builder falls back to (``runs.sensitivity.WholeRunRefit``, which this
#: layer cannot import: the caller passes it in).
WholeRun = Callable[[Project, Feature, Task, Settings], Refit]
#: The feature as a run reads it, and a warning (``runs.pipeline.spec_source``, passed in likewise).
SpecSource = Callable[[Feature, Settings], tuple[Feature, str | None]]


class RefitBuilder(Protocol):
    """A profile's refit builder: its fast refit of a task, or *whole*'s where it has none to offer."""

    def __call__(
        self, project: Project, feature: Feature, task: Task, settings: Settings, *, whole: WholeRun, source: SpecSource
    ) -> Refit: ...
