"""Two-setting suggestions: the smallest change of two settings together that brings a candidate in,
for a candidate no single setting brings in.

:class:`PairSearch` works over a task's :class:`~ctxviewer.engine.runs.sensitivity.Sensitivity`:
the budget with a share and the two shares from the candidate's fates along the one section
budget that decides it (the refit's ``sections``); each value of top_k or a switch run once, the
budget and shares at that value through the refit built there; two such values together one whole
run.  What is searched, the measure of a change's size and why it is exact: ``docs/sensitivity.md``
(two settings together).
"""

from __future__ import annotations

import math
import threading
from bisect import bisect_left, bisect_right
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ctxviewer.engine.files.reading import one_pass
from ctxviewer.engine.profiles.base import Cancelled
from ctxviewer.engine.profiles.refit_contract import SHARE_KEYS, Refit
from ctxviewer.engine.project.loading import Feature, Project, Task
from ctxviewer.engine.project.settings import Settings
from ctxviewer.engine.runs.pipeline import assemble_task
from ctxviewer.engine.runs.sensitivity import (
    ABSENT,
    BUDGET,
    CHOICE,
    COUNT,
    SHARE,
    TOKENS,
    Axis,
    Sensitivity,
    Suggestion,
    WholeRunRefit,
    refit_for,
    share_for,
    share_top,
    size_of,
)
from ctxviewer.engine.trace.model import KEPT, Trace

#: Axes walked by the refit (the budget and the shares) and axes whose values are whole runs.
NUMERIC, DISCRETE = (TOKENS, SHARE), (COUNT, CHOICE)


@dataclass(frozen=True)
class PairSuggestion:
    """The smallest change of two settings together that brings a candidate into the context."""

    #: The two changes, in the order of their axes, each as a one-setting :class:`Suggestion`
    #: would give it (its :attr:`~Suggestion.set_text` is what ``--set`` takes); the status and
    #: the candidates in them are those of the pair.
    changes: tuple[Suggestion, Suggestion]
    #: The candidate's status with both changes made (included or truncated).
    status: str
    #: The two changes' sizes added (:attr:`Suggestion.size` each).
    size: float
    pushes_out: tuple[str, ...]
    brings_in: tuple[str, ...]
    #: A budget outside the range the real system's config accepts (a what-if only).
    outside_range: bool = False

    @property
    def values(self) -> dict[str, Any]:
        """The two changes as ``{key: value}``."""
        return {c.key: c.value for c in self.changes}


#: A change of one axis: (the axis's index in the result, its position, the value).
_Step = tuple[int, int, Any]


@dataclass
class _Walk:
    """How far one walk along an axis has gone (:attr:`next` is the next position to work out), and
    the first position at which each candidate was in."""

    next: int
    #: The candidates the walk can bring in and has not yet (None: any).
    pending: list[str] | None
    first_in: dict[str, int] = field(default_factory=dict)
    #: The fates at the last position worked out.
    seen: Mapping[str, str] | None = None


