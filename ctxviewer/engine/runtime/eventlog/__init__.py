"""Follow a running worker's JSON-lines event log and fold it into a ContextTracker.

A worker appends one JSON object per line to a log file (the format is described in
``docs/event-log.md``).  :class:`EventLogFollower` reads what was appended since its
last :meth:`~EventLogFollower.poll` and feeds each event to a
:class:`~ctxviewer.engine.runtime.tracker.ContextTracker` whose clock is the log's latest
timestamp, so the live estimate is exactly what the tracker reports for the same calls.

Each poll runs three stages, a module each, each readable and testable alone:
:mod:`.tail` (what was appended, and whether the file must be read from the start
again, over the engine's :mod:`ctxviewer.engine.files.tail`) -> :mod:`.lines` (complete
lines parsed into events) -> :mod:`.fold` (each event fed to the tracker);
:mod:`.follower` runs them.

The follower is written for a GUI that polls it on a timer:

* it never raises on bad input and never blocks: a missing file means "waiting", a bad
  line is a :class:`LogProblem`, and each poll reads at most ``read_limit`` bytes;
* the file is opened, read and closed on every poll, so a writer that rotates or
  replaces it (or a platform that locks open files) is not disturbed;
* a last line without its newline is held back until the newline arrives;
* a truncated, replaced or deleted-and-recreated file resets the state and is read
  again from the start (``PollResult.restarted``).
"""

from ctxviewer.engine.runtime.eventlog.fold import LiveUsage, UsageFold
from ctxviewer.engine.runtime.eventlog.follower import MAX_STORED_PROBLEMS, EventLogFollower, LogProblem, PollResult
from ctxviewer.engine.runtime.eventlog.lines import (
    EVENT_KINDS,
    FILE_READ,
    MAX_INT_FIELD,
    MAX_TS,
    TASK_EXECUTED,
    TOOL_CALL,
    BadLine,
    Event,
    is_event_log_head,
    parse_line,
)
from ctxviewer.engine.runtime.eventlog.tail import Appended, LogTail, Missing, Unreadable, is_event_log

__all__ = [
    "EVENT_KINDS",
    "FILE_READ",
    "MAX_INT_FIELD",
    "MAX_STORED_PROBLEMS",
    "MAX_TS",
    "TASK_EXECUTED",
    "TOOL_CALL",
    "Appended",
    "BadLine",
    "Event",
    "EventLogFollower",
    "LiveUsage",
    "LogProblem",
    "LogTail",
    "Missing",
    "PollResult",
    "Unreadable",
    "UsageFold",
    "is_event_log",
    "is_event_log_head",
    "parse_line",
]
