"""Phase 4, code references: the context map's components scored against the task's signals.

Each entry scores +2 per keyword in its component name, +1 per keyword in its location,
+1 per domain in its notes (lowercased substring tests) and +3 per file mentioned that
its location contains; entries scoring above 0 are ranked by score (stable) and limited.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ctxviewer.engine.profiles.base import ItemDraft
from ctxviewer.engine.profiles.computed.model import CODE_REFS, MAP_ENTRY, Entry
from ctxviewer.engine.profiles.computed.sources import Component, ContextMap
from ctxviewer.engine.trace.model import INCLUDED, NOT_CANDIDATE, OUTRANKED, Signals


@dataclass
class CodeRefs:
    """What phase 4 decided."""

    #: Every entry scoring above 0, in rank order (those past the limit not kept).
    entries: list[Entry] = field(default_factory=list)
    #: Entries scoring 0, in file order.
    others: list[ItemDraft] = field(default_factory=list)
    #: For the debug record: entries in the map, entries kept by the limit, the best score.
    total: int = 0
    kept: int = 0
    top_score: int = 0


def component_score(
    entry: Component, keywords: Sequence[str], domains: Sequence[str], files: Sequence[str]
) -> tuple[int, dict[str, list[str]]]:
    """Seed 004's phase 4 score of one context-map entry, with what scored."""
    why: dict[str, list[str]] = {"component": [], "location": [], "notes": [], "file": []}
    score = 0
    component, location, notes = entry.component.lower(), entry.location.lower(), entry.notes.lower()
    for keyword in keywords:
        if keyword in component:
            score += 2
            why["component"].append(keyword)
        if keyword in location:
            score += 1
            why["location"].append(keyword)
    for domain in domains:
        if domain.lower() in notes:
            score += 1
            why["notes"].append(domain)
    for path in files:
        if path in entry.location:
            score += 3
            why["file"].append(path)
    return score, why


def row_text(entry: Component) -> str:
    """The entry's row in the Code References table."""
    return f"| `{_cell(entry.location)}` | {_cell(entry.component)} | {_cell(entry.notes)} |"


def rank_code_refs(cmap: ContextMap, signals: Signals, limit: tuple[int, str]) -> CodeRefs:
    """Score every component of *cmap*, rank those above 0, and keep the best *limit* (count, who set it)."""
    keywords = signals.values("keyword")
    domains = signals.values("domain")
    files = signals.values("file")
    scored: list[tuple[Component, int, dict[str, list[str]]]] = []
    for entry in cmap.components:
        score, why = component_score(entry, keywords, domains, files)
        scored.append((entry, score, why))
    ranked = sorted((s for s in scored if s[1] > 0), key=lambda s: -s[1])
    rank_of = {s[0].index: r for r, s in enumerate(ranked, 1)}
    most, why_limit = limit
    out = CodeRefs(total=len(cmap.components), kept=min(len(ranked), most), top_score=ranked[0][1] if ranked else 0)
    for entry, score, why in sorted(scored, key=lambda s: rank_of.get(s[0].index, len(scored) + s[0].index)):
        rank = rank_of.get(entry.index)
        matched = tuple(dict.fromkeys(w for words in why.values() for w in words))
        parts = [f"{k}: {', '.join(v)}" for k, v in why.items() if v]
        text = row_text(entry)
        draft = ItemDraft(
            id=f"component:{entry.index}",
            kind=MAP_ENTRY,
            section=CODE_REFS,
            part="component",
            source=f"{cmap.path} components[{entry.index}]",
            line_start=None,
            line_end=None,
            score=score,
            matched=matched,
            rank=rank,
            status=INCLUDED,
            reason="",
            text=text,
            kept_chars=0,
            details={
                "component": entry.component,
                "location": entry.location,
                "notes": entry.notes,
                "score_breakdown": why,
            },
        )
        if rank is None:
            draft.status = NOT_CANDIDATE
            draft.reason = "score 0: no keyword in its component or location, no domain in its notes, no file mentioned"
            out.others.append(draft)
            continue
        draft.reason = f"score {score} ({'; '.join(parts)}); rank {rank} of {len(ranked)}"
        item = Entry(CODE_REFS, draft, text)
        if rank > most:
            item.kept = False
            draft.status = OUTRANKED
            draft.reason += f": cut, {why_limit}"
        out.entries.append(item)
    return out


def _cell(text: str) -> str:
    return text.replace("|", "\\|")
