"""Spec paragraphs, their line numbers, scores, ranking and truncation.

Rules under test (the reference ``SpecLoader``):

* the file text is ``.strip()``-ed and split on ``"\\n\\n"``; blank paragraphs are skipped;
* a paragraph's score is how many keywords occur as substrings of its lowercased
  text; only scores above 0 are kept, stable-sorted by score, highest first; top 5;
* ``truncate(text, t)``: ``max_chars = t * 4``; unchanged when it fits; else cut to
  ``max_chars``, back to the last ``"\\n\\n"`` if past ``max_chars // 2``, else to just
  after the last ``". "``/``".\\n"`` if past half, else hard; then the marker.
"""

from __future__ import annotations

from ctxviewer.engine.signals import spec as spec_module
from ctxviewer.engine.signals.spec import (
    LRU,
    Scored,
    SpecIndex,
    build_index,
    rank,
    ranking,
    score_paragraphs,
    strip_with_offset,
    truncate,
)
from ctxviewer.engine.tokens.counting import HeuristicCounter

MARKER = "\n\n[... truncated for context limits ...]"


def index_of(paragraphs: list[str]) -> SpecIndex:
    return build_index("\n\n".join(paragraphs), 1)


# -- strip_with_offset / build_index: line numbers ---------------------------------------


def test_strip_with_offset_reports_the_line_the_stripped_text_starts_on() -> None:
    # "\n\n" before the text: it starts on line 3; trailing whitespace is dropped too
    assert strip_with_offset("\n\nhello\nworld \n\n") == ("hello\nworld", 3)


def test_strip_with_offset_counts_only_newlines_in_the_leading_whitespace() -> None:
    # leading "  \t\n " holds one newline: "x" is on line 2
    assert strip_with_offset("  \t\n x") == ("x", 2)


def test_strip_with_offset_without_leading_whitespace_is_line_one() -> None:
    assert strip_with_offset("x\n") == ("x", 1)


def test_strip_with_offset_of_blank_text_is_empty() -> None:
    assert strip_with_offset(" \n\t\n") == ("", 1)


def test_build_index_paragraph_line_numbers_match_the_file() -> None:
    text = "\n\nAlpha one\nalpha two\n\n\nBeta\n\n\n\nGamma\n\n"
    # file lines: 1 "", 2 "", 3 "Alpha one", 4 "alpha two", 5 "", 6 "", 7 "Beta",
    #             8 "", 9 "", 10 "", 11 "Gamma", 12 ""
    stripped, first = strip_with_offset(text)
    assert (stripped, first) == ("Alpha one\nalpha two\n\n\nBeta\n\n\n\nGamma", 3)
    # split on "\n\n": ["Alpha one\nalpha two", "\nBeta", "", "Gamma"]
    index = build_index(stripped, first)
    got = [(p.index, p.text, p.line_start, p.line_end, p.blank) for p in index.paragraphs]
    assert got == [
        (0, "Alpha one\nalpha two", 3, 4, False),
        (1, "\nBeta", 7, 7, False),  # the leading "\n" is line 6; Beta is line 7
        (2, "", 9, 9, True),
        (3, "Gamma", 11, 11, False),
    ]
    assert index.paragraphs[0].lower == "alpha one\nalpha two"
    assert index.text == stripped


def test_build_index_whitespace_only_paragraph_is_blank() -> None:
    index = build_index("a\n\n   \n\nb", 1)
    assert [p.text for p in index.paragraphs] == ["a", "   ", "b"]
    assert [p.blank for p in index.paragraphs] == [False, True, False]
    assert [p.line_start for p in index.paragraphs] == [1, 3, 5]


# -- scoring and ranking -----------------------------------------------------------------

SPEC_PARAGRAPHS = [
    "The login page shows a form.",  # 0: login, form           -> 2
    "Tokens are stored in the Token store.",  # 1: token, store  -> 2
    "   ",  # 2: blank                                          -> 0
    "Nothing relevant here.",  # 3: nothing                     -> 0
    "LOGIN uses tokens and the store.",  # 4: login, token, store -> 3
]
KEYWORDS = ["login", "token", "store", "form"]


