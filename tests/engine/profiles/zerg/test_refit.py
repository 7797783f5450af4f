"""zerg's fast refit (``zerg-0.3.2``, ``mahabharatha-latest``) against whole runs, the oracle.

Whole runs come from :class:`~ctxviewer.engine.runs.sensitivity.WholeRunRefit` (one
``assemble_task(..., exact=False)`` per budget).  A generated project is checked at every
integer budget from 1 to the ceiling + 100 (a security rule file there is in, out and in again
as the budget grows, worked by hand below); the sample projects and a few random ones at a
stride, plus (every fourth sample task) both sides of every budget where the fast refit says a
fate changes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from ctxviewer.engine.profiles.lookup import refit_builder
from ctxviewer.engine.profiles.mahabharatha import DESIGN_HEADER, REQUIREMENTS_HEADER
from ctxviewer.engine.profiles.zerg import refit as zerg_refit
from ctxviewer.engine.profiles.zerg.profile import ZergRun
from ctxviewer.engine.profiles.zerg.refit import (
    MapModule,
    SpecPart,
    ZergRefit,
    engineering_kept,
    map_fates,
    paragraph_fates,
    security_kept,
    spec_kept,
    truncated_length,
)
from ctxviewer.engine.project.loading import Feature, Project, Task, load_project
from ctxviewer.engine.project.settings import BUDGET_RANGE, Settings
from ctxviewer.engine.runs.pipeline import assemble_task, spec_source
from ctxviewer.engine.runs.sensitivity import WholeRunRefit, refit_for
from ctxviewer.engine.signals import rules as R
from ctxviewer.engine.signals.spec import TRUNCATION_MARKER
from ctxviewer.engine.trace.model import CUT_FOR_BUDGET, INCLUDED, OUTRANKED, TRUNCATED
from tests.conftest import sample_projects
from tests.engine.profiles.upstream_oracle.generate import make_project as random_project
from tests.factories import make_project, write

PROFILES = ("zerg-0.3.2", "mahabharatha-latest")
TOP = BUDGET_RANGE[1]
DOCKER = f"rule:{R.DOCKER}"

# -- a generated project ---------------------------------------------------------------------------------

#: Security blocks of 100, 60 and 50 characters: "### _core/owasp-2025.md\n" is 24 characters,
#: "### python/CLAUDE.md\n" and "### docker/CLAUDE.md\n" 21, each "## Rule: " line 9 plus its letters.
SECURITY_RULES = {
    "_core/owasp-2025.md": "# Core\n## Rule: " + "x" * 67 + "\nprose that is not kept\n",
    "languages/python/CLAUDE.md": "## Rule: " + "p" * 30 + "\n",
    "containers/docker/CLAUDE.md": "## Rule: " + "d" * 20 + "\n",
}
ENGINEERING_RULES = """\
rules:
  - {id: E1, title: Validate configuration, priority: recommended, applies_to: "*.py"}
  - {id: E2, title: No secrets, priority: critical, applies_to: ["*.py"], description: tokens stay out of logs}
  - {id: E3, title: Pin images, priority: important, applies_to: Dockerfile}
  - {id: E4, title: Go only, applies_to: "*.go"}
  - {id: E5, title: Switched off, enabled: false}
  - {id: E2, title: A second E2, applies_to: "*"}
"""
REQUIREMENTS = """\
Login sessions expire. The session token rotates on every login.

A token is stored hashed. An old token is revoked, and its session ends.

The login form shows one message for any wrong input.

Session configuration lives in one file.

A refresh issues a new token.

Every login and token event is audited.

Nothing here matters."""
DESIGN = """\
The session store keeps each token with its expiry.

Rotation replaces the token at once.

