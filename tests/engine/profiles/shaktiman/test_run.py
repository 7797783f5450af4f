"""The ``shaktiman`` profile worked by hand: budget range, exact packing, overlaps, expansion.

Expected contexts are written out from the rules in docs/profiles.md#shaktiman: every chunk
is ``<!-- path La-b what -->`` + ``"\\n"`` + its text, chunks are joined by blank lines,
rule chunks come first.  Token costs are counted with cl100k_base on those expected
strings (a chunk's cost is its metadata line and text counted together, plus one token
for the ``"\\n\\n"`` before it when something is already packed).
"""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path
from typing import Any

import pytest

from ctxviewer.engine.errors import SettingsError
from ctxviewer.engine.profiles.base import ItemDraft
from ctxviewer.engine.profiles.shaktiman import Chunk, overlap, percent
from ctxviewer.engine.project.loading import Project, load_project
from ctxviewer.engine.project.settings import Settings
from ctxviewer.engine.runs.pipeline import assemble, assemble_task
from ctxviewer.engine.tokens.counting import get_counter
from ctxviewer.engine.trace.model import CUT_FOR_BUDGET, INCLUDED, NOT_CANDIDATE, OUTRANKED, Trace
from tests.factories import make_project

REQ = ".gsd/specs/feat/requirements.md"
DES = ".gsd/specs/feat/design.md"
CORE_FILE = "_core/owasp-2025.md"
PY_FILE = "languages/python/CLAUDE.md"
CORE_SRC = f".claude/rules/security/{CORE_FILE}"
PY_SRC = f".claude/rules/security/{PY_FILE}"
RULE_WHAT = "security rules for the task's files"
CORE_BLOCK = "### _core/owasp-2025.md\n## Rule: core"
PY_BLOCK = "### python/CLAUDE.md\n## Rule: py"

COUNT = get_counter("cl100k_base").count
SEP = 1  # "\n\n" is one cl100k_base token (checked below)


def chunk(source: str, first: int, last: int, what: str, text: str) -> str:
    """One chunk as the context shows it: its metadata line, then its text."""
    return f"<!-- {source} L{first}-{last} {what} -->\n{text}"


def blocks(*pieces: str) -> str:
    return "\n\n".join(pieces)


def project(
    tmp_path: Path,
    title: str,
    requirements: str | None,
    *,
    create: list[str] | None = None,
    design: str | None = None,
    rules: dict[str, str] | None = None,
) -> Project:
    task = {"id": "T", "title": title, "files": {"create": create or []}}
    root = make_project(tmp_path, [task], requirements=requirements, design=design, rules=rules)
    return load_project(root)


def run(proj: Project, budget: int = 4000, **overrides: Any) -> Trace:
    return assemble(proj, "feat", "T", {"profile": "shaktiman", "budget": budget, **overrides})


def item(trace: Trace, item_id: str) -> Any:
    found = trace.item(item_id)
    assert found is not None, item_id
    return found


def test_separator_is_one_token() -> None:
    assert COUNT("\n\n") == SEP


# -- the budget range ---------------------------------------------------------------------------


@pytest.mark.parametrize("budget", [255, 32_769, 1, 100_000])
def test_budget_outside_range_is_refused_by_settings(budget: int) -> None:
    message = (
        f"budget: the shaktiman profile takes a budget of 256-32,768 tokens, not {budget:,}; "
        "change the budget or choose another profile"
    )
    with pytest.raises(SettingsError) as both:
        Settings().with_overrides({"profile": "shaktiman", "budget": budget}, "test")
    assert both.value.message == message
    assert str(both.value) == f"test: {message}"
    # Either order: a budget set first, then the profile; or the profile first, then the budget.
    # When they come from different places, the message says which from where.
    with pytest.raises(SettingsError) as profile_later:
        Settings().with_overrides({"budget": budget}, "a").with_overrides({"profile": "shaktiman"}, "b")
    assert profile_later.value.message == message.replace("; change", " (budget from a, profile from b); change")
    with pytest.raises(SettingsError) as budget_later:
        Settings().with_overrides({"profile": "shaktiman"}, "a").with_overrides({"budget": budget}, "b")
    assert budget_later.value.message == message.replace("; change", " (budget from b, profile from a); change")


