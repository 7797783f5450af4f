"""Stage 1, tailing: what was appended to the log since the last read, and whether to start over.

The file is opened, read and closed on every :meth:`LogTail.read`, so a writer that
rotates or replaces it (or a platform that locks open files) is not disturbed; it is
opened without blocking (a named pipe would block a plain open).  A truncated, replaced
or deleted-and-recreated file is read again from the start, and the read says why.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from ctxviewer.engine.runtime.eventlog.lines import SNIFF_BYTES, is_event_log_head

#: The file's first bytes are kept, to notice a rewrite that keeps (or grows) its size.
HEAD_BYTES = 64


def open_log(path: Path) -> IO[bytes]:
    """Open *path* for reading without ever blocking (a FIFO would block a plain open)."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    fd = os.open(path, flags)
    try:
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def is_event_log(path: Path) -> bool:
    """Whether *path* is a file holding ctxviewer's own event log (see
    :func:`~.lines.is_event_log_head`); False for anything unreadable or not a file."""
    try:
        if not path.is_file():
            return False
        with open_log(path) as handle:
            head = handle.read(SNIFF_BYTES)
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


class LogTail:
    """Where a follower is in one log file, and reading on from there, *read_limit* bytes at most."""

    def __init__(self, path: Path, read_limit: int) -> None:
        self.path = path
        self.read_limit = read_limit
        self.reset()

    def reset(self) -> None:
        """Forget the file: the next read starts at its beginning."""
        self.offset = 0  # bytes read, including a held-back partial line
        self.identity: tuple[int, int] | None = None  # (st_dev, st_ino) of the file read
        self.head = b""  # its first bytes, to notice a rewrite that keeps the size
        self.vanished = False  # the file disappeared after it had been read

    def read(self) -> Read:
        """What was appended since the last read (never raises for trouble with the file)."""
        try:
            handle = open_log(self.path)
        except (FileNotFoundError, NotADirectoryError):
            if self.identity is not None and self.offset > 0:
                self.vanished = True
                return Missing(vanished=True)
            self.identity = None
            return Missing(vanished=False)
        except OSError as exc:
            if os.path.isdir(self.path):
                return Unreadable(f"{self.path} is a folder, not a log file")
            return Unreadable(f"cannot open {self.path}: {exc.strerror or exc}")
        except ValueError as exc:  # a path the system cannot take (a NUL character, say)
            return Unreadable(f"cannot open {self.path}: {exc}")
        restart: str | None = None
        try:
            with handle:
                info = os.fstat(handle.fileno())
                if stat.S_ISDIR(info.st_mode):
                    return Unreadable(f"{self.path} is a folder, not a log file")
                if not stat.S_ISREG(info.st_mode):
                    return Unreadable(f"{self.path} is not a regular file")
                identity = (info.st_dev, info.st_ino)
                restart = self.restart_reason(handle, identity, info.st_size)
                if restart is not None:
                    self.reset()
                self.identity = identity
                handle.seek(self.offset)
                data = handle.read(self.read_limit)
                more = len(data) >= self.read_limit and os.fstat(handle.fileno()).st_size > self.offset + len(data)
        except OSError as exc:
            return Unreadable(f"cannot read {self.path}: {exc.strerror or exc}", restart)
        if self.offset < HEAD_BYTES:
            self.head += data[: HEAD_BYTES - self.offset]
        self.offset += len(data)
        return Appended(data, restart, more)

    def restart_reason(self, handle: IO[bytes], identity: tuple[int, int], size: int) -> str | None:
        """Why the open file (*identity*, *size* bytes) must be read again from the start, or None."""
        if self.identity is None or self.offset == 0:
            return None
        if self.vanished:
            return "file was deleted and re-created"
        if identity != self.identity and identity[1] != 0:
            return "file was replaced (rotated)"
        if size < self.offset:
            return "file was truncated"
        handle.seek(0)
        if handle.read(len(self.head)) != self.head:
            return "file was truncated and rewritten"
        return None
