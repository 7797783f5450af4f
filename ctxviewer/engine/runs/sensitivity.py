"""Exact sensitivity: at which values of each setting a task's candidates are in its context.

:func:`sensitivity` walks every axis, holding the other settings: the budget and the shares
through the refit of the profile that runs (:func:`refit_for`), top_k and the switches by
whole runs; :func:`check_work` first refuses more than :data:`MAX_REFIT_EVALUATIONS` or
:data:`MAX_WHOLE_RUNS`; :meth:`Sensitivity.suggestion` names the smallest change that brings
a candidate in.  What is computed, the limits and why: ``docs/sensitivity.md``.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from decimal import ROUND_CEILING, Decimal
from typing import Any

from ctxviewer.engine.errors import SettingsError
from ctxviewer.engine.files.reading import one_pass
from ctxviewer.engine.profiles.base import Cancelled, Progress
from ctxviewer.engine.profiles.lookup import refit_builder
from ctxviewer.engine.profiles.refit_contract import SHARE_KEYS, Refit, budget_range, with_values
from ctxviewer.engine.project.loading import Feature, Project, Task
from ctxviewer.engine.project.settings import SWITCH_KEYS, SYSTEM_BUDGET_RANGE, Settings, show_setting
from ctxviewer.engine.registry import REGISTRY, SHARES, Choice, profile_of
from ctxviewer.engine.runs.pipeline import assemble_task, run_profile, spec_source
from ctxviewer.engine.trace.model import KEPT, Trace

#: The most evaluations a fast refit may make for one task.  Measured on storefront-web's first
#: task (2-core x86_64 VM, CPython 3.11): 24 us an evaluation on ``mahabharatha``, 59 us on
#: ``ctxviewer``, so 1,000,000 is 25-60 s.  At the real system's budgets (500-20,000) a task
#: takes 2,000-30,000; the limit is reached near a budget of 800,000.
MAX_REFIT_EVALUATIONS = 1_000_000
#: The most whole runs (one assembly each, 1.4-2.3 ms) one task's sensitivity may make: as
#: many as the largest sweep (:data:`~ctxviewer.engine.runs.sweep.MAX_ASSEMBLIES`).  The
#: top_k axis alone is at most 10,000 of them.
MAX_WHOLE_RUNS = 50_000


def _whole_run(project: Project, feature: Feature, task: Task, settings: Settings, fs: Any) -> Mapping[str, str]:
    """Item id -> status of a whole run of *task* under *settings*, in the file-system pass *fs*."""
    trace = fs.run(assemble_task, project, feature, task, settings, exact=False)
    return {item.id: item.status for item in trace.items}


class WholeRunRefit:
    """The contract kept the slow way: a whole run per call, files read once per refit.

    The ceiling is found by doubling from the built budget until the fates equal those at the
    largest budget ctxviewer accepts, then halving back to the smallest budget that still gives
    them.  That relies on what holds for every fit in ctxviewer's profiles: once everything
    that can fit fits, a larger budget fits it too.
    """

    def __init__(self, project: Project, feature: Feature, task: Task, settings: Settings) -> None:
        self.project, self.feature, self.task, self.settings = project, feature, task, settings
        self._pass = one_pass()
        profile = run_profile(project, settings)[0]
        sectioned = profile_of(profile).budgeting == SHARES
        self._keys = frozenset({"budget", *(SHARE_KEYS if sectioned else ())})
        self._ceiling: int | None = None

    @property
    def keys(self) -> frozenset[str]:
        return self._keys

    @property
    def decided(self) -> None:
        """Unknown: a whole run may change any fate."""
        return None

    @property
    def sections(self) -> None:
        """Unknown: a whole run may read any section budget."""
        return None

    def fates(self, budget: int, shares: Mapping[str, float] | None = None) -> Mapping[str, str]:
        settings = with_values(self.settings, budget, shares)
        return _whole_run(self.project, self.feature, self.task, settings, self._pass)

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


def refit_for(project: Project, feature: Feature, task: Task, settings: Settings) -> Refit:
    """The fastest refit there is for *task* under *settings*: the refit of the profile that runs
    (its registry record names it), else :class:`WholeRunRefit`, exact but a whole run per budget.

    A profile's refit lives with it, below the runs, so the whole-run fallback and
    :func:`~ctxviewer.engine.runs.pipeline.spec_source` are passed in.
    """
    builder = refit_builder(run_profile(project, settings)[0])
    if builder is None:
        return WholeRunRefit(project, feature, task, settings)
    return builder(project, feature, task, settings, whole=WholeRunRefit, source=spec_source)


# -- the result ---------------------------------------------------------------------------

#: The status of a candidate a run does not have at all (another spec folder, say).
ABSENT = "absent"

BUDGET, TOP_K = "budget", "top_k"
#: How each axis is drawn and described: ``tokens`` and ``count`` are integers, ``share`` a
#: fraction, ``choice`` a list of values.
TOKENS, SHARE, COUNT, CHOICE = "tokens", "share", "count", "choice"

#: The switch axes of each profile that runs, as its registry record gives them (:attr:`Profile.choices
#: <ctxviewer.engine.registry.Profile.choices>`).
CHOICES: Mapping[str, tuple[Choice, ...]] = {p.name: p.choices for p in REGISTRY}


@dataclass(frozen=True, slots=True)
class Segment:
    """Positions *lo*..*hi* (inclusive) of an axis at which every candidate's fate is ``vectors[vector]``."""

    lo: int
    hi: int
    vector: int