class PairSearch:
    """Two-setting suggestions for the candidates of one task (see the module docstring).

    Everything it runs is kept, so asking for many candidates of one task costs about as much
    as asking for one.  :meth:`suggestion` raises
    :class:`~ctxviewer.engine.profiles.base.Cancelled` when *cancel* (or its own) is set.
    """

    def __init__(
        self,
        project: Project,
        feature: Feature,
        task: Task,
        settings: Settings,
        trace: Trace,
        sens: Sensitivity,
        *,
        cancel: threading.Event | None = None,
    ) -> None:
        self.project, self.feature, self.task, self.settings = project, feature, task, settings
        self.sens = sens
        self.cancel = cancel
        self._pass = one_pass()
        self.numeric = [(n, a) for n, a in enumerate(sens.axes) if a.kind in NUMERIC]
        self.discrete = [(n, a) for n, a in enumerate(sens.axes) if a.kind in DISCRETE]
        ranks = [item.rank for item in trace.items if item.rank is not None]
        #: The top_k above which nothing changes (as the top_k axis has it): the last rank.
        self.last_rank = max(1, min(10_000, max(ranks, default=1)))
        self._runs: dict[tuple[_Step, ...], Trace] = {}
        self._vectors: dict[tuple[_Step, ...], Mapping[str, str]] = {}
        self._refits: dict[_Step | None, Refit] = {}
        #: Per share key, each candidate's section budgets at which it is in (:meth:`_inside`).
        self._lines: dict[str, dict[str, list[tuple[int, int]]]] = {}
        self._ticks = 0
        self._shares = {k: getattr(settings, k) for k in SHARE_KEYS}
        self._share_values: dict[tuple[str, int], Any] = {}
        self._walks: dict[tuple[_Step, str, int, int], _Walk] = {}
        self._answers: dict[str, PairSuggestion | None] = {}
        #: The cancel token of the call in progress, per thread (jobs of a worker may overlap).
        self._local = threading.local()
        #: Whole runs made and refit evaluations so far.
        self.runs = 0
        self.evaluations = 0

    # -- the answer ---------------------------------------------------------------------------

    def known(self, item_id: str) -> bool:
        """Whether *item_id*'s answer has been worked out (so :meth:`suggestion` returns at once)."""
        return item_id in self._answers

    def suggestion(self, item_id: str, cancel: threading.Event | None = None) -> PairSuggestion | None:
        """The smallest change of two settings that brings *item_id* in, when no single setting does
        (None: it is in the context, one setting is enough, or no two settings together bring it in).

        *cancel*, for this call, in place of the search's own token (a worker's job passes its own).
        """
        if item_id in self._answers:
            return self._answers[item_id]
        self._local.cancel = cancel or self.cancel
        sens = self.sens
        answer = None
        if sens.status(item_id) not in KEPT and sens.suggestion(item_id) is None:
            answer = self._best(item_id, whole=False) or self._best(item_id, whole=True)
        self._answers[item_id] = answer
        return answer

    def _best(self, item_id: str, whole: bool) -> PairSuggestion | None:
        """The smallest pair for *item_id*.  Each discrete value, and each two together, is tried in
        the order of its own size; at a value each numeric axis is walked outward from its current
        value, no further than the smallest pair found so far allows, so a walk stops at the
        answer's size and every change it passes is worked out exactly."""
        entries: list[tuple[float, int, _Step, _Step | None]] = []
        for step in self._steps():
            entries.append((size_of(self.sens.axes[step[0]], step[2]), 0, step, None))
        for (n, a_axis), (m, b_axis) in _pairs(self.discrete):
            for a_pos, a_value in _values(a_axis, self.last_rank):
                for b_pos, b_value in _values(b_axis, self.last_rank):
                    size = size_of(a_axis, a_value) + size_of(b_axis, b_value)
                    entries.append((size, 1, (n, a_pos, a_value), (m, b_pos, b_value)))
        entries.sort(key=lambda e: (e[0], e[1]))
        best: tuple[tuple[float, int, int, int], PairSuggestion] | None = None
        for key_found in self._sectioned(item_id, whole):
            if best is None or key_found[0] < best[0]:
                best = key_found
        for lower, _kind, step, other in entries:
            if best is not None and lower > best[0][0]:
                break
            found: list[tuple[tuple[float, int, int, int], PairSuggestion]] = []
            if other is not None:  # two discrete values: one whole run
                vector = self._vector((step, other))
                if vector.get(item_id, ABSENT) in KEPT:
                    found.append(self._pair(item_id, vector, self._change(step), self._change(other), lower, whole))
            elif _status(self._run((step,)), item_id) not in KEPT:  # in already: one setting is enough
                decided = self._decided(step)
                if decided is None or item_id in decided:  # else no budget or share moves it here
                    for m, axis in self.numeric:
                        for first, last, way in self._ranges(step, axis, whole):
                            room = None if best is None else best[0][0] - lower
                            position = self._walk(step, axis, (first, last, way), item_id, room)
                            if position is None:
                                continue
                            total = lower + size_of(axis, axis.value(position))
                            fates = self._fates(step, axis, position)
                            change = (m, axis.value(position), axis)
                            found.append(self._pair(item_id, fates, self._change(step), change, total, whole))
            for key_found in found:
                if best is None or key_found[0] < best[0]:
                    best = key_found
        return None if best is None else best[1]

    # -- the budget with a share, and the two shares -------------------------------------------

    def _sectioned(self, item_id: str, whole: bool) -> list[tuple[tuple[float, int, int, int], PairSuggestion]]:
        """The smallest pairs of the budget and a share, or of the two shares, that bring *item_id*
        in, when the refit at the current settings decides it by one section budget alone (else
        none: a candidate it does not decide keeps its fate at every budget and share).

        Its fate is then ``in_context(n)`` of that section's budget *n* only.  The budget alone
        gives ``int(b * share)`` at every budget *b*, the share alone every *n* up to what the
        other share leaves; so a pair brings it in only by a share to an *n* at another budget
        (the budget and the share), or by a share past what the other leaves, the other lowered
        to make room (the two shares); the budget with the other share gives the budget's own
        section budgets.  docs/sensitivity.md (two settings together) has the argument."""
        axes = {a.key: (n, a) for n, a in self.numeric}
        if not any(a.kind == SHARE for _n, a in self.numeric):
            return []  # no share axis: the refit is not needed
        refit = self._refit(None)
        sections = refit.sections
        key = None if sections is None else sections.through.get(item_id)
        if key is None or key not in axes:
            return []
        inside = self._inside(key, item_id)
        if not inside:
            return []
        nk, share_axis = axes[key]
        other_key = next(k for k in SHARE_KEYS if k != key)
        other = axes.get(other_key)
        shares = {k: getattr(self.settings, k) for k in SHARE_KEYS}
        budget, share = self.settings.budget, shares[key]
        candidates: list[tuple[float, int, float]] = []  # (size, budget, share)
        bound: float | None = None

        def offer(size: float, at_budget: int, value: float) -> None:
            nonlocal bound
            if bound is None or size <= bound:
                candidates.append((size, at_budget, value))
                bound = size if bound is None else min(bound, size)

        # The two shares: the first section budget past what the other share leaves, the other
        # share at the largest value that leaves it (both changes grow with the section budget).
        if other is not None:
            hi = share_top(key, budget, shares)[0]
            n = _first_above(inside, hi)
            if n is not None and n <= budget:
                value = share_for(budget, n)
                room = 1.0 - value
                m = int(budget * room)
                if m > 0 and share_for(budget, m) > room:
                    m -= 1
                other_value = share_for(budget, m)
                size = size_of(share_axis, value) + size_of(other[1], other_value)
                offer(size, budget, value)
                two_shares = (size, value, other_value)
            else:
                two_shares = None
        else:
            two_shares = None
        # The budget and the share: at each budget, walked outward from the current one, the
        # section budgets nearest the share's own below and above; the walk ends where the
        # budget's change alone is larger than the smallest pair found.
        nb, budget_axis = axes.get(BUDGET, (-1, None))
        walks: tuple[tuple[int, int], ...] = ()
        if budget_axis is not None:
            lo, hi_b = (
                (budget_axis.lo, budget_axis.hi)
                if whole
                else (max(budget_axis.lo, budget_axis.suggest_lo), min(budget_axis.hi, budget_axis.suggest_hi))
            )
            walks = ((1, hi_b), (-1, lo))
        max_share = max(0.0, 1.0 - shares[other_key])
        first_in = inside[0][0]
        for direction, end in walks:
            assert budget_axis is not None
            at = budget + direction
            while (at - end) * direction <= 0:
                self._tick()
                change = size_of(budget_axis, at)
                if bound is not None and change > bound:
                    break
                top = int(at * max_share)
                if top < first_in:  # nothing in reach: none below, and above only from where it is
                    if direction < 0 or max_share <= 0:
                        break
                    at = max(at + 1, math.ceil(first_in / max_share) - 1)
                    continue
                here = int(at * share)
                if top > 0 and share_for(at, top) > max_share:
                    top -= 1
                for n in (_last_below(inside, here), _first_above(inside, here)):
                    if n is not None and n <= top:
                        value = share_for(at, n)
                        offer(change + size_of(share_axis, value), at, value)
                at += direction
        out = []
        for size, at_budget, value in candidates:
            if bound is not None and size > bound:
                continue
            if at_budget == budget:  # the two shares
                assert two_shares is not None and other is not None
                fates = refit.fates(budget, {key: value, other_key: two_shares[2]})
                first, second = (nk, value, share_axis), (other[0], two_shares[2], other[1])
            else:
                assert budget_axis is not None
                fates = refit.fates(at_budget, {**shares, key: value})
                first, second = (nb, at_budget, budget_axis), (nk, value, share_axis)
            self.evaluations += 1
            if fates.get(item_id, ABSENT) in KEPT:
                out.append(self._pair(item_id, fates, first, second, size, whole))
        return out

    def _inside(self, key: str, item_id: str) -> list[tuple[int, int]]:
        """The section budgets of *key* at which *item_id* is in, as ascending ``(first, last)``
        runs, the last run open (``last`` None) when it is in from the section's top on."""
        line = self._lines.get(key)
        if line is None:
            refit = self._refit(None)
            sections = refit.sections
            assert sections is not None
            ids = [i for i, k in sections.through.items() if k == key]
            top = sections.tops[key]
            other = next(k for k in SHARE_KEYS if k != key)
            line = self._lines[key] = {i: [] for i in ids}
            for n in range(top + 1):
                self._tick()
                fates = refit.fates(n, {key: 1.0, other: 0.0})
                self.evaluations += 1
                for i in ids:
                    if fates.get(i, ABSENT) in KEPT:
                        runs = line[i]
                        if runs and runs[-1][1] == n - 1:
                            runs[-1] = (runs[-1][0], n)
                        else:
                            runs.append((n, n))
            for runs in line.values():
                if runs and runs[-1][1] == top:
                    runs[-1] = (runs[-1][0], _OPEN)
        return line.get(item_id, [])

    def _tick(self) -> None:
        self._ticks += 1
        if self._ticks % 256 == 0:
            self._check()

    def _walk(self, step: _Step, axis: Axis, way: tuple[int, int, int], item_id: str, room: float | None) -> int | None:
        """The first position of the walk *way* (``(first, last, direction)``) along *axis* at *step*'s
        value at which *item_id* is in, no further than *room* (a size; None: no limit).

        A walk is shared by every candidate: the positions it has passed are kept with the first
        position at which each candidate was in, so it goes on from where it stopped."""
        first, last, direction = way
        # A walk is the same sequence of positions whatever its end: walks from one start in one
        # direction (inside the suggestion range, then the whole range) share one record.
        walk = self._walks.get((step, axis.key, first, direction))
        if walk is None:
            # Only what the refit decides can come in along the walk (None: anything may).
            decided = self._decided(step)
            walk = self._walks[(step, axis.key, first, direction)] = _Walk(
                first, None if decided is None else sorted(decided)
            )
        refit, shares, budget = self._refit(step), self._shares, self.settings.budget
        tokens = axis.kind == TOKENS
        first_in = walk.first_in
        while True:
            found = first_in.get(item_id)
            if found is not None:
                if (found - last) * direction > 0:
                    return None
                return found if room is None or size_of(axis, self._value(axis, found)) <= room else None
            position = walk.next
            if (position - last) * direction > 0:
                return None
            value = position if tokens else self._value(axis, position)
            if room is not None and size_of(axis, value) > room:
                return None
            # As _fates, inline: this loop is where the search spends its time.
            self.evaluations += 1
            if self.evaluations % 256 == 0:
                self._check()
            fates = refit.fates(position, shares) if tokens else refit.fates(budget, {**shares, axis.key: value})
            walk.next = position + direction
            if fates is walk.seen:  # the refit gave the same fates as at the position before
                continue
            walk.seen = fates
            if walk.pending is None:
                for other, status in fates.items():
                    if status in KEPT and other not in first_in:
                        first_in[other] = position
            else:
                get = fates.get
                came = [other for other in walk.pending if get(other, ABSENT) in KEPT]
                if came:
                    first_in.update(dict.fromkeys(came, position))
                    walk.pending = [other for other in walk.pending if other not in first_in]

    def _change(self, step: _Step) -> tuple[int, Any, Axis]:
        n, _position, value = step
        return n, value, self.sens.axes[n]

    def _ranges(self, step: _Step, axis: Axis, whole: bool) -> list[tuple[int, int, int]]:
        """Where *axis* is walked at *step*'s value: ``(first, last, direction)`` below and above the
        current position, inside the suggestion range unless *whole*; every budget above the refit's
        ceiling there has the ceiling's fates, so the walk stops at it."""
        here = axis.position_of_current()
        lo, hi = (axis.lo, axis.hi) if whole else (max(axis.lo, axis.suggest_lo), min(axis.hi, axis.suggest_hi))
        if axis.kind == TOKENS:
            hi = min(hi, max(axis.lo, self._refit(step).ceiling()))
        return [(min(here - 1, hi), lo, -1), (max(here + 1, lo), hi, 1)]

    def _pair(
        self,
        item_id: str,
        vector: Mapping[str, str],
        first: tuple[int, Any, Axis],
        second: tuple[int, Any, Axis],
        total: float,
        whole: bool,
    ) -> tuple[tuple[float, int, int, int], PairSuggestion]:
        sens = self.sens
        now = sens.vectors[sens.current]
        out = tuple(
            i for i, a in zip(sens.item_ids, now, strict=True) if a in KEPT and vector.get(i, ABSENT) not in KEPT
        )
        into = tuple(
            i
            for i, a in zip(sens.item_ids, now, strict=True)
            if i != item_id and a not in KEPT and vector.get(i, ABSENT) in KEPT
        )
        status = vector[item_id]
        (n, a_value, a_axis), (m, b_value, b_axis) = sorted((first, second), key=lambda c: c[0])
        changes = (
            Suggestion(a_axis.key, a_value, status, size_of(a_axis, a_value), out, into, whole),
            Suggestion(b_axis.key, b_value, status, size_of(b_axis, b_value), out, into, whole),
        )
        return (total, len(out), n, m), PairSuggestion(changes, status, total, out, into, whole)

    # -- what is run, once each ---------------------------------------------------------------

    def _steps(self) -> list[_Step]:
        """Every value of every discrete axis but the current one, smallest changes first."""
        steps = [(n, position, value) for n, axis in self.discrete for position, value in _values(axis, self.last_rank)]
        return sorted(steps, key=lambda s: (size_of(self.sens.axes[s[0]], s[2]), s[0], s[1]))

    def _settings(self, steps: Sequence[_Step]) -> Settings:
        return replace(self.settings, **{self.sens.axes[n].key: value for n, _position, value in steps})

    def _run(self, steps: tuple[_Step, ...]) -> Trace:
        found = self._runs.get(steps)
        if found is None:
            self._check()
            settings = self._settings(steps)
            found = self._runs[steps] = self._pass.run(
                assemble_task, self.project, self.feature, self.task, settings, exact=False
            )
            self.runs += 1
        return found

    def _vector(self, steps: tuple[_Step, ...]) -> Mapping[str, str]:
        found = self._vectors.get(steps)
        if found is None:
            found = self._vectors[steps] = {item.id: item.status for item in self._run(steps).items}
        return found

    def _refit(self, step: _Step | None) -> Refit:
        """The refit built at *step*'s value (None: the current settings); the whole-run refit when
        it disagrees with the run there."""
        found = self._refits.get(step)
        if found is None:
            self._check()
            steps = () if step is None else (step,)
            settings = self._settings(steps)
            found = refit_for(self.project, self.feature, self.task, settings)
            fates = found.fates(settings.budget, {k: getattr(settings, k) for k in SHARE_KEYS})
            if any(fates.get(item.id) != item.status for item in self._run(steps).items):
                found = WholeRunRefit(self.project, self.feature, self.task, settings)
            self._refits[step] = found
        return found

    def _decided(self, step: _Step) -> frozenset[str] | None:
        """What the refit at *step*'s value decides again (None: anything may change there)."""
        return self._refit(step).decided if self.numeric else frozenset()

    def _fates(self, step: _Step, axis: Axis, position: int) -> Mapping[str, str]:
        """The fates at *step*'s value with *axis* at *position*, through the refit built there."""
        self.evaluations += 1
        if self.evaluations % 256 == 0:
            self._check()
        if axis.kind == TOKENS:
            return self._refit(step).fates(position, self._shares)
        return self._refit(step).fates(self.settings.budget, {**self._shares, axis.key: self._value(axis, position)})

    def _value(self, axis: Axis, position: int) -> Any:
        """*axis*'s value at *position* (kept: a share's is worked out in decimals)."""
        if axis.kind != SHARE:
            return axis.value(position)
        found = self._share_values.get((axis.key, position))
        if found is None:
            found = self._share_values[(axis.key, position)] = axis.value(position)
        return found

    def _check(self) -> None:
        cancel = getattr(self._local, "cancel", None)
        if cancel is not None and cancel.is_set():
            raise Cancelled("two-setting suggestions")


