"""The engine's one tail: lines cut from growing bytes, and a file (and its rotation) followed.

Every expected value is worked out by hand from the bytes written.
"""

from __future__ import annotations

import os
import stat
import tracemalloc
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxviewer.engine.files.reading import OutsideRootError, ProjectFS
from ctxviewer.engine.files.tail import Change, FileTail, Line, LineSplitter, Opened, Refused, TailedFile

# -- lines ----------------------------------------------------------------------------------------


def test_lines_are_cut_at_newlines_and_a_torn_last_line_is_held_back() -> None:
    lines = LineSplitter(100)
    assert list(lines.feed(b"a\nb")) == [Line(1, b"a")]
    assert lines.held == b"b"
    assert list(lines.feed(b"c\r\n")) == [Line(2, b"bc\r")]  # the CR is the parser's to drop
    assert lines.finish() is None


def test_a_complete_line_over_the_limit_is_too_long_not_counting_its_cr() -> None:
    lines = LineSplitter(3)
    assert list(lines.feed(b"abcd\nabc\r\n")) == [Line(1, b"", too_long=True), Line(2, b"abc\r")]


def test_a_growing_line_over_the_limit_is_reported_once_and_dropped_up_to_its_newline() -> None:
    lines = LineSplitter(3)
    assert list(lines.feed(b"ab")) == []
    # 2 held + 3 new = 5 bytes, over 3 and a CR to come: reported as line 1, not held.
    assert list(lines.feed(b"cde")) == [Line(1, b"", too_long=True)]
    assert lines.held == b"" and lines.discarding
    assert list(lines.feed(b"fg")) == []
    assert list(lines.feed(b"h\nok\n")) == [Line(2, b"ok")]
    assert lines.finish() is None


def test_finish_takes_the_held_back_line_once() -> None:
    lines = LineSplitter(100)
    assert list(lines.feed(b"x")) == []
    assert lines.finish() == Line(1, b"x")
    assert lines.finish() is None and lines.lines == 1


def test_cut_drops_the_held_back_line_and_counts_it() -> None:
    lines = LineSplitter(100)
    assert lines.split(b"a\nhal") == (1, [b"a"])
    assert lines.cut() == 2
    assert lines.held == b"" and lines.cut() is None and lines.finish() is None


def test_runs_are_whole_lines_with_their_offsets_a_torn_line_joined_to_its_rest() -> None:
    lines = LineSplitter(100)
    # b"a\nb\nhal" at offset 0: a run of lines 1-2 at 0; "hal" held.
    assert lines.runs(b"a\nb\nhal", 0) == ([(1, 0, b"a\nb\n")], [])
    # b"f\nc\n" at offset 7: the held "hal" came at 4, so the run starts there.
    assert lines.runs(b"f\nc\n", 7) == ([(3, 4, b"half\nc\n")], [])
    assert lines.lines == 4 and lines.held == b""


def test_runs_leave_out_a_line_too_long_and_say_its_number() -> None:
    lines = LineSplitter(3)
    # "ok\n" is line 1; "xxxxx" grows past 3 (+1 for a CR) and is dropped as line 2.
    assert lines.runs(b"ok\nxxxxx", 0) == ([(1, 0, b"ok\n")], [2])
    # Past the dropped line's end: "next" is complete in this block but 4 bytes, over 3.
    assert lines.runs(b"yy\nnext\n", 8) == ([], [3])
    lines = LineSplitter(4)
    assert lines.runs(b"ok\nxxxxxx", 0) == ([(1, 0, b"ok\n")], [2])
    assert lines.runs(b"yy\nnext\n", 9) == ([(3, 12, b"next\n")], [])


def test_runs_split_around_a_complete_line_too_long_inside_one_block() -> None:
    lines = LineSplitter(3)
    # Lines: "ab" (1), "toolong" (2, too long), "cd\r" (3: 2 bytes and its CR), "xyzw" (4, too long), "e" (5).
    data = b"ab\ntoolong\ncd\r\nxyzw\ne\n"
    assert lines.runs(data, 100) == ([(1, 100, b"ab\n"), (3, 111, b"cd\r\n"), (5, 120, b"e\n")], [2, 4])
    assert lines.lines == 5


def test_a_held_line_completed_over_the_limit_is_too_long_unless_only_its_cr_is_over() -> None:
    lines = LineSplitter(3)
    assert lines.runs(b"abc", 0) == ([], [])
    assert lines.runs(b"\r\nabc", 3) == ([(1, 0, b"abc\r\n")], [])  # 3 bytes and a CR: not too long
    assert lines.runs(b"d\n", 8) == ([], [2])  # "abcd": 4 bytes


CHUNKS = st.lists(st.binary(max_size=12).map(lambda b: b.replace(b"\x00", b"\n").replace(b"\x01", b"\r")), max_size=12)


