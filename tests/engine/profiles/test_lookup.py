"""The run class and refit each registry record names: every one resolves, and to its own profile."""

from __future__ import annotations

import importlib

import pytest

from ctxviewer.engine.profiles import lookup
from ctxviewer.engine.profiles.base import RunBase
from ctxviewer.engine.profiles.lookup import profile_of_run, refit_builder, run_class, run_modules
from ctxviewer.engine.registry import PROFILES, REGISTRY, Profile, profile_of


@pytest.mark.parametrize("name", PROFILES)
def test_every_run_class_resolves_to_its_own_profile(name: str) -> None:
    run = run_class(name)
    assert issubclass(run, RunBase)
    assert run.__module__.startswith("ctxviewer.engine.profiles.")  # below the runs, as the layers want
    assert profile_of_run(run) is profile_of(name)
    assert run.__module__ in run_modules()


@pytest.mark.parametrize("name", PROFILES)
def test_every_refit_resolves(name: str) -> None:
    builder = refit_builder(name)
    if profile_of(name).refit is None:
        assert builder is None
    else:
        assert callable(builder)
        assert builder.__module__ == f"ctxviewer.engine.profiles.{profile_of(name).refit.partition(':')[0]}"


def test_two_profiles_may_share_a_refit_but_never_a_run() -> None:
    runs = [run_class(p.name) for p in REGISTRY]
    assert len(set(runs)) == len(runs)
    assert refit_builder("zerg-0.3.2") is refit_builder("mahabharatha-latest")


def test_the_run_modules_are_the_registry_s_once_each() -> None:
    modules = run_modules()
    assert len(set(modules)) == len(modules)
    for module in modules:
        importlib.import_module(module)
    assert "ctxviewer.engine.profiles.zerg.profile" in modules  # zerg-0.3.2 and mahabharatha-latest


def test_an_unknown_name_or_a_wrong_reference_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(KeyError):
        run_class("nonsense")
    with pytest.raises(KeyError, match="no profile runs"):
        profile_of_run(RunBase)
    wrong = Profile("wrong", "a record naming what is not a run", run="base:ItemDraft", refit="base:NEVER_CONSIDERED",
                    sections=("s",), budgeting="whole")  # fmt: skip
    monkeypatch.setattr(lookup, "profile_of", lambda name: wrong)
    with pytest.raises(TypeError, match="is not a run class"):
        run_class("wrong")
    with pytest.raises(TypeError, match="is not a refit builder"):
        refit_builder("wrong")
