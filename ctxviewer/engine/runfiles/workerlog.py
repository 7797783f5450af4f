"""Reading upstream's worker logs, ``logs/workers/worker-<id>.jsonl``, as they grow and rotate.

:class:`WorkerLogReader` follows one log and its rotation ``.1`` through the engine's tail
(:class:`~ctxviewer.engine.files.tail.FileTail`), checks every line's fields, and hands each
poll's records to the caller, keeping only the few a tracker needs; every fault is one
:class:`~.problems.RunProblem`, never an exception.  What it reads and what it says about a
rotation, a truncation or a bad line: ``docs/run-files.md#worker-logs``.
"""

from __future__ import annotations

import json
import math
import re
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from json.scanner import make_scanner
from typing import Any

import orjson

from ctxviewer.engine.errors import json_type, short
from ctxviewer.engine.files.reading import OutsideRootError, ProjectFS
from ctxviewer.engine.files.tail import Change, FileTail, Line, LineSplitter, Opened, Refused, TailedFile
from ctxviewer.engine.runfiles.jsondoc import parse_log_time
from ctxviewer.engine.runfiles.plausible import DURATION_MS, PLAUSIBLE, TIME, implausible
from ctxviewer.engine.runfiles.problems import ProblemList, RunProblem, file_kind

#: The keys every line upstream writes has.
REQUIRED_KEYS = ("ts", "level", "worker_id", "feature", "message")
#: Upstream's task events (``constants.py:LogEvent``); others are kept as they are.
LOG_EVENTS = (
    "task_started",
    "task_completed",
    "task_failed",
    "verification_passed",
    "verification_failed",
    "artifact_captured",
    "level_started",
    "level_complete",
    "merge_started",
    "merge_complete",
    "heartbeat_stale",
    "escalation_created",
    "escalation_resolved",
    "worker_auto_restarted",
    "worker_reassigned",
    "verification_tier_passed",
    "verification_tier_failed",
)
#: The line a worker process writes when it starts (``worker_main``), and the event of a finished task.
PROCESS_START = re.compile(r"^Worker \S+ starting for feature ")
TASK_COMPLETED = "task_completed"
#: Records a file keeps for the tracker (starts, finished tasks, each gap's latest); older ones go.
MAX_TRACKER_RECORDS = 100_000
ROTATED_SUFFIX = ".1"
_BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True, slots=True)
class LogRecord:
    """One line of a worker log.  A field that was absent or of the wrong type is None."""

    file: str
    """The file the line was read from, as shown (a line read before a rotation keeps the old name)."""
    line: int
    """Its 1-based line number in that file."""
    ts: str | None
    """The time as written (UTC, ``2026-02-16T15:31:07.747137Z``)."""
    time: float | None
    """``ts`` in epoch seconds."""
    level: str | None
    worker_id: int | str | None
    """The worker's number, or ``"orchestrator"``."""
    feature: str | None
    message: str | None
    task_id: str | None = None
    phase: str | None = None
    event: str | None = None
    duration_ms: int | None = None
    data: Mapping[str, Any] | None = field(default=None, compare=False)

    @property
    def worker(self) -> str | None:
        """The worker id as text (``"1"``, ``"orchestrator"``), as the state file keys it."""
        return None if self.worker_id is None else str(self.worker_id)


@dataclass(frozen=True, slots=True)
class LogPoll:
    """What one :meth:`WorkerLogReader.poll` found."""

    records: tuple[LogRecord, ...]
    """New records, in file order."""
    problems: tuple[RunProblem, ...]
    """New problems (only those kept: see :class:`~.problems.ProblemList`)."""
    restarted: bool
    """The current file was truncated or replaced: the records read from it before are gone
    (they are no longer on disk) and it is being read again from its start."""
    more: bool
    """The poll stopped at ``read_limit`` with more to read: poll again soon."""