Unrelated design notes."""
SOURCES = {
    "src/app.py": (
        "from s import session_id, session_id\ndef login(u): pass\nclass Session:\n    def refresh(self): pass\n"
    ),
    "src/auth.py": "def rotate_token(old): pass\ndef unrelated(): pass\n",
    "src/store.py": "def save_session(s): pass\nSESSION_LIMIT = 3\n",
    "src/util.py": "def helper(): pass\n",
}
TASKS: list[dict[str, Any]] = [
    {
        "id": "T1",
        "title": "Login session token",
        "description": "Rotate the login session token on every refresh",
        "files": {"create": ["src/app.py", "Dockerfile"]},
    },
    {"id": "T2", "title": "Token store", "files": {"modify": ["src/store.py"]}},
    {"id": "T3", "title": "Nothing", "files": {}},
    {"id": "T4", "title": "Broken files", "files": "src/app.py"},
    {"id": "T5", "title": "Abc", "files": {}},
]


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Project:
    root = tmp_path_factory.mktemp("refit-zerg")
    make_project(root, TASKS, requirements=REQUIREMENTS, design=DESIGN, rules=SECURITY_RULES)
    for folder in (".zerg", ".mahabharatha"):
        write(root, f"{folder}/rules/base.yaml", ENGINEERING_RULES)
    for rel, text in SOURCES.items():
        write(root, rel, text)
    return load_project(root)


def task_of(project: Project, task_id: str) -> tuple[Feature, Task]:
    return next((f, t) for f, t in project.tasks() if t.id == task_id)


def settings_for(project: Project, profile: str, **more: Any) -> Settings:
    return project.settings.with_overrides({"profile": profile, "budget": 2000, **more}, "test")


def fast(project: Project, feature: Feature, task: Task, settings: Settings) -> ZergRefit:
    refit = refit_for(project, feature, task, settings)
    assert isinstance(refit, ZergRefit), f"{task.id}: {type(refit).__name__}"
    return refit


def agree(refit: ZergRefit, whole: WholeRunRefit, budgets: Sequence[int], what: str = "") -> list[Mapping[str, str]]:
    """The whole runs' fates at *budgets*, once the fast refit is checked to give the same at each."""
    seen, wrong = [], []
    for b in budgets:
        mine, theirs = refit.fates(b), whole.fates(b)
        if mine != theirs:
            wrong.append(
                (
                    b,
                    {
                        k: (mine.get(k), theirs.get(k))
                        for k in mine.keys() | theirs.keys()
                        if mine.get(k) != theirs.get(k)
                    },
                )
            )
        seen.append(theirs)
    assert wrong == [], what
    return seen


def every_budget(refit: ZergRefit) -> range:
    return range(BUDGET_RANGE[0], refit.ceiling() + 101)


# -- the four decisions, worked by hand ------------------------------------------------------------------


def test_engineering_lines_go_in_while_they_fit_and_the_first_always_does() -> None:
    ends = [0, 11, 21, 36]  # lines of 10, 9 and 14 characters, each with its newline
    assert [engineering_kept(ends, limit) for limit in (0, 10, 20, 21, 35, 36, 1000)] == [1, 1, 1, 2, 2, 3, 3]
    assert engineering_kept([0], 100) == 0  # no rule chosen


def test_security_blocks_are_skipped_when_they_do_not_fit_and_later_ones_still_try() -> None:
    sizes = [200, 120, 100]
    assert security_kept(sizes, 99) == [False, False, False]
    assert security_kept(sizes, 100) == [False, False, True]
    assert security_kept(sizes, 120) == [False, True, False]  # python's 120 leaves nothing for docker's 100
    assert security_kept(sizes, 300) == [True, False, True]
    assert security_kept(sizes, 320) == [True, True, False]
    assert security_kept(sizes, 420) == [True, True, True]


def test_truncation_keeps_a_paragraph_then_a_sentence_past_half_the_limit_else_cuts_hard() -> None:
    text = "One two. Three four five six.\n\nSeven eight nine ten."  # 52: ". " at 7, ".\n" at 28, "\n\n" at 29
    assert truncated_length(text, 52) == 52  # fits whole
    assert truncated_length(text, 40) == 29  # the blank line at 29 is past 20
    assert truncated_length(text, 31) == 29  # ... and ends within 31
    assert truncated_length(text, 30) == 29  # no blank line within 30: after the sentence end at 28
    assert truncated_length(text, 20) == 20  # ". " at 7 is not past 10: a hard cut
    assert truncated_length(text, 13) == 8  # ". " at 7 is past 6: "One two."
    assert truncated_length(text, 0) == 0


