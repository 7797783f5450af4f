"""The shaktiman profile's stages, each alone on tiny hand-built chunks (no project, no run).

The whole run is tested in ``test_run.py``.  Here a tokenizer of one token per
character makes every cost a length, worked out in the comments.
"""

from __future__ import annotations

from collections.abc import Iterable

from ctxviewer.engine.profiles.base import ItemDraft
from ctxviewer.engine.profiles.gathering import SpecPart
from ctxviewer.engine.profiles.shaktiman import (
    Chunk,
    Packer,
    ParagraphChunks,
    Pool,
    heading_sections,
    neighbours,
    packing_limit,
    rank_chunks,
    spec_chunks,
)
from ctxviewer.engine.profiles.shaktiman.chunks import make_chunk
from ctxviewer.engine.signals.spec import Paragraph, spec_index
from ctxviewer.engine.trace.model import (
    CUT_FOR_BUDGET,
    INCLUDED,
    NOT_CANDIDATE,
    OUTRANKED,
    RULE_FILE,
    SPEC,
    SPEC_PARAGRAPH,
)


class CharCounter:
    """One token per character."""

    name = "chars"

    def count(self, text: str) -> int:
        return len(text)

    def count_many(self, texts: Iterable[str]) -> list[int]:
        return [len(t) for t in texts]


def draft(item_id: str, source: str, text: str, kind: str = SPEC_PARAGRAPH, part: str = "requirements") -> ItemDraft:
    return ItemDraft(item_id, kind, SPEC, part, source, 1, 1, None, (), None, NOT_CANDIDATE, "", text, 0)


def chunk(item_id: str, source: str, lines: tuple[int, int], text: str, rank: int | None = None) -> Chunk:
    """A chunk whose metadata line ``<!-- r.md L1-2 w -->`` is 20 characters for a 4-character source."""
    d = draft(item_id, source, text)
    d.rank = rank
    return make_chunk(d, 1, lines, "w")


def part(text: str, name: str = "requirements") -> SpecPart:
    return SpecPart(name, f"{name}.md", spec_index(text, 1))


# -- the margin -------------------------------------------------------------------------------


def test_the_margin_is_a_share_of_the_budget_rounded_up_and_at_least_one_token() -> None:
    assert packing_limit(1000, 0.02) == (980, 20)
    assert packing_limit(256, 0.001) == (255, 1)  # 0.256 rounds up to 1
    assert packing_limit(300, 0.0) == (299, 1)  # no margin is still one token


# -- candidates and ranking ---------------------------------------------------------------------


def test_heading_sections_span_two_to_fifty_paragraphs_up_to_the_next_heading_as_high() -> None:
    # paragraphs: 0 "## A", 1 x, 2 "### B", 3 y, 4 "## C", 5 z, 6 "## D", 7 "#not a heading"
    paragraphs = part("## A\n\nx\n\n### B\n\ny\n\n## C\n\nz\n\n## D\n\n#not a heading").index.paragraphs
    # "## A" runs to "## C" (4 paragraphs), "### B" to "## C" (2), "## C" to "## D" (2);
    # "## D" runs to the end, but "#not a heading" is a paragraph, so it spans 2 as well.
    assert heading_sections(paragraphs) == [(0, 3), (2, 3), (4, 5), (6, 7)]


def test_a_heading_with_only_itself_before_the_next_is_not_a_section() -> None:
    assert heading_sections(part("## A\n\n## B\n\ntext").index.paragraphs) == [(1, 2)]


def test_rules_rank_first_then_score_then_the_smaller_chunk_then_document_order() -> None:
    rule = make_chunk(draft("rule:x", "rules/x.md", "r" * 99, kind=RULE_FILE), 0, (1, 9), "rules")
    big = make_chunk(draft("s:1", "req.md", "b" * 50), 3, (1, 1), "w")
    long_ = make_chunk(draft("s:2", "req.md", "l" * 10), 2, (3, 3), "w")
    late = make_chunk(draft("s:3", "req.md", "t" * 5), 2, (9, 9), "w")
    early = make_chunk(draft("s:4", "req.md", "e" * 5), 2, (5, 5), "w")
    designed = make_chunk(draft("s:5", "des.md", "d" * 5, part="design"), 2, (1, 1), "w")
    parts = [part("x"), part("x", "design")]
    ranked = rank_chunks([rule], [long_, late, designed, big, early], parts)
    # score 3 first; among the score-2 chunks the 5-character ones before the 10-character
    # one, requirements before design, line 5 before line 9.
    assert [c.draft.id for c in ranked] == ["rule:x", "s:1", "s:4", "s:3", "s:5", "s:2"]
    assert [c.draft.rank for c in ranked] == [1, 2, 3, 4, 5, 6]


