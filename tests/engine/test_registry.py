"""The profile registry: every record complete, the names settings take, and facts that match the runs."""

from __future__ import annotations

import pytest

from ctxviewer.engine.errors import SettingsError
from ctxviewer.engine.profiles.zerg.profile import section_shares
from ctxviewer.engine.project.loading import load_project
from ctxviewer.engine.project.settings import BUDGET_RANGE, FLAT_KEYS, SWITCH_KEYS, Settings, accepted_budgets
from ctxviewer.engine.project.upstream import SEED, VERSION_PROFILES, picks_version, pinned_version
from ctxviewer.engine.registry import (
    AS_SET,
    CHARACTERS,
    DEFAULT_PROFILE,
    ESTIMATE,
    EXACT,
    FIXED_SHARES,
    PROFILES,
    REGISTRY,
    SHARES,
    TOKENS,
    VERSION_PICKER,
    WHOLE,
    Profile,
    counterpart,
    find,
    profile_of,
)
from ctxviewer.engine.runs.pipeline import assemble_task, decision_tokenizer
from tests.conftest import SAMPLES


def _is_reference(text: str | None) -> bool:
    module, colon, attribute = (text or "").partition(":")
    return bool(colon and module and attribute.isidentifier() and all(p.isidentifier() for p in module.split(".")))


@pytest.mark.parametrize("profile", REGISTRY, ids=lambda p: p.name)
def test_every_record_is_complete(profile: Profile) -> None:
    assert profile.name and profile.summary and profile.summary == profile.summary.strip()
    assert _is_reference(profile.run)
    assert profile.refit is None or _is_reference(profile.refit)
    assert profile.sections and len(set(profile.sections)) == len(profile.sections)
    assert profile.budgeting in (WHOLE, SHARES, FIXED_SHARES)
    assert profile.unit in (TOKENS, CHARACTERS)
    assert profile.tokenizer in (AS_SET, EXACT, ESTIMATE)
    # A profile that cuts in characters decides with the estimate whatever is set.
    assert profile.unit != CHARACTERS or profile.tokenizer == ESTIMATE
    if profile.budgets is not None:
        lo, hi = profile.budgets
        assert BUDGET_RANGE[0] <= lo < hi <= BUDGET_RANGE[1]
    assert set(profile.unused) <= set(FLAT_KEYS) and all(profile.unused.values())
    assert {key for key, _values in profile.choices} <= set(FLAT_KEYS)
    assert all(len(values) >= 2 for _key, values in profile.choices)
    # The switches it tries are the upstream variables exactly when it reads them.
    assert profile.reads_switches == any(key in SWITCH_KEYS for key, _values in profile.choices)
    assert not profile.picks_version or profile.upstream
    assert not profile.reference or profile.upstream


def test_names_are_unique_and_the_default_comes_first() -> None:
    assert len(set(PROFILES)) == len(PROFILES) == len(REGISTRY)
    assert PROFILES[0] == DEFAULT_PROFILE == Settings().profile
    assert [p.name for p in REGISTRY if p.picks_version] == [VERSION_PICKER]
    assert all(find(name) is profile_of(name) for name in PROFILES)
    assert find("nonsense") is None
    with pytest.raises(KeyError):
        profile_of("nonsense")


@pytest.mark.parametrize("name", [*PROFILES, "nonsense", "zerg", "Drift", ""])
def test_the_settings_take_exactly_the_registered_names(name: str) -> None:
    if name in PROFILES:
        assert Settings().with_overrides({"profile": name}, "test").profile == name
    else:
        with pytest.raises(SettingsError, match="must be one of"):
            Settings().with_overrides({"profile": name}, "test")


def test_the_versions_table_names_registered_upstream_profiles() -> None:
    for version, name in VERSION_PROFILES.items():
        profile = profile_of(name)
        assert profile.upstream
        if version == SEED:
            assert profile.picks_version and picks_version(name) and pinned_version(name) is None
        else:
            assert not profile.picks_version and pinned_version(name) == version
    # ctxviewer's own strategies run no upstream version.
    for profile in REGISTRY:
        if not profile.upstream:
            assert profile.name not in VERSION_PROFILES.values() and pinned_version(profile.name) is None


def test_the_tokenizer_each_decides_with() -> None:
    # as set
    assert profile_of("drift").decides_with("o200k_base") == "o200k_base"
    assert profile_of("mahabharatha").decides_with("heuristic") == "heuristic"
    # exact: never the estimate
    assert profile_of("shaktiman").decides_with("heuristic") == "cl100k_base"
    assert profile_of("ctxviewer").decides_with("o200k_base") == "o200k_base"
    # the nine-section versions: always upstream's len // 4
    assert profile_of("zerg-0.3.2").decides_with("cl100k_base") == "heuristic"


def test_the_budgets_each_takes() -> None:
    assert accepted_budgets("shaktiman") == (256, 32_768)
    assert accepted_budgets("drift") == BUDGET_RANGE
    with pytest.raises(SettingsError, match="the shaktiman profile takes a budget of 256-32,768"):
        Settings().with_overrides({"profile": "shaktiman", "budget": 255}, "test")
    assert Settings().with_overrides({"profile": "shaktiman", "budget": 256}, "test").budget == 256


def test_a_comparison_sets_ctxviewer_beside_any_other() -> None:
    assert counterpart("drift") == "ctxviewer"
    assert counterpart("ctxviewer") == DEFAULT_PROFILE


@pytest.mark.parametrize("profile", REGISTRY, ids=lambda p: p.name)
def test_the_facts_are_what_the_profile_does(profile: Profile) -> None:
    """On every task of a sample project: the sections a trace lists, their budgets, the tokenizer."""
    project = load_project(SAMPLES / "storefront-web")
    settings = project.settings.with_overrides({"profile": profile.name, "budget": 3000}, "test")
    assert decision_tokenizer(settings, project) == profile.decides_with(settings.tokenizer)
    for feature, task in project.tasks():
        trace = assemble_task(project, feature, task, settings, exact=False)
        assert trace.profile == profile.name
        assert tuple(s.name for s in trace.sections) == profile.sections, task.id
        assert trace.tokenizer == profile.decides_with(settings.tokenizer)
        budgets = {s.name: s.budget for s in trace.sections}
        if profile.budgeting == WHOLE:  # every section may take the whole (shaktiman: less its margin)
            assert len(set(budgets.values())) == 1 and 0 < budgets[profile.sections[0]] <= 3000
        elif profile.budgeting == SHARES:
            assert budgets["security_rules"] == int(3000 * settings.security_share)
            spec = int(3000 * settings.spec_share)
            if profile.spec_gets_rest:
                assert budgets["spec_excerpts"] >= spec
            else:
                assert budgets["spec_excerpts"] == spec
        else:
            assert budgets == section_shares(3000)
