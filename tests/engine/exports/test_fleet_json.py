"""A fleet snapshot as JSON: one document, and the changes between two snapshots."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctxviewer.engine.exports.fleet_json import fleet_changes, fleet_document
from ctxviewer.engine.runfiles.fleet import RunWatcher
from ctxviewer.engine.runfiles.rundir import discover_run
from tests.engine.runfiles.fleet_project import at, done, write_fleet_project

pytestmark = pytest.mark.usefixtures("utc_local_time")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return write_fleet_project(tmp_path)


def test_the_json_document(project: Path) -> None:
    snapshot = RunWatcher(discover_run(project)).poll(now=at(12, 40))
    document = json.loads(json.dumps(fleet_document(snapshot)))  # plain JSON values only
    assert (document["threshold_percent"], document["threshold_origin"]) == (80.0, ".zerg/config.yaml")
    assert document["zones"] == [{"name": "compaction", "percent": 75.0}, {"name": "checkpoint", "percent": 80.0}]
    one = document["workers"][0]
    assert (one["worker_id"], one["status"], one["context_usage"], one["zone"], one["band"]) == (
        "1",
        "checkpointing",
        0.78,
        "compaction",
        "yellow",
    )
    assert one["last_log"] == "2026-02-16T12:30:00Z" and one["last_heartbeat"] is None
    assert one["tracker"] == {
        "tokens": 4000,
        "percent": 2.0,
        "tasks": 2,
        "minutes": 30.0,
        "process_started": "2026-02-16T12:00:00Z",
        "at": "2026-02-16T12:30:00Z",
    }
    first_log = document["logs"][0]
    assert (first_log["file"], first_log["records"], first_log["tasks_executed"]) == (
        ".zerg/logs/workers/worker-1.jsonl",
        6,
        3,
    )
    assert [(e["time"], e["event"], e["task_id"], e["line"]) for e in first_log["events"]] == [
        ("2026-02-16T10:10:00Z", "task_completed", "T1", 2),
        ("2026-02-16T12:05:00Z", "task_completed", "T2", 4),
        ("2026-02-16T12:20:00Z", "task_completed", "T3", 5),
    ]
    assert [(e["event"], e["worker_id"], e["line"]) for e in document["execution_log"]] == [
        ("worker_checkpoint", "1", 1)
    ]
    assert document["token_records"] == [
        {
            "file": ".zerg/state/tokens-1.json",
            "worker_id": "1",
            "tasks": [{"task_id": "T2", "total": 70, "mode": None, "timestamp": None, "sections": {"repo_map": 70}}],
            "cumulative": {"total_tokens": None, "tasks_completed": None},
        }
    ]
    assert document["problems"] == [] and document["problem_count"] == 0


def test_the_changes_between_two_snapshots(project: Path) -> None:
    watcher = RunWatcher(discover_run(project))
    first = watcher.poll(now=at(12, 40))
    assert [c["worker_id"] for c in fleet_changes(None, first) if c["type"] == "worker"] == ["1", "2", "3", "4"]
    # Only the clock moved: worker 2's estimate grew, nothing else changed.
    assert fleet_changes(first, watcher.poll(now=at(12, 41))) == []
    with open(project / ".zerg/logs/workers/worker-2.jsonl", "a") as handle:
        handle.write(done(2, 12, 41, "T5") + "{oops\n")
    second = watcher.poll(now=at(12, 42))
    changes = fleet_changes(first, second)
    assert [(c["type"], c.get("worker_id"), c.get("task_id")) for c in changes] == [
        ("worker", "2", None),
        ("event", "2", "T5"),
        ("problem", None, None),
    ]
    assert changes[0]["tasks_done"] == 2
    assert changes[2]["problem"].startswith(".zerg/logs/workers/worker-2.jsonl:4: not JSON")