@settings(max_examples=300, deadline=None)
@given(chunks=CHUNKS, limit=st.integers(1, 6))
def test_runs_split_and_feed_give_the_same_lines(chunks: list[bytes], limit: int) -> None:
    fed, split, ran = LineSplitter(limit), LineSplitter(limit), LineSplitter(limit)
    expected: list[tuple[int, bytes | None]] = []
    got_split: list[tuple[int, bytes | None]] = []
    got_runs: list[tuple[int, bytes | None]] = []
    stream = b"".join(chunks)
    at = 0
    for chunk in chunks:
        expected += [(line.number, None if line.too_long else line.raw) for line in fed.feed(chunk)]
        first, raws = split.split(chunk)
        got_split += list(enumerate(raws, first))
        runs, too_long = ran.runs(chunk, at)
        at += len(chunk)
        for first_line, offset, run in runs:
            assert run.endswith(b"\n") and stream[offset : offset + len(run)] == run
            got_runs += list(enumerate(run[:-1].split(b"\n"), first_line))
        got_runs += [(number, None) for number in too_long]
    assert got_split == expected
    assert sorted(got_runs, key=lambda x: x[0]) == expected
    assert fed.held == split.held == ran.held and fed.lines == split.lines == ran.lines


def test_memory_stays_bounded_by_the_line_limit_whatever_a_line_s_length() -> None:
    lines = LineSplitter(1_000)
    block = b"x" * 4_096
    tracemalloc.start()
    try:
        for _ in range(2_000):  # one line of 8 MB, never complete
            lines.runs(block, 0)
            assert len(lines.held) <= 1_001
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 200_000
    assert lines.runs(b"\nok\n", 0) == ([(2, 1, b"ok\n")], [])


# -- a file followed ------------------------------------------------------------------------------

REL = "logs/w.jsonl"


def tail_of(root: Path, *, rotation: str | None = ".1", block: int = 1 << 20) -> FileTail[TailedFile]:
    (root / "logs").mkdir(exist_ok=True)
    return FileTail(ProjectFS(root), REL, "w.jsonl", TailedFile, rotation=rotation, max_line_bytes=100, block=block)


def poll(tail: FileTail[TailedFile], limit: int = 1 << 20) -> tuple[Change | None, list[tuple[str, int, bytes]], bool]:
    """What changed, the runs of lines read (file shown, first line, bytes), and whether there is more."""
    with tail.poll(limit) as p:
        change = p.follow()
        out = []
        for file in p.files():
            for data in p.blocks(file):
                runs, _ = file.splitter.runs(data, file.offset - len(data))
                out += [(file.shown, first, run) for first, _, run in runs]
        return change, out, p.more


def append(path: Path, data: bytes) -> None:
    with path.open("ab") as f:
        f.write(data)


def test_growth_is_read_once_and_a_torn_line_waits(tmp_path: Path) -> None:
    tail = tail_of(tmp_path)
    path = tmp_path / REL
    assert poll(tail) == (None, [], False)  # nothing there yet
    path.write_bytes(b"a\nb")
    assert poll(tail) == (None, [("w.jsonl", 1, b"a\n")], False)
    assert poll(tail) == (None, [], False)
    append(path, b"c\n")
    assert poll(tail) == (None, [("w.jsonl", 2, b"bc\n")], False)
    assert tail.current is not None and tail.current.offset == 5 and tail.current.head == b"a\nbc\n"


def test_a_poll_reads_at_most_its_limit_in_blocks(tmp_path: Path) -> None:
    tail = tail_of(tmp_path, block=3)
    (tmp_path / REL).write_bytes(b"one\ntwo\nthree\n")  # 14 bytes
    assert poll(tail, 6) == (None, [("w.jsonl", 1, b"one\n")], True)  # blocks "one", "\ntw"
    assert poll(tail, 100) == (None, [("w.jsonl", 2, b"two\n"), ("w.jsonl", 3, b"three\n")], False)


def test_a_line_longer_than_a_block_is_put_together(tmp_path: Path) -> None:
    tail = tail_of(tmp_path, block=4)
    (tmp_path / REL).write_bytes(b"0123456789\nab\n")
    assert poll(tail) == (None, [("w.jsonl", 1, b"0123456789\n"), ("w.jsonl", 2, b"ab\n")], False)


def test_truncation_and_a_rewrite_of_the_same_size_start_over(tmp_path: Path) -> None:
    tail = tail_of(tmp_path)
    path = tmp_path / REL
    path.write_bytes(b"abcdef\n")
    poll(tail)
    path.write_bytes(b"xy\n")
    assert poll(tail) == (Change.TRUNCATED, [("w.jsonl", 1, b"xy\n")], False)
    with path.open("r+b") as f:  # the same file, other bytes, the same size
        f.write(b"zz\n")
    assert poll(tail) == (Change.REWRITTEN, [("w.jsonl", 1, b"zz\n")], False)


