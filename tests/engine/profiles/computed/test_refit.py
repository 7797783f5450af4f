"""The computed refit against whole runs: same fates at every budget, the ceiling, the fallbacks.

The oracle is the whole run (:class:`WholeRunRefit`: ``assemble_task`` with the budget
replaced), plus one small case worked by hand below.  As with drift, a computed candidate's
fate is monotone in the budget (packing cuts in one fixed order and stops at the first
injection that fits; more budget never stops later), so the tests check that, and make sure
of what does occur: a cut that makes the injection *longer* (an emptied section's
placeholder line), context maps and handoffs that give long chains of cuts, and both
tokenizers.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
import yaml

from ctxviewer.engine.profiles.computed import refit as computed_refit
from ctxviewer.engine.profiles.computed.run import ComputedRun, Prepared
from ctxviewer.engine.profiles.drift.refit import CutSequenceRefit
from ctxviewer.engine.profiles.lookup import refit_builder
from ctxviewer.engine.profiles.refit_contract import budget_range
from ctxviewer.engine.project.loading import Feature, Project, Task, load_project
from ctxviewer.engine.project.settings import Settings
from ctxviewer.engine.runs.pipeline import spec_source
from ctxviewer.engine.runs.sensitivity import WholeRunRefit, refit_for
from ctxviewer.engine.trace.model import CUT_FOR_BUDGET, INCLUDED, KEPT
from tests.conftest import REPO
from tests.factories import make_project, write

SAMPLES = [REPO / "sample_projects" / name for name in ("ledger-service", "storefront-web", "edge-cases")]
CMAP = ".mahabharatha/context-map.yaml"


def settings_of(project: Project, **overrides: Any) -> Settings:
    return project.settings.with_overrides({"profile": "computed", **overrides}, "test")


def task_of(project: Project, task_id: str = "T1") -> tuple[Feature, Task]:
    return next((f, t) for f, t in project.tasks() if t.id == task_id)


def dump(root: Path, rel: str, data: Any) -> None:
    write(root, rel, json.dumps(data) if rel.endswith(".json") else yaml.safe_dump(data, sort_keys=False))


def assert_agrees(project: Project, feature: Feature, task: Task, settings: Settings, budgets: list[int]) -> None:
    """The refit's fates are the whole run's at every budget of *budgets*."""
    refit = refit_for(project, feature, task, settings)
    assert isinstance(refit, CutSequenceRefit)
    whole = WholeRunRefit(project, feature, task, settings)
    for budget in budgets:
        assert dict(refit.fates(budget)) == dict(whole.fates(budget)), (task.id, budget)


# -- a small case worked by hand ----------------------------------------------------------------------

# Task "Ledger" (keyword ledger); the context map has a pattern "P" and a decision "D", both
# tagged ledger.  With nothing in a section the injection says so, so the whole injection is
#   "## Context (Computed)"                                              21
#   "### Patterns to Follow\n- **P**"                        22 + 1 + 7 = 30  (empty: 22 + 1 + 46 = 69)
#   "### Warnings\nNo known gotchas for this task area."     12 + 1 + 36 = 49
#   "### Relevant Decisions\n- D"                            22 + 1 + 3  = 26  (empty: the heading, 22)
#   "### Prior Work"                                                     14
#   "### Code References\nExplore the codebase ... pre-identified."  19 + 1 + 70 = 90
#   "### Open Questions (Blocking)"                                      29
# joined by six blank lines (12): 271 characters, 271 // 4 = 67 tokens.  Packing cuts decisions
# before patterns: without D, 267 -> 66; without P too, 306 -> 76, more than with it.  So at 67
# and up nothing is cut, at 66 D is, and below 66 no state fits (66 and 76 are both over), so
# the run cuts everything it can: D and P.
HAND_MAP = {
    "knowledge": [
        {"type": "pattern", "summary": "P", "tags": ["ledger"]},
        {"type": "decision", "summary": "D", "tags": ["ledger"]},
    ]
}


def hand_project(tmp_path: Path) -> Project:
    root = make_project(tmp_path, [{"id": "T1", "title": "Ledger"}])
    dump(root, CMAP, HAND_MAP)
    return load_project(root)


def test_the_hand_worked_case(tmp_path: Path) -> None:
    project = hand_project(tmp_path)
    feature, task = task_of(project)
    refit = refit_for(project, feature, task, settings_of(project))
    assert isinstance(refit, CutSequenceRefit)
    assert refit.tokens == (67, 66, 76)
    assert refit.keys == frozenset({"budget"})
    assert refit.ceiling() == 67
    assert refit.fates(67) == {"knowledge:1": INCLUDED, "knowledge:2": INCLUDED}
    assert refit.fates(66) == {"knowledge:1": INCLUDED, "knowledge:2": CUT_FOR_BUDGET}
    assert refit.fates(65) == {"knowledge:1": CUT_FOR_BUDGET, "knowledge:2": CUT_FOR_BUDGET}
    assert refit.fates(1) == refit.fates(65)
    assert_agrees(project, feature, task, settings_of(project), list(range(1, 67 + 101)))


def test_without_a_context_map_nothing_depends_on_the_budget(tmp_path: Path) -> None:
    # The empty injection (no map, no dependencies): 21 + 69 + 49 + 22 + 14 + 90 + 29 + 12 = 306
    # characters, 76 tokens, and nothing to cut.
    project = load_project(make_project(tmp_path, [{"id": "T1", "title": "Ledger"}]))
    feature, task = task_of(project)
    refit = refit_for(project, feature, task, settings_of(project))
    assert isinstance(refit, CutSequenceRefit)
    assert refit.tokens == (76,)
    assert refit.ceiling() == 1 == budget_range(settings_of(project))[0]
    assert refit.fates(1) == refit.fates(10_000) == {}


# -- small generated projects, every integer budget -----------------------------------------------------

TAGS = ("ledger", "refund", "session", "webhook", "audit")
FILLER = ("store", "keep", "digest", "rows", "totals", "lock", "retry")


def generated_project(root: Path, seed: int) -> Project:
    """A task with a context map (components, patterns, gotchas, decisions) and handoff-backed dependencies."""
    rng = random.Random(seed)

    def words(n: int) -> str:
        return " ".join(rng.choices(FILLER, k=n))

    deps = [f"D{i}" for i in range(1, rng.randint(2, 4) + 1)]
    tasks: list[dict[str, Any]] = [
        {
            "id": "T1",
            "title": "Ledger refund session audit",
            "files": {"modify": ["src/ledger.py"]},
            "dependencies": deps,
        }
    ]
    for n, dep in enumerate(deps):
        tasks.append({"id": dep, "title": f"Dep {words(2)}", "status": "completed" if n % 3 != 2 else "pending"})
        if n % 2 == 0:
            handoff: dict[str, Any] = {"status": "completed", "summary": words(rng.randint(2, 12))}
            handoff["files_created"] = [f"src/{w}.py" for w in rng.sample(FILLER, rng.randint(0, 2))]
            handoff["open_questions"] = [
                {"question": words(rng.randint(1, 5)) + "?", "blocking": rng.random() < 0.6}
                for _ in range(rng.randint(0, 2))
            ]
            dump(root, f".mahabharatha/handoffs/{dep}.yaml", handoff)
    components = [
        {
            "component": rng.choice(TAGS).capitalize() + words(1).capitalize(),
            "location": f"src/{rng.choice(TAGS)}/{words(1)}.py",
            "notes": words(rng.randint(0, 6)),
        }
        for _ in range(rng.randint(2, 6))
    ]
    knowledge = [
        {
            "type": rng.choice(("pattern", "pattern", "gotcha", "decision")),
            "summary": words(rng.randint(1, 8)),
            "tags": rng.sample(TAGS, rng.randint(1, 2)),
            "severity": rng.choice(("high", "medium", "critical")),
        }
        for _ in range(rng.randint(2, 7))
    ]
    make_project(root, tasks)
    dump(root, CMAP, {"components": components, "knowledge": knowledge})
    return load_project(root)


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
@pytest.mark.parametrize("tokenizer", ["heuristic", "cl100k_base"])
def test_generated_projects_agree_with_whole_runs_at_every_budget(tmp_path: Path, seed: int, tokenizer: str) -> None:
    project = generated_project(tmp_path, seed)
    feature, task = task_of(project)
    settings = settings_of(project, tokenizer=tokenizer)
    refit = refit_for(project, feature, task, settings)
    assert isinstance(refit, CutSequenceRefit)
    assert len(refit.tokens) >= 5  # a chain of cuts: map entries, prior work, questions
    top = refit.ceiling() + 100
    assert_agrees(project, feature, task, settings, list(range(budget_range(settings)[0], top + 1)))
    vectors = [dict(refit.fates(b)) for b in range(1, top + 1)]
    for item_id in vectors[0]:  # monotone: once kept, kept at every larger budget
        kept = [v[item_id] in KEPT for v in vectors]
        assert kept == sorted(kept), item_id


def test_some_generated_cut_makes_the_injection_longer(tmp_path: Path) -> None:
    """The generated projects above do take the path where a later state counts more."""
    rises = 0
    for seed in (1, 2, 3, 4):
        project = generated_project(tmp_path / str(seed), seed)
        feature, task = task_of(project)
        refit = refit_for(project, feature, task, settings_of(project))
        assert isinstance(refit, CutSequenceRefit)
        rises += any(b > a for a, b in zip(refit.tokens, refit.tokens[1:], strict=False))
    assert rises


# -- the three sample projects ----------------------------------------------------------------------------


def sample_budgets(refit: CutSequenceRefit, bottom: int, stride: int) -> list[int]:
    """Every budget where a stop can change (each count and one below), plus a stride over the rest."""
    around = {t + d for t in refit.tokens for d in (-1, 0)}
    spread = set(range(bottom, refit.ceiling() + 201, stride))
    return sorted(b for b in around | spread | {refit.ceiling() + 200} if b >= bottom)


@pytest.mark.parametrize("root", SAMPLES, ids=lambda p: p.name)
def test_every_sample_task_agrees_with_whole_runs(root: Path) -> None:
    project = load_project(root)
    cut = 0
    for feature, task in project.tasks():
        settings = settings_of(project)
        refit = refit_for(project, feature, task, settings)
        assert isinstance(refit, CutSequenceRefit)
        assert_agrees(project, feature, task, settings, sample_budgets(refit, budget_range(settings)[0], 307))
        cut += len(refit.tokens) - 1
    # ledger-service has a context map and handoffs: its budgets matter; the others have neither
    assert (cut > 0) == (root.name == "ledger-service")


def test_the_ceiling_is_the_last_change() -> None:
    project = load_project(SAMPLES[0])  # ledger-service
    settings = settings_of(project)
    bottom, top = budget_range(settings)
    for feature, task in project.tasks():
        refit = refit_for(project, feature, task, settings)
        whole = WholeRunRefit(project, feature, task, settings)
        ceiling = refit.ceiling()
        above = dict(whole.fates(ceiling))
        for budget in [*range(ceiling + 1, ceiling + 201), top]:
            assert dict(refit.fates(budget)) == above, (task.id, budget)
        assert dict(whole.fates(top)) == above
        if ceiling > bottom:
            assert dict(whole.fates(ceiling - 1)) != above, task.id  # the last change is at the ceiling


# -- the fallbacks -------------------------------------------------------------------------------------------


class Sentinel:
    """What the fallback builder made, and from what."""

    def __init__(self, project: Project, feature: Feature, task: Task, settings: Settings) -> None:
        self.args = (project, feature, task, settings)


def test_the_table_holds_the_computed_builder(tmp_path: Path) -> None:
    project = hand_project(tmp_path)
    feature, task = task_of(project)
    assert refit_builder("computed") is computed_refit.build_refit
    assert isinstance(refit_for(project, feature, task, settings_of(project)), CutSequenceRefit)


def test_another_profile_falls_back(tmp_path: Path) -> None:
    project = hand_project(tmp_path)
    feature, task = task_of(project)
    settings = settings_of(project, profile="drift")
    fallback = computed_refit.build_refit(project, feature, task, settings, whole=Sentinel, source=spec_source)
    assert isinstance(fallback, Sentinel) and fallback.args == (project, feature, task, settings)


def test_a_run_that_fails_falls_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = hand_project(tmp_path)
    feature, task = task_of(project)

    def fail(self: ComputedRun) -> Prepared:
        raise RuntimeError("the run fails")

    monkeypatch.setattr(ComputedRun, "prepare", fail)
    fallback = refit_for(project, feature, task, settings_of(project))
    assert isinstance(fallback, WholeRunRefit)
    with pytest.raises(RuntimeError, match="the run fails"):  # and the whole run says how
        fallback.fates(100)


def test_a_spec_from_the_graph_changes_nothing(tmp_path: Path) -> None:
    """The computed profile reads no spec files: with spec_feature graph naming another folder, the same fates."""
    root = make_project(tmp_path, [{"id": "T1", "title": "Ledger"}])
    dump(root, CMAP, HAND_MAP)
    graph = {"feature": "other", "tasks": [{"id": "T1", "title": "Ledger"}]}
    write(root, ".gsd/specs/feat/task-graph.json", json.dumps(graph))
    project = load_project(root)
    feature, task = task_of(project)
    settings = settings_of(project, spec_feature="graph")
    assert feature.graph_spec_dir != feature.spec_dir
    assert_agrees(project, feature, task, settings, list(range(60, 80)))
    plain = refit_for(project, feature, task, settings_of(project))
    assert all(plain.fates(b) == refit_for(project, feature, task, settings).fates(b) for b in range(60, 80))
