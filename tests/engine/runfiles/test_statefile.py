"""Reading upstream's feature state file and token records (documents written by hand, line by line)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ctxviewer.engine.files.reading import ProjectFS
from ctxviewer.engine.runfiles.heartbeats import HeartbeatReader
from ctxviewer.engine.runfiles.jsondoc import line_of
from ctxviewer.engine.runfiles.statefile import StateFileReader
from ctxviewer.engine.runfiles.tokenrecords import TokenRecordReader

STATE = ".zerg/state/shop.json"

# Lines numbered as the file has them (indent=2, as upstream's json.dump writes it).
STATE_TEXT = """{
  "feature": "shop",
  "workers": {
    "2": {
      "worker_id": 2,
      "status": "checkpointing",
      "current_task": null,
      "tasks_completed": 4,
      "context_usage": 0.7012,
      "started_at": "2026-02-16T10:00:00",
      "health_check_at": "2026-02-16T11:00:00"
    },
    "10": {
      "worker_id": 10,
      "status": "running",
      "current_task": "TASK-009",
      "tasks_completed": 1,
      "context_usage": "high"
    }
  },
  "tasks": {
    "TASK-001": {"status": "complete", "worker_id": 2},
    "TASK-009": {"status": "in_progress", "worker_id": 10}
  },
  "execution_log": [
    {"timestamp": "2026-02-16T10:00:01", "event": "worker_ready", "data": {"worker_id": 2}},
    {"timestamp": "2026-02-16T10:59:59", "event": "worker_checkpoint",
     "data": {"worker_id": 2, "tasks_completed": 4, "current_task": "TASK-005"}}
  ]
}
"""


pytestmark = pytest.mark.usefixtures("utc_local_time")


def write(root: Path, rel: str, text: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)  # as upstream writes it: a new file renamed over the old one
    return path


T_10H = 20_500 * 86_400 + 10 * 3600  # 2026-02-16T10:00:00 (UTC here)


def test_workers_tasks_and_the_execution_log(tmp_path: Path) -> None:
    write(tmp_path, STATE, STATE_TEXT)
    reader = StateFileReader(ProjectFS(tmp_path), STATE)
    result = reader.poll()
    state = result.state
    assert result.changed and state is not None
    assert state.feature == "shop" and state.file == STATE
    two, ten = state.workers  # by number: 2 before 10
    assert (two.worker_id, two.status, two.tasks_completed, two.context_usage) == ("2", "checkpointing", 4, 0.7012)
    assert two.started_at == T_10H and two.health_check_at == T_10H + 3600 and two.current_task is None
    assert (ten.worker_id, ten.status, ten.current_task, ten.context_usage) == ("10", "running", "TASK-009", None)
    assert [(t.task_id, t.status, t.worker_id) for t in state.tasks] == [
        ("TASK-001", "complete", "2"),
        ("TASK-009", "in_progress", "10"),
    ]
    ready, checkpoint = state.execution_log
    assert (ready.event, ready.worker_id, ready.time) == ("worker_ready", "2", T_10H + 1)
    assert (checkpoint.event, checkpoint.worker_id, checkpoint.task_id) == ("worker_checkpoint", "2", "TASK-005")
    assert result.new_events == state.execution_log
    # "high" is on line 18 of the file.
    assert [p.describe() for p in result.problems] == [
        f'{STATE}:18: "workers.10.context_usage" must be a number, not a string'
    ]


def test_an_unchanged_file_is_not_read_again_and_a_fault_not_reported_again(tmp_path: Path) -> None:
    write(tmp_path, STATE, STATE_TEXT)
    reader = StateFileReader(ProjectFS(tmp_path), STATE)
    reader.poll()
    again = reader.poll()
    assert not again.changed and again.problems == () and reader.reads == 1
    # Upstream rewrites the file with one more event; the bad value is still there: not reported again.
    grown = STATE_TEXT.replace(
        '"current_task": "TASK-005"}}\n',
        '"current_task": "TASK-005"}},\n    {"timestamp": "2026-02-16T11:00:00", "event": "worker_started",'
        ' "data": {"worker_id": 2}}\n',
    )
    write(tmp_path, STATE, grown)
    result = reader.poll()
    assert result.changed and reader.reads == 2 and result.problems == ()
    assert [e.event for e in result.new_events] == ["worker_started"]


def test_an_execution_log_changed_before_its_end_is_read_again_whole(tmp_path: Path) -> None:
    write(tmp_path, STATE, STATE_TEXT)
    reader = StateFileReader(ProjectFS(tmp_path), STATE)
    reader.poll()
    write(tmp_path, STATE, STATE_TEXT.replace('"event": "worker_ready"', '"event": "worker_started"'))
    result = reader.poll()
    assert result.state is not None
    assert [e.event for e in result.state.execution_log] == ["worker_started", "worker_checkpoint"]
    assert result.new_events == result.state.execution_log  # not only appended: all of it is new


def test_invalid_json_keeps_the_last_good_state(tmp_path: Path) -> None:
    write(tmp_path, STATE, STATE_TEXT)
    reader = StateFileReader(ProjectFS(tmp_path), STATE)
    good = reader.poll().state
    write(tmp_path, STATE, '{\n  "workers": {\n    "1": {"status": "running",,}\n')
    result = reader.poll()
    assert not result.changed and result.state is good
    assert [p.describe() for p in result.problems] == [
        # Line 3 is `    "1": {"status": "running",,}`: the second comma is its 31st character.
        f"{STATE}:3: not JSON (Expecting property name enclosed in double quotes at column 31); "
        "showing what was read last"
    ]


def test_not_a_state_file(tmp_path: Path) -> None:
    write(tmp_path, STATE, '{"hello": 1}\n')
    result = StateFileReader(ProjectFS(tmp_path), STATE).poll()
    assert result.state is None
    assert [p.describe() for p in result.problems] == [
        f"{STATE}:1: not a feature state file (no workers, tasks or execution_log)"
    ]


def test_wrong_shapes_are_reported_with_their_lines(tmp_path: Path) -> None:
    text = (
        '{\n  "workers": {\n    "1": 5,\n    "2": {"status": 7, "tasks_completed": -1}\n  },\n'
        '  "execution_log": {}\n}\n'
    )
    write(tmp_path, STATE, text)
    result = StateFileReader(ProjectFS(tmp_path), STATE).poll()
    assert result.state is not None
    assert [(w.worker_id, w.status, w.tasks_completed) for w in result.state.workers] == [("2", None, None)]
    assert [p.describe() for p in result.problems] == [
        f'{STATE}:3: "workers.1" must be an object, not a number',
        f'{STATE}:4: "workers.2.status" must be a string, not a number',
        f'{STATE}:4: "workers.2.tasks_completed" is -1, outside 0 to 1,000,000,000; left out',
        f'{STATE}:6: "execution_log" must be an array, not an object',
    ]


def test_line_of_finds_keys_and_indexes() -> None:
    assert line_of(STATE_TEXT, ("workers", "10", "status")) == 15
    assert line_of(STATE_TEXT, ("execution_log", 1, "data", "current_task")) == 28
    assert line_of(STATE_TEXT, ("tasks", "TASK-009")) == 23
    assert line_of(STATE_TEXT, ("workers", "99")) == 3  # not there: the deepest part found
    assert line_of("{ broken", ("a",)) == 1


TOKENS = ".zerg/state/tokens-3.json"
TOKENS_TEXT = """{
  "tasks": {
    "TASK-001": {
      "breakdown": {"security_rules": 120, "spec_excerpt": 300, "repo_map": 80},
      "total": 500,
      "mode": "estimated",
      "timestamp": "2026-02-16T10:00:00.000000+00:00"
    },
    "TASK-002": {
      "breakdown": {"engineering_rules": 40, "spec_excerpt": "many"},
      "total": 41,
      "mode": "exact",
      "timestamp": "2026-02-16T10:05:00+00:00"
    }
  },
  "cumulative": {"total_tokens": 541, "tasks_completed": 2}
}
"""


def test_token_records(tmp_path: Path) -> None:
    write(tmp_path, TOKENS, TOKENS_TEXT)
    result = TokenRecordReader(ProjectFS(tmp_path), TOKENS).poll()
    record = result.record
    assert result.changed and record is not None
    assert record.worker_id == "3"  # no worker_id in the document: from the file's name
    first, second = record.tasks
    assert first.sections == (("security_rules", 120), ("spec_excerpt", 300), ("repo_map", 80))
    assert (first.total, first.mode, first.time) == (500, "estimated", T_10H)
    assert second.sections == (("engineering_rules", 40),) and second.total == 41 and second.mode == "exact"
    assert (record.cumulative_total, record.cumulative_tasks) == (541, 2)
    assert record.task("TASK-002") is second and record.task("TASK-404") is None
    # "many" is on line 10; 41 is not 40 (the section left out is unknown, not zero).
    assert [p.describe() for p in result.problems] == [
        f'{TOKENS}:10: "tasks.TASK-002.breakdown.spec_excerpt" must be a whole number, not a string',
        f'{TOKENS}:11: "tasks.TASK-002.total" is 41 but its sections add up to 40',
    ]


def test_a_token_record_replaced_is_read_again(tmp_path: Path) -> None:
    write(tmp_path, TOKENS, '{"worker_id": "3", "tasks": {}}')
    reader = TokenRecordReader(ProjectFS(tmp_path), TOKENS)
    assert reader.poll().record is not None and not reader.poll().changed
    write(tmp_path, TOKENS, '{"worker_id": 7, "tasks": {"T": {"breakdown": {"repo_map": 9}, "total": 9}}}')
    result = reader.poll()
    assert result.changed and result.record is not None
    assert result.record.worker_id == "7" and result.record.tasks[0].total == 9


BEAT = ".zerg/state/heartbeat-4.json"


def test_heartbeats(tmp_path: Path) -> None:
    write(tmp_path, BEAT, '{"worker_id": 4, "timestamp": "2026-02-16T10:00:30+00:00", "task_id": "T1",\n'
          ' "step": "implementing", "progress_pct": "half"}\n')  # fmt: skip
    reader = HeartbeatReader(ProjectFS(tmp_path), BEAT)
    new, problems = reader.poll()
    beat = reader.heartbeat
    assert new and beat is not None
    assert (beat.worker_id, beat.time, beat.task_id, beat.step, beat.progress_pct) == (
        "4",
        T_10H + 30,
        "T1",
        "implementing",
        None,
    )
    assert [p.describe() for p in problems] == [f'{BEAT}:2: "progress_pct" must be a whole number, not a string']
    # A worker that shuts down cleanly deletes its heartbeat: not a problem; the last one stays.
    (tmp_path / BEAT).unlink()
    assert reader.poll() == (False, ()) and reader.heartbeat is beat
