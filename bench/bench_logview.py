"""Benchmark: a 50 MB worker log opened in the Worker logs panel (issue 18), offscreen.

A run with one worker writing about 50 MB of log is generated with ``tests/runfactory.py``
(the lines upstream's writers produce), then opened in a :class:`LogView` shown at
1280x400, *repeat* times, each timed from ``set_run`` to:

* ``first``: the first rows in the table (the first slice);
* ``loaded``: every line read and in the table, filterable (and the process's CPU time
  meanwhile: on a machine shared with other jobs the wall time is that and the waiting);
* ``beat``: the longest the GUI thread went without running a 10 ms timer meanwhile
  (the window's responsiveness while the log is read), and the CPU time of the longest
  slice the panel worked (the gap is that plus whatever else the machine runs);

then a filter change (level ``warning``; a text search) timed until the table is full
again, and, for comparison, the same level filter through a ``QSortFilterProxyModel``
whose ``filterAcceptsRow`` is Python, as the house's other tables filter.  Medians.

    QT_QPA_PLATFORM=offscreen python bench/bench_logview.py
    QT_QPA_PLATFORM=offscreen python bench/bench_logview.py --lines 30000   # smaller
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
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QElapsedTimer, QModelIndex, QPersistentModelIndex, QSortFilterProxyModel, QTimer
from PySide6.QtWidgets import QApplication

from ctxviewer.engine.runfiles.logstore import LogFilter
from ctxviewer.engine.runfiles.rundir import discover_run
from ctxviewer.gui.views.logview import LogView
from tests.runfactory import write_run


class Heartbeat:
    """The longest gap between two ticks of a 10 ms timer on the GUI thread."""

    def __init__(self) -> None:
        self.clock = QElapsedTimer()
        self.longest = 0
        self.timer = QTimer()
        self.timer.setInterval(10)
        self.timer.timeout.connect(self._tick)

    def start(self) -> None:
        self.longest = 0
        self.clock.start()
        self.timer.start()

    def _tick(self) -> None:
        self.longest = max(self.longest, self.clock.restart())

    def stop(self) -> int:
        self.timer.stop()
        return self.longest


def _until(app: QApplication, done: Any, limit: float = 120.0) -> None:
    end = time.perf_counter() + limit
    while not done():
        app.processEvents()
        if time.perf_counter() > end:
            raise SystemExit("timed out")


class _LevelProxy(QSortFilterProxyModel):
    def __init__(self, view: LogView, level: int) -> None:
        super().__init__()
        self.column = view.store.level
        self.wanted = level

    def filterAcceptsRow(self, row: int, parent: QModelIndex | QPersistentModelIndex) -> bool:
        return self.column[row] == self.wanted


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=292_000, help="log lines (292,000: about 50 MB)")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    app = QApplication.instance() or QApplication(sys.argv)
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} cpus, load average {load}")
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        write_run(root, workers=1, lines=args.lines, rotate=())
        log = root / ".mahabharatha" / "logs" / "workers" / "worker-1.jsonl"
        (log.parent / "worker-orchestrator.jsonl").unlink()
        lines = log.read_bytes().count(b"\n")
        print(f"log: {log.stat().st_size:,} bytes, {lines:,} lines")
        run = discover_run(log)
        firsts, loads, cpus, beats, levels, texts, slices = [], [], [], [], [], [], []
        for _ in range(args.repeat):
            view = LogView()
            view.resize(1280, 400)
            view.show()
            app.processEvents()
            beat = Heartbeat()
            beat.start()
            cpu = time.process_time()
            view.set_run(run)
            _until(app, lambda v=view: "loaded" in v.timings)
            cpus.append(time.process_time() - cpu)
            beats.append(beat.stop())
            t = view.timings
            slices.append(t["slice_cpu"])
            firsts.append(t["first"] - t["started"])
            loads.append(t["loaded"] - t["started"])
            for spec, out in ((LogFilter(level="warning"), levels), (LogFilter(text="lint found"), texts)):
                start = time.perf_counter()
                view.set_filter(spec)
                _until(app, lambda v=view: not v.is_busy())
                out.append(time.perf_counter() - start)
            shown = view.model.rowCount()
            view.set_filter(LogFilter())
            _until(app, lambda v=view: not v.is_busy())
            total = view.model.rowCount()
            view.stop()
            view.close()
            view.deleteLater()
            app.processEvents()
        ms = statistics.median
        print(f"rows: {total:,}; 'lint found' shows {shown:,}")
        print(f"first rows shown   median {ms(firsts) * 1000:7.0f} ms  {[round(x * 1000) for x in firsts]}")
        print(f"all read, filterable median {ms(loads) * 1000:5.0f} ms  {[round(x * 1000) for x in loads]}")
        print(f"  CPU time of that  median {ms(cpus) * 1000:7.0f} ms  {[round(x * 1000) for x in cpus]}")
        print(f"longest GUI-thread gap while reading: median {ms(beats)} ms  {beats}")
        print(f"longest slice, CPU time: median {ms(slices) * 1000:.0f} ms  {[round(x * 1000) for x in slices]}")
        print(f"filter level=warning  median {ms(levels) * 1000:7.0f} ms  {[round(x * 1000) for x in levels]}")
        print(f"search 'lint found'   median {ms(texts) * 1000:7.0f} ms  {[round(x * 1000) for x in texts]}")
        # The same level filter through a QSortFilterProxyModel with a Python filterAcceptsRow.
        view = LogView()
        view.set_run(run)
        view.start()
        _until(app, lambda: "loaded" in view.timings)
        proxy = _LevelProxy(view, view.store.levels.index["warning"])
        start = time.perf_counter()
        proxy.setSourceModel(view.model)
        proxy.rowCount()
        took = time.perf_counter() - start
        print(f"QSortFilterProxyModel, level=warning: {took * 1000:.0f} ms in one block ({proxy.rowCount():,} rows)")
        view.stop()


if __name__ == "__main__":
    main()
