"""Answering "why was it dropped?": find every candidate that mentions a word.

A user types a word, a rule name or a file path; :func:`find_candidates` lists every
candidate of a trace (spec paragraphs and rule files, selected or not) that contains
it, with its fate and the pipeline's reason.  Matching is case-insensitive and looks
at the candidate's text, its source file, its id, its matched keywords and the
details the pipeline recorded (a rule file's trigger, the task files that matched it).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ctxviewer.engine.trace.model import Item, Trace

#: Where a query was found, in the order a match is reported.
FIELDS = ("source", "keyword", "text", "rule")


@dataclass(frozen=True, slots=True)
class Match:
    """One candidate that contains the query."""

    item_id: str
    kind: str
    label: str
    status: str
    reason: str
    found_in: tuple[str, ...]
    excerpt: str


def _excerpt(text: str, needle: str, width: int = 60) -> str:
    """The text around the first occurrence of *needle* (case-insensitive), on one line."""
    at = text.lower().find(needle)
    if at < 0:
        return ""
    start = max(0, at - width)
    end = min(len(text), at + len(needle) + width)
    snippet = " ".join(text[start:end].split())
    return ("…" if start > 0 else "") + snippet + ("…" if end < len(text) else "")


def _detail_strings(item: Item) -> Iterable[str]:
    trigger = item.details.get("trigger")
    if isinstance(trigger, str):
        yield trigger
    matched = item.details.get("matched_by")
    if isinstance(matched, list | tuple):
        for entry in matched:
            if isinstance(entry, dict):
                yield " ".join(str(v) for v in entry.values())


def item_label(item: Item) -> str:
    """A short human label: the file and, for paragraphs, the lines."""
    if item.line_start is not None and item.kind != "rule_file":
        return f"{item.source}:{item.line_start}-{item.line_end}"
    return item.source


def find_candidates(trace: Trace, query: str) -> list[Match]:
    """Every candidate mentioning *query*, in trace order; empty for a blank query."""
    needle = query.strip().lower()
    if not needle:
        return []
    out: list[Match] = []
    for item in trace.items:
        found: list[str] = []
        if needle in item.source.lower() or needle in item.id.lower():
            found.append("source")
        if any(needle in k.lower() for k in item.matched_keywords):
            found.append("keyword")
        if needle in item.text.lower():
            found.append("text")
        if any(needle in s.lower() for s in _detail_strings(item)):
            found.append("rule")
        if not found:
            continue
        excerpt = _excerpt(item.text, needle) if "text" in found else ""
        out.append(
            Match(
                item_id=item.id,
                kind=item.kind,
                label=item_label(item),
                status=item.status,
                reason=item.reason,
                found_in=tuple(found),
                excerpt=excerpt,
            )
        )
    return out


def keyword_sources(trace: Trace, query: str) -> list[str]:
    """If *query* is one of the task's keywords, where it came from (else empty)."""
    needle = query.strip().lower()
    for kw in trace.keywords:
        if kw.word.lower() == needle:
            return list(kw.sources)
    return []
