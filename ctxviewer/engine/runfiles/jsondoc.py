"""Reading the JSON a run writes: whole documents re-read when they change, checked field by field.

:class:`JsonDocument` re-reads a file upstream replaces whole only when its signature changed,
through :class:`~ctxviewer.engine.files.reading.ProjectFS`, keeping the last good document when
a new one cannot be read; :class:`Fields` checks a document's values and reports a wrong one
with the line it is on (:func:`line_of`), so every reader words it the same way
(``docs/run-files.md#state-files-and-token-records``).
"""

from __future__ import annotations

import json
import math
import re
import stat
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from ctxviewer.engine.errors import json_type, short
from ctxviewer.engine.files.reading import ProjectFS, utf8_error_line
from ctxviewer.engine.runfiles.plausible import TIME, implausible
from ctxviewer.engine.runfiles.problems import ProblemList, RunProblem, file_kind

_WS = " \t\n\r"
_BOM = "\ufeff"


def parse_time(text: str, *, naive_is_utc: bool) -> float | None:
    """Epoch seconds of an ISO-8601 time, or None when *text* is not one.

    Upstream writes log times in UTC with a ``Z`` and state times as local naive times
    (``datetime.now().isoformat()``): *naive_is_utc* says how a time without an offset is
    taken (UTC, or this machine's local time, which is right when the run was on it).
    """
    try:
        moment = datetime.fromisoformat(text.strip())
        if moment.tzinfo is None and naive_is_utc:
            moment = moment.replace(tzinfo=UTC)
        seconds = moment.timestamp()
    except (ValueError, OverflowError, OSError):
        return None
    return seconds if math.isfinite(seconds) else None


#: A UTC minute as upstream's log writer starts every ``ts``: ``2026-02-16T15:31``.
_LOG_MINUTE = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}", re.ASCII)
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND = timedelta(microseconds=1)
#: Microseconds since the epoch of the minutes :func:`parse_log_time` met (None: not a time).
_MINUTES: dict[str, int | None] = {}
_MAX_MINUTES = 32_768  # three weeks of minutes, about 4 MB


def _minute_micros(prefix: str) -> int | None:
    """Microseconds from the epoch to the UTC minute *prefix* (``2026-02-16T15:31``), or None."""
    if _LOG_MINUTE.fullmatch(prefix) is None:
        return None
    try:
        return (datetime.fromisoformat(prefix).replace(tzinfo=UTC) - _EPOCH) // _MICROSECOND
    except (ValueError, OverflowError):
        return None


def parse_log_time(text: str) -> float | None:
    """``parse_time(text, naive_is_utc=True)``, the same float, quick for the one form upstream's
    log writer uses (``2026-02-16T15:31:07.747137Z``): each minute is parsed once, and the
    seconds and microseconds added as ``datetime.timestamp`` adds them (whole microseconds,
    one division).  Any other text goes to :func:`parse_time`.
    """
    if len(text) == 27 and text[26] == "Z" and text[19] == "." and text[16] == ":" and text.isascii():
        digits = text[17:19] + text[20:26]  # seconds and microseconds: 07747137
        if digits.isdigit() and (micros := int(digits)) < 60_000_000:
            prefix = text[:16]
            base = _MINUTES.get(prefix, -1)  # -1: not seen (a minute is a multiple of 60,000,000 µs)
            if base == -1:
                if len(_MINUTES) >= _MAX_MINUTES:
                    _MINUTES.clear()
                base = _MINUTES[prefix] = _minute_micros(prefix)
            if base is not None:
                return (base + micros) / 1_000_000
    return parse_time(text, naive_is_utc=True)


