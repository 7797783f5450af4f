"""A small run written by hand, for the tests of the fleet and of what is made of it (text, JSON).

Four workers of the feature ``shop`` on 2026-02-16; every expected value in those tests is
worked out from these lines.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

DAY = 20_500 * 86_400  # 2026-02-16T00:00:00Z


def at(hh: int, mm: int) -> float:
    return DAY + hh * 3600 + mm * 60


def line(worker: int | str, hh: int, mm: int, message: str, **extra: Any) -> str:
    entry = {"ts": f"2026-02-16T{hh:02d}:{mm:02d}:00.000000Z", "level": "info", "worker_id": worker}
    entry |= {"feature": "shop", "message": message, **extra}
    return json.dumps(entry) + "\n"


def done(worker: int, hh: int, mm: int, task: str) -> str:
    return line(worker, hh, mm, f"Task {task} completed", task_id=task, phase="execute", event="task_completed")


def write_fleet_project(tmp_path: Path) -> Path:
    """A project in *tmp_path* whose .zerg/ holds the run (threshold 80, a compaction zone at 75)."""
    zerg = tmp_path / ".zerg"
    (zerg / "logs" / "workers").mkdir(parents=True)
    (zerg / "state").mkdir()
    (zerg / "config.yaml").write_text("workers:\n  context_threshold_percent: 80\n")
    (tmp_path / "ctxviewer.yaml").write_text("zones:\n  compaction: 75\n")
    logs = zerg / "logs" / "workers"
    # Worker 1: two processes; the second started at 12:00, completed T2 and T3, checkpointed at 12:30.
    (logs / "worker-1.jsonl").write_text(
        line(1, 10, 0, "Worker 1 starting for feature shop")
        + done(1, 10, 10, "T1")
        + line(1, 12, 0, "Worker 1 starting for feature shop")
        + done(1, 12, 5, "T2")
        + done(1, 12, 20, "T3")
        + line(1, 12, 30, "Worker 1 checkpointing")
    )
    # Worker 2: started at 11:00, completed T4 at 11:30; still running.
    (logs / "worker-2.jsonl").write_text(line(2, 11, 0, "Worker 2 starting for feature shop") + done(2, 11, 30, "T4"))
    # Worker 4: only a log names it.
    (logs / "worker-4.jsonl").write_text(
        line(4, 8, 0, "Worker 4 starting for feature shop") + done(4, 8, 15, "T0") + line(4, 8, 20, "bye")
    )
    (logs / "worker-orchestrator.jsonl").write_text(line("orchestrator", 9, 0, "Level 1", event="level_started"))
    state = {
        "feature": "shop",
        "workers": {
            "1": {"status": "checkpointing", "context_usage": 0.78, "tasks_completed": 2, "current_task": None},
            "2": {
                "status": "running",
                "context_usage": 0.9,
                "tasks_completed": 1,
                "current_task": "T5",
                "health_check_at": "2026-02-16T11:50:00",
            },
            "3": {
                "status": "crashed",
                "tasks_completed": 3,
                "started_at": "2026-02-16T09:00:00",
                "health_check_at": "2026-02-16T09:30:00",
            },
        },
        "tasks": {},
        "execution_log": [
            {
                "timestamp": "2026-02-16T12:30:00",
                "event": "worker_checkpoint",
                "data": {"worker_id": 1, "tasks_completed": 2, "current_task": None},
            }
        ],
    }
    (zerg / "state" / "shop.json").write_text(json.dumps(state, indent=2))
    (zerg / "state" / "tokens-1.json").write_text(
        json.dumps({"worker_id": "1", "tasks": {"T2": {"breakdown": {"repo_map": 70}, "total": 70}}})
    )
    return tmp_path
