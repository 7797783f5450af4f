"""A revision diff (:mod:`.revisions`) written out: text for a terminal, JSON, standalone HTML.

The HTML is one self-contained page (inline style, no script, nothing fetched) in which
every piece of project text -- paths, titles, reasons, revision names -- is escaped.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from typing import Any

from ctxviewer.engine.analysis.whatif import fate_arrow, setting_text, signed
from ctxviewer.engine.runs.revisions import (
    REVISION_MEANINGS,
    CandidateChange,
    Revision,
    RevisionDiff,
    TaskRevisionDiff,
)
from ctxviewer.engine.wording import folded

_MINUS = "\u2212"
#: What a folded list in the text says shows it whole (``diff -v``).
EVERY_HINT = "(-v for all)"


def growth_text(task: TaskRevisionDiff) -> str:
    """``+3.6%`` / ``-10.0%`` (with a true minus sign) / ``from empty`` / ``added at B`` / ``removed at B``."""
    if task.presence == "added":
        return "added at B"
    if task.presence == "removed":
        return "removed at B"
    growth = task.growth_percent
    assert growth is not None
    if math.isinf(growth):
        return "from empty"
    sign = "+" if growth > 0 else _MINUS if growth < 0 else ""
    return f"{sign}{abs(growth):.1f}%"


def task_summary(task: TaskRevisionDiff) -> str:
    """``28 → 29 heuristic tokens (+1, +3.6%)`` for a task on both sides."""
    if task.diff is None:
        trace = task.after or task.before
        tokenizer = trace.tokenizer if trace is not None else ""
        return f"{task.tokens_after or task.tokens_before:,} {tokenizer} tokens, {growth_text(task)}"
    delta = task.tokens_after - task.tokens_before
    return (
        f"{task.tokens_before:,} \u2192 {task.tokens_after:,} {task.diff.tokenizer} tokens "
        f"({signed(delta)}, {growth_text(task)})"
    )


def _fate(change: CandidateChange) -> str:
    return fate_arrow(change.change.status_before, change.change.status_after)


# -- text -------------------------------------------------------------------------------------


def _head(diff: RevisionDiff, every: bool) -> list[str]:
    out = [f"Revision diff of {diff.project}", f"A  {diff.a.label}", f"B  {diff.b.label}"]
    files = diff.changed_files
    shown = folded(files, every=every, more=EVERY_HINT) if files else "none"
    out.append(f"Files changed in the project ({len(files):,}): {shown}")
    out += [f"note: {n}" for n in diff.notes]
    return out


def _task_text(task: TaskRevisionDiff) -> list[str]:
    out = [f"{task.feature}/{task.task_id}: {task.title}", f"  context {task_summary(task)}"]
    if task.diff is not None and task.diff.settings:
        changed = ", ".join(
            f"{s.key} {setting_text(s.before)} \u2192 {setting_text(s.after)}" for s in task.diff.settings
        )
        out.append(f"  settings that differ: {changed}")
    if task.diff is not None and not task.changes:
        out.append("  no candidate's fate differs")
    for c in task.changes:
        out.append(f"  {c.change.change:<7} {c.words}: {_fate(c)}")
        out += [f"          cause ({cause.kind}): {cause.text}" for cause in c.causes]
        if c.change.reason_after:
            out.append(f"          B: {c.change.reason_after}")
    return out


def revision_text(diff: RevisionDiff, *, every: bool = False) -> str:
    """The diff for a terminal: the two sides, then each task that changed; unchanged ones counted,
    the first few named (*every*: all of them, and every changed file)."""
    out = [*_head(diff, every), ""]
    same = [t for t in diff.tasks if t.unchanged]
    for task in diff.tasks:
        if not task.unchanged:
            out += [*_task_text(task), ""]
    if not diff.tasks:
        out.append("No task chosen exists at either revision.")
    elif same:
        names = [f"{t.feature}/{t.task_id}" for t in same]
        out.append(f"Unchanged ({len(same):,}): {folded(names, every=every, more=EVERY_HINT)}")
    return "\n".join(out).rstrip("\n") + "\n"


# -- JSON ----------------------------------------------------------------------------------------


def side_json(rev: Revision) -> dict[str, Any]:
    """A revision as JSON: its name, its commit id (null for the working tree), its label."""
    return {"name": rev.name, "sha": rev.sha, "label": rev.label}


def change_json(c: CandidateChange) -> dict[str, Any]:
    """A candidate's change with its causes, as the JSON of ``diff`` and ``bisect`` writes it."""
    i = c.change
    return {
        "change": i.change,
        "item_id": i.item_id,
        "kind": i.kind,
        "label": i.label,
        "candidate": c.words,
        "section": c.section,
        "status_before": i.status_before,
        "status_after": i.status_after,
        "reason_before": i.reason_before,
        "reason_after": i.reason_after,
        "tokens_before": i.tokens_before,
        "tokens_after": i.tokens_after,
        "causes": [
            {
                "kind": k.kind,
                "text": k.text,
                "file": k.file,
                "lines": [list(span) for span in k.lines],
                "candidate": k.candidate,
            }
            for k in c.causes
        ],
    }