def test_score_counts_keywords_occurring_as_substrings_of_the_lowercased_paragraph() -> None:
    scored = score_paragraphs(index_of(SPEC_PARAGRAPHS), KEYWORDS)
    assert [(s.paragraph.index, s.score, s.matched) for s in scored] == [
        (0, 2, ("form", "login")),
        (1, 2, ("store", "token")),  # "Tokens" and "stored" contain the keywords
        (2, 0, ()),
        (3, 0, ()),
        (4, 3, ("login", "store", "token")),  # "LOGIN" matches once lowercased
    ]


def test_score_finds_a_common_keyword_in_every_paragraph_holding_it() -> None:
    # "api" in paragraphs 0, 2 (twice), 3 (upper case) and 5 -> score 1 each, 0 elsewhere
    paragraphs = ["api", "no", "api api", "API", "nope", "the api"]
    scored = score_paragraphs(index_of(paragraphs), ["api"])
    assert [s.score for s in scored] == [1, 0, 1, 1, 0, 1]


def test_score_finds_a_rare_keyword_at_the_first_and_last_paragraph() -> None:
    # 9 paragraphs, "login" only at the very start of the first and the end of the last
    paragraphs = ["login first", *["filler"] * 7, "last login"]
    scored = score_paragraphs(index_of(paragraphs), ["login"])
    assert [s.score for s in scored] == [1, 0, 0, 0, 0, 0, 0, 0, 1]


def test_repeated_occurrences_in_one_paragraph_count_once() -> None:
    paragraphs = [*["filler"] * 5, "login login login", *["filler"] * 5]
    scored = score_paragraphs(index_of(paragraphs), ["login"])
    assert [s.score for s in scored] == [0] * 5 + [1] + [0] * 5


def test_lowercasing_that_changes_length_does_not_shift_matches() -> None:
    # "\u0130" (I with dot above) lowercases to two characters ("i" + combining dot):
    # the first paragraph grows from 9 to 17 characters when lowercased
    assert len("\u0130".lower()) == 2
    paragraphs = ["\u0130\u0130\u0130\u0130 \u0130\u0130\u0130\u0130", *["filler"] * 8, "has login"]
    scored = score_paragraphs(index_of(paragraphs), ["login", "has"])
    assert [s.score for s in scored] == [0] * 9 + [2]


def test_a_keyword_given_twice_counts_once() -> None:
    scored = score_paragraphs(index_of(["login login"]), ["login", "login"])
    assert scored[0].score == 1


def test_keywords_with_punctuation_match_literally() -> None:
    scored = score_paragraphs(index_of(["see the module.", "see the module here"]), ["module."])
    assert [s.score for s in scored] == [1, 0]


def test_rank_keeps_positive_scores_highest_first_stable_on_ties() -> None:
    ranked = rank(score_paragraphs(index_of(SPEC_PARAGRAPHS), KEYWORDS))
    # 4 (score 3), then 0 and 1 (score 2) in their original order; 2 and 3 dropped
    assert [s.paragraph.index for s in ranked] == [4, 0, 1]


def test_top_five_after_a_stable_sort_cuts_inside_a_tie() -> None:
    # scores by paragraph: a=1 b=2 c=1 d=2 e=1 f=2 g=3
    paragraphs = ["x1", "x1 x2", "x1", "x1 x2", "x1", "x1 x2", "x1 x2 x3"]
    ranked = rank(score_paragraphs(index_of(paragraphs), ["x1", "x2", "x3"]))
    # sorted: 6(3), 1(2), 3(2), 5(2), 0(1), 2(1), 4(1); the top 5 end with 0
    assert [s.paragraph.index for s in ranked] == [6, 1, 3, 5, 0, 2, 4]
    assert [s.paragraph.index for s in ranked[:5]] == [6, 1, 3, 5, 0]


