"""Reading upstream's worker logs: every line a record, torn lines, rotation, truncation, bad lines.

Logs are written by hand here, line by line as upstream's ``StructuredLogWriter`` writes them
(``json.dumps(entry) + "\\n"``); expected records and problems are worked out from the lines.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import hypothesis
import hypothesis.strategies as st
import pytest

from ctxviewer.engine.files.reading import ProjectFS
from ctxviewer.engine.runfiles.workerlog import LogPoll, WorkerLogReader

LOG = "logs/workers/worker-1.jsonl"


def line(n: int, **extra: Any) -> str:
    """Upstream's line *n* of worker 1: a record at 10:00:0n Z."""
    entry: dict[str, Any] = {
        "ts": f"2026-02-16T10:00:0{n}.000000Z",
        "level": "info",
        "worker_id": 1,
        "feature": "shop",
        "message": f"message {n}",
    }
    entry.update(extra)
    return json.dumps(entry) + "\n"


def append(path: Path, data: str | bytes) -> None:
    with open(path, "ab") as handle:
        handle.write(data.encode("utf-8") if isinstance(data, str) else data)


@pytest.fixture
def logs(tmp_path: Path) -> Path:
    folder = tmp_path / "logs" / "workers"
    folder.mkdir(parents=True)
    return folder / "worker-1.jsonl"


def reader_for(tmp_path: Path, **kwargs: Any) -> WorkerLogReader:
    return WorkerLogReader(ProjectFS(tmp_path), LOG, **kwargs)


def messages(result: LogPoll) -> list[str | None]:
    return [r.message for r in result.records]


def test_a_torn_last_line_waits_for_the_rest(tmp_path: Path, logs: Path) -> None:
    lines = [line(n) for n in range(1, 6)]
    fifth = lines[4]
    logs.write_text("".join(lines[:4]) + fifth[:30])
    reader = reader_for(tmp_path)
    first = reader.poll()
    # Four whole lines; the fifth has no newline yet: held back, not a problem.
    assert messages(first) == ["message 1", "message 2", "message 3", "message 4"]
    assert [r.line for r in first.records] == [1, 2, 3, 4]
    assert first.problems == () and reader.pending_line == 5
    assert reader.poll().records == ()  # nothing new: nothing read twice
    append(logs, fifth[30:])
    second = reader.poll()
    assert messages(second) == ["message 5"] and second.records[0].line == 5
    assert reader.pending_line is None and reader.record_count == 5


def test_fields_of_a_task_line(tmp_path: Path, logs: Path) -> None:
    logs.write_text(
        line(1) + line(2, task_id="TASK-001", phase="execute", event="task_completed", duration_ms=1500, data={"k": 1})
    )
    records = reader_for(tmp_path).poll().records
    plain, task = records
    assert (plain.event, plain.task_id, plain.duration_ms) == (None, None, None)
    assert (task.task_id, task.phase, task.event, task.duration_ms) == ("TASK-001", "execute", "task_completed", 1500)
    assert task.data == {"k": 1} and task.worker == "1" and task.worker_id == 1
    # 2026-02-16T10:00:02Z: 20,500 days after 1970-01-01, plus 10 h 2 s.
    assert task.time == 20_500 * 86_400 + 10 * 3600 + 2
    assert task.file == LOG and task.level == "info" and task.feature == "shop"


def test_reading_is_incremental(tmp_path: Path, logs: Path) -> None:
    logs.write_text(line(1) + line(2))
    reader = reader_for(tmp_path)
    reader.poll()
    assert reader.bytes_read == len(line(1) + line(2))
    append(logs, line(3))
    assert messages(reader.poll()) == ["message 3"]
    assert reader.bytes_read == len(line(1) + line(2) + line(3))  # only the appended line was read
    reader.poll()
    assert reader.bytes_read == len(line(1) + line(2) + line(3))


