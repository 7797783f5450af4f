"""Security rule filtering and summarizing, as the reproduced pipeline does them.

Filter, on the task's ``create`` + ``modify`` files: ``_core/owasp-2025.md`` whenever it
exists; ``languages/python/CLAUDE.md`` for ``.py .pyx .pyi`` (suffix lowercased);
``languages/javascript/CLAUDE.md`` for ``.js .mjs .cjs .ts .tsx .jsx``;
``containers/docker/CLAUDE.md`` for a lowercased name containing ``dockerfile`` or starting
with ``docker-compose``; only files that exist, in that order.

Summary of a rule file: lines inside ``` fences (and the fences) are dropped; lines starting
``## Rule:``, ``### Rule:``, ``**Level**`` or ``**When**`` are kept, under
``"### <folder>/<file>\\n"``.  A block is added only if it fits what is left of
``max_tokens * 4`` characters; one that does not fit is skipped and later, smaller ones may
still fit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

from ctxviewer.engine.signals.keywords import describe_value
from ctxviewer.engine.signals.spec import LRU

CORE = "_core/owasp-2025.md"
PYTHON = "languages/python/CLAUDE.md"
JAVASCRIPT = "languages/javascript/CLAUDE.md"
DOCKER = "containers/docker/CLAUDE.md"
#: The rule files the pipeline can ever consider, in the order it adds them.
CANDIDATES: tuple[str, ...] = (CORE, PYTHON, JAVASCRIPT, DOCKER)

PYTHON_SUFFIXES = (".py", ".pyx", ".pyi")
JAVASCRIPT_SUFFIXES = (".js", ".mjs", ".cjs", ".ts", ".tsx", ".jsx")
KEPT_PREFIXES = ("## Rule:", "### Rule:", "**Level**", "**When**")

TRIGGER_TEXT = {
    CORE: "always considered (core OWASP rules)",
    PYTHON: "a create/modify file ending in " + ", ".join(PYTHON_SUFFIXES),
    JAVASCRIPT: "a create/modify file ending in " + ", ".join(JAVASCRIPT_SUFFIXES),
    DOCKER: "a create/modify file named like 'Dockerfile' or 'docker-compose*'",
}


class RuleFilterError(Exception):
    """A task file entry makes the reference rule filter raise."""


@dataclass(frozen=True)
class RuleMatch:
    """Which task files point at one candidate rule file, and by what."""

    rule: str
    matched_by: tuple[tuple[str, str], ...] = field(default_factory=tuple)  # (task file, trigger)

    @property
    def matched(self) -> bool:
        return self.rule == CORE or bool(self.matched_by)


def match_rules(task_files: Sequence[Any]) -> dict[str, RuleMatch]:
    """For each candidate rule file, the task files (and suffix/name) that select it."""
    hits: dict[str, list[tuple[str, str]]] = {rule: [] for rule in CANDIDATES}
    for entry in task_files:
        if not isinstance(entry, str):
            raise RuleFilterError(f"a create/modify entry is {describe_value(entry)}, not a path")
        p = PurePosixPath(entry)
        suffix = p.suffix.lower()
        name = p.name.lower()
        if suffix in PYTHON_SUFFIXES:
            hits[PYTHON].append((entry, suffix))
        elif suffix in JAVASCRIPT_SUFFIXES:
            hits[JAVASCRIPT].append((entry, suffix))
        if "dockerfile" in name:
            hits[DOCKER].append((entry, "name contains 'dockerfile'"))
        elif name.startswith("docker-compose"):
            hits[DOCKER].append((entry, "name starts with 'docker-compose'"))
    return {rule: RuleMatch(rule, tuple(h)) for rule, h in hits.items()}


@dataclass(frozen=True)
class RuleBlock:
    """The kept lines of one rule file, as the summary would include them."""

    rule: str
    block: str
    kept_lines: tuple[int, ...]  # 1-based line numbers of kept lines
    total_lines: int


#: Summaries of the most recent rule files, by (rule, content): a batch summarizes the
#: same few files for every task.  Only files up to :data:`SUMMARY_CACHE_CHARS` are kept,
#: so the cache holds at most ``SUMMARY_CACHE_SIZE`` such texts.  Keyed by content, it
#: cannot answer for a file that changed.
SUMMARY_CACHE_SIZE = 16
SUMMARY_CACHE_CHARS = 1 << 20
_summaries = LRU(SUMMARY_CACHE_SIZE)


def summarize_file(rule: str, text: str) -> RuleBlock:
    """Kept lines of one rule file's text and the block they form ("" when none); cached by content."""
    if len(text) > SUMMARY_CACHE_CHARS:
        return _summarize(rule, text)
    found: RuleBlock = _summaries.get_or_make((rule, text), lambda: _summarize(rule, text))
    return found


def clear_caches() -> None:
    """Forget the cached summaries (benchmarks start cold with this)."""
    _summaries.clear()


def _summarize(rule: str, text: str) -> RuleBlock:
    """Kept lines of one rule file's text and the block they form ("" when none)."""
    in_fence = False
    kept: list[str] = []
    numbers: list[int] = []
    lines = text.split("\n")
    for number, line in enumerate(lines, start=1):
        if line.strip().startswith("```"):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        if line.startswith(KEPT_PREFIXES):
            kept.append(line)
            numbers.append(number)
    if not kept:
        return RuleBlock(rule, "", (), len(lines))
    path = PurePosixPath(rule)
    block = f"### {path.parent.name}/{path.name}\n" + "\n".join(kept)
    return RuleBlock(rule, block, tuple(numbers), len(lines))
