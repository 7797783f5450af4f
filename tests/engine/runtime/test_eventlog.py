"""Following a worker's JSON-lines event log (no Qt, no sleeping: the log is written by hand)."""

from __future__ import annotations

import itertools
import json
import os
import stat
from pathlib import Path
from typing import Any

import hypothesis
import hypothesis.strategies as st
import pytest

from ctxviewer.engine.files import tail
from ctxviewer.engine.runtime.eventlog import Event, EventLogFollower, LogProblem, PollResult
from ctxviewer.engine.runtime.tracker import ContextTracker
from tests.conftest import SAMPLES

LEDGER = SAMPLES / "ledger-service"
SAMPLE_LOG = LEDGER / ".mahabharatha" / "logs" / "worker-auth-sessions.jsonl"


def jl(**fields: Any) -> str:
    """One log line."""
    return json.dumps(fields) + "\n"


def append(path: Path, data: str | bytes) -> None:
    with open(path, "ab") as handle:
        handle.write(data.encode("utf-8") if isinstance(data, str) else data)


def poll_all(follower: EventLogFollower, limit: int = 10_000) -> list[PollResult]:
    """Poll until a poll says there is nothing more to read now."""
    results = [follower.poll()]
    while results[-1].more:
        assert len(results) < limit, "the follower never finished"
        results.append(follower.poll())
    return results


def events_of(results: list[PollResult]) -> list[Event]:
    return [event for result in results for event in result.events]


def problems_of(results: list[PollResult]) -> list[LogProblem]:
    return [problem for result in results for problem in result.problems]


TASK = jl(ts=1000, event="task_executed", id="T1")
READ = jl(ts=1060, event="file_read", path="a.py", size=400)
TOOL = jl(ts=1120, event="tool_call")


# -- the file is missing, a folder, unreadable ----------------------------------------------------


def test_missing_file_is_waiting_then_followed_when_it_appears(tmp_path: Path) -> None:
    log = tmp_path / "logs" / "worker.jsonl"
    follower = EventLogFollower(log)
    for _ in range(2):
        result = follower.poll()
        assert result == PollResult((), (), False, f"waiting for {log} to appear", False)
    log.parent.mkdir()
    log.write_text(TASK + READ)
    result = follower.poll()
    assert [e.kind for e in result.events] == ["task_executed", "file_read"]
    assert result.status == f"following {log}: 2 events"
    assert not result.restarted and not result.problems


def test_a_folder_is_one_problem_not_an_exception(tmp_path: Path) -> None:
    follower = EventLogFollower(tmp_path)
    first = follower.poll()
    assert first.events == () and not first.more
    assert len(first.problems) == 1 and first.problems[0].line == 0
    assert "folder" in first.problems[0].message and str(tmp_path) in first.status
    second = follower.poll()  # the same trouble is not reported again on every poll
    assert second.problems == () and second.status == first.status
    assert follower.problems == first.problems


def test_an_unreadable_file_is_a_problem_until_it_can_be_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    log = tmp_path / "w.jsonl"
    log.write_text(TASK)

    def refuse(path: Path) -> Any:
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(tail, "open_nonblocking", refuse)
    follower = EventLogFollower(log)
    first = follower.poll()
    assert first.status == f"cannot open {log}: Permission denied"
    assert first.problems == (LogProblem(0, first.status),)
    assert follower.poll().problems == ()
    monkeypatch.undo()
    result = follower.poll()
    assert [e.task_id for e in result.events] == ["T1"]


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="needs POSIX permissions and a non-root user")
def test_a_file_without_read_permission(tmp_path: Path) -> None:
    log = tmp_path / "w.jsonl"
    log.write_text(TASK)
    log.chmod(0)
    try:
        result = EventLogFollower(log).poll()
    finally:
        log.chmod(stat.S_IRUSR | stat.S_IWUSR)
    assert result.status.startswith("cannot open") and len(result.problems) == 1


