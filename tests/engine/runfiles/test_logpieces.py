"""Reading a worker log's new bytes as whole lines, without Qt: appends, torn lines, rotation, rewrites."""

from __future__ import annotations

import os
from pathlib import Path

from ctxviewer.engine.files.reading import ProjectFS
from ctxviewer.engine.runfiles.logpieces import LogTail

REL = "logs/workers/worker-1.jsonl"


def make(tmp_path: Path) -> tuple[Path, LogTail]:
    path = tmp_path / REL
    path.parent.mkdir(parents=True)
    return path, LogTail(ProjectFS(tmp_path), REL)


def pieces(tail: LogTail, limit: int = 1 << 20) -> list[tuple[str, int, bytes]]:
    read = tail.poll(limit)
    assert not read.restart
    return [(p.shown, p.first_line, p.data) for p in read.pieces]


def test_appended_lines_come_once_and_a_torn_line_waits_for_its_newline(tmp_path: Path) -> None:
    path, tail = make(tmp_path)
    path.write_bytes(b"a\nb\nhal")
    assert pieces(tail) == [("worker-1.jsonl", 1, b"a\nb\n")]
    assert tail.waiting_line
    assert pieces(tail) == []  # nothing new
    with path.open("ab") as f:
        f.write(b"f\nc\n")
    assert pieces(tail) == [("worker-1.jsonl", 3, b"half\nc\n")]
    assert not tail.waiting_line


def test_a_limit_splits_the_reading_and_says_there_is_more(tmp_path: Path) -> None:
    path, tail = make(tmp_path)
    path.write_bytes(b"one\ntwo\nthree\n")  # 14 bytes
    read = tail.poll(6)
    assert (read.more, [(p.first_line, p.data) for p in read.pieces]) == (True, [(1, b"one\n")])
    read = tail.poll(100)
    assert (read.more, [(p.first_line, p.data) for p in read.pieces]) == (False, [(2, b"two\nthree\n")])


def test_the_rotated_file_is_read_first_and_a_rotation_is_followed(tmp_path: Path) -> None:
    path, tail = make(tmp_path)
    rotated = path.with_name("worker-1.jsonl.1")
    rotated.write_bytes(b"r1\nr2\n")
    path.write_bytes(b"c1\n")
    assert pieces(tail) == [("worker-1.jsonl.1", 1, b"r1\nr2\n"), ("worker-1.jsonl", 1, b"c1\n")]
    # Upstream rotates: appends a last line, renames to .1 (over the old one), starts a new file.
    with path.open("ab") as f:
        f.write(b"c2\n")
    os.replace(path, rotated)
    path.write_bytes(b"n1\n")
    # The old file's rest under the name its lines were read as, then the new file from its start.
    assert pieces(tail) == [("worker-1.jsonl", 2, b"c2\n"), ("worker-1.jsonl", 1, b"n1\n")]
    assert pieces(tail) == []


def test_a_truncated_or_replaced_log_asks_to_be_read_again(tmp_path: Path) -> None:
    path, tail = make(tmp_path)
    path.write_bytes(b"first line\nsecond\n")
    pieces(tail)
    path.write_bytes(b"x\n")  # shorter: truncated
    assert tail.poll(1 << 20).restart
    _, again = make_again(tmp_path)
    path.write_bytes(b"first line\nsecond\n")
    pieces(again)
    path.write_bytes(b"FIRST LINE\nsecond\nthird\n")  # rewritten, longer
    assert again.poll(1 << 20).restart
    _, third = make_again(tmp_path)
    pieces(third)
    path.unlink()
    path.write_bytes(b"another file\n")  # a new file, not by rotation
    assert third.poll(1 << 20).restart


def make_again(tmp_path: Path) -> tuple[Path, LogTail]:
    return tmp_path / REL, LogTail(ProjectFS(tmp_path), REL)


def test_a_deleted_log_or_a_folder_in_its_place_is_said_once(tmp_path: Path) -> None:
    path, tail = make(tmp_path)
    path.write_bytes(b"a\n")
    pieces(tail)
    path.unlink()
    read = tail.poll(100)
    assert (read.restart, read.problem) == (False, "worker-1.jsonl: was deleted; waiting for it to reappear")
    assert tail.poll(100).problem is None
    folder_tail = LogTail(ProjectFS(tmp_path), "logs/workers/worker-9.jsonl")
    (tmp_path / "logs/workers/worker-9.jsonl").mkdir()
    assert folder_tail.poll(100).problem == "worker-9.jsonl: is a folder, not a log file; not read"
    assert folder_tail.poll(100).problem is None


def test_a_pipe_in_place_of_the_log_never_blocks(tmp_path: Path) -> None:
    path, tail = make(tmp_path)
    os.mkfifo(path)
    read = tail.poll(100)
    assert (read.pieces, read.problem) == ([], "worker-1.jsonl: is a named pipe, not a log file; not read")


def test_a_line_longer_than_the_limit_is_skipped_without_being_held(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr("ctxviewer.engine.runfiles.logpieces.MAX_LINE_BYTES", 10)
    path, tail = make(tmp_path)
    path.write_bytes(b"ok\n" + b"x" * 25)
    read = tail.poll(1 << 20)
    assert ([(p.first_line, p.data) for p in read.pieces], read.skipped) == ([(1, b"ok\n")], [("worker-1.jsonl", 2)])
    with path.open("ab") as f:
        f.write(b"yyy\nnext\n")
    read = tail.poll(1 << 20)
    assert ([(p.first_line, p.data) for p in read.pieces], read.skipped) == ([(3, b"next\n")], [])


def test_a_symlink_out_of_the_folder_is_not_read(tmp_path: Path) -> None:
    outside = tmp_path / "outside.jsonl"
    outside.write_bytes(b"secret\n")
    root = tmp_path / "run"
    (root / "logs/workers").mkdir(parents=True)
    (root / REL).symlink_to(outside)
    read = LogTail(ProjectFS(root), REL).poll(100)
    assert read.pieces == []
    assert read.problem is not None and read.problem.startswith("worker-1.jsonl: not read")