@dataclass(frozen=True, slots=True)
class Span:
    """Setting values *lo*..*hi* at which one candidate has *status*.

    For ``tokens``/``count`` axes both ends are included; for ``share`` axes *hi* is the
    first share of the next span (or the largest share allowed, included); for ``choice``
    axes *lo* and *hi* are the same value.
    """

    lo: Any
    hi: Any
    status: str

    @property
    def in_context(self) -> bool:
        return self.status in KEPT


@dataclass(frozen=True)
class Axis:
    """One setting, varied alone: its positions, and the fates along them.

    Positions are integers: the budget itself, the section budget a share gives, top_k, or
    the index into :attr:`choices`.  :meth:`value` turns a position into the setting's value.
    """

    key: str
    kind: str
    current: Any
    lo: int
    hi: int
    segments: tuple[Segment, ...]
    #: ``choice`` axes: the values tried, in order.
    choices: tuple[Any, ...] = ()
    #: ``share`` axes: the budget the share is of, and the largest share allowed (the other
    #: share leaves the rest).
    of_budget: int = 0
    max_share: float = 1.0
    #: Positions a suggestion may use (the real system's budget range for upstream profiles).
    suggest_lo: int = 0
    suggest_hi: int = 0
    #: Where nothing changes any more (tokens axes): positions above it have its fates.
    ceiling: int | None = None

    def value(self, position: int) -> Any:
        if self.kind == CHOICE:
            return self.choices[position]
        if self.kind == SHARE:
            return min(share_for(self.of_budget, position), self.max_share)
        return position

    def position_of_current(self) -> int:
        if self.kind == CHOICE:
            return self.choices.index(self.current)
        if self.kind == SHARE:
            return int(self.of_budget * self.current)
        return int(self.current)

    def vector_at(self, position: int) -> int:
        lo, hi = 0, len(self.segments) - 1
        while lo < hi:
            mid = (lo + hi) // 2
            if self.segments[mid].hi < position:
                lo = mid + 1
            else:
                hi = mid
        return self.segments[lo].vector


@dataclass(frozen=True)
class Suggestion:
    """The smallest change of one setting that brings a candidate into the context."""

    key: str
    value: Any
    #: The candidate's status at the new value (included or truncated).
    status: str
    #: How big the change is: relative for numbers (|new - old| / old), 1 for a switch.
    size: float
    #: Candidates in the context now that the change leaves out, and others it brings in.
    pushes_out: tuple[str, ...]
    brings_in: tuple[str, ...]
    #: The value is outside the range the real system's config accepts (a what-if only): no
    #: value inside it brings the candidate in.
    outside_range: bool = False

    @property
    def set_text(self) -> str:
        """The change as ``--set`` takes it (a switch's value is the variable's text, as typed)."""
        if self.key in SWITCH_KEYS:
            return f"{self.key}={'null' if self.value is None else self.value}"
        return f"{self.key}={yaml_value(self.value)}"

    def describe(self) -> str:
        return f"{self.key} {show_setting(self.value)}"