class Drafter:
    """Drafts as :class:`~ctxviewer.engine.profiles.gathering.PeerRun` does, keeping them in a list."""

    def __init__(self) -> None:
        self.items: list[ItemDraft] = []

    def paragraph_draft(self, part: SpecPart, para: Paragraph, reason: str) -> ItemDraft:
        return self.span_draft(part, para.index, para.index, reason)

    def span_draft(self, part: SpecPart, first: int, last: int, reason: str, item_id: str = "") -> ItemDraft:
        paragraphs = part.index.paragraphs[first : last + 1]
        text = "\n\n".join(p.text for p in paragraphs)
        d = ItemDraft(
            item_id or f"{part.part}:{first + 1}",
            SPEC_PARAGRAPH,
            SPEC,
            part.part,
            part.source,
            paragraphs[0].line_start,
            paragraphs[-1].line_end,
            None,
            (),
            None,
            NOT_CANDIDATE,
            reason,
            text,
            0,
        )
        self.items.append(d)
        return d


def test_spec_chunks_are_the_scoring_paragraphs_then_the_scoring_sections() -> None:
    spec = part("## Login\n\nThe form posts\n\nnothing here")
    drafter, paragraphs = Drafter(), ParagraphChunks()
    polls: list[int] = []
    chunks = spec_chunks(spec, ["login", "form"], drafter, paragraphs, lambda: polls.append(1))
    # "## Login" holds login (1), "The form posts" form (1), "nothing here" nothing; the
    # heading's section (paragraphs 1-3) holds both words: score 2.
    assert [(c.draft.id, c.score, c.first, c.last) for c in chunks] == [
        ("requirements:1", 1, 0, 0),
        ("requirements:2", 1, 1, 1),
        ("requirements:\u00a71", 2, 0, 2),
    ]
    assert chunks[2].meta == "<!-- requirements.md L1-5 score 2 -->"
    assert chunks[2].draft.details == {"chunk": "heading section: paragraphs 1-3"}
    # Every paragraph was drafted, in order, then the section; the one scoring 0 says why.
    assert [d.id for d in drafter.items] == [
        "requirements:1",
        "requirements:2",
        "requirements:3",
        "requirements:\u00a71",
    ]
    assert drafter.items[2].reason == "score 0: no task keyword occurs in it, not a chunk"
    # Each paragraph is one chunk however often it is asked for; paragraph 3 is a chunk too
    # (expansion may add it), a paragraph past the end is none.
    assert paragraphs.chunk(spec, 0) is chunks[0]
    assert paragraphs.chunk(spec, 2) is not None and paragraphs.chunk(spec, 2) is paragraphs.chunk(spec, 2)
    assert paragraphs.chunk(spec, 3) is None
    assert polls  # paragraph 0 is a multiple of the check interval


# -- packing ------------------------------------------------------------------------------------


def test_neighbours_are_nearest_first_the_one_after_before_the_one_before() -> None:
    spec = part("\n\n".join(f"p{n}" for n in range(10)))
    seed = make_chunk(draft("s", "r.md", "x"), 1, (1, 1), "w")
    seed.first, seed.last, seed.part = 3, 4, spec
    # one away: 5 and 2; two: 6 and 1; three: 7 and 0; four and five: 8 and 9 (before: none left)
    assert neighbours(seed) == [5, 2, 6, 1, 7, 0, 8, 9]


def test_the_pool_joins_its_chunks_with_separators() -> None:
    a, b, c = chunk("a", "r.md", (1, 1), "aaaa"), chunk("b", "r.md", (2, 2), "b"), chunk("c", "r.md", (3, 3), "")
    costs = {"a": 10, "b": 20, "c": 30}
    pool = Pool(3, lambda ch: costs[ch.draft.id], [a, b, c])
    # tokens 10 + 20 + 30 and two separators of 3; characters 25 + 22 + 21 (metadata line,
    # newline, text) and two blank lines.
    assert pool.size() == (66, 72)
    pool.change([a, c], -1)
    assert pool.size() == (20, 22)
    pool.change([b], -1)
    assert pool.size() == (0, 0)


