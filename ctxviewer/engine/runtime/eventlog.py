"""Follow a running worker's JSON-lines event log and fold it into a ContextTracker.

A worker appends one JSON object per line to a log file (the format is described in
``docs/event-log.md``).  :class:`EventLogFollower` reads what was appended since its
last :meth:`~EventLogFollower.poll` and feeds each event to a
:class:`~ctxviewer.engine.runtime.tracker.ContextTracker` whose clock is the log's latest
timestamp, so the live estimate is exactly what the tracker reports for the same calls.

The follower is written for a GUI that polls it on a timer:

* it never raises on bad input and never blocks: a missing file means "waiting", a bad
  line is a :class:`LogProblem`, and each poll reads at most ``read_limit`` bytes;
* the file is opened, read and closed on every poll, so a writer that rotates or
  replaces it (or a platform that locks open files) is not disturbed;
* a last line without its newline is held back until the newline arrives;
* a truncated, replaced or deleted-and-recreated file resets the state and is read
  again from the start (``PollResult.restarted``).
"""

from __future__ import annotations

import json
import math
import os
import stat
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any, NoReturn

from ctxviewer.engine.runtime.tracker import (
    TOKENS_PER_MINUTE,
    TOKENS_PER_TASK,
    TOKENS_PER_TOOL_CALL,
    ContextTracker,
    ContextUsage,
    file_read_tokens,
)

TASK_EXECUTED = "task_executed"
FILE_READ = "file_read"
TOOL_CALL = "tool_call"
EVENT_KINDS = (TASK_EXECUTED, FILE_READ, TOOL_CALL)

MAX_STORED_PROBLEMS = 1000
"""At most this many problems are kept (and reported) per run; the rest are only counted."""

MAX_TS = 253_402_300_799.0
"""The latest accepted timestamp: 9999-12-31T23:59:59Z.  The earliest is 0 (1970-01-01)."""

MAX_INT_FIELD = 2**53
"""Largest accepted ``size`` and ``count`` (larger values are certainly corrupt)."""

_HEAD_BYTES = 64
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


@dataclass(frozen=True, slots=True)
class LogProblem:
    """Something in the log (or about the file) that could not be used."""

    line: int
    """The 1-based line it concerns, or 0 when it is about the file as a whole."""
    message: str
    """One line for the user, e.g. ``line 7: not JSON (Expecting ',' delimiter at column 31)``."""


@dataclass(frozen=True, slots=True)
class LiveUsage:
    """The tracker's estimate after every event folded in so far."""

    estimated_tokens: int
    max_tokens: int
    threshold_percent: float
    usage_percent: float
    is_over_threshold: bool
    files_read: int
    tasks_executed: int
    tool_calls: int
    elapsed_minutes: float
    events: int
    """Events folded in so far."""
    last_task: str | None
    """The id of the latest ``task_executed`` event."""
    first_checkpoint: int | None
    """Index into ``history`` of the first event after which ``should_checkpoint`` held."""
    history: tuple[tuple[float, int], ...]
    """``(elapsed_minutes, estimated_tokens)`` after each event, for plotting."""


@dataclass(frozen=True, slots=True)
class PollResult:
    """What one :meth:`EventLogFollower.poll` found."""

    events: tuple[Event, ...]
    """New events folded in by this poll (after a restart: the events of the fresh read)."""
    problems: tuple[LogProblem, ...]
    """New problems found by this poll (only those kept; see ``MAX_STORED_PROBLEMS``)."""
    restarted: bool
    """The file was truncated, replaced or deleted and re-created: the state was reset and
    the file is being read again from the start.  Discard everything shown so far."""
    status: str
    """One line for a status bar, e.g. ``following <path>: 42 events``."""
    more: bool
    """This poll stopped at ``read_limit`` and there is more to read now: poll again soon."""


def _open_log(path: Path) -> IO[bytes]:
    """Open *path* for reading without ever blocking (a FIFO would block a plain open)."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    fd = os.open(path, flags)
    try:
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _describe(value: Any) -> str:
    """A short name for the JSON type of *value*, for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__  # pragma: no cover - json.loads makes nothing else