def test_a_ranking_holds_the_stable_order_and_builds_its_scored_paragraphs_on_demand() -> None:
    # scores by paragraph: a=1 b=2 c=1 d=2 e=1 f=2 g=3 (as above); 7 is blank
    paragraphs = ["x1", "x1 x2", "x1", "x1 x2", "x1", "x1 x2", "x1 x2 x3", " "]
    index = index_of(paragraphs)
    ranked = ranking(index, ["x3", "x1", "x2"])
    assert ranked.order == (6, 1, 3, 5, 0, 2, 4)
    assert ranked.positions == {6: 1, 1: 2, 3: 3, 5: 4, 0: 5, 2: 6, 4: 7}
    assert ranked.ranked == tuple(rank(score_paragraphs(index, ["x1", "x2", "x3"])))
    assert ranked.top(2) == ranked.ranked[:2] and ranked.top(0) == () and ranked.top(99) == ranked.ranked
    assert (ranked.top(1)[0].score, ranked.top(1)[0].matched) == (3, ("x1", "x2", "x3"))
    assert ranked.ranked_text == "x1 x2 x3\n\nx1 x2\n\nx1 x2\n\nx1 x2\n\nx1\n\nx1\n\nx1"


def test_rank_of_nothing_matching_is_empty() -> None:
    scored: list[Scored] = score_paragraphs(index_of(["alpha", "beta"]), ["gamma"])
    assert rank(scored) == []


# -- truncate (heuristic counter: 4 characters per token) --------------------------------

H = HeuristicCounter()


def test_text_that_fits_is_unchanged() -> None:
    # t=2 -> max_chars 8; 8 characters fit exactly
    cut = truncate("12345678", 2, H)
    assert (cut.text, cut.boundary, cut.cut) == ("12345678", "none", False)
    assert (cut.kept_chars, cut.original_chars, cut.max_chars) == (8, 8, 8)


def test_one_character_over_is_cut_hard() -> None:
    # 9 characters, max_chars 8, no boundaries -> first 8 + marker
    cut = truncate("123456789", 2, H)
    assert cut.text == "12345678" + MARKER
    assert (cut.boundary, cut.kept_chars, cut.original_chars, cut.max_chars) == ("hard", 8, 9, 8)


def test_cut_at_the_last_paragraph_break_past_half() -> None:
    # t=5 -> max_chars 20, half 10. text = 12 a + "\n\n" + 12 b (26 chars)
    # cut = text[:20] = 12 a + "\n\n" + 6 b; last "\n\n" at 12 > 10 -> keep 12 a
    text = "a" * 12 + "\n\n" + "b" * 12
    cut = truncate(text, 5, H)
    assert cut.text == "a" * 12 + MARKER
    assert (cut.boundary, cut.kept_chars) == ("paragraph", 12)


def test_the_last_of_a_run_of_newlines_is_the_paragraph_break() -> None:
    # text = 12 a + "\n\n\n" + 10 b; cut = text[:20] = 12 a + "\n\n\n" + 5 b
    # rfind("\n\n") = 13 (newlines at 12, 13, 14) -> keep text[:13] = 12 a + "\n"
    text = "a" * 12 + "\n\n\n" + "b" * 10
    assert truncate(text, 5, H).text == "a" * 12 + "\n" + MARKER


def test_a_paragraph_break_exactly_at_half_is_not_used() -> None:
    # "\n\n" at index 10 == max_chars // 2 -> not past half, no sentence -> hard cut at 20
    text = "a" * 10 + "\n\n" + "b" * 20
    cut = truncate(text, 5, H)
    assert cut.text == "a" * 10 + "\n\n" + "b" * 8 + MARKER
    assert cut.boundary == "hard"