def _skip_ws(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in _WS:
        pos += 1
    return pos


def line_of(text: str, path: Sequence[str | int]) -> int:
    """The 1-based line where the value at *path* (keys and indexes) starts in the JSON *text*.

    Best effort, for messages only: when a step of *path* is not found, the line of the
    deepest value found so far.  Values on the way are skipped with the standard decoder.
    """
    decoder = json.JSONDecoder()
    pos = _skip_ws(text, 0)
    if text.startswith(_BOM, pos):
        pos = _skip_ws(text, pos + 1)
    found = pos
    try:
        for step in path:
            if pos >= len(text):
                break
            hit: int | None = None
            if isinstance(step, str):
                if text[pos] != "{":
                    break
                pos = _skip_ws(text, pos + 1)
                while pos < len(text) and text[pos] == '"':
                    key, pos = decoder.raw_decode(text, pos)
                    pos = _skip_ws(text, _skip_ws(text, pos) + 1)  # past the ':'
                    if key == step:
                        hit = pos
                        break
                    _, pos = decoder.raw_decode(text, pos)
                    pos = _skip_ws(text, pos)
                    if pos < len(text) and text[pos] == ",":
                        pos = _skip_ws(text, pos + 1)
            else:
                if text[pos] != "[":
                    break
                pos = _skip_ws(text, pos + 1)
                index = 0
                while pos < len(text) and text[pos] != "]":
                    if index == step:
                        hit = pos
                        break
                    _, pos = decoder.raw_decode(text, pos)
                    pos = _skip_ws(text, pos)
                    if pos < len(text) and text[pos] == ",":
                        pos = _skip_ws(text, pos + 1)
                    index += 1
            if hit is None:
                break
            pos = found = hit
    except (ValueError, IndexError):
        pass
    return text.count("\n", 0, found) + 1


class Fields:
    """Checks values of one parsed document and reports the wrong ones once.

    *text* is the document's text, to find a value's line.  Each check returns the value,
    or None after reporting it.
    """

    def __init__(
        self,
        shown: str,
        problems: ProblemList,
        new: list[RunProblem],
        *,
        text: str = "",
        seen: set[str] | None = None,
    ) -> None:
        self.shown = shown
        self._problems = problems
        self._new = new
        self._text = text
        self._seen = seen

    def report(self, path: Sequence[str | int], message: str) -> None:
        """A problem with the value at *path* (its line found in the text).

        With *seen* (a set kept across reads of one file), a message already reported
        is not reported again when the file is re-read with the same fault.
        """
        if self._seen is not None:
            if message in self._seen:
                return
            self._seen.add(message)
        line = line_of(self._text, path) if self._text else 0
        self._problems.add(RunProblem(self.shown, line, message), self._new)

    @staticmethod
    def name(path: Sequence[str | int]) -> str:
        """``workers.2.context_usage``: a path as people read it."""
        return ".".join(str(p) for p in path)

    def _wrong(self, path: Sequence[str | int], wanted: str, value: Any) -> None:
        self.report(path, f'"{self.name(path)}" must be {wanted}, not {json_type(value)}')

    def string(self, obj: Mapping[str, Any], key: str, path: Sequence[str | int]) -> str | None:
        """``obj[key]`` when it is a string; None when absent or null (not reported) or else (reported)."""
        value = obj.get(key)
        if value is None or isinstance(value, str):
            return value
        self._wrong((*path, key), "a string", value)
        return None

    def plausible(self, path: Sequence[str | int], kind: str, value: float) -> bool:
        """Whether *value* is in the plausible range of *kind* (:mod:`.plausible`); reported when not."""
        why = implausible(kind, value)
        if why is not None:
            self.report(path, f'"{self.name(path)}" {why}; left out')
        return why is None

    def integer(self, obj: Mapping[str, Any], key: str, path: Sequence[str | int], *, kind: str) -> int | None:
        """``obj[key]`` when it is a whole number (a float like 3.0 counts) in the range of *kind*."""
        value = obj.get(key)
        if value is None:
            return None
        fraction = isinstance(value, float) and not value.is_integer()
        if isinstance(value, bool) or not isinstance(value, int | float) or fraction:
            self._wrong((*path, key), "a whole number", value)
            return None
        if not self.plausible((*path, key), kind, value):
            return None
        return int(value)

    def number(self, obj: Mapping[str, Any], key: str, path: Sequence[str | int], *, kind: str) -> float | None:
        """``obj[key]`` when it is a number in the range of *kind*."""
        value = obj.get(key)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int | float):
            self._wrong((*path, key), "a number", value)
            return None
        if not self.plausible((*path, key), kind, value):
            return None
        return float(value)

    def mapping(self, obj: Mapping[str, Any], key: str, path: Sequence[str | int]) -> Mapping[str, Any] | None:
        """``obj[key]`` when it is an object; None when absent or null (not reported) or else (reported)."""
        value = obj.get(key)
        if value is None or isinstance(value, dict):
            return value
        self._wrong((*path, key), "an object", value)
        return None

    def array(self, obj: Mapping[str, Any], key: str, path: Sequence[str | int]) -> list[Any] | None:
        """``obj[key]`` when it is an array; None when absent or null (not reported) or else (reported)."""
        value = obj.get(key)
        if value is None or isinstance(value, list):
            return value
        self._wrong((*path, key), "an array", value)
        return None

    def time(self, obj: Mapping[str, Any], key: str, path: Sequence[str | int], *, naive_is_utc: bool) -> float | None:
        """Epoch seconds of the ISO time ``obj[key]``; a string that is not one is reported."""
        text = self.string(obj, key, path)
        if text is None:
            return None
        seconds = parse_time(text, naive_is_utc=naive_is_utc)
        if seconds is None:
            self.report((*path, key), f'"{self.name((*path, key))}" is not an ISO-8601 time: {short(text)}')
            return None
        return seconds if self.plausible((*path, key), TIME, seconds) else None