def test_a_file_combination_a_later_layer_fixes_is_accepted(tmp_path: Path) -> None:
    proj = project(tmp_path, "login", "The login step.")
    (tmp_path / "ctxviewer.yaml").write_text("profile: shaktiman\nbudget:\n  total: 100\n")
    with pytest.raises(SettingsError) as refused:
        load_project(tmp_path)
    assert "not 100" in refused.value.message and refused.value.path == "ctxviewer.yaml"
    assert load_project(tmp_path, {"budget": 1000}).settings.budget == 1000
    assert load_project(tmp_path, {"profile": "mahabharatha"}).settings.profile == "mahabharatha"
    del proj


@pytest.mark.parametrize("budget", [256, 32_768])
def test_budget_at_the_ends_of_the_range_is_accepted(tmp_path: Path, budget: int) -> None:
    settings = Settings().with_overrides({"profile": "shaktiman", "budget": budget}, "test")
    assert (settings.profile, settings.budget) == ("shaktiman", budget)
    trace = run(project(tmp_path, "login", "The login step."), budget)
    assert trace.budget == budget
    # The margin: 2% of the budget rounded up: 256 * 0.02 = 5.12 -> 6; 32,768 * 0.02 = 655.36 -> 656.
    assert trace.buffer == {256: 6, 32_768: 656}[budget]
    assert trace.context == chunk(REQ, 1, 1, "score 1", "The login step.")


@pytest.mark.parametrize("budget", [255, 32_769])
def test_budget_outside_range_is_refused_by_assemble_task(tmp_path: Path, budget: int) -> None:
    proj = project(tmp_path, "login", "The login step.")
    feature = proj.feature("feat")
    # Settings built directly skip with_overrides' check: assemble_task checks again.
    settings = dataclasses.replace(proj.settings, profile="shaktiman", budget=budget)
    with pytest.raises(SettingsError) as info:
        assemble_task(proj, feature, feature.task("T"), settings)
    assert info.value.message == (
        f"budget: the shaktiman profile takes a budget of 256-32,768 tokens, not {budget:,}; "
        "change the budget or choose another profile"
    )
    with pytest.raises(SettingsError) as override:
        run(proj, budget)
    assert str(override.value) == f"override: {info.value.message}"


@pytest.mark.parametrize("budget", [256, 32_768])
def test_budget_at_the_ends_is_accepted_by_assemble_task(tmp_path: Path, budget: int) -> None:
    proj = project(tmp_path, "login", "The login step.")
    feature = proj.feature("feat")
    settings = dataclasses.replace(proj.settings, profile="shaktiman", budget=budget)
    trace = assemble_task(proj, feature, feature.task("T"), settings)
    assert (trace.profile, trace.budget) == ("shaktiman", budget)


# -- a whole run by hand ------------------------------------------------------------------------


def test_hand_worked_context(tmp_path: Path) -> None:
    # Keywords: login, token.  Paragraphs on lines 1, 3, 5 score 1, 1, 2.
    req = "Alpha login flow.\n\nBeta token store.\n\nGamma login token pair."
    proj = project(tmp_path, "login token", req, create=["a.py"], rules={CORE_FILE: "## Rule: core"})
    trace = run(proj)
    core = chunk(CORE_SRC, 1, 1, RULE_WHAT, CORE_BLOCK)
    gamma = chunk(REQ, 5, 5, "score 2", "Gamma login token pair.")
    alpha = chunk(REQ, 1, 1, "score 1", "Alpha login flow.")
    beta = chunk(REQ, 3, 3, "score 1", "Beta token store.")
    # The rule chunk first; then by score; the two score-1 paragraphs have 17 characters each,
    # so document order breaks the tie.
    assert trace.context == blocks(core, gamma, alpha, beta)
    assert trace.tokenizer == "cl100k_base"  # the settings say heuristic
    assert trace.context_tokens.cl100k_base == COUNT(trace.context)
    # Margin: 4,000 * 2% = 80; both sections are packed into 3,920.
    assert trace.buffer == 80
    assert trace.section_budgets == {"security_rules": 3920, "spec_excerpts": 3920}
    reason = "packed into the budget of 4,000 less a safety margin of 80 tokens (cl100k_base, metadata included)"
    assert [s.reason for s in trace.sections] == [reason, reason]
    assert trace.section("security_rules").text == core  # type: ignore[union-attr]
    assert trace.section("spec_excerpts").text == blocks(gamma, alpha, beta)  # type: ignore[union-attr]
    assert [(i.id, i.rank) for i in trace.items if i.status == INCLUDED] == [
        ("rule:_core/owasp-2025.md", 1),
        ("requirements:1", 3),
        ("requirements:2", 4),
        ("requirements:3", 2),
    ]
    assert item(trace, "rule:_core/owasp-2025.md").reason == (
        f"rank 1 of 4, core rules, always considered: packed ({COUNT(core)} tokens with its metadata)"
    )
    assert item(trace, "requirements:3").reason == (
        f"rank 2 of 4, score 2: packed ({COUNT(gamma) + SEP} tokens with its metadata)"
    )
    python = item(trace, "rule:languages/python/CLAUDE.md")
    assert python.status == NOT_CANDIDATE and python.reason.endswith("but the file does not exist")
    # Each kept item's span is its text, after its metadata line.
    for kept in trace.items:
        if kept.status == INCLUDED:
            assert kept.span is not None
            assert trace.context[kept.span[0] : kept.span[1]] == kept.text
    assert trace.trim_steps == ()


