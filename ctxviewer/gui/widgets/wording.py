"""Plain words for what the trace records as identifiers.

The trace keeps the pipeline's own names (``security_rules``,
``rule:languages/python/CLAUDE.md``, ``files.modify``) so that exports and tests can
rely on them; the window shows these words instead.  Trim steps are named by the engine
(``trace.step_label``, ``Trace.step_target``).  Unknown names fall back to
their identifier with the underscores turned into spaces, never to nothing.
"""

from __future__ import annotations

from ctxviewer.engine.trace.model import Trace

SECTIONS = {"security_rules": "Security rules", "spec_excerpts": "Spec excerpts"}

#: Sub-budget names of the budget arithmetic.
SUB_BUDGETS = {"summary_limit": "rule text limit", "requirements": "requirements", "design": "design"}


def _plain(name: str) -> str:
    return name.replace("_", " ").strip()


def section_words(name: str, trace: Trace | None = None) -> str:
    section = trace.section(name) if trace is not None else None
    if section is not None:
        return section.title
    return SECTIONS.get(name, _plain(name).capitalize())


def target_words(target: str, trace: Trace | None = None) -> str:
    """A candidate id in words: its file (and lines), a spec part, or the id as it is."""
    item = trace.item(target) if trace is not None and target else None
    if item is not None:
        name = item.source.rsplit("/security/", 1)[-1] if item.kind == "rule_file" else item.source.rsplit("/", 1)[-1]
        if item.kind != "rule_file" and item.line_start is not None:
            end = item.line_end if item.line_end is not None else item.line_start
            return f"{name}, lines {item.line_start}\u2013{end}" if end != item.line_start else f"{name}, line {end}"
        return name
    if target.startswith("rule:"):
        return target[len("rule:") :]
    return _plain(target)


def tracked_note_words(note: str) -> str:
    """``files.modify`` -> ``modified by the task``; a reason after a colon is kept."""
    head, sep, rest = note.partition(":")
    words = {
        "files.modify": "modified by the task",
        "files.read": "read by the task",
        "files.create": "created by the task",
    }.get(head.strip())
    if words is None:
        return note
    return f"{words}:{rest}" if sep else words