def test_bad_lines_are_one_problem_each_with_file_and_line(tmp_path: Path, logs: Path) -> None:
    logs.write_bytes((line(1) + "{not json\n" + "[1, 2]\n" + "\n").encode() + b'{"ts": "\xff"}\n' + line(6).encode())
    reader = reader_for(tmp_path)
    result = reader.poll()
    assert messages(result) == ["message 1", "message 6"]
    assert [p.describe() for p in result.problems] == [
        f"{LOG}:2: not JSON (Expecting property name enclosed in double quotes at column 2)",
        f"{LOG}:3: not a JSON object (got an array)",
        f"{LOG}:5: not UTF-8 (byte 0xff at byte 9)",
    ]
    assert reader.poll().problems == ()  # reported once


def test_wrong_types_are_reported_and_the_record_kept(tmp_path: Path, logs: Path) -> None:
    logs.write_text(
        json.dumps({"ts": "yesterday", "level": 3, "worker_id": 1, "feature": "shop", "message": "m"}) + "\n"
        + json.dumps({"ts": "2026-02-16T10:00:00Z", "worker_id": [1], "message": "n", "duration_ms": "9"}) + "\n"
    )  # fmt: skip
    result = reader_for(tmp_path).poll()
    first, second = result.records
    assert (first.ts, first.time, first.level, first.message) == ("yesterday", None, None, "m")
    assert (second.worker_id, second.duration_ms, second.message) == (None, None, "n")
    assert [p.describe() for p in result.problems] == [
        f'{LOG}:1: "ts" is not an ISO-8601 time: \'yesterday\'; "level" must be a string, not a number',
        f'{LOG}:2: missing "level", "feature"; "worker_id" must be a number or a string, not an array; '
        '"duration_ms" must be a number of 0 or more, not a string',
    ]


@pytest.mark.parametrize(
    ("raw", "shown"), [("NaN", "nan"), ("Infinity", "inf"), ("1e400", "inf"), ("-5", "-5"), ("true", "true")]
)
def test_a_duration_that_is_no_duration(tmp_path: Path, logs: Path, raw: str, shown: str) -> None:
    logs.write_text(line(1).replace("}", f', "duration_ms": {raw}}}'))
    result = reader_for(tmp_path).poll()
    assert [(r.message, r.duration_ms) for r in result.records] == [("message 1", None)]
    assert [p.message for p in result.problems] == [f'"duration_ms" must be a number of 0 or more, not {shown}']


def test_a_huge_line_is_skipped_without_holding_it(tmp_path: Path, logs: Path) -> None:
    huge = json.dumps({"message": "x" * 5000}) + "\n"
    logs.write_text(line(1) + huge[:3000])
    reader = reader_for(tmp_path, max_line_bytes=1000)
    first = reader.poll()
    # Line 2 is already over the limit without its end: reported now, its bytes dropped.
    assert messages(first) == ["message 1"]
    assert [p.describe() for p in first.problems] == [f"{LOG}:2: longer than 1,000 bytes; skipped"]
    assert reader.pending_line is None
    append(logs, huge[3000:] + line(3))
    second = reader.poll()
    assert messages(second) == ["message 3"] and second.records[0].line == 3
    assert second.problems == ()


def test_rotation_finishes_the_old_file_then_reads_the_new(tmp_path: Path, logs: Path) -> None:
    logs.write_text(line(1) + line(2))
    reader = reader_for(tmp_path)
    reader.poll()
    # Upstream: line 3 written, the file passes its limit, is renamed to .1, line 4 goes to a new file.
    append(logs, line(3))
    logs.rename(logs.with_name("worker-1.jsonl.1"))
    logs.write_text(line(4))
    result = reader.poll()
    assert messages(result) == ["message 3", "message 4"]
    assert [(r.file, r.line) for r in result.records] == [(LOG + ".1", 3), (LOG, 1)]
    assert result.problems == () and not result.restarted
    assert [r.message for r in reader.replay()] == [f"message {n}" for n in range(1, 5)]
    # The next rotation overwrites .1: lines 1-3 are gone from disk, and from the reader.
    append(logs, line(5))
    os.replace(logs, logs.with_name("worker-1.jsonl.1"))
    logs.write_text(line(6))
    result = reader.poll()
    assert messages(result) == ["message 5", "message 6"] and result.problems == ()
    assert [r.message for r in reader.replay()] == ["message 4", "message 5", "message 6"]


