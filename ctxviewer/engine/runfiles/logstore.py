"""The log viewer's rows: every line of a run's worker logs, indexed, its text read back on demand.

:class:`LogStore` keeps only numbers per line, in typed arrays (where the line is, its file and
line number, its few-valued fields as integer codes), and reads a row's text back from the file
when it is shown or searched; :class:`RowTest` filters the rows.  A line that is not a record
is a row too.  Nothing here imports Qt.  ``docs/run-files.md#the-log-viewer``.
"""

from __future__ import annotations

import json
from array import array
from bisect import bisect_right
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

#: Lines longer than this are shown cut (the rest of the line is dropped, said in the row).
MAX_LINE_CHARS = 100_000
#: A cell's text of a field that is not a string (a number, an object) is cut to this many characters.
MAX_FIELD_CHARS = 200
#: Rows whose text is kept once read back (the table asks for the same rows again and again).
CACHED_ROWS = 4_096
#: Bytes a text search reads from disk at once.
SEARCH_READ = 8 << 20

#: The C scanner behind ``json.loads``, called without the Python-level wrapper around it.
_scan_once = json.JSONDecoder().scan_once  # type: ignore[attr-defined]
_WS = " \t\r"
_GONE = "(no longer on disk: the log was rotated past this line)"

#: Reads *length* bytes at *offset* of one segment of a log; None when they are no longer there.
SegmentReader = Callable[[int, int], bytes | None]


def _text(value: Any) -> str | None:
    """A field as text: a string as it is, None for none, anything else as compact JSON (cut)."""
    if value is None or type(value) is str:
        return value
    try:
        shown = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError, RecursionError):
        shown = repr(value)
    return shown[:MAX_FIELD_CHARS]


def _cut(raw: str) -> str:
    return raw[:MAX_LINE_CHARS] + " \u2026 (cut)" if len(raw) > MAX_LINE_CHARS else raw


def _bad(raw: str, why: str) -> LogRow:
    return LogRow("", 0, "", None, None, None, None, None, _cut(raw), None, "", why)