def _task_json(task: TaskRevisionDiff) -> dict[str, Any]:
    growth = task.growth_percent
    return {
        "feature": task.feature,
        "task_id": task.task_id,
        "title": task.title,
        "presence": task.presence,
        "tokenizer": task.diff.tokenizer if task.diff is not None else None,
        "tokens_before": task.tokens_before if task.before is not None else None,
        "tokens_after": task.tokens_after if task.after is not None else None,
        # JSON has no infinity: a context that grew from nothing is null with from_empty true.
        "growth_percent": None if growth is None or math.isinf(growth) else round(growth, 3),
        "from_empty": growth is not None and math.isinf(growth),
        "unchanged": task.unchanged,
        "settings": [
            {"key": s.key, "before": s.before, "after": s.after} for s in (task.diff.settings if task.diff else ())
        ],
        "changes": [change_json(c) for c in task.changes],
    }


def revision_to_json(diff: RevisionDiff) -> dict[str, Any]:
    """The diff as plain JSON-able data (the traces themselves are left out)."""
    return {
        "project": diff.project,
        "a": side_json(diff.a),
        "b": side_json(diff.b),
        "changed_files": list(diff.changed_files),
        "notes": list(diff.notes),
        "meanings": dict(REVISION_MEANINGS),
        "tasks": [_task_json(t) for t in diff.tasks],
    }


# -- HTML ------------------------------------------------------------------------------------------

_STYLE = """
body{font:14px/1.45 system-ui,sans-serif;margin:2em;color:#1b1f24;background:#fff}
h1{font-size:1.4em}h2{font-size:1.1em;margin-top:1.6em}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #d0d7de;padding:4px 8px;vertical-align:top}
th{background:#f3f4f6;text-align:left}.entered,.new,.grew{color:#116329}.left,.gone,.shrank{color:#a40e26}
code{font-family:ui-monospace,monospace;font-size:.92em}.muted{color:#57606a}
"""


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _rows(changes: Sequence[CandidateChange]) -> list[str]:
    out = []
    for c in changes:
        causes = "<br>".join(f"<b>{_e(k.kind)}</b>: {_e(k.text)}" for k in c.causes)
        where = ", ".join(dict.fromkeys(k.where for k in c.causes if k.where))
        tokens = f"{c.change.tokens_before:,} \u2192 {c.change.tokens_after:,}"
        out.append(
            f'<tr><td>{_e(c.words)}</td><td class="{_e(c.change.change)}">{_e(c.change.change)}</td>'
            f"<td>{_e(_fate(c))}</td><td>{_e(tokens)}</td><td>{causes}</td><td><code>{_e(where)}</code></td></tr>"
        )
    return out


def revision_html(diff: RevisionDiff) -> str:
    """The diff as one standalone HTML page."""
    title = f"Revision diff: {diff.a.label} \u2192 {diff.b.label}"
    out = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">",
        f"<title>{_e(title)}</title><style>{_STYLE}</style></head><body>",
        f"<h1>{_e(title)}</h1>",
        f"<p>Project <code>{_e(diff.project)}</code>. A: <code>{_e(diff.a.label)}</code>, "
        f"B: <code>{_e(diff.b.label)}</code>.</p>",
        "<p>Files changed: " + (", ".join(f"<code>{_e(f)}</code>" for f in diff.changed_files) or "none") + "</p>",
    ]
    out += [f'<p class="muted">note: {_e(n)}</p>' for n in diff.notes]
    same = [t for t in diff.tasks if t.unchanged]
    for task in diff.tasks:
        if task.unchanged:
            continue
        out.append(f"<h2>{_e(task.feature)}/{_e(task.task_id)}: {_e(task.title)}</h2>")
        out.append(f"<p>Context {_e(task_summary(task))}</p>")
        if task.diff is not None and task.diff.settings:
            items = "".join(
                f"<li><code>{_e(s.key)}</code>: {_e(setting_text(s.before))} \u2192 {_e(setting_text(s.after))}</li>"
                for s in task.diff.settings
            )
            out.append(f"<p>Settings that differ:</p><ul>{items}</ul>")
        if task.changes:
            out.append("<table><tr><th>Candidate</th><th>Change</th><th>Fate A \u2192 B</th>")
            out.append("<th>Tokens</th><th>Cause</th><th>Edit at</th></tr>")
            out += _rows(task.changes)
            out.append("</table>")
        elif task.diff is not None:
            out.append('<p class="muted">No candidate\'s fate differs.</p>')
    if same:
        names = ", ".join(_e(f"{t.feature}/{t.task_id}") for t in same)
        out.append(f'<p class="muted">Unchanged ({len(same)}): {names}</p>')
    out.append("</body></html>")
    return "\n".join(out) + "\n"
