"""The worker's ContextTracker: estimated usage against the checkpoint threshold.

Constants and formulas are the reproduced system's:

====================  =======================================
file content          ``int(size_bytes * 0.25)`` per file read
file read overhead    ``100`` per file read
task context          ``500`` per task executed
tool calls            ``50`` per call
conversation growth   ``int(elapsed_minutes * 100)``
====================  =======================================

``should_checkpoint`` is ``usage_percent >= threshold_percent`` with
``usage_percent = estimated / max_tokens * 100`` (200,000 by default).  The clock is
injectable (a function returning seconds), so replays and tests never sleep.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

TOKENS_PER_CHAR = 0.25
TOKENS_PER_FILE_READ = 100
TOKENS_PER_TASK = 500
TOKENS_PER_TOOL_CALL = 50
TOKENS_PER_MINUTE = 100
MAX_CONTEXT_TOKENS = 200_000
MIN_TASK_BUDGET = 500


@dataclass(frozen=True, slots=True)
class ContextUsage:
    """A snapshot of the tracker, as ``ContextTracker.get_usage()`` returns it."""

    estimated_tokens: int
    threshold_percent: float
    files_read: int
    tasks_executed: int
    tool_calls: int
    max_tokens: int = MAX_CONTEXT_TOKENS
    elapsed_minutes: float = 0.0

    @property
    def usage_percent(self) -> float:
        return (self.estimated_tokens / self.max_tokens) * 100

    @property
    def is_over_threshold(self) -> bool:
        return self.usage_percent >= self.threshold_percent


def file_read_tokens(size: int) -> int:
    """Tokens the tracker charges for reading a file of *size* bytes."""
    return int(size * TOKENS_PER_CHAR) + TOKENS_PER_FILE_READ


def budget_for_task(total_budget_tokens: int, task_files: Sequence[Any]) -> int:
    """Per-task budget: ``total // max(files, 1)`` clamped to ``[500, total]``."""
    file_count = max(len(task_files), 1)
    base = total_budget_tokens // file_count
    return max(MIN_TASK_BUDGET, min(base, total_budget_tokens))


class ContextTracker:
    """Heuristic token usage of one worker session."""

    def __init__(
        self,
        threshold_percent: float = 70.0,
        max_tokens: int = MAX_CONTEXT_TOKENS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.threshold_percent = threshold_percent
        self.max_tokens = max_tokens
        self._clock = clock
        self._started = clock()
        self.files: list[tuple[str, int]] = []
        self.tasks: list[str] = []
        self.tool_calls = 0

    def track_file_read(self, path: str, size: int) -> None:
        self.files.append((path, size))

    def track_task_execution(self, task_id: str) -> None:
        self.tasks.append(task_id)

    def track_tool_call(self, count: int = 1) -> None:
        self.tool_calls += count

    def elapsed_minutes(self) -> float:
        return max(0.0, (self._clock() - self._started) / 60)

    def estimate_tokens(self) -> int:
        tokens = sum(file_read_tokens(size) for _, size in self.files)
        tokens += len(self.tasks) * TOKENS_PER_TASK
        tokens += self.tool_calls * TOKENS_PER_TOOL_CALL
        tokens += int(self.elapsed_minutes() * TOKENS_PER_MINUTE)
        return tokens

    def get_usage(self) -> ContextUsage:
        return ContextUsage(
            estimated_tokens=self.estimate_tokens(),
            threshold_percent=self.threshold_percent,
            files_read=len(self.files),
            tasks_executed=len(self.tasks),
            tool_calls=self.tool_calls,
            max_tokens=self.max_tokens,
            elapsed_minutes=self.elapsed_minutes(),
        )

    def should_checkpoint(self) -> bool:
        return self.get_usage().is_over_threshold

    def reset(self) -> None:
        self.files.clear()
        self.tasks.clear()
        self.tool_calls = 0
        self._started = self._clock()