@dataclass(frozen=True, slots=True)
class DocumentRead:
    """What one :meth:`JsonDocument.poll` found."""

    changed: bool
    """The file was read and parsed again (its signature changed) and gave a usable document."""
    data: Any
    """The parsed document (the last good one when this read failed), or None before any."""
    text: str
    """Its text, to locate values (see :func:`line_of`)."""
    problems: tuple[RunProblem, ...]


class JsonDocument:
    """One JSON document of a run, re-read whole when its signature changes."""

    def __init__(self, fs: ProjectFS, rel: str, shown: str, problems: ProblemList, *, vanishes: bool = False) -> None:
        #: A file its writer deletes as a matter of course (a heartbeat): its going is not reported.
        self.vanishes = vanishes
        self.fs = fs
        self.rel = rel
        self.shown = shown
        self.problems = problems
        self._signature: tuple[int, int, int, int] | None = None
        self._data: Any = None
        self._text = ""
        self._trouble: str | None = None  # the file-level problem reported last (not repeated)
        self.reads = 0

    @property
    def modified(self) -> int | None:
        """The modification time (ns) of the file as last seen, or None."""
        return None if self._signature is None else self._signature[2]

    def _file_problem(self, message: str, new: list[RunProblem], line: int = 0) -> None:
        if message != self._trouble:
            self._trouble = message
            self.problems.add(RunProblem(self.shown, line, message), new)

    def poll(self) -> DocumentRead:
        """Read and parse the file again if its signature changed."""
        new: list[RunProblem] = []
        st = self.fs.lstat(self.rel)
        if st is None:
            refused = self.fs.refusal(self.rel)
            if refused is not None:
                self._file_problem(refused.detail, new)
            elif self._signature is not None and not self.vanishes:
                self._file_problem("no longer there; showing what was read last", new)
            self._signature = None
            return DocumentRead(False, self._data, self._text, tuple(new))
        signature = (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
        if signature == self._signature:
            return DocumentRead(False, self._data, self._text, ())
        self._signature = signature
        if not stat.S_ISREG(st.st_mode):  # a pipe, a device, a folder: never opened
            self._file_problem(f"not read: {file_kind(st.st_mode)}, not a file", new)
            return DocumentRead(False, self._data, self._text, tuple(new))
        raw, failed = self.fs.read_bytes(self.rel)
        if failed is not None or raw is None:
            self._file_problem(failed.detail if failed is not None else "cannot be read", new)
            return DocumentRead(False, self._data, self._text, tuple(new))
        self.reads += 1
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            line, detail = utf8_error_line(raw, exc)
            self._file_problem(detail, new, line)
            return DocumentRead(False, self._data, self._text, tuple(new))
        if text.startswith(_BOM):
            text = text[1:]
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            message = f"not JSON ({exc.msg} at column {exc.colno}); showing what was read last"
            self._file_problem(message, new, exc.lineno)
            return DocumentRead(False, self._data, self._text, tuple(new))
        except RecursionError:
            self._file_problem("not JSON (nested too deeply); showing what was read last", new)
            return DocumentRead(False, self._data, self._text, tuple(new))
        except ValueError:  # a number of more digits than Python converts (4,300)
            self._file_problem("not JSON (a number too long to read); showing what was read last", new)
            return DocumentRead(False, self._data, self._text, tuple(new))
        self._trouble = None
        self._data, self._text = data, text
        return DocumentRead(True, data, text, tuple(new))
