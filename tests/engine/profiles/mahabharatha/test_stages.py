"""The reference run's stages, each alone on inputs small enough to work out by hand.

Every expected value below is computed from the input in the comment beside it, not taken
from a run: the budget split of the spec parts, the order and offsets of the fitted rule
blocks, the chained before/after texts of the steps, where each paragraph stands after a
truncation, and how the sections join.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from ctxviewer.engine.files.reading import ProjectFS
from ctxviewer.engine.profiles.base import ItemDraft
from ctxviewer.engine.profiles.mahabharatha import (
    DESIGN_HEADER,
    REQUIREMENTS_HEADER,
    SECURITY_HEADER,
    ParagraphItems,
    fall_back,
    fit_blocks,
    join_sections,
    part_budget,
    place_paragraphs,
    read_rules,
    rule_limit,
    skip_chain,
    spec_chain,
    task_files,
)
from ctxviewer.engine.profiles.mahabharatha.excerpts import (
    ScoredPart,
    SpecFile,
    load_spec,
    place_drafts,
    scored_item,
)
from ctxviewer.engine.profiles.mahabharatha.security import BlockFit, RuleLimit, RuleRead, rule_items
from ctxviewer.engine.signals import rules as R
from ctxviewer.engine.signals.spec import ranking, spec_index
from ctxviewer.engine.tokens.counting import Census
from ctxviewer.engine.trace.model import (
    CUT_FOR_BUDGET,
    INCLUDED,
    NOT_CANDIDATE,
    NOWHERE,
    OUTRANKED,
    REACHED_NO,
    SECURITY,
    SPEC,
    TRUNCATED,
    Item,
)
from tests.factories import write

# -- the task's files --------------------------------------------------------------------------


def test_task_files_are_create_then_modify_lists_only() -> None:
    files = task_files({"files": {"modify": ["b.js"], "read": ["c.md"], "create": ["a.py"], "delete": ["d"]}})
    assert files.entries == ("a.py", "b.js")  # create first whatever the key order; read/delete never
    assert files.fatal is None
    assert task_files({"files": {"create": "a.py"}}).entries == ()  # not a list: nothing
    assert task_files({}) == task_files({"files": {}})


def test_task_files_not_a_mapping_fail_the_run_and_entries_are_shown_described() -> None:
    assert task_files({"files": ["a.py"]}).fatal == "task 'files' is list ['a.py'], not a mapping"
    assert task_files({"files": {"modify": ["a.py", 7]}}).shown() == ("a.py", "int 7")


# -- security rules ----------------------------------------------------------------------------


def test_rule_limit_is_characters_with_the_heuristic_and_tokens_otherwise() -> None:
    assert rule_limit(300, "heuristic") == RuleLimit(1200, "characters", True)
    assert rule_limit(300, "cl100k_base") == RuleLimit(300, "cl100k_base tokens", False)


def test_fit_blocks_keeps_whole_blocks_in_order_and_later_ones_still_try() -> None:
    # limit 100, header 34 characters: (length, size) = (100, 40), (50, 70), (30, 20), (10, 41)
    fits = fit_blocks([(100, 40), (50, 70), (30, 20), (10, 41)], 100, 34)
    assert fits == [
        BlockFit(40, 100, 1, 34),  # first: right after the header
        BlockFit(70, 60, None, None),  # 40 + 70 > 100
        BlockFit(20, 60, 2, 136),  # 40 + 20 <= 100: after 34 + 100 characters and a blank line
        BlockFit(41, 40, None, None),  # 60 + 41 > 100 by one
    ]
    assert [f.fits for f in fits] == [True, False, True, False]


def test_fit_blocks_keeps_a_block_that_fills_the_limit_exactly() -> None:
    assert fit_blocks([(8, 60), (8, 40)], 100, 0) == [BlockFit(60, 100, 1, 0), BlockFit(40, 40, 2, 10)]


def test_skip_chain_takes_each_left_out_block_from_the_section_in_turn() -> None:
    h = SECURITY_HEADER
    chain = skip_chain([("a", "A", True), ("b", "B", False), ("c", "C", False)])
    assert chain == [
        ("b", h + "A\n\nB\n\nC", h + "A\n\nC"),
        ("c", h + "A\n\nC", h + "A"),
    ]


def test_skip_chain_ends_at_no_section_when_nothing_went_in() -> None:
    assert skip_chain([("a", "A", False)]) == [("a", SECURITY_HEADER + "A", "")]
    assert skip_chain([("a", "A", True)]) == []


def _rules_project(tmp_path: Path, python: str | bytes | None) -> ProjectFS:
    write(tmp_path, f"rules/{R.CORE}", "# OWASP\n\n## Rule: validate input\nprose\n")
    if python is not None:
        write(tmp_path, f"rules/{R.PYTHON}", python)
    write(tmp_path, f"rules/{R.DOCKER}", "## Rule: pin images\n")
    return ProjectFS(tmp_path)


def test_read_rules_reads_each_candidate_in_order(tmp_path: Path) -> None:
    fs = _rules_project(tmp_path, None)  # the python file is missing
    found = read_rules(fs, "rules", R.match_rules(["src/app.py"]), "fails")
    assert found.failure is None and found.errors == []
    core, python, javascript, docker = found.reads
    assert (core.rule, core.why) == (R.CORE, "core rules, always considered")
    assert core.block == f"### {R.CORE}\n## Rule: validate input"  # the kept line under the file's heading
    # lines are the text split on line breaks: four and the empty piece after the last break
    assert (core.reason, core.lines, core.details["kept_lines"]) == ("", 5, [3])
    assert python.block == "" and python.reason == "matched by src/app.py (.py), but the file does not exist"
    assert javascript.reason.startswith("not matched: no task file is ")
    assert docker.block == "" and docker.why == ""  # never read: not matched


def test_read_rules_stops_at_a_file_it_cannot_read(tmp_path: Path) -> None:
    fs = _rules_project(tmp_path, b"## Rule: \xff\n")
    found = read_rules(fs, "rules", R.match_rules(["src/app.py", "Dockerfile"]), "the context empties")
    assert [r.rule for r in found.reads] == [R.CORE, R.PYTHON]  # docker, though matched, is not reached
    assert found.failure is not None and found.failure.startswith("reading rule file failed: ")
    assert found.reads[-1].reason == f"matched by src/app.py (.py), but {found.failure}"
    [error] = found.errors
    assert (error.stage, error.message, error.consequence) == (SECURITY, found.failure, "the context empties")


def test_rule_items_record_each_rule_in_order_with_its_fit() -> None:
    reads = [
        RuleRead(R.CORE, {"trigger": "t"}, "core rules, always considered", "BLOCK", "", 5),
        RuleRead(R.PYTHON, {}, reason="not matched"),
        RuleRead(R.DOCKER, {}, "why", "DOCK", "", 3),
    ]
    fits = {R.CORE: BlockFit(10, 1200, 1, 34), R.DOCKER: BlockFit(1195, 1190, None, None)}
    core, python, docker = rule_items("rules", reads, fits, RuleLimit(1200, "characters", True))
    assert (core.id, core.source, core.status, core.rank, core.offset) == (
        f"rule:{R.CORE}",
        f"rules/{R.CORE}",
        INCLUDED,
        1,
        34,
    )
    assert core.reason == "core rules, always considered; block of 10 characters fit the 1,200 left of 1,200"
    assert (core.kept_chars, core.line_start, core.line_end) == (5, 1, 5)  # the whole block; the file's lines
    assert core.details == {"trigger": "t", "needed": 10, "left": 1200, "limit": 1200, "unit": "characters"}
    assert (python.status, python.reason, python.line_start, python.kept_chars) == (
        NOT_CANDIDATE,
        "not matched",
        None,
        0,
    )
    assert (docker.status, docker.text, docker.kept_chars, docker.offset) == (CUT_FOR_BUDGET, "DOCK", 0, None)
    assert docker.reason == "why; block of 1,195 characters did not fit the 1,190 left of 1,200"


# -- spec excerpts -----------------------------------------------------------------------------


def test_part_budget_gives_requirements_half_without_counting() -> None:
    def never(text: str) -> int:
        raise AssertionError("requirements need no count")

    assert part_budget("requirements", 1001, ["anything"], never) == 500


def test_part_budget_gives_design_what_is_left_but_at_least_a_quarter() -> None:
    so_far = ["AB", "CDE", "F"]  # joined by a line break: "AB\nCDE\nF", 8 characters
    assert part_budget("design", 1000, so_far, len) == 992
    assert part_budget("design", 100, ["x" * 90], len) == 25  # 10 left, a quarter is 25


def test_place_paragraphs_after_a_truncation() -> None:
    # paragraphs of 10, 5 and 8 characters joined by blank lines start at 0, 12 and 19; 14 kept
    first, second, third = place_paragraphs([10, 5, 8], 14)
    assert (first.keep, first.start, first.status) == (10, 0, INCLUDED)
    assert (second.keep, second.start, second.status) == (2, 12, TRUNCATED)
    assert (third.keep, third.start, third.status) == (0, 19, CUT_FOR_BUDGET)


def test_spec_chain_measures_each_change_on_the_whole_section() -> None:
    bodies = {"requirements": "R1\n\nR2", "design": "D1"}
    r, d = REQUIREMENTS_HEADER, DESIGN_HEADER
    assert spec_chain(bodies, [("requirements", "R1"), ("design", "")]) == [
        (f"{r}\n\nR1\n\nR2\n\n{d}\n\nD1", f"{r}\n\nR1\n\n{d}\n\nD1"),
        (f"{r}\n\nR1\n\n{d}\n\nD1", f"{r}\n\nR1\n\n{d}\n\n"),
    ]
    assert bodies == {"requirements": "R1\n\nR2", "design": "D1"}  # the caller's bodies are left alone


def test_load_spec_falls_back_to_the_next_name_and_strips(tmp_path: Path) -> None:
    write(tmp_path, "spec/DESIGN.md", "\n\n  One.\n\nTwo.\n\n")
    load = load_spec(ProjectFS(tmp_path), "spec", "design", ("design.md", "DESIGN.md"))
    assert (load.file.text, load.file.rel, load.failure, load.errors) == ("One.\n\nTwo.", "spec/DESIGN.md", None, [])
    assert load.file.line == 3  # the stripped text starts on the file's third line


def test_load_spec_fails_the_section_on_a_file_that_is_not_utf8(tmp_path: Path) -> None:
    write(tmp_path, "spec/design.md", b"caf\xe9\n")
    write(tmp_path, "spec/DESIGN.md", "never read")
    load = load_spec(ProjectFS(tmp_path), "spec", "design", ("design.md", "DESIGN.md"))
    assert load.file.text == "" and load.failure is not None and load.failure.startswith("spec/design.md: ")
    assert [(e.stage, e.path) for e in load.errors] == [(SPEC, "spec/design.md")]


def test_paragraph_items_rank_the_scoring_paragraphs_and_keep_the_top_k() -> None:
    text = "alpha beta\n\ngamma\n\nalpha alpha"
    index = spec_index(text, 1)
    ranked = ranking(index, ["alpha", "beta"], lambda: None)  # scores 2, 0 and 1
    stage = ParagraphItems(Census(False, "heuristic"), 1, lambda: None, lambda texts: Census(False).measure_many(texts))
    first, second, third = stage.build("requirements", "spec/requirements.md", index, ranked, None)
    assert (first.id, first.score, first.rank, first.status) == ("requirements:1", 2, 1, NOT_CANDIDATE)
    assert first.reason == "rank 1 of the top 1 (placed by the run)"  # the run makes it a draft and decides
    assert (second.score, second.rank, second.reason) == (0, None, "score 0: no task keyword occurs in it")
    assert (third.score, third.rank, third.status) == (1, 2, OUTRANKED)
    assert third.reason == "rank 2, only the top 1 are kept (score 1)"
    assert (third.line_start, third.line_end) == (5, 5)


def test_a_scored_item_is_what_the_constructor_makes() -> None:
    index = spec_index("alpha beta\n\ngamma", 3)
    stage = ParagraphItems(Census(False, "heuristic"), 1, lambda: None, lambda texts: Census(False).measure_many(texts))
    base = stage.unscored("requirements", "spec/requirements.md", index, None, 0)[0]
    fast = scored_item(base, 2, ("alpha", "beta"), 1, OUTRANKED, "rank 1")
    # Made with the path most paragraphs have to the worker: the run confirms it against the window.
    plain = Item(
        base.id, base.kind, base.section, base.part, base.source, base.line_start, base.line_end,
        2, ("alpha", "beta"), 1, OUTRANKED, "rank 1", base.text, base.kept_chars, base.tokens,
        reached=REACHED_NO, reached_how=NOWHERE,
    )  # fmt: skip
    assert type(fast) is Item and fast == plain
    assert (base.reached, base.reached_how) == (REACHED_NO, NOWHERE)
    assert [getattr(fast, f.name) for f in dataclasses.fields(Item)] == [
        getattr(plain, f.name) for f in dataclasses.fields(Item)
    ]
    assert (fast.line_start, fast.text, fast.span, fast.details) == (3, "alpha beta", None, {})
    assert fast.details is not base.details  # each item its own details, as Item(...) gives it
    with pytest.raises(dataclasses.FrozenInstanceError):
        fast.score = 3  # type: ignore[misc]


def test_place_drafts_decides_each_top_paragraph_after_a_truncation() -> None:
    text = "alpha one\n\nalpha two two\n\nalpha three"  # 9, 13 and 11 characters, each scoring 1
    ranked = ranking(spec_index(text, 1), ["alpha"], lambda: None)
    scored = ScoredPart(SpecFile("requirements", text, "spec/requirements.md"), ranked, ranked.ranked)
    for s in scored.top:
        scored.drafts[s.paragraph.index] = _draft(NOT_CANDIDATE, None)
    # 20 characters kept: the first whole (0-9), 9 of the second (from 11), none of the third (from 26)
    place_drafts(scored, 20, "sentence", 1000, 26)
    first, second, third = (scored.drafts[n] for n in range(3))
    assert (first.status, first.kept_chars, first.offset, first.reason) == (
        INCLUDED,
        9,
        26,
        "rank 1 of 3 kept (score 1)",
    )
    assert (second.status, second.kept_chars, second.offset) == (TRUNCATED, 9, 37)
    assert second.reason == (
        "rank 2 of 3 kept (score 1); cut at a sentence boundary: 9 of 13 characters kept "
        "(the requirements budget is 1,000 tokens)"
    )
    assert (third.status, third.kept_chars, third.offset) == (CUT_FOR_BUDGET, 0, None)
    assert third.reason == (
        "rank 3 of 3 kept (score 1), but truncation to the requirements budget of 1,000 tokens "
        "cut the text before it (sentence boundary)"
    )


# -- fall-back and layout ----------------------------------------------------------------------


def _draft(status: str, offset: int | None = 0) -> ItemDraft:
    return ItemDraft("p", "spec_paragraph", SPEC, "requirements", "r.md", 1, 1, 1, (), 1, status, "why", "abc", 3,
                     offset)  # fmt: skip


@pytest.mark.parametrize(("to_full", "outcome"), [(True, "fell back to empty"), (False, "failed")])
def test_fall_back_takes_every_kept_draft_out(to_full: bool, outcome: str) -> None:
    kept, cut, cut_short = _draft(INCLUDED), _draft(CUT_FOR_BUDGET, None), _draft(TRUNCATED, 5)
    fall_back([kept, cut, cut_short], "boom", to_full)
    assert (kept.status, kept.kept_chars, kept.offset) == (NOT_CANDIDATE, 0, None)
    assert kept.reason == f"would be included (why), but the whole context {outcome}: boom"
    assert cut_short.reason == f"would be truncated (why), but the whole context {outcome}: boom"
    assert (cut.status, cut.reason, cut.kept_chars) == (CUT_FOR_BUDGET, "why", 3)  # already out: untouched


def test_join_sections_skips_empty_sections_and_spans_the_rest() -> None:
    context, spans = join_sections(["a", "b", "c"], {"c": "yyy", "b": "", "a": "xx"})
    assert context == "xx\n\nyyy"  # in the given order, not the mapping's
    assert spans == {"a": (0, 2), "c": (4, 7)}
    assert context[4:7] == "yyy"
