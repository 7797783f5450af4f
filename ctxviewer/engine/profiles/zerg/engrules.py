"""Engineering rules (``<state folder>/rules/*.yaml``) as zerg-ai 0.3.2 picks and summarizes them.

Loading, choosing and the summary's character limit, rule by rule, are in
docs/profiles.md#zerg-032 (*Engineering rules*); each rule file is parsed once per text
(docs/architecture.md#what-is-parsed-once).
"""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

import yaml

from ctxviewer.engine.files.reading import Problem, ProjectFS
from ctxviewer.engine.signals.spec import LRU

HEADER = "## Engineering Rules (task-scoped)\n\n"
PRIORITIES = ("critical", "important", "recommended")


class RulesFailure(Exception):
    """Something upstream would raise: the engineering rules section is left out."""


@dataclass
class EngRule:
    """One parsed rule and where it came from."""

    id: Any
    title: Any
    description: Any
    priority: str
    globs: Any  # a list of globs when well formed; anything else fails only when matched
    enabled: Any
    source: str
    index: int  # position in its file's rules list (0-based)


@dataclass
class RuleOutcome:
    """A rule's fate in the summary."""

    rule: EngRule
    status: str  # "kept", "omitted", "not_matched", "disabled", "duplicate"
    why: str
    line: str = ""
    offset: int | None = None  # of the line within the section text


@dataclass
class RulesResult:
    text: str = ""
    outcomes: list[RuleOutcome] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (file or file#n, why)
    limit: int = 0
    omitted_note: str = ""


def _listed(fs: ProjectFS, folder: str) -> list[str]:
    names = fs.list_dir(folder)
    yaml_files = sorted(n for n in names if n.endswith(".yaml"))  # hidden files too, as pathlib's glob
    yml_files = sorted(n for n in names if n.endswith(".yml"))
    return [f"{folder}/{n}" for n in (*yaml_files, *yml_files) if fs.is_file(f"{folder}/{n}")]


def _parse(entry: Mapping[Any, Any], source: str, index: int) -> EngRule | str:
    """The rule, or why it is skipped; raises :class:`RulesFailure` where upstream raises."""
    if "id" not in entry:
        return "missing 'id'"
    if "title" not in entry:
        return "missing 'title'"
    raw = entry.get("priority", "recommended")
    if not isinstance(raw, str):
        raise RulesFailure(f"{source}: rule {index + 1} has a priority that is not text ({raw!r})")
    priority = raw.lower()
    if priority not in PRIORITIES:
        return f"unknown priority {raw!r}"
    globs = entry.get("applies_to", ["*"])
    if isinstance(globs, str):
        globs = [globs]
    return EngRule(
        entry["id"], entry["title"], entry.get("description", ""), priority, globs,
        entry.get("enabled", True), source, index,
    )  # fmt: skip


#: Each rule file's parse, keyed by its path and the text read: :class:`ProjectFS` reads a
#: file again when its size, mtime, inode or ctime change, so an edited file misses.
_parsed = LRU(256)


@dataclass(frozen=True)
class _FileRules:
    """One rule file's rules and skipped entries, or the failure upstream raises on it."""

    rules: tuple[EngRule, ...] = ()
    skipped: tuple[tuple[str, str], ...] = ()
    failure: str | None = None


def _parse_file(rel: str, text: str) -> _FileRules:
    rules: list[EngRule] = []
    skipped: list[tuple[str, str]] = []
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        return _FileRules(skipped=((rel, f"not YAML: {str(exc).splitlines()[0]}"),))
    except RecursionError:
        return _FileRules(failure=f"{rel}: nested too deeply to load")
    if not isinstance(data, dict):
        return _FileRules(skipped=((rel, "the top level is not a mapping"),))
    entries = data.get("rules", [])
    if not isinstance(entries, list):
        return _FileRules(skipped=((rel, "'rules' is not a list"),))
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict):
            skipped.append((f"{rel}#{index + 1}", "not a mapping"))
            continue
        try:
            parsed = _parse(entry, rel, index)
        except RulesFailure as exc:
            return _FileRules(failure=str(exc))
        if isinstance(parsed, str):
            skipped.append((f"{rel}#{index + 1}", parsed))
        else:
            rules.append(parsed)
    return _FileRules(tuple(rules), tuple(skipped))


def load_rules(fs: ProjectFS, folder: str, skipped: list[tuple[str, str]]) -> list[EngRule]:
    """The rules of every file in *folder*, each file parsed once per text (see :data:`_parsed`)."""
    rules: list[EngRule] = []
    if not fs.is_dir(folder):
        return rules
    for rel in _listed(fs, folder):
        read = fs.read_text(rel)
        if not read.ok or read.text is None:
            if read.problem is not Problem.MISSING:
                skipped.append((rel, f"not read: {read.detail}"))
            continue
        found: _FileRules | None = _parsed.get((rel, read.text))
        if found is None:
            found = _parse_file(rel, read.text)
            _parsed.put((rel, read.text), found)
        if found.failure is not None:
            raise RulesFailure(found.failure)
        rules.extend(found.rules)
        skipped.extend(found.skipped)
    return rules