def test_a_paragraph_break_straddling_the_limit_is_not_seen() -> None:
    # 19 a + "\n\n" + b: text[:20] ends with a single "\n" -> no "\n\n" in the cut
    text = "a" * 19 + "\n\n" + "b"
    cut = truncate(text, 5, H)
    assert cut.text == "a" * 19 + "\n" + MARKER
    assert cut.boundary == "hard"


def test_cut_just_after_the_last_sentence_end_past_half() -> None:
    # 12 a + ". " + 20 b: "." at index 12 > 10 -> keep text[:13] = 12 a + "."
    cut = truncate("a" * 12 + ". " + "b" * 20, 5, H)
    assert cut.text == "a" * 12 + "." + MARKER
    assert (cut.boundary, cut.kept_chars) == ("sentence", 13)


def test_a_period_before_a_newline_is_a_sentence_end() -> None:
    cut = truncate("a" * 12 + ".\n" + "b" * 20, 5, H)
    assert cut.text == "a" * 12 + "." + MARKER


def test_the_later_of_the_two_sentence_ends_wins() -> None:
    # ". " at 11, ".\n" at 14 (both past 10): max -> keep text[:15]
    text = "a" * 11 + ". " + "bb" + ".\n" + "c" * 20
    assert truncate(text, 5, H).text == "a" * 11 + ". bb." + MARKER


def test_a_paragraph_break_before_half_falls_back_to_a_sentence() -> None:
    # "\n\n" at 3 (not past 10); "." at 3 + 2 + 9 = 14 > 10 -> keep text[:15]
    text = "aaa\n\n" + "b" * 9 + ". " + "c" * 20
    cut = truncate(text, 5, H)
    assert cut.text == "aaa\n\n" + "b" * 9 + "." + MARKER
    assert cut.boundary == "sentence"


def test_a_sentence_end_exactly_at_half_is_not_used() -> None:
    # "." at index 10 == half -> hard cut at 20
    text = "a" * 10 + ". " + "b" * 20
    assert truncate(text, 5, H).text == "a" * 10 + ". " + "b" * 8 + MARKER


def test_a_period_without_space_or_newline_is_no_sentence_end() -> None:
    # "a.b" style periods: no ". " or ".\n" -> hard
    text = "a" * 12 + "." + "b" * 20
    assert truncate(text, 5, H).text == "a" * 12 + "." + "b" * 7 + MARKER


# -- the caches: held by count, or by weight -----------------------------------------------


def test_a_weighed_cache_holds_what_fits_its_budget_newest_first() -> None:
    cache = LRU(10, len, 10)  # a value weighs its length; ten in all
    cache.put("a", "xxxx")
    cache.put("b", "xxxx")
    assert (cache.held(), cache.weight) == (["a", "b"], 8)
    cache.get("a")  # used: b is now the oldest
    cache.put("c", "xxx")  # 11 > 10: b goes
    assert (cache.held(), cache.weight) == (["a", "c"], 7)
    cache.put("a", "x")  # put again, lighter: its weight is replaced, not added
    assert (cache.held(), cache.weight) == (["c", "a"], 4)
    cache.put("big", "x" * 25)  # over the budget alone: held, everything older goes
    assert (cache.held(), cache.weight) == (["big"], 25)
    cache.clear()
    assert (cache.held(), cache.weight) == ([], 0)
    counted = LRU(2)  # unweighed: two entries
    for key in "abc":
        counted.put(key, key)
    assert (counted.held(), counted.weight) == (["b", "c"], 0)


def test_the_spec_tables_of_many_features_stay_cached() -> None:
    """A window's clicks move from feature to feature: every spec's table is kept (by its
    size, not a count of sixteen), so a first click in a feature does not build it again."""
    spec_module.clear_caches()
    indexes = [index_of([f"alpha{n} beta", f"gamma{n} delta"]) for n in range(40)]
    tables = [spec_module.keyword_table(index) for index in indexes]
    assert all(spec_module.keyword_table(index) is table for index, table in zip(indexes, tables, strict=True))
    spec_module.clear_caches()
