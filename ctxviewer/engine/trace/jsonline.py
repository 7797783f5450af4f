"""A trace as one line of JSON, written straight to text: ``batch``'s JSON lines.

:func:`trace_json_line` gives exactly the text ``json.dumps(trace_to_json(trace) | extra,
ensure_ascii=False)`` gives, byte for byte, without building the plain data first.  A
batch line holds every candidate of the task, so each line repeats the spec paragraphs of
its feature; building a dict per item and encoding it again cost about as much as
assembling the trace (issue 20).  Here each item is written by one f-string, and the parts
that repeat from task to task are encoded once and reused:

* every string an item holds (its id, source, text, reason ...) is escaped once per
  distinct string (the same paragraph text object comes back for every task);
* an item without a rank, which a profile typically shares between tasks (a paragraph
  no keyword matched is the same object in every trace of its feature), is written once,
  by identity (an item ranked this run is new and is not kept);
* token counts are written once per counts object.

Free-form values (an item's ``details``, a setting's value) and the small parts of the
trace go through ``json.dumps`` of :func:`~ctxviewer.engine.trace.model.trace_to_json`'s
own pieces, so they are the same by construction.  tests/engine/trace/test_trace_json_line.py
holds the whole line to ``json.dumps`` on every profile's traces and on odd values.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from json.encoder import encode_basestring
from typing import Any

from ctxviewer.engine.tokens.counting import TokenCounts
from ctxviewer.engine.trace import model
from ctxviewer.engine.trace.model import Item, Trace

_escape: Callable[[str], str] = encode_basestring  # the C escaper json.dumps(ensure_ascii=False) uses

#: Each cache is dropped whole when it reaches this many entries, so a batch of any size holds
#: a few tens of megabytes of encoded text at most.
CACHE_LIMIT = 1 << 15

_strings: dict[str, str] = {}
#: Items and token counts by identity: (the object, its text) -- the object is held so its
#: id is not reused while the entry lives.
_items: dict[int, tuple[Item, str]] = {}
_counts: dict[int, tuple[TokenCounts, str]] = {}


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _string(value: Any) -> str:
    """A string value as JSON, escaped once per distinct string; anything else as json.dumps writes it."""
    if type(value) is not str:
        return _dumps(value)
    found = _strings.get(value)
    if found is None:
        if len(_strings) >= CACHE_LIMIT:
            _strings.clear()
        found = _strings[value] = _escape(value)
    return found


def _number(value: Any) -> str:
    """An int (or None) as JSON; anything else as json.dumps writes it."""
    if type(value) is int:
        return int.__repr__(value)
    if value is None:
        return "null"
    return _dumps(value)


def _token_counts(counts: TokenCounts) -> str:
    found = _counts.get(id(counts))
    if found is not None and found[0] is counts:
        return found[1]
    if len(_counts) >= CACHE_LIMIT:
        _counts.clear()
    text = _dumps(counts.to_json())
    _counts[id(counts)] = (counts, text)
    return text


def _strings_list(values: tuple[str, ...]) -> str:
    if not values:
        return "[]"
    get, s = _strings.get, _string
    return "[" + ", ".join([get(v) or s(v) for v in values]) + "]"


def _span(span: tuple[int, int] | None) -> str:
    return "null" if span is None else _dumps(model._span_json(span))


def _item(i: Item) -> str:
    found = _items.get(id(i))
    if found is not None and found[0] is i:
        return found[1]
    try:
        text = _item_text(i)
    except TypeError:  # a value of a type the fast path does not hash (not one the engine writes)
        text = _dumps(model._item_json(i))
    if i.rank is None:
        if len(_items) >= CACHE_LIMIT:
            _items.clear()
        _items[id(i)] = (i, text)
    return text


def _item_text(i: Item) -> str:
    # Each field as _string / _number write it, with their common cases inline: a string
    # seen before is one dict look-up, an int is written by the f-string as int.__repr__ does.
    get, s, n = _strings.get, _string, _number
    ls, le, score, rank, kept = i.line_start, i.line_end, i.score, i.rank, i.kept_chars
    return (
        f'{{"id": {get(i.id) or s(i.id)}, "kind": {get(i.kind) or s(i.kind)}, '
        f'"section": {get(i.section) or s(i.section)}, "part": {get(i.part) or s(i.part)}, '
        f'"source": {get(i.source) or s(i.source)}, '
        f'"line_start": {ls if type(ls) is int else n(ls)}, "line_end": {le if type(le) is int else n(le)}, '
        f'"score": {score if type(score) is int else n(score)}, '
        f'"matched_keywords": {_strings_list(i.matched_keywords)}, '
        f'"rank": {rank if type(rank) is int else n(rank)}, "status": {get(i.status) or s(i.status)}, '
        f'"reason": {get(i.reason) or s(i.reason)}, "text": {get(i.text) or s(i.text)}, '
        f'"kept_chars": {kept if type(kept) is int else n(kept)}, "tokens": {_token_counts(i.tokens)}, '
        f'"span": {_span(i.span)}, "details": {_dumps(model._free_map(i.details)) if i.details else "{}"}}}'
    )


def trace_json_line(trace: Trace, extra: Mapping[str, Any] | None = None) -> str:
    """``json.dumps(trace_to_json(trace) | extra, ensure_ascii=False)``, byte for byte (no newline).

    *extra* holds plain JSON-able data, written after the trace's keys (a key of the trace's
    own is written in its place, as the dict union would).
    """
    items = "[" + ", ".join([_item(i) for i in trace.items]) + "]"
    parts: dict[str, str] = {
        "schema_version": _string(trace.schema_version),
        "project": _string(trace.project),
        "feature": _string(trace.feature),
        "task_id": _string(trace.task_id),
        "task_title": _string(trace.task_title),
        "profile": _string(trace.profile),
        "tokenizer": _string(trace.tokenizer),
        "budget": _number(trace.budget),
        "section_budgets": _dumps(model._free_map(trace.section_budgets)),
        "buffer": _number(trace.buffer),
        "context": _escape(trace.context) if type(trace.context) is str else _dumps(trace.context),
        "context_tokens": _token_counts(trace.context_tokens),
        "sections": _dumps([model._section_json(s) for s in trace.sections]),
        "items": items,
        "trim_steps": _dumps([model._step_json(s) for s in trace.trim_steps]),
        "keywords": _dumps([model._keyword_json(k) for k in trace.keywords]),
        "tracker": _dumps(model._tracker_json(trace.tracker)),
        "errors": _dumps([model._error_json(e) for e in trace.errors]),
        "settings": _dumps(
            {str(k): {"value": model._free(s.value), "origin": s.origin} for k, s in trace.settings.items()}
        ),
        "task_files": _dumps(list(trace.task_files)),
        "warnings": _dumps(list(trace.warnings)),
        "signals": _dumps(model._signals_json(trace.signals)),
        "window": _dumps(model._window_json(trace.window)),
        "debug": _dumps(trace.debug),
        "upstream": _dumps(trace.upstream),
        "upstream_reason": _dumps(trace.upstream_reason),
        "graph_feature": _dumps(trace.graph_feature),
        "token_record": _dumps(None if trace.token_record is None else dict(trace.token_record)),
    }
    for key, value in (extra or {}).items():
        parts[key] = _dumps(value)
    return "{" + ", ".join([f"{_escape(key)}: {text}" for key, text in parts.items()]) + "}"


def clear_caches() -> None:
    """Forget every encoded string, item and count (benchmarks start cold with this)."""
    _strings.clear()
    _items.clear()
    _counts.clear()
