"""Following a growing file: its appended complete lines, read a bounded number of bytes at a time.

The one tail under every reader that follows a file: upstream's worker logs, the log viewer's
rows and ctxviewer's own event log.  :class:`LineSplitter` cuts the bytes into numbered lines
(a torn last line held back, one too long dropped as it comes); :class:`FileTail` opens the
file and its rotation without blocking, says what became of it, and reads on.  What each reader
does about a change: ``docs/run-files.md#worker-logs`` and ``docs/event-log.md``.
"""

from __future__ import annotations

import enum
import os
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from types import TracebackType
from typing import Generic, TypeVar

from ctxviewer.engine.files.reading import OutsideRootError, ProjectFS

#: A file's first bytes are kept, to notice a rewrite that keeps (or grows) its size.
HEAD_BYTES = 64
#: Bytes read from a file at once, unless a tail is given another size.
BLOCK_BYTES = 1 << 22


@dataclass(frozen=True, slots=True)
class Line:
    """One complete line (without its ``\\n``), or a note that it was too long."""

    number: int
    """1-based line number in its file."""
    raw: bytes
    """The line's bytes (empty when :attr:`too_long`); a CR before the newline is kept."""
    too_long: bool = False
    """Longer than the limit: skipped (and, while it grew, not held in memory)."""


class LineSplitter:
    """Cuts the bytes read from one file into complete lines, numbering them from 1.

    A last line without its newline is held back until the newline arrives; one that grows
    past *max_line_bytes* (not counting a CR before its newline) is reported once as too long
    and its bytes dropped up to its newline.  :meth:`feed`, :meth:`split` and :meth:`runs`
    give the same lines in three shapes; use one of them per file.
    """

    def __init__(self, max_line_bytes: int) -> None:
        self.max_line_bytes = max_line_bytes
        self.lines = 0  # complete lines seen
        self.held = bytearray()  # the last line, until its newline arrives
        self.discarding = False  # inside an overlong line: drop bytes up to its newline

    def feed(self, data: bytes) -> Iterator[Line]:
        """The lines *data* completes, in order (read them all before the next feed)."""
        first, raws = self.split(data)
        for number, raw in enumerate(raws, first):
            yield Line(number, b"", too_long=True) if raw is None else Line(number, raw)

    def split(self, data: bytes) -> tuple[int, list[bytes | None]]:
        """What :meth:`feed` gives for *data*, as a list: the first line's number and each
        line's bytes in order (None for a line too long), the lines numbered one after another."""
        start = self._resume(data)
        first = self.lines + 1
        out: list[bytes | None] = []
        if start < 0:
            return first, out
        last = data.rfind(b"\n")
        if last >= start:
            if self.held:
                end = data.find(b"\n", start)
                self.held += data[start:end]
                out.append(bytes(self.held))
                self.held.clear()
                start = end + 1
            if last >= start:
                out += data[start:last].split(b"\n")
                start = last + 1
            self.lines += len(out)
            limit = self.max_line_bytes
            if max(map(len, out)) > limit:  # type: ignore[arg-type]
                for i, raw in enumerate(out):
                    if raw is not None and len(raw) - raw.endswith(b"\r") > limit:
                        out[i] = None
        if self._hold(data, start):
            out.append(None)
        return first, out

    def runs(self, data: bytes, at: int) -> tuple[list[tuple[int, int, bytes]], list[int]]:
        """The complete lines *data* ends, as runs of whole lines, each ``(its first line's
        number, its offset in the file, its bytes)`` ending in a newline (*at*: where *data*
        starts in the file); and the numbers of the lines too long, which no run holds."""
        runs: list[tuple[int, int, bytes]] = []
        too_long: list[int] = []
        start = self._resume(data)
        if start < 0:
            return runs, too_long
        last = data.rfind(b"\n", start)
        if last >= 0:
            held = self.held
            if held:
                end = data.find(b"\n", start)
                cr = (data[end - 1] if end > start else held[-1]) == 13
                if len(held) + end - start - cr > self.max_line_bytes:
                    held.clear()
                    self.lines += 1
                    too_long.append(self.lines)
                    start = end + 1
            if start <= last:
                begin = at + start - len(held)
                chunk = bytes(held) + data[start : last + 1] if held else data[start : last + 1]
                held.clear()
                self._add_runs(chunk, begin, runs, too_long)
            start = last + 1
        if self._hold(data, start):
            too_long.append(self.lines + 1)
        return runs, too_long

    def _add_runs(self, chunk: bytes, begin: int, runs: list[tuple[int, int, bytes]], too_long: list[int]) -> None:
        """Complete lines *chunk* (at *begin* in the file) as runs, around any line too long."""
        first = self.lines + 1
        if len(chunk) <= self.max_line_bytes + 1:  # no line of it can be too long
            runs.append((first, begin, chunk))
            self.lines += chunk.count(b"\n")
            return
        pos = run = 0
        number = run_first = first
        while pos < len(chunk):
            end = chunk.find(b"\n", pos)
            if end - pos - (end > pos and chunk[end - 1] == 13) > self.max_line_bytes:
                if run < pos:
                    runs.append((run_first, begin + run, chunk[run:pos]))
                too_long.append(number)
                run, run_first = end + 1, number + 1
            number += 1
            pos = end + 1
        if run < len(chunk):
            runs.append((run_first, begin + run, chunk[run:]))
        self.lines = number - 1

    def finish(self) -> Line | None:
        """The held-back last line taken as complete (None: nothing held back)."""
        if not self.held or self.discarding:
            return None
        raw = bytes(self.held)
        self.held.clear()
        self.lines += 1
        if len(raw) - raw.endswith(b"\r") > self.max_line_bytes:
            return Line(self.lines, b"", too_long=True)
        return Line(self.lines, raw)

    def cut(self) -> int | None:
        """Drop the held-back last line as cut off (its newline will never come): its number,
        or None when nothing is held back."""
        if not self.held or self.discarding:
            return None
        self.held.clear()
        self.lines += 1
        return self.lines

    def _resume(self, data: bytes) -> int:
        """Where *data*'s lines start: past the end of a line being dropped (-1: all of it is)."""
        if not self.discarding:
            return 0
        end = data.find(b"\n")
        if end < 0:
            return -1
        self.discarding = False
        self.lines += 1
        return end + 1

    def _hold(self, data: bytes, start: int) -> bool:
        """Hold back *data* from *start*, a line without its newline yet; True when that makes
        it too long (it is dropped from here to its newline)."""
        rest = len(data) - start
        if len(self.held) + rest > self.max_line_bytes + 1:  # + 1: a CR before the newline to come
            self.held.clear()
            self.discarding = True
            return True
        if rest:
            self.held += data[start:]
        return False


