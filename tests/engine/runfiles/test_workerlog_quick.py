"""The worker log reader's quick path gives what its careful path gives, line for line.

A line upstream wrote is decoded by orjson, its time parsed by the minute, and (read for a
fleet) counted without a record; every other line goes through ``_parse_line``, which says
what is wrong with it.  These tests hold the two to the same records, problems and tracker
records on lines of every kind, cut into reads at every size.
"""

from __future__ import annotations

import bisect
import json
import struct
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import hypothesis
import hypothesis.strategies as st
import pytest

from ctxviewer.engine.files.reading import ProjectFS
from ctxviewer.engine.files.tail import LineSplitter
from ctxviewer.engine.runfiles.fleet import RunEvent, _merge, _time_key
from ctxviewer.engine.runfiles.jsondoc import parse_log_time, parse_time
from ctxviewer.engine.runfiles.problems import RunProblem
from ctxviewer.engine.runfiles.workerlog import (
    PROCESS_START,
    LogRecord,
    RecordFold,
    WorkerLogReader,
    _BadLine,
    _parse_line,
)

LOG = "logs/workers/worker-1.jsonl"
TS = "2026-02-16T15:31:07.747137Z"

#: Times upstream never writes, and some it does, each taken as parse_time takes it.
ODD_TIMES = [
    TS, "2026-02-16T15:31:07Z", "2026-02-16T15:31:07.747137+00:00", "2026-02-16T15:31:07.747137",
    "2026-02-16T15:31:07.747Z", " 2026-02-16T15:31:07.747137Z", "2026-02-16T15:31:07.747137Z ",
    "2026-02-30T15:31:07.747137Z", "2026-02-16T23:59:60.000000Z", "2026-02-16T24:00:00.000000Z",
    "2026-02-16T15:60:00.000000Z", "2026-13-16T15:31:07.747137Z", "1999-12-31T23:59:59.999999Z",
    "2000-01-01T00:00:00.000000Z", "2100-01-01T00:00:00.000000Z", "2100-01-01T00:00:00.000001Z",
    "0001-01-01T00:00:00.000000Z", "9999-12-31T23:59:59.999999Z", "1969-12-31T23:59:59.999999Z",
    "2026-02-16T15:31:07.74713xZ", "2026-02-16T15:31:07.+74713Z", "2026-02-16T15:31:07. 74713Z",
    "2026-02-16T15:31:07.7471_3Z", "2026-02-16T15:31:+7.747137Z",
    "2026-02-16T15:31:07.\u0667\u0664\u0667\u0661\u0663\u0667Z",
    "\u0662\u0660\u0662\u0666-02-16T15:31:07.747137Z", "2026-02-16 15:31:07.747137Z", "2026-W07-1T15:31:07.747137Z",
    "2026-02-16T15:31+01.747137Z", "2026-02-16T15:31:07,747137Z", "2026-02-16T15:31:07.747137z",
    "2026-02-16T15:31:07.7471370Z", "2026-02-16T15:31:07.747137-05:00", "20260216T153107.747137Z",
    "garbage", "",
]  # fmt: skip


def same_float(a: float | None, b: float | None) -> bool:
    return a == b and (a is None or b is None or struct.pack("d", a) == struct.pack("d", b))


def test_odd_times_are_read_as_parse_time_reads_them() -> None:
    for text in ODD_TIMES:
        assert same_float(parse_log_time(text), parse_time(text, naive_is_utc=True)), text


