"""The log viewer's rows: every line of a run's worker logs, held column by column.

Upstream's worker logs run to 50 MB (then rotate).  :class:`~ctxviewer.engine.runtime.
workerlog.WorkerLogReader` turns each line into a frozen :class:`LogRecord` with its time
parsed, about 7 µs a line: 2 s for such a log before a single filter could run.  A table
needs less: the fields as text, and a cheap way to test them.  :class:`LogStore` parses a
piece of complete lines with the standard library's C scanner (one call per line, no
Python-level decoder around it) straight into columns -- one list per field, the fields
with few values (level, worker, feature, event, task) as small integer codes into a
table of their values -- so a filter compares integers and a search scans one list of
lowercased messages.

A line that is not a JSON object is kept too, as a row whose message is the line itself
(marked ``bad``): a log viewer shows what is in the file.  Nothing here imports Qt.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

#: Lines longer than this are shown cut (the rest of the line is dropped, said in the row).
MAX_LINE_CHARS = 100_000
#: A cell's text of a field that is not a string (a number, an object) is cut to this many characters.
MAX_FIELD_CHARS = 200

#: The C scanner behind ``json.loads``, called without the Python-level wrapper around it.
_scan_once = json.JSONDecoder().scan_once  # type: ignore[attr-defined]
_WS = " \t\r"


def _text(value: Any) -> str | None:
    """A field as text: a string as it is, None for none, anything else as compact JSON (cut)."""
    if value is None or type(value) is str:
        return value
    try:
        shown = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError, RecursionError):
        shown = repr(value)
    return shown[:MAX_FIELD_CHARS]


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


class LogStore:
    """Every row read so far, in the order read (each log's file order, logs one after another)."""

    def __init__(self) -> None:
        self.files: list[str] = []
        self.levels, self.workers, self.features = Codes(), Codes(), Codes()
        self.events, self.tasks = Codes(), Codes()
        self.file: list[int] = []
        self.line: list[int] = []
        self.ts: list[str] = []
        self.level: list[int] = []
        self.worker: list[int] = []
        self.feature: list[int] = []
        self.task: list[int] = []
        self.event: list[int] = []
        self.message: list[str] = []
        self.lower: list[str] = []
        self.phase: list[str | None] = []
        self.duration: list[str] = []
        self.bad: list[str | None] = []

    def __len__(self) -> int:
        return len(self.message)

    def file_code(self, shown: str) -> int:
        """The number of the file named *shown* (added when new)."""
        if shown not in self.files:
            self.files.append(shown)
        return self.files.index(shown)

    # -- parsing ------------------------------------------------------------------------

    def add_lines(self, data: bytes, file: int, first_line: int) -> int:
        """Add the complete lines of *data* (each ending in ``\\n``), the first being line
        *first_line* of file number *file*; returns how many lines there were."""
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            return self._add_each(data, file, first_line)
        return self._add_text(text, file, first_line)

    def _add_each(self, data: bytes, file: int, first_line: int) -> int:
        """Line by line, for a piece that is not UTF-8 as a whole (the bad lines are marked)."""
        count = 0
        for raw in data.split(b"\n")[:-1]:
            try:
                self._add_text(raw.decode("utf-8") + "\n", file, first_line + count)
            except UnicodeDecodeError as exc:
                shown = raw.decode("utf-8", "replace")
                self.add_bad(shown, f"not UTF-8 (byte 0x{raw[exc.start]:02x} at byte {exc.start + 1})", file,
                              first_line + count)  # fmt: skip
            count += 1
        return count

    def _add_text(self, text: str, file: int, first_line: int) -> int:
        # One tight loop over the lines, every list and table bound locally: at 300,000 lines
        # a method call or an attribute look-up per field is most of the time.
        line = first_line
        pos = 0
        find = text.find
        scan = _scan_once
        size = len(text)
        if line == 1 and text.startswith("\ufeff"):
            pos = 1
        files, lines, tss, messages, lowers = self.file, self.line, self.ts, self.message, self.lower
        phases, durations, bads = self.phase, self.duration, self.bad
        tables = (self.levels, self.workers, self.features, self.tasks, self.events)
        columns = (self.level, self.worker, self.feature, self.task, self.event)
        (li, wi, fi, ti, ei) = (t.index for t in tables)
        (lc, wc, fc, tc, ec) = (c.append for c in columns)
        text_of = _text
        cap = MAX_LINE_CHARS
        while pos < size:
            end = find("\n", pos)
            if end < 0:
                end = size
            obj: Any = None
            try:
                obj, stop = scan(text, pos)
            except (StopIteration, ValueError, RecursionError):
                stop = -1
            if stop != end and not (stop > pos and text[stop:end].strip(_WS) == ""):
                self._line_fallback(text[pos:end], file, line)
            elif type(obj) is not dict:
                self.add_bad(text[pos:end], "not a JSON object", file, line)
            else:
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
                        text_of(v) for v in (ts, level, worker, feature, message, task, event)
                    )
                if message is None:
                    message = ""
                elif len(message) > cap:
                    message = message[:cap] + " \u2026 (cut)"
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
                files.append(file)
                lines.append(line)
                tss.append(ts or "")
                messages.append(message)
                lowers.append(message.lower())
                phase = get("phase")
                phases.append(phase if phase is None or type(phase) is str else text_of(phase))
                duration = get("duration_ms")
                durations.append("" if duration is None else str(duration) if type(duration) is int else
                                 text_of(duration) or "")  # fmt: skip
                bads.append(None)
            pos = end + 1
            line += 1
        return line - first_line

    def _line_fallback(self, raw: str, file: int, line: int) -> None:
        stripped = raw.strip()
        if not stripped:
            return  # a blank line is no row (the reader skips it too); its number still counts
        try:
            obj = json.loads(stripped)
        except (ValueError, RecursionError) as exc:
            why = f"not JSON ({exc.msg} at column {exc.colno})" if isinstance(exc, json.JSONDecodeError) else "not JSON"
            self.add_bad(raw, why, file, line)
            return
        if type(obj) is dict:
            self._add_text(json.dumps(obj) + "\n", file, line)
        else:
            self.add_bad(raw, "not a JSON object", file, line)

    def add_bad(self, raw: str, why: str, file: int, line: int) -> None:
        if len(raw) > MAX_LINE_CHARS:
            raw = raw[:MAX_LINE_CHARS] + " \u2026 (cut)"
        self.file.append(file)
        self.line.append(line)
        self.ts.append("")
        self.level.append(0)
        self.worker.append(0)
        self.feature.append(0)
        self.task.append(0)
        self.event.append(0)
        self.message.append(raw)
        self.lower.append(raw.lower())
        self.phase.append(None)
        self.duration.append("")
        self.bad.append(why)

    # -- reading rows ----------------------------------------------------------------------

    def row(self, n: int) -> LogRow:
        """Row *n* as one value (for the detail pane, the signals and the tests)."""
        return LogRow(
            self.files[self.file[n]],
            self.line[n],
            self.ts[n],
            self.levels.values[self.level[n]],
            self.workers.values[self.worker[n]],
            self.features.values[self.feature[n]],
            self.tasks.values[self.task[n]],
            self.events.values[self.event[n]],
            self.message[n],
            self.phase[n],
            self.duration[n],
            self.bad[n],
        )

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
        if self.needle:
            needle, lower = self.needle, s.lower
            lv, wk, ft, tk, ev = self.hits
            cl, cw, cf, ct, ce = s.level, s.worker, s.feature, s.task, s.event
            rows = [
                n
                for n in rows
                if needle in lower[n] or cl[n] in lv or cw[n] in wk or cf[n] in ft or ct[n] in tk or ce[n] in ev
            ]
        return rows if isinstance(rows, list) else list(rows)


def values_of(codes: Codes) -> Sequence[str]:
    """A field's distinct values, sorted (numbers by value: worker 2 before worker 10)."""
    present = [v for v in codes.values if v is not None]
    return sorted(present, key=lambda v: (0, int(v), v) if v.isdigit() else (1, 0, v))