def test_a_rotation_is_finished_under_its_new_name_then_the_new_file_is_read(tmp_path: Path) -> None:
    tail = tail_of(tmp_path)
    path, rotated = tmp_path / REL, tmp_path / (REL + ".1")
    path.write_bytes(b"c1\n")
    assert poll(tail) == (None, [("w.jsonl", 1, b"c1\n")], False)
    append(path, b"c2\n")
    os.replace(path, rotated)
    path.write_bytes(b"n1\n")
    # The tail does not rename: the file keeps the name its lines were read as (a reader may rename it).
    assert poll(tail) == (Change.ROTATED, [("w.jsonl", 2, b"c2\n"), ("w.jsonl", 1, b"n1\n")], False)
    assert poll(tail) == (None, [], False)


def test_two_rotations_between_polls_lose_lines_and_say_so(tmp_path: Path) -> None:
    tail = tail_of(tmp_path)
    path, rotated = tmp_path / REL, tmp_path / (REL + ".1")
    path.write_bytes(b"a\n")
    poll(tail)
    os.replace(path, rotated)
    path.write_bytes(b"b\n")
    third = tmp_path / "logs" / "third"
    third.write_bytes(b"c\n")  # made while the first file exists, so it cannot take its inode number
    os.replace(path, rotated)  # the first rotation overwritten: its rest is lost
    os.replace(third, path)
    with tail.poll(100) as p:
        assert p.follow() is Change.ROTATED_TWICE
        assert p.old is not None and p.old.splitter.lines == 1
    # The poll above read nothing: the next one reads the second rotation and the new file whole.
    assert poll(tail) == (None, [("w.jsonl.1", 1, b"b\n"), ("w.jsonl", 1, b"c\n")], False)


def test_a_replaced_file_and_a_deleted_then_recreated_one(tmp_path: Path) -> None:
    tail = tail_of(tmp_path, rotation=None)
    path = tmp_path / REL
    path.write_bytes(b"first\n")
    poll(tail)
    other = tmp_path / "logs" / "other"
    other.write_bytes(b"other file\n")
    os.replace(other, path)  # another file (inode) at the path
    assert poll(tail) == (Change.REPLACED, [("w.jsonl", 1, b"other file\n")], False)
    path.unlink()
    assert poll(tail) == (Change.DELETED, [], False)
    assert tail.gone is not None and tail.gone.offset == 11
    assert poll(tail) == (None, [], False)  # said once
    path.write_bytes(b"again\n")
    assert poll(tail) == (Change.RECREATED, [("w.jsonl", 1, b"again\n")], False)
    assert tail.gone is None


def test_what_cannot_be_read_is_refused_and_a_pipe_never_blocks(tmp_path: Path) -> None:
    tail = tail_of(tmp_path)
    (tmp_path / REL).mkdir()
    with tail.poll(100) as p:
        assert isinstance(p.current, Refused) and stat.S_ISDIR(p.current.mode)
    (tmp_path / REL).rmdir()
    os.mkfifo(tmp_path / REL)
    with tail.poll(100) as p:
        assert isinstance(p.current, Refused) and stat.S_ISFIFO(p.current.mode)
        assert p.follow() is None and list(p.files()) == []


def test_a_link_out_of_the_root_is_refused_before_it_is_opened(tmp_path: Path) -> None:
    outside = tmp_path / "secret.jsonl"
    outside.write_bytes(b"secret\n")
    root = tmp_path / "run"
    root.mkdir()
    tail = tail_of(root)
    (root / REL).symlink_to(outside)
    with tail.poll(100) as p:
        assert isinstance(p.current, Refused) and isinstance(p.current.error, OutsideRootError)


def test_bytes_are_read_back_by_identity_wherever_the_file_is_now(tmp_path: Path) -> None:
    tail = tail_of(tmp_path)
    path, rotated = tmp_path / REL, tmp_path / (REL + ".1")
    path.write_bytes(b"one\ntwo\npart")
    poll(tail)
    first = tail.current
    assert first is not None
    assert tail.read_back(first.identity, 4, 3) == b"two"
    assert b"".join(tail.reread(first)) == b"one\ntwo\n"  # up to the held-back part line
    os.replace(path, rotated)
    assert tail.read_back(first.identity, 0, 3) == b"one"  # found at the rotation's name
    rotated.unlink()
    assert tail.read_back(first.identity, 0, 3) is None
    assert list(tail.reread(first)) == []


def test_opened_files_are_closed_when_the_poll_ends(tmp_path: Path) -> None:
    tail = tail_of(tmp_path)
    (tmp_path / REL).write_bytes(b"x\n")
    with tail.poll(100) as p:
        assert isinstance(p.current, Opened)
        fd = p.current.fd
    with pytest.raises(OSError):
        os.fstat(fd)
