"""Following one worker log by its bytes, for the viewer: what was appended, as whole lines.

:class:`LogTail` hands out pieces of complete lines (``\\n``-terminated) of a worker log
and its rotation ``.1``, at most *limit* bytes a poll, without parsing them (the store
does, in the viewer's own time).  It follows what upstream does the way the engine's
:class:`~ctxviewer.engine.runfiles.workerlog.WorkerLogReader` does: the ``.1`` first, a
rotation (the file we were reading renamed to ``.1``) finished under its old name and the
new file read from its start, a torn last line held until its newline arrives.  What
upstream never does -- the file truncated, rewritten or replaced -- is answered with
``restart``: the viewer reads the whole log again.  Every path is resolved inside the
run's folder (:class:`~ctxviewer.engine.files.reading.ProjectFS`); a folder or a pipe in
place of the log is said once and never blocks.  Nothing here imports Qt.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field

from ctxviewer.engine.files.reading import OutsideRootError, ProjectFS
from ctxviewer.engine.runfiles.problems import file_kind

#: A line longer than this is skipped (its bytes dropped as they come), as the engine's reader does.
MAX_LINE_BYTES = 4_000_000
_HEAD = 64
_BLOCK = 1 << 20


@dataclass(slots=True)
class Piece:
    """Complete lines of one file: *data* ends with a newline; its first line is *first_line*,
    and it starts at byte *offset* of the file whose identity (device, inode) is *identity*."""

    shown: str
    first_line: int
    data: bytes
    identity: tuple[int, int] = (0, 0)
    offset: int = 0


@dataclass(slots=True)
class TailRead:
    """What one :meth:`LogTail.poll` found."""

    pieces: list[Piece] = field(default_factory=list)
    skipped: list[tuple[str, int]] = field(default_factory=list)
    """Lines longer than :data:`MAX_LINE_BYTES`, as (file, line)."""
    restart: bool = False
    """The log was truncated, rewritten or replaced: what was read of it is no longer on disk."""
    more: bool = False
    """The poll stopped at its limit: there is more to read now."""
    problem: str | None = None
    """A new trouble with the log (a folder in its place, deleted, outside the folder), once."""


@dataclass(slots=True)
class _File:
    identity: tuple[int, int]
    shown: str
    offset: int = 0
    lines: int = 0
    head: bytes = b""
    partial: bytearray = field(default_factory=bytearray)
    discarding: bool = False


class LogTail:
    """One worker log (``rel``, relative to *fs*'s root) and its ``.1``, read as they grow."""

    def __init__(self, fs: ProjectFS, rel: str, shown: str | None = None) -> None:
        self.fs = fs
        self.rel = rel
        self.shown = shown or rel.rsplit("/", 1)[-1]
        self._current: _File | None = None
        self._rotated: _File | None = None
        self._said: str | None = None
        self._started = False

    @property
    def waiting_line(self) -> bool:
        """A last line is held back until its newline arrives."""
        return self._current is not None and bool(self._current.partial) and not self._current.discarding

    def _open(self, rel: str, out: TailRead) -> tuple[int, tuple[int, int]] | None:
        try:
            fd = os.open(self.fs.resolve(rel), os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
        except OutsideRootError as exc:
            self._say(f"{self.shown}: not read: {exc.why}", out)
            return None
        except (FileNotFoundError, NotADirectoryError):
            return None
        except OSError as exc:
            self._say(f"{self.shown}: cannot be read ({exc.strerror or exc})", out)
            return None
        try:
            info = os.fstat(fd)
        except OSError as exc:
            os.close(fd)
            self._say(f"{self.shown}: cannot be read ({exc.strerror or exc})", out)
            return None
        if not stat.S_ISREG(info.st_mode):
            os.close(fd)
            self._say(f"{rel.rsplit('/', 1)[-1]}: is {file_kind(info.st_mode)}, not a log file; not read", out)
            return None
        return fd, (info.st_dev, info.st_ino)

    def _say(self, message: str, out: TailRead) -> None:
        if message != self._said:
            self._said = message
            out.problem = message

    def poll(self, limit: int) -> TailRead:
        """Up to *limit* bytes of what was appended since the last poll, as pieces of whole lines."""
        out = TailRead()
        rot = self._open(self.rel + ".1", out)
        cur = self._open(self.rel, out)
        try:
            rot_id = rot[1] if rot else None
            cur_id = cur[1] if cur else None
            old = self._current
            if not self._started:
                self._started = True
                if rot_id is not None:
                    self._rotated = _File(rot_id, self.shown + ".1")
            elif old is not None and old.identity != cur_id:
                if rot_id == old.identity:
                    self._rotated = old  # rotated: finish it under its new name, then the new file
                    self._current = None
                else:
                    if cur_id is None and rot_id is None:
                        self._say(f"{self.shown}: was deleted; waiting for it to reappear", out)
                        return out
                    out.restart = True
                    return out
            elif old is not None and cur is not None:
                try:
                    size = os.fstat(cur[0]).st_size
                    os.lseek(cur[0], 0, os.SEEK_SET)
                    head = os.read(cur[0], len(old.head)) if old.head else b""
                except OSError:
                    return out
                if size < old.offset or head != old.head:
                    out.restart = True
                    return out
            if cur_id is not None and (self._current is None or self._current.identity != cur_id):
                self._current = _File(cur_id, self.shown)
            budget = [limit]
            if rot is not None and self._rotated is not None and self._rotated.identity == rot_id:
                self._read(rot[0], self._rotated, budget, out)
                if budget[0] > 0:
                    self._rotated = None  # finished: nothing more is appended to a rotated file
            if cur is not None and self._current is not None and budget[0] > 0:
                self._read(cur[0], self._current, budget, out)
            out.more = budget[0] <= 0
            if cur is not None:
                self._said = None
            return out
        finally:
            for opened in (rot, cur):
                if opened is not None:
                    os.close(opened[0])

    def read_back(self, identity: tuple[int, int], offset: int, size: int) -> bytes | None:
        """*size* bytes at *offset* of the log file whose identity is *identity*, wherever it is now
        (the log or its ``.1``); None when it is no longer there."""
        for rel in (self.rel, self.rel + ".1"):
            scratch = TailRead()
            opened = self._open_quietly(rel, scratch)
            if opened is None:
                continue
            fd, found = opened
            try:
                if found != identity:
                    continue
                os.lseek(fd, offset, os.SEEK_SET)
                return os.read(fd, size)
            except OSError:
                return None
            finally:
                os.close(fd)
        return None

    def _open_quietly(self, rel: str, out: TailRead) -> tuple[int, tuple[int, int]] | None:
        """:meth:`_open` without saying anything (reading back is not following)."""
        said = self._said
        try:
            return self._open(rel, out)
        finally:
            self._said = said

    def _read(self, fd: int, f: _File, budget: list[int], out: TailRead) -> None:
        while budget[0] > 0:
            try:
                os.lseek(fd, f.offset, os.SEEK_SET)
                data = os.read(fd, min(budget[0], _BLOCK))
            except OSError:
                return
            if not data:
                return
            budget[0] -= len(data)
            if f.offset < _HEAD:
                f.head += data[: _HEAD - f.offset]
            f.offset += len(data)
            self._feed(f, data, out)

    def _feed(self, f: _File, data: bytes, out: TailRead) -> None:
        start = 0
        if f.discarding:
            end = data.find(b"\n")
            if end < 0:
                return
            f.discarding = False
            f.lines += 1
            start = end + 1
        last = data.rfind(b"\n", start)
        if last >= 0:
            first = data.find(b"\n", start)
            if f.partial and len(f.partial) + first - start > MAX_LINE_BYTES:
                f.partial.clear()
                f.lines += 1
                out.skipped.append((f.shown, f.lines))
                start = first + 1
            if start <= last:
                # Where the chunk starts in the file: data began at f.offset - len(data), and a
                # held part line came just before.
                at = f.offset - len(data) + start - len(f.partial)
                chunk = bytes(f.partial) + data[start : last + 1] if f.partial else data[start : last + 1]
                f.partial.clear()
                count = chunk.count(b"\n")
                out.pieces.append(Piece(f.shown, f.lines + 1, chunk, f.identity, at))
                f.lines += count
            start = last + 1
        if len(f.partial) + len(data) - start > MAX_LINE_BYTES:
            f.partial.clear()
            f.discarding = True
            out.skipped.append((f.shown, f.lines + 1))
        else:
            f.partial += data[start:]