def test_spec_parts_share_the_budget_as_worked_by_hand() -> None:
    assert len(TRUNCATION_MARKER) == 40
    req = SpecPart("requirements", REQUIREMENTS_HEADER, "a" * 100, ("requirements:1",), (0,), (100,))
    design = SpecPart("design", DESIGN_HEADER, "b" * 60, ("design:1",), (0,), (60,))
    # 40 tokens: requirements get 20 (80 characters), a hard cut at 80 plus the 40-character marker;
    # design gets 40 - (24 + 1 + 120 + 1 + 18) // 4 = -1, so a quarter, 10 tokens: 40 characters.
    assert spec_kept([req, design], 40) == [80, 40]
    # 50: requirements fit whole (25 tokens, 100 characters); design max(50 - 144 // 4, 12) = 14 tokens.
    assert spec_kept([req, design], 50) == [100, 56]
    assert spec_kept([req, design], 52) == [100, 60]  # 16 tokens: design fits
    assert spec_kept([design], 20) == [60]  # design alone: 20 - 18 // 4 = 16 tokens, 64 characters


def test_paragraph_fates_follow_where_the_part_is_cut() -> None:
    part = SpecPart("requirements", REQUIREMENTS_HEADER, "", ("a", "b", "c"), (0, 12, 24), (10, 22, 30))
    assert paragraph_fates(part, 30) == [("a", INCLUDED), ("b", INCLUDED), ("c", INCLUDED)]
    assert paragraph_fates(part, 22) == [("a", INCLUDED), ("b", INCLUDED), ("c", CUT_FOR_BUDGET)]
    assert paragraph_fates(part, 15) == [("a", INCLUDED), ("b", TRUNCATED), ("c", CUT_FOR_BUDGET)]
    assert paragraph_fates(part, 12) == [("a", INCLUDED), ("b", CUT_FOR_BUDGET), ("c", CUT_FOR_BUDGET)]
    assert paragraph_fates(part, 0) == [("a", CUT_FOR_BUDGET), ("b", CUT_FOR_BUDGET), ("c", CUT_FOR_BUDGET)]


def test_map_headings_end_the_map_and_symbols_end_their_module() -> None:
    # After the 25-character map heading: module m1 (13) with symbols of 20 and 30, m2 (10) with one of 15.
    m1 = MapModule("m1", 13, ("m1:a", "m1:b"), (0, 20, 50))
    m2 = MapModule("m2", 10, ("m2:a",), (0, 15))
    assert map_fates([m1, m2], 37) == [("m1", CUT_FOR_BUDGET), ("m2", CUT_FOR_BUDGET)]  # 25 + 13 > 37
    assert map_fates([m1, m2], 38) == [("m1", INCLUDED), ("m1:a", CUT_FOR_BUDGET), ("m1:b", CUT_FOR_BUDGET),
                                       ("m2", CUT_FOR_BUDGET)]  # fmt: skip
    # 70: m1 at 38, its first symbol to 58, the second would pass; m2's heading still fits (68).
    assert map_fates([m1, m2], 70) == [("m1", INCLUDED), ("m1:a", INCLUDED), ("m1:b", CUT_FOR_BUDGET),
                                       ("m2", INCLUDED), ("m2:a", CUT_FOR_BUDGET)]  # fmt: skip
    assert {fate for _, fate in map_fates([m1, m2], 113)} == {INCLUDED}  # 25 + 13 + 50 + 10 + 15


# -- agreement with whole runs -------------------------------------------------------------------------------