@dataclass(frozen=True)
class Sensitivity:
    """Every candidate's fate along every setting that can change it, for one task."""

    task_id: str
    profile: str
    item_ids: tuple[str, ...]
    #: The distinct fate vectors seen (statuses in :attr:`item_ids` order).
    vectors: tuple[tuple[str, ...], ...]
    #: Index into :attr:`vectors` of the fates at the current settings.
    current: int
    axes: tuple[Axis, ...]
    evaluations: int
    seconds: float
    #: "fast" when a profile's refit answered the budget and shares, else "whole runs".
    method: str

    def axis(self, key: str) -> Axis | None:
        return next((a for a in self.axes if a.key == key), None)

    def _index(self, item_id: str) -> int:
        try:
            return self.item_ids.index(item_id)
        except ValueError:
            raise KeyError(item_id) from None

    def status(self, item_id: str) -> str:
        return self.vectors[self.current][self._index(item_id)]

    def strip(self, item_id: str, key: str) -> tuple[Span, ...]:
        """*item_id*'s status along axis *key*, adjacent positions with the same status merged."""
        axis = self.axis(key)
        if axis is None:
            raise KeyError(key)
        at = self._index(item_id)
        runs: list[tuple[int, int, str]] = []
        for seg in axis.segments:
            status = self.vectors[seg.vector][at]
            if runs and runs[-1][2] == status and runs[-1][1] + 1 == seg.lo:
                runs[-1] = (runs[-1][0], seg.hi, status)
            else:
                runs.append((seg.lo, seg.hi, status))
        out = []
        for lo, hi, status in runs:
            if axis.kind == SHARE:
                end = axis.max_share if hi >= axis.hi else axis.value(hi + 1)
                out.append(Span(axis.value(lo), end, status))
            else:
                out.append(Span(axis.value(lo), axis.value(hi), status))
        return tuple(out)

    def including(self, item_id: str, key: str) -> tuple[Span, ...]:
        """The spans of axis *key* at which *item_id* is in the context (whole or in part)."""
        return tuple(s for s in self.strip(item_id, key) if s.in_context)

    def suggestion(self, item_id: str) -> Suggestion | None:
        """The smallest one-setting change that brings *item_id* into the context (None: none does).

        Sizes compare across settings as relative changes (a budget from 4,000 to 4,400 and a
        share from 0.50 to 0.55 are both 10 %); a switch counts as 100 %.  Ties go to the change
        that pushes fewer candidates out, then to the earlier axis.  Budgets of upstream profiles
        stay inside the range the real system's config accepts when any change there will do;
        otherwise the nearest budget outside it is given, marked :attr:`Suggestion.outside_range`.
        """
        at = self._index(item_id)
        if self.vectors[self.current][at] in KEPT:
            return None
        return self._best(at, whole=False) or self._best(at, whole=True)

    def _best(self, at: int, whole: bool) -> Suggestion | None:
        now = self.vectors[self.current]
        best: tuple[tuple[float, int, int], Suggestion] | None = None
        for order, axis in enumerate(self.axes):
            for position in nearest_including(axis, self.vectors, at, whole):
                vector = self.vectors[axis.vector_at(position)]
                value = axis.value(position)
                size = size_of(axis, value)
                out = tuple(
                    i for i, a, b in zip(self.item_ids, now, vector, strict=True) if a in KEPT and b not in KEPT
                )
                into = tuple(
                    i
                    for n, (i, a, b) in enumerate(zip(self.item_ids, now, vector, strict=True))
                    if n != at and a not in KEPT and b in KEPT
                )
                key = (size, len(out), order)
                if best is None or key < best[0]:
                    best = (key, Suggestion(axis.key, value, vector[at], size, out, into, whole))
        return None if best is None else best[1]


def size_of(axis: Axis, value: Any) -> float:
    """How big moving *axis* to *value* is: |new - old| / old for numbers (|new| from 0), 1 for a switch."""
    if axis.kind == CHOICE:
        return 1.0
    current = float(axis.current)
    return abs(float(value) - current) / current if current else abs(float(value))


