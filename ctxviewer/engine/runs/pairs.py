"""Two-setting suggestions: the smallest change of two settings together that brings a candidate in,
for a candidate no single setting brings in.

:class:`PairSearch` works over a task's :class:`~ctxviewer.engine.runs.sensitivity.Sensitivity`:
each value of top_k or a switch is run once, and the budget and shares at that value go through
the refit built there; two such values together are one whole run.  What is searched, the measure
of a change's size and why: ``docs/sensitivity.md`` (two settings together).
"""

from __future__ import annotations

import heapq
import threading
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ctxviewer.engine.files.reading import one_pass
from ctxviewer.engine.profiles.base import Cancelled, Progress
from ctxviewer.engine.profiles.refit_contract import SHARE_KEYS, Refit
from ctxviewer.engine.project.loading import Feature, Project, Task
from ctxviewer.engine.project.settings import Settings
from ctxviewer.engine.runs.pipeline import assemble_task
from ctxviewer.engine.runs.sensitivity import (
    ABSENT,
    CHOICE,
    COUNT,
    SHARE,
    TOKENS,
    Axis,
    Sensitivity,
    Suggestion,
    WholeRunRefit,
    refit_for,
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
#: What the search tries next: ``("open", step, ...)`` a discrete value (run once, then its numeric
#: axes walked), ``("walk", step, (axis, ...), position, stop, direction)`` one position of a walk,
#: ``("both", step, other, ...)`` two discrete values together.
_Entry = tuple[str, _Step, _Step | None, int, int, int]


class PairSearch:
    """Two-setting suggestions for the candidates of one task (see the module docstring).

    Everything it runs is kept, so asking for many candidates of one task costs about as much
    as asking for one.  :meth:`suggestion` raises
    :class:`~ctxviewer.engine.profiles.base.Cancelled` when *cancel* is set.
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
        progress: Progress | None = None,
    ) -> None:
        self.project, self.feature, self.task, self.settings = project, feature, task, settings
        self.sens = sens
        self.cancel = cancel
        self.progress = progress
        self._pass = one_pass()
        self.numeric = [(n, a) for n, a in enumerate(sens.axes) if a.kind in NUMERIC]
        self.discrete = [(n, a) for n, a in enumerate(sens.axes) if a.kind in DISCRETE]
        ranks = [item.rank for item in trace.items if item.rank is not None]
        #: The top_k above which nothing changes (as the top_k axis has it): the last rank.
        self.last_rank = max(1, min(10_000, max(ranks, default=1)))
        self._runs: dict[tuple[_Step, ...], Trace] = {}
        self._refits: dict[_Step, Refit] = {}
        self._evaluated: dict[tuple[_Step, str, int], Mapping[str, str]] = {}
        self._answers: dict[str, PairSuggestion | None] = {}
        #: Whole runs made and refit evaluations so far.
        self.runs = 0
        self.evaluations = 0

    # -- the answer ---------------------------------------------------------------------------

    def suggestion(self, item_id: str) -> PairSuggestion | None:
        """The smallest change of two settings that brings *item_id* in, when no single setting does
        (None: it is in the context, one setting is enough, or no two settings together bring it in)."""
        if item_id in self._answers:
            return self._answers[item_id]
        sens = self.sens
        answer = None
        if sens.status(item_id) not in KEPT and sens.suggestion(item_id) is None:
            answer = self._best(item_id, whole=False) or self._best(item_id, whole=True)
        self._answers[item_id] = answer
        return answer

    def _best(self, item_id: str, whole: bool) -> PairSuggestion | None:
        """The smallest pair for *item_id*: every pair of changes is tried in the order of its size
        (a uniform-cost search over each axis walked outward from its current value), so only
        changes no larger than the answer are ever worked out, and every one that is, is exact."""
        queue: list[tuple[float, int, _Entry]] = []
        counter = iter(range(1 << 62))

        def push(size: float, entry: _Entry) -> None:
            heapq.heappush(queue, (size, next(counter), entry))

        for step in self._steps():
            push(size_of(self.sens.axes[step[0]], step[2]), ("open", step, None, 0, 0, 0))
        for (n, a_axis), (m, b_axis) in _pairs(self.discrete):
            for a_pos, a_value in _values(a_axis, self.last_rank):
                for b_pos, b_value in _values(b_axis, self.last_rank):
                    size = size_of(a_axis, a_value) + size_of(b_axis, b_value)
                    push(size, ("both", (n, a_pos, a_value), (m, b_pos, b_value), 0, 0, 0))
        best: tuple[tuple[float, int, int, int], PairSuggestion] | None = None
        while queue:
            size, _seq, (what, step, other, position, stop, direction) = heapq.heappop(queue)
            if best is not None and size > best[0][0]:
                break
            found: tuple[tuple[float, int, int, int], PairSuggestion] | None = None
            if what == "both":
                assert other is not None
                vector = {item.id: item.status for item in self._run((step, other)).items}
                if vector.get(item_id, ABSENT) in KEPT:
                    found = self._pair(item_id, vector, self._change(step), self._change(other), size, whole)
            elif what == "open":
                if _status(self._run((step,)), item_id) in KEPT:
                    continue  # one setting is enough (the single suggestion says which)
                decided = self._decided(step)
                if decided is not None and item_id not in decided:
                    continue  # no budget or share moves it at this value
                base = size
                for m, axis in self.numeric:
                    for first, last, way in self._ranges(step, axis, whole):
                        if (last - first) * way >= 0:
                            push(
                                base + size_of(axis, axis.value(first)),
                                ("walk", step, (m, first, None), first, last, way),
                            )
            else:
                assert other is not None
                m = other[0]
                axis = self.sens.axes[m]
                fates = self._fates(step, axis, position)
                if fates.get(item_id, ABSENT) in KEPT:
                    change = (m, position, axis.value(position))
                    found = self._pair(item_id, fates, self._change(step), self._change(change), size, whole)
                elif position != stop:
                    base = size_of(self.sens.axes[step[0]], step[2])
                    nxt = position + direction
                    push(base + size_of(axis, axis.value(nxt)), ("walk", step, (m, nxt, None), nxt, stop, direction))
            if found is not None and (best is None or found[0] < best[0]):
                best = found
        return None if best is None else best[1]

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

    def _refit(self, step: _Step) -> Refit:
        """The refit built at *step*'s value; the whole-run refit when it disagrees with the run there."""
        found = self._refits.get(step)
        if found is None:
            self._check()
            settings = self._settings((step,))
            found = refit_for(self.project, self.feature, self.task, settings)
            fates = found.fates(settings.budget, {k: getattr(settings, k) for k in SHARE_KEYS})
            if any(fates.get(item.id) != item.status for item in self._run((step,)).items):
                found = WholeRunRefit(self.project, self.feature, self.task, settings)
            self._refits[step] = found
        return found

    def _decided(self, step: _Step) -> frozenset[str] | None:
        """What the refit at *step*'s value decides again (None: anything may change there)."""
        return self._refit(step).decided if self.numeric else frozenset()

    def _fates(self, step: _Step, axis: Axis, position: int) -> Mapping[str, str]:
        """The fates at *step*'s value with *axis* at *position*, through the refit built there."""
        key = (step, axis.key, position)
        found = self._evaluated.get(key)
        if found is None:
            self.evaluations += 1
            if self.evaluations % 256 == 0:
                self._check()
            shares = {k: getattr(self.settings, k) for k in SHARE_KEYS}
            if axis.kind == TOKENS:
                found = self._refit(step).fates(position, shares)
            else:
                found = self._refit(step).fates(self.settings.budget, {**shares, axis.key: axis.value(position)})
            self._evaluated[key] = found
        return found

    def _check(self) -> None:
        if self.cancel is not None and self.cancel.is_set():
            raise Cancelled("two-setting suggestions")


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
