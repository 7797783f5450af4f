"""The seed run's fast refit against whole runs (the oracle) at every integer budget and share.

The hand-worked project (``_hand_project``) has three rule blocks and one spec feature:

* security, with the heuristic counter the limit is ``L = 4 * int(budget * 0.3)`` characters
  and the blocks, in the reference order, are core 400, python 200 and docker 100 characters
  (each block is its ``### parent/name`` line and one ``## Rule: `` line).  Kept whole in
  order while they fit: L < 100 none; [100, 200) docker; [200, 300) python (docker would
  need 300); [300, 400) python + docker; [400, 500) core; [500, 600) core + docker;
  [600, 700) core + python; from 700 all three.  So docker is in, out, in, out, in, out and
  in for good: in exactly when ``S = int(budget * 0.3)`` is in [25, 50), [75, 100),
  [125, 150) or >= 175, and nothing changes from budget 584 (584 * 0.3 = 175.2) on;
* spec, ``M = int(budget * 0.5)``: requirements are three paragraphs of 120 characters
  ("login " and z's; breaks at 120 and 242, no sentence ends) truncated to ``M // 2``
  tokens (4 characters each), design one paragraph of 200 characters given
  ``max(M - len(so_far) // 4, M // 4)`` tokens, where so_far is the requirements header,
  the requirements as cut and the design header joined by line breaks: 24 + 1 + kept +
  40 (the truncation marker) + 1 + 18 = kept + 84 characters when cut.  For M in
  [62, 119] the cut keeps 120 (a paragraph break past half), so design gets M - 51 and
  fits from M = 101; at M = 120, 121 the cut is hard at 240 characters, design gets
  M - 81 = 39, 40 < 50 and is cut; from M = 122 the cut keeps 242 (design M - 81, fits
  from M = 131); from M = 182 the requirements fit whole (design M - 102 >= 80).  A
  single paragraph that does not fit is truncated (hard, never to nothing: design gets at
  least 11 tokens here), so from M = 62 on ``design:1`` is truncated, then included for M
  in [101, 119], truncated for [120, 130], and included from 131 on.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from ctxviewer.engine.profiles.mahabharatha import refit as maha_refit
from ctxviewer.engine.profiles.mahabharatha.refit import MahabharathaRefit, build_refit
from ctxviewer.engine.profiles.refit_contract import Refit, budget_range
from ctxviewer.engine.project.loading import Feature, Project, Task, load_project
from ctxviewer.engine.project.settings import Settings
from ctxviewer.engine.runs.pipeline import assemble_task, decision_tokenizer, spec_source
from ctxviewer.engine.runs.sensitivity import WholeRunRefit, refit_for
from ctxviewer.engine.trace.model import CUT_FOR_BUDGET, INCLUDED, NOT_CANDIDATE, TRUNCATED
from tests.conftest import SAMPLES
from tests.factories import make_project, write

SEED = {"profile": "mahabharatha", "upstream": "2026-01-30"}

CORE_RULE = "## Rule: " + "c" * (400 - 24 - 9) + "\n"  # "### _core/owasp-2025.md\n" is 24
PYTHON_RULE = "## Rule: " + "p" * (200 - 21 - 9) + "\n"  # "### python/CLAUDE.md\n" is 21
DOCKER_RULE = "## Rule: " + "d" * (100 - 21 - 9) + "\n"  # "### docker/CLAUDE.md\n" is 21
REQUIREMENTS = "\n\n".join("login " + "z" * 114 for _ in range(3))
DESIGN = "login " + "y" * 194
DOCKER = "rule:containers/docker/CLAUDE.md"
TASK = {"id": "T1", "title": "Login flow", "files": {"create": ["src/app.py", "Dockerfile"]}}


def _hand_project(root: Path, task: Mapping[str, Any] = TASK, **rules: str) -> Project:
    files = {
        "_core/owasp-2025.md": CORE_RULE,
        "languages/python/CLAUDE.md": PYTHON_RULE,
        "containers/docker/CLAUDE.md": DOCKER_RULE,
        **rules,
    }
    make_project(root, [dict(task)], requirements=REQUIREMENTS, design=DESIGN, rules=files)
    return load_project(root)


def _settings(project: Project, **values: Any) -> Settings:
    return replace(project.settings, **{**SEED, **values})


def _only(project: Project) -> tuple[Feature, Task]:
    feature = project.features[0]
    return feature, feature.tasks[0]


def _refit(project: Project, feature: Feature, task: Task, settings: Settings) -> Refit:
    return build_refit(project, feature, task, settings, whole=WholeRunRefit, source=spec_source)


def _disagreements(
    refit: Refit,
    oracle: WholeRunRefit,
    budgets: Iterable[int],
    shares: Callable[[int], Mapping[str, float] | None] = lambda b: None,
) -> list[int]:
    return [b for b in budgets if refit.fates(b, shares(b)) != oracle.fates(b, shares(b))]


def _runs(refit: Refit, item: str, budgets: Iterable[int]) -> list[tuple[int, str]]:
    """(first budget, status) of each run of equal statuses of *item*."""
    out: list[tuple[int, str]] = []
    for b in budgets:
        status = refit.fates(b)[item]
        if not out or out[-1][1] != status:
            out.append((b, status))
    return out


# -- the hand-worked project ----------------------------------------------------------------


def test_hand_worked_fates_and_whole_runs_at_every_budget(tmp_path: Path) -> None:
    project = _hand_project(tmp_path)
    feature, task = _only(project)
    settings = _settings(project, tokenizer="heuristic")
    refit = _refit(project, feature, task, settings)
    assert isinstance(refit, MahabharathaRefit)
    assert refit.keys == {"budget", "security_share", "spec_share"}
    assert refit.ceiling() == 584

    for b in range(1, 685):
        fates = refit.fates(b)
        s, m = int(b * 0.3), int(b * 0.5)
        docker_in = 25 <= s < 50 or 75 <= s < 100 or 125 <= s < 150 or s >= 175
        assert fates[DOCKER] == (INCLUDED if docker_in else CUT_FOR_BUDGET), b
        if m >= 62:  # below, the requirements' budget leaves design its quarter only
            design_in = 101 <= m < 120 or m >= 131
            assert fates["design:1"] == (INCLUDED if design_in else TRUNCATED), b
    # M = 120 (budget 240): the hard cut at 240 keeps paragraph 1, 118 of paragraph 2's 120.
    assert [refit.fates(240)[f"requirements:{n}"] for n in (1, 2, 3)] == [INCLUDED, TRUNCATED, CUT_FOR_BUDGET]

    # Both kinds of candidate really change back and forth: docker in, out and in again
    # (three times), design whole, truncated and whole again.
    assert len(_runs(refit, DOCKER, range(1, 685))) == 8
    assert _runs(refit, "design:1", range(200, 685)) == [
        (200, TRUNCATED),
        (202, INCLUDED),
        (240, TRUNCATED),
        (262, INCLUDED),
    ]

    oracle = WholeRunRefit(project, feature, task, settings)
    assert _disagreements(refit, oracle, range(1, refit.ceiling() + 101)) == []
    # The oracle's oracle: one budget straight from the front door.
    trace = assemble_task(project, feature, task, replace(settings, budget=250), exact=False)
    assert refit.fates(250) == {item.id: item.status for item in trace.items}


def test_hand_worked_with_an_exact_tokenizer(tmp_path: Path) -> None:
    project = _hand_project(tmp_path)
    feature, task = _only(project)
    settings = _settings(project, tokenizer="cl100k_base")
    assert decision_tokenizer(settings, project) == settings.tokenizer  # what the builder assumes
    refit = _refit(project, feature, task, settings)
    assert isinstance(refit, MahabharathaRefit)
    oracle = WholeRunRefit(project, feature, task, settings)
    assert refit.ceiling() == oracle.ceiling()
    assert _disagreements(refit, oracle, range(1, refit.ceiling() + 101)) == []


@pytest.mark.parametrize("tokenizer", ["heuristic", "cl100k_base"])
def test_shares_at_every_integer_section_budget(tmp_path: Path, tokenizer: str) -> None:
    project = _hand_project(tmp_path)
    feature, task = _only(project)
    settings = _settings(project, tokenizer=tokenizer)
    refit = _refit(project, feature, task, settings)
    oracle = WholeRunRefit(project, feature, task, settings)
    budget = 700
    assert (
        _disagreements(
            refit, oracle, range(budget // 2 + 1), lambda k: {"security_share": k / budget, "spec_share": 0.5}
        )
        == []
    )
    assert _disagreements(refit, oracle, range(budget * 7 // 10 + 1), lambda k: {"spec_share": k / budget}) == []
    # Hand-worked: a quarter of 700 to security (S = 175, L = 700) keeps all three blocks;
    # S = 74 (L = 296) keeps only python (200 <= 296 < 300 that docker would need).
    rules = ("rule:_core/owasp-2025.md", "rule:languages/python/CLAUDE.md", DOCKER)
    if tokenizer == "heuristic":
        assert {refit.fates(budget, {"security_share": 0.25})[r] for r in rules} == {INCLUDED}
        fates = refit.fates(budget, {"security_share": 74 / budget})
        assert [fates[r] for r in rules] == [CUT_FOR_BUDGET, INCLUDED, CUT_FOR_BUDGET]


def test_ceiling_is_the_last_change(tmp_path: Path) -> None:
    project = _hand_project(tmp_path)
    feature, task = _only(project)
    refit = _refit(project, feature, task, _settings(project, tokenizer="heuristic"))
    ceiling = refit.ceiling()
    at = refit.fates(ceiling)
    assert all(refit.fates(ceiling + i) == at for i in range(1, 201))
    assert refit.fates(budget_range(project.settings)[1]) == at
    assert refit.fates(ceiling - 1) != at
    assert refit.fates(ceiling - 1)[DOCKER] == CUT_FOR_BUDGET  # S = 174: core + python, 700 > 696


# -- runs that fail, in part or as a whole: modelled, and checked ----------------------------


@pytest.mark.parametrize(
    "case",
    ["files-not-a-mapping", "rule-not-utf8", "spec-not-utf8", "no-keywords", "strict"],
)
def test_failing_runs_agree_with_whole_runs(tmp_path: Path, case: str) -> None:
    """The whole run fails (files not a mapping, a rule file not UTF-8: kept candidates fall
    back to not candidates; strict: it fails without falling back), or one section is left
    out (a spec file not UTF-8; no keywords): still a fast refit, still exact."""
    task: dict[str, Any] = dict(TASK)
    values: dict[str, Any] = {"tokenizer": "heuristic"}
    if case == "files-not-a-mapping":
        task["files"] = ["src/app.py"]
    if case == "no-keywords":
        task["title"] = "Fix"
        task["files"] = {"create": ["a.py"]}
    if case == "strict":
        values["fallback_to_full"] = False
        task["files"] = ["src/app.py"]
    _hand_project(tmp_path, task)
    if case == "rule-not-utf8":
        write(tmp_path, ".claude/rules/security/languages/python/CLAUDE.md", b"## Rule: \xff\xfe\n")
    if case == "spec-not-utf8":
        write(tmp_path, ".gsd/specs/feat/requirements.md", b"login \xff\n")
    project = load_project(tmp_path)
    feature, task_ = _only(project)
    settings = _settings(project, **values)
    refit = _refit(project, feature, task_, settings)
    assert isinstance(refit, MahabharathaRefit)
    oracle = WholeRunRefit(project, feature, task_, settings)
    assert _disagreements(refit, oracle, range(1, refit.ceiling() + 101)) == []
    assert refit.ceiling() >= oracle.ceiling()
    if case == "rule-not-utf8":
        # The core block (read before python) fits from S = 100 but the run falls back.
        assert refit.fates(600)["rule:_core/owasp-2025.md"] == NOT_CANDIDATE


# -- what falls back to whole runs ----------------------------------------------------------


def test_other_versions_and_profiles_fall_back(tmp_path: Path) -> None:
    project = _hand_project(tmp_path)
    feature, task = _only(project)
    for values in ({"upstream": "zerg-ai-0.3.2"}, {"upstream": "latest"}, {"profile": "drift"}):
        settings = replace(_settings(project), **values)
        built = build_refit(project, feature, task, settings, whole=WholeRunRefit, source=spec_source)
        assert isinstance(built, WholeRunRefit), values
    assert isinstance(refit_for(project, feature, task, _settings(project)), MahabharathaRefit)


def test_a_run_that_raises_falls_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = _hand_project(tmp_path)
    feature, task = _only(project)

    def unavailable(name: str) -> Any:
        raise RuntimeError(f"no encoding {name}")

    monkeypatch.setattr(maha_refit, "get_counter", unavailable)
    built = build_refit(project, feature, task, _settings(project), whole=WholeRunRefit, source=spec_source)
    assert isinstance(built, WholeRunRefit)


# -- the sample projects ----------------------------------------------------------------------


def _sample_tasks() -> list[tuple[Project, Feature, Task]]:
    out = []
    for name in ("storefront-web", "ledger-service", "edge-cases"):
        project = load_project(SAMPLES / name)
        out.extend((project, f, t) for f in project.features for t in f.tasks)
    return out


def test_issue_example_docker_runs_at_every_budget() -> None:
    project = load_project(SAMPLES / "storefront-web")
    feature = next(f for f in project.features if f.name == "cart-checkout")
    task = next(t for t in feature.tasks if t.id == "CHK-L2-003")
    settings = _settings(project)
    refit = _refit(project, feature, task, settings)
    assert isinstance(refit, MahabharathaRefit)
    ceiling = refit.ceiling()
    # The issue, sampled every 25: in at 675-1,425, 2,125-2,150, 2,850-3,600, and from 4,275.
    sampled = [b for b in range(25, ceiling + 101, 25) if refit.fates(b)[DOCKER] == INCLUDED]
    expected = [*range(675, 1426, 25), 2125, 2150, *range(2850, 3601, 25), *range(4275, ceiling + 101, 25)]
    assert sampled == expected
    # Every integer: the refit's runs and the whole runs' agree.
    runs = _runs(refit, DOCKER, range(1, ceiling + 101))
    assert [b for b, s in runs if s == INCLUDED] == [670, 2114, 2830, 4274]
    assert ceiling == 4274
    oracle = WholeRunRefit(project, feature, task, settings)
    assert _disagreements(refit, oracle, range(1, ceiling + 101)) == []


def test_sample_projects_agree_with_whole_runs() -> None:
    """Every task of the three samples, heuristic counter: at every budget where the refit's
    fates change (and the one before), and every 151st budget, up to ceiling + 100."""
    for project, feature, task in _sample_tasks():
        settings = _settings(project)
        refit = _refit(project, feature, task, settings)
        assert isinstance(refit, MahabharathaRefit), task.id
        ceiling = refit.ceiling()
        budgets = set(range(1 + len(task.id) % 151, ceiling + 101, 151))
        before = refit.fates(1)
        for b in range(2, ceiling + 101):
            now = refit.fates(b)
            if now != before:
                budgets.update((b - 1, b))
            before = now
        assert max(budgets) <= ceiling or refit.fates(ceiling) == refit.fates(max(budgets))
        oracle = WholeRunRefit(project, feature, task, settings)
        assert _disagreements(refit, oracle, sorted(budgets)) == [], task.id
        assert all(refit.fates(ceiling + i) == refit.fates(ceiling) for i in (1, 100, 200))
        assert ceiling == 1 or refit.fates(ceiling - 1) != refit.fates(ceiling), task.id


def test_sample_ceilings_and_an_exact_tokenizer() -> None:
    """One task of each feature: the same ceiling as the whole-run search, and agreement with
    cl100k_base deciding, every 127th budget and at every change."""
    seen: set[str] = set()
    for project, feature, task in _sample_tasks():
        if feature.name in seen:
            continue
        seen.add(feature.name)
        for tokenizer in ("heuristic", "cl100k_base"):
            settings = _settings(project, tokenizer=tokenizer)
            refit = _refit(project, feature, task, settings)
            oracle = WholeRunRefit(project, feature, task, settings)
            assert refit.ceiling() == oracle.ceiling(), (task.id, tokenizer)
            top = budget_range(settings)[1]
            assert refit.fates(top) == oracle.fates(top)
            if tokenizer == "cl100k_base":
                ceiling = refit.ceiling()
                changes = [b for b in range(2, ceiling + 1) if refit.fates(b) != refit.fates(b - 1)]
                budgets = sorted({*range(1, ceiling + 101, 127), *changes, *(b - 1 for b in changes)})
                assert _disagreements(refit, oracle, budgets) == [], task.id
