"""The worker lane: one current job, newer cancels older, every outcome reported once."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator

import pytest

from ctxviewer.engine.errors import ProjectError
from ctxviewer.gui.worker import Lane, RunState, describe_error, make_pool

Progress = Callable[[str, float], None]


@pytest.fixture
def lane(qtbot) -> Iterator[Lane]:
    pool = make_pool(2)
    lane = Lane(pool, "test")
    yield lane
    lane.cancel()
    assert pool.waitForDone(10_000)


def test_a_job_reports_its_result_and_goes_done(qtbot, lane: Lane) -> None:
    states: list[RunState] = []
    lane.stateChanged.connect(states.append)
    with qtbot.waitSignal(lane.finished, timeout=5_000) as blocker:
        lane.submit(lambda cancel, progress: 6 * 7)
    assert blocker.args == [42]
    assert lane.state is RunState.DONE
    assert states[0] is RunState.PENDING and states[-1] is RunState.DONE
    qtbot.waitUntil(lambda: lane.running_jobs() == 0)


def test_progress_arrives_in_order_before_the_result(qtbot, lane: Lane) -> None:
    seen: list[tuple[str, float]] = []
    lane.progress.connect(lambda stage, f: seen.append((stage, f)))

    def job(cancel: threading.Event, progress: Progress) -> str:
        for n in range(1, 4):
            progress(f"stage{n}", n / 3)
        return "ok"

    with qtbot.waitSignal(lane.finished, timeout=5_000):
        lane.submit(job)
    assert seen == [("stage1", 1 / 3), ("stage2", 2 / 3), ("stage3", 1.0)]


def test_a_quiet_lane_reports_no_progress_before_its_job_has_run_a_while(qtbot) -> None:  # type: ignore[no-untyped-def]
    pool = make_pool(1)
    lane = Lane(pool, "quiet", quiet_ms=50)
    seen: list[str] = []
    lane.progress.connect(lambda stage, _f: seen.append(stage))

    def job(cancel: threading.Event, progress: Progress) -> str:
        progress("at once", 0.1)  # a quick job's steps cost the GUI thread nothing
        threading.Event().wait(0.08)  # the job's own work, past the quiet time
        progress("later", 0.9)
        return "ok"

    with qtbot.waitSignal(lane.finished, timeout=5_000):
        lane.submit(job)
    assert seen == ["later"]
    assert pool.waitForDone(10_000)


def test_a_newer_job_cancels_the_older_and_only_the_newer_result_arrives(qtbot, lane: Lane) -> None:
    started = threading.Event()
    release = threading.Event()
    first_saw_cancel = threading.Event()

    def slow(cancel: threading.Event, progress: Progress) -> str:
        started.set()
        release.wait(5)
        if cancel.is_set():
            first_saw_cancel.set()
        progress("after-wait", 1.0)  # raises Cancelled inside the job once cancelled
        return "old"

    results: list[object] = []
    lane.finished.connect(results.append)
    lane.submit(slow)
    assert started.wait(5)
    with qtbot.waitSignal(lane.finished, timeout=5_000) as blocker:
        lane.submit(lambda cancel, progress: "new")
    release.set()
    assert blocker.args == ["new"]
    qtbot.waitUntil(lambda: lane.running_jobs() == 0, timeout=5_000)
    assert first_saw_cancel.is_set()
    assert results == ["new"]


def test_cancel_stops_a_running_job_at_its_next_checkpoint(qtbot, lane: Lane) -> None:
    started = threading.Event()

    def loop(cancel: threading.Event, progress: Progress) -> None:
        started.set()
        while True:
            progress("tick", 0.5)
            cancel.wait(0.01)

    with qtbot.assertNotEmitted(lane.finished), qtbot.waitSignal(lane.cancelled, timeout=5_000):
        lane.submit(loop)
        assert started.wait(5)
        lane.cancel()
    assert lane.state is RunState.CANCELLED
    qtbot.waitUntil(lambda: lane.running_jobs() == 0, timeout=5_000)


def test_an_engine_error_is_reported_in_its_own_words(qtbot, lane: Lane) -> None:
    def boom(cancel: threading.Event, progress: Progress) -> None:
        raise ProjectError("task-graph.json: not valid JSON", ".gsd/specs/x/task-graph.json", 3)

    with qtbot.waitSignal(lane.errored, timeout=5_000) as blocker:
        lane.submit(boom)
    assert blocker.args[0] == str(ProjectError("task-graph.json: not valid JSON", ".gsd/specs/x/task-graph.json", 3))
    assert lane.state is RunState.ERROR


def test_a_bug_is_reported_with_its_type_and_place_not_swallowed(qtbot, lane: Lane) -> None:
    def bug(cancel: threading.Event, progress: Progress) -> None:
        {}["missing"]

    with qtbot.waitSignal(lane.errored, timeout=5_000) as blocker:
        lane.submit(bug)
    message = blocker.args[0]
    assert message.startswith("internal error: KeyError: 'missing'")
    assert "test_worker.py:" in message


def test_describe_error_without_traceback() -> None:
    assert describe_error(ValueError("x")) == "internal error: ValueError: x"
