"""A trace as one line of JSON: ``batch``'s JSON lines.

A batch line holds every candidate of its task (a few hundred items on a big feature), so
writing the lines is a large share of a batch (issue 20).  The line is the trace's plain data
(:func:`~ctxviewer.engine.trace.model.trace_to_json`, plus the caller's *extra* keys) written by
orjson: a serialiser in compiled code that writes dicts, lists and strings about ten times as
fast as the standard library's ``json`` module does on this data (``bench/bench_jsonline.py``).
It was chosen over keeping our own writer (the f-string writer with escape caches it
replaced was 3x slower and 200 lines to keep byte-identical to ``json.dumps``) because it
is a single well-kept package with wheels for every platform PySide6 has.

The line is compact JSON (no spaces after ``,`` and ``:``), UTF-8 as is (nothing escaped
to ``\\uXXXX`` but what JSON requires), and strict: a float that is not finite (which only a
free-form setting could hold) is written ``null``, not the ``NaN`` ``json.dumps`` writes and
strict readers refuse.  orjson refuses two things the engine never produces but a trace could
hold: an int beyond 64 bits and a lone surrogate in a string.  A line holding one is written
by ``json.dumps`` instead, with the same separators and the same non-finite floats as
``null``, so it reads back to the same data.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
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
    return json_line(_data(trace, extra))


def trace_json_bytes(trace: Trace, extra: Mapping[str, Any] | None = None) -> bytes:
    """:func:`trace_json_line` as UTF-8, with its newline: what ``batch`` writes, so the line is
    never decoded and encoded again.  A lone surrogate (not text) raises ``UnicodeEncodeError``."""
    data = _data(trace, extra)
    try:
        return orjson.dumps(data, option=orjson.OPT_APPEND_NEWLINE)
    except TypeError:  # orjson.JSONEncodeError: an int beyond 64 bits, a lone surrogate
        return (_standard(data) + "\n").encode("utf-8")


def json_line(data: Any) -> str:
    """Plain JSON-able *data* as one line of compact, strict JSON (see the module's docstring)."""
    try:
        return orjson.dumps(data).decode("utf-8")
    except TypeError:  # orjson.JSONEncodeError: an int beyond 64 bits, a lone surrogate
        return _standard(data)


def _data(trace: Trace, extra: Mapping[str, Any] | None) -> dict[str, Any]:
    data = trace_to_json(trace, _item)
    if extra:
        data.update(extra)
    return data


def _standard(data: Any) -> str:
    """What orjson refuses, written by the standard library with orjson's rules."""
    return json.dumps(_finite(data), ensure_ascii=False, separators=(",", ":"))


def _item(i: Item) -> dict[str, Any]:
    """``model._item_json``'s data for orjson: tuples left as they are (orjson writes them as
    lists) and each token count's data built once (a quarter less time on a big batch)."""
    counts = i.tokens
    found = _counts.get(id(counts))
    if found is None or found[0] is not counts:
        if len(_counts) >= CACHE_LIMIT:
            _counts.clear()
        found = _counts[id(counts)] = (counts, counts.to_json())
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
        "tokens": found[1],
        "span": i.span,
        "details": _free_map(i.details) if i.details else {},
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
