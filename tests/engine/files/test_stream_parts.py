"""A streamed output made of parts other processes wrote (``batch --jobs``): the parts are
copied into the staged file in order and removed, their scratch folder goes whatever happens,
and a failure leaves the old file as it was and nothing beside it."""

from __future__ import annotations

import errno
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from ctxviewer.engine.errors import WriteError
from ctxviewer.engine.files.writing import (
    Chunk,
    ScratchPart,
    ScratchWriteError,
    atomic_write_stream,
    take_scratch_part,
    write_scratch_part,
)


def _names(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


class Recorder:
    """A producer of text and parts that notes its scratch folder and whether it was closed
    while that folder still existed."""

    def __init__(self, fail: BaseException | None = None, missing_part: bool = False) -> None:
        self.folder: Path | None = None
        self.closed_with_folder: bool | None = None
        self.fail = fail
        self.missing_part = missing_part

    def __call__(self, folder: Path) -> Iterator[Chunk]:
        self.folder = folder
        try:
            yield "head\n"
            yield write_scratch_part(folder, "part-1", ["one\n", b"two\n"])
            yield b"middle\n"
            if self.missing_part:
                yield ScratchPart(folder / "never-written")
            yield write_scratch_part(folder, "part-2", ["ünï\n"])
            if self.fail is not None:
                raise self.fail
            yield "tail\n"
        finally:
            self.closed_with_folder = folder.is_dir()


EXPECTED = "head\none\ntwo\nmiddle\nünï\ntail\n".encode()


def test_parts_are_spliced_in_order_and_their_folder_removed(tmp_path: Path) -> None:
    target = tmp_path / "rows.jsonl"
    producer = Recorder()
    atomic_write_stream(target, producer)
    assert target.read_bytes() == EXPECTED
    assert producer.folder is not None and producer.folder.parent == tmp_path  # beside the output
    assert not producer.folder.exists()
    assert _names(tmp_path) == ["rows.jsonl"]


@pytest.mark.parametrize("how", ["exdev", "absent"])
def test_parts_are_copied_the_plain_way_where_the_kernel_cannot(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    if how == "absent":
        monkeypatch.delattr(os, "copy_file_range", raising=False)
    else:

        def refuse(*_args: object) -> int:
            raise OSError(errno.EXDEV, "Invalid cross-device link")

        monkeypatch.setattr(os, "copy_file_range", refuse, raising=False)
    target = tmp_path / "rows.jsonl"
    atomic_write_stream(target, Recorder())
    assert target.read_bytes() == EXPECTED
    assert _names(tmp_path) == ["rows.jsonl"]


@pytest.mark.parametrize("error", [ValueError("the producer broke"), KeyboardInterrupt()])
def test_a_failing_producer_leaves_the_old_file_and_nothing_beside_it(tmp_path: Path, error: BaseException) -> None:
    target = tmp_path / "rows.jsonl"
    target.write_bytes(b"yesterday\n")
    producer = Recorder(fail=error)
    with pytest.raises(type(error)):
        atomic_write_stream(target, producer)
    assert target.read_bytes() == b"yesterday\n"
    assert _names(tmp_path) == ["rows.jsonl"]


def test_a_failed_copy_closes_the_producer_before_its_folder_goes(tmp_path: Path) -> None:
    target = tmp_path / "rows.jsonl"
    target.write_bytes(b"yesterday\n")
    producer = Recorder(missing_part=True)
    with pytest.raises(WriteError) as caught:
        atomic_write_stream(target, producer)
    assert str(caught.value).startswith(f"{target}: could not be written (No such file or directory)")
    assert producer.closed_with_folder is True  # its workers could still be stopped
    assert target.read_bytes() == b"yesterday\n"
    assert _names(tmp_path) == ["rows.jsonl"]


def test_a_workers_disk_error_is_the_outputs(tmp_path: Path) -> None:
    target = tmp_path / "rows.jsonl"
    target.write_bytes(b"yesterday\n")

    def full_disk(folder: Path) -> Iterator[Chunk]:
        yield "head\n"
        raise ScratchWriteError("could not be written (No space left on device)", str(folder / "part-3"))

    with pytest.raises(WriteError) as caught:
        atomic_write_stream(target, full_disk)
    # As when one process runs out of space writing the output itself.
    assert str(caught.value) == f"{target}: could not be written (No space left on device); the old file is intact"
    assert type(caught.value) is WriteError
    assert _names(tmp_path) == ["rows.jsonl"]


def test_scratch_parts_are_new_files_and_taken_once(tmp_path: Path) -> None:
    part = write_scratch_part(tmp_path, "part-1", ["a" * 5000, b"b\n"])
    assert [len(b) for b in take_scratch_part(part, block=4096)] == [4096, 906]
    assert _names(tmp_path) == []
    write_scratch_part(tmp_path, "part-2", ["x\n"])
    with pytest.raises(ScratchWriteError) as caught:  # never over an existing file
        write_scratch_part(tmp_path, "part-2", ["y\n"])
    assert caught.value.message == "could not be written (File exists)"
    with pytest.raises(WriteError):
        write_scratch_part(tmp_path, "../outside", ["z\n"])
    assert not (tmp_path.parent / "outside").exists()


def test_an_error_of_the_chunks_is_raised_as_it_is(tmp_path: Path) -> None:
    def chunks() -> Iterator[str]:
        yield "ok\n"
        raise UnicodeEncodeError("utf-8", "\ud800", 0, 1, "surrogates not allowed")

    with pytest.raises(UnicodeEncodeError):
        write_scratch_part(tmp_path, "part-1", chunks())


def test_a_long_stream_is_sent_to_the_disk_as_it_grows(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ctxviewer.engine.files import writing

    advised: list[tuple[int, int, int]] = []
    monkeypatch.setattr(writing, "WRITEBACK_BYTES", 10)
    monkeypatch.setattr(os, "posix_fadvise", lambda _fd, start, size, advice: advised.append((start, size, advice)))
    target = tmp_path / "rows.jsonl"
    atomic_write_stream(target, Recorder())
    assert target.read_bytes() == EXPECTED
    # head\n (5 bytes), part-1 (+8 = 13: 10 past 0), middle\n (+7 = 20), ünï\n in UTF-8 (+6 = 26: 13 past
    # 13), tail\n (+5 = 31: not yet 10 past 26; the fsync takes it).
    assert advised == [(0, 13, os.POSIX_FADV_DONTNEED), (13, 13, os.POSIX_FADV_DONTNEED)]
