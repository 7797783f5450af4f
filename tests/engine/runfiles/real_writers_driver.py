"""Writes a small run with the real ``zerg-ai`` 0.3.2 writers; run by the oracle virtualenv's Python.

``python real_writers_driver.py ROOT`` writes ``ROOT/.zerg/`` with upstream's own
``StructuredLogWriter`` (worker 2's log past its 1 MB limit, so it rotates), ``StateManager``
(workers with the real ``ContextTracker``'s ``context_usage``, a ``worker_checkpoint``
event), ``TokenTracker`` and ``HeartbeatWriter``, then prints what it wrote as JSON for the test to compare.
Not a test module: it imports ``zerg``, which only that virtualenv has.
"""

from __future__ import annotations

import json
import os
import sys
from datetime import datetime
from pathlib import Path


def main(root: Path) -> None:
    os.chdir(root)
    from zerg.constants import LogEvent, LogPhase, TaskStatus, WorkerStatus
    from zerg.context_tracker import ContextTracker
    from zerg.heartbeat import HeartbeatWriter
    from zerg.log_writer import StructuredLogWriter
    from zerg.state import StateManager
    from zerg.token_tracker import TokenTracker
    from zerg.types import WorkerState

    state_dir = root / ".zerg" / "state"
    logs = root / ".zerg" / "logs"
    state = StateManager("shop", state_dir=state_dir)
    tokens = TokenTracker(state_dir)
    out: dict[str, object] = {"workers": {}, "lines": 0, "task_completed": 0, "tokens": {}}
    lines = 0
    completed = 0
    for wid, steps in ((1, 200), (2, 6000), (3, 100)):
        writer = StructuredLogWriter(logs, wid, "shop", max_size_mb=1)
        tracker = ContextTracker(threshold_percent=70)
        writer.emit("info", f"Worker {wid} starting for feature shop")
        lines += 1
        done = 0
        recorded: dict[str, int] = {}
        for i in range(steps):
            task = f"W{wid}-T{i // 20:04d}"
            if i % 20 == 0:
                writer.emit(
                    "info", f"Task {task} started", task_id=task, phase=LogPhase.EXECUTE, event=LogEvent.TASK_STARTED
                )
                breakdown = {"spec_excerpt": 100 + i, "repo_map": 50, "security_rules": 7}
                tokens.record_task(str(wid), task, breakdown)
                recorded[task] = sum(breakdown.values())
                state.set_task_status(task, TaskStatus.IN_PROGRESS, worker_id=wid)
            elif i % 20 == 19:
                tracker.track_task_execution(task)
                writer.emit(
                    "info", f"Task {task} completed", task_id=task, phase=LogPhase.EXECUTE,
                    event=LogEvent.TASK_COMPLETED, duration_ms=1200 + i,
                )  # fmt: skip
                done += 1
            else:
                writer.emit("warning" if i % 7 == 0 else "info", f"step {i} of {task}: " + "x" * 150)
            lines += 1
        status = {1: WorkerStatus.RUNNING, 2: WorkerStatus.CHECKPOINTING, 3: WorkerStatus.STOPPED}[wid]
        usage = tracker.get_usage().usage_percent / 100
        state.set_worker_state(
            WorkerState(
                worker_id=wid, status=status, tasks_completed=done, context_usage=usage, started_at=datetime.now()
            )
        )
        if status is WorkerStatus.RUNNING:  # a running worker's heartbeat, as step_executor writes it
            beat = HeartbeatWriter(wid, state_dir).write(task_id=task, step="implementing", progress_pct=40)
            out["heartbeat"] = {"worker_id": str(wid), "timestamp": beat.timestamp, "task_id": task}
        if status is WorkerStatus.CHECKPOINTING:
            state.append_event("worker_checkpoint", {"worker_id": wid, "tasks_completed": done, "current_task": None})
        writer.close()
        completed += done
        out["workers"][str(wid)] = {"status": status.value, "context_usage": usage, "tasks": done}  # type: ignore[index]
        out["tokens"][str(wid)] = recorded  # type: ignore[index]
    out["lines"] = lines
    out["task_completed"] = completed
    print(json.dumps(out))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
