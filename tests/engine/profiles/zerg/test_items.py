"""The zerg-0.3.2 profile's explanations on a project small enough to work out by hand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctxviewer.engine.errors import SettingsError
from ctxviewer.engine.profiles.zerg.fates import CUT_FOR_BUDGET, NOT_CANDIDATE
from ctxviewer.engine.profiles.zerg.profile import upstream_estimate
from ctxviewer.engine.project.loading import load_project
from ctxviewer.engine.runs.pipeline import assemble
from ctxviewer.engine.trace.model import INCLUDED

RULES = """
rules:
  - {id: R1, title: Alpha, priority: critical, applies_to: "*.py"}
  - {id: R2, title: Beta, description: b, applies_to: ["*.ts"]}
  - {id: R3, title: Gamma, enabled: false}
"""


def _project(tmp_path: Path) -> Path:
    spec = tmp_path / ".gsd" / "specs" / "feat"
    spec.mkdir(parents=True)
    task = {"id": "T1", "title": "Loader", "description": "Refactor the loader", "files": {"create": ["src/x.py"]}}
    (spec / "task-graph.json").write_text(json.dumps({"feature": "feat", "tasks": [task]}))
    (tmp_path / ".zerg" / "rules").mkdir(parents=True)
    (tmp_path / ".zerg" / "rules" / "a.yaml").write_text(RULES)
    return tmp_path


def test_rules_mcp_and_switches_are_explained(tmp_path: Path) -> None:
    project = load_project(_project(tmp_path))
    trace = assemble(project, "feat", "T1", {"profile": "zerg-0.3.2"}, exact=False)
    # R1 matches x.py; R2's glob is *.ts; R3 is disabled. "refactor" asks for bulk-edit,
    # pattern-transform and symbol-ops: morphllm shares two, serena one.
    assert trace.context == (
        "## Engineering Rules (task-scoped)\n\n- **[CRITICAL]** Alpha"
        "\n\n## MCP Servers (task-scoped)\n\nRecommended: morphllm, serena"
    )
    items = {i.id: i for i in trace.items}
    r1, r2, r3 = (items[f"eng:.zerg/rules/a.yaml#{n}"] for n in (1, 2, 3))
    assert (r1.status, r2.status, r3.status) == (INCLUDED, NOT_CANDIDATE, NOT_CANDIDATE)
    assert "x.py matches '*.py'" in r1.reason
    assert "'*.ts'" in r2.reason and "disabled" in r3.reason
    assert r1.span is not None and trace.context[r1.span[0] : r1.span[1]] == "- **[CRITICAL]** Alpha"
    morph = items["mcp:morphllm"]
    assert morph.status == INCLUDED and morph.score == 2 and morph.span is not None
    assert trace.context[morph.span[0] : morph.span[1]] == "morphllm"
    assert items["mcp:sequential"].status == NOT_CANDIDATE
    assert (
        items["switch:tdd_mode"].status == NOT_CANDIDATE and "ZERG_TDD_MODE is unset" in items["switch:tdd_mode"].reason
    )
    budgets = {s.name: s.budget for s in trace.sections}
    assert budgets["engineering_rules"] == 400 and budgets["spec_excerpts"] == 800 and budgets["efficiency_hints"] == 0
    assert "passed and ignored" in next(s.reason for s in trace.sections if s.name == "mcp_hints")
    # Upstream's token record: 58 characters -> round(14.5) = 14 (half to even), 59 -> 15.
    assert any(
        "tokens-unknown.json" in w and w.endswith("engineering_rules 14, mcp_hints 15; total 29")
        for w in trace.warnings
    )


def test_compact_mode_abbreviates_and_records_each_replacement(tmp_path: Path) -> None:
    project = load_project(_project(tmp_path))
    trace = assemble(project, "feat", "T1", {"profile": "zerg-0.3.2", "compact_mode": "1"}, exact=False)
    # The efficiency hints end "... annotations in documentation": abbreviated to "docs".
    assert trace.context.endswith("- Omit redundant type annotations in docs")
    steps = [s for s in trace.trim_steps if s.action == "abbreviate"]
    assert [(s.section, s.target) for s in steps] == [("efficiency_hints", "documentation")]
    assert steps[0].chars_before - steps[0].chars_after == len("documentation") - len("docs")
    hints = {i.id: i for i in trace.items}["switch:compact_mode"]
    assert hints.span is not None and trace.context[hints.span[0] : hints.span[1]] == hints.text


def test_switch_settings_take_text_or_unset() -> None:
    from ctxviewer.engine.project.settings import Settings

    s = Settings().with_overrides({"compact_mode": True, "tdd_mode": 1, "analysis_depth": None}, "test")
    assert (s.compact_mode, s.tdd_mode, s.analysis_depth) == ("true", "1", None)
    with pytest.raises(SettingsError, match="behavioral_mode"):
        Settings().with_overrides({"behavioral_mode": ["speed"]}, "test")


def test_upstream_estimate_rounds_halves_to_even() -> None:
    # 10/4 = 2.5 -> 2 (even), 14/4 = 3.5 -> 4, 11/4 = 2.75 -> 3 where len // 4 says 2; never below 1.
    assert [upstream_estimate("x" * n) for n in (10, 14, 11, 0)] == [2, 4, 3, 1]


def test_the_repository_map_cut_is_a_step_and_each_symbol_says_where_it_fell(tmp_path: Path) -> None:
    spec = tmp_path / ".gsd" / "specs" / "feat"
    spec.mkdir(parents=True)
    task = {"id": "T1", "title": "x", "description": "Update ledger code", "files": {"create": ["src/new.py"]}}
    (spec / "task-graph.json").write_text(json.dumps({"feature": "feat", "tasks": [task]}))
    for n in range(60):
        (tmp_path / f"m{n:02d}.py").write_text(f"def ledger_thing_{n:02d}():\n    pass\n")
    trace = assemble(load_project(tmp_path), "feat", "T1", {"profile": "zerg-0.3.2"}, exact=False)
    # "## Repository Symbol Map\n" is 25 characters; each module "\n### mNN\n" (9) plus
    # "- `def ledger_thing_NN()`\n" (26) is 35: m00-m44 end exactly at 25 + 45 * 35 = 1,600,
    # which fits (the test is "would pass"); m45's heading would pass it and ends the map.
    section = next(s for s in trace.sections if s.name == "repo_map")
    assert len(section.text) == 1600
    assert section.text.endswith("\n### m44\n- `def ledger_thing_44()`\n")
    (step,) = [s for s in trace.trim_steps if s.action == "cut_map"]
    assert "fell at 1,600 characters: 45 of 60 chosen symbols listed, 45 of 60 modules" in step.description
    assert (step.chars_before, step.chars_after) == (25 + 60 * 35, 1600)
    items = {i.id: i for i in trace.items}
    assert items["map:m44:1:ledger_thing_44"].status == INCLUDED
    assert items["map:m45"].status == CUT_FOR_BUDGET and "limit was reached at 1,600" in items["map:m45"].reason
    assert "map:m45:1:ledger_thing_45" not in items  # a module whose heading did not fit lists no symbols
    assert "symbols contain 'ledger'" in items["map:m00"].reason


def test_engineering_rules_past_the_limit_are_counted_in_a_note(tmp_path: Path) -> None:
    root = _project(tmp_path)
    rules = [{"id": f"L{n}", "title": f"T{n}", "description": "x" * 500} for n in range(1, 6)]
    (root / ".zerg" / "rules" / "a.yaml").write_text(json.dumps({"rules": rules}))
    trace = assemble(load_project(root), "feat", "T1", {"profile": "zerg-0.3.2"}, exact=False)
    # Each line is "- **[RECOMMENDED]** Tn: " (24) + 500 characters, 525 with its newline:
    # three fit 1,600 (1,575), the fourth would not; two are left.
    section = next(s for s in trace.sections if s.name == "engineering_rules")
    assert section.text.count("- **[RECOMMENDED]**") == 3
    assert section.text.endswith("x\n\n_(2 more rules omitted due to token budget)_")
    items = {i.id: i for i in trace.items}
    assert [items[f"eng:.zerg/rules/a.yaml#{n}"].status for n in range(1, 6)] == [INCLUDED] * 3 + [CUT_FOR_BUDGET] * 2
    assert "after 3 rule line(s) (1,575 characters)" in items["eng:.zerg/rules/a.yaml#4"].reason
    (step,) = [s for s in trace.trim_steps if s.action == "omit_rules"]
    assert step.description.startswith("2 rule line(s) after the first 3 did not fit 1,600 characters")


def test_the_symbol_map_follows_a_changed_source(tmp_path: Path) -> None:
    root = _project(tmp_path)
    (root / "src").mkdir()
    (root / "src" / "x.py").write_text("def first():\n    pass\n")
    project = load_project(root)
    before = assemble(project, "feat", "T1", {"profile": "zerg-0.3.2"}, exact=False)
    assert before.context.endswith("### src.x\n- `def first()`\n")
    (root / "src" / "x.py").write_text("def second_one(a: int) -> str:\n    pass\n")
    after = assemble(project, "feat", "T1", {"profile": "zerg-0.3.2"}, exact=False)
    assert after.context.endswith("### src.x\n- `def second_one(a: int) -> str`\n")


def test_switches_on_the_command_line_keep_the_text_as_typed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from ctxviewer.cli import main

    root = _project(tmp_path)
    args = ["assemble", str(root), "--feature", "feat", "--task", "T1", "--profile", "zerg-0.3.2"]
    # 'yes' is not one of upstream's '1' / 'true': no abbreviations, no efficiency section.
    assert main([*args, "--set", "compact_mode=yes"]) == 0
    assert "## Token Efficiency" not in capsys.readouterr().out
    assert main([*args, "--set", "compact_mode=1", "--set", "behavioral_mode=debug"]) == 0
    out = capsys.readouterr().out
    mode = "## Behavioral Mode: debug\n\nSystematic debugging. Trace root causes. Add diagnostic logging."
    assert mode in out and out.index(mode) < out.index("## Token Efficiency")


def test_the_mcp_cost_cut_can_drop_the_server_that_shares_most() -> None:
    from ctxviewer.engine.profiles.zerg.switches import route

    # Asked for: test, debug, refactor, document and ui (capabilities of all six servers).
    # By overlap: magic 3; sequential, context7, playwright, morphllm 2; serena 1. Six is more
    # than three, so capabilities per cost decide: context7 3/0.5 = 6, sequential 4/1 and
    # serena 4/1 = 4, the rest 2 -- magic, which shares most, is cut.
    routing = route("Debug and test the UI with a refactor and document it", [], None)
    assert routing.text == "## MCP Servers (task-scoped)\n\nRecommended: context7, sequential, serena"
    outcomes = {s.name: s for s in routing.servers}
    assert [s.name for s in routing.servers if s.kept] == ["sequential", "context7", "serena"]
    assert outcomes["magic"].overlap == 3 and not outcomes["magic"].kept
    assert (
        "only the top 3 are kept" in outcomes["magic"].why
        and "3 capabilities / cost 1.5 = 2.00" in outcomes["magic"].why
    )
    # A depth tier asks for its servers' capabilities; the misspelt think_hard asks for nothing.
    assert route("", [], "think-hard").text.endswith("Recommended: sequential, context7")
    assert route("", [], "think_hard").text == ""


def test_the_run_reports_a_stage_before_the_map_and_after_its_graph(tmp_path: Path) -> None:
    """The window's background pass waits at each reported stage while a task asked for runs:
    the map, the longest part of a task, is reported in two (its sources checked, then queried)."""
    root = _project(tmp_path)
    (root / "src").mkdir()
    (root / "src" / "loader.py").write_text("def load():\n    pass\n")
    project = load_project(root)
    seen: list[tuple[str, float]] = []
    assemble(project, "feat", "T1", {"profile": "zerg-0.3.2"}, exact=False, progress=lambda s, f: seen.append((s, f)))
    stages = [stage for stage, _ in seen]
    at = stages.index
    assert at("spec excerpts") < at("hint sections") < at("source graph") < at("repository map") < at("done")
    assert [f for _, f in seen] == sorted(f for _, f in seen)  # the bar only goes forward
