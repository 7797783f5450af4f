"""A feature sweep: every task at every budget (and, optionally, every value of one share).

Each cell is one task assembled at one setting, reduced to what a heatmap or a spreadsheet
shows.  Ranges are ``START:STOP:STEP`` or one value (:func:`parse_budget_range`,
:func:`parse_share_range`); :func:`check_sweep_size` refuses more than :data:`MAX_ASSEMBLIES`
before anything runs.  The sweep walks task by task, every setting of a task before the
next, so the batch's caches stay warm.  See docs/sweeps.md and docs/cli.md#sweep.
"""

from __future__ import annotations

import threading
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from ctxviewer.engine.analysis.findings import (
    CODES,
    CONTEXT_EMPTY,
    ESTIMATE_FLIP,
    OVER_BUDGET,
    RULE_CUT,
    RULE_CUT_LOADED,
    RULE_UNSEEN,
    SECTION_EMPTY,
    SHARE_TOO_SMALL,
    findings_of,
)
from ctxviewer.engine.errors import CtxViewerError, SettingsError
from ctxviewer.engine.files.reading import one_pass
from ctxviewer.engine.profiles.base import Cancelled, Progress
from ctxviewer.engine.project.loading import Feature, Project, Task
from ctxviewer.engine.project.settings import Settings, parse_budget
from ctxviewer.engine.runs.batch import batch_targets
from ctxviewer.engine.runs.pipeline import assemble_task, decision_tokenizer, run_profile
from ctxviewer.engine.trace.model import CUT_FOR_BUDGET, KEPT, Trace

#: The finding codes a sweep counts unless told otherwise: those a budget moves.  The
#: keyword and tie checks are the costly ones and hardly change with it.
SWEEP_CODES: tuple[str, ...] = (
    RULE_CUT,
    RULE_UNSEEN,
    CONTEXT_EMPTY,
    OVER_BUDGET,
    SECTION_EMPTY,
    ESTIMATE_FLIP,
    SHARE_TOO_SMALL,
    RULE_CUT_LOADED,
)
#: The settings a share axis may sweep.
SHARE_KEYS = ("spec_share", "security_share")
#: The most values one axis may take (a range of a million budgets is a typo, not a sweep).
MAX_VALUES = 1_000
#: The most assemblies one sweep may run: grid points (budgets x share values) times tasks.
#: A few minutes of work at most, even on a loaded machine
#: (bench/README.md#feature-sweep-against-one-batch-bench_sweeppy); every sample project's
#: 29-budget sweep (the window's default range) is under 750 of them.
MAX_ASSEMBLIES = 50_000
#: Within a task, progress is reported after this many assemblies (as well as at its end).
PROGRESS_EVERY = 256
#: Where the sweep's settings say they came from.
ORIGIN = "the sweep"


# -- ranges ----------------------------------------------------------------------------------------


def _split_range(text: str, key: str) -> list[str]:
    parts = [p.strip() for p in text.strip().split(":")]
    if len(parts) not in (1, 3) or not all(parts):
        raise SettingsError(
            f"{key}: write a range as START:STOP:STEP (1000:8000:250) or one value, not {text.strip()!r}"
        )
    return parts


def parse_budget_range(text: str, key: str = "--budget") -> tuple[int, ...]:
    """Budgets from ``START:STOP:STEP`` (``1000:8000:250``, ``1k:8k:250``) or one value (``4k``).

    Each part is read as ``--budget`` reads a budget.  The values run from START in STEPs up
    to STOP, which is included when it lands on a step.
    """
    parts = _split_range(text, key)
    if len(parts) == 1:
        return (parse_budget(parts[0], key),)
    start, stop = parse_budget(parts[0], f"{key} start"), parse_budget(parts[1], f"{key} stop")
    step = parse_budget(parts[2], f"{key} step")
    if stop < start:
        raise SettingsError(f"{key}: the range ends ({stop:,}) before it starts ({start:,})")
    count = (stop - start) // step + 1
    if count > MAX_VALUES:
        raise SettingsError(f"{key}: {text.strip()!r} is {count:,} budgets; a sweep takes at most {MAX_VALUES:,}")
    return tuple(range(start, stop + 1, step))


def _share(text: str, key: str) -> Decimal:
    try:
        value = Decimal(text)
    except InvalidOperation:
        raise SettingsError(f"{key}: must be a number between 0 and 1, not {text!r}") from None
    if not value.is_finite() or not 0 <= value <= 1:
        raise SettingsError(f"{key}: must be a number between 0 and 1, not {text!r}")
    return value