#: The last run of section budgets at which a candidate is in goes on for good.
_OPEN = 1 << 62


def _first_above(runs: Sequence[tuple[int, int]], n: int) -> int | None:
    """The smallest section budget above *n* in *runs* (ascending ``(first, last)``)."""
    at = bisect_right(runs, (n, _OPEN))  # the first run starting above n
    if at > 0 and runs[at - 1][1] > n:
        return n + 1
    return runs[at][0] if at < len(runs) else None


def _last_below(runs: Sequence[tuple[int, int]], n: int) -> int | None:
    """The largest section budget below *n* in *runs*."""
    at = bisect_left(runs, (n, -1))  # the first run starting at n or above
    if at == 0:
        return None
    return min(runs[at - 1][1], n - 1)


def _status(run: Trace, item_id: str) -> str:
    item = run.item(item_id)
    return ABSENT if item is None else item.status


def _values(axis: Axis, last: int) -> list[tuple[int, Any]]:
    """The positions and values of a discrete axis that change something, but the current one:
    every top_k up to *last* (above it every top_k gives the same), every other value of a switch."""
    here = axis.position_of_current()
    if axis.kind == CHOICE:
        return [(n, value) for n, value in enumerate(axis.choices) if n != here]
    return [(k, k) for k in range(axis.lo, last + 1) if k != here and not (here > last and k == last)]