def open_nonblocking(path: str | os.PathLike[str]) -> int:
    """A read-only descriptor of *path*, opened without blocking (a named pipe would block a plain open)."""
    return os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))


def read_at(fd: int, offset: int, size: int) -> bytes:
    """Up to *size* bytes of *fd* from *offset* (``os.pread`` is not everywhere)."""
    os.lseek(fd, offset, os.SEEK_SET)
    return os.read(fd, size)


@dataclass(frozen=True, slots=True)
class Opened:
    """A regular file opened for reading, and its identity (device, inode)."""

    fd: int
    identity: tuple[int, int]


@dataclass(frozen=True, slots=True)
class Refused:
    """Something at the path that is not read, and why (each reader words it its own way)."""

    error: Exception | None = None
    """The error opening it (:class:`OutsideRootError`, an ``OSError``, a ``ValueError`` for a
    path the system cannot take), or reading its status (:attr:`opened`)."""
    mode: int = 0
    """The mode of what is there when it is not a regular file (a folder, a pipe, a device)."""
    opened: bool = False
    """The error came after the file was opened, from reading its status."""


@dataclass(slots=True)
class TailedFile:
    """One file, known by its identity, and how far it was read."""

    identity: tuple[int, int]
    """(device, inode): the same file under another name (a rotation) is still this file."""
    shown: str
    """How its lines name it."""
    splitter: LineSplitter
    offset: int = 0
    """Bytes read, a held-back part line included."""
    head: bytes = field(default=b"", repr=False)
    """Its first :data:`HEAD_BYTES` bytes, to notice a rewrite that keeps or grows its size."""

    def rewritten(self, fd: int) -> str | None:
        """Why this file, open as *fd*, must be read again from its start (``was truncated``,
        ``was truncated and rewritten``), or None."""
        try:
            if os.fstat(fd).st_size < self.offset:
                return "was truncated"
            if self.head and read_at(fd, 0, len(self.head)) != self.head:
                return "was truncated and rewritten"
        except OSError:
            return None
        return None


