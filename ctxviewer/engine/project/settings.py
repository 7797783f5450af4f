"""Effective settings of a run and where each value came from.

Values are layered, later layers winning:

1. ctxviewer's defaults (the reproduced system's own defaults);
2. the system's config, ``.mahabharatha/config.yaml`` or ``.zerg/config.yaml``
   (``workers.context_threshold_percent`` and ``plugins.context_engineering.*``);
3. ``ctxviewer.yaml`` at the project root (every key documented in
   ``docs/ctxviewer-yaml.md``);
4. overrides from the command line or the GUI.

Each value is validated where it enters; a bad value raises :class:`SettingsError`
naming the file and key, never clamped silently.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from ctxviewer.engine.errors import SettingsError
from ctxviewer.engine.registry import DEFAULT_PROFILE, PROFILES, find
from ctxviewer.engine.tokens.counting import TOKENIZERS

DEFAULT = "default"

#: The budget range the reproduced system's config model accepts.
SYSTEM_BUDGET_RANGE = (500, 20_000)
#: The budget range ctxviewer accepts (wider, for what-if tuning).
BUDGET_RANGE = (1, 10_000_000)

#: The upstream versions the ``upstream`` setting names (see ctxviewer.engine.project.upstream).
UPSTREAM_VERSIONS: tuple[str, ...] = ("auto", "2026-01-30", "zerg-ai-0.3.2", "latest")
#: Where a worker's session runs: detected from the upstream version (its git worktree), the
#: project root, or the worktree whatever the version (see docs/worker-window.md).
WORKER_FOLDERS: tuple[str, ...] = ("auto", "root", "worktree")
#: Whether a worktree session loads a main-checkout memory file the worktree also holds
#: once (from the worktree) or twice (both paths, as early Claude Code 2.1 releases did).
MEMORY_DUPLICATES: tuple[str, ...] = ("once", "twice")
#: Which folder a task's spec is read from: its task graph's folder (what a user means), or the
#: folder the graph's own ``feature`` value names (what upstream's orchestrator passes the plugin).
SPEC_FEATURES: tuple[str, ...] = ("folder", "graph")
#: Settings that stand for environment variables of the process running an upstream plugin
#: (``ZERG_ANALYSIS_DEPTH`` ...); None is unset, as in the orchestrator's own process.
SWITCH_KEYS: tuple[str, ...] = ("analysis_depth", "behavioral_mode", "tdd_mode", "compact_mode", "worker_id")
#: Sources the drift profile can cut, as its priority list names them.
DRIFT_SOURCES: tuple[str, ...] = ("design", "requirements", "rules")

#: Seed 004's domain mapping table: a domain and the keywords that signal it.
DEFAULT_DOMAINS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("api", ("endpoint", "rest", "graphql", "route", "request")),
    ("auth", ("login", "token", "jwt", "session", "password")),
    ("database", ("query", "schema", "migration", "model", "record")),
    ("ui", ("component", "button", "form", "page", "style")),
    ("testing", ("test", "spec", "mock", "assert", "coverage")),
)

#: Every flat setting key (as ``--set`` and overrides take them).
FLAT_KEYS: tuple[str, ...] = (
    "profile",
    "upstream",
    "tokenizer",
    "budget",
    "security_share",
    "spec_share",
    "top_k",
    "threshold_percent",
    "max_context_tokens",
    "fallback_to_full",
    "security_rule_filtering",
    "command_splitting",
    "enabled",
    "zones",
    "replay_tool_calls",
    "replay_minutes",
    "drift_priority",
    "drift_partial",
    "drift_max_rule_files",
    "drift_max_rule_lines",
    "drift_max_paragraphs",
    "shaktiman_margin",
    "near_duplicate",
    "domains",
    "reserve_percent",
    "compaction_percent",
    "base_prompt",
    "base_prompt_tokens",
    "window_command",
    "worker_folder",
    "memory_duplicates",
    "system_prompt_tokens",
    "tool_tokens",
    "user_memory_tokens",
    "memory_share_percent",
    *SWITCH_KEYS,
    "spec_feature",
    "python_for_sources",
    "paths.specs",
    "paths.rules",
    "paths.commands",
    "paths.config",
    "paths.context_map",
    "paths.handoffs",
)


@dataclass(frozen=True)
class Paths:
    """Where the project keeps its inputs, relative to the project root."""

    specs: str = ".gsd/specs"
    rules: str = ".claude/rules/security"
    commands: str = ".claude/commands"
    config: str | None = None  # None: first of .mahabharatha/config.yaml, .zerg/config.yaml
    context_map: str = ".mahabharatha/context-map.yaml"
    handoffs: str = ".mahabharatha/handoffs"


@dataclass(frozen=True)
class Settings:
    """Everything a run depends on besides the project's files."""

    profile: str = DEFAULT_PROFILE
    #: The upstream version profile ``mahabharatha`` runs: one of UPSTREAM_VERSIONS.
    upstream: str = "auto"
    tokenizer: str = "heuristic"
    budget: int = 4000
    security_share: float = 0.30
    spec_share: float = 0.50
    top_k: int = 5
    threshold_percent: float = 70.0
    max_context_tokens: int = 200_000
    fallback_to_full: bool = True
    security_rule_filtering: bool = True
    command_splitting: bool = True
    enabled: bool = True
    #: Further tracker zones beyond the checkpoint, as (name, percent), e.g. a
    #: compaction threshold at 75% as the Zeph seed uses.  Sorted by percent.
    zones: tuple[tuple[str, float], ...] = ()
    #: Session replay: tool calls and minutes each task adds to the tracker.
    replay_tool_calls: int = 10
    replay_minutes: float = 5.0
    #: drift: the sources cut when over budget, least important first.
    drift_priority: tuple[str, ...] = DRIFT_SOURCES
    #: drift: cut paragraph by paragraph (seed 001's v2 note) instead of whole sources.
    drift_partial: bool = True
    #: drift: hard caps applied while extracting, before any trimming.
    drift_max_rule_files: int = 4
    drift_max_rule_lines: int = 40
    drift_max_paragraphs: int = 10
    #: shaktiman: fraction of the budget kept free as a safety margin.
    shaktiman_margin: float = 0.02
    #: ctxviewer: word-shingle similarity at or above which a paragraph is a near-duplicate.
    near_duplicate: float = 0.8
    #: computed: domain -> trigger keywords (seed 004's table by default).
    domains: tuple[tuple[str, tuple[str, ...]], ...] = DEFAULT_DOMAINS
    #: Window layout (seed 003): response reserve and compaction threshold, in percent
    #: of ``max_context_tokens``; the base prompt's file (or assumed size) and the
    #: worker's command file (relative to ``paths.commands``; None: found by name).
    reserve_percent: float = 20.0
    compaction_percent: float = 75.0
    base_prompt: str | None = None
    base_prompt_tokens: int = 300
    window_command: str | None = None
    #: The worker's session (docs/worker-window.md): where it runs (WORKER_FOLDERS), how a
    #: worktree session loads memory the main checkout also holds (MEMORY_DUPLICATES), the
    #: sizes of what ctxviewer cannot see (Claude Code's system prompt and tool definitions,
    #: user and managed memory outside the project), and the share of the model's window
    #: project memory may take before a finding says so.
    worker_folder: str = "auto"
    memory_duplicates: str = "once"
    system_prompt_tokens: int = 3_200
    tool_tokens: int = 11_600
    user_memory_tokens: int = 0
    memory_share_percent: float = 10.0
    #: Upstream switches (zerg-0.3.2): the values of ZERG_ANALYSIS_DEPTH, _BEHAVIORAL_MODE,
    #: _TDD_MODE, _COMPACT_MODE and _WORKER_ID; None is unset.
    analysis_depth: str | None = None
    behavioral_mode: str | None = None
    tdd_mode: str | None = None
    compact_mode: str | None = None
    worker_id: str | None = None
    #: ``folder``: a task's spec is read from its task graph's folder; ``graph``: from the folder
    #: its graph's ``feature`` value names, as upstream's orchestrator passes it (SPEC_FEATURES).
    spec_feature: str = "folder"
    #: The Python >= 3.12 that parses the repository map's sources where ctxviewer's own is older
    #: (a program on PATH or a path); ``auto`` finds one (docs/profiles.md#python-sources-and-the-grammar).
    python_for_sources: str = "auto"
    paths: Paths = field(default_factory=Paths)
    origins: Mapping[str, str] = field(default_factory=dict)

    def origin(self, key: str) -> str:
        return self.origins.get(key, DEFAULT)

    @property
    def section_budgets(self) -> dict[str, int]:
        """Per-section budgets, computed as the reproduced system does: ``int(budget * share)``."""
        return {
            "security_rules": int(self.budget * self.security_share),
            "spec_excerpts": int(self.budget * self.spec_share),
        }

    @property
    def buffer(self) -> int:
        return self.budget - sum(self.section_budgets.values())

    def as_table(self) -> dict[str, tuple[Any, str]]:
        """Every setting with its origin, for the trace and the GUI; ``python_for_sources`` only
        where set, since it names a program on this machine, not a choice of the run."""
        keys = [k for k in FLAT_KEYS if not k.startswith("paths.")]
        if self.origin("python_for_sources") == DEFAULT:
            keys.remove("python_for_sources")
        table = {k: (getattr(self, k), self.origin(k)) for k in keys}
        table["zones"] = (dict(self.zones), self.origin("zones"))
        table["domains"] = ({d: list(t) for d, t in self.domains}, self.origin("domains"))
        for k in ("specs", "rules", "commands", "config", "context_map", "handoffs"):
            table[f"paths.{k}"] = (getattr(self.paths, k), self.origin(f"paths.{k}"))
        return table

    @property
    def all_zones(self) -> tuple[tuple[str, float], ...]:
        """The checkpoint threshold and the further zones, sorted by percent."""
        return tuple(sorted((("checkpoint", self.threshold_percent), *self.zones), key=lambda z: z[1]))

    def with_overrides(self, overrides: Mapping[str, Any], origin: str) -> Settings:
        """A copy with *overrides* (keys as in :meth:`as_table`) applied and validated."""
        return apply_flat(self, overrides, origin)