def test_a_path_the_system_cannot_take(tmp_path: Path) -> None:
    result = EventLogFollower(tmp_path / "bad\0name.jsonl").poll()
    assert result.status.startswith("cannot open") and len(result.problems) == 1


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_a_named_pipe_does_not_block(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    result = EventLogFollower(fifo).poll()  # a plain open() would wait for a writer forever
    assert result.status == f"{fifo} is not a regular file"
    assert len(result.problems) == 1


def test_a_read_error_does_not_lose_data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    log = tmp_path / "w.jsonl"
    log.write_text(TASK)
    follower = EventLogFollower(log)
    follower.poll()
    append(log, READ)

    def broken(fd: int, offset: int, size: int) -> bytes:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(tail, "read_at", broken)
    result = follower.poll()
    assert result.status == f"cannot read {log}: Input/output error" and len(result.problems) == 1
    monkeypatch.undo()
    assert [e.kind for e in follower.poll().events] == ["file_read"]
    assert follower.usage.events == 2


# -- torn lines, truncation, rotation ------------------------------------------------------------


def test_a_torn_last_line_is_held_back_until_its_newline(tmp_path: Path) -> None:
    log = tmp_path / "w.jsonl"
    log.write_text(TASK + READ[:25])
    follower = EventLogFollower(log)
    first = follower.poll()
    assert [e.kind for e in first.events] == ["task_executed"]
    assert first.problems == ()
    append(log, READ[25:])
    second = follower.poll()
    assert second.events == (Event(line=2, kind="file_read", ts=1060.0, path="a.py", size=400),)
    assert second.problems == ()
    assert follower.poll().events == ()
    assert follower.usage.events == 2 and follower.usage.files_read == 1


def test_a_line_written_one_byte_at_a_time_counts_once(tmp_path: Path) -> None:
    log = tmp_path / "w.jsonl"
    log.write_bytes(b"")
    data = jl(ts=5, event="file_read", path="données/é.py", size=3).encode("utf-8")  # a split multi-byte char
    follower = EventLogFollower(log)
    seen: list[Event] = []
    for i in range(len(data)):
        append(log, data[i : i + 1])
        result = follower.poll()
        assert result.problems == ()
        seen.extend(result.events)
        assert len(seen) == (1 if i == len(data) - 1 else 0)
    assert seen[0].path == "données/é.py"


def test_truncation_resets_and_rereads_from_the_start(tmp_path: Path) -> None:
    log = tmp_path / "w.jsonl"
    log.write_text(TASK + READ + TOOL)
    follower = EventLogFollower(log)
    follower.poll()
    assert follower.usage.events == 3
    with open(log, "r+b") as handle:  # the same file (same inode), cut short
        handle.truncate(0)
        handle.write(jl(ts=50, event="task_executed", id="NEW").encode())
    result = follower.poll()
    assert result.restarted
    assert result.events == (Event(line=1, kind="task_executed", ts=50.0, task_id="NEW"),)
    assert len(result.problems) == 1 and result.problems[0].line == 0
    assert "truncated" in result.problems[0].message
    assert follower.problems == result.problems
    usage = follower.usage
    assert (usage.events, usage.tasks_executed, usage.files_read, usage.tool_calls) == (1, 1, 0, 0)
    assert usage.estimated_tokens == 500 and usage.last_task == "NEW"
    assert not follower.poll().restarted


def test_a_rewrite_that_is_not_shorter_is_noticed(tmp_path: Path) -> None:
    log = tmp_path / "w.jsonl"
    log.write_text(TASK)
    follower = EventLogFollower(log)
    follower.poll()
    with open(log, "r+b") as handle:  # rewritten in place: same inode, longer, different start
        handle.write((jl(ts=7, event="tool_call", count=2) + TOOL).encode())
    result = follower.poll()
    assert result.restarted and "truncated" in result.problems[0].message
    assert [(e.line, e.kind, e.count) for e in result.events] == [(1, "tool_call", 2), (2, "tool_call", 1)]


def test_rotation_by_rename_resets_and_rereads(tmp_path: Path) -> None:
    log = tmp_path / "w.jsonl"
    log.write_text(TASK + READ)
    follower = EventLogFollower(log)
    follower.poll()
    fresh = tmp_path / "w.jsonl.new"
    fresh.write_text(TASK + READ + TOOL + TOOL)  # longer, same start: only the identity tells
    os.replace(fresh, log)
    result = follower.poll()
    assert result.restarted
    assert "replaced" in result.problems[0].message and result.problems[0].line == 0
    assert [e.line for e in result.events] == [1, 2, 3, 4]
    assert follower.usage.events == 4


def test_deleted_then_recreated(tmp_path: Path) -> None:
    log = tmp_path / "w.jsonl"
    log.write_text(TASK + READ)
    follower = EventLogFollower(log)
    follower.poll()
    log.unlink()
    gone = follower.poll()
    assert gone.status == f"waiting for {log} to reappear (it was deleted after 2 events)"
    assert not gone.restarted and follower.usage.events == 2  # the last session stays on show
    log.write_text(TOOL)
    back = follower.poll()
    assert back.restarted and "deleted" in back.problems[0].message
    assert [e.kind for e in back.events] == ["tool_call"] and follower.usage.events == 1


def test_deleted_and_recreated_between_two_polls(tmp_path: Path) -> None:
    log = tmp_path / "w.jsonl"
    log.write_text(TASK + READ)
    follower = EventLogFollower(log)
    follower.poll()
    log.unlink()
    log.write_text(jl(ts=1, event="tool_call", count=9) + TASK + READ)  # may even reuse the inode
    result = follower.poll()
    assert result.restarted and "re-reading from the start" in result.problems[0].message
    assert [e.kind for e in result.events] == ["tool_call", "task_executed", "file_read"]


def test_reset_forgets_everything_and_rereads(tmp_path: Path) -> None:
    log = tmp_path / "w.jsonl"
    log.write_text(TASK + "oops\n" + READ)
    follower = EventLogFollower(log)
    follower.poll()
    assert follower.usage.events == 2 and len(follower.problems) == 1
    follower.reset()
    assert follower.usage.events == 0 and not follower.problems and follower.usage.history == ()
    result = follower.poll()
    assert len(result.events) == 2 and len(result.problems) == 1 and not result.restarted


# -- bad lines --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (b'{"ts": 1, "event" "tool_call"}', "line 2: not JSON (Expecting ':' delimiter at column 19)"),
        (b'{"ts": 1, "event": "tool_call"', "line 2: not JSON (Expecting ',' delimiter at column 31)"),
        (b"[1, 2]", "line 2: not a JSON object (got an array)"),
        (b'"tool_call"', "line 2: not a JSON object (got a string)"),
        (b'{"event": "tool_call"}', 'line 2: missing "ts"'),
        (b'{"ts": 1}', 'line 2: missing "event"'),
        (b'{"ts": 1, "event": 3}', 'line 2: "event" must be a string, not a number'),
        (b'{"ts": true, "event": "tool_call"}', 'line 2: "ts" must be a number or an ISO-8601 string, not true'),
        (b'{"ts": null, "event": "tool_call"}', 'line 2: "ts" must be a number or an ISO-8601 string, not null'),
        (b'{"ts": "yesterday", "event": "tool_call"}', "line 2: \"ts\" is not an ISO-8601 time: 'yesterday'"),
        (b'{"ts": NaN, "event": "tool_call"}', "line 2: not JSON (NaN is not allowed)"),
        (b'{"ts": 1e400, "event": "tool_call"}', "line 2: \"ts\" is out of range (1970-01-01 to 9999-12-31): 'inf'"),
        (b'{"ts": -5, "event": "tool_call"}', "line 2: \"ts\" is out of range (1970-01-01 to 9999-12-31): '-5'"),
        (b'{"ts": 1, "event": "task_executed"}', 'line 2: task_executed without "id"'),
        (b'{"ts": 1, "event": "task_executed", "id": ""}', 'line 2: "id" is empty'),
        (b'{"ts": 1, "event": "task_executed", "id": 7}', 'line 2: "id" must be a string, not a number'),
        (b'{"ts": 1, "event": "file_read", "size": 3}', 'line 2: file_read without "path"'),
        (
            b'{"ts": 1, "event": "file_read", "path": "a\\ud800", "size": 3}',
            "line 2: \"path\" contains a lone surrogate escape: 'a\\ud800'",
        ),
        (b'{"ts": 1, "event": "file_read", "path": "a.py"}', 'line 2: file_read without "size"'),
        (b'{"ts": 1, "event": "file_read", "path": "a.py", "size": -1}', 'line 2: "size" must be 0 or more, not -1'),
        (
            b'{"ts": 1, "event": "file_read", "path": "a", "size": 2.5}',
            'line 2: "size" must be a whole number, not a number',
        ),
        (
            b'{"ts": 1, "event": "file_read", "path": "a", "size": true}',
            'line 2: "size" must be a whole number, not true',
        ),
        (
            b'{"ts": 1, "event": "file_read", "path": "a", "size": "9"}',
            'line 2: "size" must be a whole number, not a string',
        ),
        (b'{"ts": 1, "event": "tool_call", "count": 0}', 'line 2: "count" must be 1 or more, not 0'),
        (b'{"ts": 1, "event": "tool_call", "count": false}', 'line 2: "count" must be a whole number, not false'),
        (b'{"ts": 1, "event": "tool_call", "count": 1e99}', 'line 2: "count" must be a whole number, not a number'),
        (
            b'{"ts": 1, "event": "tool_call", "count": 99999999999999999999}',
            'line 2: "count" is too large (99999999999999999999)',
        ),
        (
            b'{"ts": 1, "event": "tool_result"}',
            "line 2: unknown event 'tool_result' (expected task_executed, file_read or tool_call)",
        ),
        (b'{"ts": 1, "event": "tool_call", "x": "\xff"}', "line 2: not valid UTF-8 (byte 0xff at byte 39)"),
        (b"[" * 100_000, "line 2: not JSON (nested too deeply)"),
    ],
)
def test_a_bad_line_is_one_problem_and_the_rest_still_counts(tmp_path: Path, raw: bytes, message: str) -> None:
    log = tmp_path / "w.jsonl"
    log.write_bytes(TASK.encode() + raw + b"\n" + TOOL.encode())
    follower = EventLogFollower(log)
    result = follower.poll()
    assert result.problems == (LogProblem(2, message),)
    assert [(e.line, e.kind) for e in result.events] == [(1, "task_executed"), (3, "tool_call")]
    assert result.status == f"following {log}: 2 events, 1 problem"


