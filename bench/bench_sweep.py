"""Benchmark: a sweep of every task at 29 budgets against one batch over the same tasks.

Generates the same project as ``bench_batch.py`` (about ``--tasks`` tasks, ``--spec-mb`` MB of
specs), then, from cold caches each time, times

* one batch over every task as ``ctxviewer batch`` runs it (exact counts, cl100k_base and
  o200k_base), and the same batch with the decision tokenizer's counts only;
* the sweep ``--budget 1000:8000:250`` (29 budgets) over the same tasks as ``ctxviewer
  sweep`` runs it (the decision tokenizer's counts, the default finding codes).

It prints the medians of ``--repeat`` runs and the ratios sweep / batch (the target is under 10).

    python bench/bench_sweep.py
    python bench/bench_sweep.py --tasks 700 --repeat 3 --exact   # the sweep with exact counts too
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

from ctxviewer.engine.project.loading import load_project
from ctxviewer.engine.runs.batch import run_batch
from ctxviewer.engine.runs.sweep import parse_budget_range, run_sweep
from ctxviewer.engine.tokens import counting as tokens

sys.path.insert(0, str(Path(__file__).parent))
from bench_batch import _reset_caches, generate


def _time(fn: object) -> float:
    _reset_caches()
    start = time.perf_counter()
    fn()  # type: ignore[operator]
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=700)
    parser.add_argument("--spec-mb", type=float, default=2.0)
    parser.add_argument("--budget", default="1000:8000:250")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--exact", action="store_true", help="also time the sweep with exact counts")
    args = parser.parse_args()
    budgets = parse_budget_range(args.budget)

    with tempfile.TemporaryDirectory() as tmp:
        root = generate(Path(tmp) / "project", args.tasks, args.spec_mb)
        for name in tokens.EXACT_ENCODINGS:
            tokens.load_encoding(name)  # once, untimed
        project = load_project(root)
        n_tasks = sum(len(f.tasks) for f in project.features)

        def batch(exact: bool) -> None:
            for _row in run_batch(project, exact=exact):
                pass  # rows streamed and dropped, as `ctxviewer batch` writes them

        def sweep(exact: bool) -> None:
            run_sweep(project, budgets, exact=exact)

        times: dict[str, list[float]] = {"batch exact": [], "batch decision": [], "sweep": [], "sweep exact": []}
        for _ in range(args.repeat):
            times["batch exact"].append(_time(lambda: batch(True)))
            times["batch decision"].append(_time(lambda: batch(False)))
            times["sweep"].append(_time(lambda: sweep(False)))
            if args.exact:
                times["sweep exact"].append(_time(lambda: sweep(True)))

    med = {k: statistics.median(v) for k, v in times.items() if v}
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    python = f"{platform.python_implementation()} {platform.python_version()}"
    print(f"machine: {platform.machine()}, {python}, {cpus} cores")
    print(f"project: {n_tasks} tasks; sweep: {len(budgets)} budgets ({args.budget}), {n_tasks * len(budgets):,} cells")
    for name, value in med.items():
        print(f"{name}, median of {args.repeat}: {value:.2f} s")
    print(f"ratio sweep / batch (exact, as `ctxviewer batch` runs): {med['sweep'] / med['batch exact']:.2f}")
    print(f"ratio sweep / batch (decision tokenizer only, like for like): {med['sweep'] / med['batch decision']:.2f}")
    if "sweep exact" in med:
        print(f"ratio sweep exact / batch exact: {med['sweep exact'] / med['batch exact']:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
