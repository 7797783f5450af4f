"""The ``drift`` profile's refit: its fates at any budget from one walk of its cut sequence.

:class:`CutSequenceRefit` (computed's refit uses it too) finds how many cuts a budget makes by
bisection; :func:`build_refit` builds it from one run.  How and why: ``docs/sensitivity.md``
(how the refits work).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Mapping, Sequence
from types import MappingProxyType

from ctxviewer.engine.profiles.drift.run import DriftRun
from ctxviewer.engine.profiles.lookup import profile_of_run
from ctxviewer.engine.profiles.refit_contract import Refit, SpecSource, WholeRun, budget_range
from ctxviewer.engine.project.loading import Feature, Project, Task
from ctxviewer.engine.project.settings import Settings
from ctxviewer.engine.project.upstream import resolve
from ctxviewer.engine.tokens.counting import Census, get_counter
from ctxviewer.engine.trace.model import CUT_FOR_BUDGET, INCLUDED, TRUNCATED

BUDGET_ONLY: frozenset[str] = frozenset({"budget"})


class CutSequenceRefit:
    """Fates along one fixed sequence of cuts, stopped at the first state that fits the budget.

    *ids* and *base* are the trace's item ids, in the trace's order, and their statuses with
    nothing cut; ``cuts[j]`` holds the positions (in *ids*) of the items cut by cut ``j + 1``;
    ``tokens[k]`` is the whole context's count after ``k`` cuts (``len(cuts) + 1`` counts).
    A status is kept per position, not per id, and the mapping built in the trace's order, so
    an id the trace holds twice maps to its last item's status, as a dict of the trace does.
    """

    def __init__(
        self,
        ids: Sequence[str],
        base: Sequence[str],
        cuts: Sequence[Sequence[int]],
        tokens: Sequence[int],
        budgets: tuple[int, int],
    ) -> None:
        if len(ids) != len(base) or len(tokens) != len(cuts) + 1:
            raise ValueError("one status per id and one count per state (len(cuts) + 1) are needed")
        self._ids = tuple(ids)
        self._base = tuple(base)
        self._cuts = tuple(tuple(c) for c in cuts)
        self._tokens = tuple(tokens)
        self._bottom, self._top = budgets
        # The states that can be the first to fit: each count below every count before it.
        self._stops: list[int] = []
        self._negated: list[int] = []  # their counts negated: increasing, for bisect
        for k, count in enumerate(self._tokens):
            if not self._stops or count < -self._negated[-1]:
                self._stops.append(k)
                self._negated.append(-count)
        self._after: dict[int, Mapping[str, str]] = {}

    @property
    def keys(self) -> frozenset[str]:
        return BUDGET_ONLY

    @property
    def decided(self) -> frozenset[str]:
        """The items some cut removes (an id the trace holds twice counts if any of its items is cut)."""
        return frozenset(self._ids[position] for cut in self._cuts for position in cut)

    @property
    def sections(self) -> None:
        """No shares: the budget alone decides (see :attr:`Refit.sections`)."""
        return None

    @property
    def tokens(self) -> tuple[int, ...]:
        """The whole context's count after 0, 1, ... cuts (what the stop is decided on)."""
        return self._tokens

    def cuts_made(self, budget: int) -> int:
        """How many cuts a whole run makes at *budget*."""
        at = bisect_left(self._negated, -budget)  # the first stop whose count is <= budget
        return self._stops[at] if at < len(self._stops) else len(self._cuts)

    def fates(self, budget: int, shares: Mapping[str, float] | None = None) -> Mapping[str, str]:
        """Item id -> status at *budget*; *shares* are ignored (the whole context is held to the budget)."""
        made = self.cuts_made(budget)
        found = self._after.get(made)
        if found is None:
            found = self._after[made] = self._fates_after(made)
        return found

    def ceiling(self) -> int:
        """The count with nothing cut (within the accepted range): at and above it nothing is cut."""
        if not self._cuts:
            return self._bottom
        return min(self._top, max(self._bottom, self._tokens[0]))

    def _fates_after(self, made: int) -> Mapping[str, str]:
        statuses = list(self._base)
        for cut in self._cuts[:made]:
            for position in cut:
                statuses[position] = CUT_FOR_BUDGET
        return MappingProxyType(dict(zip(self._ids, statuses, strict=True)))


def build_refit(
    project: Project, feature: Feature, task: Task, settings: Settings, *, whole: WholeRun, source: SpecSource
) -> Refit:
    """The drift refit of *task* under *settings* (*feature* as ``assemble_task`` receives it).

    The engine's layers keep this module from importing the runs package, so the caller
    (``runs.sensitivity.refit_for``) passes in *whole*, the whole-run refit (``WholeRunRefit``), and *source*, the
    feature as a run reads it (``spec_source``: ``spec_feature: graph`` can name another spec
    folder).  It returns ``whole(project, feature, task, settings)``, exact but a whole run per
    call, exactly when

    * the profile that runs under *settings* is not ``drift``; or
    * the run up to trimming raises (the whole run raises the same at every budget; the
      fallback's :meth:`fates` says so).

    Otherwise the run is made once up to trimming, with the decision tokenizer (drift decides
    with the configured one), and the cut sequence is walked to its end once.
    """
    if resolve(project.fs, settings)[0] != profile_of_run(DriftRun).name:
        return whole(project, feature, task, settings)
    counter = get_counter(settings.tokenizer)
    try:
        run = DriftRun(
            project, source(feature, settings)[0], task, settings, counter, Census(False, settings.tokenizer)
        )
        run.prepare()
    except Exception:  # the whole run fails the same way: let it say how
        return whole(project, feature, task, settings)
    positions = {id(item): n for n, item in enumerate(run.items)}
    base = [item.status for item in run.items]
    for units in run.units.values():
        for unit in units:
            base[positions[id(unit.draft)]] = TRUNCATED if unit.capped else INCLUDED
    tokens = [counter.count(run.compose())]
    cuts: list[list[int]] = []
    while (taken := run.take()) is not None:
        cuts.append([positions[id(unit.draft)] for unit in taken[2]])
        tokens.append(counter.count(run.compose()))
    return CutSequenceRefit([item.id for item in run.items], base, cuts, tokens, budget_range(settings))