def test_blank_lines_extra_keys_crlf_and_bom(tmp_path: Path) -> None:
    log = tmp_path / "w.jsonl"
    tool = json.dumps({"ts": 2, "event": "tool_call", "worker": "w1", "n": [1]}).encode()
    log.write_bytes(b"\xef\xbb\xbf" + TASK.rstrip("\n").encode() + b"\r\n" + b"\r\n" + b"   \r\n" + tool + b"\r\n")
    result = EventLogFollower(log).poll()
    assert result.problems == ()
    assert [(e.line, e.kind) for e in result.events] == [(1, "task_executed"), (4, "tool_call")]


def test_a_bom_is_only_accepted_at_the_start(tmp_path: Path) -> None:
    log = tmp_path / "w.jsonl"
    log.write_text(TASK + "\ufeff" + TOOL, encoding="utf-8")
    result = EventLogFollower(log).poll()
    assert len(result.events) == 1 and result.problems[0].line == 2


def test_an_overlong_complete_line_is_skipped(tmp_path: Path) -> None:
    log = tmp_path / "w.jsonl"
    long_line = jl(ts=1, event="file_read", path="x" * 500, size=1)
    log.write_text(TASK + long_line + TOOL)
    result = EventLogFollower(log, max_line_bytes=200).poll()
    assert result.problems == (LogProblem(2, "line 2: longer than 200 bytes"),)
    assert [e.line for e in result.events] == [1, 3]