def test_rank_order_rules_first_then_score_then_smaller_then_document_order(tmp_path: Path) -> None:
    req = "\n\n".join(
        [
            "Login appears in a rather long paragraph.",  # 1: score 1, 41 chars
            "Login token, long form of it.",  # 2: score 2, 29 chars
            "Short login.",  # 3: score 1, 12 chars
            "Token login.",  # 4: score 2, 12 chars
            "Login again.",  # 5: score 1, 12 chars
        ]
    )
    proj = project(
        tmp_path,
        "login token",
        req,
        create=["a.py"],
        design="Login design.",  # score 1, 13 chars, on line 1 like requirements:1
        rules={CORE_FILE: "## Rule: core", PY_FILE: "## Rule: py"},
    )
    trace = run(proj)
    expected = [
        ("rule:_core/owasp-2025.md", 1),  # rules first, though they have no score
        ("rule:languages/python/CLAUDE.md", 2),
        ("requirements:4", 3),  # score 2, 12 chars
        ("requirements:2", 4),  # score 2, 29 chars
        ("requirements:3", 5),  # score 1, 12 chars, before requirements:5 in the file
        ("requirements:5", 6),  # score 1, 12 chars
        ("design:1", 7),  # score 1, 13 chars
        ("requirements:1", 8),  # score 1, 41 chars
    ]
    assert [(item(trace, i).rank, item(trace, i).status) for i, _ in expected] == [(r, INCLUDED) for _, r in expected]
    assert trace.context == blocks(
        chunk(CORE_SRC, 1, 1, RULE_WHAT, CORE_BLOCK),
        chunk(PY_SRC, 1, 1, RULE_WHAT, PY_BLOCK),
        chunk(REQ, 7, 7, "score 2", "Token login."),
        chunk(REQ, 3, 3, "score 2", "Login token, long form of it."),
        chunk(REQ, 5, 5, "score 1", "Short login."),
        chunk(REQ, 9, 9, "score 1", "Login again."),
        chunk(DES, 1, 1, "score 1", "Login design."),  # another file: no overlap with requirements:1
        chunk(REQ, 1, 1, "score 1", "Login appears in a rather long paragraph."),
    )
    assert item(trace, "requirements:1").reason.startswith("rank 8 of 8, score 1: packed (")


# -- the budget, the margin and the metadata ------------------------------------------------------


def _one_paragraph(k: int) -> str:
    return "login" + " alpha" * k


