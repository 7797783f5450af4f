"""Phase 3, prior work: each of the task's dependencies, in order, from its handoff or the graph.

A dependency missing from the task graph, or not completed, is skipped with the reason;
completed ones past the prior-work limit are outranked.  Each kept one is a Prior Work
block, and the blocking questions it handed over are Open Questions entries.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ctxviewer.engine.files.reading import ProjectFS
from ctxviewer.engine.profiles.base import ItemDraft
from ctxviewer.engine.profiles.computed.model import DEPENDENCY, PRIOR_WORK, QUESTION, QUESTIONS, Entry, Limits
from ctxviewer.engine.profiles.computed.sources import Handoff, find_handoff, read_handoff
from ctxviewer.engine.project.loading import Task
from ctxviewer.engine.trace.model import INCLUDED, NOT_CANDIDATE, OUTRANKED, TraceError


@dataclass
class PriorWork:
    """What phase 3 decided."""

    #: The Prior Work blocks, one per kept dependency, in dependency order.
    blocks: list[Entry] = field(default_factory=list)
    #: The blocking questions the kept dependencies handed over.
    questions: list[Entry] = field(default_factory=list)
    #: Dependencies skipped (not in the graph, not completed) or over the limit.
    others: list[ItemDraft] = field(default_factory=list)
    #: Input problems: a dependencies value that is not a list, a handoff that cannot be read.
    errors: list[TraceError] = field(default_factory=list)
    #: Completed dependencies (over the limit or not), and what the kept ones handed over.
    inherited_ids: list[str] = field(default_factory=list)
    inherited_patterns: int = 0
    inherited_warnings: int = 0


def gather_prior_work(
    raw: Mapping[str, Any],
    tasks: Sequence[Task],
    fs: ProjectFS,
    handoffs: str,
    graph_path: str | None,
    limits: Limits,
) -> PriorWork:
    """Decide each dependency of the task *raw* among *tasks*, reading handoffs under *handoffs*."""
    out = PriorWork()
    deps = raw.get("dependencies")
    by_id = {t.id: t for t in tasks}
    limit, why = limits.get(PRIOR_WORK, (len(deps) if isinstance(deps, list) else 0, ""))
    if deps is None:
        return out
    if not isinstance(deps, list):
        message = f"dependencies is {type(deps).__name__}, not a list"
        out.errors.append(TraceError("dependencies", "input", message, "no prior work", None, None))
        return out
    for n, dep_id in enumerate(deps, 1):
        shown = dep_id if isinstance(dep_id, str) else repr(dep_id)
        draft = ItemDraft(
            id=f"dependency:{shown}",
            kind=DEPENDENCY,
            section=PRIOR_WORK,
            part="dependency",
            source=f"dependencies[{n}]",
            line_start=None,
            line_end=None,
            score=None,
            matched=(),
            rank=n,
            status=NOT_CANDIDATE,
            reason="",
            text="",
            kept_chars=0,
        )
        dep = by_id.get(dep_id) if isinstance(dep_id, str) else None
        if dep is None:
            draft.reason = "not in the task graph: skipped"
            out.others.append(draft)
            continue
        handoff = read_handoff(fs, find_handoff(fs, handoffs, dep.id), dep)
        for message, line in handoff.problems:
            out.errors.append(
                TraceError("handoff", "input", message, "the rest of the dependency is used", handoff.path, line)
            )
        draft.source = handoff.path or f"{graph_path or 'task graph'} ({dep.id})"
        draft.details = {
            "status": handoff.status or "unknown",
            "files": [f for f, _ in handoff.files],
            "patterns": list(handoff.patterns),
            "gotchas_left_out_as_low": handoff.low_gotchas,
            "questions_not_blocking": handoff.nonblocking,
        }
        if handoff.status != "completed":
            where = "its handoff file" if handoff.path else "the task graph (no handoff file)"
            draft.reason = f"status {handoff.status or 'unknown'!r} in {where}, not 'completed': skipped"
            out.others.append(draft)
            continue
        out.inherited_ids.append(dep.id)
        if len(out.inherited_ids) > limit:
            draft.status = OUTRANKED
            draft.reason = f"completed, but over the limit: {why} prior tasks"
            out.others.append(draft)
            continue
        out.inherited_patterns += len(handoff.patterns)
        out.inherited_warnings += len(handoff.gotchas)
        draft.status = INCLUDED
        draft.reason = f"completed ({'handoff file' if handoff.path else 'task graph status'})"
        draft.text = prior_text(dep, handoff)
        out.blocks.append(Entry(PRIOR_WORK, draft, draft.text))
        out.questions.extend(question_entries(dep.id, handoff))
    return out


def prior_text(dep: Task, handoff: Handoff) -> str:
    """The Prior Work block of a kept dependency."""
    lines = [f"#### {dep.title or dep.id}"]
    if handoff.summary:
        lines.append(handoff.summary)
    if handoff.files:
        lines += ["", "**Files Created:**"]
        lines += [f"- `{path}`: {reason}" if reason else f"- `{path}`" for path, reason in handoff.files]
    if handoff.gotchas:
        lines += ["", "**Warnings:**"]
        lines += [f"- \u26a0\ufe0f **{severity}**: {issue}" for severity, issue in handoff.gotchas]
    return "\n".join(lines)


def question_entries(dep_id: str, handoff: Handoff) -> list[Entry]:
    """The Open Questions entries of the blocking questions dependency *dep_id* handed over."""
    out = []
    for q, (question, context, recommendation) in enumerate(handoff.questions, 1):
        lines = [f"- **{question}**"]
        if context:
            lines.append(f"  - Context: {context}")
        if recommendation:
            lines.append(f"  - Recommendation: {recommendation}")
        draft = ItemDraft(
            id=f"question:{dep_id}:{q}",
            kind=QUESTION,
            section=QUESTIONS,
            part="blocking question",
            source=handoff.path or dep_id,
            line_start=None,
            line_end=None,
            score=None,
            matched=(),
            rank=q,
            status=INCLUDED,
            reason=f"blocking question handed over by {dep_id}",
            text="\n".join(lines),
            kept_chars=0,
        )
        out.append(Entry(QUESTIONS, draft, draft.text))
    return out
