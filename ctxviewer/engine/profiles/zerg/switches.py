"""The sections zerg-ai 0.3.2 builds from environment variables alone, and its MCP routing.

Each setting stands for one variable of the process that runs the plugin (``ZERG_*`` in
0.3.2, ``MAHABHARATHA_*`` on the repository's main); unset (None) is the orchestrator's
own environment.  What each value builds, and how servers are chosen, is in
docs/profiles.md#zerg-032 (*Switches and MCP routing*).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

DEPTH_BUDGETS = {"quick": 1000, "think": 4000, "think_hard": 10000, "ultrathink": 32000}
DEPTH_HINTS = {
    "quick": "Surface-level analysis. Focus on obvious issues only. Be concise.",
    "think": "Structured analysis. Consider component interactions. ~4K token budget.",
    "think_hard": "Deep architectural analysis. Trace dependencies across modules. ~10K token budget.",
    "ultrathink": "Maximum depth analysis. Full system-wide impact assessment. ~32K token budget.",
}
MODES = {
    "speed": "Prioritize fast delivery. Minimal validation. Skip non-essential checks.",
    "exploration": "Explore alternatives. Consider multiple approaches before implementing.",
    "refactor": "Focus on code quality. Improve structure, naming, and patterns.",
    "debug": "Systematic debugging. Trace root causes. Add diagnostic logging.",
}
TDD_TEXT = (
    "## TDD Enforcement\n\n"
    "Follow RED \u2192 GREEN \u2192 REFACTOR workflow strictly:\n"
    "1. **RED**: Write a failing test first that captures the requirement\n"
    "2. **GREEN**: Write minimal code to make the test pass\n"
    "3. **REFACTOR**: Clean up while keeping tests green\n\n"
    "Do NOT write implementation code before tests exist."
)
EFFICIENCY_TEXT = (
    "## Token Efficiency\n\n"
    "Compact mode is active. Minimize token usage:\n"
    "- Use concise variable names in explanations\n"
    "- Skip verbose comments on obvious code\n"
    "- Prefer bullet points over paragraphs\n"
    "- Omit redundant type annotations in documentation"
)


def depth_section(value: str | None) -> str:
    if not value or value == "standard":
        return ""
    budget = DEPTH_BUDGETS.get(value, 2000)
    hint = DEPTH_HINTS.get(value, "Standard analysis depth.")
    return f"## Analysis Depth: {value}\n\nToken budget: {budget}\n{hint}"


def mode_section(value: str | None) -> str:
    if not value or value not in MODES:
        return ""
    return f"## Behavioral Mode: {value}\n\n{MODES[value]}"


def tdd_section(value: str | None) -> str:
    return TDD_TEXT if value == "1" else ""


def efficiency_section(value: str | None) -> str:
    return EFFICIENCY_TEXT if value == "1" else ""


def compact_active(value: str | None) -> bool:
    return value in ("1", "true")


# -- MCP routing ------------------------------------------------------------------------------

MCP_HEADER = "## MCP Servers (task-scoped)\n\nRecommended: "
#: The servers in upstream's order, each with its capabilities and cost weight.
SERVERS: tuple[tuple[str, tuple[str, ...], float], ...] = (
    ("sequential", ("analysis", "debugging", "architecture", "planning"), 1.0),
    ("context7", ("documentation", "library-lookup", "framework-patterns"), 0.5),
    ("playwright", ("browser-testing", "e2e", "visual-testing", "accessibility"), 2.0),
    ("morphllm", ("bulk-edit", "pattern-transform", "style-enforcement"), 1.5),
    ("magic", ("ui-component", "design-system", "frontend"), 1.5),
    ("serena", ("symbol-ops", "project-memory", "lsp", "large-codebase"), 1.0),
)
KEYWORD_CAPABILITIES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("test", ("browser-testing", "e2e")),
    ("debug", ("analysis", "debugging")),
    ("refactor", ("bulk-edit", "pattern-transform", "symbol-ops")),
    ("analyze", ("analysis", "architecture")),
    ("document", ("documentation", "library-lookup")),
    ("ui", ("ui-component", "design-system", "frontend")),
    ("design", ("architecture", "planning")),
    ("review", ("analysis", "architecture")),
    ("security", ("analysis",)),
)
UI_SUFFIXES = (".tsx", ".jsx", ".css", ".html")
TIER_SERVERS = {
    "quick": (),
    "standard": (),
    "think": ("sequential",),
    "think-hard": ("sequential", "context7"),
    "ultrathink": ("sequential", "context7", "playwright", "morphllm"),
}
MAX_SERVERS = 3


@dataclass
class ServerOutcome:
    name: str
    overlap: int
    shared: tuple[str, ...]
    kept: bool
    why: str


@dataclass
class Routing:
    text: str = ""
    asked: list[tuple[str, tuple[str, ...]]] = field(default_factory=list)  # (what asked, capabilities)
    servers: list[ServerOutcome] = field(default_factory=list)


def route(description: object, suffixes: Sequence[str], depth: str | None) -> Routing:
    """The MCP section and why each server is in or out; raises where upstream's router raises."""
    routing = Routing()
    needed: set[str] = set()
    if description:
        if not isinstance(description, str):
            raise TypeError(f"the description is {type(description).__name__}, not text")
        lowered = description.lower()
        for word, caps in KEYWORD_CAPABILITIES:
            if word in lowered:
                needed.update(caps)
                routing.asked.append((f"'{word}' in the description", caps))
    for suffix in suffixes:
        if suffix in UI_SUFFIXES:
            needed.update(("ui-component", "frontend"))
            routing.asked.append((f"a {suffix} file", ("ui-component", "frontend")))
    if depth:
        for server in TIER_SERVERS.get(depth, ()):
            caps = next(c for n, c, _ in SERVERS if n == server)
            needed.update(caps)
            routing.asked.append((f"analysis depth {depth} (recommends {server})", caps))
    scored = []
    for name, caps, weight in SERVERS:
        shared = tuple(c for c in caps if c in needed)
        if shared:
            scored.append((name, caps, weight, shared))
    scored.sort(key=lambda s: len(s[3]), reverse=True)
    matched = scored
    cost_cut = len(matched) > MAX_SERVERS
    if cost_cut:
        matched = sorted(matched, key=lambda s: len(s[1]) / s[2], reverse=True)[:MAX_SERVERS]
    kept = {s[0] for s in matched[:MAX_SERVERS]}
    for rank, (name, caps, weight, shared) in enumerate(scored, start=1):
        what = f"shares {len(shared)} capabilit{'y' if len(shared) == 1 else 'ies'} ({', '.join(shared)})"
        if name in kept:
            place = [s[0] for s in matched].index(name) + 1
            why = f"{what}; recommended #{place}"
            if cost_cut:
                why += f" after the cost cut ({len(caps)} capabilities / cost {weight:g})"
        else:
            why = (
                f"{what}, rank {rank} by overlap; only the top {MAX_SERVERS} are kept: more servers matched and "
                f"its {len(caps)} capabilities / cost {weight:g} = {len(caps) / weight:.2f} ranks below the kept three"
            )
        routing.servers.append(ServerOutcome(name, len(shared), shared, name in kept, why))
    if matched:
        routing.text = MCP_HEADER + ", ".join(s[0] for s in matched[:MAX_SERVERS])
    return routing
