"""The nine-section versions' candidates in words: labels, facts, compact mode's replacements, cuts.

The project is small enough to work out by hand: two engineering rules (one matches the
task's ``src/app.py`` by ``*.py``, one asks for ``*.ts``), one Python module, TDD and
compact mode on.  zerg-ai 0.3.2's TDD text has "implementation" once and its efficiency
text "documentation" once, so compact mode makes exactly those two replacements there.
"""

from __future__ import annotations

from pathlib import Path

from ctxviewer.engine.analysis import upstream_items as nine
from ctxviewer.engine.project.loading import load_project
from ctxviewer.engine.runs.pipeline import assemble
from ctxviewer.engine.trace.model import Trace
from tests.factories import make_project, write

RULES = """\
rules:
  - id: R1
    title: Type hints
    description: every public function
    priority: critical
    applies_to: ["*.py"]
  - id: R2
    title: Strict mode
    priority: recommended
    applies_to: "*.ts"
"""


def zerg_trace(root: Path, **switches: str) -> Trace:
    tasks = [{"id": "T1", "title": "Login", "description": "login flow", "files": {"create": ["src/app.py"]}}]
    make_project(root, tasks, requirements="Login flow.")
    write(root, ".zerg/rules/quality.yaml", RULES)
    write(root, "src/app.py", "def login(user: str) -> bool:\n    return True\n")
    return assemble(load_project(root), "feat", "T1", dict(switches))


def test_labels_and_facts_of_each_kind(tmp_path: Path) -> None:
    trace = zerg_trace(tmp_path, tdd_mode="1")
    items = nine.nine_items(trace)
    by_id = {i.id: i for i in items}
    r1, r2 = by_id["eng:.zerg/rules/quality.yaml#1"], by_id["eng:.zerg/rules/quality.yaml#2"]
    assert nine.item_label(r1) == "R1: Type hints"  # the title without its description
    assert r1.status == "included" and r2.status == "not_candidate"
    facts = dict(nine.item_facts(r1))
    assert facts["Priority"] == "critical"
    assert facts["Applies to (globs)"] == "['*.py']"
    assert facts["Rule file"] == ".zerg/rules/quality.yaml"
    assert facts["Section"] == "Engineering rules"
    tdd = by_id["switch:tdd_mode"]
    assert nine.item_label(tdd) == "ZERG_TDD_MODE"
    assert dict(nine.item_facts(tdd))["Variable"] == "ZERG_TDD_MODE"
    assert dict(nine.item_facts(tdd))["Setting"] == "tdd_mode"
    module = by_id["map:src.app"]
    assert nine.item_label(module) == "src.app"
    symbol = next(i for i in items if i.kind == nine.REPO_SYMBOL)
    assert nine.item_label(symbol) == "def login(user: str) -> bool"
    assert dict(nine.item_facts(symbol))["File"] == "src/app.py, line 1"
    # listed by section in assembly order: engineering rules first, the repository map last
    sections = [i.section for i in items]
    assert sections[0] == "engineering_rules" and sections[-1] == "repo_map"
    assert nine.counts_line(items).startswith("2 engineering rules (1 included) \u00b7 6 MCP servers")
    assert "4 switches (1 included)" in nine.counts_line(items)


def test_compact_mode_replacements_and_the_text_before(tmp_path: Path) -> None:
    trace = zerg_trace(tmp_path, tdd_mode="1", compact_mode="1")
    found = [(r.section, r.full, r.short, r.count) for r in nine.replacements(trace)]
    assert ("TDD enforcement", "implementation", "impl", 1) in found
    assert ("Token efficiency", "documentation", "docs", 1) in found
    changed = {i.id: i for i in nine.compacted_items(trace)}
    tdd = changed["switch:tdd_mode"]
    facts = dict(nine.item_facts(tdd))
    assert "write implementation code" in facts["Before compact mode"]
    assert "write impl code" in facts["After compact mode"]
    # of the TDD text's nine lines only its last has the word
    assert nine.changed_lines(tdd) == [
        "- Do NOT write implementation code before tests exist.",
        "+ Do NOT write impl code before tests exist.",
    ]
    # without compact mode nothing is replaced and nothing carries a text before
    plain = zerg_trace(tmp_path / "plain", tdd_mode="1")
    assert nine.replacements(plain) == [] and nine.compacted_items(plain) == []


def test_a_seed_trace_has_no_nine_section_candidates(tmp_path: Path) -> None:
    tasks = [{"id": "T1", "title": "Login", "files": {"create": ["src/app.py"]}}]
    make_project(tmp_path, tasks, requirements="Login flow.")
    trace = assemble(load_project(tmp_path), "feat", "T1")
    assert trace.profile == "mahabharatha"
    assert nine.nine_items(trace) == [] and nine.cuts(trace) == []


def test_where_the_engineering_rules_limit_fell(tmp_path: Path) -> None:
    # budget 400: the engineering share is int(400 * 0.1) = 40 tokens, 160 characters; the
    # lines count without the header: R1's line and newline (51) fit, R3's (121 more) do not
    root = tmp_path
    tasks = [{"id": "T1", "title": "Login", "files": {"create": ["src/app.py"]}}]
    make_project(root, tasks, requirements="Login flow.")
    rules = RULES + "  - id: R3\n    title: " + "x" * 100 + "\n    priority: recommended\n    applies_to: '*.py'\n"
    write(root, ".zerg/rules/quality.yaml", rules)
    trace = assemble(load_project(root), "feat", "T1", {"budget": 400})
    statuses = {
        nine.item_label(i).split(":")[0]: i.status for i in nine.nine_items(trace) if i.kind == "engineering_rule"
    }
    assert statuses == {"R1": "included", "R2": "not_candidate", "R3": "cut_for_budget"}
    (cut,) = nine.cuts(trace)
    assert cut.startswith("Engineering rules: 1 rule line(s) after the first 1 did not fit 160 characters")