class RecordFold:
    """Takes a poll's records as they are read, in file order, instead of :attr:`LogPoll.records`
    (see :meth:`WorkerLogReader.poll`).  A plain record -- no problem, no event, no process
    start -- comes as :meth:`plain` with only what counting it needs, not as a :class:`LogRecord`."""

    __slots__ = ()

    def record(self, record: LogRecord) -> None:
        """One record of any kind."""

    def plain(self, worker: str, time: float, feature: str) -> None:
        """One plain record: its worker id as text (``"?"`` for an empty one), time and feature."""


#: A worker's latest-timed record since its last kept one, before it is kept: file, line,
#: time, worker_id, task_id, event (a slim record is made of it only when it is kept).
_Gap = tuple[str, int, float, int | str | None, str | None, str | None]


@dataclass(slots=True)
class _Segment(TailedFile):
    """One file (an inode) of the log, as the tail reads it, and what was read from it."""

    count: int = 0
    """Records read from this file."""
    kept: deque[LogRecord] = field(default_factory=lambda: deque(maxlen=MAX_TRACKER_RECORDS))
    """Slim copies of its records that start a process or finish a task, each preceded by the
    latest-timed other record of its worker since that worker's previous kept one."""
    gaps: dict[str, _Gap] = field(default_factory=dict)
    """Per worker, the latest-timed record since its last kept one (not kept yet)."""

    def keep(self, record: LogRecord) -> None:
        """Keep what a tracker replay needs of *record*, in a slim copy (no text, no data)."""
        if record.time is None:
            return
        worker = record.worker or ""
        start = record.message is not None and PROCESS_START.match(record.message) is not None
        if start or record.event == TASK_COMPLETED:
            gap = self.gaps.pop(worker, None)
            if gap is not None:
                self.kept.append(_slim(*gap))
            self.kept.append(
                _slim(record.file, record.line, record.time, record.worker_id, record.task_id, record.event,
                      record.message if start else None)
            )  # fmt: skip
        else:
            self.keep_plain(worker, record.file, record.line, record.time, record.worker_id, record.task_id,
                            record.event)  # fmt: skip

    def keep_plain(
        self, worker: str, file: str, line: int, time: float, worker_id: int | str | None, task_id: str | None,
        event: str | None,
    ) -> None:  # fmt: skip
        """:meth:`keep` for a record that starts no process and finishes no task (*worker*: ``worker or ""``)."""
        gap = self.gaps.get(worker)
        if gap is None or time >= gap[2]:
            self.gaps[worker] = (file, line, time, worker_id, task_id, event)


def _slim(
    file: str, line: int, time: float, worker_id: int | str | None, task_id: str | None, event: str | None,
    message: str | None = None,
) -> LogRecord:  # fmt: skip
    """A record with only what a tracker reads: where, when, whose, which task and event."""
    return LogRecord(file, line, None, time, None, worker_id, None, message, task_id, None, event)


class _BadLine(Exception):
    pass


@dataclass(frozen=True, slots=True)
class _Take:
    """Where a poll's records go: *emit* takes each record; *plain*, when given, a plain one instead."""

    emit: Callable[[LogRecord], object]
    plain: Callable[[str, float, str], object] | None


_decoder = json.JSONDecoder()
_decode = _decoder.decode
#: The decoder's scanner: ``decode(text)`` is ``_scan(text, 0)`` when *text* starts with a
#: value and ends where that value ends; any other text goes through ``decode``.
_scan: Callable[[str, int], tuple[Any, int]] = make_scanner(_decoder)  # type: ignore[arg-type]  # typeshed: a class
#: Lines orjson may decode (in place of the standard decoder, which :func:`_parse_line` uses):
#: where both decode a line they give the same values, except that orjson reads an integer
#: beyond 64 bits as a float, which only a line's ``data`` could hold unnoticed (the fields
#: are checked for their types), so a line with ``data`` is decoded again by the standard
#: decoder; orjson refuses what the standard decoder refuses (bad UTF-8, control characters)
#: and more (NaN, a lone surrogate, a BOM, a huge exponent), and the lines it refuses go to the
#: standard decoder; and it nests up to 1,024 levels where the standard decoder runs out of
#: recursion sooner, which a line this short (512 levels at most) cannot reach.
_ORJSON_MAX_BYTES = 1024
_TIME_LOW, _TIME_HIGH = PLAUSIBLE[TIME].low, PLAUSIBLE[TIME].high
_DURATION_HIGH = PLAUSIBLE[DURATION_MS].high


