"""Benchmark: reading a real run's files whole, and one incremental poll of them (issue 18).

A run directory is generated with ``tests/runfactory.py`` (the layout and lines upstream's
writers produce: several workers over days, one log rotated, a state file, token records),
then timed:

* ``full``: discover the run and read it whole (``read_run``), as ``follow --once`` does;
* ``poll``: one :meth:`RunWatcher.poll` after a worker appended one task's lines (about 10)
  and the state file was rewritten with one more event, as a live follower sees each tick;
* ``idle``: one poll with nothing changed.

Each is repeated and the median printed with the lowest and highest.

    python bench/bench_runfiles.py                 # 5 workers, ~11,000 log lines
    python bench/bench_runfiles.py --lines 200000  # a bigger run
    python bench/bench_runfiles.py --workers 1 --lines 220000  # one 50 MB worker log
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ctxviewer.engine.runfiles.fleet import RunWatcher, read_run
from ctxviewer.engine.runfiles.rundir import discover_run
from tests.runfactory import local, utc, write_run


def _report(label: str, times: list[float]) -> None:
    ms = sorted(t * 1000 for t in times)
    print(f"{label:6} median {statistics.median(ms):8.2f} ms  (min {ms[0]:.2f}, max {ms[-1]:.2f}, n={len(ms)})")


def _timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=5)
    parser.add_argument("--lines", type=int, default=11_000)
    parser.add_argument("--repeat", type=int, default=9)
    args = parser.parse_args()
    print(f"python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} cpus")
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        made = write_run(root, workers=args.workers, lines=args.lines)
        size = sum(p.stat().st_size for p in root.rglob("*") if p.is_file())
        lines = made.log_lines + made.orchestrator_lines
        print(f"run: {lines:,} log lines, {made.task_completed:,} tasks, {size:,} bytes")
        run = discover_run(root)
        snapshot = read_run(run)
        assert snapshot.problem_count == 0, snapshot.new_problems[:3]
        _report("full", [_timed(lambda: read_run(discover_run(root))) for _ in range(args.repeat)])

        watcher = RunWatcher(run)
        watcher.poll()
        worker = str(min(3, args.workers))
        log = root / made.layout / "logs" / "workers" / f"worker-{worker}.jsonl"
        state_path = root / made.layout / "state" / f"{made.feature}.json"
        state = json.loads(state_path.read_text())
        polls: list[float] = []
        idles: list[float] = []
        for n in range(args.repeat):
            stamp = made.workers[worker].last_time + 60 * (n + 1)
            task = f"BENCH-{n:03d}"
            entries = [
                {"message": f"Claimed task {task}"},
                {"message": f"Task {task} started", "task_id": task, "phase": "execute", "event": "task_started"},
                *({"message": f"Invoking Claude Code for {task} (step {s})"} for s in range(6)),
                {"message": f"Task {task} completed", "task_id": task, "event": "task_completed", "duration_ms": 9},
                {"message": f"Task {task} complete"},
            ]
            with open(log, "a") as handle:
                for entry in entries:
                    base = {"ts": utc(stamp), "level": "info", "worker_id": int(worker), "feature": made.feature}
                    handle.write(json.dumps(base | entry) + "\n")
            event = {
                "timestamp": local(stamp),
                "event": "task_complete",
                "data": {"task_id": task, "worker_id": int(worker)},
            }
            state["execution_log"].append(event)
            tmp = state_path.with_suffix(".tmp")
            tmp.write_text(json.dumps(state, indent=2))
            os.replace(tmp, state_path)
            polls.append(_timed(watcher.poll))
            idles.append(_timed(watcher.poll))
        _report("poll", polls)
        _report("idle", idles)


if __name__ == "__main__":
    main()