def test_an_overlong_line_is_not_buffered_while_it_grows(tmp_path: Path) -> None:
    log = tmp_path / "w.jsonl"
    log.write_text(TASK)
    follower = EventLogFollower(log, max_line_bytes=100)
    follower.poll()
    problems: list[LogProblem] = []
    for _ in range(50):  # 50 kB of one line, no newline yet
        append(log, "x" * 1000)
        problems.extend(follower.poll().problems)
        lines = follower._tail.lines
        assert lines is not None and len(lines.held) <= 101  # held memory stays bounded
    append(log, "yyy\n" + TOOL)
    result = follower.poll()
    problems.extend(result.problems)
    assert problems == [LogProblem(2, "line 2: longer than 100 bytes")]
    assert [(e.line, e.kind) for e in result.events] == [(3, "tool_call")]


def test_problems_are_capped_and_counted(tmp_path: Path) -> None:
    log = tmp_path / "w.jsonl"
    log.write_text("bad\n" * 1500 + TOOL)
    follower = EventLogFollower(log)
    result = follower.poll()
    assert len(result.problems) == 1000 and len(follower.problems) == 1000
    assert follower.problem_count == 1500
    assert follower.problems[-1] == LogProblem(1000, "line 1000: not JSON (Expecting value at column 1)")
    assert result.status == f"following {log}: 1 event, 1,500 problems (first 1,000 kept)"
    assert result.events[0].line == 1501


