"""``trace_json_line``: a trace as one line of compact, strict JSON that reads back to its plain data.

Every profile's traces of every sample project, and values the engine does not write today
but a trace may hold (a bool or a float where an int is declared, an int or str subclass,
text needing escapes, a float that is not finite, an int beyond 64 bits, a lone surrogate).
"""

from __future__ import annotations

import dataclasses
import enum
import json
import math
from collections.abc import Mapping
from typing import Any

import orjson
import pytest

from ctxviewer.engine.project.loading import load_project
from ctxviewer.engine.registry import PROFILES
from ctxviewer.engine.runs.batch import run_batch
from ctxviewer.engine.tokens.counting import TokenCounts
from ctxviewer.engine.trace import jsonline
from ctxviewer.engine.trace.jsonline import trace_json_bytes, trace_json_line
from ctxviewer.engine.trace.model import Trace, trace_from_json, trace_to_json
from tests.conftest import SAMPLES


def _refuse(constant: str) -> None:
    raise AssertionError(f"not strict JSON: {constant}")


def read(line: str) -> Any:
    """The line read back by a strict reader (NaN and Infinity refused)."""
    assert "\n" not in line and "\r" not in line
    return json.loads(line, parse_constant=_refuse)


def plain(value: Any) -> Any:
    """What *value* (plain data) reads back as: tuples as lists, non-finite floats as None."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


def expected(trace: Trace, extra: Mapping[str, Any] | None = None) -> Any:
    return plain(trace_to_json(trace) | dict(extra or {}))


def _traces(profile: str) -> list[Trace]:
    out = []
    for root in sorted(p for p in SAMPLES.iterdir() if p.is_dir()):
        project = load_project(root)
        settings = project.settings.with_overrides({"profile": profile}, "test")
        out.extend(row.trace for row in run_batch(project, settings=settings, exact=True) if row.trace is not None)
    return out


@pytest.mark.parametrize("profile", PROFILES)
def test_every_profile_writes_a_line_that_reads_back_to_the_trace(profile: str) -> None:
    traces = _traces(profile)
    assert traces
    extra = {"findings": [{"code": "x", "severity": "warning", "item": "requirements:1", "message": "“quoted”\n"}]}
    for trace in traces:
        line = trace_json_line(trace, extra)
        assert read(line) == expected(trace, extra), trace.task_id
        assert trace_json_bytes(trace, extra) == (line + "\n").encode("utf-8")
        # Byte for byte what orjson writes of the plain data (items are written in pieces).
        assert trace_json_bytes(trace, extra) == orjson.dumps(
            trace_to_json(trace) | extra, option=orjson.OPT_APPEND_NEWLINE
        ), trace.task_id
        # The trace's own keys read back as the trace itself; the extra key comes last.
        assert trace_from_json(read(trace_json_line(trace))) == trace, trace.task_id
        assert list(read(line))[-1] == "findings"


def test_the_line_is_compact_and_keeps_text_as_it_is() -> None:
    trace = _traces("mahabharatha")[0]
    trace = dataclasses.replace(trace, task_title="Caf\u00e9 \U0001f600 “q”")
    line = trace_json_line(trace)
    assert line.startswith('{"schema_version":"')
    assert ', "' not in line.replace(trace.context, "")  # no space after a separator
    assert "Caf\u00e9 \U0001f600 “q”" in line  # not escaped to \\uXXXX


class Level(enum.IntEnum):
    HIGH = 3


class Name(str):
    pass


def _odd_trace(**item: Any) -> Trace:
    base = _traces("mahabharatha")[0]
    first = base.items[0]
    counts = TokenCounts(7, 1, None, 2)
    fields: dict[str, Any] = {
        "text": 'quote " backslash \\ tab \t nul \x00 line\u2028sep \u00e9\U0001f600',
        **item,
    }
    odd = [
        dataclasses.replace(
            first,
            id=Name("requirements:\u00e9"),
            reason="ctrl \x1f and \x7f",
            matched_keywords=("caf\u00e9", 'a"b', Name("named")),
            score=True,
            rank=Level.HIGH,
            line_start=None,
            kept_chars=1.5,  # type: ignore[arg-type]
            tokens=counts,
            span=(0, 4),
            details={1: ("a", None), 2.5: float("nan"), None: [float("inf"), -0.0], "c": counts},
            **fields,
        ),
        dataclasses.replace(first, reason=["not", "a", "string"], rank=None),  # type: ignore[arg-type]
        dataclasses.replace(first, status=Name("included"), score=-(2**63)),
    ]
    return dataclasses.replace(base, items=tuple(odd), context='ctx \u00e9\n"q"', budget=Level.HIGH)


def test_odd_values_read_back_as_their_plain_data() -> None:
    trace = _odd_trace()
    assert read(trace_json_line(trace)) == expected(trace)
    extra = {"warnings": ["w\u00e9"], "z": {"1": 2}}
    assert read(trace_json_line(trace, extra)) == expected(trace, extra)


@pytest.mark.parametrize(
    "item",
    [{"line_end": 2**70}, {"text": "lone \ud800 surrogate"}],
    ids=["int beyond 64 bits", "lone surrogate"],
)
def test_what_orjson_refuses_is_written_by_json_with_the_same_rules(item: dict[str, Any]) -> None:
    trace = _odd_trace(**item)
    line = trace_json_line(trace)
    assert read(line) == expected(trace)  # the NaN in the details is null here too
    assert line.startswith('{"schema_version":"')
    (key, value), *_ = item.items()
    assert read(line)["items"][0][key] == value
    if key == "text":  # not text: it cannot be written as UTF-8 (the command line says so)
        with pytest.raises(UnicodeEncodeError):
            trace_json_bytes(trace)
    else:
        assert trace_json_bytes(trace) == (line + "\n").encode("utf-8")


def test_the_token_count_cache_stays_within_its_limit_and_changes_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    jsonline._counts.clear()
    monkeypatch.setattr(jsonline, "CACHE_LIMIT", 3)
    traces = _traces("mahabharatha")[:4]
    for trace in [*traces, *traces]:
        assert read(trace_json_line(trace)) == expected(trace)
        assert len(jsonline._counts) <= 3
    # A new counts object equal in value to nothing cached is written as its own data.
    trace = traces[0]
    changed = dataclasses.replace(trace.items[0], tokens=TokenCounts(1, 2, 3, 4))
    line = read(trace_json_line(dataclasses.replace(trace, items=(changed,))))
    assert line["items"][0]["tokens"] == {"chars": 1, "heuristic": 2, "cl100k_base": 3, "o200k_base": 4}


def test_items_sharing_a_paragraphs_text_are_each_written_as_their_own_data() -> None:
    """Paragraph items are written around JSON held for their text object: an item sharing
    that object but not the paragraph's other fixed fields (or holding details or a span)
    is written as its own data, in whatever order the items come."""
    base = _traces("mahabharatha")[0]
    first = next(i for i in base.items if i.kind == "spec_paragraph" and not i.details and i.span is None)
    text = first.text
    variants = [
        first,
        dataclasses.replace(first, id="design:99", score=3, matched_keywords=("a", "b"), rank=7, status="outranked"),
        dataclasses.replace(first, line_start=1, line_end=40),
        dataclasses.replace(first, source="other.md"),
        dataclasses.replace(first, kept_chars=12),
        dataclasses.replace(first, tokens=TokenCounts(1, 2, 3, 4)),
        dataclasses.replace(first, part="requirements", section="security_rules", kind="rule_file"),
        dataclasses.replace(first, reached="prompt", reached_how="all its lines are in the prompt"),
        dataclasses.replace(first, reached_how="another path"),
        dataclasses.replace(first, tokens=dataclasses.replace(first.tokens)),  # equal, another object
        dataclasses.replace(first, span=(3, 9), status="included"),
        dataclasses.replace(first, details={"trigger": "x", "n": (1, 2)}),
        # Not a string: written as it is, holding what separates two items' own parts.
        dataclasses.replace(first, reason=[{"a": 1}, {"score": 2}]),  # type: ignore[arg-type]
        dataclasses.replace(first, text=""),
        dataclasses.replace(first, id="blank", text=""),
    ]
    assert all(v.text is text for v in variants[:-2])
    jsonline._fixed.clear()
    # Each variant right after the paragraph (whose JSON is then held) and before it again.
    orders = [[first, v, first] for v in variants[1:]] + [variants, variants[::-1]]
    for order in orders:
        trace = dataclasses.replace(base, items=tuple(order))
        assert trace_json_bytes(trace) == orjson.dumps(trace_to_json(trace), option=orjson.OPT_APPEND_NEWLINE)
        assert read(trace_json_line(trace))["items"] == plain([i for i in trace_to_json(trace)["items"]])


def test_the_paragraph_cache_stays_within_its_limit_and_changes_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    jsonline._fixed.clear()
    monkeypatch.setattr(jsonline, "CACHE_LIMIT", 5)
    traces = _traces("mahabharatha")[:4]
    for trace in [*traces, *traces]:
        assert trace_json_bytes(trace) == orjson.dumps(trace_to_json(trace), option=orjson.OPT_APPEND_NEWLINE)
        assert len(jsonline._fixed) <= 5


def test_a_value_orjson_refuses_outside_the_items_is_written_by_json_with_the_items() -> None:
    base = _traces("mahabharatha")[0]
    for trace in (
        dataclasses.replace(base, task_title="lone \ud800 surrogate"),
        dataclasses.replace(base, budget=2**70),
    ):
        line = trace_json_line(trace)
        assert read(line) == expected(trace)
        assert read(line)["items"] == plain(trace_to_json(trace)["items"])
