"""A whole generated run (tests/runfactory.py) read back: every line, every task, every recorded value."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxviewer.engine.runfiles.fleet import RunWatcher, read_run
from ctxviewer.engine.runfiles.rundir import discover_run
from tests.runfactory import write_run

pytestmark = pytest.mark.usefixtures("utc_local_time")


@pytest.mark.parametrize("layout", [".mahabharatha", ".zerg"])
def test_every_line_task_and_recorded_value_is_read(tmp_path: Path, layout: str) -> None:
    made = write_run(tmp_path, workers=4, lines=1_200, layout=layout, threshold=65)
    run = discover_run(tmp_path)
    assert len(run.worker_logs) == 5 and len(run.state_files) == 1 and len(run.token_records) == 4
    snapshot = read_run(run, now=made.workers["4"].last_time)
    assert snapshot.new_problems == () and snapshot.problem_count == 0
    assert sum(log.records for log in snapshot.logs) == made.log_lines + made.orchestrator_lines
    assert sum(log.tasks_executed for log in snapshot.logs) == made.task_completed
    log_events = [e for e in snapshot.events if e.source == "log"]
    assert len(log_events) == made.log_events
    assert len(snapshot.events) == made.log_events + made.execution_log
    assert snapshot.config.threshold_percent == 65
    rows = {row.worker_id: row for row in snapshot.workers}
    assert sorted(rows) == sorted(made.workers)
    for worker_id, truth in made.workers.items():
        row = rows[worker_id]
        assert (row.status, row.context_usage, row.tasks_done) == (
            truth.status,
            truth.context_usage,
            truth.task_completed,
        )
        assert row.tasks_in_process == truth.tasks_in_last_process
        assert row.checkpoints == truth.checkpoints and row.current_task == truth.current_task
        # The recomputed tracker, at the worker's last line, is what the state file recorded
        # (up to one token: the log's times are rounded to microseconds).
        assert row.estimate is not None and row.estimate.tasks == truth.tasks_in_last_process
        assert abs(row.estimate.tokens - truth.context_usage * 200_000) <= 1
    totals = {record.worker_id: {t.task_id: t.total for t in record.tasks} for record in snapshot.token_records}
    assert totals == made.token_totals


def test_the_rotated_log_is_read_across_both_files(tmp_path: Path) -> None:
    made = write_run(tmp_path, workers=2, lines=400, rotate=(2,))
    watcher = RunWatcher(discover_run(tmp_path))
    watcher.poll(now=0)
    files = {r.file.rsplit("/", 1)[-1] for r in list(watcher.replay()) if r.worker == "2"}
    assert files == {"worker-2.jsonl.1", "worker-2.jsonl"}
    assert sum(1 for r in list(watcher.replay()) if r.worker == "2") == made.workers["2"].lines
