"""Stage 1, tailing: what was appended to the log since the last read, and whether to start over.

The engine's tail (:class:`~ctxviewer.engine.files.tail.FileTail`) opens, reads and closes the
file on every :meth:`LogTail.read`, never blocking, so a writer that rotates or replaces it (or
a platform that locks open files) is not disturbed.  Here is what the event log makes of it: a
truncated, replaced or deleted-and-recreated file is read again from the start, and the read
says why (``docs/event-log.md``).
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from ctxviewer.engine.files.tail import Change, FileTail, LineSplitter, Opened, TailedFile, open_nonblocking, read_at
from ctxviewer.engine.runtime.eventlog.lines import SNIFF_BYTES, is_event_log_head

#: A line longer than this is skipped, unless the tail is given another limit.
MAX_LINE_BYTES = 1_000_000


def is_event_log(path: Path) -> bool:
    """Whether *path* is a file holding ctxviewer's own event log (see
    :func:`~.lines.is_event_log_head`); False for anything unreadable or not a file."""
    try:
        if not path.is_file():
            return False
        fd = open_nonblocking(path)
        try:
            head = read_at(fd, 0, SNIFF_BYTES)
        finally:
            os.close(fd)
    except OSError:
        return False
    return is_event_log_head(head)


@dataclass(frozen=True, slots=True)
class Missing:
    """The file is not there."""

    vanished: bool
    """It was there and read before (deleted, or moved away and not yet re-created)."""


@dataclass(frozen=True, slots=True)
class Unreadable:
    """The file (or what is at its path) cannot be read now."""

    message: str
    """One line for the user, e.g. ``cannot open <path>: Permission denied``."""
    restart: str | None = None
    """Why the state was reset before the read failed (see :attr:`Appended.restart`)."""


@dataclass(frozen=True, slots=True)
class Appended:
    """The bytes read this time (possibly none)."""

    data: bytes
    restart: str | None
    """Why the file is read from the start again (``file was truncated``), or None to carry on.
    When set, :attr:`data` is from the start of the file and everything read before is void."""
    more: bool
    """The read stopped at the read limit and the file holds more now."""


Read = Missing | Unreadable | Appended

#: Why a change of the file starts the reading over, in the event log's words.
_RESTARTS = {
    Change.RECREATED: "file was deleted and re-created",
    Change.REPLACED: "file was replaced (rotated)",
    Change.TRUNCATED: "file was truncated",
    Change.REWRITTEN: "file was truncated and rewritten",
}


class LogTail:
    """Where a follower is in one log file, and reading on from there, *read_limit* bytes at most
    (in one read); its lines are cut by :attr:`lines`, *max_line_bytes* at most."""

    def __init__(self, path: Path, read_limit: int, max_line_bytes: int = MAX_LINE_BYTES) -> None:
        self.path = path
        self.read_limit = read_limit
        self._tail = FileTail(None, str(path), str(path), TailedFile, max_line_bytes=max_line_bytes, block=read_limit)

    def reset(self) -> None:
        """Forget the file: the next read starts at its beginning."""
        self._tail.reset()

    @property
    def _file(self) -> TailedFile | None:
        """The file read last: the one at the path, or the one deleted from it."""
        return self._tail.current or self._tail.gone

    @property
    def offset(self) -> int:
        """Bytes read of the file, a held-back part line included."""
        return 0 if self._file is None else self._file.offset

    @property
    def head(self) -> bytes:
        """The file's first bytes, to notice a rewrite that keeps the size."""
        return b"" if self._file is None else self._file.head

    @property
    def lines(self) -> LineSplitter | None:
        """The lines of the file read last (a new one after a restart), or None before a read."""
        return None if self._file is None else self._file.splitter

    def read(self) -> Read:
        """What was appended since the last read (never raises for trouble with the file)."""
        with self._tail.poll(self.read_limit) as poll:
            found = poll.current
            if found is None:
                poll.follow()
                gone = self._tail.gone
                return Missing(vanished=gone is not None and gone.offset > 0)
            if not isinstance(found, Opened):
                exc = found.error
                if exc is None:
                    if stat.S_ISDIR(found.mode):
                        return Unreadable(f"{self.path} is a folder, not a log file")
                    return Unreadable(f"{self.path} is not a regular file")
                if found.opened:
                    return Unreadable(f"cannot read {self.path}: {getattr(exc, 'strerror', None) or exc}")
                if isinstance(exc, ValueError):  # a path the system cannot take (a NUL character, say)
                    return Unreadable(f"cannot open {self.path}: {exc}")
                if os.path.isdir(self.path):
                    return Unreadable(f"{self.path} is a folder, not a log file")
                return Unreadable(f"cannot open {self.path}: {getattr(exc, 'strerror', None) or exc}")
            change = poll.follow()
            old = poll.old
            restart = None
            if change in _RESTARTS and old is not None and old.offset > 0:
                restart = _RESTARTS[change]
            file = self._tail.current
            assert file is not None
            try:
                data = b"".join(poll.blocks(file))
            except OSError as exc:
                return Unreadable(f"cannot read {self.path}: {exc.strerror or exc}", restart)
            return Appended(data, restart, poll.more and poll.unread(file))
