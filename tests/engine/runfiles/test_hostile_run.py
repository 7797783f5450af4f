"""Whatever the files hold, reading a run never raises: every fault is a problem with its file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import hypothesis
import hypothesis.strategies as st

from ctxviewer.engine.exports.fleet_json import fleet_document
from ctxviewer.engine.exports.fleet_text import render_fleet_text
from ctxviewer.engine.runfiles.fleet import read_run
from ctxviewer.engine.runfiles.rundir import discover_run

KEYS = st.sampled_from(
    ["ts", "level", "worker_id", "feature", "message", "event", "task_id", "duration_ms", "data", "workers",
     "tasks", "execution_log", "status", "context_usage", "timestamp", "breakdown", "total", "1", "T1"]
)  # fmt: skip
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.sampled_from(["2026-02-16T10:00:00Z", "2026-02-16T10:00:00", "running", "task_completed", "9999-99-99"]),
)
JSON = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(KEYS, inner, max_size=6)),
    max_leaves=25,
)


def dump(value: Any) -> str:
    return json.dumps(value)  # NaN and Infinity as Python writes them


@hypothesis.settings(max_examples=80, deadline=None)
@hypothesis.example(  # values that once raised: an infinite duration, a gauge far past 1
    log=[{"ts": "2026-02-16T10:00:00Z", "worker_id": 1, "message": "m", "duration_ms": float("inf")}],
    state={"workers": {"1": {"status": "running", "context_usage": 1e308}}},
    tokens={"tasks": {"T": {"breakdown": {"a": float("nan")}, "total": float("inf")}}},
    config="",
)
@hypothesis.given(
    log=st.lists(st.one_of(JSON, st.binary(max_size=20).map(lambda b: b.decode("latin-1"))), max_size=6),
    state=JSON,
    tokens=JSON,
    config=st.sampled_from(["", "workers: 5\n", "workers:\n  context_threshold_percent: [1]\n", ": : :\n"]),
)
def test_any_content_is_read_without_raising(
    tmp_path_factory: Any, log: list[Any], state: Any, tokens: Any, config: str
) -> None:
    root: Path = tmp_path_factory.mktemp("run")
    zerg = root / ".zerg"
    (zerg / "logs" / "workers").mkdir(parents=True)
    (zerg / "state").mkdir()
    (zerg / "config.yaml").write_text(config)
    lines = [dump(v) if not isinstance(v, str) else v.replace("\n", " ") for v in log]
    (zerg / "logs" / "workers" / "worker-1.jsonl").write_text("\n".join(lines) + "\n")
    (zerg / "state" / "shop.json").write_text(dump(state))
    (zerg / "state" / "tokens-1.json").write_text(dump(tokens))
    snapshot = read_run(discover_run(root), now=0)
    assert all(p.file for p in snapshot.new_problems)
    json.dumps(fleet_document(snapshot))
    assert render_fleet_text(snapshot).endswith("\n")
