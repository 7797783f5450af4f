"""The event-log follower's stages, each alone: tailing the file, parsing lines, folding.

The follower as a whole is tested in ``test_eventlog.py``; every value here is worked out
by hand from the bytes written.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxviewer.engine.runtime.eventlog import (
    Appended,
    BadLine,
    Event,
    LogTail,
    Missing,
    Unreadable,
    UsageFold,
    parse_line,
)

# -- tailing --------------------------------------------------------------------------------------


def test_the_tail_waits_for_the_file_then_reads_what_was_appended(tmp_path: Path) -> None:
    log = tmp_path / "w.jsonl"
    tail = LogTail(log, 100)
    assert tail.read() == Missing(vanished=False)
    log.write_bytes(b"abc\n")
    assert tail.read() == Appended(b"abc\n", None, False)
    assert tail.read() == Appended(b"", None, False)
    with log.open("ab") as handle:
        handle.write(b"de")
    assert tail.read() == Appended(b"de", None, False)
    assert tail.offset == 6 and tail.head == b"abc\nde"


def test_a_read_stops_at_the_limit_and_says_there_is_more(tmp_path: Path) -> None:
    log = tmp_path / "w.jsonl"
    log.write_bytes(b"abcdefgh")
    tail = LogTail(log, 4)
    assert tail.read() == Appended(b"abcd", None, True)
    assert tail.read() == Appended(b"efgh", None, False)  # 8 bytes: nothing after these


def test_a_shorter_file_is_truncated_and_read_from_the_start(tmp_path: Path) -> None:
    log = tmp_path / "w.jsonl"
    log.write_bytes(b"abcdef")
    tail = LogTail(log, 100)
    tail.read()
    log.write_bytes(b"xy")
    assert tail.read() == Appended(b"xy", "file was truncated", False)
    assert tail.offset == 2


def test_a_rewrite_of_the_same_size_is_noticed_by_its_first_bytes(tmp_path: Path) -> None:
    log = tmp_path / "w.jsonl"
    log.write_bytes(b"abcd")
    tail = LogTail(log, 100)
    tail.read()
    with log.open("r+b") as handle:  # the same file (same inode), other bytes, same size
        handle.write(b"wxyz")
    assert tail.read() == Appended(b"wxyz", "file was truncated and rewritten", False)


def test_a_renamed_file_replaced_by_a_new_one_is_a_rotation(tmp_path: Path) -> None:
    log = tmp_path / "w.jsonl"
    log.write_bytes(b"old\n")
    tail = LogTail(log, 100)
    tail.read()
    log.rename(tmp_path / "w.jsonl.1")
    log.write_bytes(b"new, and longer\n")
    assert tail.read() == Appended(b"new, and longer\n", "file was replaced (rotated)", False)


def test_a_deleted_file_is_waited_for_and_its_successor_read_from_the_start(tmp_path: Path) -> None:
    log = tmp_path / "w.jsonl"
    log.write_bytes(b"abc\n")
    tail = LogTail(log, 100)
    tail.read()
    log.unlink()
    assert tail.read() == Missing(vanished=True)
    log.write_bytes(b"abc\nd")
    assert tail.read() == Appended(b"abc\nd", "file was deleted and re-created", False)


def test_a_folder_is_unreadable_with_a_message(tmp_path: Path) -> None:
    assert LogTail(tmp_path, 100).read() == Unreadable(f"{tmp_path} is a folder, not a log file")


# -- lines ----------------------------------------------------------------------------------------


def test_a_line_is_parsed_into_its_event() -> None:
    raw = b'{"ts": 60, "event": "file_read", "path": "a.py", "size": 400, "extra": 1}'
    assert parse_line(raw, 3) == Event(line=3, kind="file_read", ts=60.0, path="a.py", size=400)
    assert parse_line(b'{"ts": "1970-01-01T00:02:00", "event": "tool_call", "count": 2}\r', 1) == Event(
        line=1, kind="tool_call", ts=120.0, count=2
    )
    assert parse_line(b"  \r", 5) is None


def test_a_bom_is_taken_on_the_first_line_only() -> None:
    raw = b'\xef\xbb\xbf{"ts": 0, "event": "task_executed", "id": "T"}'
    assert parse_line(raw, 1) == Event(line=1, kind="task_executed", ts=0.0, task_id="T")
    with pytest.raises(BadLine, match=r"^not JSON"):
        parse_line(raw, 2)


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (b'{"ts": 1, "event": "tool_call", "count": 0}', '"count" must be 1 or more, not 0'),
        (b'{"ts": NaN, "event": "tool_call"}', "not JSON (NaN is not allowed)"),
        (b'{"event": "tool_call"}', 'missing "ts"'),
        (b"[1]", "not a JSON object (got an array)"),
        (b'{"ts": 1, "event": "file_read", "path": "a"}', 'file_read without "size"'),
    ],
)
def test_what_is_wrong_with_a_line_is_said(raw: bytes, message: str) -> None:
    with pytest.raises(BadLine) as caught:
        parse_line(raw, 1)
    assert str(caught.value) == message


# -- folding --------------------------------------------------------------------------------------


def test_events_fold_into_the_trackers_estimate_on_the_logs_clock() -> None:
    fold = UsageFold(threshold_percent=50.0, max_tokens=2000)
    fold.fold(Event(line=1, kind="task_executed", ts=100.0, task_id="T1"))
    # task 500, no time yet: 25% of 2,000
    assert fold.history == [(0.0, 500)] and fold.first_checkpoint is None
    fold.fold(Event(line=2, kind="file_read", ts=160.0, path="a.py", size=2000))
    # + 2,000 * 0.25 + 100 for the read, + 100 for the minute since ts 100: 1,200, 60% >= 50%
    assert fold.history[-1] == (1.0, 1200) and fold.first_checkpoint == 1
    fold.fold(Event(line=3, kind="tool_call", ts=130.0, count=3))
    # an earlier timestamp does not turn the clock back: still 1 minute; + 3 * 50
    usage = fold.usage
    assert (usage.estimated_tokens, usage.elapsed_minutes, usage.usage_percent) == (1350, 1.0, 67.5)
    assert (usage.files_read, usage.tasks_executed, usage.tool_calls) == (1, 1, 3)
    assert (usage.events, usage.last_task, usage.first_checkpoint) == (3, "T1", 1)
    assert usage.is_over_threshold and usage.history == ((0.0, 500), (1.0, 1200), (1.0, 1350))


def test_nothing_folded_is_an_empty_estimate_and_a_fold_refreshes_the_usage() -> None:
    fold = UsageFold(70.0, 1000)
    empty = fold.usage
    assert (empty.estimated_tokens, empty.events, empty.history, empty.max_tokens) == (0, 0, (), 1000)
    assert fold.usage is empty  # cached while nothing changes
    fold.fold(Event(line=1, kind="tool_call", ts=5.0))
    assert fold.usage.estimated_tokens == 50
