"""Stage 2, lines: the bytes read cut into complete lines, and each line parsed into an event.

:class:`LineSplitter` holds back a last line without its newline until the newline
arrives, and drops a line longer than the limit without holding it in memory.
:func:`parse_line` turns one complete line into an :class:`Event` (None for a blank line),
or raises :class:`BadLine` saying what is wrong with it.  The format is in
``docs/event-log.md``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, NoReturn

from ctxviewer.engine.errors import json_type, short

TASK_EXECUTED = "task_executed"
FILE_READ = "file_read"
TOOL_CALL = "tool_call"
EVENT_KINDS = (TASK_EXECUTED, FILE_READ, TOOL_CALL)

MAX_TS = 253_402_300_799.0
"""The latest accepted timestamp: 9999-12-31T23:59:59Z.  The earliest is 0 (1970-01-01)."""

MAX_INT_FIELD = 2**53
"""Largest accepted ``size`` and ``count`` (larger values are certainly corrupt)."""
_BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True, slots=True)
class Event:
    """One valid event of the log, as it was folded into the tracker."""

    line: int
    """1-based line number in the current file."""
    kind: str
    """``"task_executed"``, ``"file_read"`` or ``"tool_call"``."""
    ts: float
    """The event's own timestamp, in Unix epoch seconds."""
    path: str | None = None
    """``file_read``: the path read."""
    size: int | None = None
    """``file_read``: its size in bytes."""
    task_id: str | None = None
    """``task_executed``: the task id."""
    count: int = 1
    """``tool_call``: the number of calls (1 for the other kinds)."""


def _reject_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not allowed")


_DECODER = json.JSONDecoder(parse_constant=_reject_constant)


class BadLine(Exception):
    """A complete line that cannot be used; the message is the part after ``line N:``."""


def _parse_ts(value: Any) -> float:
    """Epoch seconds of a ``ts`` value (a number, or an ISO-8601 string; naive is UTC).

    Raises ``ValueError`` with a message for the user when *value* is not a usable time.
    """
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise ValueError(f'"ts" must be a number or an ISO-8601 string, not {json_type(value)}')
    if isinstance(value, str):
        try:
            moment = datetime.fromisoformat(value.strip())
            if moment.tzinfo is None:
                moment = moment.replace(tzinfo=UTC)
            seconds = moment.timestamp()
        except (ValueError, OverflowError, OSError):
            raise ValueError(f'"ts" is not an ISO-8601 time: {short(value)}') from None
    else:
        try:
            seconds = float(value)
        except OverflowError:
            seconds = math.inf
    if not math.isfinite(seconds) or not 0 <= seconds <= MAX_TS:
        raise ValueError(f'"ts" is out of range (1970-01-01 to 9999-12-31): {short(str(value))}')
    return seconds


def _whole_number(obj: dict[str, Any], key: str, minimum: int) -> int:
    value = obj[key]
    if isinstance(value, bool) or not isinstance(value, int):
        raise BadLine(f'"{key}" must be a whole number, not {json_type(value)}')
    if value < minimum:
        raise BadLine(f'"{key}" must be {minimum} or more, not {value}')
    if value > MAX_INT_FIELD:
        raise BadLine(f'"{key}" is too large ({value})')
    return value


def _nonempty_string(obj: dict[str, Any], key: str) -> str:
    value = obj[key]
    if not isinstance(value, str):
        raise BadLine(f'"{key}" must be a string, not {json_type(value)}')
    if not value.strip():
        raise BadLine(f'"{key}" is empty')
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise BadLine(f'"{key}" contains a lone surrogate escape: {short(value)}') from None
    return value


def parse_line(raw: bytes, line: int) -> Event | None:
    """The event on one complete line (without its ``\\n``), or None for a blank line.

    Raises :class:`BadLine` saying what is wrong with the line.
    """
    if raw.endswith(b"\r"):
        raw = raw[:-1]
    if line == 1 and raw.startswith(_BOM):
        raw = raw[len(_BOM) :]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BadLine(f"not valid UTF-8 (byte 0x{raw[exc.start]:02x} at byte {exc.start + 1})") from None
    if not text.strip():
        return None
    try:
        obj = _DECODER.decode(text)
    except json.JSONDecodeError as exc:
        raise BadLine(f"not JSON ({exc.msg} at column {exc.colno})") from None
    except ValueError as exc:
        raise BadLine(f"not JSON ({exc})") from None
    except RecursionError:
        raise BadLine("not JSON (nested too deeply)") from None
    if not isinstance(obj, dict):
        raise BadLine(f"not a JSON object (got {json_type(obj)})")
    for key in ("ts", "event"):
        if key not in obj:
            raise BadLine(f'missing "{key}"')
    kind = obj["event"]
    if not isinstance(kind, str):
        raise BadLine(f'"event" must be a string, not {json_type(kind)}')
    if kind not in EVENT_KINDS:
        raise BadLine(f"unknown event {short(kind)} (expected task_executed, file_read or tool_call)")
    try:
        ts = _parse_ts(obj["ts"])
    except ValueError as exc:
        raise BadLine(str(exc)) from None
    if kind == TASK_EXECUTED:
        if "id" not in obj:
            raise BadLine('task_executed without "id"')
        return Event(line=line, kind=kind, ts=ts, task_id=_nonempty_string(obj, "id"))
    if kind == FILE_READ:
        for key in ("path", "size"):
            if key not in obj:
                raise BadLine(f'file_read without "{key}"')
        path = _nonempty_string(obj, "path")
        return Event(line=line, kind=kind, ts=ts, path=path, size=_whole_number(obj, "size", 0))
    count = _whole_number(obj, "count", 1) if "count" in obj else 1
    return Event(line=line, kind=kind, ts=ts, count=count)