def test_primary_selection_skips_overlaps_and_what_does_not_fit_each_a_chained_step() -> None:
    # Own costs (metadata line 20 + newline + text): a 25, b 25, c 61, d 23; a separator is 2.
    a = chunk("a", "r.md", (1, 2), "aaaa", rank=1)
    b = chunk("b", "r.md", (1, 3), "bbbb", rank=2)  # holds both of a's lines: 100% of the smaller
    c = chunk("c", "s.md", (1, 1), "c" * 40, rank=3)  # 61 + 2 = 63 > the 35 left after a
    d = chunk("d", "s.md", (5, 5), "dd", rank=4)  # 23 + 2 = 25 fits the 35 left
    steps: list[tuple[str, str, str, tuple[int, int], tuple[int, int]]] = []
    packer = Packer(60, CharCounter(), [a, b, c, d], lambda s, act, t, _, bf, af: steps.append((s, act, t, bf, af)))  # type: ignore[arg-type]
    packer.primary([a, b, c, d])
    assert packer.selected == [a, d] and packer.used == 50
    # The pool starts at 25 + 25 + 61 + 23 = 134 and three separators: 140 (characters the
    # same, one token per character); taking b out leaves 109 + 4, taking c out 48 + 2.
    assert steps == [
        (SPEC, "skip_overlap", "b", (140, 140), (113, 113)),
        (SPEC, "skip_no_fit", "c", (113, 113), (50, 50)),
    ]
    assert (a.draft.status, a.draft.reason) == (INCLUDED, "rank 1 of 4, w: packed (25 tokens with its metadata)")
    assert b.draft.status == OUTRANKED and b.draft.reason.endswith("by 100%")
    assert (c.draft.status, c.draft.reason) == (
        CUT_FOR_BUDGET,
        "rank 3 of 4, w: 63 tokens with its metadata did not fit the 35 left",
    )
    assert packer.joined() == f"{a.meta}\naaaa\n\n{d.meta}\ndd"
    # The final check: the joined 50 characters are over a budget of 49, so the last packed
    # chunk, d, comes out again; a alone (25) fits.
    packer.verify(49)
    assert packer.selected == [a]
    assert steps[-1] == (SPEC, "verify_cut", "d", (50, 50), (25, 25))
    assert (d.draft.status, d.draft.kept_chars) == (CUT_FOR_BUDGET, 0)


def test_only_forty_turned_down_chunks_are_steps_the_rest_one_summary() -> None:
    big = [chunk(f"c{n}", "s.md", (n, n), "x" * 100, rank=n) for n in range(1, 46)]
    steps: list[tuple[str, str]] = []
    packer = Packer(10, CharCounter(), big, lambda s, act, t, desc, bf, af: steps.append((t, desc)))  # type: ignore[arg-type]
    packer.primary(big)
    assert len(steps) == 41 and steps[39][0] == "c40"
    assert steps[40] == ("", "and 5 more lower-ranked chunks did not fit or overlapped a packed one")


def test_expansion_adds_neighbours_from_thirty_percent_of_what_is_left_in_one_step() -> None:
    spec = part("alpha\n\nbeta\n\ngamma")  # lines 1, 3, 5
    paragraphs = ParagraphChunks()
    ranked = rank_chunks([], spec_chunks(spec, ["beta"], Drafter(), paragraphs, lambda: None), [spec])
    steps: list[tuple[str, str, tuple[int, int], tuple[int, int]]] = []
    packer = Packer(200, CharCounter(), ranked, lambda s, act, t, desc, bf, af: steps.append((act, desc, bf, af)))  # type: ignore[arg-type]
    packer.primary(ranked)
    # "<!-- requirements.md L3-3 score 1 -->" is 37 characters: beta costs 37 + 1 + 4 = 42.
    assert packer.used == 42
    # Room: 30% of the 158 left, 47.  Gamma (after first) costs 37 + 1 + 5 + a separator =
    # 45 and fits, leaving 2; alpha would cost 45 too and does not.
    packer.expand(paragraphs)
    gamma, alpha = paragraphs.chunk(spec, 2), paragraphs.chunk(spec, 0)
    assert gamma is not None and alpha is not None
    assert packer.selected == [ranked[0], gamma] and packer.used == 87
    assert alpha.draft.status == CUT_FOR_BUDGET
    assert alpha.draft.reason.endswith("45 tokens with its metadata did not fit the 2 left of the expansion budget")
    assert steps == [("expand", "structural expansion added 1 neighbouring paragraph", (42, 42), (87, 87))]
