"""The ``computed`` profile (seed 004): knowledge, handoffs, context map, limits, budget.

Every expectation is worked out by hand from the small projects built here.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
import yaml

from ctxviewer.engine.profiles.computed import (
    CODE_REFS,
    DEPENDENCY,
    KNOWLEDGE,
    MAP_ENTRY,
    PATTERNS,
    PRIOR_WORK,
    QUESTIONS,
    WARNINGS,
    Component,
    complexity_of,
    component_score,
)
from ctxviewer.engine.project.loading import load_project
from ctxviewer.engine.runs.pipeline import assemble
from ctxviewer.engine.trace.model import (
    INCLUDED,
    NOT_CANDIDATE,
    OUTRANKED,
    Trace,
    trace_from_json,
    trace_to_json,
)
from tests.factories import make_project, write

CMAP = ".mahabharatha/context-map.yaml"


def run(root: Path, task: str = "T1", **overrides: Any) -> Trace:
    return assemble(load_project(root), "feat", task, {"profile": "computed", **overrides}, exact=False)


def dump(root: Path, rel: str, data: Any) -> None:
    write(root, rel, json.dumps(data) if rel.endswith(".json") else yaml.safe_dump(data, sort_keys=False))


def by_id(trace: Trace) -> dict[str, Any]:
    return {i.id: i for i in trace.items}


# -- phase 4: the context map ---------------------------------------------------------------


def test_component_score_follows_seed_004_phase_4() -> None:
    entry = Component(1, "SessionStore", "src/auth/session_store.py:10-80", "Auth sessions kept in the database")
    # keywords: session (component +2, location +1), store (component +2, location +1),
    # auth (location +1 only); domains: auth (notes +1), database (notes +1), api (no);
    # files: session_store.py (location contains it: +3)
    score, why = component_score(entry, ["session", "store", "auth"], ["auth", "database", "api"], ["session_store.py"])
    assert score == 2 + 1 + 2 + 1 + 1 + 1 + 1 + 3
    assert why == {
        "component": ["session", "store"],
        "location": ["session", "store", "auth"],
        "notes": ["auth", "database"],
        "file": ["session_store.py"],
    }


def test_a_file_mention_is_matched_case_sensitively_keywords_are_not() -> None:
    entry = Component(1, "Cfg", "src/Config.py", "")
    assert component_score(entry, [], [], ["config.py"])[0] == 0
    assert component_score(entry, ["config"], [], ["Config.py"])[0] == 1 + 3


def _components(n: int) -> list[dict[str, str]]:
    return [{"component": f"Ledger{i}", "location": f"src/x{i}.py", "notes": ""} for i in range(1, n + 1)]


def test_the_context_map_keeps_the_top_ten_by_score_and_says_why_each_other_went(tmp_path: Path) -> None:
    components = _components(12)
    components[11]["location"] = "src/ledger/x12.py"  # ledger in component (+2) and location (+1): 3
    components.append({"component": "Unrelated", "location": "src/y.py", "notes": "nothing"})
    make_project(tmp_path, [{"id": "T1", "title": "Ledger totals"}])
    dump(tmp_path, CMAP, {"components": components})
    trace = run(tmp_path)
    items = by_id(trace)
    # component 13 scores 3, ranks first; components 1..12 score 2 in file order: ranks 2..12
    assert items["component:12"].score == 3 and items["component:12"].rank == 1
    assert [items[f"component:{i}"].rank for i in range(1, 12)] == list(range(2, 13))
    kept = [i.id for i in trace.items if i.kind == MAP_ENTRY and i.status == INCLUDED]
    assert kept == ["component:12", *[f"component:{i}" for i in range(1, 10)]]
    assert "phase 4 keeps 10" in items["component:10"].reason and items["component:10"].status == OUTRANKED
    assert items["component:13"].status == NOT_CANDIDATE and items["component:13"].score == 0
    assert items["component:13"].reason.startswith("score 0")
    table = trace.section(CODE_REFS)
    assert table is not None
    assert table.text.splitlines()[1:4] == [
        "| Location | Component | Notes |",
        "|----------|-----------|-------|",
        "| `src/ledger/x12.py` | Ledger12 |  |",
    ]
    # each kept row's span points at its own row in the context
    row = items["component:12"]
    assert row.span is not None and trace.context[row.span[0] : row.span[1]] == "| `src/ledger/x12.py` | Ledger12 |  |"


def test_an_easy_task_keeps_five_code_references(tmp_path: Path) -> None:
    make_project(tmp_path, [{"id": "T1", "title": "Ledger totals", "complexity": "haiku"}])
    dump(tmp_path, CMAP, {"components": _components(7)})
    items = by_id(run(tmp_path))
    assert [items[f"component:{i}"].status for i in range(1, 8)] == [INCLUDED] * 5 + [OUTRANKED] * 2
    assert "complexity easy keeps 5" in items["component:6"].reason


# -- phase 2: knowledge -----------------------------------------------------------------------


def _pattern(summary: str, *tags: str, file: str = "") -> dict[str, Any]:
    node: dict[str, Any] = {"type": "pattern", "summary": summary, "tags": list(tags)}
    if file:
        node["file"] = file
    return node


def test_patterns_are_scored_by_matching_tags_and_the_best_five_kept(tmp_path: Path) -> None:
    # task keywords: refund, ledger, webhook; domains: none of the seed's table
    make_project(tmp_path, [{"id": "T1", "title": "Refund ledger webhook"}])
    nodes = [
        _pattern("P1", "refund"),  # 1
        _pattern("P2", "refunds", "ledger", file="src/r.py"),  # 2 (plural folded)
        _pattern("P3", "Webhook", "ledger", "refund"),  # 3 (case folded)
        _pattern("P4", "ledger"),  # 1
        _pattern("P5", "webhook"),  # 1
        _pattern("P6", "refund"),  # 1
        _pattern("P7", "unrelated"),  # 0: not matched
        _pattern("P8"),  # no tags
    ]
    dump(tmp_path, CMAP, {"knowledge": nodes})
    trace = run(tmp_path)
    items = by_id(trace)
    ranks = {i.text.split("**")[1]: (i.score, i.rank, i.status) for i in trace.items if i.kind == KNOWLEDGE and i.rank}
    assert ranks == {
        "P3": (3, 1, INCLUDED),
        "P2": (2, 2, INCLUDED),
        "P1": (1, 3, INCLUDED),
        "P4": (1, 4, INCLUDED),
        "P5": (1, 5, INCLUDED),
        "P6": (1, 6, OUTRANKED),
    }
    assert "phase 2 keeps 5" in items["knowledge:6"].reason
    assert items["knowledge:7"].reason == "no tag among the task's keywords or domains"
    assert items["knowledge:8"].reason == "no tags: no query can find it"
    assert items["knowledge:3"].matched_keywords == ("webhook", "ledger", "refund")
    section = trace.section(PATTERNS)
    assert section is not None
    assert section.text == "\n".join(
        ["### Patterns to Follow", "- **P3**", "- **P2** (see: src/r.py)", "- **P1**", "- **P4**", "- **P5**"]
    )


def test_gotchas_render_with_severity_and_decisions_plain(tmp_path: Path) -> None:
    make_project(tmp_path, [{"id": "T1", "title": "Session expiry"}])
    dump(
        tmp_path,
        CMAP,
        {
            "knowledge": [
                {"type": "gotcha", "summary": "Naive datetimes", "severity": "High", "tags": ["expiry"]},
                {"type": "gotcha", "summary": "Clock skew", "tags": ["session"]},
                {"type": "decision", "summary": "Opaque ids", "rationale": "revocation", "tags": ["session"]},
            ]
        },
    )
    trace = run(tmp_path)
    assert (
        "### Warnings\n- \u26a0\ufe0f **high**: Naive datetimes\n- \u26a0\ufe0f **medium**: Clock skew" in trace.context
    )
    assert "### Relevant Decisions\n- Opaque ids" in trace.context
    assert by_id(trace)["knowledge:3"].details["rationale"] == "revocation"


def test_the_domain_query_finds_nodes_the_keywords_miss(tmp_path: Path) -> None:
    # "login" triggers domain auth; the node is tagged only "auth"
    make_project(tmp_path, [{"id": "T1", "title": "Login form"}])
    dump(tmp_path, CMAP, {"knowledge": [_pattern("Use the auth helper", "auth")]})
    item = by_id(run(tmp_path))["knowledge:1"]
    assert item.status == INCLUDED and item.reason.startswith("domain query: tags auth (score 1)")


def test_the_keyword_query_stops_at_twenty_nodes(tmp_path: Path) -> None:
    make_project(tmp_path, [{"id": "T1", "title": "Ledger"}])
    dump(tmp_path, CMAP, {"knowledge": [_pattern(f"P{i}", "ledger") for i in range(1, 23)]})
    items = by_id(run(tmp_path))
    assert items["knowledge:21"].reason == "tags match, but the query already had its limit of better-scoring nodes"
    assert items["knowledge:21"].status == OUTRANKED
    assert items["knowledge:20"].rank == 20 and items["knowledge:20"].status == OUTRANKED  # phase-2 limit of 5


def test_related_task_nodes_are_counted_never_rendered(tmp_path: Path) -> None:
    make_project(tmp_path, [{"id": "T1", "title": "Ledger"}])
    dump(tmp_path, CMAP, {"knowledge": [{"type": "task", "id": "T9", "tags": ["ledger"]}]})
    trace = run(tmp_path)
    item = by_id(trace)["knowledge:1"]
    assert item.status == NOT_CANDIDATE and "no place for it" in item.reason
    assert "T9" not in trace.context


def test_a_broken_context_map_is_reported_and_the_good_entries_used(tmp_path: Path) -> None:
    make_project(tmp_path, [{"id": "T1", "title": "Ledger"}])
    dump(
        tmp_path,
        CMAP,
        {"components": [{"component": "Ledger", "location": "src/l.py"}, "junk"], "knowledge": {"a": 1}},
    )
    trace = run(tmp_path)
    assert [(e.message, e.path) for e in trace.errors] == [
        ("components[2]: not a mapping; ignored", CMAP),
        ("knowledge: is dict, not a list; ignored", CMAP),
    ]
    assert by_id(trace)["component:1"].status == INCLUDED


def test_invalid_yaml_in_the_context_map_is_one_clear_error(tmp_path: Path) -> None:
    make_project(tmp_path, [{"id": "T1", "title": "Ledger"}])
    write(tmp_path, CMAP, "components: [\n")
    trace = run(tmp_path)
    assert len(trace.errors) == 1 and trace.errors[0].path == CMAP
    assert "invalid YAML" in trace.errors[0].message


def test_without_a_context_map_the_sections_say_so(tmp_path: Path) -> None:
    make_project(tmp_path, [{"id": "T1", "title": "Ledger"}])
    trace = run(tmp_path)
    assert trace.context == (
        "## Context (Computed)\n\n### Patterns to Follow\nNo specific patterns identified for this task.\n\n"
        "### Warnings\nNo known gotchas for this task area.\n\n### Relevant Decisions\n\n### Prior Work\n\n"
        "### Code References\nExplore the codebase as needed. No specific references pre-identified.\n\n"
        "### Open Questions (Blocking)"
    )
    assert any("no context map at .mahabharatha/context-map.yaml" in w for w in trace.warnings)
    assert trace.errors == ()


# -- phase 3: dependencies and handoffs ---------------------------------------------------------

HANDOFF = {
    "status": "completed",
    "summary": "Built the store.",
    "files_created": [{"path": "src/store.py", "reason": "the store"}, "src/extra.py"],
    "patterns_discovered": [{"pattern": "Digests only"}],
    "gotchas": [{"issue": "Naive UTC", "severity": "high"}, {"issue": "Slow test", "severity": "low"}],
    "open_questions": [
        {"question": "Cascade?", "blocking": True, "context": "Refresh later.", "recommendation": "No."},
        {"question": "Rename?", "blocking": False},
    ],
}


def _dep_project(root: Path, tasks: list[dict[str, Any]]) -> None:
    make_project(root, [{"id": "T1", "title": "Wire the store", "dependencies": ["D1", "D2", "D3", "GONE"]}, *tasks])


def test_prior_work_from_handoffs_and_the_graph_with_reasons_for_skips(tmp_path: Path) -> None:
    _dep_project(
        tmp_path,
        [
            {"id": "D1", "title": "Store", "description": "ignored: the handoff has a summary"},
            {"id": "D2", "title": "Half", "status": "in_progress"},
            {
                "id": "D3",
                "title": "Graph only",
                "status": "completed",
                "context": "From the graph.",
                "files": {"create": ["src/g.py"]},
            },
        ],
    )
    dump(tmp_path, ".mahabharatha/handoffs/D1.yaml", HANDOFF)
    trace = run(tmp_path)
    items = by_id(trace)
    assert (
        items["dependency:D1"].status == INCLUDED and items["dependency:D1"].source == ".mahabharatha/handoffs/D1.yaml"
    )
    assert items["dependency:D2"].status == NOT_CANDIDATE  # not completed
    assert (
        items["dependency:D2"].reason
        == "status 'in_progress' in the task graph (no handoff file), not 'completed': skipped"
    )
    assert items["dependency:D3"].reason == "completed (task graph status)"
    assert items["dependency:GONE"].reason == "not in the task graph: skipped"
    section = trace.section(PRIOR_WORK)
    assert section is not None
    assert section.text == (
        "### Prior Work\n#### Store\nBuilt the store.\n\n**Files Created:**\n- `src/store.py`: the store\n"
        "- `src/extra.py`\n\n**Warnings:**\n- \u26a0\ufe0f **high**: Naive UTC\n\n"
        "#### Graph only\nFrom the graph.\n\n**Files Created:**\n- `src/g.py`"
    )
    questions = trace.section(QUESTIONS)
    assert questions is not None
    assert questions.text == (
        "### Open Questions (Blocking)\n\u26a0\ufe0f The following questions need resolution:\n"
        "- **Cascade?**\n  - Context: Refresh later.\n  - Recommendation: No."
    )
    assert items["dependency:D1"].details["gotchas_left_out_as_low"] == 1
    assert items["dependency:D1"].details["questions_not_blocking"] == 1
    assert "- Task IDs: [D1, D3]" in trace.debug
    assert "- Patterns inherited: 1" in trace.debug and "- Warnings inherited: 1" in trace.debug


def test_a_handoff_status_wins_over_the_graph_and_json_works(tmp_path: Path) -> None:
    _dep_project(tmp_path, [{"id": "D1", "title": "A", "status": "completed"}])
    dump(tmp_path, ".mahabharatha/handoffs/D1.json", {"status": "failed"})
    item = by_id(run(tmp_path))["dependency:D1"]
    assert item.reason == "status 'failed' in its handoff file, not 'completed': skipped"


def test_a_description_is_the_summary_when_there_is_no_text_context(tmp_path: Path) -> None:
    _dep_project(
        tmp_path,
        [{"id": "D1", "title": "A", "status": "completed", "description": "Did A.", "context": {"tables": ["x"]}}],
    )
    section = run(tmp_path).section(PRIOR_WORK)
    assert section is not None and section.text == "### Prior Work\n#### A\nDid A."


def test_prior_tasks_are_limited_by_complexity(tmp_path: Path) -> None:
    deps = [f"D{i}" for i in range(1, 4)]
    make_project(
        tmp_path,
        [
            {"id": "T1", "title": "x", "dependencies": deps, "complexity": "easy"},
            *({"id": d, "title": d, "status": "completed"} for d in deps),
        ],
    )
    items = by_id(run(tmp_path))
    assert [items[f"dependency:{d}"].status for d in deps] == [INCLUDED, INCLUDED, OUTRANKED]
    assert items["dependency:D3"].reason == "completed, but over the limit: complexity easy keeps 2 prior tasks"


def test_a_handoff_naming_another_task_is_reported(tmp_path: Path) -> None:
    _dep_project(tmp_path, [{"id": "D1", "title": "A"}])
    dump(tmp_path, ".mahabharatha/handoffs/D1.yaml", {"task_id": "D9", "status": "completed"})
    trace = run(tmp_path)
    assert [(e.path, e.message) for e in trace.errors] == [
        (".mahabharatha/handoffs/D1.yaml", "task_id 'D9' is not 'D1'; read all the same")
    ]
    assert by_id(trace)["dependency:D1"].status == INCLUDED


@pytest.mark.parametrize(
    ("value", "level"),
    [
        ("easy", "easy"),
        ("Haiku", "easy"),
        ("normal", "normal"),
        ("MEDIUM", "normal"),
        ("opus", "complex"),
        ("weird", None),
        (None, None),
        (3, None),
    ],
)
def test_complexity_levels_and_aliases(value: Any, level: str | None) -> None:
    assert complexity_of({} if value is None else {"complexity": value})[0] == level


# -- the budget ------------------------------------------------------------------------------------


def test_over_budget_entries_are_cut_least_important_first_each_a_trim_step(tmp_path: Path) -> None:
    make_project(tmp_path, [{"id": "T1", "title": "Ledger"}])
    dump(
        tmp_path,
        CMAP,
        {
            "components": [{"component": "Ledger", "location": "src/l.py", "notes": "n" * 400}],
            "knowledge": [
                _pattern("p" * 400, "ledger"),
                {"type": "gotcha", "summary": "g" * 40, "tags": ["ledger"]},
            ],
        },
    )
    full = run(tmp_path, budget=100_000)
    assert full.trim_steps == ()
    used = len(full.context) // 4
    # a budget just under the whole: the code reference (cut first) must go, nothing else
    trace = run(tmp_path, budget=used - 1)
    assert [(s.section, s.target) for s in trace.trim_steps] == [(CODE_REFS, "component:1")]
    step = trace.trim_steps[0]
    assert step.tokens_before == used and step.tokens_after == len(trace.context) // 4
    assert by_id(trace)["component:1"].reason.endswith(f"; cut to fit the budget of {used - 1:,}")
    # a budget that also needs the pattern gone: code reference first, then the pattern; the gotcha stays
    # (the pattern's 406-character line gives way to a 46-character "No specific patterns" line)
    small = run(tmp_path, budget=(len(trace.context) - 300) // 4)
    assert [s.target for s in small.trim_steps] == ["component:1", "knowledge:1"]
    assert by_id(small)["knowledge:2"].status == INCLUDED
    assert small.section(WARNINGS) is not None and "g" * 40 in small.context


def test_the_trace_round_trips_through_json_with_signals_window_and_debug(tmp_path: Path) -> None:
    _dep_project(tmp_path, [{"id": "D1", "title": "A"}])
    dump(tmp_path, ".mahabharatha/handoffs/D1.yaml", HANDOFF)
    trace = run(tmp_path)
    again = trace_from_json(json.loads(json.dumps(trace_to_json(trace))))
    assert again == trace
    assert again.debug.startswith("## Context Debug\n")
    assert again.window is not None and again.signals.values("keyword") == ("wire", "store")


def test_every_item_of_a_kept_section_sits_at_its_span(tmp_path: Path) -> None:
    _dep_project(tmp_path, [{"id": "D1", "title": "A"}])
    dump(tmp_path, ".mahabharatha/handoffs/D1.yaml", HANDOFF)
    dump(tmp_path, CMAP, {"knowledge": [_pattern("Wire this", "wire")], "components": _components(2)})
    trace = run(tmp_path)
    placed = [i for i in trace.items if i.status == INCLUDED]
    assert {i.kind for i in placed} >= {KNOWLEDGE, DEPENDENCY}
    for item in placed:
        assert item.span is not None
        assert trace.context[item.span[0] : item.span[1]] == item.text


def test_a_handoff_that_leaves_the_project_is_reported_not_dropped(tmp_path: Path) -> None:
    root = tmp_path / "p"
    _dep_project(root, [{"id": "D1", "title": "A", "status": "completed", "description": "Did A."}])
    dump(tmp_path, "outside/D1.yaml", {"status": "failed", "summary": "SECRET"})
    (root / ".mahabharatha/handoffs").mkdir(parents=True)
    os.symlink("../../../outside/D1.yaml", root / ".mahabharatha/handoffs/D1.yaml")
    trace = run(root)
    assert [(e.path, e.message) for e in trace.errors] == [
        (".mahabharatha/handoffs/D1.yaml", "not read: symlink to ../../../outside/D1.yaml outside the project")
    ]
    # Not read: the graph's own status and description stand in for it.
    item = by_id(trace)["dependency:D1"]
    assert item.status == INCLUDED and "SECRET" not in trace.context