def test_the_docker_rule_is_in_out_and_in_again_as_worked_by_hand(project: Project) -> None:
    # The security limit is int(budget * 0.1) * 4 characters; blocks of 100 (core), 60 (python)
    # and 50 (docker) go in when they fit what the blocks before them left:
    #   limit 52-56 (budgets 130-149): only docker fits;   60-148 (150-379): python, then docker cannot
    #   follow (110), or core alone from 100 (250);         152-156 (380-399): core and docker (150);
    #   160-208 (400-529): core and python (160), docker out;  212 (530) on: all three (210).
    blocks = [len(R.summarize_file(rule, text).block) for rule, text in SECURITY_RULES.items()]
    assert blocks == [100, 60, 50]
    feature, task = task_of(project, "T1")
    settings = settings_for(project, "zerg-0.3.2")
    refit, whole = fast(project, feature, task, settings), WholeRunRefit(project, feature, task, settings)
    expected = {129: CUT_FOR_BUDGET, 130: INCLUDED, 149: INCLUDED, 150: CUT_FOR_BUDGET, 379: CUT_FOR_BUDGET,
                380: INCLUDED, 399: INCLUDED, 400: CUT_FOR_BUDGET, 529: CUT_FOR_BUDGET, 530: INCLUDED}  # fmt: skip
    assert {b: whole.fates(b)[DOCKER] for b in expected} == expected
    assert {b: refit.fates(b)[DOCKER] for b in expected} == expected


@pytest.mark.parametrize("profile", PROFILES)
def test_every_budget_agrees_with_whole_runs_on_a_generated_project(project: Project, profile: str) -> None:
    feature, task = task_of(project, "T1")
    settings = settings_for(project, profile)
    refit, whole = fast(project, feature, task, settings), WholeRunRefit(project, feature, task, settings)
    budgets = [*every_budget(refit), TOP]
    seen = agree(refit, whole, budgets)
    # What makes the project worth sweeping, seen in the whole runs: a fate that comes back,
    # a truncated paragraph, an outranked one, engineering lines cut, map symbols that are items
    # only at some budgets, and a map id listed twice (the last listing's fate counts).
    docker = [f[DOCKER] for f in seen]
    assert [fate for n, fate in enumerate(docker) if n == 0 or docker[n - 1] != fate] == [
        CUT_FOR_BUDGET, INCLUDED, CUT_FOR_BUDGET, INCLUDED, CUT_FOR_BUDGET, INCLUDED,
    ]  # fmt: skip
    assert any(TRUNCATED in f.values() for f in seen)
    assert any(fate == OUTRANKED for fate in seen[0].values())
    assert any(f[f"eng:{rules_file(profile)}#1"] == CUT_FOR_BUDGET for f in seen)
    assert any("map:src.app:2:login" not in f for f in seen) and "map:src.app:2:login" in seen[-1]
    trace = assemble_task(project, feature, task, settings, exact=False)
    ids = [i.id for i in trace.items]
    assert ids.count("map:src.app:1:session_id") == 2


def rules_file(profile: str) -> str:
    return (".zerg" if profile == "zerg-0.3.2" else ".mahabharatha") + "/rules/base.yaml"


SWITCHES: tuple[dict[str, str], ...] = (
    {"compact_mode": "1"},
    {"compact_mode": "true", "analysis_depth": "deep", "behavioral_mode": "debug", "tdd_mode": "1"},
    {"analysis_depth": "quick"},
)


@pytest.mark.parametrize("switches", SWITCHES, ids=lambda s: ",".join(f"{k}={v}" for k, v in s.items()))
def test_every_budget_agrees_with_the_switches_held_fixed(project: Project, switches: dict[str, str]) -> None:
    feature, task = task_of(project, "T1")
    settings = settings_for(project, "zerg-0.3.2", **switches)
    refit, whole = fast(project, feature, task, settings), WholeRunRefit(project, feature, task, settings)
    agree(refit, whole, sampled(refit, 7))
    # The switches do change the run: their sections, the MCP routing, the abbreviated text.
    plain = settings_for(project, "zerg-0.3.2")
    switched = assemble_task(project, feature, task, settings, exact=False)
    default = assemble_task(project, feature, task, plain, exact=False)
    assert switched.context != default.context
    if "analysis_depth" in switches:
        assert refit.fates(2000) != fast(project, feature, task, plain).fates(2000)


def test_compact_mode_abbreviates_after_the_cuts_so_it_moves_no_fate(project: Project) -> None:
    feature, task = task_of(project, "T1")
    on, off = settings_for(project, "zerg-0.3.2", compact_mode="1"), settings_for(project, "zerg-0.3.2")
    refit_on, refit_off = fast(project, feature, task, on), fast(project, feature, task, off)

    def fates(refit: ZergRefit, budget: int) -> dict[str, str]:
        return {k: v for k, v in refit.fates(budget).items() if k != "switch:compact_mode"}  # it builds a section

    assert all(fates(refit_on, b) == fates(refit_off, b) for b in range(1, 1000, 3))
    assert "cfg" in assemble_task(project, feature, task, on, exact=False).context  # "configuration" abbreviated


