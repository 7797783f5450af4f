"""A worker log's new complete lines as pieces of bytes, for the log viewer's store.

:class:`LogTail` follows a worker log and its rotation ``.1`` through the engine's tail
(:class:`~ctxviewer.engine.files.tail.FileTail`, in the run's folder) and hands out what was
appended as pieces of whole lines, unparsed: :class:`~.logstore.LogStore` parses them in the
viewer's own time and reads a line back by its file and offset (:meth:`LogTail.read_back`).
A rotation is followed, the old file finished under the name its lines were read as; anything
else upstream never does (truncated, rewritten, replaced, recreated) asks for the whole log to
be read again.  ``docs/run-files.md`` (The log viewer) says what the viewer shows.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ctxviewer.engine.files.reading import OutsideRootError, ProjectFS
from ctxviewer.engine.files.tail import Change, FileTail, Opened, Refused, TailedFile
from ctxviewer.engine.runfiles.problems import file_kind

#: A line longer than this is skipped (its bytes dropped as they come), as the engine's reader does.
MAX_LINE_BYTES = 4_000_000
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


class LogTail:
    """One worker log (``rel``, relative to *fs*'s root) and its ``.1``, read as they grow."""

    def __init__(self, fs: ProjectFS, rel: str, shown: str | None = None) -> None:
        self.fs = fs
        self.rel = rel
        self.shown = shown or rel.rsplit("/", 1)[-1]
        self._tail = FileTail(
            fs, rel, self.shown, TailedFile, rotation=".1", max_line_bytes=MAX_LINE_BYTES, block=_BLOCK
        )
        self._said: str | None = None

    @property
    def waiting_line(self) -> bool:
        """A last line is held back until its newline arrives."""
        current = self._tail.current
        return current is not None and bool(current.splitter.held) and not current.splitter.discarding

    def _say(self, message: str, out: TailRead) -> None:
        if message != self._said:
            self._said = message
            out.problem = message

    def _refused(self, found: Opened | Refused | None, rel: str, out: TailRead) -> None:
        if not isinstance(found, Refused):
            return
        exc = found.error
        if isinstance(exc, OutsideRootError):
            self._say(f"{self.shown}: not read: {exc.why}", out)
        elif exc is not None:
            self._say(f"{self.shown}: cannot be read ({getattr(exc, 'strerror', None) or exc})", out)
        else:
            self._say(f"{rel.rsplit('/', 1)[-1]}: is {file_kind(found.mode)}, not a log file; not read", out)

    def poll(self, limit: int) -> TailRead:
        """Up to *limit* bytes of what was appended since the last poll, as pieces of whole lines."""
        out = TailRead()
        with self._tail.poll(limit) as poll:
            self._refused(poll.rotated, self.rel + ".1", out)
            self._refused(poll.current, self.rel, out)
            change = poll.follow()
            if change is Change.DELETED and not isinstance(poll.rotated, Opened):
                self._say(f"{self.shown}: was deleted; waiting for it to reappear", out)
                return out
            if change not in (None, Change.ROTATED):
                out.restart = True
                return out
            for file in poll.files():
                try:
                    for data in poll.blocks(file):
                        runs, skipped = file.splitter.runs(data, file.offset - len(data))
                        out.pieces += (Piece(file.shown, first, run, file.identity, at) for first, at, run in runs)
                        out.skipped += ((file.shown, line) for line in skipped)
                except OSError:
                    pass
            out.more = poll.more
            if isinstance(poll.current, Opened):
                self._said = None
        return out

    def read_back(self, identity: tuple[int, int], offset: int, size: int) -> bytes | None:
        """*size* bytes at *offset* of the log file whose identity is *identity*, wherever it is now
        (the log or its ``.1``); None when it is no longer there."""
        return self._tail.read_back(identity, offset, size)