def test_metadata_line_counts_against_the_budget_less_the_margin(tmp_path: Path) -> None:
    # Budget 256: margin ceil(5.12) = 6, so chunks are packed into 250 tokens.
    meta_line = f"<!-- {REQ} L1-1 score 1 -->"
    base = COUNT(f"{meta_line}\nlogin")
    fits = 250 - base  # words " alpha" such that the chunk with its metadata costs exactly 250
    for k in (fits, fits + 1):
        assert COUNT(f"{meta_line}\n{_one_paragraph(k)}") == base + k  # one token per " alpha"

    exact = run(project(tmp_path / "fits", "login", _one_paragraph(fits)), 256)
    assert exact.context == chunk(REQ, 1, 1, "score 1", _one_paragraph(fits))
    assert exact.context_tokens.cl100k_base == 250
    assert item(exact, "requirements:1").reason == "rank 1 of 1, score 1: packed (250 tokens with its metadata)"

    # One more word: the text alone (252 - base tokens) would fit 250, with its metadata it does not;
    # and 251 tokens would fit the budget of 256 but not the budget less the margin.
    over = run(project(tmp_path / "over", "login", _one_paragraph(fits + 1)), 256)
    assert COUNT(_one_paragraph(fits + 1)) <= 250
    assert over.context == ""
    para = item(over, "requirements:1")
    assert para.status == CUT_FOR_BUDGET
    assert para.reason == "rank 1 of 1, score 1: 251 tokens with its metadata did not fit the 250 left"
    [step] = over.trim_steps
    assert (step.section, step.action, step.target) == ("spec_excerpts", "skip_no_fit", "requirements:1")
    assert step.description == "paragraph 1 of requirements.md (line 1) (251 tokens) did not fit the 250 left"
    assert (step.tokens_before, step.tokens_after) == (251, 0)
    assert over.section("spec_excerpts").status == "empty"  # type: ignore[union-attr]


def test_smaller_chunk_still_packed_after_a_bigger_one_did_not_fit(tmp_path: Path) -> None:
    # Budget 256 (250 to pack).  The big paragraph scores 2 and ranks first but does not fit;
    # the small one (score 1) does, and is the whole context.
    big = "login token" + " alpha" * 300
    proj = project(tmp_path, "login token", f"{big}\n\nSmall login.")
    trace = run(proj, 256)
    big_cost = COUNT(chunk(REQ, 1, 1, "score 2", big))
    assert trace.context == chunk(REQ, 3, 3, "score 1", "Small login.")
    assert item(trace, "requirements:1").reason == (
        f"rank 1 of 2, score 2: {big_cost:,} tokens with its metadata did not fit the 250 left"
    )
    # Steps measure the pool of chunks still in the running: both (with a blank line between),
    # then the small one alone.
    small_cost = COUNT(chunk(REQ, 3, 3, "score 1", "Small login."))
    assert [(s.action, s.target, s.tokens_before, s.tokens_after) for s in trace.trim_steps] == [
        ("skip_no_fit", "requirements:1", big_cost + SEP + small_cost, small_cost)
    ]


@pytest.mark.parametrize("budget", [256, 300, 333, 512, 1000, 2048])
def test_context_never_counts_above_the_budget(tmp_path: Path, budget: int) -> None:
    paragraphs = [f"Login step {n}: the token " + "is checked and " * (n % 7) + "stored." for n in range(40)]
    proj = project(
        tmp_path,
        "login token",
        "## Login\n\n" + "\n\n".join(paragraphs),
        create=["a.py"],
        rules={CORE_FILE: "## Rule: core\n**Level**: strict\n" * 5},
    )
    trace = run(proj, budget)
    assert trace.context_tokens.cl100k_base == COUNT(trace.context)
    assert COUNT(trace.context) <= budget
    assert not trace.over_budget
    margin = math.ceil(budget * 0.02)
    assert trace.buffer == margin
    # Every packed chunk's metadata line is in the context, right before its text.
    for kept in trace.items:
        if kept.status == INCLUDED:
            assert kept.span is not None
            assert trace.context[kept.span[0] : kept.span[1]] == kept.text
            line_start = trace.context.rfind("\n", 0, kept.span[0] - 1) + 1
            assert trace.context[line_start : kept.span[0] - 1].startswith(f"<!-- {kept.source} L{kept.line_start}-")


def test_no_fit_steps_stop_at_forty_with_a_summary(tmp_path: Path) -> None:
    text = "login" + " alpha" * 300  # about 300 tokens: nothing fits 250
    proj = project(tmp_path, "login", "\n\n".join([text] * 45))
    trace = run(proj, 256)
    assert trace.context == ""
    assert len(trace.trim_steps) == 41
    first, last = trace.trim_steps[0], trace.trim_steps[-1]
    cost = COUNT(chunk(REQ, 1, 1, "score 1", text))
    assert first.description == f"paragraph 1 of requirements.md (line 1) ({cost:,} tokens) did not fit the 250 left"
    assert trace.trim_steps[39].target == "requirements:40"
    assert (last.order, last.action, last.target) == (41, "skip_no_fit", "")
    assert last.description == "and 5 more lower-ranked chunks did not fit or overlapped a packed one"
    # The pool starts with all 45 equal chunks and ends empty, one chunk (and blank line) a step.
    assert (first.tokens_before, first.tokens_after) == (45 * cost + 44 * SEP, 44 * cost + 43 * SEP)
    assert (last.tokens_before, last.tokens_after) == (5 * cost + 4 * SEP, 0)
    assert item(trace, "requirements:45").reason.startswith("rank 45 of 45, score 1: ")


