"""The ``drift`` profile's run (seed 001): hard caps while extracting, then cuts in priority order.

:meth:`DriftRun.prepare` makes everything up to the caps, none of which depends on the budget;
:meth:`DriftRun.take` makes the next cut, in an order that does not either, so :mod:`.refit`
answers other budgets from one walk of the cuts.  The rules: ``docs/profiles.md`` (drift).
"""

from __future__ import annotations

from dataclasses import dataclass

from ctxviewer.engine.profiles.base import ItemDraft, ProfileResult, fmt, plain_name
from ctxviewer.engine.profiles.gathering import (
    PeerRun,
    Placed,
    RuleCandidate,
    SectionPlan,
    SpecPart,
    joined,
    keep_prefix,
    keep_whole,
)
from ctxviewer.engine.profiles.mahabharatha import SECURITY_HEADER
from ctxviewer.engine.signals.spec import CHECK_EVERY, ranking
from ctxviewer.engine.trace.model import CUT_FOR_BUDGET, NOT_CANDIDATE, OUTRANKED, SECURITY, SPEC


@dataclass
class Unit:
    """A kept candidate that trimming may still cut: its draft and the text it adds."""

    draft: ItemDraft
    text: str
    capped: bool = False  # its text was cut by a hard cap


class DriftRun(PeerRun):
    """One run of the drift strategy over one task."""

    def run(self) -> ProfileResult:
        self.prepare()
        notes = self._trim()
        self._check("trimming", 0.9)
        if notes:
            kept = f"kept: its source is never cut, so the context stays over the budget of {fmt(self.settings.budget)}"
        else:
            kept = f"kept: the context is within the budget of {fmt(self.settings.budget)}"
        for units in self.units.values():
            for n, unit in enumerate(units, start=1):
                why = f"{unit.draft.reason}; {kept}"
                if unit.capped:
                    keep_prefix(unit.draft, len(unit.text), "", why, n)
                else:
                    keep_whole(unit.draft, why, n)
        budget = self.settings.budget
        reason = f"drift holds the whole context, not each section, to the budget of {fmt(budget)} tokens"
        plans = [
            SectionPlan(SECURITY, budget, self._security_pieces(), reason),
            SectionPlan(SPEC, budget, self._spec_pieces(), reason),
        ]
        return self.result(plans, buffer=0, notes=notes)

    def prepare(self) -> None:
        """Everything before trimming: gather, build the units, apply the hard caps.

        Nothing here depends on the budget; what is left in :attr:`units` is what trimming
        cuts from (:meth:`take`), and every draft not in it has its final fate.
        """
        self.gather()
        self.units: dict[str, list[Unit]] = {"rules": [], "requirements": [], "design": []}
        usable = [c for c in self.rules if c.block is not None]
        self.units["rules"] = [Unit(c.draft, c.draft.text) for c in usable]
        for part in self.parts:
            self.units[part.part] = self._paragraph_units(part)
        # Every cap is a step on the whole context as it stands (everything at first), as
        # every cut after it is, so all steps chain.
        self._cap_rules(usable)
        for part in self.parts:
            self._cap_paragraphs(part)
        self._check("caps", 0.6)

    # -- hard caps ---------------------------------------------------------------------------

    def _cap_rules(self, usable: list[RuleCandidate]) -> None:
        """The hard caps on rule files and on each file's rule lines."""
        units = self.units["rules"]
        cap = self.settings.drift_max_rule_files
        over = usable[cap:]
        if over:
            before = self.compose()
            del units[cap:]
            self._step(
                SECURITY,
                "cap_rule_files",
                ", ".join(c.draft.id for c in over),
                f"hard cap: at most {cap} rule files (drift.caps.rule_files); left out "
                + ", ".join(c.rule for c in over),
                before,
                self.compose(),
            )
            for c in over:
                c.draft.status = OUTRANKED
                c.draft.reason = f"{c.why}; left out by the hard cap of {cap} rule files (drift.caps.rule_files)"
        max_lines = self.settings.drift_max_rule_lines
        for c in usable[:cap]:
            assert c.block is not None
            lines = c.draft.text.split("\n")  # the block's own header line, then its kept lines
            c.draft.reason = c.why
            if len(lines) - 1 <= max_lines:
                continue
            text = "\n".join(lines[: max_lines + 1]) if max_lines else ""
            before = self.compose()
            at = next(n for n, u in enumerate(units) if u.draft is c.draft)
            if max_lines:
                units[at] = Unit(c.draft, text, capped=True)
            else:
                del units[at]
            self._step(
                SECURITY,
                "cap_rule_lines",
                c.draft.id,
                f"hard cap: {c.rule} keeps {max_lines} of its {len(lines) - 1} rule lines (drift.caps.rule_lines)",
                before,
                self.compose(),
            )
            if not max_lines:
                c.draft.status = CUT_FOR_BUDGET
                c.draft.reason = f"{c.why}; left out: the hard cap of 0 rule lines per file (drift.caps.rule_lines)"
                continue
            c.draft.reason = f"{c.why}; first {max_lines} of {len(lines) - 1} rule lines (drift.caps.rule_lines)"
            details = dict(c.draft.details or {})
            details["kept_lines"] = list(c.block.kept_lines[:max_lines])
            c.draft.details = details

    def _paragraph_units(self, part: SpecPart) -> list[Unit]:
        ranked = ranking(part.index, [k.word for k in self.keywords], lambda: self._poll("caps"))
        cap = self.settings.drift_max_paragraphs
        drafts: dict[int, ItemDraft] = {}
        for para in part.index.paragraphs:
            if not para.index % CHECK_EVERY:
                self._poll("caps")
            position = ranked.positions.get(para.index)
            matched = ranked.matched(para.index)
            fate = NOT_CANDIDATE
            if para.blank:
                why = "blank paragraph: skipped before scoring"
            elif position is None:
                why = "score 0: no task keyword occurs in it"
            elif position > cap:
                why = f"rank {position} (score {len(matched)}): left out by the hard cap of {cap} paragraphs per file"
                fate = OUTRANKED
            else:
                why = f"rank {position} of {len(ranked.ranked)} (score {len(matched)})"
            draft = self.paragraph_draft(part, para, why)
            draft.status = fate
            draft.score, draft.matched, draft.rank = len(matched), matched, position
            drafts[para.index] = draft
        return [Unit(drafts[s.paragraph.index], s.paragraph.text) for s in ranked.ranked]

    def _cap_paragraphs(self, part: SpecPart) -> None:
        """The hard cap on *part*'s scoring paragraphs: its top ``drift_max_paragraphs`` stay."""
        cap = self.settings.drift_max_paragraphs
        units = self.units[part.part]
        if len(units) <= cap:
            return
        before = self.compose()
        scoring = len(units)
        del units[cap:]
        name = part.source.rsplit("/", 1)[-1]
        self._step(
            SPEC,
            "cap_paragraphs",
            part.part,
            f"hard cap: {name} keeps the {cap} best of its {scoring} scoring paragraphs (drift.caps.paragraphs)",
            before,
            self.compose(),
        )

    # -- composing and trimming ------------------------------------------------------------------

    def _security_pieces(self) -> list[Placed]:
        units = self.units["rules"]
        if not units:
            return []
        return [Placed(SECURITY_HEADER[:-2]), *(Placed(u.text, u.draft) for u in units)]

    def _spec_pieces(self) -> list[Placed]:
        pieces: list[Placed] = []
        for part in self.parts:
            units = self.units[part.part]
            if units:
                pieces.append(Placed(part.header))
                pieces.extend(Placed(u.text, u.draft) for u in units)
        return pieces

    def compose(self) -> str:
        """The whole context as the units left make it: what drift holds to the budget."""
        sections = [joined(self._security_pieces()), joined(self._spec_pieces())]
        return "\n\n".join(s for s in sections if s)

    def _trim(self) -> list[str]:
        budget = self.settings.budget
        text = self.compose()
        tokens = self.counter.count(text)
        while tokens > budget:
            cut = self._cut(tokens)
            if cut is None:
                order = ", ".join(self.settings.drift_priority) or "nothing"
                return [
                    f"drift: the context is still {fmt(tokens)} tokens, over the budget of {fmt(budget)}, "
                    f"after cutting every source in its priority list ({order})"
                ]
            section, action, target, description = cut
            after = self.compose()
            after_tokens = self.counter.count(after)
            self._step_counted(section, action, target, description, (tokens, len(text)), (after_tokens, len(after)))
            text, tokens = after, after_tokens
        return []

    def _cut(self, tokens: int) -> tuple[str, str, str, str] | None:
        """Cut the next thing in priority order; (section, action, target, description), or None."""
        taken = self.take()
        if taken is None:
            return None
        rank, source, gone = taken
        budget = self.settings.budget
        order = self.settings.drift_priority
        step = len(self.steps) + 1
        for unit in gone:
            unit.draft.status, unit.draft.kept_chars = CUT_FOR_BUDGET, 0
            unit.draft.reason = (
                f"{unit.draft.reason}; cut by trim step {step}: the context was {fmt(tokens)} tokens, over the "
                f"budget of {fmt(budget)}, and {source} is priority {rank} of {len(order)} to cut"
            )
        section = SECURITY if source == "rules" else SPEC
        if self.settings.drift_partial:
            action = "cut_rule_file" if source == "rules" else "cut_paragraph"
            what = plain_name(gone[0].draft) if source == "rules" else f"the lowest-ranked {plain_name(gone[0].draft)}"
            return section, action, gone[0].draft.id, f"over budget: cut {what}"
        return section, "cut_source", source, f"over budget: cut all of {source} ({len(gone)} items)"

    def take(self) -> tuple[int, str, list[Unit]] | None:
        """Take the next cut's units out of :attr:`units`: (the source's priority, the source, the units).

        The first source of ``drift_priority`` with units left loses its last unit (with
        ``drift_partial``) or all of them; None when every listed source is empty.  The
        sequence of cuts does not depend on the budget: the budget only decides where it stops.
        """
        for rank, source in enumerate(self.settings.drift_priority, start=1):
            units = self.units[source]
            if not units:
                continue
            if self.settings.drift_partial:
                return rank, source, [units.pop()]
            gone = units[:]
            units.clear()
            return rank, source, gone
        return None
