"""Runs a project's tasks through the real ``zerg-ai`` 0.3.2 code as workers would; run by the oracle
virtualenv's Python.

``python recorded_run_driver.py`` reads ``{"root", "feature", "workers": {id: [task, ...]}, "budget",
"security_rule_filtering"}`` from stdin.  In the project root, each worker logs each task's start and
completion with upstream's ``StructuredLogWriter``, builds its context with a fresh plugin (its own
``_record_token_metrics`` writes ``.zerg/state/tokens-<worker>.json``), and ``StateManager`` records
the worker and its tasks in ``.zerg/state/<feature>.json``.  Prints each task's context length.
Not a test module: it imports ``zerg``, which only that virtualenv has.
"""

import json
import logging
import os
import sys
from datetime import datetime
from pathlib import Path

logging.disable(logging.CRITICAL)

from zerg import repo_map  # noqa: E402
from zerg.constants import LogEvent, LogPhase, TaskStatus, WorkerStatus  # noqa: E402
from zerg.context_plugin import ContextEngineeringPlugin  # noqa: E402
from zerg.log_writer import StructuredLogWriter  # noqa: E402
from zerg.plugin_config import ContextEngineeringConfig  # noqa: E402
from zerg.state import StateManager  # noqa: E402
from zerg.types import WorkerState  # noqa: E402


def main() -> None:
    job = json.load(sys.stdin)
    root = Path(job["root"])
    feature = job["feature"]
    os.chdir(root)
    for name in ("ANALYSIS_DEPTH", "BEHAVIORAL_MODE", "TDD_MODE", "COMPACT_MODE"):
        os.environ.pop("ZERG_" + name, None)
    state = StateManager(feature, state_dir=root / ".zerg" / "state")
    lengths = {}
    for wid, tasks in job["workers"].items():
        os.environ["ZERG_WORKER_ID"] = wid
        writer = StructuredLogWriter(root / ".zerg" / "logs", int(wid), feature)
        writer.emit("info", f"Worker {wid} starting for feature {feature}")
        for task in tasks:
            tid = task["id"]
            writer.emit("info", f"Task {tid} started", task_id=tid, phase=LogPhase.EXECUTE, event=LogEvent.TASK_STARTED)
            state.set_task_status(tid, TaskStatus.IN_PROGRESS, worker_id=int(wid))
            repo_map.invalidate_cache()
            config = ContextEngineeringConfig(
                task_context_budget_tokens=job["budget"], security_rule_filtering=job["security_rule_filtering"]
            )
            lengths[tid] = len(ContextEngineeringPlugin(config).build_task_context(task, {}, feature))
            writer.emit(
                "info", f"Task {tid} completed", task_id=tid, phase=LogPhase.EXECUTE, event=LogEvent.TASK_COMPLETED
            )
            state.set_task_status(tid, TaskStatus.COMPLETE, worker_id=int(wid))
        state.set_worker_state(
            WorkerState(
                worker_id=int(wid),
                status=WorkerStatus.STOPPED,
                tasks_completed=len(tasks),
                context_usage=0.01,
                started_at=datetime.now(),
            )
        )
        writer.close()
    json.dump(lengths, sys.stdout)


if __name__ == "__main__":
    main()