def test_a_rotated_file_is_read_first_on_the_first_poll(tmp_path: Path, logs: Path) -> None:
    logs.with_name("worker-1.jsonl.1").write_text(line(1) + line(2))
    logs.write_text(line(3))
    result = reader_for(tmp_path).poll()
    assert messages(result) == ["message 1", "message 2", "message 3"]


def test_two_rotations_between_polls_lose_lines_and_say_so(tmp_path: Path, logs: Path) -> None:
    logs.write_text(line(1))
    reader = reader_for(tmp_path)
    reader.poll()
    append(logs, line(2))
    # Held open, the first file's inode cannot be reused for the new file (as a busy disk would not).
    with open(logs, "rb"):
        os.replace(logs, logs.with_name("worker-1.jsonl.1"))
        logs.write_text(line(3))
        os.replace(logs, logs.with_name("worker-1.jsonl.1"))
        logs.write_text(line(4))
        result = reader.poll()
    assert messages(result) == ["message 3", "message 4"]
    assert [p.describe() for p in result.problems] == [
        f"{LOG}: rotated more than once between two reads: what followed line 1 is lost"
    ]
    assert not result.restarted


def test_truncation_is_reported_once_and_the_file_read_again(tmp_path: Path, logs: Path) -> None:
    logs.write_text(line(1) + line(2) + line(3))
    reader = reader_for(tmp_path)
    reader.poll()
    logs.write_text(line(4))  # same file (inode), shorter: truncated and rewritten
    result = reader.poll()
    assert result.restarted and messages(result) == ["message 4"]
    assert [p.describe() for p in result.problems] == [f"{LOG}: was truncated; read again from the start"]
    assert [r.message for r in reader.replay()] == ["message 4"]
    append(logs, line(5))
    again = reader.poll()
    assert not again.restarted and again.problems == () and messages(again) == ["message 5"]


def test_a_rewrite_of_the_same_size_is_noticed(tmp_path: Path, logs: Path) -> None:
    logs.write_text(line(1))
    reader = reader_for(tmp_path)
    reader.poll()
    with open(logs, "r+") as handle:  # the same length, other bytes at the start, then more
        handle.write(line(2))
    append(logs, line(3))
    result = reader.poll()
    assert result.restarted and messages(result) == ["message 2", "message 3"]
    assert [p.message for p in result.problems] == ["was truncated and rewritten; read again from the start"]


def test_replacement_by_another_file_is_reported(tmp_path: Path, logs: Path) -> None:
    logs.write_text(line(1) + line(2))
    reader = reader_for(tmp_path)
    reader.poll()
    fresh = logs.with_name("new.jsonl")
    fresh.write_text(line(7))
    os.replace(fresh, logs)  # a new inode, and no .1: not a rotation
    result = reader.poll()
    assert result.restarted and messages(result) == ["message 7"]
    assert [p.message for p in result.problems] == ["was replaced by another file; read again from the start"]


def test_missing_waits_quietly_and_a_folder_is_one_problem(tmp_path: Path, logs: Path) -> None:
    reader = reader_for(tmp_path)
    assert reader.poll() == LogPoll((), (), False, False)
    logs.mkdir()
    first = reader.poll()
    assert [p.describe() for p in first.problems] == [f"{LOG}: is a folder, not a log file"]
    assert reader.poll().problems == ()  # not repeated while it lasts


def test_a_deleted_log_is_reported_once(tmp_path: Path, logs: Path) -> None:
    logs.write_text(line(1))
    reader = reader_for(tmp_path)
    reader.poll()
    logs.unlink()
    assert [p.message for p in reader.poll().problems] == ["was deleted; waiting for it to reappear"]
    assert reader.poll().problems == ()
    logs.write_text(line(2))
    assert messages(reader.poll()) == ["message 2"]


