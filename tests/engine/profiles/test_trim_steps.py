"""Trim steps chain: each step's "after" is the next one's "before", and the last ends at what was built.

A profile that gives each section its own budget (``mahabharatha``, ``ctxviewer``) measures
a step on its section; one that holds the whole context to the budget (``drift``,
``shaktiman``, ``computed``) measures every step on the whole context (shaktiman: on the
chunks still in the running).  Either way a reader can follow the numbers down the table.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from ctxviewer.engine.project.loading import load_project
from ctxviewer.engine.registry import PROFILES, profile_of
from ctxviewer.engine.runs.pipeline import assemble, assemble_task
from ctxviewer.engine.trace.model import Trace, TrimStep, step_label
from tests.conftest import sample_projects
from tests.factories import make_project

SAMPLES = sample_projects()


def _chains(steps: list[TrimStep]) -> list[str]:
    """Every break in the chain, as a readable line (empty: it chains)."""
    return [
        f"step {b.order} starts at {b.tokens_before} tokens / {b.chars_before} chars, "
        f"step {a.order} ended at {a.tokens_after} / {a.chars_after}"
        for a, b in itertools.pairwise(steps)
        if (a.tokens_after, a.chars_after) != (b.tokens_before, b.chars_before)
    ]


def check(trace: Trace) -> None:
    steps = list(trace.trim_steps)
    assert [s.order for s in steps] == list(range(1, len(steps) + 1))
    if profile_of(trace.profile).whole_budget:
        assert _chains(steps) == []
        if steps:
            assert steps[-1].chars_after == len(trace.context)
        return
    for section in trace.sections:
        mine = [s for s in steps if s.section == section.name]
        assert _chains(mine) == [], section.name
        if mine:
            assert mine[-1].chars_after == len(section.text), section.name


@pytest.mark.parametrize("budget", [None, 600, 2000])
@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("root", SAMPLES, ids=[p.name for p in SAMPLES])
def test_steps_chain_on_every_sample_task(root: Path, profile: str, budget: int | None) -> None:
    project = load_project(root)
    overrides: dict[str, object] = {"profile": profile}
    if budget is not None:
        overrides["budget"] = budget
    settings = project.settings.with_overrides(overrides, "test")
    for feature, task in project.tasks():
        check(assemble_task(project, feature, task, settings, exact=False))


def test_a_broken_chain_is_caught() -> None:
    """The checker itself: two steps whose numbers do not meet are reported."""
    a = TrimStep(1, "spec_excerpts", "truncate", "requirements", "", 100, 80, 400, 320)
    b = TrimStep(2, "spec_excerpts", "truncate", "design", "", 90, 70, 360, 280)
    assert _chains([a, b]) == ["step 2 starts at 90 tokens / 360 chars, step 1 ended at 80 / 320"]


def test_rule_blocks_left_out_are_cut_from_the_section_with_every_block(tmp_path: Path) -> None:
    # Budget 100 -> 120 characters of rule blocks.  Blocks: core 24 + 69 = 93 characters (fits),
    # python 21 + 49 = 70 and javascript 25 + 10 = 35 (neither fits the 27 left).  The section
    # header is 31 characters and a blank line.  The steps start from the section with all three
    # blocks, 33 + 93 + 2 + 70 + 2 + 35 = 235 characters; python's step leaves 235 - 72 = 163,
    # javascript's 163 - 37 = 126: the section as built, 33 + 93.
    task = {"id": "T", "title": "Task", "files": {"create": ["a.py", "b.ts"]}}
    rules = {
        "_core/owasp-2025.md": "## Rule: " + "x" * 60 + "\n",
        "languages/python/CLAUDE.md": "## Rule: " + "y" * 40 + "\n",
        "languages/javascript/CLAUDE.md": "## Rule: z\n",
    }
    root = make_project(tmp_path, [task], requirements="Task notes.", rules=rules)
    trace = assemble(load_project(root), "feat", "T", {"budget": 100}, exact=False)
    py, js = trace.trim_steps[:2]
    assert [(s.chars_before, s.chars_after) for s in (py, js)] == [(235, 163), (163, 126)]
    assert len(trace.section("security_rules").text) == 126  # type: ignore[union-attr]
    assert step_label(py.action) == "rule file left out"
    assert trace.step_target(py) == "the security rule file languages/python/CLAUDE.md"
    assert py.description == "left out languages/python/CLAUDE.md: 70 characters did not fit the 27 left of 120"


def test_a_spec_part_step_names_its_file() -> None:
    root = next(p for p in SAMPLES if p.name == "ledger-service")
    project = load_project(root)
    trace = assemble(project, "auth-sessions", "AUTH-L1-001", exact=False)
    first = trace.trim_steps[0]
    assert (first.action, first.target) == ("select_top_k", "requirements")
    assert (step_label(first.action), trace.step_target(first)) == ("kept the best paragraphs", "requirements.md")
    assert "requirements:" not in first.description and "select_top_k" not in first.description