def _parse_line(raw: bytes, line: int, shown: str) -> tuple[LogRecord | None, list[str]]:
    """The record on one complete line (no ``\\n``) and what is wrong with it; None for none.

    Raises :class:`_BadLine` when the line is not a JSON object at all.
    """
    if raw.endswith(b"\r"):
        raw = raw[:-1]
    if line == 1 and raw.startswith(_BOM):
        raw = raw[len(_BOM) :]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _BadLine(f"not UTF-8 (byte 0x{raw[exc.start]:02x} at byte {exc.start + 1})") from None
    if not text or text.isspace():
        return None, []
    try:
        obj = _decode(text)
    except json.JSONDecodeError as exc:
        raise _BadLine(f"not JSON ({exc.msg} at column {exc.colno})") from None
    except ValueError:  # a number of more digits than Python converts (4,300)
        raise _BadLine("not JSON (a number too long to read)") from None
    except RecursionError:
        raise _BadLine("not JSON (nested too deeply)") from None
    if type(obj) is not dict:
        raise _BadLine(f"not a JSON object (got {json_type(obj)})")
    get = obj.get
    ts, level, feature, message = get("ts"), get("level"), get("feature"), get("message")
    task_id, phase, event = get("task_id"), get("phase"), get("event")
    worker_id, duration, data = get("worker_id"), get("duration_ms"), get("data")
    wrong: list[str] = []
    # The common line (every key there, every type right) passes these few tests and no more.
    if not (
        type(ts) is str
        and type(level) is str
        and type(feature) is str
        and type(message) is str
        and type(worker_id) in (int, str)
        and (task_id is None or type(task_id) is str)
        and (phase is None or type(phase) is str)
        and (event is None or type(event) is str)
        and (duration is None or (type(duration) is int and duration >= 0))
        and (data is None or type(data) is dict)
    ):
        missing = [k for k in REQUIRED_KEYS if k not in obj]
        if missing:
            wrong.append("missing " + ", ".join(f'"{k}"' for k in missing))
        texts = {"ts": ts, "level": level, "feature": feature, "message": message}
        texts |= {"task_id": task_id, "phase": phase, "event": event}
        for key, value in texts.items():
            if value is not None and not isinstance(value, str):
                wrong.append(f'"{key}" must be a string, not {json_type(value)}')
                texts[key] = None
        ts, level, feature, message = texts["ts"], texts["level"], texts["feature"], texts["message"]
        task_id, phase, event = texts["task_id"], texts["phase"], texts["event"]
        if isinstance(worker_id, bool) or not (worker_id is None or isinstance(worker_id, int | str)):
            wrong.append(f'"worker_id" must be a number or a string, not {json_type(worker_id)}')
            worker_id = None
        if duration is not None and (
            isinstance(duration, bool)
            or not isinstance(duration, int | float)
            or not math.isfinite(duration)
            or duration < 0
        ):
            shown_value = json_type(duration) if isinstance(duration, bool | str | list | dict) else repr(duration)
            wrong.append(f'"duration_ms" must be a number of 0 or more, not {shown_value}')
            duration = None
        if data is not None and not isinstance(data, dict):
            wrong.append(f'"data" must be an object, not {json_type(data)}')
            data = None
    seconds = None
    if ts is not None:
        seconds = parse_log_time(ts)
        if seconds is None:
            wrong.insert(0, f'"ts" is not an ISO-8601 time: {short(ts)}')
        elif (why := implausible(TIME, seconds)) is not None:
            wrong.insert(0, f'"ts" {why}; left out')
            seconds = None
    if duration is not None and (why := implausible(DURATION_MS, duration)) is not None:
        wrong.append(f'"duration_ms" {why}; left out')
        duration = None
    record = LogRecord(
        shown,
        line,
        ts,
        seconds,
        level,
        worker_id,
        feature,
        message,
        task_id,
        phase,
        event,
        None if duration is None else int(duration),
        data,
    )
    return record, wrong


