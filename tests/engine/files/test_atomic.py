"""atomic_write: the new file or the old one, never half of either, no temp files left.

Rules under test (``ctxviewer.engine.files.writing``): the data goes to a temporary file in
the same folder which is renamed over the target; on any failure the temporary file
is removed and the old file is left as it was; with ``check_unchanged`` a target whose
(mtime_ns, size) differs from ``expect_unchanged`` is not overwritten.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ctxviewer.engine.errors import WriteError
from ctxviewer.engine.files.writing import atomic_write, file_signature


def names(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def test_writes_a_new_file_as_utf8(tmp_path: Path) -> None:
    target = tmp_path / "f.md"
    atomic_write(target, "h\u00e9 \u2014\n")
    # é is 2 bytes (c3 a9), the em dash 3 (e2 80 94)
    assert target.read_bytes() == b"h\xc3\xa9 \xe2\x80\x94\n"
    assert names(tmp_path) == ["f.md"]


def test_writes_bytes_as_given(tmp_path: Path) -> None:
    target = tmp_path / "f.bin"
    atomic_write(target, b"\x00\xff\r\n")
    assert target.read_bytes() == b"\x00\xff\r\n"


def test_accepts_a_str_path(tmp_path: Path) -> None:
    atomic_write(str(tmp_path / "s.txt"), "s")
    assert (tmp_path / "s.txt").read_text() == "s"


def test_replaces_an_existing_file(tmp_path: Path) -> None:
    target = tmp_path / "f.md"
    target.write_text("old content that is longer")
    atomic_write(target, "new")
    assert target.read_text() == "new"
    assert names(tmp_path) == ["f.md"]


def test_keeps_the_permissions_of_the_file_it_replaces(tmp_path: Path) -> None:
    target = tmp_path / "f.md"
    target.write_text("old")
    target.chmod(0o640)
    atomic_write(target, "new")
    assert target.stat().st_mode & 0o777 == 0o640


def _raise_enospc(*args: Any, **kwargs: Any) -> None:
    raise OSError(28, "No space left on device")


@pytest.mark.parametrize("failing", ["replace", "fsync"])
def test_a_failure_keeps_the_old_file_and_leaves_no_temp_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failing: str
) -> None:
    target = tmp_path / "f.md"
    target.write_text("old")
    monkeypatch.setattr(os, failing, _raise_enospc)
    with pytest.raises(WriteError) as info:
        atomic_write(target, "new")
    monkeypatch.undo()
    assert target.read_text() == "old"
    assert names(tmp_path) == ["f.md"]
    assert info.value.path == str(target)
    assert "No space left on device" in str(info.value)


def test_a_failing_write_keeps_the_old_file_and_leaves_no_temp_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "f.md"
    target.write_text("old")
    real_fdopen = os.fdopen

    class FailingWrite:
        def __init__(self, handle: Any) -> None:
            self.handle = handle

        def __enter__(self) -> FailingWrite:
            return self

        def __exit__(self, *exc: object) -> None:
            self.handle.close()

        def write(self, data: bytes) -> int:
            self.handle.write(data[:1])  # half a write, then the disk is full
            raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fdopen", lambda fd, mode: FailingWrite(real_fdopen(fd, mode)))
    with pytest.raises(WriteError):
        atomic_write(target, "new content")
    monkeypatch.undo()
    assert target.read_text() == "old"
    assert names(tmp_path) == ["f.md"]


def test_a_failure_on_a_new_file_creates_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "replace", _raise_enospc)
    with pytest.raises(WriteError):
        atomic_write(tmp_path / "new.md", "x")
    monkeypatch.undo()
    assert names(tmp_path) == []


def test_a_missing_folder_is_a_write_error(tmp_path: Path) -> None:
    with pytest.raises(WriteError):
        atomic_write(tmp_path / "no" / "f.md", "x")
    assert names(tmp_path) == []


def test_file_signature_is_mtime_ns_and_size(tmp_path: Path) -> None:
    target = tmp_path / "f.md"
    assert file_signature(target) is None
    target.write_bytes(b"12345")
    assert file_signature(target) == (target.stat().st_mtime_ns, 5)


def test_check_unchanged_refuses_a_file_changed_since_it_was_read(tmp_path: Path) -> None:
    target = tmp_path / "f.md"
    target.write_text("read")
    seen = file_signature(target)  # (mtime, 4)
    target.write_text("changed by someone else")  # size 23: the signature differs
    with pytest.raises(WriteError):
        atomic_write(target, "mine", expect_unchanged=seen, check_unchanged=True)
    assert target.read_text() == "changed by someone else"
    assert names(tmp_path) == ["f.md"]


def test_check_unchanged_writes_when_the_signature_matches(tmp_path: Path) -> None:
    target = tmp_path / "f.md"
    target.write_text("read")
    seen = file_signature(target)
    atomic_write(target, "mine", expect_unchanged=seen, check_unchanged=True)
    assert target.read_text() == "mine"


def test_check_unchanged_refuses_a_file_created_since(tmp_path: Path) -> None:
    target = tmp_path / "f.md"
    # read when it did not exist (signature None); someone creates it meanwhile
    target.write_text("theirs")
    with pytest.raises(WriteError):
        atomic_write(target, "mine", expect_unchanged=None, check_unchanged=True)
    assert target.read_text() == "theirs"


def test_check_unchanged_writes_a_file_that_still_does_not_exist(tmp_path: Path) -> None:
    target = tmp_path / "f.md"
    atomic_write(target, "mine", expect_unchanged=None, check_unchanged=True)
    assert target.read_text() == "mine"


def test_without_check_unchanged_a_stale_signature_is_ignored(tmp_path: Path) -> None:
    target = tmp_path / "f.md"
    target.write_text("theirs")
    atomic_write(target, "mine", expect_unchanged=(0, 0))
    assert target.read_text() == "mine"


# -- streamed writes -----------------------------------------------------------------------------


def test_a_stream_appears_only_when_complete(tmp_path: Path) -> None:
    from ctxviewer.engine.files.writing import atomic_write_stream

    target = tmp_path / "out.jsonl"
    seen_while_writing: list[bool] = []

    def lines() -> Iterator[str]:
        for n in range(3):
            seen_while_writing.append(target.exists())
            yield f'{{"n": {n}}}\n'

    atomic_write_stream(target, lines())
    assert target.read_text(encoding="utf-8") == '{"n": 0}\n{"n": 1}\n{"n": 2}\n'
    assert seen_while_writing == [False, False, False]
    assert [p.name for p in tmp_path.iterdir()] == ["out.jsonl"]  # no staged file left


def test_a_failing_producer_keeps_the_old_file_and_its_own_error(tmp_path: Path) -> None:
    from ctxviewer.engine.files.writing import atomic_write_stream

    target = tmp_path / "out.jsonl"
    target.write_text("old\n", encoding="utf-8")

    class Boom(Exception):
        pass

    def lines() -> Iterator[bytes]:
        yield b"new\n"
        raise Boom("task T3 refused")

    with pytest.raises(Boom, match="task T3 refused"):
        atomic_write_stream(target, lines())
    assert target.read_text(encoding="utf-8") == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["out.jsonl"]


def test_a_stream_is_refused_where_a_write_is(tmp_path: Path) -> None:
    from ctxviewer.engine.files.writing import atomic_write_stream

    (tmp_path / ".git").mkdir()
    with pytest.raises(WriteError, match=r"\.git"):
        atomic_write_stream(tmp_path / ".git" / "x.jsonl", iter(["a"]))
    with pytest.raises(WriteError, match="folder"):
        atomic_write_stream(tmp_path, iter(["a"]))
    assert not (tmp_path / ".git" / "x.jsonl").exists()
