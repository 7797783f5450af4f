"""A trace as one line of JSON: ``batch``'s JSON lines.

The line is the trace's plain data (:func:`~ctxviewer.engine.trace.model.trace_to_json` plus
the caller's *extra* keys) written by orjson.  An item that is the same paragraph in every
trace of its feature is written around JSON made once per paragraph (:func:`_items_fragment`);
every piece is orjson's, so the line is byte for byte orjson's writing of the plain data.
What orjson refuses (an int beyond 64 bits, a lone surrogate) is written by ``json`` with the
same rules.  The format: docs/trace-schema.md; why orjson: docs/architecture.md.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from typing import Any

import orjson

from ctxviewer.engine.tokens.counting import TokenCounts
from ctxviewer.engine.trace.model import Item, Trace, _free_map, trace_to_json

#: A token count's plain data by the object's identity, (the object, its data): a paragraph's
#: counts are one object in every trace of its feature.  Dropped whole at this many entries.
CACHE_LIMIT = 1 << 15
_counts: dict[int, tuple[TokenCounts, dict[str, int | None]]] = {}


def trace_json_line(trace: Trace, extra: Mapping[str, Any] | None = None) -> str:
    """The trace's plain data, with *extra*'s keys after its own (a key the trace has is
    written in its place, as a dict union writes it), as one line of compact JSON (no newline).

    *extra* holds plain JSON-able data.
    """
    try:
        return orjson.dumps(_data(trace, extra, _items_fragment)).decode("utf-8")
    except TypeError:  # orjson.JSONEncodeError: an int beyond 64 bits, a lone surrogate
        return _standard(_data(trace, extra, _items_data))


def trace_json_bytes(trace: Trace, extra: Mapping[str, Any] | None = None) -> bytes:
    """:func:`trace_json_line` as UTF-8, with its newline: what ``batch`` writes, so the line is
    never decoded and encoded again.  A lone surrogate (not text) raises ``UnicodeEncodeError``."""
    try:
        return orjson.dumps(_data(trace, extra, _items_fragment), option=orjson.OPT_APPEND_NEWLINE)
    except TypeError:  # orjson.JSONEncodeError: an int beyond 64 bits, a lone surrogate
        return (_standard(_data(trace, extra, _items_data)) + "\n").encode("utf-8")


def _data(
    trace: Trace, extra: Mapping[str, Any] | None, items_json: Callable[[tuple[Item, ...]], Any]
) -> dict[str, Any]:
    """The line's data, *items_json* writing the items."""
    data = trace_to_json(trace, items_json)
    if extra:
        data.update(extra)
    return data


def _standard(data: Any) -> str:
    """What orjson refuses, written by the standard library with orjson's rules."""
    return json.dumps(_finite(data), ensure_ascii=False, separators=(",", ":"))


def _items_fragment(items: tuple[Item, ...]) -> orjson.Fragment:
    """The items' JSON list, made for the trace's line.

    Most items of a big batch are spec paragraphs no better than outranked: the same
    paragraph, with the same text and counts, in every trace of its feature, and only its
    score, keywords, rank, status and reason its own.  Such an item is written as its
    fixed parts' JSON (made once per paragraph, see :func:`_fixed_parts`) around its own
    parts' JSON (written for all such items of the trace at once: a call to orjson per item
    would cost more than it writes); any other item as its data.  Every piece is written by
    orjson, so the list is byte for byte the one orjson writes of the items' data.  Raises
    ``TypeError`` where orjson refuses a value.
    """
    dumps = orjson.dumps
    fixed = _fixed
    plan: list[bytes | _Fixed] = []  # per item: its JSON, or its fixed parts
    keep = plan.append
    own: list[dict[str, Any]] = []
    add = own.append
    for i in items:
        if i.details or i.span is not None or type(i) is not Item:
            keep(dumps(_item(i)))
            continue
        text = i.text
        f = fixed.get(id(text))
        if (
            f is None
            or f[0] is not text
            or f[1] is not i.id
            or f[2] is not i.source
            or f[3] is not i.tokens
            or f[4] != (i.kind, i.section, i.part, i.line_start, i.line_end, i.kept_chars, i.reached, i.reached_how)
        ):
            f = _fixed_parts(i)
        keep(f)
        add(
            {
                "score": i.score,
                "matched_keywords": i.matched_keywords,
                "rank": i.rank,
                "status": i.status,
                "reason": i.reason,
            }
        )
    pieces = iter(_own_pieces(own))
    parts: list[bytes] = [b"["]
    append = parts.append
    for n, step in enumerate(plan):
        if n:
            append(b",")
        if isinstance(step, bytes):
            append(step)
        else:
            append(step[5])
            append(next(pieces))
            append(step[6])
    append(b"]")
    return orjson.Fragment(b"".join(parts))


