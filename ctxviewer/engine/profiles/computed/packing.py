"""Packing: the kept entries rendered in seed 004's injection format, cut until the whole fits.

:func:`render` lays the sections out (each kept entry's offset in its section recorded on
its draft); :func:`fit` renders, and while the whole counts over the budget cuts one
entry at a time, least important first (:data:`~.model.CUT_ORDER`, each section from
the bottom), re-rendering after each cut.
"""

from __future__ import annotations

from dataclasses import dataclass

from ctxviewer.engine.profiles.base import fmt, plain_name
from ctxviewer.engine.profiles.computed.model import (
    CODE_REFS,
    CUT_ORDER,
    EMPTY_TEXT,
    HEADER,
    PRIOR_WORK,
    QUESTIONS,
    QUESTIONS_LEAD,
    SECTIONS,
    Entries,
    Entry,
)
from ctxviewer.engine.tokens.counting import Census, TokenCounter, TokenCounts
from ctxviewer.engine.trace.model import CUT_FOR_BUDGET, INCLUDED, Section

TABLE_HEAD = "| Location | Component | Notes |\n|----------|-----------|-------|\n"


@dataclass(frozen=True)
class Cut:
    """One entry cut to fit the budget: what the trim step records."""

    entry: Entry
    description: str
    #: (tokens, characters) of the whole context before and after the cut.
    before: tuple[int, int]
    after: tuple[int, int]


@dataclass(frozen=True)
class Packed:
    """The context that fits (or that cannot be cut further), its sections and the cuts made."""

    context: str
    #: Counted exactly per section with the census (the render's own counts are placeholders).
    sections: tuple[Section, ...]
    #: The context's tokens with the decision tokenizer.
    tokens: int
    cuts: tuple[Cut, ...]


def _body(name: str, texts: list[str]) -> tuple[str, str, int]:
    """A section's body from its kept texts, the joiner between them, and the characters before the first."""
    if name == CODE_REFS:
        return TABLE_HEAD + "\n".join(texts), "\n", len(TABLE_HEAD)
    if name == PRIOR_WORK:
        return "\n\n".join(texts), "\n\n", 0
    if name == QUESTIONS:
        return QUESTIONS_LEAD + "\n" + "\n".join(texts), "\n", len(QUESTIONS_LEAD) + 1
    return "\n".join(texts), "\n", 0


def render(entries: Entries, budget: int, empty: TokenCounts) -> tuple[str, list[Section]]:
    """The injection of the kept *entries* and its sections (tokens: *empty*, filled in later).

    Each kept entry's draft gets its offset in its section and its kept characters; the
    others' are cleared.
    """
    parts = [HEADER]
    sections: list[Section] = []
    offset = len(HEADER)
    for name, title in SECTIONS:
        kept = [e for e in entries[name] if e.kept]
        heading = f"### {title}"
        if kept:
            body, joiner, lead = _body(name, [e.text for e in kept])
            pos = len(heading) + 1 + lead
            for e in kept:
                e.draft.offset = pos
                e.draft.kept_chars = len(e.text)
                pos += len(e.text) + len(joiner)
            text = f"{heading}\n{body}"
        else:
            text = heading if EMPTY_TEXT[name] is None else f"{heading}\n{EMPTY_TEXT[name]}"
        start = offset + 2
        parts.append(text)
        offset = start + len(text)
        cut = sum(1 for e in entries[name] if e.cut_for_budget)
        sections.append(
            Section(
                name=name,
                title=title,
                text=text,
                budget=budget,
                tokens=empty,
                status=INCLUDED,
                reason=f"{len(kept)} kept" + (f", {cut} cut for the budget" if cut else ""),
                span=(start, start + len(text)),
            )
        )
    for e in (e for section in entries.values() for e in section if not e.kept):
        e.draft.offset = None
        e.draft.kept_chars = 0
    return "\n\n".join(parts), sections


def cut_order(entries: Entries) -> list[Entry]:
    """The kept entries in the order :func:`fit` cuts them (:data:`~.model.CUT_ORDER`, each section from the bottom).

    The order does not depend on the budget: the budget only decides how many are cut.
    """
    return [e for name in CUT_ORDER for e in reversed(entries[name]) if e.kept]


def fit(entries: Entries, budget: int, counter: TokenCounter, census: Census) -> Packed:
    """Render *entries*, cutting the least important kept ones until the whole counts *budget* or less."""
    empty = census.measure("")
    context, sections = render(entries, budget, empty)
    tokens = counter.count(context)
    cuts: list[Cut] = []
    for entry in cut_order(entries):
        if tokens <= budget:
            break
        entry.kept = False
        entry.cut_for_budget = True
        before = (tokens, len(context))
        context, sections = render(entries, budget, empty)
        tokens = counter.count(context)
        entry.draft.status = CUT_FOR_BUDGET
        entry.draft.reason += f"; cut to fit the budget of {fmt(budget)}"
        description = (
            f"cut {plain_name(entry.draft)} from {dict(SECTIONS)[entry.section]} "
            f"(the whole context was over {fmt(budget)})"
        )
        cuts.append(Cut(entry, description, before, (tokens, len(context))))
    counts = census.measure_many([s.text for s in sections])
    finished = tuple(
        Section(s.name, s.title, s.text, s.budget, c, s.status, s.reason, s.span)
        for s, c in zip(sections, counts, strict=True)
    )
    return Packed(context, finished, tokens, tuple(cuts))
