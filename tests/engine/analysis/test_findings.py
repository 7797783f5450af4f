"""Findings derived from a trace: each code on an input built so that it must (or must not) fire."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

from ctxviewer.engine.analysis.findings import (
    CODES,
    ERROR,
    INFO,
    WARNING,
    Finding,
    findings_of,
    findings_to_json,
)
from ctxviewer.engine.project.loading import load_project
from ctxviewer.engine.registry import PROFILES
from ctxviewer.engine.runs.pipeline import assemble, assemble_task
from ctxviewer.engine.tokens.counting import get_counter
from ctxviewer.engine.trace.model import NEWER_SYNTAX, Trace, TraceError
from tests.conftest import SAMPLES, sample_projects
from tests.factories import make_project

CORE = "_core/owasp-2025.md"
PYTHON = "languages/python/CLAUDE.md"
CL = get_counter("cl100k_base")


def codes(found: tuple[Finding, ...], code: str | None = None) -> list[str]:
    return [f.code for f in found if code is None or f.code == code]


def of(found: tuple[Finding, ...], code: str) -> list[Finding]:
    return [f for f in found if f.code == code]


def test_the_codes_and_their_severities_are_the_contract() -> None:
    assert {c: s for c, (s, _) in CODES.items()} == {
        "rule-cut": ERROR,
        "context-empty": ERROR,
        "over-budget": ERROR,
        "section-empty": WARNING,
        "estimate-flip": WARNING,
        "stopword-keyword": WARNING,
        "share-too-small": WARNING,
        "feature-mismatch": WARNING,
        "tie-by-order": INFO,
        "rule-unseen": ERROR,
        "memory-large": WARNING,
        "memory-twice": WARNING,
        "spec-cut-unseen": WARNING,
        "python-too-old": WARNING,
        "rule-cut-loaded": INFO,
        "context-no-rules": INFO,
    }
    assert all(description for _, description in CODES.values())


# -- rule-cut -------------------------------------------------------------------------------------

#: Front matter that makes Claude Code load a rule file only for files under elsewhere/: no
#: task here has one, so the worker's session never loads the file as project memory.
UNLOADED = '---\npaths: ["elsewhere/**"]\n---\n'


def test_a_matched_rule_file_that_does_not_fit_is_one_rule_cut(tmp_path: Path) -> None:
    # Budget 100 -> security 30 tokens = 120 characters.  The core block is the 24-character
    # line "### _core/owasp-2025.md" + newline and "## Rule: " + 60 x's (69) = 93: it fits.
    # The python block, 21 + 49 = 70 characters, does not fit the 27 left.  No .js file: the
    # javascript rule file is not a candidate, so it is no finding.
    # The python rule file loads only for elsewhere/**, so the worker does not get it either.
    task = {"id": "T", "title": "Task", "files": {"create": ["a.py"]}}
    rules = {CORE: "## Rule: " + "x" * 60 + "\n", PYTHON: UNLOADED + "## Rule: " + "y" * 40 + "\n"}
    root = make_project(tmp_path, [task], requirements="Task notes.", rules=rules)
    found = findings_of(assemble(load_project(root), "feat", "T", {"budget": 100}, exact=False))
    assert of(found, "rule-cut-loaded") == []
    [cut] = of(found, "rule-cut")
    assert (cut.severity, cut.item, cut.section, cut.feature, cut.task) == (
        ERROR,
        "rule:languages/python/CLAUDE.md",
        "security_rules",
        "feat",
        "T",
    )
    assert cut.message == (
        "The security rule file languages/python/CLAUDE.md matched a.py but was left out of the context: "
        "it needs 70 characters and only 27 were left, so the worker does not see these rules."
    )


@pytest.mark.skipif(not (SAMPLES / "storefront-web").is_dir(), reason="sample missing")
def test_a_cut_rule_file_the_worker_loads_anyway_is_rule_cut_loaded(tmp_path: Path) -> None:
    # The same cut, but the python rule file has no paths: every worker's session loads it whole.
    task = {"id": "T", "title": "Task", "files": {"create": ["a.py"]}}
    rules = {CORE: "## Rule: " + "x" * 60 + "\n", PYTHON: "## Rule: " + "y" * 40 + "\n"}
    root = make_project(tmp_path, [task], requirements="Task notes.", rules=rules)
    found = findings_of(assemble(load_project(root), "feat", "T", {"budget": 100}, exact=False))
    assert of(found, "rule-cut") == []
    [loaded] = of(found, "rule-cut-loaded")
    assert (loaded.severity, loaded.item) == (INFO, "rule:languages/python/CLAUDE.md")
    assert loaded.message.startswith(
        "The plugin cut the security rule file languages/python/CLAUDE.md (matched a.py) for lack of room, "
        "but the worker gets it anyway: its file loads whole as project memory: "
        ".zerg-worktrees/feat/worker-0/.claude/rules/security/languages/python/CLAUDE.md (always)."
    )


def test_a_matched_rule_file_that_reaches_no_path_is_rule_unseen(tmp_path: Path) -> None:
    # The python block fits (budget 4,000), but the file loads only for elsewhere/**.
    task = {"id": "T", "title": "Task", "files": {"create": ["a.py"]}}
    rules = {CORE: "## Rule: core\n", PYTHON: UNLOADED + "## Rule: python\n"}
    root = make_project(tmp_path, [task], requirements="Task notes.", rules=rules)
    found = findings_of(assemble(load_project(root), "feat", "T", exact=False))
    [unseen] = of(found, "rule-unseen")
    assert (unseen.severity, unseen.item) == (ERROR, "rule:languages/python/CLAUDE.md")
    assert "is in the plugin's context, but it reaches the worker by no path" in unseen.message
    assert "elsewhere/**" in unseen.message


def test_storefront_javascript_rules_are_cut_on_15_of_16_tasks() -> None:
    """At the default budget the JavaScript rule file matches 15 of the 16 tasks (the
    sixteenth creates no JavaScript or TypeScript file) and the plugin fits it in none of
    them; every worker loads it as project memory all the same."""
    project = load_project(SAMPLES / "storefront-web")
    pairs = project.tasks()
    assert len(pairs) == 16
    cut_on = []
    for feature, task in pairs:
        found = findings_of(assemble_task(project, feature, task, exact=False))
        if any(f.item == "rule:languages/javascript/CLAUDE.md" for f in of(found, "rule-cut-loaded")):
            cut_on.append(task.id)
        assert of(found, "rule-cut") == []
    assert len(cut_on) == 15


# -- empty things -----------------------------------------------------------------------------------


def test_an_empty_context_is_an_error_and_each_section_says_why(tmp_path: Path) -> None:
    # No rule files, no create/modify files, no spec files: nothing can go in.
    root = make_project(tmp_path, [{"id": "T", "title": "Login session", "files": {}}])
    found = findings_of(assemble(load_project(root), "feat", "T", exact=False))
    # Errors first, then warnings in section order.
    assert codes(found) == ["context-empty", "section-empty", "section-empty"]
    assert [f.section for f in found] == [None, "security_rules", "spec_excerpts"]
    assert found[1].message.startswith("The section \u201cSecurity rules\u201d is empty: it had no candidates")


def test_an_empty_spec_file_leaves_only_the_spec_section_empty(tmp_path: Path) -> None:
    task = {"id": "T", "title": "Login session", "files": {"create": ["a.py"]}}
    root = make_project(tmp_path, [task], requirements="", rules={CORE: "## Rule: A\n"})
    found = findings_of(assemble(load_project(root), "feat", "T", exact=False))
    assert codes(found) == ["section-empty"]
    assert found[0].section == "spec_excerpts" and found[0].item is None


def test_a_kept_section_is_no_finding(tmp_path: Path) -> None:
    task = {"id": "T", "title": "Login session", "files": {"create": ["a.py"]}}
    root = make_project(tmp_path, [task], requirements="Login works.", rules={CORE: "## Rule: A\n"})
    assert findings_of(assemble(load_project(root), "feat", "T", exact=False)) == ()


# -- budgets ---------------------------------------------------------------------------------------


def test_a_share_too_small_for_any_candidate(tmp_path: Path) -> None:
    # Budget 100 -> security 30 tokens (120 characters); the core block is 24 + 9 + 200 = 233
    # characters, 58 estimated tokens: the only candidate cannot fit, so it is cut and the
    # share is too small.
    task = {"id": "T", "title": "Login", "files": {"create": ["a.md"]}}
    root = make_project(tmp_path, [task], requirements="Login works.", rules={CORE: "## Rule: " + "z" * 200 + "\n"})
    found = findings_of(assemble(load_project(root), "feat", "T", {"budget": 100}, exact=False))
    assert codes(found) == ["section-empty", "share-too-small", "rule-cut-loaded"]
    small = of(found, "share-too-small")[0]
    assert small.section == "security_rules"
    assert "may use 30 estimated tokens" in small.message and "needs 58" in small.message


def test_a_context_left_over_its_budget(tmp_path: Path) -> None:
    # drift with nothing it may cut keeps the whole context, over a budget of 10 tokens.
    task = {"id": "T", "title": "Login session", "files": {"create": ["a.py"]}}
    root = make_project(tmp_path, [task], requirements="Login session notes.", rules={CORE: "## Rule: A\n"})
    trace = assemble(
        load_project(root), "feat", "T", {"profile": "drift", "budget": 10, "drift_priority": []}, exact=False
    )
    used = trace.context_tokens.heuristic
    assert used > 10
    [over] = of(findings_of(trace), "over-budget")
    assert over.message == f"The context is {used} estimated tokens, {used - 10} over its budget of 10."


@pytest.mark.parametrize(
    ("line", "kept", "verdict"),
    [
        # 24 + 9 + 79 = 112 characters (28 estimated tokens, within 30) but " 1 2 3 ..." is a
        # token per two characters: counted exactly it does not fit 30.
        ("## Rule:" + " 1" * 40, True, "would not have fit"),
        # 24 + 9 + 180 = 213 characters (53 estimated, over 30) but " information" is one
        # token in twelve characters: counted exactly it fits.
        ("## Rule: " + " information" * 15, False, "would have fit"),
    ],
)
def test_the_estimate_and_the_exact_count_disagree_on_a_rule_block(
    tmp_path: Path, line: str, kept: bool, verdict: str
) -> None:
    block = f"### {CORE}\n{line}"
    fits_estimate, fits_exactly = len(block) <= 120, CL.count(block) <= 30
    assert (fits_estimate, fits_exactly) == (kept, not kept)  # the case we mean
    task = {"id": "T", "title": "Login", "files": {"create": ["a.md"]}}
    root = make_project(tmp_path, [task], requirements="Login works.", rules={CORE: line + "\n"})
    found = findings_of(assemble(load_project(root), "feat", "T", {"budget": 100}, exact=True))
    [flip] = of(found, "estimate-flip")
    assert flip.item == f"rule:{CORE}" and verdict in flip.message
    assert ("kept it" if kept else "left it out") in flip.message


def test_no_estimate_flip_without_exact_counts(tmp_path: Path) -> None:
    task = {"id": "T", "title": "Login", "files": {"create": ["a.md"]}}
    root = make_project(tmp_path, [task], requirements="Login works.", rules={CORE: "## Rule:" + " 1" * 40 + "\n"})
    found = findings_of(assemble(load_project(root), "feat", "T", {"budget": 100}, exact=False))
    assert of(found, "estimate-flip") == []


# -- keywords and ties -------------------------------------------------------------------------------


def test_a_keyword_in_nine_of_ten_paragraphs_put_four_in(tmp_path: Path) -> None:
    # Keywords "alpha" and "with".  Paragraph 1 holds "alpha", paragraphs 2-10 hold "with"
    # (9 of 10, over half).  All score 1; the top 5 in file order are paragraphs 1-5.  Without
    # "with" only paragraph 1 scores: paragraphs 2-5 are in the context by "with" alone.
    paras = ["alpha one."] + [f"with filler {n}." for n in range(2, 11)]
    task = {"id": "T", "title": "alpha with", "files": {}}
    root = make_project(tmp_path, [task], requirements="\n\n".join(paras))
    found = of(findings_of(assemble(load_project(root), "feat", "T", exact=False)), "stopword-keyword")
    assert [f.item for f in found] == [f"requirements:{n}" for n in range(2, 6)]
    assert found[0].message == (
        "The keyword \u201cwith\u201d occurs in 9 of the 10 paragraphs of requirements.md, so it says little "
        "about any one of them, yet it put in the context paragraph 2 of requirements.md (line 3)."
    )


def test_a_keyword_in_most_paragraphs_pushes_others_out(tmp_path: Path) -> None:
    # Paragraphs 1-3 hold "alpha" (score 1), 4-10 "alpha" and "with" (score 2, 7 of 10).  The
    # top 5 are 4-8.  Without "with" all score 1 and the top 5 are 1-5 in file order: "with"
    # put 6, 7 and 8 in and pushed 1, 2 and 3 out.
    paras = [f"alpha plain {n}." for n in range(1, 4)] + [f"alpha with {n}." for n in range(4, 11)]
    task = {"id": "T", "title": "alpha with", "files": {}}
    root = make_project(tmp_path, [task], requirements="\n\n".join(paras))
    found = of(findings_of(assemble(load_project(root), "feat", "T", exact=False)), "stopword-keyword")
    by_item = {f.item: f.message for f in found}
    assert sorted(by_item, key=lambda i: int(i.split(":")[1])) == [f"requirements:{n}" for n in (1, 2, 3, 6, 7, 8)]
    assert "pushed out of the top 5" in by_item["requirements:1"]
    assert "put in the context" in by_item["requirements:6"]


def test_two_equal_scores_where_only_the_first_fits_is_a_tie_by_order(tmp_path: Path) -> None:
    # Budget 120 -> spec 60 -> requirements 30 tokens = 120 characters.  Both paragraphs hold
    # "alpha" once (score 1) and are 106 characters: the cut at 120 falls in the second, and
    # the blank line at 106 (> 60) is where it is cut, so the first is kept whole and the
    # second, equal in score, is out only because it comes later in the file.
    first, second = "alpha " + "a" * 100, "alpha " + "b" * 100
    task = {"id": "T", "title": "alpha", "files": {}}
    root = make_project(tmp_path, [task], requirements=f"{first}\n\n{second}")
    trace = assemble(load_project(root), "feat", "T", {"budget": 120}, exact=False)
    assert [trace.item(f"requirements:{n}").status for n in (1, 2)] == ["included", "cut_for_budget"]  # type: ignore[union-attr]
    [tie] = of(findings_of(trace), "tie-by-order")
    assert (tie.item, tie.severity) == ("requirements:2", INFO)
    assert tie.message == (
        "Paragraph 2 of requirements.md (line 3) scored 1, the same as paragraph 1 of requirements.md (line 1), "
        "which comes before it and got in."
    )


def test_different_scores_are_no_tie(tmp_path: Path) -> None:
    first, second = "alpha beta " + "a" * 100, "alpha " + "b" * 100
    task = {"id": "T", "title": "alpha beta", "files": {}}
    root = make_project(tmp_path, [task], requirements=f"{first}\n\n{second}")
    trace = assemble(load_project(root), "feat", "T", {"budget": 120}, exact=False)
    assert of(findings_of(trace), "tie-by-order") == []


# -- every sample ------------------------------------------------------------------------------------

_INTERNAL = re.compile(
    r"\b(requirements|design|rule|knowledge|component|dependency):\S|\b[a-z]+_[a-z_]+\(|select_top_k"
)


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("root", sample_projects(), ids=[p.name for p in sample_projects()])
def test_findings_on_every_sample_are_deterministic_and_plain(root: Path, profile: str) -> None:
    project = load_project(root)
    settings = project.settings.with_overrides({"profile": profile}, "test")
    for feature, task in project.tasks():
        trace: Trace = assemble_task(project, feature, task, settings, exact=True)
        found = findings_of(trace)
        assert found == findings_of(trace)
        severities = [("error", "warning", "info").index(f.severity) for f in found]
        assert severities == sorted(severities)
        for f in found:
            assert f.code in CODES and f.severity == CODES[f.code][0]
            assert (f.feature, f.task) == (feature.name, task.id)
            assert f.item is None or trace.item(f.item) is not None
            assert not _INTERNAL.search(f.message), f.message
            assert f.message.endswith(".") and "\n" not in f.message
        assert [d["code"] for d in findings_to_json(found)] == [f.code for f in found]


def test_a_trace_json_with_findings_beside_it_still_reads(tmp_path: Path) -> None:
    """Outputs may put a "findings" list beside the trace's fields; the trace reads back the same."""
    from ctxviewer.engine.trace.model import trace_from_json, trace_to_json

    task = {"id": "T", "title": "Task", "files": {"create": ["a.py"]}}
    rules = {CORE: "## Rule: " + "x" * 60 + "\n", PYTHON: "## Rule: " + "y" * 40 + "\n"}
    root = make_project(tmp_path, [task], requirements="Task notes.", rules=rules)
    trace = assemble(load_project(root), "feat", "T", {"budget": 100}, exact=False)
    data = {**trace_to_json(trace), "findings": findings_to_json(findings_of(trace))}
    assert [f["code"] for f in data["findings"]] == ["rule-cut-loaded"]
    assert trace_from_json(data) == trace


