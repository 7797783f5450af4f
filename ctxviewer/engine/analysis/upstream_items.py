"""The nine-section versions' own candidates, explained in words for the window and the report.

``zerg-0.3.2`` and ``mahabharatha-latest`` (:mod:`ctxviewer.engine.profiles.zerg`) record,
besides the spec paragraphs and security rule files every upstream version has, an item
for each engineering rule, MCP server, switch and repository-map module and symbol, and a
trim step for each cut and each abbreviation of compact mode.  This module turns them
into plain rows: a short label (:func:`item_label`), labelled facts (:func:`item_facts`),
the compact formatter's replacements (:func:`replacements`) and where the character
limits fell (:func:`cuts`).  Plain text only: the window and the HTML report escape it.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ctxviewer.engine.profiles.zerg.profile import SECTIONS
from ctxviewer.engine.trace.model import Item, Trace

ENGINEERING_RULE = "engineering_rule"
MCP_SERVER = "mcp_server"
SWITCH = "switch"
REPO_MODULE = "repo_module"
REPO_SYMBOL = "repo_symbol"
#: The kinds of candidate only the nine-section versions have, in the order they are listed.
NINE_KINDS: tuple[str, ...] = (ENGINEERING_RULE, MCP_SERVER, SWITCH, REPO_MODULE, REPO_SYMBOL)
#: Section names to their titles, in assembly order.
SECTION_TITLES: Mapping[str, str] = {name: title for name, title, _ in SECTIONS}
#: Section names to their fixed shares of the budget (None: upstream gives the section none).
SECTION_SHARES: Mapping[str, float | None] = {name: share for name, _, share in SECTIONS}
KIND_WORDS: Mapping[str, str] = {
    ENGINEERING_RULE: "engineering rule",
    MCP_SERVER: "MCP server",
    SWITCH: "switch",
    REPO_MODULE: "module",
    REPO_SYMBOL: "symbol",
}
KIND_PLURALS: Mapping[str, str] = {k: ("switches" if k == SWITCH else w + "s") for k, w in KIND_WORDS.items()}

_RULE_LINE = re.compile(r"^- \*\*\[([A-Z]+)\]\*\* ")
_RULE_ID = re.compile(r"^rule (.+?): ")
_VARIABLE = re.compile(r"environment variable ([A-Z_]+)\)")


def nine_items(trace: Trace) -> list[Item]:
    """The trace's nine-section candidates, by section in assembly order, then as recorded."""
    order = {name: n for n, name in enumerate(SECTION_TITLES)}
    items = [i for i in trace.items if i.kind in NINE_KINDS]
    positions = {id(i): n for n, i in enumerate(items)}
    return sorted(items, key=lambda i: (order.get(i.section, len(order)), positions[id(i)]))


def section_title(item: Item) -> str:
    return SECTION_TITLES.get(item.section, item.section.replace("_", " "))


def variable_of(item: Item) -> str:
    """The environment variable a switch item stands for ('' when it names none)."""
    match = _VARIABLE.search(item.source)
    return match.group(1) if match else ""


def _before(item: Item) -> str:
    value = item.details.get("before_compact")
    return value if isinstance(value, str) else item.text


def item_label(item: Item) -> str:
    """What the candidate is, in a few words: the rule's title, the server, the variable, the module, the symbol."""
    text = _before(item).strip()
    if item.kind == ENGINEERING_RULE:
        rule = _RULE_ID.match(item.reason)
        title = _RULE_LINE.sub("", text).split(": ", 1)[0] if text else ""  # the title, without the description
        name = rule.group(1).strip("'\"") if rule else item.id.rsplit("#", 1)[-1]
        return f"{name}: {title}" if title else name
    if item.kind == MCP_SERVER:
        return item.source
    if item.kind == SWITCH:
        return variable_of(item) or item.source
    if item.kind == REPO_MODULE:
        return item.id.removeprefix("map:")
    if item.kind == REPO_SYMBOL:
        entry = text.removeprefix("- ").strip("`")
        return entry or item.id.rsplit(":", 1)[-1]
    return text.splitlines()[0] if text else item.id


