"""Upstream's own counts: ``round(len / 4)`` (halves to even), the trace's ``token_record`` and
the ``tokens-<worker>.json`` text a batch exports (RUNTIME.md section 6)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctxviewer.engine.exports.report import html_report
from ctxviewer.engine.exports.tokens import TaskRecord, record_of, token_records_json, worker_name
from ctxviewer.engine.project.loading import load_project
from ctxviewer.engine.runs.pipeline import assemble
from ctxviewer.engine.tokens.counting import TokenCounts, rounded_estimate
from ctxviewer.engine.trace.model import trace_from_json, trace_to_json
from tests.factories import make_project


@pytest.mark.parametrize(
    ("chars", "expected"),
    # 0 -> at least 1; 2/4 = 0.5 -> 0 (even) -> 1; 6/4 = 1.5 -> 2; 10/4 = 2.5 -> 2 (even, where
    # len // 4 is also 2); 14/4 = 3.5 -> 4 (len // 4: 3); 7/4 = 1.75 -> 2 (len // 4: 1); 9 -> 2.
    [(0, 1), (2, 1), (6, 2), (10, 2), (14, 4), (7, 2), (9, 2), (4001, 1000), (4002, 1000), (4003, 1001)],
)
def test_upstreams_estimate_rounds_halves_to_even(chars: int, expected: int) -> None:
    assert rounded_estimate(chars) == expected


# Security off, no rules: the zerg-0.3.2 context is the spec section, the MCP line (the
# description "Build the session store" holds "ui" in "build": magic, then playwright ... ),
# and nothing else that needs files beyond a.py (no sources: no repository map).
TASK = {"id": "T1", "title": "Session store", "description": "Build the session store", "files": {"create": ["a.py"]}}
SPEC = "The session store keeps sessions."


def _zerg(tmp_path: Path, **overrides: object) -> object:
    root = make_project(tmp_path / "p", [TASK], requirements=SPEC)
    settings = {"upstream": "zerg-ai-0.3.2", "security_rule_filtering": False, **overrides}
    return assemble(load_project(root), "feat", "T1", settings, exact=False)


def test_a_nine_section_trace_records_upstreams_counts_before_abbreviation(tmp_path: Path) -> None:
    trace = _zerg(tmp_path)
    spec = trace.section("spec_excerpts")
    mcp = trace.section("mcp_hints")
    assert spec is not None and mcp is not None
    # "## Relevant Requirements\n\n" (26) + the 33-character paragraph = 59 characters: 14.75 -> 15.
    assert spec.text == "## Relevant Requirements\n\n" + SPEC and len(spec.text) == 59
    assert trace.token_record == {"spec_excerpt": 15, "mcp_hints": rounded_estimate(len(mcp.text))}
    assert trace.own_estimate == "round(len / 4)"
    assert trace.own_count(spec.tokens) == 15 and spec.tokens.heuristic == 14
    assert trace.own_count(TokenCounts(0, 0)) is None  # an empty section is never counted
    # Compact mode abbreviates the text, not the record: "Requirements" keeps its capital,
    # so only the efficiency section's text is new in the record.
    compact = _zerg(tmp_path / "c", compact_mode="1")
    assert compact.token_record is not None and compact.token_record["spec_excerpt"] == 15
    assert list(compact.token_record) == ["spec_excerpt", "mcp_hints", "efficiency_hints"]


def test_the_note_says_what_upstream_records_when_it_runs_the_task(tmp_path: Path) -> None:
    # What upstream will write, not a record found on disk (the project has none).
    trace = _zerg(tmp_path)
    mcp = trace.section("mcp_hints")
    assert mcp is not None
    total = 15 + rounded_estimate(len(mcp.text))
    note = (
        "when it runs this task, upstream records in .zerg/state/tokens-unknown.json (round(len / 4), before "
        f"abbreviation): spec_excerpt 15, mcp_hints {rounded_estimate(len(mcp.text))}; total {total}"
    )
    assert note in trace.warnings
    assert not (tmp_path / "p" / ".zerg" / "state").exists()


def test_the_seed_and_other_profiles_record_nothing(tmp_path: Path) -> None:
    seed = _zerg(tmp_path, upstream="2026-01-30")
    assert seed.token_record is None and seed.own_estimate == "len // 4"
    assert seed.own_count(TokenCounts(14, 3)) == 3  # the seed's own estimate is the heuristic
    drift = _zerg(tmp_path / "d", profile="drift")
    assert drift.token_record is None and drift.own_estimate is None and drift.own_count(TokenCounts(14, 3)) is None


def test_a_run_that_falls_back_records_nothing(tmp_path: Path) -> None:
    root = make_project(tmp_path / "p", [{**TASK, "files": ["a.py"]}], requirements=SPEC)
    trace = assemble(load_project(root), "feat", "T1", {"upstream": "zerg-ai-0.3.2"}, exact=False)
    assert trace.context == "" and trace.token_record is None


def test_the_record_round_trips_and_a_2_1_trace_reads_without_one(tmp_path: Path) -> None:
    trace = _zerg(tmp_path)
    data = json.loads(json.dumps(trace_to_json(trace)))
    assert data["schema_version"] == "2.3" and list(data)[-2:] == ["token_record", "worker"]
    assert trace_from_json(data) == trace
    del data["token_record"], data["worker"]
    data["schema_version"] = "2.1"
    old = trace_from_json(data)
    assert old.token_record is None and old.worker is None and old.schema_version == "2.3"


def test_the_html_section_table_shows_upstreams_own_count_only_where_it_differs(tmp_path: Path) -> None:
    page = html_report(_zerg(tmp_path))
    assert '<th class="num">Upstream&#x27;s own (round(len / 4))</th>' in page
    # The spec section's row: budget 800, then 15 (upstream's own) before the heuristic 14.
    assert '<td class="num">800</td><td class="num">15</td><td class="num">14</td>' in page
    seed = html_report(_zerg(tmp_path / "s", upstream="2026-01-30"))
    assert "Upstream&#x27;s own" not in seed


def _stamp() -> str:
    return "2026-02-15T10:00:00.000001+00:00"


def test_token_records_json_writes_upstreams_shape_by_hand() -> None:
    records = [
        TaskRecord("T1", {"security_rules": 354, "spec_excerpt": 782}),
        TaskRecord("T2", {}),  # a context with no section: recorded, total 0
        TaskRecord(["not", "a", "key"], {"repo_map": 5}),  # upstream's record raises: nothing written
        TaskRecord("T1", {"spec_excerpt": 10}),  # the same id again: replaces the first, in its place
    ]
    text = token_records_json("3", records, _stamp)
    expected = {
        "worker_id": "3",
        "tasks": {
            "T1": {"breakdown": {"spec_excerpt": 10}, "total": 10, "mode": "estimated", "timestamp": _stamp()},
            "T2": {"breakdown": {}, "total": 0, "mode": "estimated", "timestamp": _stamp()},
        },
        "cumulative": {"total_tokens": 10, "tasks_completed": 2},
    }
    assert text == json.dumps(expected, indent=2)  # indent 2, ASCII escapes, no final newline
    assert not text.endswith("\n")


def test_an_id_that_is_not_text_is_read_back_as_its_json_text() -> None:
    # Upstream writes {1: ...} as "1", then reads the file back before the next record: a later
    # "1" replaces that entry; and the last record's file keeps both keys as written.
    both = token_records_json("w", [TaskRecord("1", {"a": 1}), TaskRecord(1, {"a": 2})], _stamp)
    assert both.count('"1": {') == 2 and '"total_tokens": 3' in both and '"tasks_completed": 2' in both
    merged = token_records_json("w", [TaskRecord(1, {"a": 2}), TaskRecord("1", {"a": 5})], _stamp)
    assert json.loads(merged)["tasks"] == {"1": {"breakdown": {"a": 5}, "total": 5, "mode": "estimated",
                                                 "timestamp": _stamp()}}  # fmt: skip
    assert token_records_json("é", [], _stamp) == (
        '{\n  "worker_id": "\\u00e9",\n  "tasks": {},\n  "cumulative": {\n    "total_tokens": 0,\n'
        '    "tasks_completed": 0\n  }\n}'
    )


def test_record_of_uses_the_raw_id_and_the_worker_defaults_to_unknown(tmp_path: Path) -> None:
    trace = _zerg(tmp_path)
    assert record_of(trace, {"id": 7}) == TaskRecord(7, trace.token_record)
    assert record_of(trace, {}) == TaskRecord("unknown", trace.token_record)
    assert record_of(_zerg(tmp_path / "off", enabled=False), TASK) is None  # the plugin is not registered
    assert (worker_name(None), worker_name(""), worker_name("2")) == ("unknown", "", "2")
