"""Benchmark: the fast refits of ``drift`` and ``computed`` against the whole-run refit.

Exact sensitivity calls a task's refit at every integer budget from the bottom of the range
up to its ceiling.  For every task of the three sample projects and each variant below this
prints, for the fast refit (the one ``REFITS`` gives) and for ``WholeRunRefit`` (a whole run
per call, files read once):

* the median microseconds per ``fates()`` call -- the fast refit over every budget of
  bottom..ceiling, the whole-run refit over ``--whole-calls`` budgets spread over the same
  range (every one would take minutes);
* the median time per task to enumerate bottom..ceiling: measured for the fast refit (its
  build included), projected for the whole-run refit (its median per call times the count);
* the ratio of the two.

    python bench/bench_refit_drift.py
    python bench/bench_refit_drift.py --whole-calls 40 --variants drift
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

from ctxviewer.engine.profiles.refit import budget_range  # noqa: E402
from ctxviewer.engine.project.loading import load_project  # noqa: E402
from ctxviewer.engine.runs.sensitivity import REFITS, WholeRunRefit, refit_for  # noqa: E402

SAMPLES = ("ledger-service", "storefront-web", "edge-cases")
#: (name, setting overrides).
VARIANTS: dict[str, Mapping[str, Any]] = {
    "drift": {"profile": "drift"},
    "drift-whole-sources": {"profile": "drift", "drift_partial": False},
}


def _median_us(samples: list[float]) -> float:
    return statistics.median(samples) * 1e6


def bench(variant: str, overrides: Mapping[str, Any], whole_calls: int) -> None:
    fast_calls: list[float] = []
    fast_tasks: list[float] = []
    builds: list[float] = []
    whole_per_call: list[float] = []
    projected: list[float] = []
    kinds: set[str] = set()
    tasks = 0
    for name in SAMPLES:
        project = load_project(ROOT / "sample_projects" / name)
        settings = project.settings.with_overrides(dict(overrides), "bench")
        bottom = budget_range(settings)[0]
        for feature, task in project.tasks():
            tasks += 1
            start = time.perf_counter()
            refit = refit_for(project, feature, task, settings)
            built = time.perf_counter()
            ceiling = refit.ceiling()
            for budget in range(bottom, ceiling + 1):
                t0 = time.perf_counter()
                refit.fates(budget)
                fast_calls.append(time.perf_counter() - t0)
            fast_tasks.append(time.perf_counter() - start)
            builds.append(built - start)
            kinds.add(type(refit).__name__)
            whole = WholeRunRefit(project, feature, task, settings)
            whole.fates(bottom)  # the first call reads the files
            calls: list[float] = []
            for n in range(whole_calls):
                budget = bottom + (ceiling - bottom) * n // max(1, whole_calls - 1)
                t0 = time.perf_counter()
                whole.fates(budget)
                calls.append(time.perf_counter() - t0)
            whole_per_call.append(statistics.median(calls))
            projected.append(statistics.median(calls) * (ceiling - bottom + 1))
    fast_call, whole_call = _median_us(fast_calls), _median_us(whole_per_call)
    fast_task, whole_task = statistics.median(fast_tasks), statistics.median(projected)
    build = statistics.median(builds) * 1e3
    print(f"{variant}: {tasks} tasks, fast refit {', '.join(sorted(kinds))}")
    print(f"  fates() per call   fast {fast_call:9.1f} us   whole run {whole_call:9.1f} us   ", end="")
    print(f"ratio {whole_call / fast_call:6.0f}x")
    print(f"  bottom..ceiling    fast {fast_task * 1e3:9.2f} ms   whole run {whole_task * 1e3:9.1f} ms   ", end="")
    print(f"ratio {whole_task / fast_task:6.0f}x   (whole run projected; fast: build {build:.2f} ms of it)")


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