def test_read_limit_splits_a_poll_and_says_more(tmp_path: Path, logs: Path) -> None:
    logs.write_text(line(1) + line(2) + line(3))
    size = len(line(1))
    reader = reader_for(tmp_path, read_limit=size + 5)
    first = reader.poll()
    assert messages(first) == ["message 1"] and first.more
    second = reader.poll()
    assert messages(second) == ["message 2"] and second.more
    third = reader.poll()
    assert messages(third) == ["message 3"]


def test_finish_takes_the_held_back_line(tmp_path: Path, logs: Path) -> None:
    logs.write_text(line(1) + line(2).rstrip("\n"))
    reader = reader_for(tmp_path)
    assert messages(reader.poll()) == ["message 1"]
    assert messages(reader.finish()) == ["message 2"]
    assert reader.pending_line is None


def test_a_symlink_out_of_the_root_is_not_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside.jsonl"
    outside.write_text(line(1))
    root = tmp_path / "run"
    (root / "logs" / "workers").mkdir(parents=True)
    (root / LOG).symlink_to(outside)
    result = WorkerLogReader(ProjectFS(root), LOG).poll()
    assert result.records == ()
    assert len(result.problems) == 1 and "outside the project" in result.problems[0].message


@pytest.mark.parametrize("value", [0, -1, True, 1.5])
def test_invalid_limits_are_refused(tmp_path: Path, value: Any) -> None:
    with pytest.raises(ValueError, match="read_limit"):
        reader_for(tmp_path, read_limit=value)


@hypothesis.settings(max_examples=60, deadline=None)
@hypothesis.given(
    cuts=st.lists(st.integers(min_value=0, max_value=10_000), max_size=12),
    crlf=st.booleans(),
)
def test_any_way_of_appending_gives_the_records_of_one_read(tmp_path_factory: Any, cuts: list[int], crlf: bool) -> None:
    root = tmp_path_factory.mktemp("log")
    (root / "logs" / "workers").mkdir(parents=True)
    path = root / LOG
    lines = [line(n % 10, task_id=f"T{n}", event="task_completed") if n % 3 == 0 else line(n % 10) for n in range(12)]
    lines.insert(5, "{broken\n")
    data = "".join(lines).encode()
    if crlf:
        data = data.replace(b"\n", b"\r\n")
    whole = WorkerLogReader(ProjectFS(root), LOG, read_limit=97)
    path.write_bytes(data)
    expected = [r for _ in range(50) for r in whole.poll().records]
    path.write_bytes(b"")
    reader = WorkerLogReader(ProjectFS(root), LOG, read_limit=97)
    got = list(reader.poll().records)
    done = 0
    for cut in [*sorted({c % (len(data) + 1) for c in cuts}), len(data)]:
        append(path, data[done:cut])
        done = cut
        for _ in range(50):  # read_limit 97: a few polls per piece
            got += reader.poll().records
    assert got == expected and len(expected) == 12
    assert reader.problems.count == whole.problems.count == 1


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_a_named_pipe_never_blocks(tmp_path: Path, logs: Path) -> None:
    os.mkfifo(logs)
    reader = reader_for(tmp_path)
    result = reader.poll()  # would hang on a plain open() with no writer
    assert [p.message for p in result.problems] == ["is a named pipe, not a log file"]
    assert reader.poll().problems == ()


def test_problems_beyond_a_thousand_are_counted_not_kept(tmp_path: Path, logs: Path) -> None:
    logs.write_text("{bad\n" * 1005 + line(1))
    reader = reader_for(tmp_path)
    result = reader.poll()
    assert len(result.problems) == 1000 and reader.problems.count == 1005
    assert result.problems[-1].line == 1000 and len(reader.problems.kept) == 1000
    assert [r.line for r in result.records] == [1006]