@hypothesis.settings(max_examples=400, deadline=None)
@hypothesis.given(
    moment=st.floats(min_value=-6e10, max_value=2.5e11),
    edits=st.lists(st.tuples(st.integers(0, 26), st.sampled_from("0123456789-T:.Z +_\u0663")), max_size=3),
)
def test_any_time_is_read_as_parse_time_reads_it(moment: float, edits: list[tuple[int, str]]) -> None:
    chars = list(datetime.fromtimestamp(moment, UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ").rjust(27, "0"))
    for at, char in edits:
        chars[at] = char
    text = "".join(chars)
    assert same_float(parse_log_time(text), parse_time(text, naive_is_utc=True)), text


@hypothesis.settings(max_examples=300, deadline=None)
@hypothesis.given(
    limit=st.integers(1, 12),
    chunks=st.lists(st.binary(max_size=30).map(lambda b: b.replace(b"\x00", b"\n")), max_size=8),
)
def test_split_gives_the_lines_feed_gives(limit: int, chunks: list[bytes]) -> None:
    fed, split = LineSplitter(limit), LineSplitter(limit)
    for data in chunks:
        expected = [(line.number, None if line.too_long else line.raw) for line in fed.feed(data)]
        first, raws = split.split(data)
        assert [(first + i, raw) for i, raw in enumerate(raws)] == expected
        assert (split.lines, bytes(split.held), split.discarding) == (fed.lines, bytes(fed.held), fed.discarding)


def entry(n: int, **changes: Any) -> dict[str, Any]:
    value: dict[str, Any] = {
        "ts": f"2026-02-16T10:{n // 60 % 60:02d}:{n % 60:02d}.{n:06d}Z",
        "level": "info",
        "worker_id": 1 + n % 3,
        "feature": "shop",
        "message": f"message {n}",
    }
    value.update(changes)
    return value


def hostile_lines() -> list[bytes]:
    """Good lines among bad ones of every kind the reader tells apart."""
    odd: list[dict[str, Any] | bytes] = [
        *({"ts": ts} for ts in ODD_TIMES),
        {"ts": 12345}, {"ts": None}, {"level": 1}, {"feature": []}, {"message": {}}, {"task_id": 2},
        {"phase": True}, {"event": 1.5}, {"worker_id": True}, {"worker_id": 2.5}, {"worker_id": None},
        {"worker_id": []}, {"worker_id": "orchestrator"}, {"worker_id": ""}, {"worker_id": "²"},
        {"worker_id": 10**30}, {"worker_id": -(2**63) - 1}, {"duration_ms": -1}, {"duration_ms": 2.5},
        {"duration_ms": 1e300}, {"duration_ms": True}, {"duration_ms": "5"}, {"duration_ms": 10**20},
        {"duration_ms": 0}, {"duration_ms": 31_622_400_000}, {"duration_ms": 31_622_400_001},
        {"data": 1}, {"data": []}, {"data": {"big": 10**30, "deep": [[[1]]]}}, {"data": None},
        {"other": 10**40}, {"other": "\ud800"}, {"event": "task_completed", "task_id": "T1"},
        {"event": "task_started"}, {"event": ""}, {"message": "Worker 3 starting for feature x"},
        {"message": "Worker  starting for feature "}, {"message": "Worker 3 starting"},
        {"message": "\u2028 odd \x00 é 😀"},
        b"[1,2]", b"42", b'"x"', b"null", b"{", b'{"a":1} x', b"\xff\xfe", b'{"ts": "\xc3\x28"}', b"", b"   ",
        b"\t", b'{"a":1}\x0c', b'{"a": NaN}', b'{"a": 1E400}', b'{"a": 1' + b"1" * 5000 + b"}",
        b"[" * 3000 + b"]" * 3000, b'{"a":' + b"[" * 600 + b"]" * 600 + b"}", b'{"a":[1', b"2]}", b"{},{}",
        b"\xef\xbb\xbf" + json.dumps(entry(1)).encode(), json.dumps(entry(2)).encode() + b"\r",
        json.dumps(entry(3)).encode() + b" ", b" " + json.dumps(entry(4)).encode(), b"x" * 5000,
        json.dumps(entry(5, message="é" * 600), ensure_ascii=False).encode(),
    ]  # fmt: skip
    lines: list[bytes] = []
    for n, change in enumerate(odd):
        lines.append(json.dumps(entry(100 + n)).encode())
        if isinstance(change, bytes):
            lines.append(change)
        else:
            value = entry(n)
            value.update(change)
            lines.append(json.dumps({k: v for k, v in value.items() if v is not None or k == "data"}).encode())
        if n % 7 == 0:  # a field left out
            lines.append(json.dumps({k: v for k, v in entry(n).items() if k != list(entry(n))[n % 5]}).encode())
    return lines


def careful(lines: list[bytes], shown: str, max_line_bytes: int) -> tuple[list[LogRecord], list[RunProblem]]:
    """The records and problems of *lines*, each read by ``_parse_line`` alone."""
    records: list[LogRecord] = []
    problems: list[RunProblem] = []
    for number, raw in enumerate(lines, 1):
        if len(raw.removesuffix(b"\r")) > max_line_bytes:
            problems.append(RunProblem(shown, number, f"longer than {max_line_bytes:,} bytes; skipped"))
            continue
        try:
            record, wrong = _parse_line(raw, number, shown)
        except _BadLine as exc:
            problems.append(RunProblem(shown, number, str(exc)))
            continue
        if wrong:
            problems.append(RunProblem(shown, number, "; ".join(wrong)))
        if record is not None:
            records.append(record)
    return records, problems


class Taken(RecordFold):
    """What a fold is given, in order: ("record", record) and ("plain", worker, time, feature)."""

    def __init__(self) -> None:
        self.taken: list[tuple[Any, ...]] = []

    def record(self, record: LogRecord) -> None:
        self.taken.append(("record", record))

    def plain(self, worker: str, time: float, feature: str) -> None:
        self.taken.append(("plain", worker, time, feature))


def read_all(reader: WorkerLogReader, fold: RecordFold | None) -> tuple[list[LogRecord], list[RunProblem]]:
    records: list[LogRecord] = []
    problems: list[RunProblem] = []
    while True:
        result = reader.poll(fold)
        records += result.records
        problems += result.problems
        if not result.more:
            break
    last = reader.finish(fold)
    return records + list(last.records), problems + list(last.problems)


@pytest.mark.parametrize(("read_limit", "max_line_bytes"), [(1, 4000), (97, 6000), (4096, 4000), (1 << 20, 6000)])
def test_every_line_gives_what_the_careful_path_gives(
    tmp_path_factory: Any, read_limit: int, max_line_bytes: int
) -> None:
    root = tmp_path_factory.mktemp("run")
    log = root / LOG
    log.parent.mkdir(parents=True)
    lines = hostile_lines()
    log.write_bytes(b"\n".join(lines))  # the last line without its newline: finish() takes it
    expected, expected_problems = careful(lines, LOG, max_line_bytes)
    plain = WorkerLogReader(ProjectFS(root), LOG, read_limit=read_limit, max_line_bytes=max_line_bytes)
    records, problems = read_all(plain, None)
    assert problems == expected_problems
    assert records == expected
    assert [r.data for r in records] == [r.data for r in expected]
    assert [type(r.worker_id) for r in records] == [type(r.worker_id) for r in expected]

    taken = Taken()
    folded = WorkerLogReader(ProjectFS(root), LOG, read_limit=read_limit, max_line_bytes=max_line_bytes)
    none, fold_problems = read_all(folded, taken)
    assert none == [] and fold_problems == expected_problems
    wrong_lines = {p.line for p in expected_problems}

    def as_plain(taken: tuple[Any, ...]) -> tuple[Any, ...]:
        """A record the fold could have been given as a plain one, as that (orjson leaves some out)."""
        if taken[0] == "plain":
            return taken
        r = taken[1]
        start = r.message is not None and PROCESS_START.match(r.message) is not None
        if r.line in wrong_lines or r.event is not None or start:
            return taken
        return ("plain", r.worker or "?", r.time, r.feature)

    assert [as_plain(t) for t in taken.taken] == [as_plain(("record", r)) for r in expected]
    assert sum(t[0] == "plain" for t in taken.taken) > 100
    assert folded.tracker_records == plain.tracker_records
    assert folded.record_count == plain.record_count == len(expected)


def test_the_quick_path_takes_upstreams_lines(tmp_path: Path) -> None:
    """Upstream's lines are counted without a record, and their times are the careful path's."""
    log = tmp_path / LOG
    log.parent.mkdir(parents=True)
    lines = [json.dumps(entry(n)).encode() for n in range(200)]
    log.write_bytes(b"\n".join(lines) + b"\n")
    taken = Taken()
    reader = WorkerLogReader(ProjectFS(tmp_path), LOG)
    assert read_all(reader, taken) == ([], [])
    expected, _ = careful(lines, LOG, 4_000_000)
    assert [t[0] for t in taken.taken] == ["plain"] * 200
    assert [t[2] for t in taken.taken] == [r.time for r in expected]


@hypothesis.settings(max_examples=200, deadline=None)
@hypothesis.given(
    held=st.lists(st.one_of(st.none(), st.integers(0, 20)), max_size=40),
    new=st.lists(st.one_of(st.none(), st.integers(0, 20)), max_size=60),
)
def test_a_fleet_merges_many_new_events_as_inserting_each_would(held: list[int | None], new: list[int | None]) -> None:
    def events(times: list[int | None], source: str) -> list[RunEvent]:
        made = [RunEvent(None if t is None else float(t), "1", "e", None, source, "f", n) for n, t in enumerate(times)]
        return sorted(made, key=_time_key)

    joined, fresh = events(held, "held"), events(new, "new")
    expected = list(joined)
    for event in fresh:
        bisect.insort_right(expected, event, key=_time_key)
    _merge(joined, fresh)
    assert joined == expected
