"""The shaktiman profile's run: its stages in order, each one's output the next one's input.

gather (the peer profiles' task, rule and spec reading) -> candidates and ranking
(:mod:`.chunks`) -> primary selection, expansion, the final check (:mod:`.packing`) ->
the paragraphs a packed section covers -> the two sections' layout.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ctxviewer.engine.profiles.base import ProfileResult, fmt
from ctxviewer.engine.profiles.gathering import PeerRun, SectionPlan
from ctxviewer.engine.profiles.shaktiman.chunks import Chunk, ParagraphChunks, rank_chunks, rule_chunks, spec_chunks
from ctxviewer.engine.profiles.shaktiman.packing import Packer, mark_covered
from ctxviewer.engine.trace.model import RULE_FILE, SECURITY, SPEC, SPEC_PARAGRAPH


def packing_limit(budget: int, margin_share: float) -> tuple[int, int]:
    """The tokens chunks may fill, and the margin kept free: *margin_share* of *budget*, at least 1."""
    margin = max(1, math.ceil(budget * margin_share))
    return budget - margin, margin


@dataclass(frozen=True)
class Candidates:
    """What the stages before packing work out: nothing in it depends on the budget."""

    #: Every non-blank paragraph's draft, and its chunk (structural expansion asks here).
    paragraphs: ParagraphChunks
    #: The chunks in rank order (rule files first), ranks set.
    ranked: list[Chunk]


class ShaktimanRun(PeerRun):
    """One run of the shaktiman strategy over one task."""

    def run(self) -> ProfileResult:
        candidates = self.candidates()
        paragraphs, ranked = candidates.paragraphs, candidates.ranked
        budget = self.settings.budget
        limit, margin = packing_limit(budget, self.settings.shaktiman_margin)
        packer = Packer(limit, self.counter, ranked, self._step_counted)
        packer.primary(ranked)
        packer.expand(paragraphs)
        self._check("packing", 0.85)
        packer.verify(budget)
        mark_covered(packer.selected, paragraphs, len(ranked))
        reason = (
            f"packed into the budget of {fmt(budget)} less a safety margin of {fmt(margin)} tokens "
            f"({self.counter.name}, metadata included)"
        )
        plans = [
            SectionPlan(SECURITY, limit, packer.pieces(RULE_FILE), reason),
            SectionPlan(SPEC, limit, packer.pieces(SPEC_PARAGRAPH), reason),
        ]
        return self.result(plans, tokenizer=self.counter.name, buffer=margin)

    def candidates(self) -> Candidates:
        """Gather, then every chunk ranked: the stages a refit reuses at every budget (:mod:`.refit`)."""
        self.gather()
        paragraphs = ParagraphChunks()
        words = [k.word for k in self.keywords]
        rules = rule_chunks(self.rules)
        spec = [c for part in self.parts for c in spec_chunks(part, words, self, paragraphs, self._poll_ranking)]
        self._check("ranking", 0.6)
        return Candidates(paragraphs, rank_chunks(rules, spec, self.parts))

    def _poll_ranking(self) -> None:
        self._poll("ranking")
