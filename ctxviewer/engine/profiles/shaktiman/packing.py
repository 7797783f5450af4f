"""Packing the ranked chunks into the budget: primary selection, expansion, the final check.

:class:`Packer` holds what is selected so far and what it cost.  Its stages run in order:
:meth:`~Packer.primary` (rank order, skipping overlaps and chunks that do not fit),
:meth:`~Packer.expand` (the selected spec chunks' neighbours, from up to 30% of what is
left), :meth:`~Packer.verify` (one exact count of the joined context; the last-packed
chunks out again while it is over).  Every chunk taken out of (or added to) the running
is a trim step measured on the :class:`Pool`, so the steps chain.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from ctxviewer.engine.profiles.base import fmt
from ctxviewer.engine.profiles.gathering import Placed, joined
from ctxviewer.engine.profiles.shaktiman.chunks import Chunk, ParagraphChunks
from ctxviewer.engine.tokens.counting import TokenCounter
from ctxviewer.engine.trace.model import CUT_FOR_BUDGET, INCLUDED, OUTRANKED, RULE_FILE, SECURITY, SPEC, SPEC_PARAGRAPH

#: A chunk is skipped when more than this share of its lines is already selected.
MAX_OVERLAP = 0.5
#: Structural expansion spends at most this share of what primary selection left.
EXPANSION_SHARE = 0.30
#: Neighbours added per selected chunk at most.
NEIGHBOURS_PER_CHUNK = 5
#: Trim steps recorded for chunks primary selection turned down, before one summary step.
MAX_SKIP_STEPS = 40

#: Records a trim step: section, action, target, description, (tokens, chars) before and after.
StepRecorder = Callable[[str, str, str, str, tuple[int, int], tuple[int, int]], None]


def percent(share: float) -> str:
    """*share* as a whole percent, halves rounded up (5/8 is 63%)."""
    return f"{math.floor(share * 100 + 0.5)}%"


def overlap(chunk: Chunk, selected: Sequence[Chunk]) -> tuple[Chunk, float] | None:
    """The chunk of *selected* in the same file that *chunk* overlaps most, and by what share.

    The share is of the smaller of the two, so a section holding a selected paragraph
    overlaps it fully, as the paragraph does the section: either way the text would
    be in the context twice.
    """
    a, b = chunk.lines
    size = b - a + 1
    worst: tuple[Chunk, float] | None = None
    for other in selected:
        lo, hi = other.lines
        if hi < a or lo > b or other.draft.source != chunk.draft.source:
            continue
        shared = (hi if hi < b else b) - (lo if lo > a else a) + 1
        share = shared / min(size, hi - lo + 1)
        if worst is None or share > worst[1]:
            worst = (other, share)
    return worst


def neighbours(seed: Chunk) -> list[int]:
    """The paragraphs around spec chunk *seed*, nearest first, the one after before the one before."""
    assert seed.part is not None
    count = len(seed.part.index.paragraphs)
    out = []
    for d in range(1, NEIGHBOURS_PER_CHUNK + 1):
        for index in (seed.last + d, seed.first - d):
            if 0 <= index < count:
                out.append(index)
    return out


class Pool:
    """Every chunk still in the running, as (tokens, characters, count) of them all joined.

    All ranked chunks at first, the selected ones after primary selection: every step
    takes chunks out of it (or expansion adds some), so one step's after is the next's before.
    """

    def __init__(self, sep: int, cost: Callable[[Chunk], int], chunks: Sequence[Chunk]) -> None:
        self.sep = sep
        self.cost = cost
        self.tokens = sum(cost(c) for c in chunks)
        self.chars = sum(c.chars for c in chunks)
        self.count = len(chunks)

    def size(self) -> tuple[int, int]:
        """(tokens, characters) of the pool's chunks joined by blank lines."""
        n = self.count
        return (self.tokens + self.sep * (n - 1), self.chars + 2 * (n - 1)) if n else (0, 0)

    def change(self, chunks: Sequence[Chunk], sign: int) -> None:
        """Take *chunks* out (*sign* -1) or add them (+1)."""
        self.tokens += sign * sum(self.cost(c) for c in chunks)
        self.chars += sign * sum(c.chars for c in chunks)
        self.count += sign * len(chunks)


