"""The ctxviewer run's stages, each alone, with a counter of one token per character.

Counting characters makes every cost below a length one can check by eye: a separator
``"\\n\\n"`` costs 2, the cut marker ``" […]"`` 4.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

from ctxviewer.engine.profiles.base import ItemDraft
from ctxviewer.engine.profiles.ctxviewer.run import (
    CUT_MARKER,
    Budgets,
    Candidate,
    Heading,
    Packer,
    document_order,
    fit_in_order,
    last_packed,
    rarity_weights,
    split_budget,
    worth,
)
from ctxviewer.engine.profiles.gathering import Placed, SpecPart
from ctxviewer.engine.profiles.mahabharatha import DESIGN_HEADER, REQUIREMENTS_HEADER
from ctxviewer.engine.signals.spec import spec_index
from ctxviewer.engine.trace.model import CUT_FOR_BUDGET, INCLUDED, NOT_CANDIDATE, OUTRANKED, SPEC, TRUNCATED


class Chars:
    """One token per character."""

    name = "chars"

    def count(self, text: str) -> int:
        return len(text)

    def count_many(self, texts: Iterable[str]) -> list[int]:
        return [len(t) for t in texts]

    def fits_prefix(self, text: str, max_tokens: int) -> int:
        return min(len(text), max(0, max_tokens))


REQ = SpecPart("requirements", "spec/requirements.md", spec_index("one\n\ntwo\n\nthree\n\nfour", 1))
DESIGN = SpecPart("design", "spec/design.md", spec_index("five", 1))
HEADERS = {"requirements": 10, "design": 10}


def _candidate(n: int, text: str, counts: Mapping[str, int], weight: Mapping[str, float], part: SpecPart = REQ,
               heading: Heading | None = None) -> Candidate:  # fmt: skip
    draft = ItemDraft(f"{part.part}:{n + 1}", "spec_paragraph", SPEC, part.part, part.source, n + 1, n + 1, None, (),
                      None, NOT_CANDIDATE, "", text, 0)  # fmt: skip
    return Candidate(part, n, draft, counts, len(text), worth(weight, counts, set()), heading)


# -- budgets -----------------------------------------------------------------------------------


def test_split_budget_takes_int_of_each_share_and_the_buffer_is_the_rest() -> None:
    budgets = split_budget(999, 0.3, 0.55)  # 299.7 and 549.45
    assert budgets == Budgets(999, 299, 549)
    assert budgets.buffer == 151


def test_fit_in_order_keeps_whole_costs_while_they_fit_and_later_ones_still_try() -> None:
    # 2 already used of 12: 5 fits (7 used), 10 does not (17), 3 does (10)
    assert fit_in_order([5, 10, 3], 2, 12) == [(True, 10), (False, 5), (True, 5)]
    assert fit_in_order([10], 2, 12) == [(True, 10)]  # exactly full fits


# -- worth -------------------------------------------------------------------------------------


def test_rarity_weights_are_log_one_plus_paragraphs_over_those_holding_the_keyword() -> None:
    per_part = [{0: {"a": 1, "b": 2}, 1: {"a": 3}}, {0: {"c": 1}}]  # a in 2 paragraphs, b in 1, c in 1
    weights = rarity_weights(per_part, 4)
    assert weights == {"a": math.log(3), "b": math.log(5), "c": math.log(5)}


def test_worth_counts_a_covered_keyword_a_quarter_and_ignores_how_often_it_occurs() -> None:
    assert worth({"a": 2.0, "b": 1.0}, {"a": 5, "b": 1}, {"b"}) == 2.25


# -- packing -----------------------------------------------------------------------------------


def test_packer_packs_by_worth_per_token_and_charges_the_header_once() -> None:
    weight = {"x": 3.0, "y": 1.0}
    a = _candidate(0, "a" * 20, {"x": 1}, weight)  # 3 for 20 + 2 + header 10 = 32: 0.094 per token
    b = _candidate(1, "b" * 10, {"y": 1}, weight)  # 1 for 22: 0.045
    c = _candidate(2, "c" * 40, {"x": 1, "y": 1}, weight)  # 4 for 52: 0.077
    packer = Packer(Chars(), weight, HEADERS, 0.8)
    packer.pack([a, b, c], 50)
    # a first (32 of 50); c would now cost 42 of the 18 left; b costs 12 now the header is placed
    assert packer.chosen == [a, b] and packer.unfit == [c] and packer.used == 44
    assert (c.draft.status, c.draft.reason) == (CUT_FOR_BUDGET, "42 tokens did not fit the 18 left")
    assert b.draft.reason == "packed 2: worth 1.00 for 12 tokens (0.0833 per token), keywords y"
    assert packer.covered == {"x", "y"} and packer.opened == {"requirements"}


def test_packer_leaves_out_a_near_duplicate_of_one_packed() -> None:
    weight = {"x": 1.0}
    a = _candidate(0, "alpha beta gamma delta", {"x": 1}, weight)
    b = _candidate(1, "alpha beta gamma delta", {"x": 1}, weight)
    packer = Packer(Chars(), weight, HEADERS, 0.8)
    packer.pack([a, b], 1000)
    assert packer.chosen == [a]
    assert b.draft.status == OUTRANKED and b.draft.reason.startswith("near-duplicate of ")
    assert b.draft.reason.endswith(": 100% of their word triples are shared")
    assert [c for c, _ in packer.duplicates] == [b]


def test_packer_fills_the_room_left_with_a_paragraph_cut_at_a_word() -> None:
    weight = {"x": 1.0}
    text = " ".join(["Alpha beta gamma delta."] * 5)  # 5 x 23 characters and 4 spaces: 119
    d = _candidate(0, text, {"x": 1}, weight)
    packer = Packer(Chars(), weight, HEADERS, 0.8)
    packer.pack([d], 60)  # it costs 119 + 2 + 10
    assert packer.chosen == [] and packer.unfit == [d]
    partial = packer.partial(60)
    assert partial is not None
    # room 60 - 2 (separator) - 4 (marker) - 10 (header) = 44 characters; the sentence end at 22 is
    # not past half of them, so the cut is at the last space before 44: after "... Alpha beta gamma"
    candidate, piece = partial
    assert candidate is d and piece.text == text[:40] + CUT_MARKER
    assert (d.draft.status, d.draft.kept_chars) == (TRUNCATED, 40)
    assert packer.partly is not None and packer.partly[0] is d
    assert packer.partly[1].endswith(": kept 40 of 119 characters to fill the 60 tokens left")


def test_packer_adds_no_partial_under_the_minimum_room() -> None:
    packer = Packer(Chars(), {"x": 1.0}, HEADERS, 0.8)
    packer.unfit = [_candidate(0, "x" * 100, {"x": 1}, {"x": 1.0})]
    assert packer.partial(2 + 4 + 23) is None  # 23 tokens of room for text: under 24


# -- layout and the exact check ----------------------------------------------------------------


def test_document_order_puts_parts_in_order_paragraphs_by_index_and_each_heading_once() -> None:
    weight = {"x": 1.0}
    heading_draft = ItemDraft("requirements:1", "spec_paragraph", SPEC, "requirements", REQ.source, 1, 1, None, (),
                              None, NOT_CANDIDATE, "", "## H", 0)  # fmt: skip
    heading = Heading(heading_draft, 4)
    p2 = _candidate(1, "two", {"x": 1}, weight, heading=heading)
    p4 = _candidate(3, "four", {"x": 1}, weight, heading=heading)
    p5 = _candidate(0, "five", {"x": 1}, weight, part=DESIGN)
    chosen = [p5, p4, p2]  # packing order
    pieces_by = {id(c): Placed(c.draft.text, c.draft) for c in chosen}
    pieces = document_order([REQ, DESIGN], chosen, pieces_by)
    assert [p.text for p in pieces] == [REQUIREMENTS_HEADER, "## H", "two", "four", DESIGN_HEADER, "five"]
    assert heading_draft.status == INCLUDED


def test_last_packed_is_the_latest_in_packing_order_else_the_last_piece() -> None:
    drafts = [
        ItemDraft(str(n), "k", SPEC, "p", "s", None, None, None, (), None, INCLUDED, "", "t", 1) for n in range(3)
    ]
    pieces = [Placed("header"), *(Placed("t", d) for d in drafts)]
    assert last_packed(pieces, {id(drafts[2]): 0, id(drafts[0]): 1}) is pieces[1]  # drafts[0] packed last
    assert last_packed(pieces, {}) is pieces[3]  # none known: the last that holds a draft
