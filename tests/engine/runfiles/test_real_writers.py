"""Files written by the real ``zerg-ai`` 0.3.2 writers, read back: no problem, every value as recorded.

Uses the virtualenv the upstream differential test caches under ``~/.cache/ctxviewer-tests/``
(``CTXVIEWER_TEST_CACHE`` moves it); when it is not there yet, the test is skipped (it never
installs anything itself).
"""

from __future__ import annotations

import json
import os
import subprocess
from datetime import datetime
from pathlib import Path

import pytest

from ctxviewer.engine.runfiles.fleet import read_run
from ctxviewer.engine.runfiles.rundir import discover_run

CACHE = Path(os.environ.get("CTXVIEWER_TEST_CACHE") or Path.home() / ".cache" / "ctxviewer-tests")
VENV = CACHE / "zerg-ai-0.3.2"
DRIVER = Path(__file__).with_name("real_writers_driver.py")


def test_the_real_writers_files_are_read_whole(tmp_path: Path) -> None:
    python = VENV / "bin" / "python"
    if not (VENV / "ready").exists() or not python.exists():
        pytest.skip(f"no zerg-ai 0.3.2 virtualenv at {VENV} (tests/engine/profiles/test_upstream_oracle.py makes it)")
    done = subprocess.run(
        [str(python), str(DRIVER), str(tmp_path)], capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr
    wrote = json.loads(done.stdout)
    # Worker 2 wrote past its 1 MB limit: upstream rotated it.
    assert (tmp_path / ".zerg/logs/workers/worker-2.jsonl.1").is_file()
    run = discover_run(tmp_path)
    assert run.state_files == (".zerg/state/shop.json",)  # not the .bak, not the .lock
    snapshot = read_run(run)
    assert [p.describe() for p in snapshot.new_problems] == []
    assert sum(log.records for log in snapshot.logs) == wrote["lines"]
    assert sum(log.tasks_executed for log in snapshot.logs) == wrote["task_completed"]
    rows = {row.worker_id: row for row in snapshot.workers}
    for worker_id, truth in wrote["workers"].items():
        row = rows[worker_id]
        assert (row.status, row.context_usage, row.tasks_done) == (
            truth["status"],
            truth["context_usage"],
            truth["tasks"],
        )
    assert rows["2"].checkpoints == 1 and rows["1"].checkpoints == 0
    totals = {record.worker_id: {t.task_id: t.total for t in record.tasks} for record in snapshot.token_records}
    assert totals == wrote["tokens"]
    beat = wrote["heartbeat"]
    assert run.heartbeats == (f".zerg/state/heartbeat-{beat['worker_id']}.json",)
    assert rows[beat["worker_id"]].last_heartbeat == datetime.fromisoformat(beat["timestamp"]).timestamp()