def nearest_including(axis: Axis, vectors: Sequence[tuple[str, ...]], at: int, whole: bool = False) -> list[int]:
    """The nearest positions below and above the current one where item *at* is in the context
    (within the axis's suggestion range, or, when *whole*, anywhere on it)."""
    if axis.kind == CHOICE:
        here = axis.position_of_current()
        return [n for n in range(len(axis.choices)) if n != here and vectors[axis.vector_at(n)][at] in KEPT]
    here = axis.position_of_current()
    lo, hi = (axis.lo, axis.hi) if whole else (max(axis.lo, axis.suggest_lo), min(axis.hi, axis.suggest_hi))
    below = above = None
    for seg in axis.segments:
        if vectors[seg.vector][at] not in KEPT:
            continue
        if seg.hi < here and seg.hi >= lo:
            below = min(seg.hi, hi)
        elif seg.lo > here and seg.lo <= hi and above is None:
            above = max(seg.lo, lo)
    return [p for p in (below, above) if p is not None]


def share_for(budget: int, section_budget: int) -> float:
    """The shortest decimal share *s* with ``int(budget * s) == section_budget`` (as the pipeline computes it)."""
    if budget <= 0 or section_budget <= 0:
        return 0.0
    exact = Decimal(section_budget) / Decimal(budget)
    for digits in range(2, 18):
        step = Decimal(1).scaleb(-digits)
        share = float(exact.quantize(step, rounding=ROUND_CEILING))
        if int(budget * share) == section_budget:
            return share
    share = section_budget / budget
    while int(budget * share) < section_budget:
        share = math.nextafter(share, 2.0)
    return share


