"""Benchmark: how fast the window shows a task, and how responsive it stays during the batch pass.

Two measurements, both in this one process, on the real window (offscreen):

1. *Open a task*: from ``select_task`` to the ``traceShown`` signal (assembly on the
   worker, lexing, filling every view), median of ``--repeat`` selections alternating
   between tasks, on the bundled edge-cases sample (its long-spec feature has the
   largest spec) and on a generated project with ``--spec-mb`` MB of specs.  The
   engine-only time for the same tasks (``assemble_task`` called directly, warm caches)
   is the baseline; the ratio says what the GUI adds.
2. *Responsiveness*: a 10 ms ``QTimer`` on the GUI thread records how late each tick
   fires, first with the window idle, then while the background batch pass runs over
   the generated project (``--tasks`` tasks).  Prints the median and the 99th
   percentile of the tick gaps in both phases; a GUI thread blocked by the batch
   would show gaps of hundreds of milliseconds.

    QT_QPA_PLATFORM=offscreen python bench/bench_gui.py
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QElapsedTimer, QEventLoop, QSettings, QTimer
from PySide6.QtWidgets import QApplication

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_batch import generate

from ctxviewer.engine.runs.pipeline import assemble_task
from ctxviewer.gui.window import MainWindow

REPO = Path(__file__).resolve().parents[1]


def _wait_signal(signal, timeout_ms: int = 120_000) -> None:
    loop = QEventLoop()
    signal.connect(loop.quit)
    QTimer.singleShot(timeout_ms, loop.quit)
    loop.exec()
    signal.disconnect(loop.quit)


def _open(window: MainWindow, root: Path) -> None:
    window.open_project(root)
    _wait_signal(window.traceShown)
    if window.lanes.batch.is_busy():
        _wait_signal(window.batchFinished)


def time_task_opening(window: MainWindow, root: Path, repeat: int) -> tuple[float, float]:
    """Median seconds from select_task to traceShown, and the engine-only median."""
    _open(window, root)
    project = window.project
    assert project is not None
    pairs = project.tasks()[:4]
    gui: list[float] = []
    for n in range(repeat):
        feature, task = pairs[n % len(pairs)]
        start = time.perf_counter()
        window.select_task(feature.name, task.id)
        _wait_signal(window.traceShown)
        gui.append(time.perf_counter() - start)
    engine: list[float] = []
    for n in range(repeat):
        feature, task = pairs[n % len(pairs)]
        start = time.perf_counter()
        assemble_task(project, feature, task, exact=True)
        engine.append(time.perf_counter() - start)
    return statistics.median(gui), statistics.median(engine)


def tick_gaps(window: MainWindow, run_batch: bool, seconds: float) -> list[float]:
    """Gaps (ms) between 10 ms timer ticks, idle or while the batch pass runs."""
    gaps: list[float] = []
    clock = QElapsedTimer()
    clock.start()
    last = [clock.elapsed()]
    timer = QTimer()
    timer.setInterval(10)

    def tick() -> None:
        now = clock.elapsed()
        gaps.append(now - last[0])
        last[0] = now

    timer.timeout.connect(tick)
    loop = QEventLoop()
    if run_batch:
        window.batchFinished.connect(loop.quit)
        window.start_batch()
    timer.start()
    QTimer.singleShot(int(seconds * 1000), loop.quit)
    loop.exec()
    timer.stop()
    if run_batch:
        window.batchFinished.disconnect(loop.quit)
    return gaps


def p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tasks", type=int, default=300)
    parser.add_argument("--spec-mb", type=float, default=1.0)
    parser.add_argument("--repeat", type=int, default=12)
    args = parser.parse_args()
    app = QApplication.instance() or QApplication(sys.argv[:1])
    print(
        f"machine: {platform.machine()} {platform.system()}, {os.cpu_count()} cpus, Python {platform.python_version()}"
    )
    with tempfile.TemporaryDirectory() as tmp:
        settings = QSettings(str(Path(tmp) / "s.ini"), QSettings.Format.IniFormat)
        window = MainWindow(settings)
        window.resize(1280, 800)
        window.show()
        big = generate(Path(tmp) / "big", args.tasks, args.spec_mb)
        for label, root in (("edge-cases sample", REPO / "sample_projects" / "edge-cases"), ("generated", big)):
            gui, engine = time_task_opening(window, root, args.repeat)
            print(
                f"open a task ({label}): median {gui * 1000:.0f} ms to traceShown; "
                f"engine alone {engine * 1000:.0f} ms; ratio {gui / engine:.2f}"
            )
        _open(window, big)
        n_tasks = len(window.project.tasks()) if window.project else 0
        idle = tick_gaps(window, run_batch=False, seconds=2.0)
        start = time.perf_counter()
        busy = tick_gaps(window, run_batch=True, seconds=120.0)
        batch_seconds = time.perf_counter() - start
        print(
            f"10 ms timer, idle:             median {statistics.median(idle):.1f} ms, p99 {p99(idle):.1f} ms, "
            f"max {max(idle):.0f} ms ({len(idle)} ticks)"
        )
        print(
            f"10 ms timer, during batch pass: median {statistics.median(busy):.1f} ms, p99 {p99(busy):.1f} ms, "
            f"max {max(busy):.0f} ms ({len(busy)} ticks; {n_tasks} tasks in {batch_seconds:.1f} s)"
        )
        window.close()
    del app
    return 0


if __name__ == "__main__":
    sys.exit(main())
