"""Stage 2, lines: each complete line parsed into an event.

The bytes read are cut into lines by the tail's
:class:`~ctxviewer.engine.files.tail.LineSplitter` (a torn last line held back, one too long
dropped as it comes); :func:`parse_line` turns one complete line into an :class:`Event` (None
for a blank line), or raises :class:`BadLine` saying what is wrong with it.  The format is in
``docs/event-log.md``.
"""

from __future__ import annotations

import json
import math
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
