"""``ctxviewer follow``: the tracker's usage from a worker's event log, and what it refuses."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.helpers import run


def test_follow_once_prints_the_trackers_usage(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "w.jsonl"
    log.write_text(
        '{"ts": 0, "event": "task_executed", "id": "A"}\n'
        '{"ts": 60, "event": "file_read", "path": "x.py", "size": 4000}\n'
        '{"ts": 120, "event": "tool_call", "count": 4}\n'
        '{"ts": 180, "event": "tool_call"}',  # no newline: with --once it is the last line all the same
        encoding="utf-8",
    )
    code, out, err = run(capsys, "follow", str(log), "--once", "--set", "max_context_tokens=2000", "--format", "json")
    # 500 (task) + 4000*0.25+100 (read) + 5*50 (tools) + int(3 min * 100) = 2,150 tokens.
    assert code == 0 and err == ""
    data = json.loads(out)
    assert (data["estimated_tokens"], data["tool_calls"], data["events"]) == (2150, 5, 4)
    # After the read (1 min in): 500 + 1,100 + 100 = 1,700 >= 70% of 2,000, so event index 1.
    assert data["is_over_threshold"] and data["first_checkpoint"] == 1


def test_follow_once_reports_bad_lines_and_a_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "w.jsonl"
    log.write_text('{"ts": 0, "event": "task_executed", "id": "A"}\nnot json\n', encoding="utf-8")
    code, out, err = run(capsys, "follow", str(log), "--once")
    assert code == 1 and "line 2" in err and "500 / 200,000 tokens" in out
    code, _, err = run(capsys, "follow", str(tmp_path / "nope.jsonl"), "--once")
    assert code == 2 and "no such log file" in err


def test_follow_refuses_a_folder_and_a_too_short_interval(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "follow", str(tmp_path), "--once")
    assert code == 2 and "is a folder, not a log file" in err
    code, _, err = run(capsys, "follow", str(tmp_path / "x.jsonl"), "--interval", "0")
    assert code == 2 and "--interval: 0 s is too short" in err


def test_follow_once_status_counts_the_finished_last_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "w.jsonl"
    log.write_text('{"ts": 0, "event": "task_executed", "id": "A"}\n{"ts": 60, "event": "tool_call"}', encoding="utf-8")
    code, out, _ = run(capsys, "follow", str(log), "--once")
    assert code == 0 and "2 events:" in out and "1 task, 0 files, 1 tool call, 1.0 min" in out