def show_setting(value: Any) -> str:
    """A setting's value as people read it: ``4,000``, ``0.3``, ``compaction 75%``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, Mapping):
        value = tuple(value.items())
    if isinstance(value, (tuple, list)) and value and all(isinstance(v, str) for v in value):
        return ", ".join(value)
    if isinstance(value, tuple) and all(isinstance(z, tuple) and len(z) == 2 for z in value):
        return ", ".join(f"{n} {p:g}%" for n, p in value) or "none"
    return str(value)


@dataclass(frozen=True, slots=True)
class SettingChange:
    """One setting whose value differs between two runs (or a save changes)."""

    key: str
    before: Any
    after: Any

    def describe(self) -> str:
        return f"{self.key}: {show_setting(self.before)} \u2192 {show_setting(self.after)}"


# -- validation --------------------------------------------------------------------


def _fail(origin: str | None, key: str, message: str) -> SettingsError:
    return SettingsError(f"{key}: {message}", origin)


def _as_int(origin: str | None, key: str, value: Any, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        else:
            raise _fail(origin, key, f"must be a whole number, not {value!r}")
    if not lo <= value <= hi:
        raise _fail(origin, key, f"must be between {lo:,} and {hi:,}, not {value:,}")
    return int(value)


#: A token count as people write it: ``4000``, ``4,000`` or ``4_000`` (separators in groups of
#: three), ``4k``, ``1.5k`` (k is 1,000).
_TOKEN_COUNT = re.compile(r"([+-]?)(\d{1,3}(?:,\d{3})+|\d{1,3}(?:_\d{3})+|\d+)(?:\.(\d+))?(k?)", re.IGNORECASE)
TOKEN_COUNT_FORMS = "4000, 4,000 or 4k"


def _as_tokens(origin: str | None, key: str, value: Any, lo: int, hi: int) -> int:
    """A whole number of tokens; text may be written ``4,000`` or ``4k`` (k = 1,000, not 1,024)."""
    if isinstance(value, str):
        value = _token_count(origin, key, value)
    return _as_int(origin, key, value, lo, hi)


def _token_count(origin: str | None, key: str, text: str) -> int:
    match = _TOKEN_COUNT.fullmatch(text.strip()) if len(text) <= 64 else None
    if match is None:
        raise _fail(origin, key, f"must be a whole number of tokens ({TOKEN_COUNT_FORMS}), not {text.strip()!r}")
    sign, whole, fraction, kilo = match.groups()
    digits = whole.replace(",", "").replace("_", "") + (f".{fraction}" if fraction else "")
    value = Decimal(digits) * (1000 if kilo else 1)
    if value != value.to_integral_value():
        raise _fail(origin, key, f"{text.strip()!r} is {value.normalize():,} tokens, not a whole number")
    return -int(value) if sign == "-" else int(value)


def parse_budget(text: str, key: str = "budget", origin: str | None = None) -> int:
    """A budget typed on the command line (``4000``, ``4,000``, ``4k``), checked against :data:`BUDGET_RANGE`.

    *key* names it in the message (``--budget``).  Raises :class:`SettingsError` with a
    one-line message for anything else (``4kk``, ``-4k``, ``0``, ``nan``, ``1.2345k``).
    """
    return _as_tokens(origin, key, text, *BUDGET_RANGE)


def _as_float(origin: str, key: str, value: Any, lo: float, hi: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise _fail(origin, key, f"must be a number, not {value!r}")
    if not lo <= value <= hi:
        raise _fail(origin, key, f"must be between {lo:g} and {hi:g}, not {value:g}")
    return float(value)


def _as_bool(origin: str, key: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise _fail(origin, key, f"must be true or false, not {value!r}")
    return value


def _as_choice(origin: str, key: str, value: Any, choices: tuple[str, ...]) -> str:
    if value not in choices:
        raise _fail(origin, key, f"must be one of {', '.join(choices)}, not {value!r}")
    return str(value)


def _as_relpath(origin: str, key: str, value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise _fail(origin, key, f"must be a path inside the project, not {value!r}")
    return value.strip().rstrip("/") or "."


def _as_switch(origin: str, key: str, value: Any) -> str | None:
    """An environment variable's value: text, or None (or an empty mapping value) for unset."""
    if value is None:
        return None
    if isinstance(value, bool):  # YAML reads an unquoted true/false as a boolean
        return "true" if value else "false"
    if not isinstance(value, (str, int)):
        raise _fail(origin, key, f"must be the variable's text (or null for unset), not {value!r}")
    text = str(value)
    if "\x00" in text or len(text) > 200:
        raise _fail(origin, key, "must be a short text without NUL characters")
    return text


