"""The follower: a log's three stages -- tailing, lines, folding -- run on each poll.

:meth:`EventLogFollower.poll` reads what was appended (:class:`~.tail.LogTail`), cuts it
into lines and parses each (:mod:`.lines`), and folds the events into the tracker
(:class:`~.fold.UsageFold`); a restart voids the lines and the fold.  It never raises on
bad input and never blocks: a missing file means "waiting", a bad line is a
:class:`LogProblem`.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from ctxviewer.engine.files.tail import Line
from ctxviewer.engine.runtime.eventlog.fold import LiveUsage, UsageFold
from ctxviewer.engine.runtime.eventlog.lines import BadLine, Event, parse_line
from ctxviewer.engine.runtime.eventlog.tail import LogTail, Missing, Unreadable
from ctxviewer.engine.wording import plural

MAX_STORED_PROBLEMS = 1000
"""At most this many problems are kept (and reported) per run; the rest are only counted."""


@dataclass(frozen=True, slots=True)
class LogProblem:
    """Something in the log (or about the file) that could not be used."""

    line: int
    """The 1-based line it concerns, or 0 when it is about the file as a whole."""
    message: str
    """One line for the user, e.g. ``line 7: not JSON (Expecting ',' delimiter at column 31)``."""


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
        self._tail = LogTail(self.path, read_limit, max_line_bytes)
        self._start_over()

    # -- state --------------------------------------------------------------------------

    def _start_over(self) -> None:
        """Forget the events and the problems (not the file, not ``_last_error``; a file read
        again from its start has lines of its own)."""
        self._fold = UsageFold(self.threshold_percent, self.max_tokens)
        self._problems: list[LogProblem] = []
        self._problem_count = 0

    def reset(self) -> None:
        """Forget everything; the next poll reads the file again from the start."""
        self._last_error = None
        self._tail.reset()
        self._start_over()

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
        return self._fold.usage

    # -- polling ------------------------------------------------------------------------

    def poll(self) -> PollResult:
        """Read what was appended since the last poll and fold its events in."""
        read = self._tail.read()
        if isinstance(read, Missing):
            self._last_error = None
            if read.vanished:
                gone = f"it was deleted after {plural(self._fold.events, 'event')}"
                return PollResult((), (), False, f"waiting for {self.path} to reappear ({gone})", False)
            return PollResult((), (), False, f"waiting for {self.path} to appear", False)
        problems: list[LogProblem] = []
        if read.restart is not None:
            self._start_over()
            self._problem(LogProblem(0, f"{self.path}: {read.restart}, re-reading from the start"), problems)
        if isinstance(read, Unreadable):
            return self._failure(read.message, problems, read.restart is not None)
        self._last_error = None
        lines = self._tail.lines
        events = [] if lines is None else self._take(lines.feed(read.data), problems)
        return PollResult(tuple(events), tuple(problems), read.restart is not None, self._status(read.more), read.more)

    def finish(self) -> PollResult:
        """Take a held-back last line (no newline yet) as complete and fold it in.

        For a log the writer is done with, e.g. ``ctxviewer follow --once``: nothing more
        will arrive to complete it.  A following :meth:`poll` continues after it.
        """
        problems: list[LogProblem] = []
        lines = self._tail.lines
        last = None if lines is None else lines.finish()
        events = self._take([] if last is None else [last], problems)
        return PollResult(tuple(events), tuple(problems), False, f"finished {self.path}", False)

    def _take(self, lines: Iterable[Line], problems: list[LogProblem]) -> list[Event]:
        """Parse each line and fold its event in; a bad line is a problem."""
        events: list[Event] = []
        for line in lines:
            if line.too_long:
                self._problem(
                    LogProblem(line.number, f"line {line.number}: longer than {self.max_line_bytes:,} bytes"), problems
                )
                continue
            try:
                event = parse_line(line.raw, line.number)
            except BadLine as exc:
                self._problem(LogProblem(line.number, f"line {line.number}: {exc}"), problems)
                continue
            if event is not None:
                self._fold.fold(event)
                events.append(event)
        return events

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
        text = f"following {self.path}: {plural(self._fold.events, 'event')}"
        if self._problem_count:
            text += f", {plural(self._problem_count, 'problem')}"
            if self._problem_count > len(self._problems):
                text += f" (first {len(self._problems):,} kept)"
        if more:
            text += "; reading on"
        return text