def yaml_value(value: Any) -> str:
    """*value* as ``--set`` reads it back (YAML): null, true/false, numbers, quoted text."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    return f"'{value}'"


# -- the computation ----------------------------------------------------------------------


class _Collector:
    """Fate vectors seen so far, each stored once; polls the cancel token and reports progress."""

    def __init__(self, item_ids: tuple[str, ...], cancel: threading.Event | None, progress: Progress | None) -> None:
        self.item_ids = item_ids
        self.index: dict[tuple[str, ...], int] = {}
        self.vectors: list[tuple[str, ...]] = []
        self.cancel = cancel
        self.progress = progress
        self.evaluations = 0
        self._absent = (ABSENT,) * len(item_ids)
        self._last: tuple[Mapping[str, str] | None, int] = (None, 0)

    def add(self, fates: Mapping[str, str]) -> int:
        self.evaluations += 1
        if self.cancel is not None and self.evaluations % 256 == 0 and self.cancel.is_set():
            raise Cancelled("sensitivity")
        if fates is self._last[0]:  # a refit gives the same mapping again where nothing changed
            return self._last[1]
        vector = tuple(map(fates.get, self.item_ids, self._absent))
        found = self.index.get(vector)
        if found is None:
            found = self.index[vector] = len(self.vectors)
            self.vectors.append(vector)
        self._last = (fates, found)
        return found

    def report(self, stage: str, fraction: float) -> None:
        if self.progress is not None:
            self.progress(stage, fraction)


def _segments(positions: range, vector_at: Callable[[int], int], tick: Callable[[float], None]) -> list[Segment]:
    out: list[Segment] = []
    total = max(1, len(positions))
    for n, position in enumerate(positions):
        vector = vector_at(position)
        if out and out[-1].vector == vector:
            out[-1] = Segment(out[-1].lo, position, vector)
        else:
            out.append(Segment(position, position, vector))
        if n % 2048 == 0:
            tick(n / total)
    return out


def _budget_positions(refit: Refit, settings: Settings) -> tuple[int, int, int]:
    """``(bottom, ceiling, top)`` of the budget axis: positions bottom..ceiling are evaluated."""
    bottom, top = budget_range(settings)
    return bottom, max(bottom, min(top, refit.ceiling())), top


def share_top(key: str, budget: int, shares: Mapping[str, float]) -> tuple[int, float]:
    """The largest section budget share *key* can give at *budget* (positions 0..it are evaluated),
    and the largest share allowed (the other share leaves the rest)."""
    max_share = max(0.0, 1.0 - sum(v for k, v in shares.items() if k != key))
    hi = int(budget * max_share)
    if hi > 0 and share_for(budget, hi) > max_share:  # that section budget needs more than is left
        hi -= 1
    return hi, max_share


def check_work(task_id: str, budget: int, counts: Sequence[tuple[str, int, bool]]) -> None:
    """Refuse a sensitivity whose axes (``(key, evaluations, whole runs?)``) are too much work.

    Raises :class:`SettingsError` naming the axes' sizes, their sum and the limit, when the fast
    refit's evaluations are over :data:`MAX_REFIT_EVALUATIONS` or the whole runs over
    :data:`MAX_WHOLE_RUNS`.
    """
    for whole, limit, what in (
        (False, MAX_REFIT_EVALUATIONS, "refit evaluations"),
        (True, MAX_WHOLE_RUNS, "whole runs"),
    ):
        parts = [(key, n) for key, n, runs in counts if runs == whole and n]
        total = sum(n for _key, n in parts)
        if total > limit:
            terms = " + ".join(f"{key} {n:,}" for key, n in parts)
            raise SettingsError(
                f"sensitivity of {task_id} at budget {budget:,}: {terms} = {total:,} {what} is over the limit of "
                f"{limit:,}; choose a smaller budget"
            )


def _budget_axis(
    refit: Refit, settings: Settings, shares: Mapping[str, float], profile: str, collect: _Collector
) -> Axis:
    """Every integer budget from the bottom of the range to the refit's ceiling; the top has the ceiling's fates."""
    collect.report(BUDGET, 0.0)
    bottom, ceiling, top = _budget_positions(refit, settings)
    segments = _segments(
        range(bottom, ceiling + 1),
        lambda b: collect.add(refit.fates(b, shares)),
        lambda f: collect.report(BUDGET, 0.6 * f),
    )
    if ceiling < top:
        segments[-1] = Segment(segments[-1].lo, top, segments[-1].vector)
    # The real system's config holds an upstream version's budget to its range: a suggestion stays inside it.
    s_lo, s_hi = SYSTEM_BUDGET_RANGE if profile_of(profile).upstream else (bottom, top)
    return Axis(
        BUDGET, TOKENS, settings.budget, bottom, top, tuple(segments), suggest_lo=s_lo, suggest_hi=s_hi, ceiling=ceiling
    )


def _share_axis(refit: Refit, key: str, budget: int, shares: Mapping[str, float], collect: _Collector) -> Axis:
    """Every section budget ``int(budget * share)`` the share can give, up to what the other share leaves."""
    collect.report(key, 0.6)
    hi, max_share = share_top(key, budget, shares)

    def at(position: int) -> int:
        return collect.add(refit.fates(budget, {**shares, key: min(share_for(budget, position), max_share)}))

    segments = _segments(range(0, hi + 1), at, lambda f: collect.report(key, 0.6 + 0.15 * f))
    return Axis(
        key,
        SHARE,
        shares[key],
        0,
        hi,
        tuple(segments),
        of_budget=budget,
        max_share=max_share,
        suggest_lo=0,
        suggest_hi=hi,
    )


def sensitivity(
    project: Project,
    feature: Feature,
    task: Task,
    settings: Settings,
    trace: Trace,
    *,
    refit: Refit | None = None,
    keys: Sequence[str] | None = None,
    cancel: threading.Event | None = None,
    progress: Progress | None = None,
) -> Sensitivity:
    """Every candidate of *trace* (the run of *task* under *settings*) along every setting.

    *keys* limits the axes computed (default: all the profile has).  Raises
    :class:`~ctxviewer.engine.profiles.base.Cancelled` when *cancel* is set.
    """
    started = time.perf_counter()
    profile = run_profile(project, settings)[0]
    item_ids = tuple(item.id for item in trace.items)
    collect = _Collector(item_ids, cancel, progress)
    fast = refit is not None or refit_builder(profile) is not None
    refit = refit or refit_for(project, feature, task, settings)
    wanted = set(keys) if keys is not None else None
    shares = {k: getattr(settings, k) for k in SHARE_KEYS}
    current = collect.add(refit.fates(settings.budget, shares))
    traced = collect.add({item.id: item.status for item in trace.items})
    if traced != current:  # the refit disagrees with the run: fall back to whole runs
        refit = WholeRunRefit(project, feature, task, settings)
        fast = False
        current = collect.add(refit.fates(settings.budget, shares))
    axes: list[Axis] = []
    fs = one_pass()

    def want(key: str) -> bool:
        return wanted is None or key in wanted

    # How much work the axes asked for are, before any is walked (the budget's ceiling is
    # the refit's own, worked out once and kept).
    whole = isinstance(refit, WholeRunRefit)
    work: list[tuple[str, int, bool]] = []
    if want(BUDGET):
        bottom, ceiling, _top = _budget_positions(refit, settings)
        work.append((BUDGET, ceiling - bottom + 1, whole))
    work += [
        (key, share_top(key, settings.budget, shares)[0] + 1, whole)
        for key in SHARE_KEYS
        if key in refit.keys and want(key)
    ]
    ranks = [item.rank for item in trace.items if item.rank is not None]
    last = max(1, min(10_000, max(ranks, default=1)))
    if want(TOP_K) and TOP_K not in profile_of(profile).unused:
        work.append((TOP_K, last, True))
    work += [(key, len(values), True) for key, values in profile_of(profile).choices if want(key)]
    check_work(task.id, settings.budget, work)

    if want(BUDGET):
        axes.append(_budget_axis(refit, settings, shares, profile, collect))
    for key in SHARE_KEYS:
        if key in refit.keys and want(key):
            axes.append(_share_axis(refit, key, settings.budget, shares, collect))
    if want(TOP_K) and TOP_K not in profile_of(profile).unused:
        collect.report(TOP_K, 0.75)
        top_k = _segments(
            range(1, last + 1),
            lambda k: collect.add(_whole_run(project, feature, task, replace(settings, top_k=k), fs)),
            lambda f: collect.report(TOP_K, 0.75 + 0.15 * f),
        )
        if last < 10_000:
            top_k[-1] = Segment(top_k[-1].lo, 10_000, top_k[-1].vector)
        axes.append(Axis(TOP_K, COUNT, settings.top_k, 1, 10_000, tuple(top_k), suggest_lo=1, suggest_hi=10_000))
    for key, values in profile_of(profile).choices:
        if not want(key):
            continue
        collect.report(key, 0.9)
        now = getattr(settings, key)
        choices = tuple(dict.fromkeys((now, *values)))
        cells = [
            Segment(
                n,
                n,
                current
                if value == now
                else collect.add(_whole_run(project, feature, task, replace(settings, **{key: value}), fs)),
            )
            for n, value in enumerate(choices)
        ]
        axes.append(
            Axis(
                key,
                CHOICE,
                now,
                0,
                len(choices) - 1,
                tuple(cells),
                choices=choices,
                suggest_lo=0,
                suggest_hi=len(choices) - 1,
            )
        )
    collect.report("done", 1.0)
    return Sensitivity(
        task_id=task.id,
        profile=profile,
        item_ids=item_ids,
        vectors=tuple(collect.vectors),
        current=current,
        axes=tuple(axes),
        evaluations=collect.evaluations,
        seconds=time.perf_counter() - started,
        method="fast" if fast else "whole runs",
    )


def merged(first: Sensitivity, second: Sensitivity) -> Sensitivity:
    """*first*'s axes and *second*'s in one result (computed for the same task, trace and settings,
    e.g. the budget first and the other axes after, as the window does)."""
    if first.item_ids != second.item_ids:
        raise ValueError("the two results are of different runs")
    offset = len(first.vectors)
    axes = tuple(
        replace(axis, segments=tuple(Segment(s.lo, s.hi, s.vector + offset) for s in axis.segments))
        for axis in second.axes
    )
    return replace(
        first,
        vectors=first.vectors + second.vectors,
        axes=first.axes + axes,
        evaluations=first.evaluations + second.evaluations,
        seconds=first.seconds + second.seconds,
        method=first.method if first.method == second.method else "whole runs",
    )
