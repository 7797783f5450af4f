"""The candidates and their ranking: rule files and spec chunks, each with its metadata line.

A chunk is a rule file the reference filter matched (its whole summary block), a spec
paragraph scoring above 0, or a ``##``-or-deeper heading section of 2-50 paragraphs
scoring above 0.  :func:`rank_chunks` puts the rule files first, then the spec chunks
by score, a tie going to the smaller chunk, then to document order.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from ctxviewer.engine.profiles.base import ItemDraft, plain_name
from ctxviewer.engine.profiles.gathering import RuleCandidate, SpecPart, heading_level
from ctxviewer.engine.signals.spec import CHECK_EVERY, Paragraph, ranking
from ctxviewer.engine.trace.model import RULE_FILE

#: Heading sections longer than this many paragraphs are not chunks.
MAX_SECTION_PARAGRAPHS = 50


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

    @property
    def chars(self) -> int:
        """The chunk's characters with its metadata line."""
        return len(self.meta) + 1 + len(self.draft.text)


def make_chunk(draft: ItemDraft, score: int, lines: tuple[int, int], what: str) -> Chunk:
    """A chunk of *draft* at *lines*, its metadata line saying *what* it is (``score 3``)."""
    meta = f"<!-- {draft.source} L{lines[0]}-{lines[1]} {what} -->"
    return Chunk(draft, score, lines, meta=meta, base=draft.reason if draft.kind == RULE_FILE else what)


def span_chunk(part: SpecPart, draft: ItemDraft, first: int, last: int) -> Chunk:
    """The chunk of paragraphs *first*..*last* of *part*, drafted as *draft*."""
    lines = (draft.line_start or 1, draft.line_end or 1)
    chunk = make_chunk(draft, draft.score or 0, lines, f"score {draft.score}")
    chunk.first, chunk.last, chunk.part = first, last, part
    return chunk


def rule_chunks(rules: Sequence[RuleCandidate]) -> list[Chunk]:
    """A chunk of each matched rule file with a summary block, in the filter's order."""
    out = []
    for c in rules:
        if c.block is None:
            continue
        c.draft.reason = c.why
        out.append(make_chunk(c.draft, 0, (1, c.block.total_lines), "security rules for the task's files"))
    return out


class ParagraphChunks:
    """Every non-blank paragraph's draft by (part, paragraph index), and its chunk, made on first asking.

    Primary selection packs the scoring paragraphs; structural expansion may add any
    other non-blank paragraph next to a packed chunk: both ask here, so a paragraph is one chunk.
    """

    def __init__(self) -> None:
        self.drafts: dict[tuple[str, int], ItemDraft] = {}
        self._chunks: dict[tuple[str, int], Chunk] = {}

    def chunk(self, part: SpecPart, index: int) -> Chunk | None:
        """The chunk of paragraph *index* of *part* (None: a blank paragraph)."""
        key = (part.part, index)
        chunk = self._chunks.get(key)
        if chunk is None and key in self.drafts:
            chunk = self._chunks[key] = span_chunk(part, self.drafts[key], index, index)
        return chunk


class Drafter(Protocol):
    """What drafts the spec's items (and records them in the run): :class:`~..gathering.PeerRun`."""

    def paragraph_draft(self, part: SpecPart, para: Paragraph, reason: str) -> ItemDraft: ...

    def span_draft(self, part: SpecPart, first: int, last: int, reason: str, item_id: str = "") -> ItemDraft: ...


def spec_chunks(
    part: SpecPart,
    keywords: Sequence[str],
    drafter: Drafter,
    paragraphs: ParagraphChunks,
    poll: Callable[[], None],
) -> list[Chunk]:
    """Every chunk of *part* scoring above 0: its paragraphs, then its heading sections.

    Every paragraph gets a draft (blank ones and those scoring 0 say why they are not
    chunks), recorded in *paragraphs*; *poll* is called every few thousand paragraphs.
    """
    ranked = ranking(part.index, keywords, poll)
    out: list[Chunk] = []
    for para in part.index.paragraphs:
        if not para.index % CHECK_EVERY:
            poll()
        if para.blank:
            drafter.paragraph_draft(part, para, "blank paragraph: not a chunk")
            continue
        draft = drafter.paragraph_draft(part, para, "score 0: no task keyword occurs in it, not a chunk")
        hits = ranked.matched(para.index)
        draft.score, draft.matched = len(hits), hits
        paragraphs.drafts[(part.part, para.index)] = draft
        if hits:
            draft.reason = f"score {len(hits)}"
            chunk = paragraphs.chunk(part, para.index)
            assert chunk is not None  # drafted just above
            out.append(chunk)
    for first, last in heading_sections(part.index.paragraphs):
        matched = sorted({w for n in range(first, last + 1) for w in ranked.matched(n)})
        if not matched:
            continue
        draft = drafter.span_draft(part, first, last, f"score {len(matched)}", f"{part.part}:\u00a7{first + 1}")
        draft.score, draft.matched = len(matched), tuple(matched)
        draft.details = {"chunk": f"heading section: paragraphs {first + 1}-{last + 1}"}
        out.append(span_chunk(part, draft, first, last))
    return out


def heading_sections(paragraphs: Sequence[Paragraph]) -> list[tuple[int, int]]:
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


def rank_chunks(rules: Sequence[Chunk], spec: Sequence[Chunk], parts: Sequence[SpecPart]) -> list[Chunk]:
    """Rule chunks first, then spec chunks by score, smaller first, then by document order; ranks set."""
    order = {part.part: n for n, part in enumerate(parts)}
    ranked = [
        *rules,
        *sorted(spec, key=lambda c: (-c.score, len(c.draft.text), order[c.draft.part], c.lines[0], c.last - c.first)),
    ]
    for n, chunk in enumerate(ranked, start=1):
        chunk.draft.rank = n
    return ranked
