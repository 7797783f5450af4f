"""The computed context's vocabulary: item kinds, the injection's sections, the limits tables,
and the :class:`Entry` each phase hands on to packing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ctxviewer.engine.profiles.base import ItemDraft

# -- kinds and sections ------------------------------------------------------------------

KNOWLEDGE = "knowledge_node"
MAP_ENTRY = "context_map_entry"
DEPENDENCY = "dependency"
QUESTION = "open_question"

PATTERNS = "patterns"
WARNINGS = "warnings"
DECISIONS = "decisions"
PRIOR_WORK = "prior_work"
CODE_REFS = "code_references"
QUESTIONS = "open_questions"
RELATED = "related_tasks"

#: The injection format's sections in order: (name, heading).
SECTIONS: tuple[tuple[str, str], ...] = (
    (PATTERNS, "Patterns to Follow"),
    (WARNINGS, "Warnings"),
    (DECISIONS, "Relevant Decisions"),
    (PRIOR_WORK, "Prior Work"),
    (CODE_REFS, "Code References"),
    (QUESTIONS, "Open Questions (Blocking)"),
)
#: What a section says when it has nothing (None: the heading alone, as seed 004's template).
EMPTY_TEXT: Mapping[str, str | None] = {
    PATTERNS: "No specific patterns identified for this task.",
    WARNINGS: "No known gotchas for this task area.",
    DECISIONS: None,
    PRIOR_WORK: None,
    CODE_REFS: "Explore the codebase as needed. No specific references pre-identified.",
    QUESTIONS: None,
}
HEADER = "## Context (Computed)"
QUESTIONS_LEAD = "\u26a0\ufe0f The following questions need resolution:"
#: Which section is cut first when over budget (first in this list goes first).
CUT_ORDER = (CODE_REFS, DECISIONS, PATTERNS, PRIOR_WORK, WARNINGS, QUESTIONS)

# -- limits ------------------------------------------------------------------------------

#: Phase 2's limits: the keyword and domain queries, then each category.
KEYWORD_QUERY_LIMIT = 20
DOMAIN_QUERY_LIMIT = 10
PHASE_LIMITS: Mapping[str, int] = {PATTERNS: 5, WARNINGS: 3, DECISIONS: 3, RELATED: 5, CODE_REFS: 10}
#: Seed 004's context limits by complexity.
COMPLEXITY_LIMITS: Mapping[str, Mapping[str, int]] = {
    "easy": {PATTERNS: 3, WARNINGS: 2, CODE_REFS: 5, PRIOR_WORK: 2},
    "normal": {PATTERNS: 5, WARNINGS: 3, CODE_REFS: 10, PRIOR_WORK: 4},
    "complex": {PATTERNS: 10, WARNINGS: 5, CODE_REFS: 20, PRIOR_WORK: 8},
}
COMPLEXITY_ALIASES: Mapping[str, str] = {
    **dict.fromkeys(("easy", "haiku", "low", "simple", "trivial"), "easy"),
    **dict.fromkeys(("normal", "sonnet", "medium", "moderate", "standard"), "normal"),
    **dict.fromkeys(("complex", "opus", "high", "hard"), "complex"),
}
#: Which section a knowledge node's type feeds.
NODE_TYPES = {"pattern": PATTERNS, "gotcha": WARNINGS, "decision": DECISIONS, "task": RELATED}

#: The limit of each section that has one, and who set it: ``{"patterns": (5, "phase 2 keeps 5")}``.
Limits = Mapping[str, tuple[int, str]]


@dataclass
class Entry:
    """A candidate for one section of the injection: its draft and its rendered lines."""

    section: str
    draft: ItemDraft
    text: str
    kept: bool = True
    #: Cut by :func:`~ctxviewer.engine.profiles.computed.packing.fit` to meet the budget (not by a limit).
    cut_for_budget: bool = False


#: Each section's entries, in :data:`SECTIONS` order.
Entries = dict[str, list[Entry]]


def no_entries() -> Entries:
    """An empty entry list for every section, in :data:`SECTIONS` order."""
    return {name: [] for name, _ in SECTIONS}
