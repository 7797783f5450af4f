"""Profile ``shaktiman``: rank every candidate, pack the best into the budget, exactly.

Seed 002's assembler, mapped to ctxviewer's sources:

* **Budget**: 256-32,768 tokens (others are refused); counted with an exact encoding
  (cl100k_base unless an exact tokenizer is set), and ``shaktiman_margin`` of it
  (2% by default, at least one token) is kept free, so the packed context never
  exceeds the budget.  A final exact count of the joined context checks it; should
  joining ever merge tokens so that it does not fit, the last-packed chunks are taken
  out again until it does (each such removal a trim step).
* **Chunks**: the rule files the reference filter matches (whole summary blocks,
  ranked first: the filter already chose them for this task's files); every spec
  paragraph that scores above 0 (the reference's keyword count); and every
  ``##``-or-deeper heading section spanning 2-50 paragraphs that scores above 0 (its
  score counts the keywords anywhere in it).  Ranked by score, highest first; a tie
  goes to the smaller chunk, then to document order.
* **Metadata**: each chunk is preceded by one line -- ``<!-- path L12-18 score 3 -->``
  -- and the line's tokens count against the budget with the chunk's.
* **Primary selection** packs chunks in rank order while they fit, skipping a chunk
  whose line range overlaps an already selected chunk of the same file by more than
  50% of the smaller of the two ("overlaps paragraph 4 of requirements.md by 63%"), so a
  section is never packed beside a paragraph it contains, nor a paragraph beside its
  section: no text is in the context twice.
* **Structural expansion**, up to 30% of what primary selection left unused: the
  neighbours of each selected spec chunk in the document (the paragraphs just
  before and after it, nearest first, up to 5 per chunk), when they fit.

The context lists the rule chunks, then the spec chunks in the order they were
selected, each with its metadata line, separated by blank lines.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from ctxviewer.engine.profiles.base import ItemDraft, ProfileResult, fmt, plain_name
from ctxviewer.engine.profiles.peers import PeerRun, Placed, SectionPlan, SpecPart, heading_level, joined
from ctxviewer.engine.signals.spec import CHECK_EVERY, Paragraph, ranking
from ctxviewer.engine.trace.model import (
    CUT_FOR_BUDGET,
    INCLUDED,
    OUTRANKED,
    RULE_FILE,
    SECURITY,
    SPEC,
    SPEC_PARAGRAPH,
)

#: A chunk is skipped when more than this share of its lines is already selected.
MAX_OVERLAP = 0.5
#: Structural expansion spends at most this share of what primary selection left.
EXPANSION_SHARE = 0.30
#: Neighbours added per selected chunk at most.
NEIGHBOURS_PER_CHUNK = 5
#: Heading sections longer than this many paragraphs are not chunks.
MAX_SECTION_PARAGRAPHS = 50
#: Trim steps recorded for chunks primary selection turned down, before one summary step.
MAX_SKIP_STEPS = 40


def _chars(chunk: Chunk) -> int:
    """The chunk's characters with its metadata line."""
    return len(chunk.meta) + 1 + len(chunk.draft.text)


@dataclass
class Chunk:
    """One candidate: its draft, its lines in its file, its score and its packed cost."""

    draft: ItemDraft
    score: int
    lines: tuple[int, int]
    first: int = -1  # paragraph index range within its spec part (-1: a rule file)
    last: int = -1
    part: SpecPart | None = None
    meta: str = ""
    cost: int = 0
    base: str = ""  # what the chunk is, before its fate ("score 3")
    #: For a packed section: its paragraphs, which are in the context with it, and where.
    inner: list[tuple[ItemDraft, int]] = field(default_factory=list)

    @property
    def label(self) -> str:
        """The chunk in plain words: ``paragraph 3 of requirements.md (line 5)``."""
        return plain_name(self.draft)


def percent(share: float) -> str:
    """*share* as a whole percent, halves rounded up (5/8 is 63%)."""
    return f"{math.floor(share * 100 + 0.5)}%"