@pytest.mark.parametrize(("extra", "words"), [(1, " and 1 more task file "), (1_200, " and 1,200 more task files ")])
def test_a_rule_cut_counts_the_other_matching_files_in_words(tmp_path: Path, extra: int, words: str) -> None:
    # The same cut as above (budget 100: the 70-character python block does not fit the 27
    # left), now matched by a.py and *extra* more .py files.
    files = ["a.py", *(f"b{i}.py" for i in range(extra))]
    task = {"id": "T", "title": "Task", "files": {"create": files}}
    rules = {CORE: "## Rule: " + "x" * 60 + "\n", PYTHON: UNLOADED + "## Rule: " + "y" * 40 + "\n"}
    root = make_project(tmp_path, [task], requirements="Task notes.", rules=rules)
    [cut] = of(findings_of(assemble(load_project(root), "feat", "T", {"budget": 100}, exact=False)), "rule-cut")
    assert cut.message.startswith(f"The security rule file languages/python/CLAUDE.md matched a.py{words}but was")


def test_a_rule_file_matched_by_many_files_counts_the_rest_with_a_separator(tmp_path: Path) -> None:
    # a.py, then 1,002 more .py files: the reason names the first three and 1,000 more.
    files = ["a.py", *(f"b{i}.py" for i in range(1_002))]
    task = {"id": "T", "title": "Task", "files": {"create": files}}
    rules = {CORE: "## Rule: core\n", PYTHON: "## Rule: python\n"}
    root = make_project(tmp_path, [task], requirements="Task notes.", rules=rules)
    trace = assemble(load_project(root), "feat", "T", None, exact=False)
    [python] = [i for i in trace.items if i.id == f"rule:{PYTHON}"]
    assert python.reason.startswith("matched by a.py (.py), b0.py (.py), b1.py (.py) and 1,000 more; ")