def _as_program(origin: str, key: str, value: Any) -> str:
    """``auto``, or a program: a name found on PATH (``python3.12``) or a path to it."""
    if not isinstance(value, str) or not value.strip() or len(value) > 4096 or any(c in value for c in "\0\n\r"):
        raise _fail(origin, key, f"must be auto, or a Python program's name or path, not {value!r}")
    return value.strip()


def _as_zones(origin: str, key: str, value: Any) -> tuple[tuple[str, float], ...]:
    if isinstance(value, Mapping):
        pairs = list(value.items())
    elif isinstance(value, (list, tuple)) and all(isinstance(p, (list, tuple)) and len(p) == 2 for p in value):
        pairs = [(p[0], p[1]) for p in value]
    else:
        raise _fail(origin, key, f"must be a mapping of zone name to percent, not {value!r}")
    out: dict[str, float] = {}
    for name, percent in pairs:
        if not isinstance(name, str) or not name.strip() or len(name) > 40:
            raise _fail(origin, key, f"zone names must be short text, not {name!r}")
        if name.strip() == "checkpoint":
            raise _fail(origin, key, "'checkpoint' is threshold_percent; name further zones differently")
        value_ok = _as_float(origin, f"{key}.{name}", percent, 0.0, 100.0)
        if value_ok <= 0:
            raise _fail(origin, f"{key}.{name}", "must be above 0")
        out[name.strip()] = value_ok
    return tuple(sorted(out.items(), key=lambda z: (z[1], z[0])))