class Packer:
    """Selects ranked chunks into *limit* tokens (the budget less its margin), recording each step."""

    def __init__(self, limit: int, counter: TokenCounter, ranked: Sequence[Chunk], record: StepRecorder) -> None:
        self.limit = limit
        self.counter = counter
        self.sep = counter.count("\n\n")
        self.record = record
        self.selected: list[Chunk] = []
        self.used = 0
        self.pool = Pool(self.sep, self.own_cost, ranked)
        self.skips = 0
        self.deferred: list[Chunk] = []

    # -- costs ----------------------------------------------------------------------------

    def own_cost(self, chunk: Chunk) -> int:
        """The chunk's tokens with its metadata line, without a separator."""
        if not chunk.cost:
            chunk.cost = self.counter.count(f"{chunk.meta}\n{chunk.draft.text}")
        return chunk.cost

    def cost(self, chunk: Chunk) -> int:
        """What selecting *chunk* now would add: its own cost and a separator unless it is the first."""
        return self.own_cost(chunk) + (self.sep if self.selected else 0)

    def pool_step(self, chunks: list[Chunk], sign: int, action: str, target: str, description: str) -> None:
        """A step that takes *chunks* out of the pool (sign -1) or adds them (+1)."""
        before = self.pool.size()
        self.pool.change(chunks, sign)
        section = SECURITY if chunks and all(c.draft.kind == RULE_FILE for c in chunks) else SPEC
        self.record(section, action, target, description, before, self.pool.size())

    # -- primary selection ----------------------------------------------------------------

    def primary(self, ranked: Sequence[Chunk]) -> None:
        """Offer every ranked chunk in rank order; the turned-down ones past the first 40 are one step."""
        for chunk in ranked:
            self.offer(chunk, f"rank {chunk.draft.rank} of {len(ranked)}")
        if self.deferred:
            self.pool_step(
                self.deferred,
                -1,
                "skip_no_fit",
                "",
                f"and {fmt(len(self.deferred))} more lower-ranked chunks did not fit or overlapped a packed one",
            )

    def _skip(self, chunk: Chunk, action: str, description: str) -> None:
        """Primary selection turned *chunk* down: a step, or one of the summary's."""
        self.skips += 1
        if self.skips > MAX_SKIP_STEPS:
            self.deferred.append(chunk)
            return
        self.pool_step([chunk], -1, action, chunk.draft.id, description)

    def offer(self, chunk: Chunk, why: str, room: int | None = None) -> bool:
        """Select *chunk* if it does not overlap and fits; record why not otherwise.

        *room* is the expansion budget left (None: primary selection).  A chunk that
        primary selection already turned down keeps that reason when expansion cannot
        take it either.
        """
        draft = chunk.draft
        say = room is None or draft.rank is None
        worst = overlap(chunk, self.selected)
        if worst is not None and worst[1] > MAX_OVERLAP:
            other, share = worst
            if say:
                draft.status = OUTRANKED
                draft.reason = f"{why}, {chunk.base}: skipped, overlaps {other.label} by {percent(share)}"
            if room is None:
                self._skip(chunk, "skip_overlap", f"{chunk.label} overlaps {other.label} by {percent(share)}")
            return False
        cost = self.cost(chunk)
        left = self.limit - self.used if room is None else min(room, self.limit - self.used)
        if cost > left:
            if say:
                of = "" if room is None else " of the expansion budget"
                fit = f"{fmt(cost)} tokens with its metadata did not fit the {fmt(left)} left{of}"
                draft.status = CUT_FOR_BUDGET
                draft.reason = f"{why}, {chunk.base}: {fit}"
            if room is None:
                self._skip(chunk, "skip_no_fit", f"{chunk.label} ({fmt(cost)} tokens) did not fit the {fmt(left)} left")
            return False
        self.selected.append(chunk)
        self.used += cost
        draft.status, draft.kept_chars = INCLUDED, len(draft.text)
        draft.reason = f"{why}, {chunk.base}: packed ({fmt(cost)} tokens with its metadata)"
        return True

    # -- structural expansion -------------------------------------------------------------

    def expand(self, paragraphs: ParagraphChunks) -> None:
        """Add the selected spec chunks' neighbours while they fit 30% of what is left; one step."""
        packed = len(self.selected)
        room = int((self.limit - self.used) * EXPANSION_SHARE)
        if room > 0:
            self._expand_neighbours(paragraphs, room)
        added = self.selected[packed:]
        if added:
            what = "paragraph" if len(added) == 1 else "paragraphs"
            self.pool_step(added, 1, "expand", "", f"structural expansion added {len(added)} neighbouring {what}")

    def _expand_neighbours(self, paragraphs: ParagraphChunks, room: int) -> None:
        # Selected or not, by identity: a paragraph has one chunk (ParagraphChunks), and a
        # list's ``in`` compares chunks field by field.
        chosen = {id(c) for c in self.selected}
        for seed in [c for c in self.selected if c.part is not None]:
            assert seed.part is not None
            added = 0
            for index in neighbours(seed):
                neighbour = paragraphs.chunk(seed.part, index)
                if neighbour is None or id(neighbour) in chosen or added >= NEIGHBOURS_PER_CHUNK:
                    continue
                before = self.used
                if self.offer(neighbour, f"structural expansion: a neighbour of {seed.label}", room):
                    chosen.add(id(neighbour))
                    room -= self.used - before
                    added += 1

    # -- the final check ------------------------------------------------------------------

    def verify(self, budget: int) -> None:
        """Check the joined context with one exact count; take out the last chunks while it is over *budget*."""
        tokens = self.counter.count(self.joined())
        while tokens > budget and self.selected:
            last = self.selected.pop()
            last.draft.status, last.draft.kept_chars = CUT_FOR_BUDGET, 0
            last.draft.reason += f"; taken out again: the joined context counted {fmt(tokens)} tokens"
            self.pool_step(
                [last],
                -1,
                "verify_cut",
                last.draft.id,
                f"the joined context counted {fmt(tokens)} tokens exactly, over the budget of {fmt(budget)}: "
                f"took out {last.label}",
            )
            tokens = self.counter.count(self.joined())

    def pieces(self, kind: str) -> list[Placed]:
        """The selected rule chunks (*kind* RULE_FILE) or spec chunks, each with its metadata line."""
        return [
            Placed(f"{c.meta}\n{c.draft.text}", c.draft, lead=len(c.meta) + 1, inner=c.inner)
            for c in self.selected
            if (c.draft.kind == RULE_FILE) == (kind == RULE_FILE)
        ]

    def joined(self) -> str:
        """The context as the selection stands: rule chunks, then spec chunks."""
        sections = [joined(self.pieces(RULE_FILE)), joined(self.pieces(SPEC_PARAGRAPH))]
        return "\n\n".join(s for s in sections if s)


def mark_covered(selected: Sequence[Chunk], paragraphs: ParagraphChunks, ranked: int) -> None:
    """The paragraphs of a packed section are in the context: say so, and where (*ranked*: chunks ranked)."""
    for chunk in selected:
        if chunk.part is None or chunk.first == chunk.last:
            continue
        at = 0
        for index in range(chunk.first, chunk.last + 1):
            draft = paragraphs.drafts.get((chunk.part.part, index))
            if draft is not None:
                what = f"rank {draft.rank} of {ranked}, " if draft.rank else ""
                draft.status, draft.kept_chars = INCLUDED, len(draft.text)
                draft.reason = (
                    f"{what}score {draft.score or 0}: in the context as part of {chunk.label}, "
                    "so not packed again on its own"
                )
                chunk.inner.append((draft, at))
            at += len(chunk.part.index.paragraphs[index].text) + 2