# -- overlaps -----------------------------------------------------------------------------------


def test_section_holding_selected_paragraphs_is_skipped_at_100_percent(tmp_path: Path) -> None:
    # Line 1 "## Login", lines 3-6 a four-line paragraph.  The heading section spans lines 1-6
    # and scores 1 like both its paragraphs, so it ranks last (largest).  Overlap is a share of
    # the smaller chunk: requirements:1 (1 line) lies wholly inside it, 1 of 1 = 100%, as does
    # requirements:2 (4 of 4): packing it would put both paragraphs in the context twice.
    body = "The login form\nposts the\ncredentials\nback."
    proj = project(tmp_path, "login", f"## Login\n\n{body}\n")
    trace = run(proj)
    assert trace.context == blocks(chunk(REQ, 1, 1, "score 1", "## Login"), chunk(REQ, 3, 6, "score 1", body))
    section = item(trace, "requirements:\u00a71")
    assert (section.status, section.rank, section.score) == (OUTRANKED, 3, 1)  # lost to a better one
    assert (section.line_start, section.line_end) == (1, 6)
    assert section.text == f"## Login\n\n{body}"
    assert section.details == {"chunk": "heading section: paragraphs 1-2"}
    assert section.reason == "rank 3 of 3, score 1: skipped, overlaps paragraph 1 of requirements.md (line 1) by 100%"
    # The overlap is a step out of the pool of all three chunks, leaving the two paragraphs.
    heading, para = chunk(REQ, 1, 1, "score 1", "## Login"), chunk(REQ, 3, 6, "score 1", body)
    whole = chunk(REQ, 1, 6, "score 1", f"## Login\n\n{body}")
    [step] = trace.trim_steps
    assert (step.action, step.target) == ("skip_overlap", "requirements:\u00a71")
    assert (step.tokens_before, step.tokens_after) == (
        COUNT(heading) + COUNT(para) + COUNT(whole) + 2 * SEP,
        COUNT(heading) + COUNT(para) + SEP,
    )


def test_paragraphs_inside_a_selected_section_are_skipped_at_100_percent(tmp_path: Path) -> None:
    # "login" is in the heading, "token" in the body: the section scores 2 and ranks first.
    body = "The form posts\na token back."
    proj = project(tmp_path, "login token", f"## Login\n\n{body}")
    trace = run(proj)
    assert trace.context == chunk(REQ, 1, 4, "score 2", f"## Login\n\n{body}")
    section = item(trace, "requirements:\u00a71")
    assert (section.status, section.rank) == (INCLUDED, 1)
    assert section.matched_keywords == ("login", "token")
    # Both paragraphs are in the context, inside the section, and not packed again.
    for n, rank in ((1, 2), (2, 3)):
        para = item(trace, f"requirements:{n}")
        assert para.status == INCLUDED
        assert para.reason == (
            f"rank {rank} of 3, score 1: in the context as part of the heading section at paragraph 1 of "
            "requirements.md (lines 1-4), so not packed again on its own"
        )
        assert para.span is not None and trace.context[para.span[0] : para.span[1]] == para.text
    assert section.span is not None and trace.context[section.span[0] : section.span[1]] == section.text


def _chunk_at(first: int, last: int, source: str = REQ) -> Chunk:
    draft = ItemDraft(
        "x",
        "spec_paragraph",
        "spec_excerpts",
        "requirements",
        source,
        first,
        last,
        1,
        (),
        None,
        NOT_CANDIDATE,
        "",
        "",
        0,
    )
    return Chunk(draft, 1, (first, last))


