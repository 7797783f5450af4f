"""A realistic upstream run directory, written the way upstream's writers write it.

:func:`write_run` lays out ``<layout>/logs/workers/worker-<id>.jsonl`` (one worker's log
rotated to ``.jsonl.1``, an orchestrator log beside them), ``<layout>/state/<feature>.json``
and ``<layout>/state/tokens-<id>.json``, and ``<layout>/config.yaml``.  Each worker runs
several processes over a day (a start line, task after task, then a clean stop, a
checkpoint, a crash, or still running); lines are ``json.dumps(entry) + "\\n"`` with the keys,
messages and events upstream's ``StructuredLogWriter`` writes, most of them plain log
records.  The state file's ``context_usage`` is the real tracker's value at each worker's
last update (500 per task of the process + 100 per minute since it started, / 200,000).

It returns a :class:`GeneratedRun` saying what it wrote (lines, events, values), which the
tests compare a reader's result with.  ``python tests/runfactory.py DIR`` writes one.
"""

from __future__ import annotations

import json
import random
import sys
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

#: 2026-02-14T08:00:00Z: the run's first line.
START = 1_771_056_000.0
SECTIONS = (
    "engineering_rules",
    "security_rules",
    "spec_excerpt",
    "mcp_hints",
    "depth_guidance",
    "behavioral_mode",
    "tdd_enforcement",
    "efficiency_hints",
    "repo_map",
)


def utc(ts: float) -> str:
    """A log line's ``ts``: UTC with microseconds and ``Z``, as upstream writes it."""
    return datetime.fromtimestamp(ts, UTC).isoformat().replace("+00:00", "Z")


def local(ts: float) -> str:
    """A state file's time: local, without an offset (``datetime.now().isoformat()``)."""
    return datetime.fromtimestamp(ts).isoformat()


@dataclass
class WorkerTruth:
    """What the generator made one worker do."""

    worker_id: str
    status: str
    lines: int = 0
    task_completed: int = 0
    processes: int = 0
    last_start: float = 0.0
    tasks_in_last_process: int = 0
    last_time: float = 0.0
    context_usage: float = 0.0
    checkpoints: int = 0
    current_task: str | None = None


@dataclass
class GeneratedRun:
    root: Path
    layout: str
    feature: str
    threshold: int
    workers: dict[str, WorkerTruth] = field(default_factory=dict)
    log_lines: int = 0
    orchestrator_lines: int = 0
    log_events: int = 0
    execution_log: int = 0
    token_totals: dict[str, dict[str, int]] = field(default_factory=dict)
    rotated: tuple[str, ...] = ()

    @property
    def task_completed(self) -> int:
        return sum(w.task_completed for w in self.workers.values())


class _Log:
    def __init__(self, worker_id: int | str, feature: str) -> None:
        self.worker_id = worker_id
        self.feature = feature
        self.lines: list[str] = []
        self.events = 0
        self.last_ts = 0.0

    def emit(self, ts: float, level: str, message: str, **extra: Any) -> None:
        entry: dict[str, Any] = {
            "ts": utc(ts),
            "level": level,
            "worker_id": self.worker_id,
            "feature": self.feature,
            "message": message,
        }
        entry.update({k: v for k, v in extra.items() if v is not None})
        if "event" in entry:
            self.events += 1
        self.last_ts = ts
        self.lines.append(json.dumps(entry) + "\n")


