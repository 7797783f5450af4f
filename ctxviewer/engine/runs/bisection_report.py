"""A bisection (:mod:`.bisection`) written out: text for a terminal, and JSON (docs/bisect.md)."""

from __future__ import annotations

from typing import Any

from ctxviewer.engine.analysis.whatif import fate_arrow
from ctxviewer.engine.runs.bisection import CONTEXT, Bisection, BlockChange, CommitChange
from ctxviewer.engine.runs.revision_report import change_json, side_json, task_summary
from ctxviewer.engine.wording import plural

#: The version of the JSON's layout; a field removed or changed in meaning raises it.
#: What each ``--what`` follows, in words.
WHAT_WORDS = {"context": "assembled context", "prompt": "worker prompt", "window": "worker window"}


def commit_line(change: CommitChange) -> str:
    """``3f2a9c1  Merge branch 'x' (a merge)``."""
    c = change.commit
    merge = f" (a merge of {len(c.parents)} parents)" if c.merge else ""
    return f"{c.sha[:7]}  {c.subject}{merge}"


def _block_line(b: BlockChange) -> str:
    tokens = f"{b.tokens_before:,} \u2192 {b.tokens_after:,} tokens"
    return f"  {b.change:<10} {b.title} ({tokens})" + (f"\n             edit: {b.edit}" if b.edit else "")


def _change_text(change: CommitChange, what: str) -> list[str]:
    out = [commit_line(change), f"  inputs touched: {', '.join(change.inputs)}"]
    task = change.task
    if change.error_before != change.error_after:
        if change.error_after:
            out.append(f"  cannot be assembled after it: {change.error_after}")
        if change.error_before:
            out.append(f"  could not be assembled before it: {change.error_before}")
    if task.presence == "added":
        out.append("  the task appears with this commit")
    elif task.presence == "removed" and (task.before is not None):
        out.append("  the task is gone with this commit")
    if task.before is not None or task.after is not None:
        out.append(f"  context {task_summary(task)}")
    if what == CONTEXT:
        for c in task.changes:
            out.append(f"  {c.change.change:<7} {c.words}: {fate_arrow(c.change.status_before, c.change.status_after)}")
            out += [f"          cause ({cause.kind}): {cause.text}" for cause in c.causes]
    else:
        out += [_block_line(b) for b in change.blocks]
    return out


def bisection_text(b: Bisection) -> str:
    """The bisection for a terminal: the range, how much was assembled, each commit that changed it."""
    what = WHAT_WORDS[b.what]
    out = [
        f"Bisect of {b.project}: {b.feature}/{b.task_id}, its {what}",
        f"Range {b.a.label}..{b.b.label}: {plural(len(b.commits), 'commit')} along the first parents",
        f"Assembled {b.assembled:,} of them, the ones that changed a file the task reads (and {b.a.label} to start)",
    ]
    out += [f"note: {n}" for n in b.notes]
    out.append("")
    if not b.changes:
        out.append(f"No commit in the range changed its {what}.")
    else:
        out += [f"{plural(len(b.changes), 'commit')} changed its {what}, oldest first:", ""]
        for change in b.changes:
            out += [*_change_text(change, b.what), ""]
    return "\n".join(out).rstrip("\n") + "\n"


def _block_json(b: BlockChange) -> dict[str, Any]:
    return {
        "change": b.change,
        "title": b.title,
        "source": b.source,
        "tokens_before": b.tokens_before,
        "tokens_after": b.tokens_after,
        "edit": b.edit,
    }


def _change_json(change: CommitChange) -> dict[str, Any]:
    c, task = change.commit, change.task
    return {
        "commit": c.sha,
        "short": c.sha[:7],
        "subject": c.subject,
        "parents": list(c.parents),
        "merge": c.merge,
        "inputs": list(change.inputs),
        "presence": task.presence,
        "tokens_before": task.tokens_before if task.before is not None else None,
        "tokens_after": task.tokens_after if task.after is not None else None,
        "error_before": change.error_before or None,
        "error_after": change.error_after or None,
        "candidates": [change_json(x) for x in task.changes],
        "blocks": [_block_json(x) for x in change.blocks],
    }


def bisection_to_json(b: Bisection) -> dict[str, Any]:
    """The bisection as plain JSON-able data."""
    return {
        "project": b.project,
        "feature": b.feature,
        "task": b.task_id,
        "what": b.what,
        "a": side_json(b.a),
        "b": side_json(b.b),
        "commits_in_range": len(b.commits),
        "assembled": b.assembled,
        "notes": list(b.notes),
        "changes": [_change_json(c) for c in b.changes],
    }