@dataclass(frozen=True, slots=True)
class Line:
    """One complete line of the log (without its line ending), or a note that it was too long."""

    number: int
    """1-based line number in the current file."""
    raw: bytes
    """The line's bytes (empty when :attr:`too_long`)."""
    too_long: bool = False
    """Longer than the limit: skipped (and, while it grew, not held in memory)."""


class LineSplitter:
    """Cuts the bytes after each read into complete lines, numbering them from 1.

    A last line without its newline is held back until the newline arrives; one that
    grows past *max_line_bytes* (not counting its line ending) is reported once as too
    long and its bytes dropped up to its newline.
    """

    def __init__(self, max_line_bytes: int) -> None:
        self.max_line_bytes = max_line_bytes
        self.lines = 0  # complete lines seen
        self.held = bytearray()  # the last line, until its newline arrives
        self.discarding = False  # inside an overlong line: drop bytes up to its newline

    def feed(self, data: bytes) -> Iterator[Line]:
        """The lines *data* completes, in order (read them all before the next feed)."""
        start = 0
        if self.discarding:
            end = data.find(b"\n")
            if end < 0:
                return
            self.discarding = False
            self.lines += 1
            start = end + 1
        while True:
            end = data.find(b"\n", start)
            if end < 0:
                break
            if self.held:
                self.held += data[start:end]
                raw = bytes(self.held)
                self.held.clear()
            else:
                raw = data[start:end]
            start = end + 1
            self.lines += 1
            yield self._complete(raw)
        rest = len(data) - start
        if len(self.held) + rest > self.max_line_bytes + 1:  # + 1: a CR before the newline to come
            self.held.clear()
            self.discarding = True
            yield Line(self.lines + 1, b"", too_long=True)
        elif rest:
            self.held += data[start:]

    def split(self, data: bytes) -> tuple[int, list[bytes | None]]:
        """What :meth:`feed` gives for *data*, as a list: the first line's number and each
        line's bytes in order (None for a line too long), the lines numbered one after another."""
        first = self.lines + 1
        out: list[bytes | None] = []
        start = 0
        if self.discarding:
            end = data.find(b"\n")
            if end < 0:
                return first, out
            self.discarding = False
            self.lines += 1
            first += 1
            start = end + 1
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
        rest = len(data) - start
        if len(self.held) + rest > self.max_line_bytes + 1:  # + 1: a CR before the newline to come
            self.held.clear()
            self.discarding = True
            out.append(None)
        elif rest:
            self.held += data[start:]
        return first, out

    def finish(self) -> Line | None:
        """The held-back last line taken as complete (None: nothing held back)."""
        if not self.held or self.discarding:
            return None
        raw = bytes(self.held)
        self.held.clear()
        self.lines += 1
        return self._complete(raw)

    def _complete(self, raw: bytes) -> Line:
        if len(raw) - raw.endswith(b"\r") > self.max_line_bytes:
            return Line(self.lines, b"", too_long=True)
        return Line(self.lines, raw)


#: How much of a file :func:`is_event_log_head` looks at.
SNIFF_BYTES = 65_536


def is_event_log_head(head: bytes) -> bool:
    """Whether a file starting with *head* is ctxviewer's own event log, not an upstream worker log.

    The first non-blank line decides: a JSON object whose ``event`` is one of ours
    (:data:`EVENT_KINDS`) and that has neither ``level`` nor ``message`` (every line
    upstream's log writer writes has both).  An empty file is not one.
    """
    for raw in head.removeprefix(_BOM).split(b"\n"):
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw)
        except (ValueError, UnicodeDecodeError):
            return False
        return isinstance(obj, dict) and obj.get("event") in EVENT_KINDS and "level" not in obj and "message" not in obj
    return False
