"""The run class and the refit builder each profile's registry record names, imported on first use.

:mod:`ctxviewer.engine.registry` lies below this package in the engine's layers, so a record
names them as ``"module:attribute"`` text under it; here that text becomes the class or the
function.  ``docs/architecture.md`` (the profile registry) says why.
"""

from __future__ import annotations

import importlib
from functools import cache
from typing import cast

from ctxviewer.engine.profiles.base import RunBase
from ctxviewer.engine.profiles.refit_contract import RefitBuilder
from ctxviewer.engine.registry import REGISTRY, Profile, profile_of

#: The package every reference is relative to.
PACKAGE = __name__.rpartition(".")[0]


def _module(reference: str) -> str:
    return f"{PACKAGE}.{reference.partition(':')[0]}"


@cache
def _named(reference: str) -> object:
    return getattr(importlib.import_module(_module(reference)), reference.partition(":")[2])


def run_class(name: str) -> type[RunBase]:
    """The :class:`~ctxviewer.engine.profiles.base.RunBase` subclass profile *name* runs."""
    reference = profile_of(name).run
    found = _named(reference)
    if not (isinstance(found, type) and issubclass(found, RunBase)):
        raise TypeError(f"profile {name}: {reference} is not a run class")
    return found


def refit_builder(name: str) -> RefitBuilder | None:
    """Profile *name*'s refit builder, or None where whole runs serve its sensitivity."""
    reference = profile_of(name).refit
    if reference is None:
        return None
    found = _named(reference)
    if not callable(found):
        raise TypeError(f"profile {name}: {reference} is not a refit builder")
    return cast(RefitBuilder, found)


def profile_of_run(run: type[RunBase]) -> Profile:
    """The record of the profile whose run class is *run* (a refit asks for its own profile's facts)."""
    where = f"{run.__module__}:{run.__qualname__}"
    for profile in REGISTRY:
        if f"{_module(profile.run)}:{profile.run.partition(':')[2]}" == where:
            return profile
    raise KeyError(f"no profile runs {where}")


def run_modules() -> tuple[str, ...]:
    """The module of every profile's run class, once each, in the registry's order."""
    return tuple(dict.fromkeys(_module(p.run) for p in REGISTRY))