#: How each item's own parts start in their list's JSON, and what separates two of them: inside
#: a string a quote is always escaped, so only a value that is not a string could hold these.
_FIRST_OWN = b'[{"score":'
_NEXT_OWN = b'},{"score":'


def _own_pieces(own: list[dict[str, Any]]) -> list[bytes]:
    """Each of *own* (dicts whose first key is ``score``) as its JSON from the score's value to
    the last value (no braces): one orjson call for the list, cut at the separators."""
    if not own:
        return []
    pieces = orjson.dumps(own)[len(_FIRST_OWN) : -2].split(_NEXT_OWN)
    if len(pieces) != len(own):  # a value (not a string) held the separator: one at a time
        pieces = [orjson.dumps(o)[len(_FIRST_OWN) - 1 : -1] for o in own]
    return pieces


#: A paragraph's fixed parts by its text object's identity: (text, id, source, counts, the
#: other fixed fields, the JSON up to ``score``'s value, the JSON from ``text`` on).  Dropped whole
#: at ``CACHE_LIMIT`` entries.
_Fixed = tuple[str, str, str, TokenCounts, tuple[Any, ...], bytes, bytes]
_fixed: dict[int, _Fixed] = {}


#: The fields written before an item's own ones (score to reason), and those written after.
_HEAD = ("id", "kind", "section", "part", "source", "line_start", "line_end")
_TAIL = ("text", "kept_chars", "tokens", "span", "details", "reached", "reached_how")


def _fixed_parts(i: Item) -> _Fixed:
    """The JSON of the fields an item shares with every trace of its paragraph, held for later traces."""
    data = _item(i)
    head = orjson.dumps({key: data[key] for key in _HEAD})
    tail = orjson.dumps({key: data[key] for key in _TAIL})
    found = (
        i.text,
        i.id,
        i.source,
        i.tokens,
        (i.kind, i.section, i.part, i.line_start, i.line_end, i.kept_chars, i.reached, i.reached_how),
        head[:-1] + b',"score":',
        b"," + tail[1:],
    )
    if len(_fixed) >= CACHE_LIMIT:
        _fixed.clear()
    _fixed[id(i.text)] = found
    return found


def _counts_data(counts: TokenCounts) -> dict[str, int | None]:
    """A token count's data, built once per counts object (a paragraph's counts are one
    object in every trace of its feature)."""
    found = _counts.get(id(counts))
    if found is None or found[0] is not counts:
        if len(_counts) >= CACHE_LIMIT:
            _counts.clear()
        found = _counts[id(counts)] = (counts, counts.to_json())
    return found[1]


def _items_data(items: tuple[Item, ...]) -> list[dict[str, Any]]:
    """The items as plain data for orjson (each :func:`_item`)."""
    return [_item(i) for i in items]


def _item(i: Item) -> dict[str, Any]:
    """``model._item_json``'s data for orjson: tuples left as they are (orjson writes them as
    lists) and each token count's data built once."""
    return {
        "id": i.id,
        "kind": i.kind,
        "section": i.section,
        "part": i.part,
        "source": i.source,
        "line_start": i.line_start,
        "line_end": i.line_end,
        "score": i.score,
        "matched_keywords": i.matched_keywords,
        "rank": i.rank,
        "status": i.status,
        "reason": i.reason,
        "text": i.text,
        "kept_chars": i.kept_chars,
        "tokens": _counts_data(i.tokens),
        "span": i.span,
        "details": _free_map(i.details) if i.details else {},
        "reached": i.reached,
        "reached_how": i.reached_how,
    }


def _finite(value: Any) -> Any:
    """*value* with every float that is not finite replaced by None, as orjson writes it."""
    kind = type(value)
    if kind is float:
        return value if math.isfinite(value) else None
    if kind is dict:
        return {k: _finite(v) for k, v in value.items()}
    if kind is list or kind is tuple:
        return [_finite(v) for v in value]
    return value
