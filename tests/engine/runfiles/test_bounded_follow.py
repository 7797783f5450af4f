"""A follower's memory does not grow with the logs: readers keep no records, events are capped.

What a tracker needs is kept in slim copies (process starts, finished tasks, and between two of
a worker's, its latest-timed line); the rest is read again from disk when it is needed.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctxviewer.engine.files.reading import ProjectFS
from ctxviewer.engine.runfiles import fleet, workerlog
from ctxviewer.engine.runfiles.fleet import RunWatcher, read_run
from ctxviewer.engine.runfiles.realtracker import tracker_timeline
from ctxviewer.engine.runfiles.rundir import discover_run
from ctxviewer.engine.runfiles.workerlog import WorkerLogReader
from tests.runfactory import utc, write_run

pytestmark = pytest.mark.usefixtures("utc_local_time")


def test_the_tracker_over_the_kept_records_is_the_tracker_over_every_record(tmp_path: Path) -> None:
    made = write_run(tmp_path, workers=4, lines=3_000, rotate=(2,))
    watcher = RunWatcher(discover_run(tmp_path))
    while watcher.poll(now=0).more:
        pass
    everything = list(watcher.replay())
    kept = watcher.tracker_records
    assert len(everything) == made.log_lines + made.orchestrator_lines
    # Kept: at most a start or finished task and the gap before it, per such line, and one gap per worker.
    starts_and_tasks = sum(
        1
        for r in everything
        if r.event == workerlog.TASK_COMPLETED or (r.message and workerlog.PROCESS_START.match(r.message))
    )
    assert starts_and_tasks <= len(kept) <= 2 * starts_and_tasks + len(made.workers) + 1
    assert all(r.data is None and r.ts is None for r in kept)
    for worker in made.workers:
        assert tracker_timeline(kept, worker) == tracker_timeline(everything, worker)
        assert tracker_timeline(kept, worker)  # not vacuous: every generated worker has a curve


def _line(ts: float, message: str, **extra: object) -> str:
    entry = {"ts": utc(ts), "level": "info", "worker_id": 1, "feature": "f", "message": message, **extra}
    return json.dumps(entry) + "\n"


def test_the_gap_kept_is_the_latest_time_not_the_last_line(tmp_path: Path) -> None:
    # Times out of order inside a process: the tracker's last reading is the latest time.
    lines = [
        _line(1_800_000_000, "Worker 1 starting for feature f"),
        _line(1_800_000_100, "later line"),
        _line(1_800_000_050, "earlier line written after it"),
        _line(1_800_000_060, "done", event="task_completed", task_id="T1"),
        _line(1_800_000_500, "latest"),
        _line(1_800_000_400, "not the latest"),
        _line(1_800_001_000, "Worker 1 starting for feature f"),
        _line(1_800_001_010, "tail"),
    ]
    log = tmp_path / "worker-1.jsonl"
    log.write_text("".join(lines), encoding="utf-8")
    reader = WorkerLogReader(ProjectFS(tmp_path), "worker-1.jsonl")
    every = reader.poll().records
    assert tracker_timeline(reader.tracker_records, "1") == tracker_timeline(every, "1")
    messages = [r.message for r in reader.tracker_records]
    # start, the gap before the task (the 100 s line, text dropped), the task, the gap (500 s), start, tail.
    assert [r.line for r in reader.tracker_records] == [1, 2, 4, 5, 7, 8]
    assert messages == ["Worker 1 starting for feature f", None, None, None, "Worker 1 starting for feature f", None]


def test_a_file_keeps_at_most_its_share_of_tracker_records(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(workerlog, "MAX_TRACKER_RECORDS", 10)
    start = 1_800_000_000
    lines = [_line(start, "Worker 1 starting for feature f")]
    lines += [_line(start + n, "done", event="task_completed", task_id=f"T{n}") for n in range(1, 41)]
    (tmp_path / "worker-1.jsonl").write_text("".join(lines), encoding="utf-8")
    reader = WorkerLogReader(ProjectFS(tmp_path), "worker-1.jsonl")
    reader.poll()
    assert reader.record_count == 41
    assert [r.task_id for r in reader.tracker_records] == [f"T{n}" for n in range(31, 41)]


def test_a_watcher_holds_the_latest_events_and_counts_the_rest(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    made = write_run(tmp_path, workers=2, lines=600, rotate=())
    whole = read_run(discover_run(tmp_path), now=0)
    total = made.log_events + made.execution_log
    assert len(whole.events) == total and whole.events_dropped == 0
    monkeypatch.setattr(fleet, "MAX_EVENTS", 25)
    capped = read_run(discover_run(tmp_path), now=0)
    assert capped.events_dropped == total - 25
    assert capped.events == whole.events[-25:]  # the latest, in time order
    assert capped.new_events == capped.events


def test_a_log_replaced_is_counted_again_from_disk(tmp_path: Path) -> None:
    # The rebuild after a replacement reads the files again instead of records held in memory.
    made = write_run(tmp_path, workers=1, lines=300, rotate=())
    watcher = RunWatcher(discover_run(tmp_path))
    while watcher.poll(now=0).more:
        pass
    log = next(tmp_path.rglob("worker-1.jsonl"))
    kept = log.read_text(encoding="utf-8").splitlines(keepends=True)[:40]
    log.unlink()
    log.write_text("".join(kept), encoding="utf-8")
    snapshot = watcher.poll(now=0)
    worker_log = next(s for s in snapshot.logs if s.file.endswith("worker-1.jsonl"))
    assert worker_log.records == 40
    assert made.workers["1"].lines > 40
