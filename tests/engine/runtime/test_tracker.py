"""The worker's ContextTracker, with an injected clock (no sleeping).

Rules under test (the reference ``ContextTracker``):

* ``int(size * 0.25) + 100`` per file read, 500 per task, 50 per tool call,
  ``int(elapsed_minutes * 100)`` for conversation growth;
* ``usage% = estimated / max_tokens * 100``; checkpoint when ``usage% >= threshold``;
* ``budget_for_task = max(500, min(total // max(len(files), 1), total))``.
"""

from __future__ import annotations

import pytest

from ctxviewer.engine.runtime.tracker import ContextTracker, budget_for_task, file_read_tokens


class FakeClock:
    """Seconds, moved by hand."""

    def __init__(self, start: float = 1000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.mark.parametrize(
    ("size", "tokens"),
    [
        (0, 100),  # int(0) + 100
        (3, 100),  # int(0.75) = 0
        (4, 101),  # int(1.0) = 1
        (10, 102),  # int(2.5) = 2
        (1001, 350),  # int(250.25) = 250
    ],
)
def test_file_read_tokens(size: int, tokens: int) -> None:
    assert file_read_tokens(size) == tokens


def test_fresh_tracker_estimates_zero() -> None:
    tracker = ContextTracker(clock=FakeClock())
    assert tracker.estimate_tokens() == 0
    assert tracker.should_checkpoint() is False


def test_estimate_adds_files_tasks_tool_calls_and_elapsed_time() -> None:
    clock = FakeClock()
    tracker = ContextTracker(clock=clock)
    tracker.track_file_read("a.py", 400)  # 100 + 100 = 200
    tracker.track_file_read("b.py", 10)  # 2 + 100 = 102
    tracker.track_task_execution("T1")
    tracker.track_task_execution("T2")  # 2 * 500 = 1000
    tracker.track_tool_call()
    tracker.track_tool_call(2)  # 3 * 50 = 150
    clock.advance(90)  # 1.5 minutes -> int(150.0) = 150
    # 200 + 102 + 1000 + 150 + 150 = 1602
    assert tracker.estimate_tokens() == 1602
    usage = tracker.get_usage()
    assert usage.estimated_tokens == 1602
    assert (usage.files_read, usage.tasks_executed, usage.tool_calls) == (2, 2, 3)
    assert usage.elapsed_minutes == pytest.approx(1.5)
    # 1602 / 200000 * 100 = 0.801
    assert usage.usage_percent == pytest.approx(0.801)


def test_elapsed_time_is_truncated_not_rounded() -> None:
    clock = FakeClock()
    tracker = ContextTracker(clock=clock)
    clock.advance(59)  # 59 / 60 min * 100 = 98.33 -> 98
    assert tracker.estimate_tokens() == 98
    clock.advance(1)  # exactly 1 minute -> 100
    assert tracker.estimate_tokens() == 100


def test_the_clock_starts_when_the_tracker_is_made() -> None:
    clock = FakeClock(start=5000.0)
    tracker = ContextTracker(clock=clock)
    clock.advance(600)  # 10 minutes since creation -> 1000 (not 5600 s since 0)
    assert tracker.estimate_tokens() == 1000


def test_checkpoint_at_exactly_the_threshold() -> None:
    # threshold 50% of 200,000 = 100,000 tokens
    tracker = ContextTracker(threshold_percent=50.0, clock=FakeClock())
    for i in range(199):
        tracker.track_task_execution(f"T{i}")  # 199 * 500 = 99,500
    tracker.track_tool_call(9)  # + 450 = 99,950 -> 49.975%
    assert tracker.estimate_tokens() == 99_950
    assert tracker.should_checkpoint() is False
    tracker.track_tool_call()  # + 50 = 100,000 -> 50.0%, >= threshold
    assert tracker.get_usage().usage_percent == 50.0
    assert tracker.should_checkpoint() is True


def test_default_threshold_is_seventy_percent_of_two_hundred_thousand() -> None:
    clock = FakeClock()
    tracker = ContextTracker(clock=clock)
    clock.advance(60 * 1399)  # 1399 minutes -> 139,900 tokens = 69.95%
    assert tracker.should_checkpoint() is False
    clock.advance(60)  # 1400 minutes -> 140,000 tokens = 70%
    assert tracker.estimate_tokens() == 140_000
    assert tracker.should_checkpoint() is True


def test_usage_percent_uses_the_trackers_max_tokens() -> None:
    tracker = ContextTracker(threshold_percent=60.0, max_tokens=1000, clock=FakeClock())
    tracker.track_task_execution("T1")  # 500 / 1000 -> 50%
    assert tracker.get_usage().usage_percent == 50.0
    assert tracker.should_checkpoint() is False
    tracker.track_tool_call(2)  # 600 / 1000 -> 60%
    assert tracker.should_checkpoint() is True


def test_reset_clears_everything_and_restarts_the_clock() -> None:
    clock = FakeClock()
    tracker = ContextTracker(clock=clock)
    tracker.track_file_read("a", 40)
    tracker.track_task_execution("T")
    tracker.track_tool_call(4)
    clock.advance(120)
    assert tracker.estimate_tokens() == 110 + 500 + 200 + 200
    tracker.reset()
    assert tracker.estimate_tokens() == 0
    clock.advance(30)  # half a minute after the reset -> 50
    assert tracker.estimate_tokens() == 50


# -- budget_for_task -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("total", "files", "budget"),
    [
        (4000, [], 4000),  # max(0, 1) = 1 file -> 4000
        (4000, ["a"], 4000),
        (4000, ["a", "b"], 2000),
        (4000, ["a", "b", "c"], 1333),  # 4000 // 3
        (4000, [str(i) for i in range(10)], 500),  # 400 -> raised to 500
        (1001, ["a", "b"], 500),  # 500
        (1003, ["a", "b"], 501),  # 501
        (300, [], 500),  # below the floor even with one file: 500 wins over total
    ],
)
def test_budget_for_task(total: int, files: list[str], budget: int) -> None:
    assert budget_for_task(total, files) == budget