def _short(text: str, limit: int = 40) -> str:
    """``repr`` of *text*, cut to about *limit* characters."""
    return repr(text if len(text) <= limit else text[:limit] + "…")


def _reject_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not allowed")


_DECODER = json.JSONDecoder(parse_constant=_reject_constant)


class _BadLine(Exception):
    """A complete line that cannot be used; the message is the part after ``line N:``."""


def _parse_ts(value: Any) -> float:
    """Epoch seconds of a ``ts`` value (a number, or an ISO-8601 string; naive is UTC).

    Raises ``ValueError`` with a message for the user when *value* is not a usable time.
    """
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise ValueError(f'"ts" must be a number or an ISO-8601 string, not {_describe(value)}')
    if isinstance(value, str):
        try:
            moment = datetime.fromisoformat(value.strip())
            if moment.tzinfo is None:
                moment = moment.replace(tzinfo=UTC)
            seconds = moment.timestamp()
        except (ValueError, OverflowError, OSError):
            raise ValueError(f'"ts" is not an ISO-8601 time: {_short(value)}') from None
    else:
        try:
            seconds = float(value)
        except OverflowError:
            seconds = math.inf
    if not math.isfinite(seconds) or not 0 <= seconds <= MAX_TS:
        raise ValueError(f'"ts" is out of range (1970-01-01 to 9999-12-31): {_short(str(value))}')
    return seconds


def _whole_number(obj: dict[str, Any], key: str, minimum: int) -> int:
    value = obj[key]
    if isinstance(value, bool) or not isinstance(value, int):
        raise _BadLine(f'"{key}" must be a whole number, not {_describe(value)}')
    if value < minimum:
        raise _BadLine(f'"{key}" must be {minimum} or more, not {value}')
    if value > MAX_INT_FIELD:
        raise _BadLine(f'"{key}" is too large ({value})')
    return value


def _nonempty_string(obj: dict[str, Any], key: str) -> str:
    value = obj[key]
    if not isinstance(value, str):
        raise _BadLine(f'"{key}" must be a string, not {_describe(value)}')
    if not value.strip():
        raise _BadLine(f'"{key}" is empty')
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise _BadLine(f'"{key}" contains a lone surrogate escape: {_short(value)}') from None
    return value


def _parse_line(raw: bytes, line: int) -> Event | None:
    """The event on one complete line (without its ``\\n``), or None for a blank line.

    Raises :class:`_BadLine` saying what is wrong with the line.
    """
    if raw.endswith(b"\r"):
        raw = raw[:-1]
    if line == 1 and raw.startswith(_BOM):
        raw = raw[len(_BOM) :]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _BadLine(f"not valid UTF-8 (byte 0x{raw[exc.start]:02x} at byte {exc.start + 1})") from None
    if not text.strip():
        return None
    try:
        obj = _DECODER.decode(text)
    except json.JSONDecodeError as exc:
        raise _BadLine(f"not JSON ({exc.msg} at column {exc.colno})") from None
    except ValueError as exc:
        raise _BadLine(f"not JSON ({exc})") from None
    except RecursionError:
        raise _BadLine("not JSON (nested too deeply)") from None
    if not isinstance(obj, dict):
        raise _BadLine(f"not a JSON object (got {_describe(obj)})")
    for key in ("ts", "event"):
        if key not in obj:
            raise _BadLine(f'missing "{key}"')
    kind = obj["event"]
    if not isinstance(kind, str):
        raise _BadLine(f'"event" must be a string, not {_describe(kind)}')
    if kind not in EVENT_KINDS:
        raise _BadLine(f"unknown event {_short(kind)} (expected task_executed, file_read or tool_call)")
    try:
        ts = _parse_ts(obj["ts"])
    except ValueError as exc:
        raise _BadLine(str(exc)) from None
    if kind == TASK_EXECUTED:
        if "id" not in obj:
            raise _BadLine('task_executed without "id"')
        return Event(line=line, kind=kind, ts=ts, task_id=_nonempty_string(obj, "id"))
    if kind == FILE_READ:
        for key in ("path", "size"):
            if key not in obj:
                raise _BadLine(f'file_read without "{key}"')
        path = _nonempty_string(obj, "path")
        return Event(line=line, kind=kind, ts=ts, path=path, size=_whole_number(obj, "size", 0))
    count = _whole_number(obj, "count", 1) if "count" in obj else 1
    return Event(line=line, kind=kind, ts=ts, count=count)


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}" if n == 1 else f"{n:,} {word}s"


