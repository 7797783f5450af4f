"""Exact sensitivity (ctxviewer.engine.runs.sensitivity): strips, shares, suggestions.

The oracle is the whole pipeline: a strip must say, at every integer budget, what a whole
run at that budget says.  Suggestion tests build small Sensitivity values by hand.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from pathlib import Path

import pytest

from ctxviewer.engine.errors import SettingsError
from ctxviewer.engine.profiles.base import Cancelled
from ctxviewer.engine.project.loading import Project, load_project
from ctxviewer.engine.registry import PROFILES
from ctxviewer.engine.runs import sensitivity as sensitivity_module
from ctxviewer.engine.runs.pipeline import assemble_task
from ctxviewer.engine.runs.sensitivity import (
    CHOICE,
    SHARE,
    TOKENS,
    Axis,
    Segment,
    Sensitivity,
    WholeRunRefit,
    check_work,
    sensitivity,
    share_for,
    yaml_value,
)
from ctxviewer.engine.trace.model import CUT_FOR_BUDGET, INCLUDED
from tests.factories import COMPARE_TASKS, make_compare_project, make_small


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Project:
    return make_small(tmp_path_factory.mktemp("sens") / "p")


# -- hand-worked ------------------------------------------------------------------------------


def test_the_core_rule_of_the_compare_project_is_in_from_budget_1280(tmp_path: Path) -> None:
    # Its block is 1,533 characters; the seed's security limit is 4 characters per token of
    # int(budget * 0.30).  1,533 <= 4 * int(0.3 * B) needs int(0.3 * B) >= 384, first at B = 1,280
    # (0.3 * 1,279 = 383.7).  Nothing else competes for the section, so it is out below, in above.
    project = load_project(make_compare_project(tmp_path))
    feature = project.features[0]
    task = feature.task(COMPARE_TASKS[0]["id"])
    settings = project.settings.with_overrides({"profile": "mahabharatha", "budget": 1000}, "t")
    trace = assemble_task(project, feature, task, settings, exact=False)
    sens = sensitivity(project, feature, task, settings, trace, keys=["budget"])
    core = next(i.id for i in trace.items if "owasp" in i.id)
    strip = sens.strip(core, "budget")
    assert [(s.lo, s.hi, s.status) for s in strip] == [(1, 1279, CUT_FOR_BUDGET), (1280, 10_000_000, INCLUDED)]
    change = sens.suggestion(core)
    assert change is not None and (change.key, change.value, change.status) == ("budget", 1280, INCLUDED)
    # The same 384-token section budget through the share: the smallest share s with
    # int(1000 * s) == 384 is 0.384.
    share = sens.axis("budget")
    assert share is not None and share.ceiling is not None and share.ceiling >= 1280


# -- agreement with whole runs -------------------------------------------------------------


@pytest.mark.parametrize("profile", [p for p in PROFILES if p != "computed"])
def test_budget_strips_agree_with_a_whole_run_at_every_integer_budget(small: Project, profile: str) -> None:
    feature = small.features[0]
    task = feature.tasks[0]
    settings = small.settings.with_overrides({"profile": profile, "budget": 1000}, "t")
    trace = assemble_task(small, feature, task, settings, exact=False)
    sens = sensitivity(small, feature, task, settings, trace, keys=["budget"])
    axis = sens.axis("budget")
    assert axis is not None and axis.ceiling is not None
    strips = {i: sens.strip(i, "budget") for i in sens.item_ids}
    oracle = WholeRunRefit(small, feature, task, settings)
    budgets = [*range(axis.lo, axis.ceiling + 101), axis.hi]
    for budget in budgets:
        want = oracle.fates(budget)
        for item_id, spans in strips.items():
            got = next(s.status for s in spans if s.lo <= budget <= s.hi)
            assert got == want[item_id], (profile, budget, item_id)
    # The project is built so that the fit is not monotonic somewhere: a candidate in, out, in again.
    if profile != "drift":
        assert any(sum(1 for s in spans if s.in_context) > 1 for spans in strips.values())


def test_share_strips_agree_with_whole_runs_at_every_section_budget(small: Project) -> None:
    feature = small.features[0]
    task = feature.tasks[0]
    settings = small.settings.with_overrides({"profile": "mahabharatha", "budget": 900}, "t")
    trace = assemble_task(small, feature, task, settings, exact=False)
    sens = sensitivity(small, feature, task, settings, trace, keys=["security_share", "spec_share"])
    oracle = WholeRunRefit(small, feature, task, settings)
    for key, other in (("security_share", 0.5), ("spec_share", 0.3)):
        axis = sens.axis(key)
        assert axis is not None and axis.kind == SHARE
        # The other share leaves 1 - other: int(900 * 0.5) = 450 and int(900 * 0.7) = 630 section budgets.
        assert axis.hi == int(900 * (1 - other))
        for position in range(axis.lo, axis.hi + 1):
            share = axis.value(position)
            assert int(900 * share) == position
            want = oracle.fates(900, {key: share})
            for item_id in sens.item_ids:
                spans = sens.strip(item_id, key)
                got = next(s.status for s in spans if s.lo <= share and (share < s.hi or s is spans[-1]))
                assert got == want[item_id], (key, position, item_id)


# -- the pieces -----------------------------------------------------------------------------


@pytest.mark.parametrize("budget", [1, 7, 900, 1000, 4096, 12_345])
def test_share_for_gives_the_section_budget_and_is_a_short_decimal(budget: int) -> None:
    for v in sorted({0, 1, budget // 3, budget // 2, budget - 1, budget}):
        share = share_for(budget, v)
        assert int(budget * share) == v
        assert v / budget - 1e-12 <= share < (v + 1) / budget
    assert share_for(1000, 384) == 0.384
    assert share_for(3, 1) == 0.34  # int(3 * 0.33) = 0, int(3 * 0.34) = 1


def test_yaml_value_reads_back_as_the_value() -> None:
    import yaml

    for value in (None, True, False, 3604, 0.384, "1", "think_hard"):
        assert yaml.safe_load(yaml_value(value)) == value  # "1" stays text: quoted


def test_a_switch_suggestion_is_set_as_the_variables_text() -> None:
    # --set reads a switch's value as typed: quoting it would set the variable to 'think' with quotes.
    from ctxviewer.engine.runs.compare import parse_assignment
    from ctxviewer.engine.runs.sensitivity import Suggestion

    for value in ("think", "1", None):
        change = Suggestion("analysis_depth", value, INCLUDED, 1.0, (), ())
        assert parse_assignment(change.set_text) == ("analysis_depth", value)
    assert parse_assignment(Suggestion("top_k", 7, INCLUDED, 0.4, (), ()).set_text) == ("top_k", 7)


def _hand(vectors: list[tuple[str, ...]], axes: list[Axis], current: int = 0) -> Sensitivity:
    return Sensitivity("T", "mahabharatha", ("a", "b", "c"), tuple(vectors), current, tuple(axes), 0, 0.0, "fast")


IN, CUT = INCLUDED, CUT_FOR_BUDGET


def test_suggestion_is_the_nearest_value_and_names_what_it_pushes_out() -> None:
    # Budget 1000 now: a out, b and c in.  a is in at 900-949 (pushing b out) and from 1200
    # (pushing nothing out).  900-949 is 5 % away (949), 1200 is 20 %: the nearer one wins.
    vectors = [(CUT, IN, IN), (IN, CUT, IN), (IN, IN, IN)]
    budget = Axis(
        "budget",
        TOKENS,
        1000,
        1,
        10_000,
        (Segment(1, 899, 0), Segment(900, 949, 1), Segment(950, 1199, 0), Segment(1200, 10_000, 2)),
        suggest_lo=1,
        suggest_hi=10_000,
    )
    sens = _hand(vectors, [budget])
    change = sens.suggestion("a")
    assert change is not None
    assert (change.key, change.value, change.status, change.pushes_out, change.brings_in) == (
        "budget",
        949,
        IN,
        ("b",),
        (),
    )
    assert change.size == pytest.approx(0.051)
    assert change.set_text == "budget=949"
    assert sens.suggestion("b") is None  # already in
    assert [(s.lo, s.hi) for s in sens.including("a", "budget")] == [(900, 949), (1200, 10_000)]


def test_a_suggestion_stays_in_the_real_systems_range_for_upstream_profiles() -> None:
    # a is in only at 100-400 and from 30,000: outside 500-20,000 both, so no budget suggestion;
    # the switch (100 %) is the only change left.
    vectors = [(CUT, IN, IN), (IN, IN, IN)]
    budget = Axis(
        "budget",
        TOKENS,
        4000,
        1,
        10_000_000,
        (Segment(1, 99, 0), Segment(100, 400, 1), Segment(401, 29_999, 0), Segment(30_000, 10_000_000, 1)),
        suggest_lo=500,
        suggest_hi=20_000,
    )
    switch = Axis(
        "security_rule_filtering", CHOICE, True, 0, 1, (Segment(0, 0, 0), Segment(1, 1, 1)), choices=(True, False)
    )
    sens = _hand(vectors, [budget, switch])
    change = sens.suggestion("a")
    assert change is not None and (change.key, change.value, change.size) == ("security_rule_filtering", False, 1.0)
    # Without the switch the nearest budget outside the range is given, marked as such: 400 is
    # 90 % away, 30,000 is 650 %.
    no_switch = _hand(vectors, [budget]).suggestion("a")
    assert no_switch is not None and (no_switch.value, no_switch.outside_range) == (400, True)
    assert not change.outside_range


def test_ties_go_to_the_change_that_pushes_fewer_out() -> None:
    # 10 % down pushes b out; 10 % up pushes nothing out.
    vectors = [(CUT, IN, IN), (IN, CUT, IN), (IN, IN, IN)]
    budget = Axis(
        "budget",
        TOKENS,
        1000,
        1,
        2000,
        (Segment(1, 900, 1), Segment(901, 1099, 0), Segment(1100, 2000, 2)),
        suggest_lo=1,
        suggest_hi=2000,
    )
    change = _hand(vectors, [budget]).suggestion("a")
    assert change is not None and change.value == 1100 and change.pushes_out == ()


def test_a_set_cancel_token_stops_the_computation(small: Project) -> None:
    feature = small.features[0]
    task = feature.tasks[0]
    settings = small.settings.with_overrides({"profile": "mahabharatha", "budget": 1000}, "t")
    trace = assemble_task(small, feature, task, settings, exact=False)
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(Cancelled):
        sensitivity(small, feature, task, settings, trace, cancel=cancel)


def test_a_refit_that_disagrees_with_the_run_is_not_trusted(small: Project) -> None:
    feature = small.features[0]
    task = feature.tasks[0]
    settings = small.settings.with_overrides({"profile": "mahabharatha", "budget": 1000}, "t")
    trace = assemble_task(small, feature, task, settings, exact=False)

    class Wrong:
        keys = frozenset({"budget"})

        def fates(self, budget: int, shares: Mapping[str, float] | None = None) -> Mapping[str, str]:
            return {item.id: CUT_FOR_BUDGET for item in trace.items}

        def ceiling(self) -> int:
            return 1

    sens = sensitivity(small, feature, task, settings, trace, refit=Wrong(), keys=["budget"])
    assert sens.method == "whole runs"
    assert all(sens.status(i.id) == i.status for i in trace.items)
    assert any(not s.in_context for i in trace.items for s in sens.strip(i.id, "budget"))


# -- the ceiling on the work -----------------------------------------------------------------------


def test_the_work_ceiling_counts_fast_evaluations_and_whole_runs_apart() -> None:
    check_work("T1", 4000, [("budget", 400_000, False), ("spec_share", 600_000, False), ("top_k", 50_000, True)])
    with pytest.raises(SettingsError) as caught:
        check_work("T1", 900_000, [("budget", 400_000, False), ("spec_share", 600_001, False), ("top_k", 9, True)])
    assert str(caught.value) == (
        "sensitivity of T1 at budget 900,000: budget 400,000 + spec_share 600,001 = 1,000,001 refit evaluations "
        "is over the limit of 1,000,000; choose a smaller budget"
    )
    with pytest.raises(SettingsError, match=r": top_k 10,000 \+ budget 40,001 = 50,001 whole runs is over the limit"):
        check_work("T1", 4000, [("top_k", 10_000, True), ("budget", 40_001, True), ("spec_share", 5, False)])


def _no_axis_walked(monkeypatch: pytest.MonkeyPatch) -> None:
    def walked(*args: object) -> None:
        raise AssertionError("an axis was walked")

    monkeypatch.setattr(sensitivity_module, "_segments", walked)


def test_a_share_axis_too_long_for_its_budget_is_refused_before_it_is_walked(
    small: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    feature = small.features[0]
    task = feature.tasks[0]
    settings = small.settings.with_overrides({"profile": "mahabharatha", "budget": 2_000_000}, "t")
    assert settings.security_share == 0.3
    trace = assemble_task(small, feature, task, settings, exact=False)
    _no_axis_walked(monkeypatch)
    # spec_share may take what security's 0.3 leaves: section budgets 0 .. int(2,000,000 * 0.7).
    with pytest.raises(SettingsError) as caught:
        sensitivity(small, feature, task, settings, trace, keys=["spec_share"])
    assert str(caught.value) == (
        "sensitivity of T1 at budget 2,000,000: spec_share 1,400,001 = 1,400,001 refit evaluations is over the "
        "limit of 1,000,000; choose a smaller budget"
    )


def test_whole_runs_have_their_own_lower_ceiling(small: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    feature = small.features[0]
    task = feature.tasks[0]
    settings = small.settings.with_overrides({"profile": "mahabharatha", "budget": 100_000}, "t")
    trace = assemble_task(small, feature, task, settings, exact=False)

    class Wrong:  # disagrees with the run: the sensitivity falls back to a whole run per position
        keys = frozenset({"budget"})

        def fates(self, budget: int, shares: Mapping[str, float] | None = None) -> Mapping[str, str]:
            return {item.id: CUT_FOR_BUDGET for item in trace.items}

        def ceiling(self) -> int:
            return 1

    _no_axis_walked(monkeypatch)
    # 70,001 section budgets (0 .. int(100,000 * 0.7)) would be 70,001 whole runs: over 50,000.
    with pytest.raises(SettingsError, match=r"^sensitivity of T1 at budget 100,000: spec_share 70,001 = 70,001 whole"):
        sensitivity(small, feature, task, settings, trace, refit=Wrong(), keys=["spec_share"])
    # Through the fast refit the same axis is 70,001 cheap evaluations, within its ceiling.
    monkeypatch.undo()
    sens = sensitivity(small, feature, task, settings, trace, keys=["spec_share"])
    axis = sens.axis("spec_share")
    assert axis is not None and (axis.lo, axis.hi) == (0, 70_000)