def _pairs(axes: Sequence[tuple[int, Axis]]) -> Iterator[tuple[tuple[int, Axis], tuple[int, Axis]]]:
    for x, first in enumerate(axes):
        for second in axes[x + 1 :]:
            yield first, second


def suggestion_entry(sens: Sensitivity, item_id: str, pair: PairSuggestion | None) -> dict[str, Any]:
    """*item_id*'s smallest change as plain data (the HTML report's): ``changes`` (each ``key``,
    ``value`` and ``set``, as ``--set`` takes it; empty when none), ``status``, ``size``,
    ``outside_range``, ``pushes_out``, ``brings_in``.  *pair* is its two-setting change, used
    when no single setting brings it in."""
    one = sens.suggestion(item_id)
    changes: Sequence[Suggestion] = (one,) if one is not None else pair.changes if pair is not None else ()
    found: Suggestion | PairSuggestion | None = one if one is not None else pair
    return {
        "changes": [{"key": c.key, "value": c.value, "set": c.set_text} for c in changes],
        "status": None if found is None else found.status,
        "size": None if found is None else round(found.size, 4),
        "outside_range": None if found is None else found.outside_range,
        "pushes_out": [] if found is None else list(found.pushes_out),
        "brings_in": [] if found is None else list(found.brings_in),
    }
