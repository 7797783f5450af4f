"""Every profile, one frozen :class:`Profile` record each (:data:`REGISTRY`).

Settings, the runner, sensitivity, findings, the views and the CLI take a profile's facts
from here; nothing else compares profile names.  A record names its run class and refit as
``"module:attribute"`` text under ``ctxviewer.engine.profiles`` (above this module in the
engine's layers), which :mod:`ctxviewer.engine.profiles.lookup` imports on first use.
``docs/architecture.md`` (the profile registry) says why; ``docs/profiles.md`` what each does.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from ctxviewer.engine.tokens.counting import CL100K, HEURISTIC

#: The unit a profile's cuts count.
TOKENS, CHARACTERS = "tokens", "characters"
#: How a profile takes its decision tokenizer from the ``tokenizer`` setting (:meth:`Profile.decides_with`).
AS_SET, EXACT, ESTIMATE = "as set", "exact", "estimate"
#: How a profile budgets: the whole context to the budget, its sections without budgets of their own;
#: the security and spec sections ``int(budget * share)`` of the share settings; fixed shares.
WHOLE, SHARES, FIXED_SHARES = "whole", "shares", "fixed shares"

#: A setting and the values exact sensitivity tries of it.
Choice = tuple[str, tuple[Any, ...]]


@dataclass(frozen=True, slots=True)
class Profile:
    """One assembly strategy: what it is, what it takes, and what it decides in."""

    #: The value of the ``profile`` setting.
    name: str
    #: What it is, in a line (menus, tooltips, ``--help``).
    summary: str
    #: Its :class:`~ctxviewer.engine.profiles.base.RunBase` subclass, ``"module:Class"``.
    run: str
    #: Its refit builder, ``"module:function"``; None: whole runs serve its sensitivity.
    refit: str | None
    #: Its sections, in the order its traces list them.
    sections: tuple[str, ...]
    #: :data:`WHOLE`, :data:`SHARES` or :data:`FIXED_SHARES`.
    budgeting: str
    #: :data:`TOKENS` or :data:`CHARACTERS`.
    unit: str = TOKENS
    #: :data:`AS_SET`, :data:`EXACT` (as set, but never the estimate) or :data:`ESTIMATE` (always it).
    tokenizer: str = AS_SET
    #: The budgets it takes, where narrower than every budget ctxviewer accepts (None: all of them).
    budgets: tuple[int, int] | None = None
    #: The settings it does not use, each with why (dimmed in the Budget panel, skipped by sensitivity).
    unused: Mapping[str, str] = field(default_factory=dict)
    #: The toggles and upstream variables it reads, with the values exact sensitivity tries.
    choices: tuple[Choice, ...] = ()
    #: Reproduces an upstream version: the real config's budget range holds, the seed's top-k cut.
    upstream: bool = False
    #: Runs whichever upstream version the ``upstream`` setting picks (or detection finds).
    picks_version: bool = False
    #: The seed's own pipeline: the estimate decides its two sections' cuts, its top-k its paragraphs.
    reference: bool = False
    #: Candidates of equal score are ranked by their place in the file.
    ties_by_order: bool = False
    #: The spec section also gets what the security section leaves unused.
    spec_gets_rest: bool = False
    #: Reads the switch variables (``ZERG_*``, ``MAHABHARATHA_*``).
    reads_switches: bool = False
    #: Upstream writes a token record of each task it builds.
    token_records: bool = False
    #: Writes every section's heading, ``None`` under an empty one.
    every_heading: bool = False
    #: Keeps a Context Debug record of its choices.
    debug_record: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "unused", MappingProxyType(dict(self.unused)))

    @property
    def whole_budget(self) -> bool:
        """Whether it holds the whole context to the budget (its sections have no budgets of their own)."""
        return self.budgeting == WHOLE

    def decides_with(self, tokenizer: str) -> str:
        """The tokenizer it decides with when the ``tokenizer`` setting is *tokenizer*."""
        if self.tokenizer == ESTIMATE:
            return HEURISTIC
        if self.tokenizer == EXACT and tokenizer == HEURISTIC:
            return CL100K
        return tokenizer


_TWO = ("security_rules", "spec_excerpts")
_NINE = (
    "engineering_rules",
    "security_rules",
    "spec_excerpts",
    "mcp_hints",
    "depth_guidance",
    "behavioral_mode",
    "tdd_enforcement",
    "efficiency_hints",
    "repo_map",
)
_FILTERING: tuple[Choice, ...] = (("security_rule_filtering", (True, False)),)
_SWITCHES: tuple[Choice, ...] = (
    ("compact_mode", (None, "1")),
    ("tdd_mode", (None, "1")),
    ("analysis_depth", (None, "quick", "think", "think_hard", "ultrathink")),
    ("behavioral_mode", (None, "speed", "exploration", "refactor", "debug")),
)


def _whole(name: str, shares: str, top_k: str) -> dict[str, str]:
    """What a whole-budget profile does not use: the two shares, and top_k."""
    return {
        "security_share": f"not used by {name}: {shares}",
        "spec_share": f"not used by {name}: {shares}",
        "top_k": f"not used by {name}: {top_k}",
    }


def _nine(name: str) -> dict[str, str]:
    """What a nine-section version does not use: the two shares (fixed), and the tokenizer."""
    fixed = f"not used by {name}: its shares are fixed (10 % security, 20 % spec, ...)"
    return {
        "security_share": fixed,
        "spec_share": fixed,
        "tokenizer": f"{name} decides in characters and len // 4, as upstream does; other counts are only shown",
    }


def _nine_section(name: str, run: str, summary: str) -> Profile:
    """A nine-section upstream version: zerg-ai 0.3.2's assembly under one version's folders and variables."""
    return Profile(
        name,
        summary,
        run=run,
        refit="zerg.refit:build_refit",
        sections=_NINE,
        budgeting=FIXED_SHARES,
        unit=CHARACTERS,
        tokenizer=ESTIMATE,
        unused=_nine(name),
        choices=_SWITCHES,
        upstream=True,
        reads_switches=True,
        token_records=True,
    )


#: Every profile, the default first, in the order menus and ``--help`` list them.
REGISTRY: tuple[Profile, ...] = (
    Profile(
        "mahabharatha",
        "the upstream pipeline, reproduced decision for decision; setting upstream picks the version "
        "(default: detected from the project)",
        run="mahabharatha.run:MahabharathaRun",
        refit="mahabharatha.refit:build_refit",
        sections=_TWO,
        budgeting=SHARES,
        choices=_FILTERING,
        upstream=True,
        picks_version=True,
        reference=True,
        ties_by_order=True,
    ),
    Profile(
        "drift",
        "build everything, then cut in priority order, least important first, until the budget is met",
        run="drift.run:DriftRun",
        refit="drift.refit:build_refit",
        sections=_TWO,
        budgeting=WHOLE,
        unused=_whole(
            "drift", "it holds the whole context to the budget", "it caps paragraphs with drift.caps.paragraphs"
        ),
        choices=(("drift_partial", (True, False)), *_FILTERING),
        ties_by_order=True,
    ),
    Profile(
        "shaktiman",
        "rank every candidate and pack the best into the budget with exact counts, skipping overlaps",
        run="shaktiman.run:ShaktimanRun",
        refit="shaktiman.refit:build_refit",
        sections=_TWO,
        budgeting=WHOLE,
        tokenizer=EXACT,
        budgets=(256, 32_768),
        unused=_whole("shaktiman", "it packs the whole context into the budget", "it packs by rank while chunks fit"),
        choices=_FILTERING,
    ),
    Profile(
        "ctxviewer",
        "exact per-section budgets, word-boundary keywords, near-duplicate removal, "
        "packing by score per token, partial trimming",
        run="ctxviewer.run:CtxviewerRun",
        refit="ctxviewer.refit:build_refit",
        sections=_TWO,
        budgeting=SHARES,
        tokenizer=EXACT,
        unused={"top_k": "not used by ctxviewer: it packs by worth per token while paragraphs fit"},
        choices=_FILTERING,
        spec_gets_rest=True,
    ),
    Profile(
        "computed",
        "the computed context: patterns, warnings, decisions, prior work and code references the task's "
        "signals choose from the project's knowledge",
        run="computed.run:ComputedRun",
        refit="computed.refit:build_refit",
        sections=("patterns", "warnings", "decisions", "prior_work", "code_references", "open_questions"),
        budgeting=WHOLE,
        unused=_whole(
            "computed",
            "it holds the whole context to the budget",
            "it reads the context map and handoffs, not spec paragraphs",
        ),
        ties_by_order=True,
        every_heading=True,
        debug_record=True,
    ),
    _nine_section(
        "zerg-0.3.2",
        "zerg.profile:ZergRun",
        "zerg-ai 0.3.2's nine sections (rules, security, spec, MCP, depth, mode, TDD, efficiency, "
        "repository map), byte for byte",
    ),
    _nine_section(
        "mahabharatha-latest",
        "zerg.profile:LatestRun",
        "the repository's main today: zerg-ai 0.3.2's nine sections under .mahabharatha/ and MAHABHARATHA_* variables",
    ),
)

#: Every profile's name, in :data:`REGISTRY`'s order: the values the ``profile`` setting takes.
PROFILES: tuple[str, ...] = tuple(p.name for p in REGISTRY)
#: The profile a run takes when none is set: the first.
DEFAULT_PROFILE: str = REGISTRY[0].name
#: The profile that runs whichever upstream version is picked (:attr:`Profile.picks_version`).
VERSION_PICKER: str = next(p.name for p in REGISTRY if p.picks_version)
#: ctxviewer's own strategy, which a comparison sets beside any other (:func:`counterpart`).
OWN: str = "ctxviewer"

_BY_NAME: Mapping[str, Profile] = MappingProxyType({p.name: p for p in REGISTRY})


def find(name: str) -> Profile | None:
    """The record of profile *name*, or None for a name no record has (a trace of another ctxviewer, say)."""
    return _BY_NAME.get(name)


def profile_of(name: str) -> Profile:
    """The record of profile *name*; KeyError for a name no record has (a setting is checked where it enters)."""
    return _BY_NAME[name]


def counterpart(name: str) -> str:
    """The profile set beside *name* when nothing else is chosen: ctxviewer's own, or beside it the default."""
    return DEFAULT_PROFILE if name == OWN else OWN