def test_overlap_is_a_share_of_the_smaller_chunk_and_half_is_not_more_than_half() -> None:
    # Headings nest, so real chunks overlap wholly or not at all; the rule itself is checked
    # on line ranges directly.  Selected: lines 1-4 of REQ, and lines 1-9 of another file.
    selected = [_chunk_at(1, 4), _chunk_at(1, 9, "other.md")]
    assert overlap(_chunk_at(3, 6), selected) == (selected[0], 0.5)  # 2 of 4 lines: not skipped
    assert overlap(_chunk_at(2, 10), selected) == (selected[0], 0.75)  # 3 of the smaller's 4
    assert overlap(_chunk_at(5, 9), selected) is None  # touches nothing of REQ
    assert percent(5 / 8) == "63%" and percent(0.625 - 1e-9) == "62%"


def test_nested_heading_section_overlap_percentage(tmp_path: Path) -> None:
    # Lines: 1 "## Auth", 3 "### Login", 5-7 a three-line paragraph, 9 "### Other".
    # "## Auth" spans paragraphs 1-4 (lines 1-9, 9 lines); "### Login" spans 2-3 (lines 3-7,
    # 5 lines; "### Other" ends it); "### Other" alone is one paragraph, not a section.
    # Keywords form, login, token: both sections score 3 and the smaller, §2, ranks first.
    # §1 (9 lines) then holds all 5 of its lines: 100% of the smaller, skipped.
    body = "The form posts\na token\nback."
    text = f"## Auth\n\n### Login\n\n{body}\n\n### Other"
    trace = run(project(tmp_path, "login token form", text))
    inner, outer = item(trace, "requirements:\u00a72"), item(trace, "requirements:\u00a71")
    assert ((inner.line_start, inner.line_end), (outer.line_start, outer.line_end)) == ((3, 7), (1, 9))
    assert (inner.status, inner.rank, inner.score) == (INCLUDED, 1, 3)
    inner_words = "the heading section at paragraph 2 of requirements.md (lines 3-7)"
    assert outer.reason == f"rank 2 of 4, score 3: skipped, overlaps {inner_words} by 100%"
    assert item(trace, "requirements:3").reason == (
        f"rank 3 of 4, score 2: in the context as part of {inner_words}, so not packed again on its own"
    )
    assert item(trace, "requirements:2").reason == (
        f"rank 4 of 4, score 1: in the context as part of {inner_words}, so not packed again on its own"
    )
    # Expansion: the neighbours of §2 as a whole, after (paragraph 4) then before (paragraph 1).
    assert trace.context == blocks(
        chunk(REQ, 3, 7, "score 3", f"### Login\n\n{body}"),
        chunk(REQ, 9, 9, "score 0", "### Other"),
        chunk(REQ, 1, 1, "score 0", "## Auth"),
    )


# -- structural expansion ----------------------------------------------------------------------


def test_expansion_adds_neighbours_nearest_first_after_then_before(tmp_path: Path) -> None:
    # Only paragraph 7 ("The login step.") scores.  Its neighbours, nearest first, the one after
    # before the one before: 8, 6, 9, 5, 10 -- five per chunk, so 4, 11 and the rest are not offered.
    paragraphs = [f"Plain text {n}." for n in range(1, 13)]
    paragraphs[6] = "The login step."
    proj = project(tmp_path, "login", "\n\n".join(paragraphs))
    trace = run(proj)

    def para(n: int, what: str = "score 0") -> str:
        return chunk(REQ, 2 * n - 1, 2 * n - 1, what, paragraphs[n - 1])

    assert trace.context == blocks(para(7, "score 1"), para(8), para(6), para(9), para(5), para(10))
    neighbour = item(trace, "requirements:8")
    assert (neighbour.status, neighbour.rank, neighbour.score) == (INCLUDED, None, 0)
    assert neighbour.reason.startswith(
        "structural expansion: a neighbour of paragraph 7 of requirements.md (line 13), "
    )
    assert neighbour.reason.endswith(f": packed ({COUNT(para(8)) + SEP} tokens with its metadata)")
    for never in (1, 2, 3, 4, 11, 12):
        left = item(trace, f"requirements:{never}")
        assert (left.status, left.reason) == (NOT_CANDIDATE, "score 0: no task keyword occurs in it, not a chunk")


def test_expansion_reason_does_not_call_a_packed_paragraph_not_a_chunk(tmp_path: Path) -> None:
    proj = project(tmp_path, "login", "Before text.\n\nThe login step.\n\nAfter text.")
    trace = run(proj)
    after = item(trace, "requirements:3")
    assert after.status == INCLUDED
    assert "not a chunk" not in after.reason


