"""A small run of two worker logs written by hand, for the log viewer's tests.

The expected rows of each filter in the tests are worked out from these lines.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

FEATURE = "shop"


def line(ts: str, level: str, worker: int, message: str, **extra: Any) -> str:
    if extra.get("event") in ("task_started", "task_completed"):
        extra = {"phase": "execute", **extra}
    entry: dict[str, Any] = {"ts": f"2026-02-14T{ts}.000000Z", "level": level, "worker_id": worker}
    entry |= {"feature": FEATURE, "message": message}
    entry |= extra
    return json.dumps(entry) + "\n"


WORKER_1 = [
    line("08:00:00", "info", 1, "Worker 1 starting for feature shop"),  # 1
    line("08:00:05", "info", 1, "Task T1 started", task_id="T1", event="task_started"),  # 2
    line("08:01:00", "warning", 1, "Lint found 3 issues in src/cart.py"),  # 3
    line("08:02:00", "info", 1, "Task T1 completed", task_id="T1", event="task_completed", duration_ms=115000),  # 4
    "oops {\n",  # 5: not JSON
]
WORKER_2 = [
    line("08:00:30", "info", 2, "Task T2 started", task_id="T2", event="task_started"),  # 1
    line("08:03:00", "error", 2, "Task T2 failed: Claude invocation failed", task_id="T2", event="task_failed"),  # 2
    line("08:03:00", "error", 2, "Task T2 failed: Task execution failed"),  # 3
]


def write_small_run(root: Path, layout: str = ".mahabharatha") -> Path:
    """The two logs under *root*/<layout>/logs/workers; returns that folder."""
    folder = root / layout / "logs" / "workers"
    folder.mkdir(parents=True)
    (folder / "worker-1.jsonl").write_text("".join(WORKER_1), encoding="utf-8")
    (folder / "worker-2.jsonl").write_text("".join(WORKER_2), encoding="utf-8")
    return folder
