"""The shaktiman profile's fates at other budgets, in plain arithmetic (a :class:`~..refit_contract.Refit`).

Nothing before packing depends on the budget, so the refit works the chunks out once
(:meth:`ShaktimanRun.candidates <.run.ShaktimanRun.candidates>`) and replays the three
budget-dependent stages of :mod:`.packing` on integers; :meth:`ShaktimanRefit.span` finds
the interval of budgets with the same decisions, so an enumeration replays once per span.
See docs/sensitivity.md#how-the-refits-work.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

from ctxviewer.engine.profiles.lookup import profile_of_run
from ctxviewer.engine.profiles.refit_contract import Refit, SpecSource, WholeRun, budget_range, with_values
from ctxviewer.engine.profiles.shaktiman.chunks import Chunk
from ctxviewer.engine.profiles.shaktiman.packing import EXPANSION_SHARE, MAX_OVERLAP, NEIGHBOURS_PER_CHUNK, neighbours
from ctxviewer.engine.profiles.shaktiman.run import Candidates, ShaktimanRun, packing_limit
from ctxviewer.engine.project.loading import Feature, Project, Task
from ctxviewer.engine.project.settings import Settings, check_profile_budget
from ctxviewer.engine.project.upstream import resolve
from ctxviewer.engine.tokens.counting import CL100K, O200K, PIECE_CHARS, Census, TokenCounter, get_counter
from ctxviewer.engine.trace.model import CUT_FOR_BUDGET, INCLUDED, OUTRANKED

#: Encodings whose pre-tokenizer always splits just before a chunk's ``<!--`` when a blank
#: line precedes it (see :func:`joined_tokens`).
SPLIT_AT_CHUNKS = (CL100K, O200K)
#: A space or tab after a non-space character: a place where the exact counter may cut a
#: long text into pieces exactly (a subset of :mod:`~ctxviewer.engine.tokens.counting`'s).
_CUT_PLACE = re.compile(r"(?<=\S)[ \t]")
#: How far into a chunk its first such place lies at most: the space after ``<!--``.
_FIRST_CUT = len("<!--")


def joined_tokens(own: Sequence[int], with_blank: Sequence[int]) -> int:
    """The exact tokens of chunks joined by blank lines, from counts of each alone.

    *own* are the chunks' counts (metadata line, newline, text), *with_blank* the counts of
    each with ``"\\n\\n"`` appended.  Both encodings' pre-tokenizers split the joined text
    just before every ``<!--`` that follows a newline (no pre-token runs from a newline into
    ``<``), and a piece followed by ``"\\n\\n<"`` splits as the piece followed by ``"\\n\\n"``
    at the end of a text does (its trailing whitespace run ends at the last newline either
    way).  Tokens never cross a pre-token boundary, so the joined count is the sum of every
    chunk but the last with its blank line, plus the last alone.  (A count made in pieces
    with an estimated cut would break this: :func:`build_refit` rules those out.)
    """
    if not own:
        return 0
    return sum(with_blank[:-1]) + own[-1]


@dataclass(frozen=True, slots=True)
class Span:
    """Budgets *lo*..*hi* (inclusive) at which every packing decision, so every fate, is the same."""

    lo: int
    hi: int
    fates: Mapping[str, str]


class ShaktimanRefit:
    """A task's fates under the shaktiman profile at any budget of its range (see the module docstring).

    Built by :func:`build_refit`; *nodes* are the ranked chunks (rank order) followed by
    the unranked paragraphs structural expansion can offer.
    """

    keys: frozenset[str] = frozenset({"budget"})

    def __init__(
        self,
        settings: Settings,
        base: Mapping[str, str],
        nodes: Sequence[Chunk],
        ranked: int,
        own: Sequence[int],
        with_blank: Sequence[int],
        sep: int,
        candidates: Candidates,
    ) -> None:
        self.settings = settings
        self.bottom, self.top = budget_range(settings)
        self._margin = settings.shaktiman_margin
        self._base = dict(base)
        self._ranked = ranked
        self._ids = [c.draft.id for c in nodes]
        self._own = list(own)
        self._blank = list(with_blank)
        self._sep = sep
        at = {id(c): n for n, c in enumerate(nodes)}
        self._conflicts = _conflicts(nodes)
        paragraphs = candidates.paragraphs
        self._neighbours: list[tuple[int, ...]] = []
        self._covers: list[tuple[str, ...]] = []
        for n, c in enumerate(nodes):
            near: list[int] = []
            covers: tuple[str, ...] = ()
            if c.part is not None and n < ranked:  # the unranked paragraphs are never seeds
                for index in neighbours(c):
                    chunk = paragraphs.chunk(c.part, index)
                    if chunk is not None:
                        near.append(at[id(chunk)])
                if c.first != c.last:
                    drafts = (paragraphs.drafts.get((c.part.part, i)) for i in range(c.first, c.last + 1))
                    covers = tuple(d.id for d in drafts if d is not None)
            self._neighbours.append(tuple(near))
            self._covers.append(covers)
        self._spec = [c.part is not None for c in nodes]
        #: Spans found so far, sorted by ``lo``; equal fates share one mapping.
        self._los: list[int] = []
        self._spans: list[Span] = []
        self._shared: dict[tuple[str, ...], Mapping[str, str]] = {}
        self._ceiling: int | None = None

    # -- the protocol -----------------------------------------------------------------------

    def fates(self, budget: int, shares: Mapping[str, float] | None = None) -> Mapping[str, str]:
        """Item id -> status at *budget* (the profile has no section shares: *shares* change nothing)."""
        n = bisect_right(self._los, budget) - 1
        if n >= 0 and budget <= self._spans[n].hi:
            return self._spans[n].fates
        span = self.span(budget)
        n = bisect_left(self._los, span.lo)
        self._los.insert(n, span.lo)
        self._spans.insert(n, span)
        return span.fates

    @property
    def decided(self) -> frozenset[str]:
        """The chunks packing may place and the paragraphs a packed chunk covers."""
        return frozenset(self._ids).union(*self._covers)

    @property
    def sections(self) -> None:
        """No shares: the budget alone decides (see :attr:`Refit.sections`)."""
        return None

    def ceiling(self) -> int:
        """The first budget of the run of equal fates that ends at the top of the range (exact)."""
        if self._ceiling is None:
            self.fates(self.top)
            lo = self._span_at(self.top).lo
            target = self._span_at(self.top).fates
            while lo > self.bottom and self.fates(lo - 1) is target:
                lo = self._span_at(lo - 1).lo
            self._ceiling = lo
        return self._ceiling

    def _span_at(self, budget: int) -> Span:
        return self._spans[bisect_right(self._los, budget) - 1]

    # -- one replay ---------------------------------------------------------------------------

    def span(self, budget: int) -> Span:
        """Replay packing at *budget*: the fates, and every budget that decides the same way.

        Raises the whole run's :class:`~ctxviewer.engine.errors.SettingsError` for a budget
        outside the profile's range.
        """
        if not self.bottom <= budget <= self.top:
            check_profile_budget(with_values(self.settings, budget), self.settings.origin("budget"))
        limit = packing_limit(budget, self._margin)[0]
        own, blank, sep, conflicts, ids = self._own, self._blank, self._sep, self._conflicts, self._ids
        out = dict(self._base)
        blocked = [0] * len(own)  # selected chunks each one overlaps by more than half
        selected: list[int] = []
        used = wide = 0  # tokens packed; the same with every chunk's blank line after it
        limit_lo, limit_hi = 0, self.top  # the limits that decide primary selection the same way
        for n in range(self._ranked):
            if blocked[n]:
                out[ids[n]] = OUTRANKED
                continue
            after = used + own[n] + (sep if selected else 0)
            if after > limit:
                out[ids[n]] = CUT_FOR_BUDGET
                limit_hi = min(limit_hi, after - 1)
                continue
            out[ids[n]] = INCLUDED
            selected.append(n)
            used, wide = after, wide + blank[n]
            limit_lo = after
            for k in conflicts[n]:
                blocked[k] += 1
        # Structural expansion: every decision is a threshold on the room it starts with.
        primary_used = used
        room = int((limit - used) * EXPANSION_SHARE)
        room_lo, room_hi = 0, self.top
        if room > 0:
            room_lo = 1
            chosen = bytearray(len(own))
            for n in selected:
                chosen[n] = 1
            spent = 0
            for seed in [n for n in selected if self._spec[n]]:
                added = 0
                for k in self._neighbours[seed]:
                    if chosen[k] or added >= NEIGHBOURS_PER_CHUNK:
                        continue
                    ranked = k < self._ranked
                    if blocked[k]:
                        if not ranked:
                            out[ids[k]] = OUTRANKED
                        continue
                    cost = own[k] + sep
                    if cost > room:  # room <= limit - used: the room decides
                        if not ranked:
                            out[ids[k]] = CUT_FOR_BUDGET
                        room_hi = min(room_hi, spent + cost - 1)
                        continue
                    out[ids[k]] = INCLUDED
                    selected.append(k)
                    chosen[k] = 1
                    used, wide, room, spent = used + cost, wide + blank[k], room - cost, spent + cost
                    room_lo, added = spent, added + 1
                    for j in conflicts[k]:
                        blocked[j] += 1
        else:
            room_hi = 0
        # The final check: exact tokens of the joined context against the budget itself.
        budget_lo, budget_hi = self.bottom, self.top
        while selected:
            last = selected[-1]
            tokens = wide - blank[last] + own[last]
            if tokens <= budget:
                budget_lo = max(budget_lo, tokens)
                break
            budget_hi = min(budget_hi, tokens - 1)
            selected.pop()
            wide -= blank[last]
            out[ids[last]] = CUT_FOR_BUDGET
        for n in selected:
            for item_id in self._covers[n]:
                out[item_id] = INCLUDED
        # The budgets whose limit and room fall in the same ranges, and whose final check agrees.
        limit_lo = max(limit_lo, primary_used + _least(room_lo))
        limit_hi = min(limit_hi, primary_used + _least(room_hi + 1) - 1)
        lo = max(budget_lo, self._least_budget(limit_lo))
        hi = min(budget_hi, self._least_budget(limit_hi + 1) - 1)
        assert lo <= budget <= hi, (lo, budget, hi)
        key = tuple(out.values())
        fates = self._shared.get(key)
        if fates is None:
            fates = self._shared[key] = MappingProxyType(out)
        return Span(lo, hi, fates)

    def _least_budget(self, limit: int) -> int:
        """The smallest budget of the range whose limit is at least *limit* (``top + 1``: none).

        The limit never falls as the budget grows: the margin grows by at most one token
        per token of budget, since the margin share is at most a half.
        """
        budgets = range(self.bottom, self.top + 1)
        return self.bottom + bisect_left(budgets, limit, key=lambda b: packing_limit(b, self._margin)[0])


def _least(room: int) -> int:
    """The smallest ``x >= 0`` with ``int(x * EXPANSION_SHARE) >= room``, as expansion rounds it."""
    if room <= 0:
        return 0
    x = max(0, int(room / EXPANSION_SHARE) - 2)
    while int(x * EXPANSION_SHARE) < room:
        x += 1
    return x


def _conflicts(nodes: Sequence[Chunk]) -> list[tuple[int, ...]]:
    """For each chunk, the others of its file it overlaps by more than half of the smaller.

    The same test as :func:`~.packing.overlap`, which is symmetric; only chunks whose line
    ranges meet are compared.
    """
    out: list[list[int]] = [[] for _ in nodes]
    by_source: dict[str, list[int]] = {}
    for n, c in enumerate(nodes):
        by_source.setdefault(c.draft.source, []).append(n)
    for members in by_source.values():
        members.sort(key=lambda n: nodes[n].lines)
        for i, n in enumerate(members):
            a, b = nodes[n].lines
            for m in members[i + 1 :]:
                lo, hi = nodes[m].lines
                if lo > b:
                    break
                shared = min(hi, b) - max(lo, a) + 1
                if shared / min(b - a + 1, hi - lo + 1) > MAX_OVERLAP:
                    out[n].append(m)
                    out[m].append(n)
    return [tuple(c) for c in out]


def _cuts_exactly(text: str) -> bool:
    """Whether every stretch of *text* without a place to cut exactly is short enough that the
    counter never estimates a cut near it, wherever the text lies in a joined context.

    A count in pieces searches the second half of each :data:`PIECE_CHARS` window for a place
    to cut; the joined context's places include each chunk's own, and every chunk has one
    within its first five characters.
    """
    last = 0
    for found in _CUT_PLACE.finditer(text):
        if found.start() - last >= PIECE_CHARS // 2 - 2 * _FIRST_CUT:
            return False
        last = found.start()
    return len(text) - last < PIECE_CHARS // 2 - 4 * _FIRST_CUT


def build_refit(
    project: Project, feature: Feature, task: Task, settings: Settings, *, whole: WholeRun, source: SpecSource
) -> Refit:
    """A refit of *task* under the shaktiman profile; *feature* as
    :func:`~ctxviewer.engine.runs.pipeline.assemble_task` receives it.

    The engine's layers keep this package from importing the runs package, so the caller
    passes in *whole*, the whole-run refit
    (:class:`~ctxviewer.engine.runs.sensitivity.WholeRunRefit`), and *source*, the feature
    as a run reads it (:func:`~ctxviewer.engine.runs.pipeline.spec_source`).

    It returns ``whole(...)`` instead of a :class:`ShaktimanRefit` exactly when

    * the profile that runs is not ``shaktiman``;
    * the tokenizer the run decides with is not cl100k_base or o200k_base (``heuristic``
      decides with cl100k_base, as the pipeline's ``decision_tokenizer`` has it): the joined
      context's count is derived from its chunks' only for those two (:func:`joined_tokens`);
    * the stages before packing raise (an encoding that cannot be loaded, say): the whole
      run raises the same at every budget;
    * two items share an id (a fate per id could not say which one it is); or
    * a chunk holds over 32,000 characters with no space or tab after a non-space
      character (a long run without whitespace), where the exact counter's count of a
      joined context may be an estimate, so not the sum of its chunks' counts.

    A run with no rule files, no spec text, no keywords or input errors is modelled: those
    only leave fewer chunks (none at all: every fate is fixed).
    """
    mine = profile_of_run(ShaktimanRun)
    if resolve(project.fs, settings)[0] != mine.name:
        return whole(project, feature, task, settings)
    tokenizer = mine.decides_with(settings.tokenizer)  # as the pipeline's decision_tokenizer
    if tokenizer not in SPLIT_AT_CHUNKS:
        return whole(project, feature, task, settings)
    try:
        counter: TokenCounter = get_counter(tokenizer)
        run = ShaktimanRun(project, source(feature, settings)[0], task, settings, counter, Census(False, tokenizer))
        candidates = run.candidates()
    except Exception:  # the whole run fails the same way: let it say so
        return whole(project, feature, task, settings)
    refit = refit_of(run, candidates)
    return whole(project, feature, task, settings) if refit is None else refit


def refit_of(run: ShaktimanRun, candidates: Candidates) -> ShaktimanRefit | None:
    """The refit of *run* at every budget, from its :meth:`~.run.ShaktimanRun.candidates`.

    None when two items share an id or a chunk has a long stretch without a place to cut
    (see :func:`build_refit`).  Chunks are counted with the run's counter.
    """
    ids = [item.id for item in run.items]
    if len(set(ids)) != len(ids):
        return None
    nodes = list(candidates.ranked)
    known = {id(c) for c in nodes}
    for c in candidates.ranked:
        if c.part is None:
            continue
        for index in neighbours(c):
            chunk = candidates.paragraphs.chunk(c.part, index)
            if chunk is not None and id(chunk) not in known:
                known.add(id(chunk))
                nodes.append(chunk)
    texts = [f"{c.meta}\n{c.draft.text}" for c in nodes]
    if not all(_cuts_exactly(t) for t in texts):
        return None
    counter = run.counter
    own = counter.count_many(texts)
    with_blank = counter.count_many([t + "\n\n" for t in texts])
    base = {item.id: item.status for item in run.items}
    return ShaktimanRefit(
        run.settings, base, nodes, len(candidates.ranked), own, with_blank, counter.count("\n\n"), candidates
    )