def _replayed(line: Line, shown: str) -> LogRecord | None:
    """The record a line read again gives (its problems were reported the first time)."""
    if line.too_long:
        return None
    try:
        return _parse_line(line.raw, line.number, shown)[0]
    except _BadLine:
        return None


class WorkerLogReader:
    """Follows one worker log (``worker-<id>.jsonl`` and its ``.1``); call :meth:`poll` on a timer.

    *rel* is the current file's path inside *fs*'s root; *shown* how to name it (default
    *rel*).  Invalid arguments raise ``ValueError``; nothing else does.
    """

    def __init__(
        self,
        fs: ProjectFS,
        rel: str,
        shown: str | None = None,
        *,
        max_line_bytes: int = 4_000_000,
        read_limit: int = 4_000_000,
    ) -> None:
        for name, value in (("max_line_bytes", max_line_bytes), ("read_limit", read_limit)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive integer, not {value!r}")
        self.fs = fs
        self.rel = rel
        self.shown = shown or rel
        self.max_line_bytes = max_line_bytes
        self.read_limit = read_limit
        self.problems = ProblemList()
        self.bytes_read = 0
        """Bytes read from disk so far (both files): a poll with nothing new reads none."""
        self._tail = FileTail[_Segment](
            fs, rel, self.shown, _Segment, rotation=ROTATED_SUFFIX, max_line_bytes=max_line_bytes
        )
        self._trouble: dict[str, str] = {}  # file-level problem reported last, per file (not repeated)

    # -- what was read -----------------------------------------------------------------

    @property
    def _files(self) -> tuple[_Segment, ...]:
        """The rotated file and the current one, those there are."""
        return tuple(s for s in (self._tail.rotated, self._tail.current) if s is not None)

    @property
    def tracker_records(self) -> tuple[LogRecord, ...]:
        """What a tracker replay needs, the rotated file's first: every process start and finished
        task, and between two of a worker's, its latest-timed record, each a slim copy (no
        text, no data; at most :data:`MAX_TRACKER_RECORDS` a file, the latest)."""
        out: list[LogRecord] = []
        for segment in self._files:
            out.extend(segment.kept)
            out.extend(_slim(*gap) for gap in segment.gaps.values())
        return tuple(out)

    @property
    def record_count(self) -> int:
        """How many records the files hold now (both files), as read so far."""
        return sum(s.count for s in self._files)

    def replay(self) -> Iterator[LogRecord]:
        """Every record read so far that is still on disk, the rotated file's first, read again
        from the files (a file no longer there, or another file now, gives none)."""
        for segment in self._files:
            yield from self._replay(segment)

    def _replay(self, segment: _Segment) -> Iterator[LogRecord]:
        splitter = LineSplitter(self.max_line_bytes)
        for data in self._tail.reread(segment):
            for line in splitter.feed(data):
                if (record := _replayed(line, segment.shown)) is not None:
                    yield record
        if splitter.lines < segment.splitter.lines:  # a last line finish() took as complete
            last = splitter.finish()
            if last is not None and (record := _replayed(last, segment.shown)) is not None:
                yield record

    @property
    def pending_line(self) -> int | None:
        """The line held back until its newline arrives (in the current file), or None."""
        segment = self._tail.current
        if segment is None or not segment.splitter.held:
            return None
        return segment.splitter.lines + 1

    # -- polling -------------------------------------------------------------------------

    def poll(self, fold: RecordFold | None = None) -> LogPoll:
        """Read what was appended (or rotated) since the last poll.

        With *fold*, each record goes to it as it is read, and :attr:`LogPoll.records` is empty.
        """
        new_records: list[LogRecord] = []
        take = _Take(new_records.append if fold is None else fold.record, None if fold is None else fold.plain)
        new: list[RunProblem] = []
        restarted = False
        tail = self._tail
        with tail.poll(self.read_limit) as poll:
            self._refused(poll.rotated, self.shown + ROTATED_SUFFIX, new)
            self._refused(poll.current, self.shown, new)
            change = poll.follow()
            old = poll.old
            if change is Change.ROTATED and old is not None:
                old.shown = self.shown + ROTATED_SUFFIX
            elif change is Change.ROTATED_TWICE and old is not None:
                self._add(
                    RunProblem(
                        self.shown,
                        0,
                        f"rotated more than once between two reads: what followed line {old.splitter.lines:,} is lost",
                    ),
                    new,
                )
            elif change is Change.DELETED and old is not None and old.offset > 0:
                self._trouble_once(self.shown, "was deleted; waiting for it to reappear", new)
            elif change in (Change.TRUNCATED, Change.REWRITTEN):
                self._add(RunProblem(self.shown, 0, f"{change.value}; read again from the start"), new)
                restarted = True
            elif change is Change.REPLACED:
                self._add(RunProblem(self.shown, 0, "was replaced by another file; read again from the start"), new)
                restarted = True
            if isinstance(poll.current, Opened):
                self._trouble.pop(self.shown, None)
            # Read: the rotated file's rest first, then the current file.
            for segment in poll.files():
                try:
                    for data in poll.blocks(segment):
                        self.bytes_read += len(data)
                        self._feed(segment, data, take, new)
                except OSError as exc:
                    self._trouble_once(segment.shown, f"cannot be read ({exc.strerror or exc})", new)
                if segment is tail.rotated and not poll.more:
                    # Upstream rotates between whole lines: a part line at the end of .1 stays one.
                    cut = segment.splitter.cut()
                    if cut is not None:
                        self._add(RunProblem(segment.shown, cut, "cut off: no newline at the end"), new)
            more = poll.more
        return LogPoll(tuple(new_records), tuple(new), restarted, more)

    def finish(self, fold: RecordFold | None = None) -> LogPoll:
        """Take the held-back last line of the current file as complete (the writer is done);
        *fold* as for :meth:`poll`."""
        new_records: list[LogRecord] = []
        new: list[RunProblem] = []
        segment = self._tail.current
        if segment is not None:
            line = segment.splitter.finish()
            if line is not None:
                emit = new_records.append if fold is None else fold.record
                self._line_in(segment, line.number, None if line.too_long else line.raw, emit, new)
        return LogPoll(tuple(new_records), tuple(new), False, False)

    # -- files -----------------------------------------------------------------------------

    def _add(self, problem: RunProblem, new: list[RunProblem]) -> None:
        self.problems.add(problem, new)

    def _trouble_once(self, shown: str, message: str, new: list[RunProblem]) -> None:
        if self._trouble.get(shown) != message:
            self._trouble[shown] = message
            self._add(RunProblem(shown, 0, message), new)

    def _refused(self, found: Opened | Refused | None, shown: str, new: list[RunProblem]) -> None:
        """Say, once while it lasts, why what is at a log's name is not read."""
        if not isinstance(found, Refused):
            return
        exc = found.error
        if isinstance(exc, OutsideRootError):
            self._trouble_once(shown, f"not read: {exc.why}", new)
        elif isinstance(exc, IsADirectoryError):
            self._trouble_once(shown, "is a folder, not a log file", new)
        elif exc is not None:
            self._trouble_once(shown, f"cannot be read ({getattr(exc, 'strerror', None) or exc})", new)
        else:
            self._trouble_once(shown, f"is {file_kind(found.mode)}, not a log file", new)

    # -- lines -----------------------------------------------------------------------------

    def _feed(self, segment: _Segment, data: bytes, take: _Take, new: list[RunProblem]) -> None:
        """The lines *data* completes.  A line upstream wrote -- a JSON object, every field of
        its type, the time in upstream's form and plausible -- is taken here; any other line
        by :meth:`_line_in`, which says what is wrong with it (the same record either way)."""
        first, raws = segment.splitter.split(data)
        shown, gaps, emit, plain = segment.shown, segment.gaps, take.emit, take.plain
        loads, not_json, scan, parse_time = orjson.loads, orjson.JSONDecodeError, _scan, parse_log_time
        starts, low, high, longest = PROCESS_START.match, _TIME_LOW, _TIME_HIGH, _DURATION_HIGH
        number = first - 1
        for raw in raws:
            number += 1
            if raw is None:
                self._too_long(segment, number, new)
                continue
            try:
                obj = loads(raw) if len(raw) <= _ORJSON_MAX_BYTES else None
            except not_json:
                obj = None
            if type(obj) is not dict or "data" in obj:
                try:
                    text = raw.decode("utf-8")
                    obj, end = scan(text, 0)
                    if end != len(text):
                        obj = None
                except (ValueError, StopIteration, RecursionError):
                    obj = None
            if type(obj) is dict:
                get = obj.get
                ts, level, feature, message = get("ts"), get("level"), get("feature"), get("message")
                worker_id = get("worker_id")
                if len(obj) == 5:  # most lines: the five keys every line has (or others, then wrong)
                    task_id = phase = event = duration = data_ = None
                else:
                    task_id, phase, event = get("task_id"), get("phase"), get("event")
                    duration, data_ = get("duration_ms"), get("data")
                if (
                    type(ts) is str
                    and type(level) is str
                    and type(feature) is str
                    and type(message) is str
                    and type(worker_id) in (int, str)
                    and (task_id is None or type(task_id) is str)
                    and (phase is None or type(phase) is str)
                    and (event is None or type(event) is str)
                    and (duration is None or (type(duration) is int and 0 <= duration <= longest))
                    and (data_ is None or type(data_) is dict)
                    and (seconds := parse_time(ts)) is not None
                    and low <= seconds <= high
                ):
                    segment.count += 1
                    start = message.startswith("Worker ") and starts(message) is not None
                    if plain is not None and event is None and not start:
                        worker = str(worker_id)
                        gap = gaps.get(worker)
                        if gap is None or seconds >= gap[2]:
                            gaps[worker] = (shown, number, seconds, worker_id, task_id, None)
                        plain(worker or "?", seconds, feature)
                    else:
                        record = LogRecord(
                            shown, number, ts, seconds, level, worker_id, feature, message, task_id, phase, event,
                            duration, data_,
                        )  # fmt: skip
                        segment.keep(record)
                        emit(record)
                    continue
            self._line_in(segment, number, raw, emit, new)

    def _too_long(self, segment: _Segment, line: int, new: list[RunProblem]) -> None:
        self._add(RunProblem(segment.shown, line, f"longer than {self.max_line_bytes:,} bytes; skipped"), new)

    def _line_in(
        self,
        segment: _Segment,
        line: int,
        raw: bytes | None,
        emit: Callable[[LogRecord], object],
        new: list[RunProblem],
    ) -> None:
        """Line *line* (*raw*: its bytes, None when it was too long), its problems said."""
        if raw is None:
            self._too_long(segment, line, new)
            return
        try:
            record, wrong = _parse_line(raw, line, segment.shown)
        except _BadLine as exc:
            self._add(RunProblem(segment.shown, line, str(exc)), new)
            return
        if wrong:
            self._add(RunProblem(segment.shown, line, "; ".join(wrong)), new)
        if record is not None:
            segment.count += 1
            segment.keep(record)
            emit(record)
