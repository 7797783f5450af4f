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

The run (:mod:`.run`) is a sequence of stages, each readable and testable alone: the
peer profiles' gathering (:class:`~ctxviewer.engine.profiles.gathering.PeerRun`) -> the
candidates and their ranking (:mod:`.chunks`) -> primary selection, structural
expansion and the final exact check (:mod:`.packing`) -> the sections' layout.
:mod:`.refit` replays the packing stages alone at other budgets, for exact sensitivity.
"""

from ctxviewer.engine.profiles.shaktiman.chunks import (
    MAX_SECTION_PARAGRAPHS,
    Chunk,
    ParagraphChunks,
    heading_sections,
    rank_chunks,
    rule_chunks,
    spec_chunks,
)
from ctxviewer.engine.profiles.shaktiman.packing import (
    EXPANSION_SHARE,
    MAX_OVERLAP,
    MAX_SKIP_STEPS,
    NEIGHBOURS_PER_CHUNK,
    Packer,
    Pool,
    mark_covered,
    neighbours,
    overlap,
    percent,
)
from ctxviewer.engine.profiles.shaktiman.run import ShaktimanRun, packing_limit

__all__ = [
    "EXPANSION_SHARE",
    "MAX_OVERLAP",
    "MAX_SECTION_PARAGRAPHS",
    "MAX_SKIP_STEPS",
    "NEIGHBOURS_PER_CHUNK",
    "Chunk",
    "Packer",
    "ParagraphChunks",
    "Pool",
    "ShaktimanRun",
    "heading_sections",
    "mark_covered",
    "neighbours",
    "overlap",
    "packing_limit",
    "percent",
    "rank_chunks",
    "rule_chunks",
    "spec_chunks",
]
