"""The range each kind of figure in a run's files can take: one table, one check, for every reader.

Every number and time the readers take from a run goes through :func:`implausible` with its
kind; one outside its range is a problem naming the file and field, and reads as absent.  The
table: ``docs/run-files.md#state-files-and-token-records`` (Figures out of any real run's range).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

#: Seconds in a (leap) year: the longest duration taken.
YEAR_SECONDS = 366 * 24 * 3600

#: The kinds of figure, by name (the values of :data:`PLAUSIBLE`).
USAGE = "usage"
COUNT = "count"
TOKENS = "tokens"
PERCENT = "percent"
TIME = "time"
DURATION_MS = "duration_ms"


@dataclass(frozen=True, slots=True)
class Span:
    """The plausible range of one kind of figure, both ends included."""

    low: float
    high: float
    shown: str
    """The range as a person reads it, for the problem's message."""


#: Every kind of figure a run's files hold, and its plausible range.
PLAUSIBLE: dict[str, Span] = {
    # A fraction (upstream writes usage_percent / 100): 10 is 1,000 %, more than any real run shows.
    USAGE: Span(0.0, 10.0, "0 to 10 (1,000 %)"),
    COUNT: Span(0, 1_000_000_000, "0 to 1,000,000,000"),
    TOKENS: Span(0, 1_000_000_000, "0 to 1,000,000,000"),
    PERCENT: Span(0, 100, "0 to 100"),
    # Epoch seconds (an ISO time is taken as its epoch seconds).
    TIME: Span(
        datetime(2000, 1, 1, tzinfo=UTC).timestamp(),
        datetime(2100, 1, 1, tzinfo=UTC).timestamp(),
        "the years 2000 to 2100",
    ),
    DURATION_MS: Span(0, YEAR_SECONDS * 1000, "0 ms to a year"),
}


def implausible(kind: str, value: float) -> str | None:
    """Why *value* cannot be a figure of *kind* (a key of :data:`PLAUSIBLE`), or None when it can.

    The reason completes a sentence about the field: ``is 1e+308, outside 0 to 10 (1,000 %)``.
    A value that is not a finite number (nan, an infinity) is never plausible.
    """
    span = PLAUSIBLE[kind]
    if span.low <= value <= span.high:  # False for nan
        return None
    return f"is {_shown(kind, value)}, outside {span.shown}"


def iso(moment: float | None) -> str | None:
    """*moment* (epoch seconds) as ``2026-02-16T12:30:00Z``, microseconds when it has them
    (None when there is none or it is no date)."""
    if moment is None:
        return None
    try:
        return datetime.fromtimestamp(moment, UTC).isoformat().replace("+00:00", "Z")
    except (OverflowError, OSError, ValueError):
        return None


def _shown(kind: str, value: float) -> str:
    if kind == TIME and (moment := iso(value)) is not None:
        return moment
    if isinstance(value, int) and abs(value) >= 10**15:  # never thousands of digits
        try:
            return f"{float(value):g}"
        except OverflowError:
            return "over 1e+308" if value > 0 else "under -1e+308"
    return f"{value:g}" if isinstance(value, float) else str(value)