def _as_domains(origin: str, key: str, value: Any) -> tuple[tuple[str, tuple[str, ...]], ...]:
    if not isinstance(value, Mapping):
        raise _fail(origin, key, f"must be a mapping of domain to trigger words, not {value!r}")
    out: list[tuple[str, tuple[str, ...]]] = []
    for name, triggers in value.items():
        if not isinstance(name, str) or not name.strip() or len(name) > 40:
            raise _fail(origin, key, f"domain names must be short text, not {name!r}")
        if isinstance(triggers, str):
            triggers = [t.strip() for t in triggers.split(",") if t.strip()]
        if not isinstance(triggers, (list, tuple)) or not all(isinstance(t, str) and t.strip() for t in triggers):
            raise _fail(origin, f"{key}.{name}", f"must be a list of words, not {triggers!r}")
        out.append((name.strip(), tuple(t.strip().lower() for t in triggers)))
    return tuple(out)


def _as_priority(origin: str, key: str, value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [v.strip() for v in value.split(",") if v.strip()]
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise _fail(origin, key, f"must be a list of sources ({', '.join(DRIFT_SOURCES)}), not {value!r}")
    for v in value:
        if v not in DRIFT_SOURCES:
            raise _fail(origin, key, f"{v!r} is not a source; choose from {', '.join(DRIFT_SOURCES)}")
    twice = sorted({v for v in value if value.count(v) > 1})
    if twice:
        raise _fail(origin, key, f"names {', '.join(twice)} more than once")
    return tuple(value)


def accepted_budgets(profile: str) -> tuple[int, int]:
    """The budgets ctxviewer accepts for *profile*: its own narrower range (shaktiman's), else :data:`BUDGET_RANGE`."""
    found = find(profile)
    return BUDGET_RANGE if found is None or found.budgets is None else found.budgets


def check_profile_budget(settings: Settings, origin: str) -> None:
    """Refuse a budget the chosen profile does not take (shaktiman: 256-32,768)."""
    found = find(settings.profile)
    if found is None or found.budgets is None:
        return
    lo, hi = found.budgets
    if not lo <= settings.budget <= hi:
        where = ""
        if settings.origin("budget") != settings.origin("profile"):
            where = f" (budget from {settings.origin('budget')}, profile from {settings.origin('profile')})"
        raise SettingsError(
            f"budget: the {found.name} profile takes a budget of {lo:,}-{hi:,} tokens, not {settings.budget:,}{where}; "
            "change the budget or choose another profile",
            origin,
        )


def apply_flat(settings: Settings, values: Mapping[str, Any], origin: str, *, check: bool = True) -> Settings:
    """Apply flat ``key: value`` settings (keys as in :meth:`Settings.as_table`).

    With *check* false the profile/budget combination is left for the caller to check once
    every layer is applied (a file's ``profile: shaktiman`` with a budget a later layer fixes).
    """
    changes: dict[str, Any] = {}
    paths_changes: dict[str, Any] = {}
    origins = dict(settings.origins)
    for key, value in values.items():
        if key == "profile":
            changes[key] = _as_choice(origin, key, value, PROFILES)
        elif key == "upstream":
            if isinstance(value, (date, datetime)):  # YAML reads an unquoted 2026-01-30 as a date
                value = value.isoformat()[:10]
            changes[key] = _as_choice(origin, key, value, UPSTREAM_VERSIONS)
        elif key == "tokenizer":
            changes[key] = _as_choice(origin, key, value, TOKENIZERS)
        elif key == "budget":
            changes[key] = _as_tokens(origin, key, value, *BUDGET_RANGE)
        elif key in ("security_share", "spec_share"):
            changes[key] = _as_float(origin, key, value, 0.0, 1.0)
        elif key == "top_k":
            changes[key] = _as_int(origin, key, value, 1, 10_000)
        elif key == "threshold_percent":
            changes[key] = _as_float(origin, key, value, 0.0, 100.0)
            if changes[key] <= 0:
                raise _fail(origin, key, "must be above 0")
        elif key == "max_context_tokens":
            changes[key] = _as_tokens(origin, key, value, 1_000, 100_000_000)
        elif key in ("fallback_to_full", "security_rule_filtering", "command_splitting", "enabled"):
            changes[key] = _as_bool(origin, key, value)
        elif key == "zones":
            changes[key] = _as_zones(origin, key, value)
        elif key == "replay_tool_calls":
            changes[key] = _as_int(origin, key, value, 0, 10_000)
        elif key == "replay_minutes":
            changes[key] = _as_float(origin, key, value, 0.0, 10_000.0)
        elif key == "drift_priority":
            changes[key] = _as_priority(origin, key, value)
        elif key == "drift_partial":
            changes[key] = _as_bool(origin, key, value)
        elif key in ("drift_max_rule_files", "drift_max_rule_lines", "drift_max_paragraphs"):
            changes[key] = _as_int(origin, key, value, 0, 100_000)
        elif key == "shaktiman_margin":
            changes[key] = _as_float(origin, key, value, 0.0, 0.5)
        elif key == "near_duplicate":
            changes[key] = _as_float(origin, key, value, 0.05, 1.0)
        elif key == "domains":
            changes[key] = _as_domains(origin, key, value)
        elif key in ("reserve_percent", "compaction_percent"):
            changes[key] = _as_float(origin, key, value, 0.0, 100.0 if key == "compaction_percent" else 90.0)
            if key == "compaction_percent" and changes[key] <= 0:
                raise _fail(origin, key, "must be above 0")
        elif key in ("base_prompt", "window_command"):
            changes[key] = None if value is None else _as_relpath(origin, key, value)
        elif key in ("base_prompt_tokens", "system_prompt_tokens", "tool_tokens", "user_memory_tokens"):
            changes[key] = _as_int(origin, key, value, 0, 10_000_000)
        elif key == "worker_folder":
            changes[key] = _as_choice(origin, key, value, WORKER_FOLDERS)
        elif key == "memory_duplicates":
            changes[key] = _as_choice(origin, key, value, MEMORY_DUPLICATES)
        elif key == "memory_share_percent":
            changes[key] = _as_float(origin, key, value, 0.0, 100.0)
        elif key in SWITCH_KEYS:
            changes[key] = _as_switch(origin, key, value)
        elif key == "spec_feature":
            changes[key] = _as_choice(origin, key, value, SPEC_FEATURES)
        elif key == "python_for_sources":
            changes[key] = _as_program(origin, key, value)
        elif key.startswith("paths.") and key in FLAT_KEYS:
            paths_changes[key.split(".", 1)[1]] = _as_relpath(origin, key, value)
        else:
            raise _fail(origin, key, "unknown setting" + _did_you_mean(key, FLAT_KEYS))
        origins[key] = origin
    new = replace(settings, **changes, origins=origins)
    if paths_changes:
        new = replace(new, paths=replace(new.paths, **paths_changes))
    if check and ("profile" in values or "budget" in values):
        check_profile_budget(new, origin)
    if new.security_share + new.spec_share > 1.0 + 1e-9:
        raise SettingsError(
            f"section shares add up to {100 * (new.security_share + new.spec_share):.0f}%, more than the whole budget",
            origin,
        )
    return new


# -- file formats ------------------------------------------------------------------


def _dig(data: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(data, Mapping):
            return None
        data = data.get(key)
    return data


def flatten_system_config(data: Any, origin: str) -> dict[str, Any]:
    """The settings a ``.mahabharatha/config.yaml`` / ``.zerg/config.yaml`` provides.

    Only the keys the context pipeline reads are taken; the rest of the file is the
    system's business.  The budget is checked against the system's own accepted range.
    """
    if data is None:
        return {}
    if not isinstance(data, Mapping):
        raise SettingsError("the top level must be a mapping", origin)
    out: dict[str, Any] = {}
    threshold = _dig(data, "workers", "context_threshold_percent")
    if threshold is not None:
        out["threshold_percent"] = threshold
    ce = _dig(data, "plugins", "context_engineering")
    if ce is not None and not isinstance(ce, Mapping):
        raise SettingsError("plugins.context_engineering must be a mapping", origin)
    if isinstance(ce, Mapping):
        if "task_context_budget_tokens" in ce:
            budget = _as_int(
                origin,
                "plugins.context_engineering.task_context_budget_tokens",
                ce["task_context_budget_tokens"],
                *SYSTEM_BUDGET_RANGE,
            )
            out["budget"] = budget
        for key in ("fallback_to_full", "security_rule_filtering", "command_splitting", "enabled"):
            if key in ce:
                out[key] = _as_bool(origin, f"plugins.context_engineering.{key}", ce[key])
    return out


#: ctxviewer.yaml keys (nested form) and the flat setting each maps to.
CTXVIEWER_YAML_KEYS: dict[tuple[str, ...], str] = {
    ("profile",): "profile",
    ("tokenizer",): "tokenizer",
    ("budget", "total"): "budget",
    ("budget", "shares", "security_rules"): "security_share",
    ("budget", "shares", "spec_excerpts"): "spec_share",
    ("top_k",): "top_k",
    ("threshold_percent",): "threshold_percent",
    ("max_context_tokens",): "max_context_tokens",
    ("fallback_to_full",): "fallback_to_full",
    ("security_rule_filtering",): "security_rule_filtering",
    ("command_splitting",): "command_splitting",
    ("zones",): "zones",
    ("replay", "tool_calls_per_task"): "replay_tool_calls",
    ("replay", "minutes_per_task"): "replay_minutes",
    ("drift", "priority"): "drift_priority",
    ("drift", "partial"): "drift_partial",
    ("drift", "caps", "rule_files"): "drift_max_rule_files",
    ("drift", "caps", "rule_lines"): "drift_max_rule_lines",
    ("drift", "caps", "paragraphs"): "drift_max_paragraphs",
    ("shaktiman", "safety_margin"): "shaktiman_margin",
    ("ctxviewer", "near_duplicate"): "near_duplicate",
    ("paths", "specs"): "paths.specs",
    ("paths", "rules"): "paths.rules",
    ("paths", "commands"): "paths.commands",
    ("paths", "config"): "paths.config",
    ("paths", "context_map"): "paths.context_map",
    ("paths", "handoffs"): "paths.handoffs",
    ("computed", "domains"): "domains",
    ("window", "reserve_percent"): "reserve_percent",
    ("window", "compaction_percent"): "compaction_percent",
    ("window", "base_prompt"): "base_prompt",
    ("window", "base_prompt_tokens"): "base_prompt_tokens",
    ("window", "command"): "window_command",
    ("worker", "folder"): "worker_folder",
    ("worker", "memory_duplicates"): "memory_duplicates",
    ("worker", "system_prompt_tokens"): "system_prompt_tokens",
    ("worker", "tool_tokens"): "tool_tokens",
    ("worker", "user_memory_tokens"): "user_memory_tokens",
    ("worker", "memory_share_percent"): "memory_share_percent",
    **{("upstream", key): key for key in SWITCH_KEYS},
    ("upstream", "version"): "upstream",
    ("upstream",): "upstream",  # upstream: latest, or a mapping with version and the switches
    ("spec_feature",): "spec_feature",
    ("python_for_sources",): "python_for_sources",
}


#: The nested keys that hold further keys (``budget`` holds ``total`` and ``shares``).
_YAML_PREFIXES = {k[:n] for k in CTXVIEWER_YAML_KEYS for n in range(1, len(k))}


def _children(prefix: tuple[str, ...]) -> str:
    names = sorted({k[len(prefix)] for k in CTXVIEWER_YAML_KEYS if k[: len(prefix)] == prefix})
    return ", ".join(names) + f" (e.g. {prefix[-1]}: {{{names[0]}: ...}})"


def _did_you_mean(key: str, known: list[str] | tuple[str, ...]) -> str:
    import difflib

    close = difflib.get_close_matches(key.lower(), known, n=2, cutoff=0.6)
    if close:
        return f"; did you mean {' or '.join(close)}?"
    return f"; known settings: {', '.join(known)}"


def flatten_ctxviewer_yaml(data: Any, origin: str) -> dict[str, Any]:
    """Flat settings from a parsed ``ctxviewer.yaml``; unknown keys are errors."""
    if data is None:
        return {}
    if not isinstance(data, Mapping):
        raise SettingsError("the top level must be a mapping of settings", origin)
    out: dict[str, Any] = {}

    def walk(node: Mapping[Any, Any], prefix: tuple[str, ...]) -> None:
        for key, value in node.items():
            path = (*prefix, str(key))
            if path in CTXVIEWER_YAML_KEYS and not (isinstance(value, Mapping) and path in _YAML_PREFIXES):
                out[CTXVIEWER_YAML_KEYS[path]] = value
            elif isinstance(value, Mapping) and any(k[: len(path)] == path for k in CTXVIEWER_YAML_KEYS):
                walk(value, path)
            else:
                dotted = ".".join(path)
                known = [".".join(k) for k in CTXVIEWER_YAML_KEYS]
                if path in _YAML_PREFIXES:
                    raise SettingsError(f"{dotted}: write it as a mapping of {_children(path)}", origin)
                raise SettingsError(f"{dotted}: unknown setting" + _did_you_mean(dotted, known), origin)

    walk(data, ())
    return out
