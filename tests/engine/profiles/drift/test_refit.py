"""The drift refit against whole runs: same fates at every budget, the ceiling, the fallbacks.

The oracle is the whole run (:class:`WholeRunRefit`: ``assemble_task`` with the budget
replaced), plus one small case worked by hand below.

A drift candidate's fate is monotone in the budget, and the tests say so rather than look
for a candidate that is in, out and in again: trimming makes its cuts in one fixed order and
stops at the first state that fits, and a larger budget never stops later (see
:mod:`ctxviewer.engine.profiles.drift.refit`).  What the tests make sure does occur is a long
chain of breakpoints (many distinct fate vectors along the budget), capped (truncated) units,
sources never cut (the context stays over budget) and whole-source cuts; counts that rise
after a cut (which drift's do not on these inputs, computed's do) are checked on the class.
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from ctxviewer.engine.profiles.drift.refit import CutSequenceRefit, build_refit
from ctxviewer.engine.profiles.drift.run import DriftRun
from ctxviewer.engine.profiles.lookup import refit_builder
from ctxviewer.engine.profiles.refit_contract import budget_range
from ctxviewer.engine.project.loading import Feature, Project, Task, load_project
from ctxviewer.engine.project.settings import Settings
from ctxviewer.engine.runs.pipeline import spec_source
from ctxviewer.engine.runs.sensitivity import WholeRunRefit, refit_for
from ctxviewer.engine.trace.model import CUT_FOR_BUDGET, INCLUDED, KEPT, NOT_CANDIDATE, TRUNCATED
from tests.conftest import REPO
from tests.factories import make_project, write

SAMPLES = [REPO / "sample_projects" / name for name in ("ledger-service", "storefront-web", "edge-cases")]

CORE_FILE, PY_FILE = "_core/owasp-2025.md", "languages/python/CLAUDE.md"
JS_FILE, DOCKER_FILE = "languages/javascript/CLAUDE.md", "containers/docker/CLAUDE.md"
CORE_ID, PY_ID = f"rule:{CORE_FILE}", f"rule:{PY_FILE}"


def settings_of(project: Project, **overrides: Any) -> Settings:
    return project.settings.with_overrides({"profile": "drift", **overrides}, "test")


def only_task(project: Project) -> tuple[Feature, Task]:
    ((feature, task),) = project.tasks()
    return feature, task


def assert_agrees(project: Project, feature: Feature, task: Task, settings: Settings, budgets: list[int]) -> None:
    """The refit's fates are the whole run's at every budget of *budgets*."""
    refit = refit_for(project, feature, task, settings)
    assert isinstance(refit, CutSequenceRefit)
    whole = WholeRunRefit(project, feature, task, settings)
    for budget in budgets:
        assert dict(refit.fates(budget)) == dict(whole.fates(budget)), (task.id, budget)


# -- a small case worked by hand ----------------------------------------------------------------------

# The project of tests/engine/profiles/drift/test_run.py: task "login session token" with a.py.
# Whole context: "## Security Rules (task-scoped)" (31), the core block (37), the python block
# (32), "## Relevant Requirements" (24), R3 (23), R2 (17), R1 (9), "## Relevant Design" (18),
# D2 (17), D1 (9), joined by nine blank lines: 217 + 18 = 235 characters, 235 // 4 = 58 tokens.
# Partial cuts, design first, then requirements, then rules, each from its last unit:
#   cut 1 design:1        235 - 11        = 224 chars -> 56
#   cut 2 design:2        224 - 19 - 20   = 185       -> 46   (the design header goes too)
#   cut 3 requirements:1  185 - 11        = 174       -> 43
#   cut 4 requirements:2  174 - 19        = 155       -> 38
#   cut 5 requirements:3  155 - 25 - 26   = 104       -> 26   (the requirements header goes too)
#   cut 6 python rules    104 - 34        = 70        -> 17
#   cut 7 core rules      everything      = 0         -> 0
# At budget b the run makes the first k cuts with tokens[k] <= b: at 45, three (43 <= 45).
# Whole sources instead: design (2 items) -> 185 chars, 46; requirements -> 104, 26; rules -> 0.
HAND_TASK = {"id": "T", "title": "login session token", "files": {"create": ["a.py"]}}
HAND_RULES = {CORE_FILE: "## Rule: core\nprose that is not kept\n", PY_FILE: "## Rule: py\n"}
HAND_REQUIREMENTS = "R1 login.\n\nR2 login session.\n\nR3 login session token.\n\n\n\nZeta unrelated."
HAND_DESIGN = "D1 token.\n\nD2 session token."


def hand_project(tmp_path: Path) -> Project:
    root = make_project(tmp_path, [HAND_TASK], requirements=HAND_REQUIREMENTS, design=HAND_DESIGN, rules=HAND_RULES)
    return load_project(root)


def test_the_hand_worked_chain(tmp_path: Path) -> None:
    project = hand_project(tmp_path)
    feature, task = only_task(project)
    refit = refit_for(project, feature, task, settings_of(project))
    assert isinstance(refit, CutSequenceRefit)
    assert refit.tokens == (58, 56, 46, 43, 38, 26, 17, 0)
    assert refit.keys == frozenset({"budget"})
    assert refit.ceiling() == 58
    fates = refit.fates(45)
    assert [fates[i] for i in ("design:1", "design:2", "requirements:1")] == [CUT_FOR_BUDGET] * 3
    assert [fates[i] for i in ("requirements:2", "requirements:3", CORE_ID, PY_ID)] == [INCLUDED] * 4
    assert fates["requirements:4"] == fates["requirements:5"] == NOT_CANDIDATE  # blank, score 0
    assert [refit.cuts_made(b) for b in (58, 57, 56, 55, 46, 45, 43, 42, 26, 25, 17, 16, 1)] == [
        0,
        1,
        1,
        2,
        2,
        3,
        3,
        4,
        5,
        6,
        6,
        7,
        7,
    ]
    whole = refit_for(project, feature, task, settings_of(project, drift_partial=False))
    assert isinstance(whole, CutSequenceRefit)
    assert whole.tokens == (58, 46, 26, 0)
    assert whole.fates(45)["design:2"] == whole.fates(45)["requirements:3"] == CUT_FOR_BUDGET
    assert whole.fates(45)[PY_ID] == INCLUDED


def test_the_hand_worked_chain_agrees_with_whole_runs_at_every_budget(tmp_path: Path) -> None:
    project = hand_project(tmp_path)
    feature, task = only_task(project)
    for partial in (True, False):
        settings = settings_of(project, drift_partial=partial)
        assert_agrees(project, feature, task, settings, list(range(1, 58 + 101)))


# -- small generated projects, every integer budget -----------------------------------------------------

WORDS = ("login", "session", "token", "audit", "expiry")
FILLER = ("the", "queue", "worker", "records", "entry", "value", "cache", "layer")


def generated_project(root: Path, seed: int) -> Project:
    """Four matched rule files and two spec files of a few paragraphs each, sized at random."""
    rng = random.Random(seed)

    def sentence(keywords: int) -> str:
        words = [*rng.sample(WORDS, keywords), *rng.choices(FILLER, k=rng.randint(1, 12))]
        rng.shuffle(words)
        return " ".join(words).capitalize() + "."

    def rule_file() -> str:
        lines = [f"## Rule: {sentence(0)}" for _ in range(rng.randint(1, 5))]
        return "\n".join([*lines, "prose that is not kept"]) + "\n"

    def spec() -> str:
        return "\n\n".join(sentence(rng.randint(0, 3)) for _ in range(rng.randint(2, 7)))

    task = {"id": "T", "title": "Login session token audit", "files": {"create": ["a.py", "b.js", "Dockerfile"]}}
    rules = {path: rule_file() for path in (CORE_FILE, PY_FILE, JS_FILE, DOCKER_FILE)}
    return load_project(make_project(root, [task], requirements=spec(), design=spec(), rules=rules))


VARIANTS: list[dict[str, Any]] = [
    {},
    {"drift_partial": False},
    # caps that bite (truncated rule files, paragraphs outranked), requirements never cut
    {"drift_max_rule_lines": 2, "drift_max_paragraphs": 3, "drift_max_rule_files": 3, "drift_priority": "rules,design"},
    {"drift_priority": "requirements", "drift_partial": False, "tokenizer": "cl100k_base"},
]


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("variant", range(len(VARIANTS)))
def test_generated_projects_agree_with_whole_runs_at_every_budget(tmp_path: Path, seed: int, variant: int) -> None:
    project = generated_project(tmp_path, seed)
    feature, task = only_task(project)
    settings = settings_of(project, **VARIANTS[variant])
    refit = refit_for(project, feature, task, settings)
    assert isinstance(refit, CutSequenceRefit)
    top = refit.ceiling() + 100
    assert_agrees(project, feature, task, settings, list(range(budget_range(settings)[0], top + 1)))
    vectors = [dict(refit.fates(b)) for b in range(1, top + 1)]
    distinct = len({tuple(v.items()) for v in vectors})
    assert distinct >= (6 if variant == 0 else 2)  # partial cuts: a chain of breakpoints, not one step
    for item_id in vectors[0]:  # monotone: once kept, kept at every larger budget
        kept = [v[item_id] in KEPT for v in vectors]
        assert kept == sorted(kept), item_id


def test_the_generated_variants_reach_what_they_are_meant_to(tmp_path: Path) -> None:
    """The variants above really truncate, really leave the context over budget, really cut whole sources."""
    project = generated_project(tmp_path, 1)
    feature, task = only_task(project)
    capped = refit_for(project, feature, task, settings_of(project, **VARIANTS[2]))
    assert TRUNCATED in capped.fates(10_000).values()
    assert isinstance(capped, CutSequenceRefit) and capped.tokens[-1] > 0  # requirements stay: over budget at 1
    assert any(status in KEPT for item_id, status in capped.fates(1).items() if item_id.startswith("requirements:"))
    whole = refit_for(project, feature, task, settings_of(project, **VARIANTS[1]))
    assert isinstance(whole, CutSequenceRefit) and len(whole.tokens) == 4  # design, requirements, rules


def test_the_first_state_that_fits_is_taken_not_the_last(tmp_path: Path) -> None:
    """Counts that rise after a cut (an exact tokenizer can count a shorter text higher), by hand.

    Counts 50, 40, 45, 30 after 0..3 cuts: at 42 the run stops after one cut (40 <= 42), though
    two cuts would leave 45; at 44 too; at 39 it makes all three (40 and 45 are over, 30 fits).
    """
    refit = CutSequenceRefit(["a", "b", "c"], [INCLUDED] * 3, [[0], [1], [2]], [50, 40, 45, 30], (1, 10_000_000))
    assert [refit.cuts_made(b) for b in (50, 49, 45, 44, 40, 39, 30, 29)] == [0, 1, 1, 1, 1, 3, 3, 3]
    assert refit.fates(42) == {"a": CUT_FOR_BUDGET, "b": INCLUDED, "c": INCLUDED}
    assert refit.fates(35) == {"a": CUT_FOR_BUDGET, "b": CUT_FOR_BUDGET, "c": CUT_FOR_BUDGET}
    assert refit.ceiling() == 50
    twice = CutSequenceRefit(["a", "a"], [INCLUDED, NOT_CANDIDATE], [[0]], [9, 0], (1, 100))
    assert twice.fates(1) == {"a": NOT_CANDIDATE}  # the trace's last item with the id, as a dict of it says
    nothing = CutSequenceRefit(["a"], [NOT_CANDIDATE], [], [70], (1, 100))
    assert nothing.ceiling() == 1  # nothing can be cut: no budget changes anything


# -- the three sample projects ----------------------------------------------------------------------------


def sample_budgets(refit: CutSequenceRefit, bottom: int, stride: int) -> list[int]:
    """Every budget around every count the run can stop at, plus a stride over the rest."""
    around = {t + d for t in refit.tokens for d in (-1, 0)}  # where a stop can change
    spread = set(range(bottom, refit.ceiling() + 201, stride))
    return sorted(b for b in around | spread | {refit.ceiling() + 200} if b >= bottom)


@pytest.mark.parametrize("root", SAMPLES, ids=lambda p: p.name)
@pytest.mark.parametrize("variant", [{}, {"drift_partial": False}], ids=["partial", "whole-sources"])
def test_every_sample_task_agrees_with_whole_runs(root: Path, variant: Mapping[str, Any]) -> None:
    project = load_project(root)
    for feature, task in project.tasks():
        settings = settings_of(project, **variant)
        refit = refit_for(project, feature, task, settings)
        assert isinstance(refit, CutSequenceRefit)
        assert_agrees(project, feature, task, settings, sample_budgets(refit, budget_range(settings)[0], 211))


# -- the ceiling --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("root", SAMPLES, ids=lambda p: p.name)
def test_the_ceiling_is_the_last_change(root: Path) -> None:
    project = load_project(root)
    settings = settings_of(project)
    bottom, top = budget_range(settings)
    changes = 0
    for feature, task in project.tasks():
        refit = refit_for(project, feature, task, settings)
        whole = WholeRunRefit(project, feature, task, settings)
        ceiling = refit.ceiling()
        above = dict(whole.fates(ceiling))
        for budget in [*range(ceiling + 1, ceiling + 201), top]:
            assert dict(refit.fates(budget)) == above, (task.id, budget)
        assert dict(whole.fates(top)) == above
        if ceiling > bottom:  # the last change is at the ceiling itself
            assert dict(whole.fates(ceiling - 1)) != above, task.id
            changes += 1
    assert changes  # some task of every sample has a budget that matters


# -- the fallbacks -------------------------------------------------------------------------------------------


class Sentinel:
    """What the fallback builder made, and from what."""

    def __init__(self, project: Project, feature: Feature, task: Task, settings: Settings) -> None:
        self.args = (project, feature, task, settings)


def test_the_table_holds_the_drift_builder(tmp_path: Path) -> None:
    project = hand_project(tmp_path)
    feature, task = only_task(project)
    assert refit_builder("drift") is build_refit
    assert isinstance(refit_for(project, feature, task, settings_of(project)), CutSequenceRefit)


def test_another_profile_falls_back(tmp_path: Path) -> None:
    project = hand_project(tmp_path)
    feature, task = only_task(project)
    settings = settings_of(project, profile="ctxviewer")
    fallback = build_refit(project, feature, task, settings, whole=Sentinel, source=spec_source)
    assert isinstance(fallback, Sentinel) and fallback.args == (project, feature, task, settings)


def test_a_spec_read_from_another_folder_is_the_one_the_refit_reads(tmp_path: Path) -> None:
    """``spec_feature: graph`` with the graph naming another folder: the refit reads that one."""
    root = make_project(tmp_path, [HAND_TASK], requirements=HAND_REQUIREMENTS, rules=HAND_RULES)
    write(root, ".gsd/specs/feat/task-graph.json", json.dumps({"feature": "other", "tasks": [HAND_TASK]}))
    write(root, ".gsd/specs/other/requirements.md", "R9 login session token, from the other folder.")
    project = load_project(root)
    feature, task = only_task(project)
    graph = settings_of(project, spec_feature="graph")
    refit = refit_for(project, feature, task, graph)
    assert isinstance(refit, CutSequenceRefit)
    # The other folder's one paragraph (score 3, 47 characters), not the folder's own five.
    assert "requirements:1" in refit.fates(10_000) and "requirements:2" not in refit.fates(10_000)
    assert_agrees(project, feature, task, graph, list(range(1, refit.ceiling() + 101)))
    assert "requirements:5" in refit_for(project, feature, task, settings_of(project)).fates(10_000)


def test_a_run_that_fails_falls_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = hand_project(tmp_path)
    feature, task = only_task(project)

    def fail(self: DriftRun) -> None:
        raise RuntimeError("the run fails")

    monkeypatch.setattr(DriftRun, "prepare", fail)
    fallback = refit_for(project, feature, task, settings_of(project))
    assert isinstance(fallback, WholeRunRefit)
    with pytest.raises(RuntimeError, match="the run fails"):  # and the whole run says how
        fallback.fates(100)
