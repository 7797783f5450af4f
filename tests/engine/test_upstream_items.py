"""The zerg-0.3.2 profile's explanations on a project small enough to work out by hand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctxviewer.engine.errors import SettingsError
from ctxviewer.engine.pipeline import assemble
from ctxviewer.engine.project import load_project
from ctxviewer.engine.trace import DROPPED, INCLUDED
from ctxviewer.engine.upstream.zerg import upstream_estimate

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
    assert (r1.status, r2.status, r3.status) == (INCLUDED, DROPPED, DROPPED)
    assert "x.py matches '*.py'" in r1.reason
    assert "'*.ts'" in r2.reason and "disabled" in r3.reason
    assert r1.span is not None and trace.context[r1.span[0] : r1.span[1]] == "- **[CRITICAL]** Alpha"
    morph = items["mcp:morphllm"]
    assert morph.status == INCLUDED and morph.score == 2 and morph.span is not None
    assert trace.context[morph.span[0] : morph.span[1]] == "morphllm"
    assert items["mcp:sequential"].status == DROPPED
    assert items["switch:tdd_mode"].status == DROPPED and "ZERG_TDD_MODE is unset" in items["switch:tdd_mode"].reason
    budgets = {s.name: s.budget for s in trace.sections}
    assert budgets["engineering_rules"] == 400 and budgets["spec_excerpts"] == 800 and budgets["efficiency_hints"] == 0
    assert "passed and ignored" in next(s.reason for s in trace.sections if s.name == "mcp_hints")


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
    from ctxviewer.engine.settings import Settings

    s = Settings().with_overrides({"compact_mode": True, "tdd_mode": 1, "analysis_depth": None}, "test")
    assert (s.compact_mode, s.tdd_mode, s.analysis_depth) == ("true", "1", None)
    with pytest.raises(SettingsError, match="behavioral_mode"):
        Settings().with_overrides({"behavioral_mode": ["speed"]}, "test")


def test_upstream_estimate_rounds_halves_to_even() -> None:
    # 10/4 = 2.5 -> 2 (even), 14/4 = 3.5 -> 4, 11/4 = 2.75 -> 3 where len // 4 says 2; never below 1.
    assert [upstream_estimate("x" * n) for n in (10, 14, 11, 0)] == [2, 4, 3, 1]
