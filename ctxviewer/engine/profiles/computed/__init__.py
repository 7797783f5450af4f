"""Profile ``computed``: seed 004's computed context, every decision on record.

The context is computed from the task's signals, the context map and the handoffs
rather than from the spec and rule files; every knowledge node, context-map entry,
dependency and blocking question is a trace item with its score and fate, and the
Context Debug record is :attr:`~ctxviewer.engine.trace.model.Trace.debug`.  The rules
are in docs/computed-context.md.  The run (:mod:`.run`) is a stage per module:
:mod:`.limits` -> :mod:`.sources` -> :mod:`.knowledge`, :mod:`.prior_work`,
:mod:`.code_refs` (phases 2-4) -> :mod:`.packing` -> :mod:`.debug`; :mod:`.model` holds
the names they share and :mod:`.refit` replays packing alone at other budgets.
"""

from ctxviewer.engine.profiles.computed.code_refs import CodeRefs, component_score, rank_code_refs
from ctxviewer.engine.profiles.computed.debug import debug_record, debug_text, listing, signals_debug
from ctxviewer.engine.profiles.computed.knowledge import Knowledge, node_score, select_knowledge
from ctxviewer.engine.profiles.computed.limits import TaskReading, complexity_of, limits_for, read_task
from ctxviewer.engine.profiles.computed.model import (
    CODE_REFS,
    COMPLEXITY_ALIASES,
    COMPLEXITY_LIMITS,
    CUT_ORDER,
    DECISIONS,
    DEPENDENCY,
    DOMAIN_QUERY_LIMIT,
    EMPTY_TEXT,
    HEADER,
    KEYWORD_QUERY_LIMIT,
    KNOWLEDGE,
    MAP_ENTRY,
    NODE_TYPES,
    PATTERNS,
    PHASE_LIMITS,
    PRIOR_WORK,
    QUESTION,
    QUESTIONS,
    QUESTIONS_LEAD,
    RELATED,
    SECTIONS,
    WARNINGS,
    Entry,
)
from ctxviewer.engine.profiles.computed.packing import Packed, fit, render
from ctxviewer.engine.profiles.computed.prior_work import PriorWork, gather_prior_work
from ctxviewer.engine.profiles.computed.run import ComputedRun
from ctxviewer.engine.profiles.computed.sources import (
    DEFAULT_CONTEXT_MAP,
    DEFAULT_HANDOFFS,
    HANDOFF_SUFFIXES,
    Component,
    ContextMap,
    Handoff,
    Node,
    find_handoff,
    read_context_map,
    read_handoff,
)

__all__ = [
    "CODE_REFS",
    "COMPLEXITY_ALIASES",
    "COMPLEXITY_LIMITS",
    "CUT_ORDER",
    "DECISIONS",
    "DEFAULT_CONTEXT_MAP",
    "DEFAULT_HANDOFFS",
    "DEPENDENCY",
    "DOMAIN_QUERY_LIMIT",
    "EMPTY_TEXT",
    "HANDOFF_SUFFIXES",
    "HEADER",
    "KEYWORD_QUERY_LIMIT",
    "KNOWLEDGE",
    "MAP_ENTRY",
    "NODE_TYPES",
    "PATTERNS",
    "PHASE_LIMITS",
    "PRIOR_WORK",
    "QUESTION",
    "QUESTIONS",
    "QUESTIONS_LEAD",
    "RELATED",
    "SECTIONS",
    "WARNINGS",
    "CodeRefs",
    "Component",
    "ComputedRun",
    "ContextMap",
    "Entry",
    "Handoff",
    "Knowledge",
    "Node",
    "Packed",
    "PriorWork",
    "TaskReading",
    "complexity_of",
    "component_score",
    "debug_record",
    "debug_text",
    "find_handoff",
    "fit",
    "gather_prior_work",
    "limits_for",
    "listing",
    "node_score",
    "rank_code_refs",
    "read_context_map",
    "read_handoff",
    "read_task",
    "render",
    "select_knowledge",
    "signals_debug",
]