# -- reading in slices ------------------------------------------------------------------------


def test_read_limit_spreads_a_big_log_over_several_polls(tmp_path: Path) -> None:
    log = tmp_path / "w.jsonl"
    lines = [jl(ts=1000 + i, event="tool_call", count=1 + i % 3) for i in range(300)]
    log.write_text("".join(lines))
    follower = EventLogFollower(log, read_limit=1000)
    results = poll_all(follower)
    assert len(results) >= len("".join(lines)) // 1000
    assert all(r.more for r in results[:-1]) and not results[-1].more
    assert "reading on" in results[0].status and "reading on" not in results[-1].status
    assert all(len(r.events) <= 1000 // 40 + 1 for r in results)
    events = events_of(results)
    assert [e.line for e in events] == list(range(1, 301))
    assert problems_of(results) == []
    assert follower.usage.tool_calls == sum(1 + i % 3 for i in range(300))


def test_a_read_that_ends_exactly_at_the_end_is_not_more(tmp_path: Path) -> None:
    log = tmp_path / "w.jsonl"
    log.write_text(TOOL)
    result = EventLogFollower(log, read_limit=len(TOOL)).poll()
    assert len(result.events) == 1 and not result.more


# -- arithmetic -------------------------------------------------------------------------------

HAND_LOG = (
    jl(ts="2026-11-22T10:00:00Z", event="task_executed", id="A")  # 500, at 0 min
    + jl(ts="2026-11-22T11:01:00+01:00", event="file_read", path="a.py", size=1001)  # int(250.25)+100 = 350, 1 min
    + jl(ts="2026-11-22T10:02:30", event="file_read", path="b.py", size=10)  # naive = UTC; int(2.5)+100 = 102, 2.5
    + jl(ts=1795341840, event="tool_call", count=3)  # 2026-11-22T10:04:00Z; 3 * 50 = 150, 4 min
    + jl(ts="2026-11-22T09:05:30-01:00", event="task_executed", id="B", note="extra keys are ignored")  # 500, 5.5
    + jl(ts="2026-11-22T10:04:00.000Z", event="tool_call")  # 50; earlier than the latest: time stays at 5.5 min
)


def test_tokens_of_a_hand_written_log(tmp_path: Path) -> None:
    log = tmp_path / "w.jsonl"
    log.write_text(HAND_LOG)
    follower = EventLogFollower(log)
    result = follower.poll()
    assert result.problems == ()
    usage = follower.usage
    # 2 tasks * 500 + (350 + 102) for the reads + 4 tool calls * 50 + int(5.5 minutes * 100)
    assert usage.estimated_tokens == 1000 + 452 + 200 + 550 == 2202
    assert usage.elapsed_minutes == 5.5
    assert (usage.tasks_executed, usage.files_read, usage.tool_calls, usage.events) == (2, 2, 4, 6)
    assert usage.last_task == "B"
    assert usage.usage_percent == pytest.approx(2202 / 200_000 * 100)
    assert usage.history == ((0.0, 500), (1.0, 950), (2.5, 1202), (4.0, 1502), (5.5, 2152), (5.5, 2202))
    assert usage.first_checkpoint is None and not usage.is_over_threshold
    assert [e.ts - result.events[0].ts for e in result.events] == [0, 60, 150, 240, 330, 240]


def test_estimate_equals_a_context_tracker_fed_the_same_calls(tmp_path: Path) -> None:
    log = tmp_path / "w.jsonl"
    log.write_text(HAND_LOG)
    follower = EventLogFollower(log, threshold_percent=55.0, max_tokens=4000)
    events = follower.poll().events
    now = [events[0].ts]
    tracker = ContextTracker(55.0, 4000, clock=lambda: now[0])
    for event in events:
        now[0] = max(now[0], event.ts)
        if event.kind == "task_executed":
            assert event.task_id is not None
            tracker.track_task_execution(event.task_id)
        elif event.kind == "file_read":
            assert event.path is not None and event.size is not None
            tracker.track_file_read(event.path, event.size)
        else:
            tracker.track_tool_call(event.count)
    expected = tracker.get_usage()
    usage = follower.usage
    assert usage.estimated_tokens == expected.estimated_tokens == usage.history[-1][1]
    assert usage.usage_percent == expected.usage_percent
    assert usage.is_over_threshold == expected.is_over_threshold == tracker.should_checkpoint() is True
    assert usage.elapsed_minutes == expected.elapsed_minutes


@pytest.mark.parametrize(("threshold", "index"), [(70.0, 3), (100.0, 4), (25.0, 0), (200.0, None)])
def test_first_checkpoint_mid_log(tmp_path: Path, threshold: float, index: int | None) -> None:
    log = tmp_path / "w.jsonl"
    log.write_text(HAND_LOG)
    follower = EventLogFollower(log, threshold_percent=threshold, max_tokens=2000)
    follower.poll()
    usage = follower.usage
    # history tokens: 500, 950, 1202, 1502, 2152, 2202 of 2000
    # 70% = 1400 -> first at index 3; 100% = 2000 -> index 4; 25% = 500 -> index 0 (>=)
    assert usage.first_checkpoint == index
    assert usage.is_over_threshold == (index is not None)


def test_first_checkpoint_across_polls(tmp_path: Path) -> None:
    log = tmp_path / "w.jsonl"
    lines = HAND_LOG.splitlines(keepends=True)
    log.write_text("".join(lines[:3]))
    follower = EventLogFollower(log, max_tokens=2000)
    follower.poll()
    assert follower.usage.first_checkpoint is None
    append(log, "".join(lines[3:]))
    follower.poll()
    assert follower.usage.first_checkpoint == 3


def test_empty_usage(tmp_path: Path) -> None:
    usage = EventLogFollower(tmp_path / "none.jsonl").usage
    assert usage.estimated_tokens == 0 and usage.events == 0 and usage.history == ()
    assert usage.max_tokens == 200_000 and usage.threshold_percent == 70.0 and not usage.is_over_threshold


@pytest.mark.parametrize(
    "kwargs",
    [{"max_tokens": 0}, {"max_line_bytes": 0}, {"read_limit": -1}, {"threshold_percent": float("nan")}],
)
def test_invalid_arguments(tmp_path: Path, kwargs: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        EventLogFollower(tmp_path / "w.jsonl", **kwargs)


# -- any split of any input gives the same result -----------------------------------------------

_valid = st.builds(
    jl,
    ts=st.integers(0, 4_000_000_000) | st.sampled_from(["2026-11-22T10:00:05Z", "2026-11-22T10:00:05+01:00"]),
    event=st.sampled_from(["task_executed", "file_read", "tool_call"]),
    id=st.sampled_from(["T1", "T2"]),
    path=st.sampled_from(["a.py", "é/b.py"]),
    size=st.integers(0, 10_000),
)
_line = _valid | st.sampled_from(["\n", "\r\n", "{}\n", "nope\n", '{"ts": 1, "event": "x"}\n', "\ufeff" + TOOL])
_chunk_sources = st.lists(_line.map(lambda s: s.encode("utf-8")) | st.binary(max_size=30), max_size=25)
_counter = itertools.count()


@hypothesis.settings(
    max_examples=150, deadline=None, suppress_health_check=[hypothesis.HealthCheck.function_scoped_fixture]
)
@hypothesis.given(
    pieces=_chunk_sources,
    cuts=st.lists(st.integers(0, 2000), max_size=8),
    read_limit=st.integers(1, 64),
    max_line_bytes=st.integers(20, 120),
)
def test_any_split_gives_the_same_events_and_problems(
    tmp_path: Path, pieces: list[bytes], cuts: list[int], read_limit: int, max_line_bytes: int
) -> None:
    data = b"".join(pieces)
    folder = tmp_path / str(next(_counter))
    folder.mkdir()
    whole_log, split_log = folder / "whole.jsonl", folder / "split.jsonl"
    whole_log.write_bytes(data)
    whole = EventLogFollower(whole_log, max_line_bytes=max_line_bytes)
    expected = poll_all(whole)
    split_log.write_bytes(b"")
    split = EventLogFollower(split_log, max_line_bytes=max_line_bytes, read_limit=read_limit)
    got: list[PollResult] = []
    bounds = sorted({min(c, len(data)) for c in cuts} | {0, len(data)})
    for start, end in itertools.pairwise(bounds):
        append(split_log, data[start:end])
        got.extend(poll_all(split))
    assert events_of(got) == events_of(expected)
    assert problems_of(got) == problems_of(expected)
    assert split.usage == whole.usage
    assert not any(r.restarted for r in got + expected)


# -- the bundled example ----------------------------------------------------------------------


def test_the_sample_log_parses_cleanly_with_real_file_sizes() -> None:
    follower = EventLogFollower(SAMPLE_LOG)
    results = poll_all(follower)
    assert problems_of(results) == [] and follower.problem_count == 0
    events = events_of(results)
    assert 40 <= len(events) <= 80
    reads = [e for e in events if e.kind == "file_read"]
    assert reads
    for event in reads:
        assert event.path is not None
        assert event.size == (LEDGER / event.path).stat().st_size, event.path
    graph = json.loads((LEDGER / ".gsd" / "specs" / "auth-sessions" / "task-graph.json").read_text(encoding="utf-8"))
    by_level = [t["id"] for t in sorted(graph["tasks"], key=lambda t: t["level"])]
    assert [e.task_id for e in events if e.kind == "task_executed"] == by_level
    assert all(b.ts > a.ts for a, b in itertools.pairwise(events))
    assert follower.usage.elapsed_minutes > 30


def test_finish_takes_the_held_back_last_line(tmp_path: Path) -> None:
    log = tmp_path / "w.jsonl"
    log.write_text('{"ts": 0, "event": "task_executed", "id": "A"}\n{"ts": 60, "event": "tool_call"}', encoding="utf-8")
    follower = EventLogFollower(log)
    assert [e.kind for e in follower.poll().events] == ["task_executed"]
    last = follower.finish()
    assert [(e.kind, e.line) for e in last.events] == [("tool_call", 2)]
    assert follower.usage.estimated_tokens == 500 + 50 + 100  # task, tool call, 1 minute
    assert follower.finish().events == ()  # nothing held back any more


def test_usage_read_before_finish_counts_the_line_finish_folds_in(tmp_path: Path) -> None:
    # The usage was cached by the poll and kept by finish(): the held-back event was folded
    # in, but usage still said 1 event and 500 tokens.
    log = tmp_path / "w.jsonl"
    log.write_text(TASK + TOOL.rstrip("\n"), encoding="utf-8")
    follower = EventLogFollower(log)
    follower.poll()
    assert (follower.usage.events, follower.usage.estimated_tokens) == (1, 500)
    follower.finish()
    # task 500 + tool call 50 + 2 minutes (ts 1000 to 1120) at 100 a minute
    assert (follower.usage.events, follower.usage.estimated_tokens) == (2, 500 + 50 + 200)


def test_the_own_format_is_told_from_upstreams_by_its_first_line() -> None:
    from ctxviewer.engine.runtime.eventlog import is_event_log_head

    ours = b'{"ts": 0, "event": "task_executed", "id": "A"}\n'
    upstream = b'{"ts": "2026-02-16T10:00:00Z", "level": "info", "worker_id": 1, "feature": "f", "message": "m"}\n'
    assert is_event_log_head(ours) and is_event_log_head(b"\xef\xbb\xbf\n  \n" + ours)  # BOM, blank lines first
    assert not is_event_log_head(upstream)
    assert not is_event_log_head(upstream[:-2] + b', "event": "tool_call"}\n')  # level and message: upstream's
    assert not is_event_log_head(b"") and not is_event_log_head(b"not json\n" + ours)
    assert is_event_log_head(ours[:-1])  # a first line still without its newline
