"""Benchmark: the peak memory and time of ``follow --once`` on one very large worker log.

A run folder is generated with ``tests/runfactory.py`` (upstream's line format: a state file,
token records, one worker), and its worker log is then grown to ``--lines`` lines (2,000,000 by
default: about 300 MB) by repeating its lines -- process starts, task events and all -- so the
log, not the JSON documents, is what is large.  Then
``python -m ctxviewer follow RUN --once`` runs in a child process ``--repeat`` times; each
run's peak resident memory (``ru_maxrss`` of that child, from ``wait4``) and wall time are
printed, with their medians.  The documented bound is in docs/run-files.md.

    python bench/bench_follow_memory.py
    python bench/bench_follow_memory.py --lines 200000 --repeat 3 --format json
    python bench/bench_follow_memory.py --format window   # the window's Worker logs panel
    python bench/bench_follow_memory.py --baseline /path/to/other/checkout   # side by side
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import host_speed  # noqa: E402

from tests.runfactory import write_run  # noqa: E402

#: The window's Worker logs panel, offscreen: the log read whole, then a text search over every line.
_WINDOW = """
import os, sys, resource
os.environ["QT_QPA_PLATFORM"] = "offscreen"
from PySide6.QtWidgets import QApplication
app = QApplication([])
from ctxviewer.gui.views.logview import LogView
from ctxviewer.engine.runfiles.logstore import LogFilter
view = LogView()
view.resize(1280, 400)
view.show()
view.loaded.connect(app.quit)
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
view.open_path(sys.argv[1])
app.exec()
view.set_filter(LogFilter(text="completed"))
while view.is_busy():
    app.processEvents()
print(len(view.store), view.model.rowCount(), before // 1024, file=sys.stderr)
"""


def _follow_once(checkout: Path, run: Path, fmt: str) -> tuple[float, float]:
    """(peak MB, seconds) of one ``follow --once`` (or, for *fmt* ``window``, the log panel) in a
    fresh child process."""
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    began = time.perf_counter()
    command = ["-c", _WINDOW, str(run)] if fmt == "window" else ["-m", "ctxviewer", "follow", str(run), "--once"]
    proc = subprocess.Popen(
        [sys.executable, *command, *(["--format", fmt] if fmt != "window" else [])],
        cwd=checkout,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    _pid, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - began
    assert proc.stderr is not None
    errors = proc.stderr.read().decode("utf-8", "replace")
    proc.stderr.close()
    code = os.waitstatus_to_exitcode(status)
    if fmt == "window" and code == 0:
        rows, shown, before = errors.split()[-3:]
        print(f"  (window: {int(rows):,} rows, {int(shown):,} found by a text search; {before} MB before the logs)")
    if code not in (0, 1):
        raise SystemExit(f"follow exited {code}: {errors.strip()}")
    return usage.ru_maxrss / 1024, seconds


def _measure(label: str, checkout: Path, run: Path, repeat: int, fmt: str) -> tuple[float, float]:
    peaks, times = [], []
    for n in range(repeat):
        peak, seconds = _follow_once(checkout, run, fmt)
        peaks.append(peak)
        times.append(seconds)
        print(f"  {label} run {n + 1}: peak {peak:7.1f} MB, {seconds:6.2f} s", flush=True)
    return statistics.median(peaks), statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=2_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--format",
        default="text",
        choices=("text", "json", "window"),
        help="follow's output format, or the window's Worker logs panel reading the log and searching it",
    )
    parser.add_argument("--baseline", type=Path, help="another checkout, measured side by side")
    args = parser.parse_args()
    print(f"python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} cpus; {host_speed.describe()}")
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        write_run(root, workers=1, lines=20_000, rotate=())
        log = next(root.rglob("worker-1.jsonl"))
        pattern = log.read_bytes()
        per = pattern.count(b"\n")
        with log.open("ab") as handle:
            for _ in range(args.lines // per - 1):
                handle.write(pattern)
        logs = list(root.rglob("worker-*.jsonl"))
        size = sum(p.stat().st_size for p in logs)
        count = sum(1 for p in logs for _ in p.open("rb"))
        print(f"one worker log: {count:,} lines, {size / 1e6:,.0f} MB")
        peak, seconds = _measure("this   ", ROOT, root, args.repeat, args.format)
        print(f"this checkout: peak {peak:.1f} MB median, {seconds:.2f} s median")
        if args.baseline is not None:
            base_peak, base_seconds = _measure("baseline", args.baseline.resolve(), root, args.repeat, args.format)
            print(f"baseline:      peak {base_peak:.1f} MB median, {base_seconds:.2f} s median")
            print(f"ratio this/baseline: memory {peak / base_peak:.2f}x, time {seconds / base_seconds:.2f}x")


if __name__ == "__main__":
    main()