class Change(enum.Enum):
    """What became of the file being read since the last poll, other than growing."""

    ROTATED = "rotated"
    """Renamed to the rotation's name (its rest is read there), a new file in its place."""
    ROTATED_TWICE = "rotated twice"
    """Rotated, and the rotation is not it: it was rotated again, and overwritten; lines are lost."""
    TRUNCATED = "was truncated"
    """Shorter than what was read of it: read again from its start."""
    REWRITTEN = "was truncated and rewritten"
    """Its first bytes are other bytes now: read again from its start."""
    REPLACED = "replaced"
    """Another file at its path, not by rotation: read from its start."""
    DELETED = "deleted"
    """Gone, and not rotated: waited for."""
    RECREATED = "recreated"
    """A file at the path again after a deletion (:attr:`FileTail.gone`): read from its start."""


F = TypeVar("F", bound=TailedFile)


class FileTail(Generic[F]):
    """A file at *name* and, with *rotation* (``".1"``), the file it is renamed to when it rotates.

    *name* is resolved inside *fs*'s root (contained, links out of it refused) or, without
    *fs*, opened as it is.  :meth:`poll` opens both files without blocking; :class:`TailPoll`
    says what changed and reads on, at most a poll's limit of bytes in blocks of *block*.
    Each file of the tail is made by *new_file* (a :class:`TailedFile` or a subclass that
    carries a reader's own counts); its lines are cut by a :class:`LineSplitter` of
    *max_line_bytes*.  Opening never raises for trouble with the files; a read error is raised
    by :meth:`TailPoll.blocks`, for the reader to word.
    """

    def __init__(
        self,
        fs: ProjectFS | None,
        name: str,
        shown: str,
        new_file: Callable[[tuple[int, int], str, LineSplitter], F],
        *,
        rotation: str | None = None,
        max_line_bytes: int,
        block: int = BLOCK_BYTES,
    ) -> None:
        self.fs = fs
        self.name = name
        self.shown = shown
        self.rotation = rotation
        self.max_line_bytes = max_line_bytes
        self.block = block
        self._new_file = new_file
        self.current: F | None = None
        """The file at *name*, as far as it was read."""
        self.rotated: F | None = None
        """The file at the rotation's name, as far as it was read."""
        self.gone: F | None = None
        """The file read last at *name*, deleted (not rotated), until a file is there again."""

    def reset(self) -> None:
        """Forget the files: the next poll reads from their start."""
        self.current = self.rotated = self.gone = None

    def new_file(self, identity: tuple[int, int], shown: str) -> F:
        """A file of the tail, not read yet."""
        return self._new_file(identity, shown, LineSplitter(self.max_line_bytes))

    def open(self, name: str) -> Opened | Refused | None:
        """The regular file at *name*, opened; what is there instead; or None for nothing."""
        try:
            fd = open_nonblocking(name if self.fs is None else self.fs.resolve(name))
        except (FileNotFoundError, NotADirectoryError):
            return None
        except (OutsideRootError, OSError, ValueError) as exc:
            return Refused(exc)
        try:
            info = os.fstat(fd)
        except OSError as exc:
            os.close(fd)
            return Refused(exc, opened=True)
        if not stat.S_ISREG(info.st_mode):
            os.close(fd)
            return Refused(mode=info.st_mode)
        return Opened(fd, (info.st_dev, info.st_ino))

    def poll(self, limit: int) -> TailPoll[F]:
        """Both files opened (the rotation first) for one poll that reads at most *limit*
        bytes; use it in a ``with`` block."""
        rotated = None if self.rotation is None else self.open(self.name + self.rotation)
        return TailPoll(self, self.open(self.name), rotated, limit)

    def _opened(self, identity: tuple[int, int]) -> int | None:
        """A descriptor of the file whose identity is *identity*, under either name; None when
        it is at neither."""
        names = [self.name] if self.rotation is None else [self.name, self.name + self.rotation]
        for name in names:
            opened = self.open(name)
            if isinstance(opened, Opened):
                if opened.identity == identity:
                    return opened.fd
                os.close(opened.fd)
        return None

    def read_back(self, identity: tuple[int, int], offset: int, size: int) -> bytes | None:
        """*size* bytes at *offset* of the file whose identity is *identity*, wherever it is now
        (at the name or the rotation's); None when it is at neither."""
        fd = self._opened(identity)
        if fd is None:
            return None
        try:
            return read_at(fd, offset, size)
        except OSError:
            return None
        finally:
            os.close(fd)

    def reread(self, file: F) -> Iterator[bytes]:
        """What was read of *file* up to its held-back part line, read again from its start in
        blocks (nothing when it is no longer at either name, or cannot be read)."""
        fd = self._opened(file.identity)
        if fd is None:
            return
        try:
            offset, end = 0, file.offset - len(file.splitter.held)
            while offset < end:
                data = read_at(fd, offset, min(end - offset, self.block))
                if not data:
                    return
                offset += len(data)
                yield data
        except OSError:
            return
        finally:
            os.close(fd)


