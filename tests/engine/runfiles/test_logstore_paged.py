"""The log viewer holds numbers, not text: rows are read back from the log files, a text search
reads them from disk and finds exactly what a search of every message would, and a row whose
file was rotated away says so."""

from __future__ import annotations

import json
import os
import tracemalloc
from pathlib import Path

from hypothesis import example, given, settings
from hypothesis import strategies as st

from ctxviewer.engine.files.reading import ProjectFS
from ctxviewer.engine.runfiles.logpieces import LogTail
from ctxviewer.engine.runfiles.logstore import LogFilter, LogStore, parse_line
from tests.engine.runfiles.small_log import WORKER_1, line

REL = "logs/workers/worker-1.jsonl"


def follow(root: Path, store: LogStore, tail: LogTail) -> None:
    """What the panel does with a tail's pieces: each file a segment read back through the tail."""
    segments: dict[tuple[int, int], int] = {}
    while True:
        read = tail.poll(1 << 20)
        for piece in read.pieces:
            if piece.identity not in segments:
                identity = piece.identity
                segments[identity] = store.segment(lambda at, size, i=identity: tail.read_back(i, at, size))
            store.add_lines(piece.data, store.file_code(piece.shown), piece.first_line, segments[piece.identity],
                            piece.offset)  # fmt: skip
        if not read.more:
            return


def test_rows_are_read_back_from_the_file_at_their_offsets(tmp_path: Path) -> None:
    path = tmp_path / REL
    path.parent.mkdir(parents=True)
    path.write_bytes("".join(WORKER_1[:3]).encode() + b"hal")  # a torn fourth line
    store, tail = LogStore(), LogTail(ProjectFS(tmp_path), REL)
    follow(tmp_path, store, tail)
    with path.open("ab") as handle:  # the torn line completed, then one more
        handle.write(b"f\n" + WORKER_1[3].encode())
    follow(tmp_path, store, tail)
    assert len(store) == 5
    assert [store.row(n).message for n in range(3)] == [json.loads(x)["message"] for x in WORKER_1[:3]]
    assert (store.row(3).line, store.row(3).message, store.row(3).bad) == (
        4,
        "half",
        "not JSON (Expecting value at column 1)",
    )
    assert store.row(4).message == "Task T1 completed" and store.row(4).line == 5
    # The offsets are the lines' own: each row's bytes are its line in the file.
    data = path.read_bytes()
    for n in range(5):
        assert data[store.offset[n] : store.offset[n] + store.length[n] + 1].endswith(b"\n")


def test_a_row_whose_file_was_rotated_away_says_so_and_still_filters(tmp_path: Path) -> None:
    path = tmp_path / REL
    path.parent.mkdir(parents=True)
    path.write_text("".join(WORKER_1[:4]), encoding="utf-8")
    store, tail = LogStore(), LogTail(ProjectFS(tmp_path), REL)
    follow(tmp_path, store, tail)
    os.replace(path, str(path) + ".1")  # rotated once: the rows are read back from the .1
    path.write_text(line("09:00:00", "info", 1, "after"), encoding="utf-8")
    follow(tmp_path, store, tail)
    assert store.row(1).message == "Task T1 started" and store.row(4).message == "after"
    store = LogStore()  # a fresh store, so nothing is cached: rotate again, overwriting the .1
    tail = LogTail(ProjectFS(tmp_path), REL)
    follow(tmp_path, store, tail)
    os.replace(str(path) + ".1", tmp_path / "gone")
    (tmp_path / "gone").unlink()
    os.replace(path, str(path) + ".1")
    path.write_text("", encoding="utf-8")
    gone = store.row(0)
    assert gone.message.startswith("(no longer on disk") and (gone.level, gone.worker) == ("info", "1")
    assert [n for n in store.matcher(LogFilter(event="task_completed")).rows(0, len(store))] == [3]


def test_the_store_holds_a_few_dozen_bytes_a_line(tmp_path: Path) -> None:
    count = 20_000
    lines = [
        line(f"08:{n // 60 % 60:02d}:{n % 60:02d}", "info", 1, f"message number {n} " + "x" * 80) for n in range(count)
    ]
    data = "".join(lines).encode()
    path = tmp_path / REL
    path.parent.mkdir(parents=True)
    path.write_bytes(data)
    store, tail = LogStore(), LogTail(ProjectFS(tmp_path), REL)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        follow(tmp_path, store, tail)
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert len(store) == count
    # Ten columns of 4 or 8 bytes (arrays over-allocate a little): far below the ~190-byte lines.
    assert held / count < 64, held / count
    assert store.row(count - 1).message.startswith(f"message number {count - 1} ")


#: ASCII letters, what JSON escapes (a slash, a backslash, a quote, controls), and characters
#: whose lowercase is or holds ASCII (the Kelvin sign, a dotted capital I).
_messages = st.text(alphabet=st.sampled_from(list('abcAB/\\"é\u212aİ \n\tK')), min_size=0, max_size=12)


@settings(max_examples=60, deadline=None)
@example(messages=["a\u212a"], needle="AK", ascii_only=True)  # the Kelvin sign lowercases to "k"
@example(messages=["a\u212a"], needle="ak", ascii_only=False)
@given(messages=st.lists(_messages, min_size=1, max_size=12), needle=_messages, ascii_only=st.booleans())
def test_a_search_from_disk_finds_what_a_search_of_every_message_finds(
    tmp_path_factory, messages: list[str], needle: str, ascii_only: bool
) -> None:
    folder = tmp_path_factory.mktemp("search")
    path = folder / REL
    path.parent.mkdir(parents=True)
    body = [
        json.dumps({"ts": "t", "level": "info", "worker_id": 1, "feature": "f", "message": m}, ensure_ascii=ascii_only)
        + "\n"
        for m in messages
    ]
    path.write_bytes("".join(body).encode())
    store, tail = LogStore(), LogTail(ProjectFS(folder), REL)
    follow(folder, store, tail)
    wanted = needle.strip().lower()
    expected = [
        n
        for n in range(len(store))
        if not wanted
        or wanted in store.row(n).message.lower()
        or any(wanted in (v or "").lower() for v in ("info", "1", "f"))
    ]
    assert store.matcher(LogFilter(text=needle)).rows(0, len(store)) == expected


def test_parse_line_takes_a_bom_off_the_first_line_only() -> None:
    record = b'{"ts": "t", "level": "info", "worker_id": 1, "feature": "f", "message": "m"}'
    first = parse_line("\ufeff".encode() + record, True)
    later = parse_line("\ufeff".encode() + record, False)
    assert first is not None and first.bad is None and first.message == "m"
    assert later is not None and later.bad is not None
    assert parse_line(b"   ", False) is None
