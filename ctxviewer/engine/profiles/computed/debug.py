"""The last stage: seed 004's "Context Debug" record (its ``DEBUG_CONTEXT`` output) of a run.

:func:`debug_record` writes it from what the stages decided; :func:`debug_text` gives a
finished trace's record, or for other profiles its signals part.
"""

from __future__ import annotations

from collections.abc import Sequence

from ctxviewer.engine.profiles.base import fmt
from ctxviewer.engine.profiles.computed.code_refs import CodeRefs
from ctxviewer.engine.profiles.computed.knowledge import Knowledge
from ctxviewer.engine.profiles.computed.limits import TaskReading
from ctxviewer.engine.profiles.computed.model import DECISIONS, PATTERNS, QUESTIONS, SECTIONS, WARNINGS, Entries
from ctxviewer.engine.profiles.computed.prior_work import PriorWork
from ctxviewer.engine.profiles.computed.sources import ContextMap
from ctxviewer.engine.trace.model import Signals, Trace


def listing(values: Sequence[str]) -> str:
    return "[" + ", ".join(values) + "]"


def signals_debug(s: Signals) -> list[str]:
    """The "Context Debug" record's first part: the signals extracted (every profile has them)."""
    return [
        "## Context Debug",
        "",
        "### Signals Extracted",
        f"- Keywords: {listing(s.values('keyword'))}",
        f"- Domains: {listing(s.values('domain'))}",
        f"- Files Mentioned: {listing(s.values('file'))}",
        f"- Task: {listing([f'{t.kind} {t.value}' for t in s.task])}",
    ]


def debug_text(trace: Trace) -> str:
    """The trace's "Context Debug" record; for other profiles than ``computed``, its signals part."""
    if trace.debug:
        return trace.debug
    lines = [
        *signals_debug(trace.signals),
        "",
        f"(the {trace.profile} profile computes no knowledge, prior work or code references: "
        "those parts of the record are the computed profile's)",
    ]
    return "\n".join(lines) + "\n"


def debug_record(
    task: TaskReading,
    cmap: ContextMap,
    knowledge: Knowledge,
    prior: PriorWork,
    refs: CodeRefs,
    entries: Entries,
    *,
    context_tokens: int,
    budget: int,
    tokenizer: str,
    cuts: int,
) -> str:
    """The record of one run, with the limits that cut.

    *entries* are every section's entries after packing; the context counted
    *context_tokens* with *tokenizer*, and *cuts* entries were cut to fit *budget*.
    """
    kept = {name: sum(1 for e in entries[name] if e.kept) for name, _ in SECTIONS}
    found = {name: len(entries[name]) for name, _ in SECTIONS}
    lines = [
        *signals_debug(task.signals),
        "",
        "### Knowledge Graph Query",
        f"- Source: {cmap.path}" + ("" if cmap.found else " (not found)"),
        f"- Nodes matched: {knowledge.matched}",
        f"- Patterns found: {found[PATTERNS]} (kept {kept[PATTERNS]})",
        f"- Gotchas found: {found[WARNINGS]} (kept {kept[WARNINGS]})",
        f"- Decisions found: {found[DECISIONS]} (kept {kept[DECISIONS]})",
        "",
        "### Dependencies Processed",
        f"- Task IDs: {listing(prior.inherited_ids)}",
        f"- Patterns inherited: {prior.inherited_patterns}",
        f"- Warnings inherited: {prior.inherited_warnings}",
        f"- Blocking questions: {kept[QUESTIONS]}",
        "",
        "### Context Map Filtering",
        f"- Total entries: {refs.total}",
        f"- Entries after filter: {refs.kept}",
        f"- Top relevance score: {refs.top_score}",
        "",
        "### Limits",
        f"- {task.level_note}",
    ]
    for name, (most, why) in task.limits.items():
        lines.append(f"- {name.replace('_', ' ')}: {most} ({why})")
    lines += [
        "",
        "### Budget",
        f"- Context: {fmt(context_tokens)} of {fmt(budget)} tokens ({tokenizer})",
        f"- Entries cut to fit: {cuts}",
    ]
    return "\n".join(lines) + "\n"