def clear_caches() -> None:
    """Forget the parsed rule files (benchmarks and tests start cold with this)."""
    _parsed.clear()


def _line(rule: EngRule) -> str:
    text = f"- **[{rule.priority.upper()}]** {rule.title}"
    if rule.description:
        text += f": {rule.description}"
    return text


def _globs(rule: EngRule) -> list[Any]:
    """The rule's globs as upstream iterates them (a mapping's keys); raises where iterating fails."""
    if isinstance(rule.globs, (list, tuple)):
        return list(rule.globs)
    if isinstance(rule.globs, Mapping):
        return list(rule.globs)
    raise RulesFailure(f"{rule.source}: rule {rule.id!r} has an applies_to of {type(rule.globs).__name__}")


def _first_match(rule: EngRule, names: Sequence[str]) -> tuple[str, str] | None:
    for glob in _globs(rule):
        for name in names:
            if not isinstance(glob, str):
                raise RulesFailure(f"{rule.source}: rule {rule.id!r} has a glob that is not text ({glob!r})")
            if _fnmatch(name, glob):
                return name, glob
    return None


#: ``fnmatch.fnmatch``'s answers by (name, glob): every task asks every rule's globs about its
#: files' names, the same few of each.  Cleared whole at this many.
_MATCHES_KEPT = 100_000
_matches: dict[tuple[str, str], bool] = {}


def _fnmatch(name: str, glob: str) -> bool:
    """``fnmatch.fnmatch(name, glob)``, each pair's answer kept (see :data:`_matches`)."""
    found = _matches.get((name, glob))
    if found is None:
        if len(_matches) >= _MATCHES_KEPT:
            _matches.clear()
        found = _matches[name, glob] = fnmatch.fnmatch(name, glob)
    return found


def build(fs: ProjectFS, folder: str, task_files: Sequence[Any], budget: int) -> RulesResult:
    """The section's text and every rule's fate; raises :class:`RulesFailure` where upstream fails."""
    result = RulesResult(limit=budget * 4)
    if not task_files:
        return result
    rules = load_rules(fs, folder, result.skipped)
    names: list[str] = []
    for entry in task_files:
        if not isinstance(entry, str):
            if not rules:
                return result
            raise RulesFailure(f"a create/modify entry is {type(entry).__name__}, not a path")
        names.append(PurePosixPath(entry).name)
    chosen: dict[Any, RuleOutcome] = {}
    passed: list[RuleOutcome] = []
    for rule in rules:
        if not rule.enabled:
            passed.append(RuleOutcome(rule, "disabled", "disabled (enabled: false)"))
            continue
        try:
            seen = rule.id in chosen
        except TypeError:
            raise RulesFailure(f"{rule.source}: rule id {rule.id!r} cannot be used as a key") from None
        if seen:
            first = chosen[rule.id].rule.source
            passed.append(RuleOutcome(rule, "duplicate", f"id {rule.id!r} already taken by a rule in {first}"))
            continue
        hit = _first_match(rule, names)
        if hit is None:
            globs = ", ".join(repr(g) for g in _globs(rule)) or "no globs"
            passed.append(RuleOutcome(rule, "not_matched", f"no task file's name matches {globs}"))
            continue
        chosen[rule.id] = RuleOutcome(rule, "kept", f"{hit[0]} matches {hit[1]!r}")
    ordered = sorted(chosen.values(), key=lambda o: PRIORITIES.index(o.rule.priority))
    lines: list[str] = []
    used = 0
    offset = len(HEADER)
    for position, outcome in enumerate(ordered):
        line = _line(outcome.rule)
        outcome.line = line
        if used + len(line) + 1 > result.limit and lines:
            left = len(ordered) - position
            result.omitted_note = f"\n_({left} more rules omitted due to token budget)_"
            for later in ordered[position:]:
                later.line = _line(later.rule)
                later.status = "omitted"
                later.why += (
                    f", {later.rule.priority}; did not fit: the {result.limit:,}-character budget was reached "
                    f"after {len(lines)} rule line(s) ({used:,} characters)"
                )
            break
        outcome.offset = offset
        outcome.why += f", {outcome.rule.priority}; line {position + 1} of the summary"
        lines.append(line)
        used += len(line) + 1
        offset += len(line) + 1
    if result.omitted_note:
        lines.append(result.omitted_note)
    result.outcomes = [*ordered, *passed]
    if lines:
        result.text = HEADER + "\n".join(lines)
    return result
