"""Benchmark: does following a real run in the Session panel ever block the GUI thread?

A run is generated with ``tests/runfactory.py`` (5 workers, about 11,000 log lines, one log
rotated), the Session panel is shown and attached to it, and a heartbeat timer on the GUI
thread ticks every 10 ms, noting the longest gap between two ticks (the GUI thread's
longest stall, plus the timer's own lateness).  Measured:

* ``attach``: from attaching until the first poll's fleet is shown (the read runs on the
  follower's pool thread);
* ``live``: a worker appends a task's lines *rounds* times; for each, the time from the
  write until the panel shows the new task (file watcher, debounce, poll, show);
* ``show``: the GUI thread's own work per update (the fleet, the timeline, the table);
* ``gap``: the heartbeat's longest gap over the whole run, and its 99th percentile.

    QT_QPA_PLATFORM=offscreen python bench/bench_fleet_gui.py [--lines 11000] [--rounds 20]
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
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QEventLoop, QTimer
from PySide6.QtWidgets import QApplication

from tests.runfactory import utc, write_run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=11_000)
    parser.add_argument("--workers", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    app = QApplication.instance() or QApplication([])
    from ctxviewer.gui.views.session import SessionPanel

    with tempfile.TemporaryDirectory(prefix="ctxviewer-fleet-") as tmp:
        made = write_run(Path(tmp) / "proj", workers=args.workers, lines=args.lines)
        size = sum(f.stat().st_size for f in Path(tmp).rglob("*") if f.is_file())
        print(
            f"run: {made.log_lines:,} worker-log lines, {args.workers} workers, {size / 1e6:.1f} MB; "
            f"{platform.python_implementation()} {platform.python_version()}, {os.cpu_count()} cores, "
            f"load {os.getloadavg()[0]:.1f}"
        )
        panel = SessionPanel()
        panel.resize(480, 760)
        panel.show()
        gaps: list[float] = []
        phase_gaps: dict[str, list[float]] = {"attach": [], "live": []}
        phase = ["attach"]
        last = [time.perf_counter()]

        def beat() -> None:
            now = time.perf_counter()
            gaps.append(now - last[0])
            phase_gaps[phase[0]].append(now - last[0])
            last[0] = now

        heart = QTimer()
        heart.setInterval(10)
        heart.timeout.connect(beat)
        heart.start()
        shows: list[float] = []
        original = panel._on_run_update

        def timed_show(update: object) -> None:
            began = time.perf_counter()
            original(update)  # type: ignore[arg-type]
            shows.append(time.perf_counter() - began)

        panel.run.updated.disconnect(panel._on_run_update)
        panel.run.updated.connect(timed_show)

        def wait_for(predicate, timeout_s: float = 30.0) -> None:  # type: ignore[no-untyped-def]
            deadline = time.perf_counter() + timeout_s
            while not predicate():
                if time.perf_counter() > deadline:
                    raise SystemExit("timed out")
                app.processEvents(QEventLoop.ProcessEventsFlag.WaitForMoreEvents, 20)

        began = time.perf_counter()
        panel.follow_run(made.root)
        wait_for(lambda: panel.fleet.chart.value() is not None)
        attach = time.perf_counter() - began
        panel.run.fallback.stop()  # only the watcher from here on
        phase[0] = "live"
        worker = made.workers["1"]
        log = made.root / made.layout / "logs" / "workers" / "worker-1.jsonl"
        latencies: list[float] = []
        clock = worker.last_time
        for n in range(args.rounds):
            clock += 60
            tid = f"TASK-B{n:03d}"
            lines = "".join(
                json.dumps({"ts": utc(clock + i), "level": "info", "worker_id": 1, "feature": made.feature, **extra})
                + "\n"
                for i, extra in enumerate(
                    [
                        {"message": f"Claimed task {tid}"},
                        {"message": f"Task {tid} started", "task_id": tid, "event": "task_started"},
                        *({"message": f"Invoking Claude Code for {tid} (step {k})"} for k in range(6)),
                        {"message": f"Task {tid} completed", "task_id": tid, "event": "task_completed"},
                    ]
                )
            )
            target = worker.task_completed + n + 1
            written = time.perf_counter()
            with log.open("a", encoding="utf-8") as handle:
                handle.write(lines)

            def shown(target: int = target) -> bool:
                value = panel.fleet.chart.value()
                return value is not None and value.rows[0].tasks_done == target

            wait_for(shown)
            latencies.append(time.perf_counter() - written)
            settle = time.perf_counter() + 0.05
            wait_for(lambda settle=settle: time.perf_counter() > settle)
        heart.stop()
        panel.stop_following()
        ms = sorted(g * 1000 for g in gaps)
        p99 = ms[int(len(ms) * 0.99) - 1]
        print(f"attach  first fleet shown after {attach * 1000:.0f} ms")
        lat = sorted(t * 1000 for t in latencies)
        print(f"live    write -> shown: median {statistics.median(lat):.0f} ms (min {lat[0]:.0f}, max {lat[-1]:.0f})")
        sh = sorted(t * 1000 for t in shows)
        print(f"show    GUI-thread work per update: median {statistics.median(sh):.1f} ms, max {sh[-1]:.1f} ms")
        print(f"gap     heartbeat (10 ms): longest {ms[-1]:.0f} ms, 99th percentile {p99:.0f} ms, n={len(ms)}")
        for name, values in phase_gaps.items():
            if values:
                print(f"        while {name}: longest {max(values) * 1000:.0f} ms (n={len(values)})")


if __name__ == "__main__":
    main()