def test_a_design_time_context_that_names_or_quotes_no_matched_rule_file(tmp_path: Path) -> None:
    # Both tasks create a.py (the python rule file matches); T1's context says nothing of the
    # rules, T2's quotes the python file's rule line, T3's names the file.
    rules = {CORE: "## Rule: core\n", PYTHON: "## Rule: Validate every session field\n"}
    tasks = [
        {"id": "T1", "title": "Task", "files": {"create": ["a.py"]}, "context": "Use the cache."},
        {
            "id": "T2",
            "title": "Task",
            "files": {"create": ["a.py"]},
            "context": "## Rule: Validate every session field",
        },
        {"id": "T3", "title": "Task", "files": {"create": ["a.py"]}, "context": "See languages/python/CLAUDE.md."},
    ]
    project = load_project(make_project(tmp_path, tasks, requirements="Task notes.", rules=rules))
    found = {
        t: of(findings_of(assemble(project, "feat", t, exact=False)), "context-no-rules") for t in ("T1", "T2", "T3")
    }
    [one] = found["T1"]
    assert one.severity == INFO and "they reach the worker only as project memory" in one.message
    assert found["T2"] == found["T3"] == []


def test_sources_newer_than_ctxviewer_s_python_are_one_finding_naming_them(tmp_path: Path) -> None:
    task = {"id": "T", "title": "Login session", "files": {"create": ["a.py"]}}
    root = make_project(tmp_path, [task], requirements="Login.", rules={CORE: "## Rule: A\n"})
    trace = assemble(load_project(root), "feat", "T", {"profile": "zerg-0.3.2"}, exact=False)
    assert "python-too-old" not in codes(findings_of(trace))
    # Four files the map left out because this Python lacks their syntax, one it skips as upstream does.
    newer = [TraceError("repo_map", "pipeline", f"src/m{n}.py: ...", NEWER_SYNTAX, f"src/m{n}.py") for n in range(4)]
    broken = TraceError(
        "repo_map", "pipeline", "src/b.py: ...", "not in the symbol map, as upstream skips it", "src/b.py"
    )
    [found] = of(findings_of(replace(trace, errors=(broken, *newer))), "python-too-old")
    assert (found.severity, found.section, found.item) == (WARNING, "repo_map", None)
    assert found.message.startswith(
        "The repository map may differ from upstream's: src/m0.py, src/m1.py, src/m2.py and 1 more use syntax of "
        "Python 3.12 or newer"
    )
    [one] = of(findings_of(replace(trace, errors=(newer[2],))), "python-too-old")
    assert "src/m2.py uses syntax" in one.message and "parsed it:" in one.message