class EventLogFollower:
    """Follows one JSON-lines event log as it grows; call :meth:`poll` on a timer.

    *threshold_percent* and *max_tokens* are the tracker's.  A line longer than
    *max_line_bytes* (not counting its line ending) is reported and skipped without
    being held in memory; a poll reads at most *read_limit* bytes.  Invalid arguments
    raise ``ValueError``; nothing else does.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        threshold_percent: float = 70.0,
        max_tokens: int = 200_000,
        *,
        max_line_bytes: int = 1_000_000,
        read_limit: int = 8_000_000,
    ) -> None:
        if not math.isfinite(threshold_percent):
            raise ValueError(f"threshold_percent must be a finite number, not {threshold_percent!r}")
        for name, value in (("max_tokens", max_tokens), ("max_line_bytes", max_line_bytes), ("read_limit", read_limit)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive integer, not {value!r}")
        self.path = Path(path)
        self.threshold_percent = float(threshold_percent)
        self.max_tokens = max_tokens
        self.max_line_bytes = max_line_bytes
        self.read_limit = read_limit
        self._last_error: str | None = None
        self._clear()

    # -- state --------------------------------------------------------------------------

    def _clear(self) -> None:
        """Forget the file and everything folded in (not ``_last_error``)."""
        self._offset = 0  # bytes consumed, including the held-back partial line
        self._identity: tuple[int, int] | None = None  # (st_dev, st_ino) of the file read
        self._head = b""  # its first bytes, to notice a rewrite that keeps the size
        self._vanished = False  # the file disappeared after it had been read
        self._partial = bytearray()  # the last line, until its newline arrives
        self._discarding = False  # inside an overlong line: drop bytes up to its newline
        self._line = 0  # complete lines seen
        self._tracker: ContextTracker | None = None
        self._latest_ts = 0.0
        self._static_tokens = 0  # everything but conversation growth, added up per event
        self._events = 0
        self._last_task: str | None = None
        self._first_checkpoint: int | None = None
        self._history: list[tuple[float, int]] = []
        self._problems: list[LogProblem] = []
        self._problem_count = 0
        self._usage: LiveUsage | None = None

    def reset(self) -> None:
        """Forget everything; the next poll reads the file again from the start."""
        self._last_error = None
        self._clear()

    @property
    def problems(self) -> tuple[LogProblem, ...]:
        """Problems since the last restart (at most ``MAX_STORED_PROBLEMS``; see :attr:`problem_count`)."""
        return tuple(self._problems)

    @property
    def problem_count(self) -> int:
        """How many problems there were since the last restart, including those not kept."""
        return self._problem_count

    @property
    def usage(self) -> LiveUsage:
        """The live estimate after every event folded in so far."""
        if self._usage is None:
            if self._tracker is None:
                snapshot = ContextUsage(0, self.threshold_percent, 0, 0, 0, self.max_tokens, 0.0)
            else:
                # The estimate after the last event is already in the history (the tracker's
                # own estimate_tokens() would re-add every file read: O(reads) per call).
                tracker = self._tracker
                minutes, tokens = self._history[-1]
                snapshot = ContextUsage(
                    estimated_tokens=tokens,
                    threshold_percent=self.threshold_percent,
                    files_read=len(tracker.files),
                    tasks_executed=len(tracker.tasks),
                    tool_calls=tracker.tool_calls,
                    max_tokens=self.max_tokens,
                    elapsed_minutes=minutes,
                )
            self._usage = LiveUsage(
                estimated_tokens=snapshot.estimated_tokens,
                max_tokens=snapshot.max_tokens,
                threshold_percent=snapshot.threshold_percent,
                usage_percent=snapshot.usage_percent,
                is_over_threshold=snapshot.is_over_threshold,
                files_read=snapshot.files_read,
                tasks_executed=snapshot.tasks_executed,
                tool_calls=snapshot.tool_calls,
                elapsed_minutes=snapshot.elapsed_minutes,
                events=self._events,
                last_task=self._last_task,
                first_checkpoint=self._first_checkpoint,
                history=tuple(self._history),
            )
        return self._usage

    # -- polling ------------------------------------------------------------------------

    def poll(self) -> PollResult:
        """Read what was appended since the last poll and fold its events in."""
        events: list[Event] = []
        problems: list[LogProblem] = []
        try:
            handle = _open_log(self.path)
        except (FileNotFoundError, NotADirectoryError):
            self._last_error = None
            if self._identity is not None and self._offset > 0:
                self._vanished = True
                status = f"waiting for {self.path} to reappear (it was deleted after {_plural(self._events, 'event')})"
            else:
                self._identity = None
                status = f"waiting for {self.path} to appear"
            return PollResult((), (), False, status, False)
        except OSError as exc:
            if os.path.isdir(self.path):
                return self._failure(f"{self.path} is a folder, not a log file", problems)
            return self._failure(f"cannot open {self.path}: {exc.strerror or exc}", problems)
        except ValueError as exc:  # a path the system cannot take (a NUL character, say)
            return self._failure(f"cannot open {self.path}: {exc}", problems)
        restarted = False
        more = False
        try:
            with handle:
                info = os.fstat(handle.fileno())
                if stat.S_ISDIR(info.st_mode):
                    return self._failure(f"{self.path} is a folder, not a log file", problems)
                if not stat.S_ISREG(info.st_mode):
                    return self._failure(f"{self.path} is not a regular file", problems)
                identity = (info.st_dev, info.st_ino)
                why = self._restart_reason(handle, identity, info.st_size)
                if why is not None:
                    self._clear()
                    restarted = True
                    self._problem(LogProblem(0, f"{self.path}: {why}, re-reading from the start"), problems)
                self._identity = identity
                handle.seek(self._offset)
                data = handle.read(self.read_limit)
                more = len(data) >= self.read_limit and os.fstat(handle.fileno()).st_size > self._offset + len(data)
        except OSError as exc:
            return self._failure(f"cannot read {self.path}: {exc.strerror or exc}", problems, restarted)
        self._last_error = None
        if self._offset < _HEAD_BYTES:
            self._head += data[: _HEAD_BYTES - self._offset]
        self._offset += len(data)
        self._feed(data, events, problems)
        if events or restarted:
            self._usage = None
        return PollResult(tuple(events), tuple(problems), restarted, self._status(more), more)

    def _restart_reason(self, handle: IO[bytes], identity: tuple[int, int], size: int) -> str | None:
        """Why the file must be read again from the start, or None to carry on."""
        if self._identity is None or self._offset == 0:
            return None
        if self._vanished:
            return "file was deleted and re-created"
        if identity != self._identity and identity[1] != 0:
            return "file was replaced (rotated)"
        if size < self._offset:
            return "file was truncated"
        handle.seek(0)
        if handle.read(len(self._head)) != self._head:
            return "file was truncated and rewritten"
        return None

    def _failure(self, message: str, problems: list[LogProblem], restarted: bool = False) -> PollResult:
        """A poll that could not read the file: one problem (not repeated while it lasts)."""
        if message != self._last_error:
            self._last_error = message
            self._problem(LogProblem(0, message), problems)
        return PollResult((), tuple(problems), restarted, message, False)

    def _problem(self, problem: LogProblem, problems: list[LogProblem]) -> None:
        self._problem_count += 1
        if len(self._problems) < MAX_STORED_PROBLEMS:
            self._problems.append(problem)
            problems.append(problem)

    def summary(self) -> str:
        """The status of a followed log as of now (events and problems so far)."""
        return self._status(False)

    def _status(self, more: bool) -> str:
        text = f"following {self.path}: {_plural(self._events, 'event')}"
        if self._problem_count:
            text += f", {_plural(self._problem_count, 'problem')}"
            if self._problem_count > len(self._problems):
                text += f" (first {len(self._problems):,} kept)"
        if more:
            text += "; reading on"
        return text

    # -- lines and events ---------------------------------------------------------------

    def finish(self) -> PollResult:
        """Take a held-back last line (no newline yet) as complete and fold it in.

        For a log the writer is done with, e.g. ``ctxviewer follow --once``: nothing more
        will arrive to complete it.  A following :meth:`poll` continues after it.
        """
        events: list[Event] = []
        problems: list[LogProblem] = []
        if self._partial and not self._discarding:
            raw = bytes(self._partial)
            self._partial.clear()
            self._line += 1
            self._line_in(raw, events, problems)
        return PollResult(tuple(events), tuple(problems), False, f"finished {self.path}", False)

    def _feed(self, data: bytes, events: list[Event], problems: list[LogProblem]) -> None:
        """Split *data* (the bytes after the previous read) into lines and fold them in."""
        start = 0
        if self._discarding:
            end = data.find(b"\n")
            if end < 0:
                return
            self._discarding = False
            self._line += 1
            start = end + 1
        while True:
            end = data.find(b"\n", start)
            if end < 0:
                break
            if self._partial:
                self._partial += data[start:end]
                raw = bytes(self._partial)
                self._partial.clear()
            else:
                raw = data[start:end]
            start = end + 1
            self._line += 1
            self._line_in(raw, events, problems)
        tail = len(data) - start
        if len(self._partial) + tail > self.max_line_bytes + 1:  # + 1: a CR before the newline to come
            self._partial.clear()
            self._discarding = True
            self._problem(self._too_long(self._line + 1), problems)
        elif tail:
            self._partial += data[start:]

    def _too_long(self, line: int) -> LogProblem:
        return LogProblem(line, f"line {line}: longer than {self.max_line_bytes:,} bytes")

    def _line_in(self, raw: bytes, events: list[Event], problems: list[LogProblem]) -> None:
        if len(raw) - raw.endswith(b"\r") > self.max_line_bytes:
            self._problem(self._too_long(self._line), problems)
            return
        try:
            event = _parse_line(raw, self._line)
        except _BadLine as exc:
            self._problem(LogProblem(self._line, f"line {self._line}: {exc}"), problems)
            return
        if event is not None:
            self._fold(event)
            events.append(event)

    def _clock(self) -> float:
        return self._latest_ts

    def _fold(self, event: Event) -> None:
        """Feed *event* to the tracker and record the estimate after it."""
        if self._tracker is None:
            self._latest_ts = event.ts
            self._tracker = ContextTracker(self.threshold_percent, self.max_tokens, clock=self._clock)
        self._latest_ts = max(self._latest_ts, event.ts)
        tracker = self._tracker
        if event.kind == TASK_EXECUTED:
            assert event.task_id is not None
            tracker.track_task_execution(event.task_id)
            self._static_tokens += TOKENS_PER_TASK
            self._last_task = event.task_id
        elif event.kind == FILE_READ:
            assert event.path is not None and event.size is not None
            tracker.track_file_read(event.path, event.size)
            self._static_tokens += file_read_tokens(event.size)
        else:
            tracker.track_tool_call(event.count)
            self._static_tokens += event.count * TOKENS_PER_TOOL_CALL
        # The tracker's estimate_tokens(), added up incrementally instead of re-summed per event.
        minutes = tracker.elapsed_minutes()
        tokens = self._static_tokens + int(minutes * TOKENS_PER_MINUTE)
        self._history.append((minutes, tokens))
        self._events += 1
        if self._first_checkpoint is None:
            snapshot = ContextUsage(tokens, self.threshold_percent, 0, 0, 0, self.max_tokens, minutes)
            if snapshot.is_over_threshold:
                self._first_checkpoint = len(self._history) - 1
