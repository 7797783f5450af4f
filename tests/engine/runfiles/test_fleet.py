"""The fleet of a run: recorded gauges, threshold, zones, the tracker's estimate, events."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from ctxviewer.engine.runfiles.fleet import RunWatcher, follow_run, read_run
from ctxviewer.engine.runfiles.fleetconfig import FleetConfig, read_fleet_config, upstream_band, zone_of
from ctxviewer.engine.runfiles.realtracker import TrackerPoint, tracker_estimate, tracker_timeline
from ctxviewer.engine.runfiles.rundir import discover_run
from tests.engine.runfiles.fleet_project import at, done, line, write_fleet_project

pytestmark = pytest.mark.usefixtures("utc_local_time")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return write_fleet_project(tmp_path)


def test_config_threshold_and_zones(project: Path) -> None:
    config, problems = read_fleet_config(discover_run(project))
    assert config == FleetConfig(80.0, ".zerg/config.yaml", (("compaction", 75.0),))
    assert config.all_zones == (("compaction", 75.0), ("checkpoint", 80.0)) and problems == ()


def test_config_defaults_and_bad_values(tmp_path: Path) -> None:
    (tmp_path / ".zerg" / "state").mkdir(parents=True)
    (tmp_path / ".zerg" / "state" / "shop.json").write_text('{"workers": {}}')
    assert read_fleet_config(discover_run(tmp_path)) == (FleetConfig(), ())  # no config: upstream's 70
    (tmp_path / ".zerg" / "config.yaml").write_text("workers:\n  context_threshold_percent: high\n")
    config, problems = read_fleet_config(discover_run(tmp_path))
    assert config.threshold_percent == 70 and config.threshold_origin == "default"
    assert len(problems) == 1 and problems[0].file == ".zerg/config.yaml" and "default 70%" in problems[0].message
    (tmp_path / ".zerg" / "config.yaml").write_text("workers:\n  context_threshold_percent: 95\n")
    config, problems = read_fleet_config(discover_run(tmp_path))
    assert config.threshold_percent == 95
    assert [p.message for p in problems] == [
        "workers.context_threshold_percent 95 is outside the 50-90 upstream accepts"
    ]


def test_zones_bands_and_the_estimate_formula() -> None:
    config = FleetConfig(80.0, zones=(("compaction", 75.0),))
    assert [zone_of(p, config) for p in (10, 75, 79.9, 80, 100)] == [
        None,
        "compaction",
        "compaction",
        "checkpoint",
        "checkpoint",
    ]
    assert [upstream_band(u) for u in (0.70, 0.71, 0.85, 0.86)] == ["green", "yellow", "yellow", "red"]
    # 3 tasks and 90 minutes: 1,500 + 9,000 = 10,500 tokens = 5.25 % of 200,000.
    estimate = tracker_estimate(3, at(10, 0), at(11, 30))
    assert (estimate.tokens, estimate.percent, estimate.minutes) == (10_500, 5.25, 90.0)


def test_the_fleet_snapshot(project: Path) -> None:
    snapshot = RunWatcher(discover_run(project)).poll(now=at(12, 40))
    one, two, three, four = snapshot.workers
    assert (one.worker_id, one.status, one.context_usage, one.threshold_percent) == ("1", "checkpointing", 0.78, 80.0)
    assert (one.zone, one.band, one.tasks_done, one.tasks_in_process, one.checkpoints) == (
        "compaction",
        "yellow",
        3,
        2,
        1,
    )
    assert one.last_log == at(12, 30) and one.process_started == at(12, 0) and one.feature == "shop"
    # Checkpointing: the process ended; its clock stopped at its last line. 2 tasks, 30 min: 1,000 + 3,000.
    assert one.estimate is not None and (one.estimate.tokens, one.estimate.at) == (4_000, at(12, 30))
    # Running: the clock is now. 1 task, 100 min since 11:00: 500 + 10,000 = 10,500 = 5.25 %.
    assert (two.status, two.zone, two.band, two.current_task, two.last_heartbeat) == (
        "running",
        "checkpoint",
        "red",
        "T5",
        at(11, 50),
    )
    assert two.estimate is not None and (two.estimate.tokens, two.estimate.percent) == (10_500, 5.25) and not two.stale
    # No log: the process start and task count from the state file, the clock stopped at its last health check.
    assert (three.status, three.context_usage, three.zone, three.tasks_done) == ("crashed", None, None, 0)
    assert three.estimate is not None and three.estimate.tokens == 3 * 500 + 30 * 100
    # Only a log: no recorded status or gauge; 1 task, 20 minutes.
    assert (four.status, four.context_usage, four.feature) == (None, None, "shop")
    assert four.estimate is not None and four.estimate.tokens == 500 + 2_000
    assert [(log.file.rsplit("/", 1)[-1], log.records, log.tasks_executed) for log in snapshot.logs] == [
        ("worker-1.jsonl", 6, 3),
        ("worker-2.jsonl", 2, 1),
        ("worker-4.jsonl", 3, 1),
        ("worker-orchestrator.jsonl", 1, 0),
    ]
    assert [(e.time, e.worker_id, e.event, e.source) for e in snapshot.events] == [
        (at(8, 15), "4", "task_completed", "log"),
        (at(9, 0), "orchestrator", "level_started", "log"),
        (at(10, 10), "1", "task_completed", "log"),
        (at(11, 30), "2", "task_completed", "log"),
        (at(12, 5), "1", "task_completed", "log"),
        (at(12, 20), "1", "task_completed", "log"),
        (at(12, 30), "1", "worker_checkpoint", "state"),
    ]
    assert snapshot.new_events == snapshot.events and snapshot.problem_count == 0
    assert [r.task_id for r in snapshot.token_records[0].tasks] == ["T2"]


def test_a_poll_reads_only_what_changed(project: Path) -> None:
    watcher = RunWatcher(discover_run(project))
    watcher.poll(now=at(12, 40))
    log = project / ".zerg/logs/workers/worker-2.jsonl"
    with open(log, "a") as handle:
        handle.write(done(2, 12, 41, "T5"))
    snapshot = watcher.poll(now=at(12, 42))
    assert [(e.worker_id, e.task_id) for e in snapshot.new_events] == [("2", "T5")]
    two = snapshot.workers[1]
    # 2 tasks, 102 minutes since 11:00: 1,000 + 10,200.
    assert two.tasks_done == 2 and two.estimate is not None and two.estimate.tokens == 11_200
    quiet = watcher.poll(now=at(12, 43))
    assert quiet.new_events == () and not quiet.changed and quiet.sequence == 3
    # A line arriving late with an early time still lands in time order.
    with open(project / ".zerg/logs/workers/worker-4.jsonl", "a") as handle:
        handle.write(done(4, 8, 30, "T00"))
    late = watcher.poll(now=at(12, 44))
    times = [e.time for e in late.events]
    assert times == sorted(times) and late.events[1].task_id == "T00"


def test_a_worker_started_later_is_followed(project: Path) -> None:
    watcher = RunWatcher(discover_run(project))
    assert [w.worker_id for w in watcher.poll(now=at(12, 40)).workers] == ["1", "2", "3", "4"]
    (project / ".zerg/logs/workers/worker-5.jsonl").write_text(
        line(5, 12, 41, "Worker 5 starting for feature shop") + done(5, 12, 45, "T7")
    )
    snapshot = watcher.poll(now=at(12, 46))
    assert [w.worker_id for w in snapshot.workers] == ["1", "2", "3", "4", "5"]
    assert [(e.worker_id, e.task_id) for e in snapshot.new_events] == [("5", "T7")]
    # 1 task; its log's last line at 12:45 is its clock (no state entry): 500 + 4 minutes x 100.
    five = snapshot.workers[4]
    assert five.estimate is not None and five.estimate.tokens == 900


def test_a_worker_in_two_features_is_taken_from_the_newer_file(project: Path) -> None:
    older = {"feature": "cart", "workers": {"1": {"status": "stopped", "context_usage": 0.1}}}
    path = project / ".zerg/state/cart.json"
    path.write_text(json.dumps(older))
    os.utime(path, (at(9, 0), at(9, 0)))
    os.utime(project / ".zerg/state/shop.json", (at(12, 30), at(12, 30)))
    one = RunWatcher(discover_run(project)).poll(now=at(12, 40)).workers[0]
    assert (one.feature, one.status, one.context_usage) == ("shop", "checkpointing", 0.78)
    os.utime(path, (at(12, 35), at(12, 35)))  # cart's file is now the newer one
    one = RunWatcher(discover_run(project)).poll(now=at(12, 40)).workers[0]
    assert (one.feature, one.status, one.context_usage) == ("cart", "stopped", 0.1)


def test_a_silent_live_worker_is_stale_and_its_clock_stops(project: Path) -> None:
    # 13:00: worker 2's last sign of life (its health check at 11:50) is 70 minutes old.
    two = RunWatcher(discover_run(project)).poll(now=at(13, 0)).workers[1]
    assert two.stale and two.estimate is not None
    # The clock stopped at its last log line (11:30): 500 + 3,000.
    assert two.estimate.at == at(11, 30) and two.estimate.tokens == 3_500


def test_a_truncated_log_is_counted_again(project: Path) -> None:
    watcher = RunWatcher(discover_run(project))
    watcher.poll(now=at(12, 40))
    log = project / ".zerg/logs/workers/worker-1.jsonl"
    log.write_text(line(1, 13, 0, "Worker 1 starting for feature shop"))
    snapshot = watcher.poll(now=at(13, 1))
    one = snapshot.workers[0]
    assert one.tasks_done == 0 and one.process_started == at(13, 0)
    assert [p.message for p in snapshot.new_problems] == ["was truncated; read again from the start"]
    assert snapshot.problem_count == 1


def test_read_run_takes_a_torn_last_line(project: Path) -> None:
    log = project / ".zerg/logs/workers/worker-2.jsonl"
    with open(log, "a") as handle:
        handle.write(done(2, 12, 0, "T9").rstrip("\n"))
    snapshot = read_run(discover_run(project), now=at(12, 40))
    assert snapshot.workers[1].tasks_done == 2
    assert [log.pending_line for log in snapshot.logs] == [None, None, None, None]


def test_a_worker_in_two_layouts_logs_is_taken_from_the_newer(project: Path) -> None:
    old = project / ".mahabharatha/logs/workers/worker-1.jsonl"
    old.parent.mkdir(parents=True)
    old.write_text(line(1, 7, 0, "Worker 1 starting for feature shop") + done(1, 7, 5, "T0"))
    one = RunWatcher(discover_run(project)).poll(now=at(12, 40)).workers[0]
    # .zerg's log ends at 12:30, .mahabharatha's at 07:05: the .zerg one is this worker's now.
    assert one.log_file == ".zerg/logs/workers/worker-1.jsonl" and one.tasks_done == 3


def test_the_tracker_timeline_restarts_at_each_process(project: Path) -> None:
    watcher = RunWatcher(discover_run(project))
    watcher.poll(now=at(12, 40))
    points = tracker_timeline(watcher.tracker_records, "1")
    # Process 1: 10:00 start, T1 at 10:10 (500 + 1,000). Process 2 from 12:00: T2 at 12:05
    # (500 + 500), T3 at 12:20 (1,000 + 2,000), its last line at 12:30 (1,000 + 3,000).
    assert points == (
        TrackerPoint(at(10, 0), 1, "start", None, 0, 0.0),
        TrackerPoint(at(10, 10), 1, "task", "T1", 1_500, 0.75),
        TrackerPoint(at(12, 0), 2, "start", None, 0, 0.0),
        TrackerPoint(at(12, 5), 2, "task", "T2", 1_000, 0.5),
        TrackerPoint(at(12, 20), 2, "task", "T3", 3_000, 1.5),
        TrackerPoint(at(12, 30), 2, "end", None, 4_000, 2.0),
    )
    # Process 1's last line is its task at 10:10: no separate end point. Another worker's lines are not counted.
    assert [p.kind for p in tracker_timeline(watcher.tracker_records, "2")] == ["start", "task"]
    assert tracker_timeline(watcher.tracker_records, "9") == ()


def test_a_heartbeat_file_is_the_last_sign_of_life(project: Path) -> None:
    beat = {"worker_id": 2, "timestamp": "2026-02-16T12:35:00+00:00", "task_id": "T5", "step": "verifying"}
    (project / ".zerg/state/heartbeat-2.json").write_text(json.dumps(beat))
    # 13:20: the log's last line (11:30) and the health check (11:50) are old, the heartbeat (12:35) is not.
    two = RunWatcher(discover_run(project)).poll(now=at(13, 20)).workers[1]
    assert two.last_heartbeat == at(12, 35) and not two.stale
    # Still live: 1 task, 140 minutes since 11:00.
    assert two.estimate is not None and two.estimate.tokens == 500 + 14_000


def test_follow_run_polls_until_stopped(project: Path) -> None:
    stop = threading.Event()
    clock = iter([at(12, 40), at(12, 41), at(12, 42)])
    snapshots = follow_run(discover_run(project), interval=0.0, stop=stop, clock=lambda: next(clock))
    first = next(snapshots)
    assert first.sequence == 1 and first.taken_at == at(12, 40) and len(first.events) == 7
    with open(project / ".zerg/logs/workers/worker-2.jsonl", "a") as handle:
        handle.write(done(2, 12, 41, "T5"))
    second = next(snapshots)
    assert second.taken_at == at(12, 41) and [e.task_id for e in second.new_events] == ["T5"]
    stop.set()
    assert list(snapshots) == []  # the stop event ends it