def parse_share_range(text: str, key: str = "--share") -> tuple[str, tuple[float, ...]]:
    """``spec_share=0.3:0.7:0.1`` (or ``security_share=0.2``): the share setting and its values.

    Decimal steps are exact (0.3, 0.4, ... 0.7, not 0.30000000000000004); STOP is included
    when it lands on a step.
    """
    name, sep, spec = text.partition("=")
    name = name.strip()
    if not sep or name not in SHARE_KEYS:
        raise SettingsError(
            f"{key}: write SETTING=START:STOP:STEP with SETTING one of {', '.join(SHARE_KEYS)}, not {text.strip()!r}"
        )
    parts = _split_range(spec, f"{key} {name}")
    if len(parts) == 1:
        return name, (float(_share(parts[0], f"{key} {name}")),)
    start, stop, step = (_share(p, f"{key} {name}") for p in parts)
    if step <= 0:
        raise SettingsError(f"{key} {name}: the step must be above 0, not {parts[2]!r}")
    if stop < start:
        raise SettingsError(f"{key} {name}: the range ends ({stop}) before it starts ({start})")
    count = int((stop - start) // step) + 1
    if count > MAX_VALUES:
        raise SettingsError(f"{key} {name}: {spec.strip()!r} is {count:,} values; a sweep takes at most {MAX_VALUES:,}")
    return name, tuple(float(start + n * step) for n in range(count))


def check_codes(codes: Collection[str], key: str = "--findings") -> tuple[str, ...]:
    """*codes* in :data:`CODES` order; raises for one that is not a finding code."""
    unknown = sorted(set(codes) - set(CODES))
    if unknown:
        what = "is not a finding code" if len(unknown) == 1 else "are not finding codes"
        raise SettingsError(f"{key}: {', '.join(unknown)} {what}; choose from {', '.join(CODES)}")
    return tuple(c for c in CODES if c in codes)


# -- the result ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SweepCell:
    """One task assembled at one setting, reduced to what a sweep shows."""

    feature: str
    task: str
    budget: int
    #: The swept share's value (None without a share axis).
    share: float | None
    #: The context's size in the decision tokenizer.
    tokens: int
    #: Exact counts, when the sweep was asked for them (None otherwise).
    cl100k_base: int | None
    o200k_base: int | None
    over_budget: bool
    #: Candidates in the context (included or truncated) and cut for budget.
    included: int
    cut: int
    #: ``(code, count)`` for every counted finding code, in the sweep's code order.
    findings: tuple[tuple[str, int], ...]
    #: Why the engine refused this task at this setting ('' when it ran).
    error: str = ""

    @property
    def share_of_budget(self) -> float:
        """The context's size as a fraction of the budget (above 1 when over)."""
        return self.tokens / self.budget if self.budget else 0.0

    def count(self, code: str) -> int:
        """How many findings of *code* this cell's run has (0 for a code not counted)."""
        return next((n for c, n in self.findings if c == code), 0)


@dataclass(frozen=True, slots=True)
class SweepTask:
    """A row of the sweep: one task."""

    feature: str
    task: str
    title: str


@dataclass(frozen=True, slots=True)
class Sweep:
    """Every task at every setting: the rows (tasks), the columns (budgets), and the cells.

    Cells are in row order, then share order, then budget order.
    """

    project: str
    feature: str | None
    profile: str
    tokenizer: str
    exact: bool
    budgets: tuple[int, ...]
    #: The share setting swept ('' for none) and its values (``(None,)`` for none).
    share_key: str
    shares: tuple[float | None, ...]
    codes: tuple[str, ...]
    tasks: tuple[SweepTask, ...]
    cells: tuple[SweepCell, ...]

    def cell(self, row: int, column: int, share: int = 0) -> SweepCell:
        """The cell of task *row* at budget *column* (and share value number *share*)."""
        per_task = len(self.budgets) * len(self.shares)
        return self.cells[row * per_task + share * len(self.budgets) + column]

    def cells_at(self, share: int = 0) -> list[list[SweepCell]]:
        """The grid for share value number *share*: a list of rows, each a list of budget cells."""
        return [[self.cell(r, c, share) for c in range(len(self.budgets))] for r in range(len(self.tasks))]


def cell_of(trace: Trace, budget: int, share: float | None, codes: Collection[str]) -> SweepCell:
    """What a sweep keeps of *trace*."""
    counts = {code: 0 for code in codes}
    for finding in findings_of(trace, codes):
        counts[finding.code] += 1
    used = trace.context_tokens.get(trace.tokenizer) or 0
    return SweepCell(
        feature=trace.feature,
        task=trace.task_id,
        budget=budget,
        share=share,
        tokens=used,
        cl100k_base=trace.context_tokens.cl100k_base,
        o200k_base=trace.context_tokens.o200k_base,
        over_budget=trace.over_budget,
        included=sum(1 for i in trace.items if i.status in KEPT),
        cut=sum(1 for i in trace.items if i.status == CUT_FOR_BUDGET),
        findings=tuple(counts.items()),
    )


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}" + ("" if n == 1 else "s")