def write_run(
    root: Path,
    *,
    workers: int = 5,
    lines: int = 11_000,
    layout: str = ".mahabharatha",
    feature: str = "checkout-flow",
    threshold: int = 70,
    rotate: tuple[int, ...] = (2,),
    seed: int = 7,
) -> GeneratedRun:
    """Write a run of *workers* workers and about *lines* worker-log lines under *root*."""
    rng = random.Random(seed)
    base = root / layout
    logs_dir = base / "logs" / "workers"
    state_dir = base / "state"
    logs_dir.mkdir(parents=True, exist_ok=True)
    state_dir.mkdir(parents=True, exist_ok=True)
    (base / "config.yaml").write_text(
        f"workers:\n  max_concurrent: {workers}\n  context_threshold_percent: {threshold}\n  timeout_minutes: 60\n"
    )
    run = GeneratedRun(root, layout, feature, threshold)
    execution_log: list[dict[str, Any]] = []
    tasks_state: dict[str, dict[str, Any]] = {}
    workers_state: dict[str, dict[str, Any]] = {}
    per_worker = max(20, lines // workers)
    task_no = 0
    endings = ["stopped", "checkpointing", "crashed", "running"]
    for wid in range(1, workers + 1):
        log = _Log(wid, feature)
        truth = WorkerTruth(str(wid), endings[(wid - 1) % len(endings)])
        tokens: dict[str, Any] = {}
        clock = START + wid * 37.0
        process = 0
        final = False
        while not final:
            process += 1
            started = clock
            tasks_here = 0
            truth.processes += 1
            truth.last_start = started
            log.emit(clock, "info", f"Worker {wid} starting for feature {feature}")
            clock += rng.uniform(0.2, 2)
            log.emit(clock, "info", f"Worker {wid} signaling ready")
            execution_log.append(
                {"timestamp": local(clock), "event": "worker_ready", "data": {"worker_id": wid, "branch": "b"}}
            )
            # A process runs until its share of lines is used up, then ends; the last one ends as planned.
            budget = per_worker // 3 if process < 3 else per_worker - len(log.lines)
            final = process >= 3 or len(log.lines) >= per_worker
            until = len(log.lines) + max(budget, 12)
            current: str | None = None
            while len(log.lines) < until:
                task_no += 1
                tid = f"TASK-{task_no:04d}"
                current = tid
                clock += rng.uniform(1, 30)
                log.emit(clock, "info", f"Claimed task {tid}")
                tasks_state[tid] = {"status": "in_progress", "worker_id": wid, "started_at": local(clock)}
                log.emit(clock, "info", f"Task {tid} started", task_id=tid, phase="execute", event="task_started")
                breakdown = {s: rng.randint(40, 420) for s in SECTIONS if rng.random() < 0.8}
                tokens[tid] = {
                    "breakdown": breakdown,
                    "total": sum(breakdown.values()),
                    "mode": "estimated",
                    "timestamp": datetime.fromtimestamp(clock, UTC).isoformat(),
                }
                for _ in range(rng.randint(3, 9)):
                    clock += rng.uniform(2, 90)
                    kind = rng.random()
                    if kind < 0.08:
                        log.emit(clock, "warning", f"Lint found {rng.randint(1, 9)} issues in src/module_{task_no}.py")
                    elif kind < 0.11:
                        log.emit(
                            clock,
                            "info",
                            "History Rewrite Preview\n  pick a1b2c3 WIP\n  squash d4e5f6 fix: tests\n"
                            f"  ({rng.randint(2, 6)} commits)",
                        )
                    else:
                        log.emit(clock, "info", f"Invoking Claude Code for {tid} (step {rng.randint(1, 8)})")
                outcome = rng.random()
                if outcome < 0.07:
                    log.emit(
                        clock, "error", f"Task {tid} failed: Claude invocation failed", task_id=tid, phase="execute",
                        event="task_failed",
                    )  # fmt: skip
                    log.emit(clock, "error", f"Task {tid} failed: Task execution failed")
                    tasks_state[tid]["status"] = "failed"
                    execution_log.append(
                        {"timestamp": local(clock), "event": "task_failed", "data": {"task_id": tid, "worker_id": wid}}
                    )
                    current = None
                    continue
                clock += rng.uniform(5, 60)
                log.emit(
                    clock, "info", f"Verification passed for {tid}", task_id=tid, phase="verify",
                    event="verification_passed", duration_ms=rng.randint(800, 9000),
                )  # fmt: skip
                log.emit(clock, "info", f"Committed changes for {tid}")
                log.emit(
                    clock, "info", f"Task {tid} completed", task_id=tid, phase="execute", event="task_completed",
                    duration_ms=rng.randint(60_000, 900_000),
                )  # fmt: skip
                log.emit(clock, "info", f"Task {tid} complete")
                tasks_here += 1
                truth.task_completed += 1
                tasks_state[tid]["status"] = "complete"
                execution_log.append(
                    {"timestamp": local(clock), "event": "task_complete", "data": {"task_id": tid, "worker_id": wid}}
                )
                current = None
            ending = truth.status if final else rng.choice(["checkpointing", "stopped"])
            clock += rng.uniform(1, 5)
            if ending == "checkpointing":
                log.emit(clock, "info", f"Worker {wid} checkpointing")
                execution_log.append(
                    {
                        "timestamp": local(clock),
                        "event": "worker_checkpoint",
                        "data": {"worker_id": wid, "tasks_completed": tasks_here, "current_task": None},
                    }
                )
                truth.checkpoints += 1
                log.emit(clock, "info", f"Worker {wid} checkpointed - exiting")
            elif ending == "stopped":
                log.emit(clock, "info", "No more tasks available")
                log.emit(clock, "info", f"Worker {wid} completed {tasks_here} tasks")
            elif ending == "running":
                current = f"TASK-{task_no + 1:04d}"
            truth.tasks_in_last_process = tasks_here
            # The worker's last update of the state file: with its last line (a crash writes none after).
            truth.last_time = log.last_ts
            minutes = (log.last_ts - started) / 60
            truth.context_usage = (500 * tasks_here + int(minutes * 100)) / 200_000
            truth.current_task = current if ending == "running" else None
            clock += rng.uniform(600, 20_000)  # the next process starts later, maybe the next day
        truth.lines = len(log.lines)
        run.workers[str(wid)] = truth
        run.log_lines += len(log.lines)
        run.log_events += log.events
        run.token_totals[str(wid)] = {t: e["total"] for t, e in tokens.items()}
        path = logs_dir / f"worker-{wid}.jsonl"
        if wid in rotate:
            cut = len(log.lines) * 3 // 5
            (logs_dir / f"worker-{wid}.jsonl.1").write_text("".join(log.lines[:cut]))
            path.write_text("".join(log.lines[cut:]))
            run.rotated += (str(wid),)
        else:
            path.write_text("".join(log.lines))
        workers_state[str(wid)] = {
            "worker_id": wid,
            "status": truth.status,
            "current_task": truth.current_task,
            "port": None,
            "container_id": None,
            "worktree_path": f"/tmp/wt-{wid}",
            "branch": f"mahabharatha/{feature}/worker-{wid}",
            "health_check_at": local(truth.last_time),
            "started_at": local(truth.last_start),
            "ready_at": local(truth.last_start + 1),
            "last_task_completed_at": None,
            "tasks_completed": truth.tasks_in_last_process,
            "context_usage": truth.context_usage,
        }
        (state_dir / f"tokens-{wid}.json").write_text(
            json.dumps(
                {
                    "worker_id": str(wid),
                    "tasks": tokens,
                    "cumulative": {
                        "total_tokens": sum(e["total"] for e in tokens.values()),
                        "tasks_completed": len(tokens),
                    },
                },
                indent=2,
            )
        )
    orchestrator = _Log("orchestrator", feature)
    for level in range(1, 4):
        ts = START + level * 3600
        orchestrator.emit(ts, "info", f"Level {level} started", event="level_started", data={"level": level})
        orchestrator.emit(ts + 1800, "info", f"Merging level {level}", event="merge_started")
        orchestrator.emit(ts + 1900, "info", f"Level {level} merged", event="merge_complete")
        orchestrator.emit(ts + 1901, "info", f"Level {level} complete", event="level_complete")
    (logs_dir / "worker-orchestrator.jsonl").write_text("".join(orchestrator.lines))
    run.orchestrator_lines = len(orchestrator.lines)
    run.log_events += orchestrator.events
    state = {
        "feature": feature,
        "started_at": local(START),
        "current_level": 3,
        "tasks": tasks_state,
        "workers": workers_state,
        "levels": {},
        "execution_log": execution_log,
        "metrics": None,
        "paused": False,
        "error": None,
    }
    (state_dir / f"{feature}.json").write_text(json.dumps(state, indent=2, default=str))
    (state_dir / "token-cache.json").write_text("{}")
    (state_dir / "heartbeat-1.json").write_text(json.dumps({"worker_id": 1, "timestamp": utc(START)}))
    run.execution_log = len(execution_log)
    return run


if __name__ == "__main__":
    target = Path(sys.argv[1] if len(sys.argv) > 1 else "generated-run")
    made = write_run(target)
    print(f"{target}: {made.log_lines:,} worker-log lines, {made.task_completed:,} tasks completed")
