"""Rich-text detail panes for one candidate: why it is where it is.

Plain functions from a trace row to a small HTML fragment (Qt's rich-text subset),
so they are easy to test and the panes stay dumb.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping, Sequence
from typing import Any

from ctxviewer.engine.registry import find
from ctxviewer.engine.trace.model import REACHED_LABELS, TRUNCATED, Item, Trace, fate_label


def mark_keywords(text: str, keywords: Sequence[str], colour: str = "#ffe58a") -> str:
    """*text* escaped, with every case-insensitive occurrence of a keyword marked."""
    words = sorted({k for k in keywords if k}, key=len, reverse=True)
    if not words:
        return html.escape(text)
    # The pipeline matches keywords in str.lower() text, so match there too.  Lowering
    # can lengthen a character ("İ" -> "i̇"), so keep where each lowered one came from.
    lowered: list[str] = []
    origin: list[int] = []
    for i, ch in enumerate(text):
        low = ch.lower()
        lowered.append(low)
        origin.extend([i] * len(low))
    pattern = re.compile("|".join(re.escape(w) for w in words))
    out: list[str] = []
    pos = 0
    for m in pattern.finditer("".join(lowered)):
        start, end = origin[m.start()], origin[m.end() - 1] + 1
        if start < pos:
            continue
        out.append(html.escape(text[pos:start]))
        out.append(f'<span style="background:{colour}; color:#000">{html.escape(text[start:end])}</span>')
        pos = end
    out.append(html.escape(text[pos:]))
    return "".join(out)


def _pre(body: str) -> str:
    return f'<pre style="white-space: pre-wrap">{body}</pre>'


def cut_line(trace: Trace, item: Item) -> str:
    """Where the top-k cut fell in this paragraph's part, in words."""
    same = [i for i in trace.items if i.kind == item.kind and i.part == item.part and i.rank is not None]
    if not same:
        return "No paragraph of this part scored above 0, so none was ranked."
    top_k = trace.settings.get("top_k")
    k = int(top_k.value) if top_k is not None else 5
    kept = [i for i in same if i.rank is not None and i.rank <= k]
    lowest = min((i.score or 0) for i in kept) if kept else 0
    first_out = next((i for i in same if i.rank == k + 1), None)
    text = f"{len(same)} {item.part} paragraphs scored above 0; the top {k} were kept (lowest kept score {lowest})"
    if first_out is not None:
        text += f"; the first left out was rank {k + 1} with score {first_out.score}"
    if item.rank is None:
        return text + ". This paragraph scored 0, so it was never ranked."
    side = "above" if item.rank <= k else "below"
    return text + f". This paragraph is rank {item.rank}, {side} the cut."


def details_text(details: Mapping[str, Any]) -> str:
    """An item's profile-specific details in a line: ``matches: password x2, hashing x1; worth: 4.93``."""
    out = []
    for key, value in details.items():
        if isinstance(value, Mapping):
            value = ", ".join(f"{k} \u00d7{v}" for k, v in value.items())
        out.append(f"{key}: {value}")
    return "; ".join(out)


def reached_rows(item: Item) -> list[str]:
    """The detail pane's line on whether the candidate's text reached the worker (none for an older trace)."""
    if not item.reached:
        return []
    label = REACHED_LABELS.get(item.reached, item.reached)
    return [f"<i>Reached the worker:</i> <b>{html.escape(label)}</b>: {html.escape(item.reached_how)}"]


def paragraph_html(trace: Trace, item: Item, mark: str = "#ffe58a", cut: str = "#9e9e9e") -> str:
    """The paragraph with its matched keywords marked and the truncation point shown."""
    lines = "" if item.line_start is None else f", lines {item.line_start}\u2013{item.line_end}"
    score = item.score if item.score is not None else "n/a"
    rank = item.rank if item.rank is not None else "\u2014"
    head = (
        f"<b>{html.escape(item.source)}</b>{lines}<br>"
        f"Score <b>{score}</b> \u00b7 rank <b>{rank}</b>"
        f" \u00b7 <b>{fate_label(item.status)}</b>: {html.escape(item.reason)}"
    )
    kws = ", ".join(html.escape(k) for k in item.matched_keywords) or "none"
    parts = [head, *(f"<br>{row}" for row in reached_rows(item)), f"<br>Matched keywords: {kws}"]
    if (profile := find(trace.profile)) is not None and profile.upstream:  # the seed's top-k cut
        parts.append(f"<br><i>Top-k cut:</i> {html.escape(cut_line(trace, item))}")
    elif item.details:
        parts.append(f"<br><i>Details:</i> {html.escape(details_text(item.details))}")
    text = item.text
    if item.status == TRUNCATED and 0 < item.kept_chars < len(text):
        kept, lost = text[: item.kept_chars], text[item.kept_chars :]
        parts.append(
            f"<br><i>Truncation:</i> {item.kept_chars:,} of {len(text):,} characters kept; "
            "the cut is marked \u2702 and the lost text is struck through."
        )
        body = (
            mark_keywords(kept, item.matched_keywords, mark)
            + '<span style="color:#d32f2f; font-weight:bold">\u2702</span>'
            + f'<span style="color:{cut}; text-decoration: line-through">{html.escape(lost)}</span>'
        )
    else:
        body = mark_keywords(text, item.matched_keywords, mark)
    parts.append(_pre(body))
    return "".join(parts)


def rule_html(item: Item) -> str:
    """A rule file's trigger, what matched it, the character arithmetic and its block."""
    d = item.details
    rows = [
        f"<b>{html.escape(item.source)}</b>",
        f"<b>{fate_label(item.status)}</b>: {html.escape(item.reason)}",
        *reached_rows(item),
    ]
    if d.get("trigger"):
        rows.append(f"Considered when: {html.escape(str(d['trigger']))}")
    matched = [e for e in d.get("matched_by") or () if isinstance(e, dict)]
    if matched:
        rows.append(
            "Matched by: "
            + ", ".join(f"{html.escape(str(e.get('file')))} ({html.escape(str(e.get('by')))})" for e in matched)
        )
    if isinstance(d.get("needed"), int):
        unit = html.escape(str(d.get("unit", "characters")))
        rows.append(f"Needed {d['needed']:,} {unit}; {d.get('left', 0):,} left of {d.get('limit', 0):,}")
    kept_lines = d.get("kept_lines")
    if isinstance(kept_lines, list | tuple) and kept_lines:
        rows.append(f"{len(kept_lines)} rule lines kept (Rule / Level / When lines)")
    body = "<br>".join(rows)
    if item.text:
        body += _pre(html.escape(item.text))
    return body