def parse_line(raw: bytes, first: bool) -> LogRow | None:
    """The fields of one complete line (no ``\\n``; *first*: line 1 of its file, where a BOM is
    taken off), as a row of no file (``file`` '' and ``line`` 0); None for a blank line."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return _bad(raw.decode("utf-8", "replace"), f"not UTF-8 (byte 0x{raw[exc.start]:02x} at byte {exc.start + 1})")
    pos = 1 if first and text.startswith("\ufeff") else 0
    obj: Any = None
    try:
        obj, stop = _scan_once(text, pos)
    except (StopIteration, ValueError, RecursionError):
        stop = -1
    end = len(text)
    if stop != end and not (stop > pos and text[stop:end].strip(_WS) == ""):
        stripped = text[pos:].strip()
        if not stripped:
            return None
        try:
            obj = json.loads(stripped)
        except (ValueError, RecursionError) as exc:
            why = f"not JSON ({exc.msg} at column {exc.colno})" if isinstance(exc, json.JSONDecodeError) else "not JSON"
            return _bad(text[pos:], why)
    if type(obj) is not dict:
        return _bad(text[pos:], "not a JSON object")
    get = obj.get
    ts, level, worker, feature = get("ts"), get("level"), get("worker_id"), get("feature")
    message, task, event = get("message"), get("task_id"), get("event")
    if type(worker) is int:
        worker = str(worker)
    if not (
        type(ts) is str
        and type(level) is str
        and type(worker) is str
        and type(feature) is str
        and type(message) is str
        and (task is None or type(task) is str)
        and (event is None or type(event) is str)
    ):
        ts, level, worker, feature, message, task, event = (
            _text(v) for v in (ts, level, worker, feature, message, task, event)
        )
    phase = get("phase")
    duration = get("duration_ms")
    return LogRow(
        "",
        0,
        ts or "",
        level,
        worker,
        feature,
        task,
        event,
        "" if message is None else _cut(message) if len(message) > MAX_LINE_CHARS else message,
        phase if phase is None or type(phase) is str else _text(phase),
        "" if duration is None else str(duration) if type(duration) is int else _text(duration) or "",
        None,
    )


class Codes:
    """The distinct values of one field, each given a small integer (0: none)."""

    def __init__(self) -> None:
        self.values: list[str | None] = [None]
        self.index: dict[str | None, int] = {None: 0}

    def code(self, value: str | None) -> int:
        found = self.index.get(value)
        if found is None:
            found = self.index[value] = len(self.values)
            self.values.append(value)
        return found

    def matching(self, needle: str) -> frozenset[int]:
        """The codes whose value contains *needle* (lowercase)."""
        return frozenset(n for n, v in enumerate(self.values) if v is not None and needle in v.lower())


@dataclass(frozen=True, slots=True)
class LogFilter:
    """What the table shows: rows whose fields are these (None: any) and whose text contains *text*.

    ``event`` ``"*"`` means any row with an event.  ``task`` matches a task id containing it
    (case-insensitive); ``text`` any shown field containing it (case-insensitive).
    """

    level: str | None = None
    worker: str | None = None
    feature: str | None = None
    event: str | None = None
    task: str = ""
    text: str = ""

    @property
    def shows_all(self) -> bool:
        return self == LogFilter()


ANY_EVENT = "*"


def _kept(data: bytes) -> SegmentReader:
    """A segment reader over bytes held in memory."""

    def read(at: int, size: int) -> bytes | None:
        return data[at : at + size]

    return read


class LogStore:
    """Every row read so far, in the order read (each log's file order, logs one after another).

    Columns are typed arrays of numbers; a row's text is read back through the reader of its
    segment (:meth:`segment`).  Lines added without a segment are kept in memory (tests).
    """

    def __init__(self) -> None:
        self.files: list[str] = []
        self._file_codes: dict[str, int] = {}
        self.levels, self.workers, self.features = Codes(), Codes(), Codes()
        self.events, self.tasks = Codes(), Codes()
        self.file = array("I")
        self.line = array("Q")
        self.level = array("I")
        self.worker = array("I")
        self.feature = array("I")
        self.task = array("I")
        self.event = array("I")
        self.seg = array("I")
        self.offset = array("Q")
        self.length = array("I")
        #: Why a row is not a record, for the rows that are not (few): set where the row was added.
        self.bad: dict[int, str] = {}
        #: Rows with no bytes to read back (a line too long to keep): their text.
        self._fixed: dict[int, LogRow] = {}
        self._readers: list[SegmentReader] = []
        self._cache: OrderedDict[int, LogRow] = OrderedDict()

    def __len__(self) -> int:
        return len(self.line)

    def file_code(self, shown: str) -> int:
        """The number of the file named *shown* (added when new)."""
        found = self._file_codes.get(shown)
        if found is None:
            found = self._file_codes[shown] = len(self.files)
            self.files.append(shown)
        return found

    def segment(self, reader: SegmentReader) -> int:
        """The number of a new log segment (one file, by identity) whose bytes *reader* reads back."""
        self._readers.append(reader)
        return len(self._readers) - 1

    # -- adding -------------------------------------------------------------------------

    def add_lines(self, data: bytes, file: int, first_line: int, segment: int | None = None, offset: int = 0) -> int:
        """Add the complete lines of *data* (each ending in ``\\n``), the first being line
        *first_line* of file number *file* and starting at byte *offset* of *segment* (None: the
        bytes are kept here); returns how many lines there were."""
        if segment is None:
            segment, offset = self.segment(_kept(data)), 0
        if not data.isascii():  # byte offsets are not character offsets: line by line
            return self._add_each(data, file, first_line, segment, offset)
        # One tight loop over the lines, every column and table bound locally: at millions of
        # lines a method call or an attribute look-up per field is most of the time.
        text = data.decode("ascii")
        line, pos, size = first_line, 0, len(text)  # (a BOM is not ASCII: it takes the other path)
        find, scan = text.find, _scan_once
        tables = (self.levels, self.workers, self.features, self.tasks, self.events)
        (li, wi, fi, ti, ei) = (t.index for t in tables)
        (lc, wc, fc, tc, ec) = (c.append for c in (self.level, self.worker, self.feature, self.task, self.event))
        files, lines, segs, offsets, lengths = (
            self.file.append,
            self.line.append,
            self.seg.append,
            self.offset.append,
            self.length.append,
        )
        while pos < size:
            end = find("\n", pos)
            if end < 0:
                end = size
            obj: Any = None
            try:
                obj, stop = scan(text, pos)
            except (StopIteration, ValueError, RecursionError):
                stop = -1
            get = obj.get if type(obj) is dict and stop == end else None
            if get is not None:
                level, worker, feature = get("level"), get("worker_id"), get("feature")
                task, event = get("task_id"), get("event")
                if type(worker) is int:
                    worker = str(worker)
                if (
                    type(level) is str
                    and type(worker) is str
                    and type(feature) is str
                    and type(get("ts")) is str
                    and type(get("message")) is str
                    and (task is None or type(task) is str)
                    and (event is None or type(event) is str)
                ):
                    code = li.get(level)
                    lc(self.levels.code(level) if code is None else code)
                    code = wi.get(worker)
                    wc(self.workers.code(worker) if code is None else code)
                    code = fi.get(feature)
                    fc(self.features.code(feature) if code is None else code)
                    code = ti.get(task)
                    tc(self.tasks.code(task) if code is None else code)
                    code = ei.get(event)
                    ec(self.events.code(event) if code is None else code)
                    files(file)
                    lines(line)
                    segs(segment)
                    offsets(offset + pos)
                    lengths(end - pos)
                    pos = end + 1
                    line += 1
                    continue
            # Anything else (trailing text, not an object, fields of other types): the full parse.
            self._add_fields(data[pos:end], file, line, segment, offset + pos)
            pos = end + 1
            line += 1
        return line - first_line

    def _add_each(self, data: bytes, file: int, first_line: int, segment: int, offset: int) -> int:
        line, pos, size = first_line, 0, len(data)
        while pos < size:
            end = data.find(b"\n", pos)
            if end < 0:
                end = size
            self._add_fields(data[pos:end], file, line, segment, offset + pos)
            pos = end + 1
            line += 1
        return line - first_line

    def _add_fields(self, raw: bytes, file: int, line: int, segment: int, offset: int) -> None:
        fields = parse_line(raw, line == 1)
        if fields is None:
            return
        n = len(self.line)
        tables = (self.levels, self.workers, self.features, self.tasks, self.events)
        columns = (self.level, self.worker, self.feature, self.task, self.event)
        values = (fields.level, fields.worker, fields.feature, fields.task, fields.event)
        for table, column, value in zip(tables, columns, values, strict=True):
            column.append(table.code(value))
        self.file.append(file)
        self.line.append(line)
        self.seg.append(segment)
        self.offset.append(offset)
        self.length.append(len(raw))
        if fields.bad is not None:
            self.bad[n] = fields.bad

    def add_bad(self, raw: str, why: str, file: int, line: int) -> None:
        """A row with no bytes on disk to read back: *raw* is its text."""
        n = len(self.line)
        for column in (self.level, self.worker, self.feature, self.task, self.event, self.seg, self.length):
            column.append(0)
        self.file.append(file)
        self.line.append(line)
        self.offset.append(0)
        self.bad[n] = why
        self._fixed[n] = _bad(raw, why)

    # -- reading rows ----------------------------------------------------------------------

    def _raw(self, n: int) -> bytes | None:
        return self._readers[self.seg[n]](self.offset[n], self.length[n])

    def _fields(self, n: int, raw: bytes | None) -> LogRow:
        fixed = self._fixed.get(n)
        if fixed is not None:
            return fixed
        fields = None if raw is None or len(raw) != self.length[n] else parse_line(raw, self.line[n] == 1)
        if fields is None:  # the bytes are gone, or are other bytes now
            level, worker, feature, task, event = self._coded(n)
            return LogRow("", 0, "", level, worker, feature, task, event, _GONE, None, "", self.bad.get(n))
        return fields

    def _coded(self, n: int) -> tuple[str | None, str | None, str | None, str | None, str | None]:
        return (
            self.levels.values[self.level[n]],
            self.workers.values[self.worker[n]],
            self.features.values[self.feature[n]],
            self.tasks.values[self.task[n]],
            self.events.values[self.event[n]],
        )

    def row(self, n: int) -> LogRow:
        """Row *n* as one value (for the table, the detail pane, the signals and the tests)."""
        cached = self._cache.get(n)
        if cached is not None:
            self._cache.move_to_end(n)
            return cached
        fields = self._fields(n, None if n in self._fixed else self._raw(n))
        found = replace(fields, file=self.files[self.file[n]], line=self.line[n])
        self._cache[n] = found
        if len(self._cache) > CACHED_ROWS:
            self._cache.popitem(last=False)
        return found

    def stretches(self, rows: Sequence[int]) -> Iterator[tuple[Sequence[int], int, bytes | None]]:
        """*rows* (ascending) in stretches that one read of one segment covers: (the rows, the
        offset the read starts at, the bytes read, None when they are gone or it has none)."""
        i, count = 0, len(rows)
        seg_of, offset, length, fixed = self.seg, self.offset, self.length, self._fixed
        while i < count:
            first = rows[i]
            if first in fixed:  # a row with no bytes to read
                yield rows[i : i + 1], 0, None
                i += 1
                continue
            seg, start = seg_of[first], offset[first]
            j, end, limit = i, start, start + SEARCH_READ
            while j < count:
                n = rows[j]
                at = offset[n]
                stop = at + length[n]
                if seg_of[n] != seg or at < start or (stop > limit and j > i) or (fixed and n in fixed):
                    break
                if stop > end:
                    end = stop
                j += 1
            yield rows[i:j], start, self._readers[seg](start, end - start)
            i = j

    def line_bytes(self, n: int, start: int, data: bytes | None) -> bytes | None:
        """Row *n*'s line out of *data*, read from its segment at *start*."""
        at = self.offset[n] - start
        return None if data is None or at + self.length[n] > len(data) else data[at : at + self.length[n]]

    def message_of(self, n: int, raw: bytes | None) -> str:
        """Row *n*'s message (a bad line's text) from its line's bytes *raw*."""
        return self._fields(n, raw).message

    def matcher(self, spec: LogFilter) -> RowTest:
        """A test of rows against *spec*, made once per filter change."""
        return RowTest(self, spec)


@dataclass(frozen=True, slots=True)
class LogRow:
    """One row of the viewer, every field as text (None when the line had none)."""

    file: str
    line: int
    ts: str
    level: str | None
    worker: str | None
    feature: str | None
    task: str | None
    event: str | None
    message: str
    phase: str | None
    duration_ms: str
    bad: str | None
    """Why the line is not a log record (not JSON, not an object, not UTF-8), or None."""


def _searchable_in_json(needle: str) -> bool:
    """Whether *needle* (lowercase) appears as it is in the JSON text of an ASCII string holding
    it: printable ASCII with nothing JSON may escape (a quote, a backslash, a slash)."""
    return all(" " <= c < "\x7f" and c not in '"\\/' for c in needle)


class RowTest:
    """*spec* turned into code sets, applied to ranges of rows."""

    def __init__(self, store: LogStore, spec: LogFilter) -> None:
        self.store = store
        self.spec = spec
        self.everything = spec.shows_all

        def exact(codes: Codes, value: str | None) -> int | None:
            if value is None:
                return None
            return codes.index.get(value, -1)

        self.level = exact(store.levels, spec.level)
        self.worker = exact(store.workers, spec.worker)
        self.feature = exact(store.features, spec.feature)
        self.any_event = spec.event == ANY_EVENT
        self.event = None if self.any_event else exact(store.events, spec.event)
        task = spec.task.strip().lower()
        self.tasks = store.tasks.matching(task) if task else None
        needle = spec.text.strip().lower()
        self.needle = needle
        self.prefilter = needle.encode("ascii") if needle and _searchable_in_json(needle) else None
        if needle:
            # A row matches when its message or any coded field (looked up once here) holds the text.
            self.hits = (
                store.levels.matching(needle),
                store.workers.matching(needle),
                store.features.matching(needle),
                store.tasks.matching(needle),
                store.events.matching(needle),
            )

    def rows(self, start: int, stop: int) -> list[int]:
        """The rows in ``range(start, stop)`` that pass."""
        s = self.store
        rows: Iterable[int] = range(start, stop)
        if self.everything:
            return list(rows)
        if self.level is not None:
            level, col = self.level, s.level
            rows = [n for n in rows if col[n] == level]
        if self.worker is not None:
            worker, col = self.worker, s.worker
            rows = [n for n in rows if col[n] == worker]
        if self.feature is not None:
            feature, col = self.feature, s.feature
            rows = [n for n in rows if col[n] == feature]
        if self.any_event:
            col = s.event
            rows = [n for n in rows if col[n]]
        elif self.event is not None:
            event, col = self.event, s.event
            rows = [n for n in rows if col[n] == event]
        if self.tasks is not None:
            tasks, col = self.tasks, s.task
            rows = [n for n in rows if col[n] in tasks]
        rows = rows if isinstance(rows, list) else list(rows)
        if self.needle:
            rows = self._search(rows)
        return rows

    def _candidates(
        self, stretch: Sequence[int], start: int, data: bytes | None, prefilter: bytes | None
    ) -> Iterable[int]:
        """The rows of *stretch* whose message may hold the text.

        A stretch of ASCII lines without ``\\u`` escapes holds only ASCII messages, and such a
        message holds the text only where its line's lowercased bytes do: the stretch's bytes are
        lowercased and searched at once, and only the lines with a hit (and the rows that are not
        records, or are cut) are candidates.  In any other stretch the same holds line by line.
        """
        s = self.store
        if prefilter is None or data is None:
            return stretch
        if not data.isascii() or b"\\u" in data:  # line by line: only the clean lines can be passed over
            passed: list[int] = []
            for n in stretch:
                raw = s.line_bytes(n, start, data)
                if raw is None or not raw.isascii() or b"\\u" in raw or n in s.bad or prefilter in raw.lower():
                    passed.append(n)
            return passed
        low = data.lower()
        starts = [s.offset[n] - start for n in stretch]
        out: list[int] = [n for n in stretch if n in s.bad or s.length[n] > MAX_LINE_CHARS]
        hit = low.find(prefilter)
        while hit >= 0:
            k = bisect_right(starts, hit) - 1
            n = stretch[k]
            if hit + len(prefilter) <= starts[k] + s.length[n]:  # inside the line, not across two
                out.append(n)
            nxt = starts[k + 1] if k + 1 < len(starts) else len(low)
            hit = low.find(prefilter, max(hit + 1, nxt))
        return sorted(set(out))

    def _search(self, rows: list[int]) -> list[int]:
        s = self.store
        lv, wk, ft, tk, ev = self.hits
        cl, cw, cf, ct, ce = s.level, s.worker, s.feature, s.task, s.event
        coded = [n for n in rows if cl[n] in lv or cw[n] in wk or cf[n] in ft or ct[n] in tk or ce[n] in ev]
        if len(coded) == len(rows):
            return rows
        found = set(coded)
        needle, prefilter = self.needle, self.prefilter
        rest = [n for n in rows if n not in found]
        for stretch, start, data in s.stretches(rest):
            for n in self._candidates(stretch, start, data, prefilter):
                if needle in s.message_of(n, s.line_bytes(n, start, data)).lower():
                    found.add(n)
        return [n for n in rows if n in found]


def values_of(codes: Codes) -> Sequence[str]:
    """A field's distinct values, sorted (numbers by value: worker 2 before worker 10)."""
    present = [v for v in codes.values if v is not None]
    return sorted(present, key=lambda v: (0, int(v), v) if v.isdigit() else (1, 0, v))