def test_expansion_spends_at_most_30_percent_of_what_is_left(tmp_path: Path) -> None:
    # Budget 256 -> 250 to pack.  The seed costs c; the expansion budget is int((250 - c) * 0.3).
    # The paragraph after is offered first and does not fit that share (though it would fit
    # the 250 - c left); the one before does.
    after_text = "After" + " word" * 100
    proj = project(tmp_path, "login", f"Before text.\n\nThe login step.\n\n{after_text}")
    trace = run(proj, 256)
    seed = chunk(REQ, 3, 3, "score 1", "The login step.")
    before = chunk(REQ, 1, 1, "score 0", "Before text.")
    after = chunk(REQ, 5, 5, "score 0", after_text)
    room = int((250 - COUNT(seed)) * 0.30)
    after_cost, before_cost = COUNT(after) + SEP, COUNT(before) + SEP
    assert room < after_cost <= 250 - COUNT(seed) and before_cost <= room  # the case we mean
    assert trace.context == blocks(seed, before)
    dropped = item(trace, "requirements:3")
    assert dropped.status == CUT_FOR_BUDGET  # offered to the expansion, no room
    assert dropped.reason.startswith("structural expansion: a neighbour of paragraph 2 of requirements.md (line 3), ")
    assert dropped.reason.endswith(
        f": {after_cost} tokens with its metadata did not fit the {room} left of the expansion budget"
    )
    assert item(trace, "requirements:1").status == INCLUDED
    assert all(s.action != "skip_no_fit" for s in trace.trim_steps)  # expansion misses are no trim steps


# -- the tokenizer ----------------------------------------------------------------------------


def test_trace_tokenizer_is_exact_even_when_settings_say_heuristic(tmp_path: Path) -> None:
    proj = project(tmp_path, "login", "The login step.")
    assert proj.settings.tokenizer == "heuristic"
    trace = run(proj)
    assert trace.tokenizer == "cl100k_base"
    assert trace.settings["tokenizer"].value == "heuristic"
    o200k = run(proj, tokenizer="o200k_base")
    assert o200k.tokenizer == "o200k_base"
    assert o200k.section("spec_excerpts").reason == (  # type: ignore[union-attr]
        "packed into the budget of 4,000 less a safety margin of 80 tokens (o200k_base, metadata included)"
    )


def test_margin_setting(tmp_path: Path) -> None:
    proj = project(tmp_path, "login", "The login step.")
    # 1,000 * 10% = 100; a margin of 0 still keeps one token free.
    assert run(proj, 1000, shaktiman_margin=0.1).buffer == 100
    zero = run(proj, 1000, shaktiman_margin=0.0)
    assert zero.buffer == 1
    assert zero.section_budgets == {"security_rules": 999, "spec_excerpts": 999}


# -- bugs found by these tests, fixed -------------------------------------------------------------------------------


def test_rank_tie_of_equal_length_follows_document_order(tmp_path: Path) -> None:
    # "## A" (line 1) + "login x" (line 3) form section §1, 13 characters; "# End" (level 1)
    # closes it; "login abcdefg" (line 7) is also 13 characters.  Both score 1: the section
    # comes first in the document, so it should rank first of the two.
    trace = run(project(tmp_path, "login", "## A\n\nlogin x\n\n# End\n\nlogin abcdefg"))
    assert item(trace, "requirements:2").rank == 1  # "login x", 7 characters
    assert item(trace, "requirements:\u00a71").rank == 2
    assert item(trace, "requirements:4").rank == 3


def test_no_fit_step_characters_include_the_separator(tmp_path: Path) -> None:
    big = "login" + " alpha" * 300
    trace = run(project(tmp_path, "login", f"Small login.\n\n{big}"), 256)
    small = chunk(REQ, 1, 1, "score 1", "Small login.")
    big_chunk = chunk(REQ, 3, 3, "score 1", big)
    would_be = blocks(small, big_chunk)
    assert trace.context == small
    [step] = trace.trim_steps
    assert (step.tokens_before, step.tokens_after) == (COUNT(small) + SEP + COUNT(big_chunk), COUNT(small))
    assert (step.chars_before, step.chars_after) == (len(would_be), len(small))