class ShaktimanRun(PeerRun):
    """One run of the shaktiman strategy over one task."""

    def run(self) -> ProfileResult:
        self.gather()
        budget = self.settings.budget
        margin = max(1, math.ceil(budget * self.settings.shaktiman_margin))
        self.limit = budget - margin
        self.sep = self.counter.count("\n\n")
        #: Paragraph drafts and the chunks made of them, by (part, paragraph index).
        self.drafts: dict[tuple[str, int], ItemDraft] = {}
        self.chunks: dict[tuple[str, int], Chunk] = {}
        rules = self._rule_chunks()
        spec = [c for part in self.parts for c in self._spec_chunks(part)]
        self._check("ranking", 0.6)
        order = {part.part: n for n, part in enumerate(self.parts)}
        ranked = rules + sorted(
            spec, key=lambda c: (-c.score, len(c.draft.text), order[c.draft.part], c.lines[0], c.last - c.first)
        )
        self.ranked = len(ranked)
        for n, chunk in enumerate(ranked, start=1):
            chunk.draft.rank = n
        self.selected: list[Chunk] = []
        self.used = 0
        self.used_chars = 0
        # The pool: every chunk still in the running (all ranked ones at first, the selected
        # ones after primary selection), as (tokens, characters, chunks) of them all joined.
        # Every step takes chunks out of it (or expansion adds some), so steps chain.
        self.pool = [sum(self._own_cost(c) for c in ranked), sum(_chars(c) for c in ranked), len(ranked)]
        self.skips = 0
        self.deferred: list[Chunk] = []
        for chunk in ranked:
            self._offer(chunk, f"rank {chunk.draft.rank} of {len(ranked)}")
        self._note_more_skips()
        self._expand()
        self._check("packing", 0.85)
        self._verify()
        self._mark_covered()
        reason = (
            f"packed into the budget of {fmt(budget)} less a safety margin of {fmt(margin)} tokens "
            f"({self.counter.name}, metadata included)"
        )
        plans = [
            SectionPlan(SECURITY, self.limit, self._pieces(RULE_FILE), reason),
            SectionPlan(SPEC, self.limit, self._pieces(SPEC_PARAGRAPH), reason),
        ]
        return self.result(plans, tokenizer=self.counter.name, buffer=margin)

    # -- candidates -----------------------------------------------------------------------------

    def _rule_chunks(self) -> list[Chunk]:
        out = []
        for c in self.rules:
            if c.block is None:
                continue
            c.draft.reason = c.why
            out.append(self._chunk(c.draft, 0, (1, c.block.total_lines), "security rules for the task's files"))
        return out

    def _spec_chunks(self, part: SpecPart) -> list[Chunk]:
        ranked = ranking(part.index, [k.word for k in self.keywords], lambda: self._poll("ranking"))
        paragraphs = part.index.paragraphs
        out: list[Chunk] = []
        for para in paragraphs:
            if not para.index % CHECK_EVERY:
                self._poll("ranking")
            if para.blank:
                self.paragraph_draft(part, para, "blank paragraph: not a chunk")
                continue
            draft = self.paragraph_draft(part, para, "score 0: no task keyword occurs in it, not a chunk")
            hits = ranked.matched(para.index)
            draft.score, draft.matched = len(hits), hits
            self.drafts[(part.part, para.index)] = draft
            if hits:
                draft.reason = f"score {len(hits)}"
                chunk = self._paragraph_chunk(part, para.index)
                assert chunk is not None  # drafted just above
                out.append(chunk)
        for first, last in self._heading_sections(paragraphs):
            matched = sorted({w for n in range(first, last + 1) for w in ranked.matched(n)})
            if not matched:
                continue
            draft = self.span_draft(part, first, last, f"score {len(matched)}", f"{part.part}:\u00a7{first + 1}")
            draft.score, draft.matched = len(matched), tuple(matched)
            draft.details = {"chunk": f"heading section: paragraphs {first + 1}-{last + 1}"}
            out.append(self._span_chunk(part, draft, first, last))
        return out

    @staticmethod
    def _heading_sections(paragraphs: tuple[Paragraph, ...]) -> list[tuple[int, int]]:
        """(first, last) paragraph of every level-2+ heading's section of 2-50 paragraphs."""
        levels = [heading_level(p) for p in paragraphs]
        out = []
        for i, level in enumerate(levels):
            if level < 2:
                continue
            end = next((j for j in range(i + 1, len(levels)) if 0 < levels[j] <= level), len(levels))
            if 2 <= end - i <= MAX_SECTION_PARAGRAPHS:
                out.append((i, end - 1))
        return out

    def _span_chunk(self, part: SpecPart, draft: ItemDraft, first: int, last: int) -> Chunk:
        lines = (draft.line_start or 1, draft.line_end or 1)
        chunk = self._chunk(draft, draft.score or 0, lines, f"score {draft.score}")
        chunk.first, chunk.last, chunk.part = first, last, part
        return chunk

    def _chunk(self, draft: ItemDraft, score: int, lines: tuple[int, int], what: str) -> Chunk:
        meta = f"<!-- {draft.source} L{lines[0]}-{lines[1]} {what} -->"
        return Chunk(draft, score, lines, meta=meta, base=draft.reason if draft.kind == RULE_FILE else what)

    # -- packing ----------------------------------------------------------------------------------

    def _own_cost(self, chunk: Chunk) -> int:
        """The chunk's tokens with its metadata line, without a separator."""
        if not chunk.cost:
            chunk.cost = self.counter.count(f"{chunk.meta}\n{chunk.draft.text}")
        return chunk.cost

    def _cost(self, chunk: Chunk) -> int:
        return self._own_cost(chunk) + (self.sep if self.selected else 0)

    # -- the pool the steps measure ------------------------------------------------------------

    def _pool_size(self) -> tuple[int, int]:
        tokens, chars, n = self.pool
        return (tokens + self.sep * (n - 1), chars + 2 * (n - 1)) if n else (0, 0)

    def _pool_change(self, chunks: list[Chunk], sign: int) -> None:
        self.pool[0] += sign * sum(self._own_cost(c) for c in chunks)
        self.pool[1] += sign * sum(_chars(c) for c in chunks)
        self.pool[2] += sign * len(chunks)

    def _pool_step(self, chunks: list[Chunk], sign: int, action: str, target: str, description: str) -> None:
        """A step that takes *chunks* out of the pool (sign -1) or adds them (+1)."""
        before = self._pool_size()
        self._pool_change(chunks, sign)
        section = SECURITY if chunks and all(c.draft.kind == RULE_FILE for c in chunks) else SPEC
        self._step_counted(section, action, target, description, before, self._pool_size())

    def _skip(self, chunk: Chunk, action: str, description: str) -> None:
        """Primary selection turned *chunk* down: a step, or one of the summary's."""
        self.skips += 1
        if self.skips > MAX_SKIP_STEPS:
            self.deferred.append(chunk)
            return
        self._pool_step([chunk], -1, action, chunk.draft.id, description)

    def _note_more_skips(self) -> None:
        if self.deferred:
            self._pool_step(
                self.deferred,
                -1,
                "skip_no_fit",
                "",
                f"and {fmt(len(self.deferred))} more lower-ranked chunks did not fit or overlapped a packed one",
            )

    def _overlap(self, chunk: Chunk) -> tuple[Chunk, float] | None:
        """The selected chunk of the same file this one overlaps most, and by what share.

        The share is of the smaller of the two, so a section holding a selected paragraph
        overlaps it fully, as the paragraph does the section: either way the text would
        be in the context twice.
        """
        a, b = chunk.lines
        size = b - a + 1
        worst: tuple[Chunk, float] | None = None
        for other in self.selected:
            lo, hi = other.lines
            if hi < a or lo > b or other.draft.source != chunk.draft.source:
                continue
            shared = (hi if hi < b else b) - (lo if lo > a else a) + 1
            share = shared / min(size, hi - lo + 1)
            if worst is None or share > worst[1]:
                worst = (other, share)
        return worst

    def _offer(self, chunk: Chunk, why: str, room: int | None = None) -> bool:
        """Select *chunk* if it does not overlap and fits; record why not otherwise.

        *room* is the expansion budget left (None: primary selection).  A chunk that
        primary selection already turned down keeps that reason when expansion cannot
        take it either.
        """
        draft = chunk.draft
        say = room is None or draft.rank is None
        overlap = self._overlap(chunk)
        if overlap is not None and overlap[1] > MAX_OVERLAP:
            other, share = overlap
            if say:
                draft.status = OUTRANKED
                draft.reason = f"{why}, {chunk.base}: skipped, overlaps {other.label} by {percent(share)}"
            if room is None:
                self._skip(chunk, "skip_overlap", f"{chunk.label} overlaps {other.label} by {percent(share)}")
            return False
        cost = self._cost(chunk)
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
        self.used_chars += len(chunk.meta) + 1 + len(draft.text) + (2 if len(self.selected) > 1 else 0)
        draft.status, draft.kept_chars = INCLUDED, len(draft.text)
        draft.reason = f"{why}, {chunk.base}: packed ({fmt(cost)} tokens with its metadata)"
        return True

    def _expand(self) -> None:
        packed = len(self.selected)
        self._expand_neighbours()
        added = self.selected[packed:]
        if added:
            paragraphs = "paragraph" if len(added) == 1 else "paragraphs"
            self._pool_step(
                added, 1, "expand", "", f"structural expansion added {len(added)} neighbouring {paragraphs}"
            )

    def _expand_neighbours(self) -> None:
        room = int((self.limit - self.used) * EXPANSION_SHARE)
        if room <= 0:
            return
        for seed in [c for c in self.selected if c.part is not None]:
            assert seed.part is not None
            added = 0
            for index in self._neighbours(seed):
                neighbour = self._paragraph_chunk(seed.part, index)
                if neighbour is None or neighbour in self.selected or added >= NEIGHBOURS_PER_CHUNK:
                    continue
                before = self.used
                if self._offer(neighbour, f"structural expansion: a neighbour of {seed.label}", room):
                    room -= self.used - before
                    added += 1

    def _neighbours(self, seed: Chunk) -> list[int]:
        assert seed.part is not None
        count = len(seed.part.index.paragraphs)
        out = []
        for d in range(1, NEIGHBOURS_PER_CHUNK + 1):
            for index in (seed.last + d, seed.first - d):
                if 0 <= index < count:
                    out.append(index)
        return out

    def _paragraph_chunk(self, part: SpecPart, index: int) -> Chunk | None:
        """The chunk of one paragraph, made on first asking (None: a blank paragraph)."""
        key = (part.part, index)
        chunk = self.chunks.get(key)
        if chunk is None and key in self.drafts:
            chunk = self.chunks[key] = self._span_chunk(part, self.drafts[key], index, index)
        return chunk

    def _pieces(self, kind: str) -> list[Placed]:
        return [
            Placed(f"{c.meta}\n{c.draft.text}", c.draft, lead=len(c.meta) + 1, inner=c.inner)
            for c in self.selected
            if (c.draft.kind == RULE_FILE) == (kind == RULE_FILE)
        ]

    def _mark_covered(self) -> None:
        """The paragraphs of a packed section are in the context: say so, and where."""
        for chunk in self.selected:
            if chunk.part is None or chunk.first == chunk.last:
                continue
            at = 0
            for index in range(chunk.first, chunk.last + 1):
                draft = self.drafts.get((chunk.part.part, index))
                if draft is not None:
                    what = f"rank {draft.rank} of {self.ranked}, " if draft.rank else ""
                    draft.status, draft.kept_chars = INCLUDED, len(draft.text)
                    draft.reason = (
                        f"{what}score {draft.score or 0}: in the context as part of {chunk.label}, "
                        "so not packed again on its own"
                    )
                    chunk.inner.append((draft, at))
                at += len(chunk.part.index.paragraphs[index].text) + 2

    def _verify(self) -> None:
        """Check the joined context with one exact count; take out the last chunks if it is over."""
        budget = self.settings.budget
        text = self._joined()
        tokens = self.counter.count(text)
        while tokens > budget and self.selected:
            last = self.selected.pop()
            last.draft.status, last.draft.kept_chars = CUT_FOR_BUDGET, 0
            last.draft.reason += f"; taken out again: the joined context counted {fmt(tokens)} tokens"
            self._pool_step(
                [last],
                -1,
                "verify_cut",
                last.draft.id,
                f"the joined context counted {fmt(tokens)} tokens exactly, over the budget of {fmt(budget)}: "
                f"took out {last.label}",
            )
            text = self._joined()
            tokens = self.counter.count(text)

    def _joined(self) -> str:
        sections = [joined(self._pieces(RULE_FILE)), joined(self._pieces(SPEC_PARAGRAPH))]
        return "\n\n".join(s for s in sections if s)
