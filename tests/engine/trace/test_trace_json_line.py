"""``trace_json_line``: a trace's JSON line written straight to text, against ``json.dumps``.

The line must be, byte for byte, ``json.dumps(trace_to_json(trace) | extra, ensure_ascii=False)``
-- on every profile's traces of every sample project, the second time (from its caches) as the
first, and for values the engine does not write today but a trace may hold (a bool or a float
where an int is declared, an int or str subclass, text needing escapes, non-string keys, a value
the fast path cannot hash).
"""

from __future__ import annotations

import dataclasses
import enum
import json
from collections.abc import Mapping
from typing import Any

import pytest

from ctxviewer.engine.project.loading import load_project
from ctxviewer.engine.project.settings import PROFILES
from ctxviewer.engine.runs.batch import run_batch
from ctxviewer.engine.tokens.counting import TokenCounts
from ctxviewer.engine.trace import jsonline
from ctxviewer.engine.trace.jsonline import trace_json_line
from ctxviewer.engine.trace.model import Trace, trace_to_json
from tests.conftest import SAMPLES


def expected(trace: Trace, extra: Mapping[str, Any] | None = None) -> str:
    return json.dumps(trace_to_json(trace) | dict(extra or {}), ensure_ascii=False)


def _traces(profile: str) -> list[Trace]:
    out = []
    for root in sorted(p for p in SAMPLES.iterdir() if p.is_dir()):
        project = load_project(root)
        settings = project.settings.with_overrides({"profile": profile}, "test")
        out.extend(row.trace for row in run_batch(project, settings=settings, exact=True) if row.trace is not None)
    return out


@pytest.mark.parametrize("profile", PROFILES)
def test_every_profile_writes_the_bytes_json_dumps_writes(profile: str) -> None:
    jsonline.clear_caches()
    traces = _traces(profile)
    assert traces
    extra = {"findings": [{"code": "x", "severity": "warning", "item": "requirements:1", "message": "“quoted”\n"}]}
    for trace in traces:
        assert trace_json_line(trace, extra) == expected(trace, extra), trace.task_id
    for trace in traces:  # again, now from the caches (strings, unranked items, counts)
        assert trace_json_line(trace, extra) == expected(trace, extra), trace.task_id
        assert trace_json_line(trace) == expected(trace), trace.task_id


class Level(enum.IntEnum):
    HIGH = 3


class Name(str):
    pass


def _odd_trace() -> Trace:
    base = _traces("mahabharatha")[0]
    first = base.items[0]
    counts = TokenCounts(7, 1, None, 2)
    odd = [
        dataclasses.replace(
            first,
            id=Name("requirements:\u00e9"),
            text='quote " backslash \\ tab \t nul \x00 line\u2028sep \ud800 \u00e9\U0001f600',
            reason="ctrl \x1f and \x7f",
            matched_keywords=("caf\u00e9", 'a"b', Name("named")),
            score=True,
            rank=Level.HIGH,
            line_start=None,
            line_end=2**70,
            kept_chars=1.5,  # type: ignore[arg-type]
            tokens=counts,
            span=(0, 4),
            details={1: ("a", None), 2.5: float("nan"), None: [float("inf"), -0.0], "c": counts},
        ),
        dataclasses.replace(first, rank=None, tokens=counts),  # shares its counts with the first
        dataclasses.replace(first, reason=["not", "a", "string"], rank=None),  # type: ignore[arg-type]
        dataclasses.replace(first, status=Name("included"), score=-(2**63)),
    ]
    return dataclasses.replace(base, items=(*odd, odd[1]), context='ctx \u00e9\n"q"', budget=Level.HIGH)


def test_odd_values_are_written_as_json_dumps_writes_them() -> None:
    jsonline.clear_caches()
    trace = _odd_trace()
    for _ in range(2):
        assert trace_json_line(trace) == expected(trace)
    # An extra key the trace has is written in its place, as the dict union writes it.
    extra = {"warnings": ["w\u00e9"], "z": {1: 2}}
    assert trace_json_line(trace, extra) == expected(trace, extra)


def test_the_caches_stay_within_their_limit_and_change_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    jsonline.clear_caches()
    monkeypatch.setattr(jsonline, "CACHE_LIMIT", 3)
    traces = _traces("mahabharatha")[:4]
    for trace in [*traces, *traces]:
        assert trace_json_line(trace) == expected(trace)
        assert len(jsonline._strings) <= 3 and len(jsonline._items) <= 3 and len(jsonline._counts) <= 3


def test_an_unranked_item_is_written_once_and_read_back_by_identity() -> None:
    jsonline.clear_caches()
    trace = next(t for t in _traces("mahabharatha") if any(i.rank is None for i in t.items))
    unranked = [i for i in trace.items if i.rank is None]
    trace_json_line(trace)
    assert {id(i) for i in unranked} <= set(jsonline._items)
    assert not any(i.rank is not None and id(i) in jsonline._items for i in trace.items)
    # A new item equal to a cached one is a miss (by identity), and writes the same text.
    copy = dataclasses.replace(unranked[0])
    assert jsonline._item(copy) == jsonline._items[id(unranked[0])][1]
