"""Follow a running worker's JSON-lines event log and fold it into a ContextTracker.

:class:`EventLogFollower` reads what was appended since its last
:meth:`~EventLogFollower.poll` and feeds each event to a
:class:`~ctxviewer.engine.runtime.tracker.ContextTracker` whose clock is the log's latest
timestamp.  Each poll runs three stages, a module each: :mod:`.tail` (what was appended,
and whether to read from the start again) -> :mod:`.lines` (complete lines parsed into
events) -> :mod:`.fold` (each event fed to the tracker); :mod:`.follower` runs them.  It
never raises on bad input and never blocks; the format is in docs/event-log.md#format and
what each change to the file does in docs/event-log.md#how-the-file-is-followed.
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
