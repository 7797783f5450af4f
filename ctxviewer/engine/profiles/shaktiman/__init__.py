"""Profile ``shaktiman``: rank every candidate, pack the best into the budget, exactly.

Seed 002's assembler over ctxviewer's sources: rule blocks, spec paragraphs and heading
sections ranked by score, packed with a metadata line each while they fit, overlaps
skipped, then neighbours added; the rules are in docs/profiles.md#shaktiman.  The run
(:mod:`.run`) is a sequence of stages, each readable and testable alone: the peers'
gathering (:class:`~ctxviewer.engine.profiles.gathering.PeerRun`) -> the candidates and
their ranking (:mod:`.chunks`) -> primary selection, structural expansion and the final
exact check (:mod:`.packing`) -> the layout.  :mod:`.refit` replays packing alone.
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
