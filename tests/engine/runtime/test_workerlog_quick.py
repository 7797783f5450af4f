"""The worker log reader's quick helpers give what the careful ones give."""

from __future__ import annotations

import struct
from datetime import UTC, datetime

import hypothesis
import hypothesis.strategies as st

from ctxviewer.engine.runtime.eventlog.lines import LineSplitter
from ctxviewer.engine.runtime.jsondoc import parse_log_time, parse_time

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