@pytest.mark.parametrize("task_id", ["T2", "T3"])
def test_other_tasks_agree_at_every_budget(project: Project, task_id: str) -> None:
    feature, task = task_of(project, task_id)
    settings = settings_for(project, "mahabharatha-latest")
    refit, whole = fast(project, feature, task, settings), WholeRunRefit(project, feature, task, settings)
    agree(refit, whole, [*every_budget(refit), TOP])


def test_shares_are_fixed_upstream_so_they_are_no_key_and_change_nothing(project: Project) -> None:
    feature, task = task_of(project, "T1")
    settings = settings_for(project, "zerg-0.3.2")
    refit, whole = fast(project, feature, task, settings), WholeRunRefit(project, feature, task, settings)
    assert refit.keys == whole.keys == frozenset({"budget"})
    for percent in range(0, 101, 5):
        shares = {"security_share": percent / 100, "spec_share": (100 - percent) / 100}
        assert refit.fates(800, shares) == whole.fates(800, shares) == refit.fates(800)


# -- the ceiling ----------------------------------------------------------------------------------------------


def test_the_ceiling_is_the_last_change(project: Project) -> None:
    feature, task = task_of(project, "T1")
    settings = settings_for(project, "zerg-0.3.2")
    refit, whole = fast(project, feature, task, settings), WholeRunRefit(project, feature, task, settings)
    ceiling = refit.ceiling()
    assert ceiling == whole.ceiling()
    final = whole.fates(ceiling)
    assert all(refit.fates(b) == final for b in range(ceiling, ceiling + 201))
    assert whole.fates(TOP) == refit.fates(TOP) == final
    assert whole.fates(ceiling - 1) != final  # the last change is at the ceiling, not below it


def test_a_task_no_budget_moves_has_the_bottom_as_its_ceiling(project: Project) -> None:
    feature, task = task_of(project, "T5")  # no files and no keyword: nothing competes for the budget
    settings = settings_for(project, "zerg-0.3.2")
    refit, whole = fast(project, feature, task, settings), WholeRunRefit(project, feature, task, settings)
    assert refit.ceiling() == whole.ceiling() == 1
    assert refit.fates(1) == refit.fates(TOP) == whole.fates(1)


# -- the fall-backs ---------------------------------------------------------------------------------------------


def build(project: Project, feature: Feature, task: Task, settings: Settings) -> Any:
    return zerg_refit.build_refit(project, feature, task, settings, whole=WholeRunRefit, source=spec_source)


def test_a_whole_context_that_fails_falls_back_to_whole_runs(project: Project, tmp_path: Path) -> None:
    feature, task = task_of(project, "T4")  # files is a string, not a mapping
    assert isinstance(build(project, feature, task, settings_for(project, "zerg-0.3.2")), WholeRunRefit)
    root = tmp_path / "bad-rule"
    make_project(root, TASKS[:1], requirements=REQUIREMENTS, rules={"languages/python/CLAUDE.md": "x"})
    write(root, ".claude/rules/security/languages/python/CLAUDE.md", b"## Rule: \xff\xfe\n")  # not UTF-8
    bad = load_project(root)
    feature, task = task_of(bad, "T1")
    assert isinstance(build(bad, feature, task, settings_for(bad, "zerg-0.3.2")), WholeRunRefit)


