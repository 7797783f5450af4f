"""Phase 2, knowledge: the context map's knowledge nodes scored by their tags, ranked and limited.

A node's score in a query is the number of its tags among the query's words.  The keyword
query keeps the 20 best-scoring nodes, the domain query the 10 best (ties in file order);
merged keyword query first, a node found by both keeps its keyword score.  Each category
(patterns, gotchas, decisions, related tasks) is then sorted by score and cut at its limit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ctxviewer.engine.profiles.base import ItemDraft
from ctxviewer.engine.profiles.computed.model import (
    DOMAIN_QUERY_LIMIT,
    KEYWORD_QUERY_LIMIT,
    KNOWLEDGE,
    NODE_TYPES,
    RELATED,
    Entries,
    Entry,
    Limits,
)
from ctxviewer.engine.profiles.computed.sources import ContextMap, Node
from ctxviewer.engine.trace.model import INCLUDED, NOT_CANDIDATE, OUTRANKED, Signals

#: A node a query found: the node, its score, the tags that scored.
Hit = tuple[Node, int, tuple[str, ...]]


@dataclass
class Knowledge:
    """What phase 2 decided."""

    #: Candidates for the patterns, warnings and decisions sections, each in rank order.
    entries: Entries = field(default_factory=dict)
    #: Nodes with no place in the injection: related tasks, and nodes no query kept.
    others: list[ItemDraft] = field(default_factory=list)
    #: Nodes either query found (the debug record's "Nodes matched").
    matched: int = 0


def node_score(node: Node, words: Sequence[str]) -> tuple[int, tuple[str, ...]]:
    """How many of the node's tags are among *words*, and which."""
    hit = tuple(t for t in node.tags if t in words)
    return len(hit), hit


def query(nodes: Sequence[Node], words: Sequence[str], limit: int) -> tuple[list[Hit], list[Node]]:
    """The best *limit* nodes scoring above 0 for *words* (ties in file order), and those over the limit."""
    scored = []
    for node in nodes:
        score, hit = node_score(node, words)
        if score:
            scored.append((node, score, hit))
    scored.sort(key=lambda t: -t[1])
    return scored[:limit], [n for n, _, _ in scored[limit:]]


def node_text(node: Node) -> str:
    """The node's line in the injection."""
    if node.type == "pattern":
        return f"- **{node.summary}**" + (f" (see: {node.file})" if node.file else "")
    if node.type == "gotcha":
        return f"- \u26a0\ufe0f **{node.severity}**: {node.summary}"
    return f"- {node.summary}"


def select_knowledge(cmap: ContextMap, signals: Signals, limits: Limits) -> Knowledge:
    """Score, rank and limit every knowledge node of *cmap* for the task's *signals*."""
    by_keyword, keyword_over = query(cmap.nodes, signals.values("keyword"), KEYWORD_QUERY_LIMIT)
    by_domain, domain_over = query(cmap.nodes, signals.values("domain"), DOMAIN_QUERY_LIMIT)
    found: dict[int, tuple[Node, int, tuple[str, ...], str]] = {}
    for node, score, hit in by_keyword:
        found[node.index] = (node, score, hit, "keyword")
    for node, score, hit in by_domain:
        found.setdefault(node.index, (node, score, hit, "domain"))
    over = {n.index for n in keyword_over} | {n.index for n in domain_over}
    categories: dict[str, list[tuple[Node, int, tuple[str, ...], str]]] = {}
    for entry in found.values():
        categories.setdefault(NODE_TYPES[entry[0].type], []).append(entry)
    out = Knowledge(matched=len(found))
    placed: set[int] = set()
    for category, entries in categories.items():
        entries.sort(key=lambda e: -e[1])
        limit, why = limits[category]
        for rank, (node, score, hit, by) in enumerate(entries, 1):
            placed.add(node.index)
            reason = f"{by} query: tags {', '.join(hit)} (score {score}); rank {rank} of {len(entries)}"
            if category == RELATED:
                status, reason = (
                    NOT_CANDIDATE,
                    reason + "; a related task: counted, the injection format has no place for it",
                )
                if rank > limit:
                    reason = f"{by} query: score {score}; rank {rank}: over the limit, {why}"
                out.others.append(node_draft(cmap.path, node, RELATED, score, hit, rank, status, reason, ""))
                continue
            draft = node_draft(cmap.path, node, category, score, hit, rank, INCLUDED, reason, node_text(node))
            candidate = Entry(category, draft, draft.text)
            if rank > limit:
                candidate.kept = False
                draft.status = OUTRANKED
                draft.reason = f"{by} query: score {score}; rank {rank} of {len(entries)}: cut, {why}"
            out.entries.setdefault(category, []).append(candidate)
    for node in cmap.nodes:
        if node.index in placed:
            continue
        fate = NOT_CANDIDATE
        if node.index in over:
            reason = "tags match, but the query already had its limit of better-scoring nodes"
            fate = OUTRANKED
        elif not node.tags:
            reason = "no tags: no query can find it"
        else:
            reason = "no tag among the task's keywords or domains"
        out.others.append(
            node_draft(cmap.path, node, NODE_TYPES[node.type], 0, (), None, fate, reason, node_text(node))
        )
    return out


def node_draft(
    map_path: str,
    node: Node,
    section: str,
    score: int,
    hit: tuple[str, ...],
    rank: int | None,
    status: str,
    reason: str,
    text: str,
) -> ItemDraft:
    """The trace item of one knowledge node of the context map at *map_path*."""
    details: dict[str, Any] = {"type": node.type, "summary": node.summary, "tags": list(node.tags)}
    if node.id:
        details["id"] = node.id
    if node.file:
        details["file"] = node.file
    if node.type == "gotcha":
        details["severity"] = node.severity
    if node.rationale:
        details["rationale"] = node.rationale
    return ItemDraft(
        id=f"knowledge:{node.index}",
        kind=KNOWLEDGE,
        section=section,
        part=node.type,
        source=f"{map_path} knowledge[{node.index}]",
        line_start=None,
        line_end=None,
        score=score,
        matched=hit,
        rank=rank,
        status=status,
        reason=reason,
        text=text,
        kept_chars=0,
        details=details,
    )
