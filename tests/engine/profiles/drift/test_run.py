"""The ``drift`` profile worked by hand: hard caps, then priority trimming to the budget.

Every expected context below is written out from the rules in docs/profiles.md (drift),
with the ``heuristic`` tokenizer (tokens = characters // 4), never taken from a run.

The project used throughout (task title "login session token", one ``.py`` file, so
the keywords are ``login``, ``session`` and ``token``; no stem keyword from ``a.py``):

* rule blocks ``C`` (core, 37 chars) and ``P`` (python, 32 chars), in that order;
* requirements ``R1`` (score 1, 9 chars), ``R2`` (score 2, 17), ``R3`` (score 3, 23),
  a blank paragraph and ``Zeta`` (score 0), so the rank order is R3, R2, R1;
* design ``D1`` (score 1, 9 chars), ``D2`` (score 2, 17), so the rank order is D2, D1.

The whole context is the ten pieces ``SEC C P REQ_H R3 R2 R1 DES_H D2 D1`` joined by
nine blank lines: 31+37+32+24+23+17+9+18+17+9 = 217 characters + 9 * 2 = 235
characters, 235 // 4 = 58 tokens.  Cutting in the default priority (design,
requirements, rules), one item at a time, removes:

======  ====================  ===============================  ======  ======
cut     item                  characters removed               chars   tokens
======  ====================  ===============================  ======  ======
--      --                    --                               235     58
1       design:1 (D1)         2 + 9                            224     56
2       design:2 (D2)         2 + 17, and "\\n\\n" + DES_H       185     46
3       requirements:1 (R1)   2 + 9                            174     43
4       requirements:2 (R2)   2 + 17                           155     38
5       requirements:3 (R3)   2 + 23, and "\\n\\n" + REQ_H       104     26
6       python rule file      2 + 32                           70      17
7       core rule file        37, the header and its "\\n\\n"    0       0
======  ====================  ===============================  ======  ======
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ctxviewer.engine.project.loading import load_project
from ctxviewer.engine.runs.pipeline import assemble
from ctxviewer.engine.trace.model import (
    CUT_FOR_BUDGET,
    FATES,
    INCLUDED,
    KEPT,
    NOT_CANDIDATE,
    OUTRANKED,
    RULE_FILE,
    SPEC_PARAGRAPH,
    TRUNCATED,
    Trace,
)
from tests.factories import make_project

TASK: dict[str, Any] = {"id": "T", "title": "login session token", "files": {"create": ["a.py"]}}
CORE_FILE = "_core/owasp-2025.md"
PY_FILE = "languages/python/CLAUDE.md"
CORE_ID = f"rule:{CORE_FILE}"
PY_ID = f"rule:{PY_FILE}"

SEC = "## Security Rules (task-scoped)"  # 31 characters
C = "### _core/owasp-2025.md\n## Rule: core"  # 23 + 1 + 13 = 37
P = "### python/CLAUDE.md\n## Rule: py"  # 20 + 1 + 11 = 32
REQ_H = "## Relevant Requirements"  # 24
DES_H = "## Relevant Design"  # 18
R1 = "R1 login."  # score 1
R2 = "R2 login session."  # score 2
R3 = "R3 login session token."  # score 3
D1 = "D1 token."  # score 1
D2 = "D2 session token."  # score 2

RULES = {CORE_FILE: "## Rule: core\nprose that is not kept\n", PY_FILE: "## Rule: py\n"}
REQUIREMENTS = f"{R1}\n\n{R2}\n\n{R3}\n\n\n\nZeta unrelated."  # paragraph 4 is blank, 5 scores 0
DESIGN = f"{D1}\n\n{D2}"

#: The seven cuts of the default priority, partial, in order: (action, target, before, after).
CHAIN = [
    ("cut_paragraph", "design:1", 58, 56),
    ("cut_paragraph", "design:2", 56, 46),
    ("cut_paragraph", "requirements:1", 46, 43),
    ("cut_paragraph", "requirements:2", 43, 38),
    ("cut_paragraph", "requirements:3", 38, 26),
    ("cut_rule_file", PY_ID, 26, 17),
    ("cut_rule_file", CORE_ID, 17, 0),
]


def blocks(*pieces: str) -> str:
    return "\n\n".join(pieces)


def run(tmp_path: Path, overrides: dict[str, Any] | None = None, rules: dict[str, str] | None = None) -> Trace:
    root = make_project(tmp_path, [TASK], requirements=REQUIREMENTS, design=DESIGN, rules=rules or RULES)
    return assemble(load_project(root), "feat", "T", {"profile": "drift", **(overrides or {})}, exact=False)


def item(trace: Trace, item_id: str) -> Any:
    found = trace.item(item_id)
    assert found is not None, item_id
    return found


def steps(trace: Trace) -> list[tuple[str, str, int, int]]:
    return [(s.action, s.target, s.tokens_before, s.tokens_after) for s in trace.trim_steps]


# -- the whole context, and where everything is ---------------------------------------------


def test_whole_context_when_it_fits(tmp_path: Path) -> None:
    trace = run(tmp_path)  # the default budget of 4,000
    expected = blocks(SEC, C, P, REQ_H, R3, R2, R1, DES_H, D2, D1)
    assert len(expected) == 235
    assert trace.context == expected
    assert trace.tokenizer == "heuristic"
    assert trace.context_tokens.heuristic == 58
    assert trace.trim_steps == ()
    assert trace.warnings == ()
    security, spec = blocks(SEC, C, P), blocks(REQ_H, R3, R2, R1, DES_H, D2, D1)
    assert trace.section("security_rules").span == (0, 104)  # type: ignore[union-attr]
    assert trace.section("spec_excerpts").span == (106, 235)  # type: ignore[union-attr]
    assert trace.section("security_rules").text == security  # type: ignore[union-attr]
    assert trace.section("spec_excerpts").text == spec  # type: ignore[union-attr]
    # Drift holds the whole context, not each section, to the budget.
    assert trace.section_budgets == {"security_rules": 4000, "spec_excerpts": 4000}
    assert trace.buffer == 0
    # Paragraphs are placed in rank order and each kept item sits at its span.
    assert [i.id for i in trace.items if i.kind == SPEC_PARAGRAPH and i.status == INCLUDED] == [
        "requirements:1",
        "requirements:2",
        "requirements:3",
        "design:1",
        "design:2",
    ]
    for kept in trace.items:
        if kept.status == INCLUDED:
            assert kept.span is not None
            assert trace.context[kept.span[0] : kept.span[1]] == kept.text
    assert item(trace, "requirements:3").span == (106 + 26, 106 + 26 + 23)
    assert (
        item(trace, "requirements:3").reason == "rank 1 of 3 (score 3); kept: the context is within the budget of 4,000"
    )
    assert item(trace, "requirements:1").rank == 3
    assert (
        item(trace, CORE_ID).reason == "core rules, always considered; kept: the context is within the budget of 4,000"
    )


def test_every_candidate_is_listed_with_a_fate(tmp_path: Path) -> None:
    trace = run(tmp_path, {"budget": 43})
    fates = {i.id: i.status for i in trace.items}
    assert fates == {
        CORE_ID: INCLUDED,
        PY_ID: INCLUDED,
        "rule:languages/javascript/CLAUDE.md": NOT_CANDIDATE,  # not matched
        "rule:containers/docker/CLAUDE.md": NOT_CANDIDATE,  # not matched
        "requirements:1": CUT_FOR_BUDGET,  # cut by trimming
        "requirements:2": INCLUDED,
        "requirements:3": INCLUDED,
        "requirements:4": NOT_CANDIDATE,  # blank
        "requirements:5": NOT_CANDIDATE,  # score 0
        "design:1": CUT_FOR_BUDGET,  # cut by trimming
        "design:2": CUT_FOR_BUDGET,  # cut by trimming
    }
    assert len(trace.items) == len(fates)  # each candidate once
    assert all(i.status in FATES and i.reason for i in trace.items)
    assert item(trace, "requirements:4").reason == "blank paragraph: skipped before scoring"
    assert item(trace, "requirements:5").reason == "score 0: no task keyword occurs in it"
    assert item(trace, "requirements:5").score == 0
    assert item(trace, "rule:languages/javascript/CLAUDE.md").reason.startswith("not matched: ")
    assert item(trace, "rule:containers/docker/CLAUDE.md").reason.startswith("not matched: ")
    for dropped in trace.items:
        if dropped.status not in KEPT:
            assert (dropped.kept_chars, dropped.span) == (0, None)


# -- priority trimming ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("budget", "cuts"),
    [
        (58, 0),
        (57, 1),
        (56, 1),
        (55, 2),
        (46, 2),
        (45, 3),
        (43, 3),
        (42, 4),
        (38, 4),
        (37, 5),
        (26, 5),
        (25, 6),
        (17, 6),
        (16, 7),
        (1, 7),
    ],
)
def test_cuts_stop_as_soon_as_the_context_is_within_budget(tmp_path: Path, budget: int, cuts: int) -> None:
    trace = run(tmp_path, {"budget": budget})
    assert steps(trace) == CHAIN[:cuts]
    assert [s.order for s in trace.trim_steps] == list(range(1, cuts + 1))
    # Every cut was made while the context was over the budget; the last brought it within.
    assert all(s.tokens_before > budget for s in trace.trim_steps)
    final = CHAIN[cuts - 1][3] if cuts else 58
    assert final <= budget
    assert trace.context_tokens.heuristic == final
    assert not trace.over_budget
    assert trace.warnings == ()


def test_exact_context_and_reasons_after_three_cuts(tmp_path: Path) -> None:
    trace = run(tmp_path, {"budget": 43})
    # D1, D2 (and with it the design header) and R1 are gone.
    assert trace.context == blocks(SEC, C, P, REQ_H, R3, R2)
    assert "## Relevant Design" not in trace.context
    first, second, third = trace.trim_steps
    assert (first.section, first.description) == (
        "spec_excerpts",
        "over budget: cut the lowest-ranked paragraph 1 of design.md (line 1)",
    )
    assert (first.chars_before, first.chars_after) == (235, 224)
    assert (second.chars_before, second.chars_after) == (224, 185)
    assert (third.chars_before, third.chars_after) == (185, 174)
    assert third.description == "over budget: cut the lowest-ranked paragraph 1 of requirements.md (line 1)"
    assert item(trace, "design:1").reason == (
        "rank 2 of 2 (score 1); cut by trim step 1: the context was 58 tokens, over the budget of 43, "
        "and design is priority 1 of 3 to cut"
    )
    assert item(trace, "design:2").reason == (
        "rank 1 of 2 (score 2); cut by trim step 2: the context was 56 tokens, over the budget of 43, "
        "and design is priority 1 of 3 to cut"
    )
    assert item(trace, "requirements:1").reason == (
        "rank 3 of 3 (score 1); cut by trim step 3: the context was 46 tokens, over the budget of 43, "
        "and requirements is priority 2 of 3 to cut"
    )
    assert item(trace, "requirements:2").reason == "rank 2 of 3 (score 2); kept: the context is within the budget of 43"
    assert item(trace, PY_ID).reason == "matched by a.py (.py); kept: the context is within the budget of 43"


def test_part_and_section_headers_go_with_their_last_item(tmp_path: Path) -> None:
    trace = run(tmp_path, {"budget": 26})  # five cuts: every paragraph
    assert trace.context == blocks(SEC, C, P)
    spec = trace.section("spec_excerpts")
    assert spec is not None and (spec.status, spec.text, spec.span) == ("empty", "", None)
    assert spec.reason == "no paragraph was kept"
    empty = run(tmp_path, {"budget": 1})  # seven cuts: everything
    assert empty.context == ""
    security = empty.section("security_rules")
    assert security is not None and (security.status, security.reason) == (
        "empty",
        "no matched rule file was kept: each one's reason is in Security rules",
    )
    assert item(empty, CORE_ID).reason == (
        "core rules, always considered; cut by trim step 7: the context was 17 tokens, over the budget of 1, "
        "and rules is priority 3 of 3 to cut"
    )


def test_custom_priority_cuts_rules_first(tmp_path: Path) -> None:
    # Rules first: P (58 -> 50: 235 - 34 = 201 chars), then C with the security header
    # (201 - (31 + 2 + 37 + 2) = 129 chars, 32 tokens), within 40.
    trace = run(tmp_path, {"budget": 40, "drift_priority": ["rules", "requirements", "design"]})
    assert steps(trace) == [("cut_rule_file", PY_ID, 58, 50), ("cut_rule_file", CORE_ID, 50, 32)]
    assert trace.trim_steps[0].section == "security_rules"
    assert trace.trim_steps[0].description == f"over budget: cut the security rule file {PY_FILE}"
    assert trace.context == blocks(REQ_H, R3, R2, R1, DES_H, D2, D1)
    assert item(trace, PY_ID).reason == (
        "matched by a.py (.py); cut by trim step 1: the context was 58 tokens, over the budget of 40, "
        "and rules is priority 1 of 3 to cut"
    )
    assert item(trace, "design:1").status == INCLUDED


def test_custom_priority_requirements_before_design(tmp_path: Path) -> None:
    # Requirements first: R1 (58 -> 56), R2 (224 - 19 = 205 chars, 51), R3 with its header
    # (205 - 51 = 154 chars, 38), then D1 (154 - 11 = 143 chars, 35), within 36.
    trace = run(tmp_path, {"budget": 36, "drift_priority": "requirements, design"})
    assert steps(trace) == [
        ("cut_paragraph", "requirements:1", 58, 56),
        ("cut_paragraph", "requirements:2", 56, 51),
        ("cut_paragraph", "requirements:3", 51, 38),
        ("cut_paragraph", "design:1", 38, 35),
    ]
    assert trace.context == blocks(SEC, C, P, DES_H, D2)
    assert item(trace, "design:1").reason.endswith("and design is priority 2 of 2 to cut")


@pytest.mark.parametrize(
    ("priority", "shown"),
    [(["design"], "design"), ([], "nothing")],
)
def test_source_missing_from_priority_is_never_cut(tmp_path: Path, priority: list[str], shown: str) -> None:
    trace = run(tmp_path, {"budget": 30, "drift_priority": priority})
    if priority:
        # D1 (58 -> 56) and D2 (56 -> 46); requirements and rules are not in the list.
        assert steps(trace) == CHAIN[:2]
        assert trace.context == blocks(SEC, C, P, REQ_H, R3, R2, R1)
        tokens = 46
    else:
        assert trace.trim_steps == ()
        tokens = 58
    assert trace.over_budget
    assert trace.context_tokens.heuristic == tokens
    assert trace.warnings == (
        f"drift: the context is still {tokens} tokens, over the budget of 30, "
        f"after cutting every source in its priority list ({shown})",
    )
    for kept in ("requirements:1", "requirements:2", "requirements:3", CORE_ID, PY_ID):
        assert item(trace, kept).status == INCLUDED


def test_kept_reason_does_not_claim_within_budget_when_over(tmp_path: Path) -> None:
    trace = run(tmp_path, {"budget": 30, "drift_priority": ["design"]})
    assert trace.over_budget  # 46 tokens against 30
    reason = item(trace, "requirements:3").reason
    assert "within the budget" not in reason


def test_whole_source_cuts(tmp_path: Path) -> None:
    # drift_partial false: all of design (58 -> 46), then all of requirements (46 -> 26).
    trace = run(tmp_path, {"budget": 43, "drift_partial": False})
    assert steps(trace) == [("cut_source", "design", 58, 46), ("cut_source", "requirements", 46, 26)]
    assert [s.description for s in trace.trim_steps] == [
        "over budget: cut all of design (2 items)",
        "over budget: cut all of requirements (3 items)",
    ]
    assert trace.context == blocks(SEC, C, P)
    assert item(trace, "requirements:3").reason == (
        "rank 1 of 3 (score 3); cut by trim step 2: the context was 46 tokens, over the budget of 43, "
        "and requirements is priority 2 of 3 to cut"
    )
    assert item(trace, "design:2").reason.endswith(
        "cut by trim step 1: the context was 58 tokens, over the budget of 43, and design is priority 1 of 3 to cut"
    )
    # The same budget cut one item at a time keeps R3 and R2 (see the test above).
    assert run(tmp_path, {"budget": 43}).context == blocks(SEC, C, P, REQ_H, R3, R2)


# -- hard caps --------------------------------------------------------------------------------


def test_cap_on_rule_files(tmp_path: Path) -> None:
    trace = run(tmp_path, {"drift_max_rule_files": 1})
    [step] = trace.trim_steps
    assert (step.section, step.action, step.target) == ("security_rules", "cap_rule_files", PY_ID)
    assert step.description == f"hard cap: at most 1 rule files (drift.caps.rule_files); left out {PY_FILE}"
    # Measured on the whole context, as every drift step is: all of it (235 chars, 58 tokens),
    # then without P and its blank line (235 - 34 = 201 chars, 50 tokens).
    assert (step.chars_before, step.tokens_before, step.chars_after, step.tokens_after) == (235, 58, 201, 50)
    py = item(trace, PY_ID)
    assert py.status == OUTRANKED  # a count cap, not room
    assert py.reason == "matched by a.py (.py); left out by the hard cap of 1 rule files (drift.caps.rule_files)"
    assert trace.context == blocks(SEC, C, REQ_H, R3, R2, R1, DES_H, D2, D1)


def test_cap_on_rule_lines_keeps_a_prefix(tmp_path: Path) -> None:
    rules = {CORE_FILE: "## Rule: core\n**Level**: high\n**When**: always\n", PY_FILE: "## Rule: py\n"}
    full = C + "\n**Level**: high\n**When**: always"  # 37 + 1 + 15 + 1 + 16 = 70 chars
    trace = run(tmp_path, {"drift_max_rule_lines": 1}, rules=rules)
    [step] = trace.trim_steps  # the python block has one rule line: not capped
    assert (step.action, step.target) == ("cap_rule_lines", CORE_ID)
    assert step.description == f"hard cap: {CORE_FILE} keeps 1 of its 3 rule lines (drift.caps.rule_lines)"
    # The whole context with the full 70-character block (235 - 37 + 70 = 268 chars, 67 tokens),
    # then with C (235 chars, 58 tokens).
    assert (step.chars_before, step.tokens_before, step.chars_after, step.tokens_after) == (268, 67, 235, 58)
    core = item(trace, CORE_ID)
    assert (core.status, core.text, core.kept_chars) == (TRUNCATED, full, 37)
    assert core.reason == (
        "core rules, always considered; first 1 of 3 rule lines (drift.caps.rule_lines); "
        "kept: the context is within the budget of 4,000"
    )
    assert trace.context == blocks(SEC, C, P, REQ_H, R3, R2, R1, DES_H, D2, D1)
    assert core.span is not None and trace.context[core.span[0] : core.span[1]] == C


def test_cap_of_zero_rule_lines_leaves_every_rule_file_and_the_header_out(tmp_path: Path) -> None:
    trace = run(tmp_path, {"drift_max_rule_lines": 0})
    # C and its blank line go (235 - 39 = 196 chars, 49 tokens); then P, and with the last block
    # the security header (196 - 34 - 33 = 129 chars, 32 tokens).
    assert steps(trace) == [("cap_rule_lines", CORE_ID, 58, 49), ("cap_rule_lines", PY_ID, 49, 32)]
    assert trace.trim_steps[1].description == f"hard cap: {PY_FILE} keeps 0 of its 1 rule lines (drift.caps.rule_lines)"
    assert trace.context == blocks(REQ_H, R3, R2, R1, DES_H, D2, D1)
    core = item(trace, CORE_ID)
    assert core.status == CUT_FOR_BUDGET  # a size cap of 0 lines leaves no room
    assert (
        core.reason
        == "core rules, always considered; left out: the hard cap of 0 rule lines per file (drift.caps.rule_lines)"
    )


def test_cap_on_paragraphs_per_file(tmp_path: Path) -> None:
    trace = run(tmp_path, {"drift_max_paragraphs": 1})
    req, des = trace.trim_steps
    assert (req.section, req.action, req.target) == ("spec_excerpts", "cap_paragraphs", "requirements")
    assert req.description == (
        "hard cap: requirements.md keeps the 1 best of its 3 scoring paragraphs (drift.caps.paragraphs)"
    )
    # The whole context (235 chars, 58 tokens) loses R2 and R1 with their blank lines
    # (235 - 30 = 205 chars, 51 tokens), then D1 with its own (205 - 11 = 194 chars, 48).
    assert (req.chars_before, req.tokens_before, req.chars_after, req.tokens_after) == (235, 58, 205, 51)
    assert des.description == "hard cap: design.md keeps the 1 best of its 2 scoring paragraphs (drift.caps.paragraphs)"
    assert (des.chars_before, des.tokens_before, des.chars_after, des.tokens_after) == (205, 51, 194, 48)
    assert trace.context == blocks(SEC, C, P, REQ_H, R3, DES_H, D2)
    r2, r1 = item(trace, "requirements:2"), item(trace, "requirements:1")
    assert (r2.status, r2.rank) == (OUTRANKED, 2)
    assert r2.reason == "rank 2 (score 2): left out by the hard cap of 1 paragraphs per file"
    assert r1.reason == "rank 3 (score 1): left out by the hard cap of 1 paragraphs per file"
    assert item(trace, "design:1").reason == "rank 2 (score 1): left out by the hard cap of 1 paragraphs per file"


def test_caps_come_before_trimming_and_steps_are_numbered_across_both(tmp_path: Path) -> None:
    # After the caps: SEC C P REQ_H R3 DES_H D2 = 194 chars, 48 tokens > 45: cut D2 with the
    # design header (194 - 39 = 155 chars, 38 tokens).
    trace = run(tmp_path, {"drift_max_paragraphs": 1, "budget": 45})
    assert steps(trace) == [
        ("cap_paragraphs", "requirements", 58, 51),
        ("cap_paragraphs", "design", 51, 48),
        ("cut_paragraph", "design:2", 48, 38),
    ]
    assert [s.order for s in trace.trim_steps] == [1, 2, 3]
    assert trace.context == blocks(SEC, C, P, REQ_H, R3)
    assert item(trace, "design:2").reason == (
        "rank 1 of 2 (score 2); cut by trim step 3: the context was 48 tokens, over the budget of 45, "
        "and design is priority 1 of 3 to cut"
    )


def test_capped_rule_file_can_still_be_cut(tmp_path: Path) -> None:
    # Caps: only the core file (1 of 2), 1 rule line of it.  Context SEC C REQ_H R3 R2 R1 DES_H D2 D1 =
    # 235 - 34 = 201 chars, 50 tokens; rules first: C and the header go (201 - 72 = 129 chars, 32).
    rules = {CORE_FILE: "## Rule: core\n**Level**: high\n**When**: always\n", PY_FILE: "## Rule: py\n"}
    overrides = {"drift_max_rule_files": 1, "drift_max_rule_lines": 1, "drift_priority": ["rules"], "budget": 40}
    trace = run(tmp_path, overrides, rules=rules)
    assert [s.action for s in trace.trim_steps] == ["cap_rule_files", "cap_rule_lines", "cut_rule_file"]
    assert steps(trace)[2] == ("cut_rule_file", CORE_ID, 50, 32)
    core = item(trace, CORE_ID)
    assert (core.status, core.kept_chars, core.span) == (CUT_FOR_BUDGET, 0, None)
    assert core.reason == (
        "core rules, always considered; first 1 of 3 rule lines (drift.caps.rule_lines); cut by trim step 3: "
        "the context was 50 tokens, over the budget of 40, and rules is priority 1 of 1 to cut"
    )
    assert trace.context == blocks(REQ_H, R3, R2, R1, DES_H, D2, D1)
    rules_fates = {i.id: i.status for i in trace.items if i.kind == RULE_FILE}
    # core: cut by trimming; python: over the cap of 1 rule file; the other two never matched.
    assert rules_fates == {
        CORE_ID: CUT_FOR_BUDGET,
        PY_ID: OUTRANKED,
        "rule:languages/javascript/CLAUDE.md": NOT_CANDIDATE,
        "rule:containers/docker/CLAUDE.md": NOT_CANDIDATE,
    }
