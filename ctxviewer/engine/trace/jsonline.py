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

from ctxviewer.engine.trace.model import Trace, trace_to_json


def trace_json_line(trace: Trace, extra: Mapping[str, Any] | None = None) -> str:
    """The trace's plain data, with *extra*'s keys after its own (a key the trace has is
    written in its place, as a dict union writes it), as one line of compact JSON (no newline).

    *extra* holds plain JSON-able data.
    """
    data = trace_to_json(trace)
    if extra:
        data.update(extra)
    return json_line(data)


def json_line(data: Any) -> str:
    """Plain JSON-able *data* as one line of compact, strict JSON (see the module's docstring)."""
    try:
        return orjson.dumps(data).decode("utf-8")
    except TypeError:  # orjson.JSONEncodeError: an int beyond 64 bits, a lone surrogate
        return json.dumps(_finite(data), ensure_ascii=False, separators=(",", ":"))


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