def test_another_profile_and_a_raising_run_fall_back(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    feature, task = task_of(project, "T1")
    seed = project.settings.with_overrides({"profile": "mahabharatha", "upstream": "2026-01-30"}, "test")
    assert isinstance(build(project, feature, task, seed), WholeRunRefit)

    def broken(self: ZergRun) -> Any:
        raise RuntimeError("boom")

    monkeypatch.setattr(ZergRun, "run", broken)
    refit = build(project, feature, task, settings_for(project, "zerg-0.3.2"))
    assert isinstance(refit, WholeRunRefit)
    with pytest.raises(RuntimeError, match="boom"):
        refit.fates(100)  # as every whole run does


def test_fast_fates_that_miss_the_build_run_fall_back(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    feature, task = task_of(project, "T1")
    settings = settings_for(project, "zerg-0.3.2")
    assert isinstance(build(project, feature, task, settings), ZergRefit)
    monkeypatch.setattr(zerg_refit, "spec_kept", lambda parts, max_tokens: [0 for _ in parts])
    assert isinstance(build(project, feature, task, settings), WholeRunRefit)


# -- which profiles get it ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("overrides", "fast_one"),
    [
        ({"profile": "zerg-0.3.2"}, True),
        ({"profile": "mahabharatha-latest"}, True),
        ({"profile": "mahabharatha", "upstream": "zerg-ai-0.3.2"}, True),
        ({"profile": "mahabharatha", "upstream": "latest"}, True),
        ({"profile": "mahabharatha", "upstream": "2026-01-30"}, False),
    ],
)
def test_refit_for_gives_the_fast_refit_where_a_nine_section_version_runs(
    project: Project, overrides: Mapping[str, str], fast_one: bool
) -> None:
    assert all(refit_builder(profile) is zerg_refit.build_refit for profile in PROFILES)
    feature, task = task_of(project, "T1")
    refit = refit_for(project, feature, task, project.settings.with_overrides(overrides, "test"))
    assert isinstance(refit, ZergRefit) is fast_one


# -- the sample projects and random ones ------------------------------------------------------------------------


def sampled(refit: ZergRefit, stride: int) -> list[int]:
    """Budgets to check: a stride, the range's ends, the ceiling's neighbours, and both sides of each
    change the fast refit shows when asked every 5 budgets (its sections' budgets, a tenth and a fifth
    of the total, move only there; a change anywhere else is the stride's, and the generated
    project's every-budget tests', to find)."""
    ceiling = refit.ceiling()
    budgets = {1, 2, TOP, ceiling - 1, ceiling, ceiling + 1, *range(3, ceiling + 101, stride)}
    before = refit.fates(1)
    for b in range(5, ceiling + 1, 5):
        now = refit.fates(b)
        if now != before:
            budgets.update((b - 1, b))
        before = now
    return sorted(b for b in budgets if b >= 1)


@pytest.mark.parametrize("root", sample_projects(), ids=lambda p: p.name)
def test_every_sample_task_agrees_at_a_stride_and_at_each_change(root: Path) -> None:
    # Whole runs cost a millisecond: every task at a stride with both profiles, and every fourth
    # task of zerg-0.3.2 also on both sides of every change the fast refit sees.
    project = load_project(root)
    for profile in PROFILES:
        settings = project.settings.with_overrides({"profile": profile}, "test")
        for n, (feature, task) in enumerate(project.tasks()):
            refit = fast(project, feature, task, settings)
            whole = WholeRunRefit(project, feature, task, settings)
            ceiling = refit.ceiling()
            if profile == "zerg-0.3.2" and n % 4 == 0:
                assert ceiling == whole.ceiling(), task.id
                budgets = sampled(refit, 397)
            else:
                budgets = [1, ceiling - 1, ceiling, TOP, *range(1 + n % 97, ceiling + 101, 503)]
            agree(refit, whole, budgets, f"{profile} {task.id}")


@pytest.mark.parametrize("seed", [3, 11, 29])
def test_random_projects_agree(tmp_path: Path, seed: int) -> None:
    random_project(tmp_path, seed, 6)
    project = load_project(tmp_path)
    settings = project.settings.with_overrides({"profile": "zerg-0.3.2"}, "test")
    checked = 0
    for feature, task in project.tasks():
        refit = refit_for(project, feature, task, settings)
        whole = WholeRunRefit(project, feature, task, settings)
        if isinstance(refit, ZergRefit):
            agree(refit, whole, sampled(refit, 211), task.id)
            checked += 1
        else:  # only where the whole context fails (and every section with it)
            trace = assemble_task(project, feature, task, settings, exact=False)
            assert {s.status for s in trace.sections} == {"failed"}, task.id
    assert checked
