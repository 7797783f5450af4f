"""Upstream versions in plain words: the Budget panel's choices and the window's header line.

The trace records the version that ran (``upstream``), why (``upstream_reason``, a
sentence of the engine's) and the settings as chosen; these functions turn them into
short plain text.  Plain text: the window puts it into rich-text labels, so it must be
escaped there (the reason quotes the project's file names).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from ctxviewer.engine.project.upstream import (
    AUTO,
    LATEST,
    NOTHING_LATER,
    SEED,
    VERSION_PROFILES,
    VERSION_WORDS,
    ZERG_0_3_2,
    picks_version,
    pinned_version,
)
from ctxviewer.engine.trace.model import Trace

#: The Budget panel's entry for each value of the ``upstream`` setting.
CHOICE_WORDS: Mapping[str, str] = {
    AUTO: "auto: detect from the project",
    SEED: "2026-01-30: the context plugin as of then, 2 sections",
    ZERG_0_3_2: "zerg-ai-0.3.2: 9 sections, .zerg/, ZERG_*",
    LATEST: "latest: main, 9 sections, .mahabharatha/, MAHABHARATHA_*",
}
#: Where a setting came from, in words (files are named as they are).
_ORIGIN_WORDS: Mapping[str, str] = {
    "gui": "chosen in the Budget panel",
    "command line": "set on the command line",
    "override": "set by an override",
    "default": "the default",
}
#: A parenthesised list inside a detection's evidence (the file names found).
_PAREN = re.compile(r"\s*\([^()]*\)")


def origin_words(origin: str) -> str:
    return _ORIGIN_WORDS.get(origin, f"set in {origin}")


def detection_words(version: str, reason: str) -> str:
    """What detection found, shortly: ``engineering rule files in .zerg/rules, config keys tdd in ...``.

    *reason* is the engine's sentence (``detected zerg-ai-0.3.2: A (files); B``); the
    lists of file names in parentheses are left to the full reason.
    """
    if version == SEED:
        return NOTHING_LATER
    _, _, evidence = reason.partition(": ")
    parts = [_PAREN.sub("", part).strip() for part in evidence.split("; ")]
    return ", ".join(p for p in parts if p) or reason


def upstream_line(trace: Trace, *, with_profile: bool = True, with_why: bool = True) -> str:
    """Which upstream version and profile the run reproduces, and why, in one plain line.

    ``Reproduces zerg-ai 0.3.2, profile zerg-0.3.2 (detected: engineering rule files in
    .zerg/rules)``; a profile that is not upstream's says so.  Without *with_profile* the
    profile is left out (the window's header names it on the line above); without
    *with_why* the parenthesis is, for a label whose tooltip gives :func:`upstream_why`.
    """
    if not trace.upstream:
        return f"Profile {trace.profile}: ctxviewer's own strategy, not an upstream version"
    words = VERSION_WORDS.get(trace.upstream, trace.upstream)
    profile = f", profile {trace.profile}" if with_profile else ""
    why = f" ({upstream_why(trace)})" if with_why else ""
    return f"Reproduces {words}{profile}{why}"


def upstream_why(trace: Trace) -> str:
    """Why the run reproduces its version, shortly: ``pinned by profile ...``, ``upstream=...``,
    ``detected: ...``; the whole detection sentence is ``trace.upstream_reason``."""
    chosen_profile = trace.settings.get("profile")
    chosen_upstream = trace.settings.get("upstream")
    if chosen_profile is not None and pinned_version(chosen_profile.value) is not None:
        return f"pinned by profile {chosen_profile.value}"
    if chosen_upstream is not None and chosen_upstream.value != AUTO:
        return f"upstream={chosen_upstream.value}, {origin_words(chosen_upstream.origin)}"
    return f"detected: {detection_words(trace.upstream, trace.upstream_reason)}"


def running_profile(profile: str, upstream: str, detected: str | None) -> str:
    """The profile that runs for the chosen *profile* and *upstream*, given the version *detected*.

    The engine's rule (:func:`ctxviewer.engine.project.upstream.resolve`) without the
    project: ``mahabharatha`` runs the chosen version, or the detected one under
    ``auto`` (the seed's while nothing has been detected yet).
    """
    if not picks_version(profile):
        return profile
    version = upstream if upstream != AUTO else (detected or SEED)
    return VERSION_PROFILES.get(version, profile)