def check_sweep_size(
    tasks: int, budgets: int, share_key: str = "", shares: int = 1, *, feature: str | None = None
) -> int:
    """The number of assemblies a sweep of *tasks* tasks at *budgets* budgets (and *shares*
    values of *share_key*) runs; raises :class:`SettingsError` when it is over
    :data:`MAX_ASSEMBLIES`, naming the product and the limit in one line."""
    points = budgets * (shares if share_key else 1)
    total = points * tasks
    if total <= MAX_ASSEMBLIES:
        return total
    factors = [_count(budgets, "budget")]
    if share_key:
        factors.append(_count(shares, f"{share_key} value"))
    factors.append(_count(tasks, "task"))
    product = " \u00d7 ".join(factors)
    hint = "narrow a range" if feature is not None else "narrow a range or choose a feature"
    raise SettingsError(f"sweep of {product} = {total:,} assemblies is over the limit of {MAX_ASSEMBLIES:,}; {hint}")


def sweep_settings(
    base: Settings, budgets: Sequence[int], share_key: str = "", shares: Sequence[float | None] = (None,)
) -> list[tuple[float | None, int, Settings]]:
    """``(share, budget, settings)`` for every point, in share-then-budget order; each is
    validated now (a budget the profile refuses, shares adding up past the whole budget)."""
    out: list[tuple[float | None, int, Settings]] = []
    for share in shares:
        for budget in budgets:
            values: dict[str, Any] = {"budget": budget}
            if share_key and share is not None:
                values[share_key] = share
            out.append((share, budget, base.with_overrides(values, ORIGIN)))
    return out


def run_sweep(
    project: Project,
    budgets: Sequence[int],
    *,
    feature: str | None = None,
    targets: Sequence[tuple[Feature, Task]] | None = None,
    settings: Settings | None = None,
    share_key: str = "",
    shares: Sequence[float] = (),
    exact: bool = False,
    codes: Collection[str] = SWEEP_CODES,
    cancel: threading.Event | None = None,
    progress: Progress | None = None,
) -> Sweep:
    """Assemble every task of *feature* (or the project, or *targets*) at every budget.

    With *share_key* (``spec_share`` or ``security_share``) and *shares*, at every value of
    that share too.  *exact* adds the exact tiktoken counts to every cell (slower).  Bad
    settings raise before anything runs; a task the engine refuses at one setting becomes a
    cell with its message in ``error``.  More than :data:`MAX_ASSEMBLIES` assemblies (tasks
    times budgets times share values) raise :class:`SettingsError` before any runs.
    *progress* is called with ``(task id, fraction done)`` after each task and every
    :data:`PROGRESS_EVERY` assemblies; *cancel* is checked before each assembly.
    """
    if not budgets:
        raise SettingsError("a sweep needs at least one budget")
    if share_key and share_key not in SHARE_KEYS:
        raise SettingsError(f"--share: {share_key!r} is not one of {', '.join(SHARE_KEYS)}")
    base = settings or project.settings
    axis: tuple[float | None, ...] = tuple(shares) if share_key and shares else (None,)
    swept = share_key if axis != (None,) else ""
    chosen = check_codes(codes)
    pairs = list(targets) if targets is not None else batch_targets(project, feature)
    # The size first: a grid of a million points is refused before it is even validated.
    total = check_sweep_size(len(pairs), len(budgets), swept, len(axis), feature=feature)
    points = sweep_settings(base, budgets, swept, axis)
    tokenizer = decision_tokenizer(base, project)
    profile = run_profile(project, base)[0]
    fs = one_pass()
    cells: list[SweepCell] = []
    for feat, task in pairs:
        for share, budget, point in points:
            if cancel is not None and cancel.is_set():
                raise Cancelled(task.id)
            try:
                trace = fs.run(assemble_task, project, feat, task, point, exact=exact, cancel=cancel)
            except CtxViewerError as exc:
                empty = tuple((c, 0) for c in chosen)
                cells.append(SweepCell(feat.name, task.id, budget, share, 0, None, None, False, 0, 0, empty, str(exc)))
            else:
                cells.append(cell_of(trace, budget, share, chosen))
            done = len(cells)
            if progress is not None and (done % len(points) == 0 or done % PROGRESS_EVERY == 0):
                progress(task.id, done / total)
    return Sweep(
        project=str(project.root),
        feature=feature,
        profile=profile,
        tokenizer=tokenizer,
        exact=exact,
        budgets=tuple(budgets),
        share_key=swept,
        shares=axis,
        codes=chosen,
        tasks=tuple(SweepTask(f.name, t.id, t.title) for f, t in pairs),
        cells=tuple(cells),
    )
