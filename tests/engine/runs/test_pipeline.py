"""Whole-run tests of the mahabharatha profile: hand-worked contexts, failures, reasons."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctxviewer.engine.project.loading import load_project
from ctxviewer.engine.runs import pipeline
from ctxviewer.engine.runs.pipeline import assemble
from ctxviewer.engine.trace.model import (
    CUT_FOR_BUDGET,
    INCLUDED,
    NOT_CANDIDATE,
    OUTRANKED,
    RULE_FILE,
    SPEC_PARAGRAPH,
    TRUNCATED,
)
from tests.engine.oracle import oracle_context
from tests.factories import make_project, write

CORE = "## Rule: A\n**Level**: strict\nprose that is not kept\n```\n## Rule: inside a fence\n```\n"


def _small(tmp_path: Path, task: dict, **kw: object) -> Path:
    return make_project(
        tmp_path,
        [task],
        requirements=kw.get("requirements", "Alpha login flow.\n\nBeta session store.\n\nGamma unrelated."),  # type: ignore[arg-type]
        design=kw.get("design", "Login screen design."),  # type: ignore[arg-type]
        rules=kw.get("rules", {"_core/owasp-2025.md": CORE}),  # type: ignore[arg-type]
    )


def test_hand_worked_context(tmp_path: Path) -> None:
    task = {"id": "T1", "title": "Login session", "description": "", "files": {"create": ["src/app.py"]}}
    root = _small(tmp_path, task)
    trace = assemble(load_project(root), "feat", "T1", exact=False)
    # Keywords: 'login', 'session' (title words over 3 chars) and 'app' (stem part over 2).
    assert [k.word for k in trace.keywords] == ["app", "login", "session"]
    # Only the core rule exists; python/CLAUDE.md is matched by src/app.py but missing.
    security = "## Security Rules (task-scoped)\n\n### _core/owasp-2025.md\n## Rule: A\n**Level**: strict"
    # 'Alpha login flow.' and 'Beta session store.' score 1 each and keep file order.
    spec = (
        "## Relevant Requirements\n\nAlpha login flow.\n\nBeta session store."
        "\n\n## Relevant Design\n\nLogin screen design."
    )
    assert trace.context == security + "\n\n" + spec
    assert trace.section("security_rules").span == (0, len(security))  # type: ignore[union-attr]
    assert trace.section("spec_excerpts").span == (len(security) + 2, len(trace.context))  # type: ignore[union-attr]
    gamma = trace.item("requirements:3")
    assert gamma is not None and gamma.status == NOT_CANDIDATE and gamma.score == 0
    assert gamma.reason == "score 0: no task keyword occurs in it"
    python = trace.item("rule:languages/python/CLAUDE.md")
    assert python is not None and python.status == NOT_CANDIDATE  # matched, but missing
    assert "matched by src/app.py (.py)" in python.reason and "does not exist" in python.reason
    # Each included item's span points at its text in the context.
    for item in trace.items:
        if item.status == INCLUDED and item.kind == SPEC_PARAGRAPH:
            assert item.span is not None
            assert trace.context[item.span[0] : item.span[1]] == item.text


def test_rank_beyond_top_five_is_dropped_with_reason(tmp_path: Path) -> None:
    # Seven paragraphs: paragraph n contains the first n of seven keywords, so the
    # scores are 1..7 and ranks run 7..1; ranks 6 and 7 (paragraphs 2 and 1) are cut.
    words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golfer"]
    paras = [" ".join(words[: n + 1]) for n in range(7)]
    task = {"id": "T", "title": " ".join(words), "files": {}}
    root = _small(tmp_path, task, requirements="\n\n".join(paras), design="")
    trace = assemble(load_project(root), "feat", "T", exact=False)
    first = trace.item("requirements:1")
    second = trace.item("requirements:2")
    assert first is not None and first.rank == 7 and first.status == OUTRANKED
    assert first.reason == "rank 7, only the top 5 are kept (score 1)"
    assert second is not None and second.rank == 6
    step = trace.trim_steps[0]
    assert (step.action, step.target) == ("select_top_k", "requirements")
    # The cut removes 'alpha bravo' and 'alpha' plus two separators: 11 + 5 + 4 = 20 chars.
    assert step.chars_before - step.chars_after == 20


def test_truncation_reason_and_step(tmp_path: Path) -> None:
    # Budget 40 -> spec budget 20 -> requirements get 20 // 2 = 10 tokens = 40 chars.
    para = "Login one is here. Login two is there. Login three is everywhere."
    task = {"id": "T", "title": "login", "files": {}}
    root = _small(tmp_path, {**task, "title": "Login"}, requirements=para, design="")
    trace = assemble(load_project(root), "feat", "T", {"budget": 40}, exact=False)
    # cut = para[:40] = 'Login one is here. Login two is there. L'; no blank line; the
    # last '. ' is at 37 (> 20), so the cut keeps 38 characters up to 'there.'.
    kept = "Login one is here. Login two is there."
    assert trace.section("spec_excerpts").text == (  # type: ignore[union-attr]
        "## Relevant Requirements\n\n" + kept + "\n\n[... truncated for context limits ...]"
    )
    item = trace.item("requirements:1")
    assert item is not None and item.status == TRUNCATED
    assert item.kept_chars == 38
    assert "cut at a sentence boundary: 38 of 65 characters kept" in item.reason
    step = next(s for s in trace.trim_steps if s.action == "truncate")
    # Measured on the section: the 24-character header, a blank line and the paragraph,
    # 24 + 2 + 65 = 91 characters (91 // 4 = 22), then the section as built.
    assert (step.chars_before, step.tokens_before) == (91, 22)
    assert step.chars_after == len(trace.section("spec_excerpts").text)  # type: ignore[union-attr]


def test_rule_block_that_does_not_fit_is_skipped(tmp_path: Path) -> None:
    # Budget 100 -> security 30 tokens -> 120 characters for the summary.
    core = "## Rule: " + "x" * 60 + "\n"  # block: 24-char header line + 69 = 93 chars
    py = "## Rule: " + "y" * 40 + "\n"  # block: '### python/CLAUDE.md\n' 21 + 49 = 70; 93 + 70 > 120
    js = "## Rule: z\n"  # block: '### javascript/CLAUDE.md\n' 25 + 10 = 35; 93 + 35 > 120
    task = {"id": "T", "title": "Task", "files": {"create": ["a.py", "b.ts"]}}
    root = _small(
        tmp_path,
        task,
        rules={"_core/owasp-2025.md": core, "languages/python/CLAUDE.md": py, "languages/javascript/CLAUDE.md": js},
    )
    trace = assemble(load_project(root), "feat", "T", {"budget": 100}, exact=False)
    py_item = trace.item("rule:languages/python/CLAUDE.md")
    assert py_item is not None and py_item.status == CUT_FOR_BUDGET
    assert py_item.reason.endswith("block of 70 characters did not fit the 27 left of 120")
    js_item = trace.item("rule:languages/javascript/CLAUDE.md")
    assert js_item is not None and js_item.status == CUT_FOR_BUDGET
    assert js_item.reason.endswith("block of 35 characters did not fit the 27 left of 120")
    assert [s.action for s in trace.trim_steps[:2]] == ["skip_block", "skip_block"]


def test_dict_files_entry_leaves_spec_out(tmp_path: Path) -> None:
    task = {
        "id": "T",
        "title": "Login session",
        "files": {"create": ["src/app.py"], "read": [{"path": "src/a.py", "lines": "1-40"}]},
    }
    root = _small(tmp_path, task)
    trace = assemble(load_project(root), "feat", "T", exact=False)
    assert trace.context.startswith("## Security Rules (task-scoped)")
    assert "Relevant" not in trace.context
    assert trace.section("spec_excerpts").status == "failed"  # type: ignore[union-attr]
    [error] = trace.errors
    assert error.stage == "spec_excerpts" and error.kind == "pipeline"
    assert "files.read has an entry that is dict" in error.message
    # The spec section never ran, so no paragraph was in the running.
    assert all(i.status == NOT_CANDIDATE for i in trace.items_of(SPEC_PARAGRAPH))


def test_files_not_a_mapping_empties_context(tmp_path: Path) -> None:
    task = {"id": "T", "title": "Login session", "files": ["src/app.py"]}
    root = _small(tmp_path, task)
    trace = assemble(load_project(root), "feat", "T", exact=False)
    assert trace.context == ""
    assert trace.errors[0].stage == "task"
    assert "falls back to empty" in trace.errors[0].consequence
    strict = assemble(load_project(root), "feat", "T", {"fallback_to_full": False}, exact=False)
    assert "raises" in strict.errors[0].consequence


def test_non_string_create_entry_fails_both_sections(tmp_path: Path) -> None:
    # Path(7) raises in the rule filter (security left out) and in keyword extraction
    # (spec left out): nothing is left.
    task = {"id": "T", "title": "Login session", "files": {"create": [7]}}
    trace = assemble(load_project(_small(tmp_path, task)), "feat", "T", exact=False)
    assert trace.context == ""
    assert {e.stage for e in trace.errors} == {"security_rules", "spec_excerpts"}


def test_unreadable_rule_file_empties_context(tmp_path: Path) -> None:
    task = {"id": "T", "title": "Login session", "files": {"create": ["src/app.py"]}}
    root = _small(tmp_path, task, rules={"_core/owasp-2025.md": CORE})
    write(root, ".claude/rules/security/languages/python/CLAUDE.md", b"## Rule: \xff\n")
    trace = assemble(load_project(root), "feat", "T", exact=False)
    assert trace.context == ""
    [error] = trace.errors
    assert error.kind == "input" and error.path == ".claude/rules/security/languages/python/CLAUDE.md"
    assert error.line == 1


def test_non_utf8_spec_leaves_spec_out(tmp_path: Path) -> None:
    task = {"id": "T", "title": "Login session", "files": {"create": ["src/app.py"]}}
    root = _small(tmp_path, task)
    write(root, ".gsd/specs/feat/requirements.md", b"fine\n\nsecond line \xe9t\xe9\n")
    trace = assemble(load_project(root), "feat", "T", exact=False)
    assert "Relevant" not in trace.context and trace.context.startswith("## Security")
    [error] = trace.errors
    assert (error.kind, error.line) == ("input", 3)


def test_no_keywords_means_no_spec(tmp_path: Path) -> None:
    task = {"id": "T", "title": "Fix the bug"}  # every word has 3 characters or fewer
    trace = assemble(load_project(_small(tmp_path, task)), "feat", "T", exact=False)
    assert trace.context == ""
    assert trace.keywords == ()
    assert trace.section("spec_excerpts").reason == "the task has no keywords"  # type: ignore[union-attr]
    assert trace.section("security_rules").reason == "the task has no create/modify files"  # type: ignore[union-attr]


def test_tracker_counts_existing_read_and_modify_files(tmp_path: Path) -> None:
    task = {
        "id": "T",
        "title": "Login",
        "files": {"modify": ["src/a.py", "../outside.py"], "read": ["src/b.md", "src/missing.py"]},
    }
    root = _small(tmp_path, task)
    write(root, "src/a.py", "x" * 400)  # 400 * 0.25 + 100 = 200
    write(root, "src/b.md", "y" * 41)  # int(10.25) + 100 = 110
    trace = assemble(load_project(root), "feat", "T", exact=False)
    # 500 for the task + 200 + 110
    assert trace.tracker.estimated_tokens == 810
    assert trace.tracker.files_read == 2
    notes = {f.path: f.note for f in trace.tracker.files}
    assert "goes above the project root" in notes["../outside.py"]
    assert "does not exist" in notes["src/missing.py"]
    # budget_for_task: 4000 // 2 create/modify files = 2000
    assert trace.tracker.budget_for_task == 2000


def test_system_config_threshold_and_budget(tmp_path: Path) -> None:
    task = {"id": "T", "title": "Login", "files": {}}
    root = make_project(
        tmp_path,
        [task],
        requirements="Login.",
        config=(
            "workers:\n  context_threshold_percent: 55\n"
            "plugins:\n  context_engineering:\n    task_context_budget_tokens: 3000\n"
        ),
    )
    trace = assemble(load_project(root), "feat", "T", exact=False)
    assert trace.budget == 3000
    assert trace.section_budgets == {"security_rules": 900, "spec_excerpts": 1500}
    assert trace.tracker.threshold_percent == 55
    assert trace.settings["budget"].origin == ".mahabharatha/config.yaml"


def test_exact_counts_present_when_requested(tmp_path: Path) -> None:
    task = {"id": "T", "title": "Login session", "files": {"create": ["src/app.py"]}}
    trace = assemble(load_project(_small(tmp_path, task)), "feat", "T")
    assert trace.context_tokens.cl100k_base is not None and trace.context_tokens.cl100k_base > 0
    assert all(i.tokens.o200k_base is not None for i in trace.items)


def test_matches_independent_oracle_on_generated_tasks(tmp_path: Path) -> None:
    hypothesis = pytest.importorskip("hypothesis")
    st = hypothesis.strategies
    words = st.sampled_from(["login", "session", "token", "store", "ab", "data.", "Queue", "x-y_z"])
    paragraph = st.lists(words, min_size=1, max_size=30).map(" ".join)
    spec = st.lists(paragraph, min_size=0, max_size=12).map("\n\n".join)
    paths = st.lists(st.sampled_from(["src/a.py", "web/b.tsx", "Dockerfile", "docker-compose.yml", "x.md"]), max_size=3)
    root = tmp_path / "p"
    rules = {
        "_core/owasp-2025.md": CORE * 20,
        "languages/python/CLAUDE.md": "## Rule: py\n**When**: always\n" * 30,
        "containers/docker/CLAUDE.md": "### Rule: d\n" * 10,
    }

    @hypothesis.settings(max_examples=60, deadline=None, suppress_health_check=list(hypothesis.HealthCheck))
    @hypothesis.given(title=paragraph, req=spec, des=spec, create=paths, read=paths, budget=st.integers(40, 5000))
    def check(title: str, req: str, des: str, create: list[str], read: list[str], budget: int) -> None:
        task = {"id": "T", "title": title, "files": {"create": create, "read": read}}
        make_project(root, [task], requirements=req, design=des, rules=rules)
        trace = assemble(load_project(root), "feat", "T", {"budget": budget}, exact=False)
        assert trace.context == oracle_context(root, "feat", task, budget)

    check()


def test_trace_is_json_serialisable(tmp_path: Path) -> None:
    task = {"id": "T", "title": "Login session", "files": {"create": ["src/app.py"]}}
    trace = assemble(load_project(_small(tmp_path, task)), "feat", "T")
    from ctxviewer.engine.trace.model import trace_from_json, trace_to_json

    text = json.dumps(trace_to_json(trace))
    assert trace_from_json(json.loads(text)) == trace
    assert {i.kind for i in trace.items} == {SPEC_PARAGRAPH, RULE_FILE}


def test_one_task_detects_the_upstream_version_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The running profile is resolved once per task and its tokenizer follows from it."""
    from ctxviewer.engine.project import upstream

    task = {"id": "T1", "title": "Login session", "description": "", "files": {"create": ["src/app.py"]}}
    project = load_project(_small(tmp_path, task))
    calls: list[object] = []
    real_detect = upstream.detect
    monkeypatch.setattr(upstream, "detect", lambda fs: calls.append(fs) or real_detect(fs))
    trace = assemble(project, "feat", "T1", exact=False)
    assert len(calls) == 1
    assert trace.upstream == real_detect(project.fs).version
    assert trace.tokenizer == pipeline.decision_tokenizer(project.settings, project)
