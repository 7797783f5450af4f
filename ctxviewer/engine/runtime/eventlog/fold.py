"""Stage 3, folding: each event fed to a :class:`~ctxviewer.engine.runtime.tracker.ContextTracker`.

The tracker's clock is the log's latest timestamp, so the live estimate is exactly what
the tracker reports for the same calls; the estimate after each event is kept for
plotting, with the first event after which a checkpoint was due.
"""

from __future__ import annotations

from dataclasses import dataclass

from ctxviewer.engine.runtime.eventlog.lines import FILE_READ, TASK_EXECUTED, Event
from ctxviewer.engine.runtime.tracker import (
    TOKENS_PER_MINUTE,
    TOKENS_PER_TASK,
    TOKENS_PER_TOOL_CALL,
    ContextTracker,
    ContextUsage,
    file_read_tokens,
)


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


class UsageFold:
    """The events of one read of the log (since its start or the last restart), folded in order."""

    def __init__(self, threshold_percent: float, max_tokens: int) -> None:
        self.threshold_percent = threshold_percent
        self.max_tokens = max_tokens
        self.tracker: ContextTracker | None = None
        self.latest_ts = 0.0
        self.static_tokens = 0  # everything but conversation growth, added up per event
        self.events = 0
        self.last_task: str | None = None
        self.first_checkpoint: int | None = None
        self.history: list[tuple[float, int]] = []
        self._usage: LiveUsage | None = None

    def _clock(self) -> float:
        return self.latest_ts

    def fold(self, event: Event) -> None:
        """Feed *event* to the tracker and record the estimate after it."""
        if self.tracker is None:
            self.latest_ts = event.ts
            self.tracker = ContextTracker(self.threshold_percent, self.max_tokens, clock=self._clock)
        self.latest_ts = max(self.latest_ts, event.ts)
        tracker = self.tracker
        if event.kind == TASK_EXECUTED:
            assert event.task_id is not None
            tracker.track_task_execution(event.task_id)
            self.static_tokens += TOKENS_PER_TASK
            self.last_task = event.task_id
        elif event.kind == FILE_READ:
            assert event.path is not None and event.size is not None
            tracker.track_file_read(event.path, event.size)
            self.static_tokens += file_read_tokens(event.size)
        else:
            tracker.track_tool_call(event.count)
            self.static_tokens += event.count * TOKENS_PER_TOOL_CALL
        # The tracker's estimate_tokens(), added up incrementally instead of re-summed per event.
        minutes = tracker.elapsed_minutes()
        tokens = self.static_tokens + int(minutes * TOKENS_PER_MINUTE)
        self.history.append((minutes, tokens))
        self.events += 1
        self._usage = None
        if self.first_checkpoint is None:
            snapshot = ContextUsage(tokens, self.threshold_percent, 0, 0, 0, self.max_tokens, minutes)
            if snapshot.is_over_threshold:
                self.first_checkpoint = len(self.history) - 1

    @property
    def usage(self) -> LiveUsage:
        """The live estimate after every event folded in so far."""
        if self._usage is None:
            self._usage = self._snapshot()
        return self._usage

    def _snapshot(self) -> LiveUsage:
        if self.tracker is None:
            snapshot = ContextUsage(0, self.threshold_percent, 0, 0, 0, self.max_tokens, 0.0)
        else:
            # The estimate after the last event is already in the history (the tracker's
            # own estimate_tokens() would re-add every file read: O(reads) per call).
            minutes, tokens = self.history[-1]
            snapshot = ContextUsage(
                estimated_tokens=tokens,
                threshold_percent=self.threshold_percent,
                files_read=len(self.tracker.files),
                tasks_executed=len(self.tracker.tasks),
                tool_calls=self.tracker.tool_calls,
                max_tokens=self.max_tokens,
                elapsed_minutes=minutes,
            )
        return LiveUsage(
            estimated_tokens=snapshot.estimated_tokens,
            max_tokens=snapshot.max_tokens,
            threshold_percent=snapshot.threshold_percent,
            usage_percent=snapshot.usage_percent,
            is_over_threshold=snapshot.is_over_threshold,
            files_read=snapshot.files_read,
            tasks_executed=snapshot.tasks_executed,
            tool_calls=snapshot.tool_calls,
            elapsed_minutes=snapshot.elapsed_minutes,
            events=self.events,
            last_task=self.last_task,
            first_checkpoint=self.first_checkpoint,
            history=tuple(self.history),
        )
