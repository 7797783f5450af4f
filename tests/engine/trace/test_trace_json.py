"""The trace's JSON form: the schema's own serialiser against a plain generic walk.

``trace_to_json`` writes each class's fields by hand (for speed, issue 20).  These tests
hold it to what a generic walk over the dataclasses gives -- on every profile's traces of
every sample project -- and check that every field of every trace class is written, so a
field added to the model and forgotten in the serialiser fails here.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from typing import Any

import pytest

from ctxviewer.engine.project.loading import load_project
from ctxviewer.engine.registry import PROFILES
from ctxviewer.engine.runs.batch import run_batch
from ctxviewer.engine.tokens.counting import TokenCounts
from ctxviewer.engine.trace import model
from ctxviewer.engine.trace.model import Trace, trace_from_json, trace_to_json
from tests.conftest import SAMPLES


def generic(value: Any) -> Any:
    """The JSON form as the schema defines it: each dataclass's fields in order, recursively."""
    if isinstance(value, TokenCounts):
        return value.to_json()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: generic(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return {str(k): generic(v) for k, v in value.items()}
    if isinstance(value, (tuple, list)):
        return [generic(v) for v in value]
    return value


def _traces(profile: str) -> list[Trace]:
    out = []
    for root in sorted(p for p in SAMPLES.iterdir() if p.is_dir()):
        project = load_project(root)
        settings = project.settings.with_overrides({"profile": profile}, "test")
        out.extend(row.trace for row in run_batch(project, settings=settings, exact=True) if row.trace is not None)
    return out


@pytest.mark.parametrize("profile", PROFILES)
def test_every_profile_serialises_as_the_generic_walk(profile: str) -> None:
    traces = _traces(profile)
    assert traces
    for trace in traces:
        fast = trace_to_json(trace)
        # Same keys in the same order and the same values: compare the written bytes.
        assert json.dumps(fast, ensure_ascii=False) == json.dumps(generic(trace), ensure_ascii=False), trace.task_id
        assert trace_from_json(fast) == trace


def _keys_written(cls: type, data: Any) -> None:
    names = [f.name for f in dataclasses.fields(cls)]
    assert list(data) == names, cls.__name__


def test_every_field_of_every_trace_class_is_written() -> None:
    base = next(t for t in _traces("computed") if t.items and t.window is not None and t.window.blocks)
    trace = dataclasses.replace(
        base,
        keywords=(model.Keyword("ledger", ("title",), ""),),
        trim_steps=(model.TrimStep(1, "spec_excerpts", "truncate", "x", "d", 10, 5, 40, 20),),
        errors=(model.TraceError("read", "missing", "m", "c", "a.md", 3),),
        tracker=dataclasses.replace(base.tracker, files=(model.TrackedFile("a.py", 10, 3, "n"),)),
        signals=model.Signals(keywords=(model.Signal("keyword", "ledger", ("title",)),)),
    )
    data = trace_to_json(trace)
    assert data == generic(trace)
    _keys_written(Trace, data)
    _keys_written(model.Item, data["items"][0])
    _keys_written(model.Section, data["sections"][0])
    _keys_written(model.Keyword, data["keywords"][0])
    _keys_written(model.TrimStep, data["trim_steps"][0])
    _keys_written(model.TraceError, data["errors"][0])
    _keys_written(model.TrackerState, data["tracker"])
    _keys_written(model.TrackedFile, data["tracker"]["files"][0])
    _keys_written(model.Signals, data["signals"])
    _keys_written(model.Signal, data["signals"]["keywords"][0])
    _keys_written(model.WindowLayout, data["window"])
    _keys_written(model.WindowBlock, data["window"]["blocks"][0])


def test_free_form_details_are_written_as_plain_data() -> None:
    trace = _traces("mahabharatha")[0]
    item = dataclasses.replace(
        trace.items[0],
        details={"n": 1, "nested": {"t": (1, 2), 3: [("a", None)]}, "counts": TokenCounts(4, 1, 1, 1)},
    )
    data = trace_to_json(dataclasses.replace(trace, items=(item,)))
    assert data["items"][0]["details"] == {
        "n": 1,
        "nested": {"t": [1, 2], "3": [["a", None]]},
        "counts": {"chars": 4, "heuristic": 1, "cl100k_base": 1, "o200k_base": 1},
    }