class TailPoll(Generic[F]):
    """One poll of a :class:`FileTail`: the files as opened, what changed, and reading on.

    :attr:`current` and :attr:`rotated` are what was found at the two names.  :meth:`follow`
    compares them with what was read before and moves the tail on; :meth:`files` and
    :meth:`blocks` then read what was appended, within the poll's limit.  Leaving the ``with``
    block closes the files.
    """

    def __init__(
        self, tail: FileTail[F], current: Opened | Refused | None, rotated: Opened | Refused | None, limit: int
    ) -> None:
        self.tail = tail
        self.current = current
        self.rotated = rotated
        self.budget = limit
        """Bytes this poll may still read."""
        self.old: F | None = None
        """The file a change concerns: the one read before (for a recreation, the one deleted)."""

    def __enter__(self) -> TailPoll[F]:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, trace: TracebackType | None
    ) -> None:
        for opened in (self.rotated, self.current):
            if isinstance(opened, Opened):
                os.close(opened.fd)

    def follow(self) -> Change | None:
        """What became of the file being read, the tail moved on to the files there now (a
        file read again from its start is a new :class:`TailedFile`).  What cannot be read is
        taken as absent."""
        tail = self.tail
        cur_id = self.current.identity if isinstance(self.current, Opened) else None
        rot_id = self.rotated.identity if isinstance(self.rotated, Opened) else None
        old_cur, old_rot = tail.current, tail.rotated
        self.old = old_cur
        change: Change | None = None
        # The rotation: our current file renamed, the one we had, or one we never saw.
        was_rotated = old_cur is not None and rot_id == old_cur.identity
        if rot_id is None:
            tail.rotated = None
        elif was_rotated:
            tail.rotated = old_cur
            change = Change.ROTATED
        elif old_rot is None or rot_id != old_rot.identity:
            tail.rotated = tail.new_file(rot_id, tail.shown + (tail.rotation or ""))
            if old_cur is not None and old_cur.identity != cur_id:
                change = Change.ROTATED_TWICE
                was_rotated = True  # the new current file is expected, not a replacement
        # The file at the name: the one we had (grown, or not), a new one, or none.
        if cur_id is None:
            if old_cur is not None and not was_rotated:
                change = Change.DELETED
                tail.gone = old_cur
            tail.current = None
            return change
        if old_cur is not None and not was_rotated and (cur_id == old_cur.identity or cur_id[1] == 0):
            assert isinstance(self.current, Opened)
            why = old_cur.rewritten(self.current.fd)
            if why is None:
                return change
            change = Change(why)
        elif old_cur is not None and not was_rotated:
            change = Change.REPLACED
        elif old_cur is None and tail.gone is not None:
            change = Change.RECREATED
            self.old = tail.gone
        tail.gone = None
        tail.current = tail.new_file(cur_id, tail.shown)
        return change

    @property
    def more(self) -> bool:
        """The poll's limit was reached: there may be more to read now."""
        return self.budget <= 0

    def files(self) -> Iterator[F]:
        """The files to read on, in order: the rotation's rest first, then the current file."""
        tail = self.tail
        if isinstance(self.rotated, Opened) and tail.rotated is not None:
            yield tail.rotated
        if isinstance(self.current, Opened) and tail.current is not None:
            yield tail.current

    def blocks(self, file: F) -> Iterator[bytes]:
        """What was appended to *file* (one of :meth:`files`) since it was read last, in blocks,
        within the poll's limit; each block is counted read (its :attr:`~TailedFile.offset`,
        :attr:`~TailedFile.head`) before it is handed out.  A read error raises ``OSError``."""
        opened = self.rotated if file is self.tail.rotated else self.current
        assert isinstance(opened, Opened)
        block = self.tail.block
        while self.budget > 0:
            data = read_at(opened.fd, file.offset, min(self.budget, block))
            if not data:
                return
            self.budget -= len(data)
            if file.offset < HEAD_BYTES:
                file.head += data[: HEAD_BYTES - file.offset]
            file.offset += len(data)
            yield data

    def unread(self, file: F) -> bool:
        """Whether *file* holds more bytes now than were read of it."""
        opened = self.rotated if file is self.tail.rotated else self.current
        try:
            return isinstance(opened, Opened) and os.fstat(opened.fd).st_size > file.offset
        except OSError:
            return False
