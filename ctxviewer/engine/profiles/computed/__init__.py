"""Profile ``computed``: seed 004's computed context, every decision on record.

The context is computed from the task's signals (:mod:`ctxviewer.engine.signals.task`)
rather than from the spec and rule files:

* **Knowledge** (phase 2): the ``knowledge`` list of the project's context map file
  (``paths.context_map``, by default ``.mahabharatha/context-map.yaml``; see
  ``docs/computed-context.md``).  A node's score in a query is the number of its tags
  that are among the query's words (tags compared lowercased, plurals folded).  The
  keyword query keeps the 20 best-scoring nodes with a tag among the keywords, the
  domain query the 10 best with a tag among the domains (ties in file order); the
  two are merged keyword query first, a node found by both keeping its keyword score.
  Sorted by score (stable), patterns keep 5, gotchas 3, decisions 3, related tasks 5.
* **Prior work** (phase 3): each of the task's ``dependencies``, in order.  One missing
  from the task graph, or not completed, is skipped with the reason.  Completion and
  the handoff come from ``<paths.handoffs>/<id>.yaml`` (``.yml``/``.json``), else the
  dependency's ``status`` in the graph.  Summary: the handoff's ``summary``, else the
  dependency's ``context`` (when text), else its ``description``.  Files: the handoff's
  ``dependencies_for_next`` or ``files_created``, else the dependency's
  ``files.create``.  Gotchas of ``low`` severity and questions that are not
  ``blocking`` are left out.
* **Code references** (phase 4): each ``components`` entry of the context map scores
  +2 per keyword in its component name, +1 per keyword in its location, +1 per domain
  in its notes (all lowercased substring tests) and +3 per file mentioned that its
  location contains; entries scoring above 0 are sorted by score (stable) and the best
  10 kept.
* **Limits by complexity**: the task's ``complexity`` (easy/haiku/low/simple,
  normal/sonnet/medium/moderate, complex/opus/high/hard) caps patterns, warnings, code
  references and prior tasks at seed 004's table; without the field only the phase
  limits apply.
* **Injection and budget**: the kept entries are rendered in seed 004's injection
  format.  While the whole counts over the budget (decision tokenizer), entries are cut
  one at a time, least important first: code references from the bottom, then
  decisions, patterns, prior-work blocks (last dependency first), warnings, and
  blocking questions last; each cut is a trim step.

Every knowledge node, context-map entry, dependency and blocking question is an item
of the trace with its score and fate; the "Context Debug" record (seed 004's
``DEBUG_CONTEXT`` output) is :attr:`~ctxviewer.engine.trace.model.Trace.debug`.

The run (:mod:`.run`) is a sequence of stages, a module each, each readable and testable
alone: :mod:`.limits` (the task's signals and limits) -> :mod:`.sources` (reading the
context map and the handoffs) -> :mod:`.knowledge`, :mod:`.prior_work`, :mod:`.code_refs`
(phases 2-4: scoring, ranking, limits) -> :mod:`.packing` (the injection, cut to the
budget) -> :mod:`.debug` (the record).  :mod:`.model` holds the names they share.
:mod:`.refit` answers the fates at other budgets by replaying packing alone (exact
sensitivity).
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