def _words(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return ", ".join(str(v) for v in value) or "none"
    return str(value)


def item_facts(item: Item) -> list[tuple[str, str]]:
    """The candidate's facts as (label, text) rows, its fate and reason excluded."""
    d = item.details
    facts: list[tuple[str, str]] = [("Section", section_title(item))]
    if item.kind == ENGINEERING_RULE:
        facts.append(("Rule file", item.source))
        if "priority" in d:
            facts.append(("Priority", str(d["priority"])))
        if "applies_to" in d:
            facts.append(("Applies to (globs)", str(d["applies_to"])))
        if item.rank is not None:
            facts.append(("Place after sorting by priority", str(item.rank)))
    elif item.kind == MCP_SERVER:
        if "capabilities" in d:
            facts.append(("Capabilities", _words(d["capabilities"])))
        if item.matched_keywords:
            facts.append(("Shares with the task", _words(item.matched_keywords)))
        asked = d.get("asked")
        if isinstance(asked, list) and asked:
            for entry in asked:
                if isinstance(entry, Mapping):
                    facts.append(("Asked for by", f"{entry.get('by')}: {_words(entry.get('capabilities', ()))}"))
    elif item.kind == SWITCH:
        facts.append(("Variable", variable_of(item) or "?"))
        facts.append(("Setting", item.source.split(" (", 1)[0].removeprefix("setting ")))
    elif item.kind in (REPO_MODULE, REPO_SYMBOL):
        where = item.source + (f", line {item.line_start}" if item.line_start is not None else "")
        facts.append(("File", where))
        if item.matched_keywords:
            facts.append(("Matched by (substrings)", _words(item.matched_keywords)))
    for key, value in d.items():
        if key in ("priority", "applies_to", "capabilities", "asked", "before_compact"):
            continue
        facts.append((key.replace("_", " ").capitalize(), _words(value)))
    before = d.get("before_compact")
    if isinstance(before, str) and before != item.text:
        facts.append(("Before compact mode", before))
        facts.append(("After compact mode", item.text))
    return facts


@dataclass(frozen=True)
class Replacement:
    """One abbreviation of compact mode in one section."""

    order: int
    section: str
    full: str
    short: str
    count: int
    tokens_before: int
    tokens_after: int


_ABBREVIATION = re.compile(r"^compact mode: (['\"])(.*?)\1 \u2192 (['\"])(.*?)\3, (\d+) time")


def replacements(trace: Trace) -> list[Replacement]:
    """The compact formatter's replacements, in order, each with its section and the counts before and after."""
    out = []
    for step in trace.trim_steps:
        if step.action != "abbreviate":
            continue
        match = _ABBREVIATION.match(step.description)
        full, short, count = (match.group(2), match.group(4), int(match.group(5))) if match else (step.target, "?", 0)
        out.append(
            Replacement(
                step.order,
                SECTION_TITLES.get(step.section, step.section),
                full,
                short,
                count,
                step.tokens_before,
                step.tokens_after,
            )
        )
    return out


def compacted_items(trace: Trace) -> list[Item]:
    """The candidates whose text compact mode changed (each keeps its text before, in its details)."""
    return [
        i
        for i in trace.items
        if isinstance(i.details.get("before_compact"), str) and i.details["before_compact"] != i.text
    ]


def changed_lines(item: Item) -> list[str]:
    """The lines compact mode changed in *item*'s text: ``- before`` then ``+ after`` for each."""
    before = item.details.get("before_compact")
    if not isinstance(before, str):
        return []
    return [
        line for line in difflib.ndiff(before.splitlines(), item.text.splitlines()) if line.startswith(("- ", "+ "))
    ]


def cuts(trace: Trace) -> list[str]:
    """Where the character limits of the engineering rules and the repository map fell, in words."""
    return [
        f"{SECTION_TITLES.get(s.section, s.section)}: {s.description}"
        for s in trace.trim_steps
        if s.action in ("omit_rules", "cut_map")
    ]


def is_nine_section(trace: Trace) -> bool:
    """Whether *trace* is a nine-section version's (its sections are upstream's nine)."""
    return [s.name for s in trace.sections] == list(SECTION_TITLES)


def switch_lines(trace: Trace) -> list[str]:
    """Which variable made (or did not make) each switch section.

    ``Analysis depth: ZERG_ANALYSIS_DEPTH is 'think': builds this section``, one line each.
    """
    return [f"{section_title(i)}: {i.reason}" for i in trace.items if i.kind == SWITCH]


def counts_line(items: Sequence[Item]) -> str:
    """``7 engineering rules (5 included) · 6 MCP servers (1 included) · ...``."""
    parts = []
    for kind in NINE_KINDS:
        same = [i for i in items if i.kind == kind]
        if same:
            kept = sum(1 for i in same if i.status in ("included", "truncated"))
            word = KIND_WORDS[kind] if len(same) == 1 else KIND_PLURALS[kind]
            parts.append(f"{len(same)} {word} ({kept} included)")
    return " \u00b7 ".join(parts)
