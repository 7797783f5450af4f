"""Benchmark: the fast refits of ``drift`` and ``computed`` against the whole-run refit.

Exact sensitivity calls a task's refit at every integer budget from the bottom of the range
up to its ceiling.  For each variant below and each sample project this prints, over the
project's tasks, for the fast refit (the one ``REFITS`` gives) and for ``WholeRunRefit`` (a
whole run per call, files read once):

* the median microseconds per ``fates()`` call -- for the fast refit, each task's time over
  every budget of bottom..ceiling divided by their number; for the whole-run refit, the
  median of ``--whole-calls`` calls spread over the same range (every one would take minutes);
* the median time per task to enumerate bottom..ceiling: measured for the fast refit, its
  build included (the build alone in brackets), projected for the whole-run refit (its
  median per call times the number of budgets);
* the ratios, and the median number of budgets per task.

A project whose tasks have nothing to cut (no context map for ``computed``) has a ceiling
at the bottom of the range: one budget per task.

    python bench/bench_refit_drift.py
    python bench/bench_refit_drift.py --whole-calls 40 --variants drift,computed
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ctxviewer.engine.profiles.refit_contract import budget_range  # noqa: E402
from ctxviewer.engine.project.loading import load_project  # noqa: E402
from ctxviewer.engine.runs.sensitivity import REFITS, WholeRunRefit, refit_for  # noqa: E402

SAMPLES = ("ledger-service", "storefront-web", "edge-cases")
#: (name, setting overrides).
VARIANTS: dict[str, Mapping[str, Any]] = {
    "drift": {"profile": "drift"},
    "drift-whole-sources": {"profile": "drift", "drift_partial": False},
    "computed": {"profile": "computed"},
}


def bench(variant: str, overrides: Mapping[str, Any], whole_calls: int) -> None:
    print(f"{variant}:")
    for name in SAMPLES:
        project = load_project(ROOT / "sample_projects" / name)
        settings = project.settings.with_overrides(dict(overrides), "bench")
        bottom = budget_range(settings)[0]
        fast_call, fast_task, builds, whole_call, whole_task, counts = [], [], [], [], [], []
        kinds: set[str] = set()
        for feature, task in project.tasks():
            start = time.perf_counter()
            refit = refit_for(project, feature, task, settings)
            built = time.perf_counter()
            budgets = range(bottom, refit.ceiling() + 1)
            for budget in budgets:
                refit.fates(budget)
            done = time.perf_counter()
            kinds.add(type(refit).__name__)
            counts.append(len(budgets))
            builds.append(built - start)
            fast_task.append(done - start)
            fast_call.append((done - built) / len(budgets))
            whole = WholeRunRefit(project, feature, task, settings)
            whole.fates(bottom)  # the first call reads the files
            calls: list[float] = []
            for n in range(whole_calls):
                t0 = time.perf_counter()
                whole.fates(budgets[len(budgets) * n // whole_calls])
                calls.append(time.perf_counter() - t0)
            whole_call.append(statistics.median(calls))
            whole_task.append(statistics.median(calls) * len(budgets))
        call_us, whole_us = statistics.median(fast_call) * 1e6, statistics.median(whole_call) * 1e6
        task_ms, whole_ms = statistics.median(fast_task) * 1e3, statistics.median(whole_task) * 1e3
        build_ms = statistics.median(builds) * 1e3
        refits = ", ".join(sorted(kinds))
        print(f"  {name:15} {len(counts):3} tasks, {statistics.median(counts):6.0f} budgets/task ({refits})")
        print(f"    fates() per call  fast {call_us:8.2f} us   whole run {whole_us:8.1f} us   ", end="")
        print(f"ratio {whole_us / call_us:7.0f}x")
        print(f"    bottom..ceiling   fast {task_ms:8.2f} ms   whole run {whole_ms:8.1f} ms   ", end="")
        print(f"ratio {whole_ms / task_ms:7.0f}x   (fast build {build_ms:.2f} ms)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--whole-calls", type=int, default=15, help="whole-run fates() calls timed per task")
    parser.add_argument("--variants", default=",".join(VARIANTS), help="comma-separated: " + ", ".join(VARIANTS))
    args = parser.parse_args(argv)
    python = f"{platform.python_implementation()} {platform.python_version()}"
    print(f"{python}, {os.cpu_count()} cores; fast refits registered: {', '.join(sorted(REFITS))}")
    for variant in args.variants.split(","):
        bench(variant, VARIANTS[variant], args.whole_calls)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
