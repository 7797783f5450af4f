"""Benchmark: writing batch's JSON lines (``trace_json_line``) against the standard library.

Assembles every task of a generated project once (``--tasks``, as ``bench_batch.py`` makes it),
then times, over all its traces: ``trace_json_line`` (what ``batch`` writes: orjson, with the
items written in pieces held per paragraph), orjson over the whole plain data
(``trace_to_json``, each item a dict), building that data alone, and ``json.dumps`` of the
same data with the same separators (the standard library's writer).  Prints the median
CPU seconds of ``--repeat`` runs of each, the MB written and the ratios.

    python bench/bench_jsonline.py              # ~700 tasks (20 features)
    python bench/bench_jsonline.py --tasks 140
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

sys.path.insert(0, str(Path(__file__).resolve().parent))
import orjson
from bench_batch import generate

from ctxviewer.engine.project.loading import load_project
from ctxviewer.engine.runs.batch import run_batch
from ctxviewer.engine.trace import jsonline
from ctxviewer.engine.trace.jsonline import trace_json_line
from ctxviewer.engine.trace.model import Trace, trace_to_json


def _median_cpu(work: Callable[[], int], repeat: int) -> tuple[float, int]:
    runs, size = [], 0
    for _ in range(repeat):
        start = time.process_time()
        size = work()
        runs.append(time.process_time() - start)
    return statistics.median(runs), size


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=700)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = generate(Path(tmp) / "project", args.tasks, 2.0)
        traces: list[Trace] = [r.trace for r in run_batch(load_project(root), exact=True) if r.trace is not None]
    machine = f"{platform.node()}, {platform.machine()}, {os.cpu_count()} cores"
    print(f"machine: {machine}, Python {platform.python_version()}")
    items = sum(len(t.items) for t in traces)
    print(f"{len(traces)} traces, {items:,} items; medians of {args.repeat} runs, CPU seconds")
    ours, size = _median_cpu(lambda: sum(len(trace_json_line(t)) for t in traces), args.repeat)
    whole, _ = _median_cpu(
        lambda: sum(len(orjson.dumps(trace_to_json(t, jsonline._items_data))) for t in traces), args.repeat
    )
    plain, _ = _median_cpu(lambda: sum(len(trace_to_json(t, jsonline._items_data)) for t in traces), args.repeat)
    std, std_size = _median_cpu(
        lambda: sum(len(json.dumps(trace_to_json(t), ensure_ascii=False, separators=(",", ":"))) for t in traces),
        args.repeat,
    )
    print(f"trace_json_line (items in pieces): {ours:.3f} s  ({size / 1e6:.0f} MB, {size / 1e6 / ours:.0f} MB/s)")
    print(f"orjson of the whole plain data:    {whole:.3f} s  ratio {whole / ours:.2f}x")
    print(f"  of which the plain data:         {plain:.3f} s")
    print(f"json.dumps of the plain data:      {std:.3f} s  ({std_size / 1e6:.0f} MB)  ratio {std / ours:.1f}x")
    print(f"load average {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
