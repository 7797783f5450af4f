"""Benchmark: the shaktiman refit against whole runs, on every task of the sample projects.

What exact sensitivity asks of a refit: the fates at every integer budget from the bottom
of the range (256) up to its ceiling.  For each task this measures

* **build**: building the refit (the stages before packing, once, and a count of each chunk);
* **replay**: one :meth:`ShaktimanRefit.span` call, a replay of packing with nothing
  cached (the median over budgets spread over 256..ceiling);
* **fates**: one :meth:`fates` call while enumerating 256..ceiling in order (most are
  answered from the span already found: the median is what the enumeration pays per budget);
* **enumerate**: build + ceiling + every ``fates`` call of 256..ceiling, the whole of it;
* **whole**: one :class:`WholeRunRefit` ``fates`` call (a whole run, files read once per
  refit), the median over ``--whole`` budgets spread over 256..ceiling; its enumeration
  time is that median times the number of budgets (running them all would take minutes
  per task), labelled as an extrapolation.

It prints a line per task and the medians over tasks, with the ratios::

    python bench/bench_refit_shaktiman.py
    python bench/bench_refit_shaktiman.py --whole 40 --projects storefront-web
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ctxviewer.engine.profiles.shaktiman.refit import ShaktimanRefit  # noqa: E402
from ctxviewer.engine.project.loading import load_project  # noqa: E402
from ctxviewer.engine.runs.sensitivity import WholeRunRefit, refit_for  # noqa: E402

PROJECTS = ("ledger-service", "storefront-web", "edge-cases")


def spread(lo: int, hi: int, n: int) -> list[int]:
    """*n* budgets evenly spread over lo..hi (fewer when the range is shorter)."""
    if hi <= lo:
        return [lo]
    return sorted({lo + (hi - lo) * k // max(1, n - 1) for k in range(n)})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--projects", default=",".join(PROJECTS), help="sample projects, comma-separated")
    parser.add_argument("--whole", type=int, default=12, help="whole runs timed per task (default 12)")
    parser.add_argument("--replays", type=int, default=200, help="uncached replays timed per task (default 200)")
    args = parser.parse_args(argv)
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    print(
        f"{'task':<34}{'ceiling':>8}{'build ms':>10}{'replay us':>11}{'fates us':>10}"
        f"{'enum ms':>9}{'whole us':>10}{'whole enum s':>14}{'ratio':>8}"
    )
    rows: list[tuple[float, float, float, float, float, float]] = []
    clock = time.perf_counter
    for name in args.projects.split(","):
        project = load_project(ROOT / "sample_projects" / name)
        settings = project.settings.with_overrides({"profile": "shaktiman"}, "bench")
        for feature, task in project.tasks():
            start = clock()
            refit = refit_for(project, feature, task, settings)
            built = clock()
            assert isinstance(refit, ShaktimanRefit), task.id
            ceiling = refit.ceiling()
            calls = []
            for budget in range(256, ceiling + 1):
                t = clock()
                refit.fates(budget)
                calls.append(clock() - t)
            enumerate_s = clock() - start
            replays = []
            for budget in spread(256, ceiling, args.replays):
                t = clock()
                refit.span(budget)
                replays.append(clock() - t)
            whole = WholeRunRefit(project, feature, task, settings)
            wholes = []
            for budget in spread(256, ceiling, args.whole):
                t = clock()
                whole.fates(budget)
                wholes.append(clock() - t)
            whole_us = statistics.median(wholes) * 1e6
            whole_enum = statistics.median(wholes) * (ceiling - 255)
            row = (
                (built - start) * 1e3,
                statistics.median(replays) * 1e6,
                statistics.median(calls) * 1e6,
                enumerate_s * 1e3,
                whole_us,
                whole_enum,
            )
            rows.append(row)
            print(
                f"{name + ' ' + task.id:<34}{ceiling:>8}{row[0]:>10.1f}{row[1]:>11.1f}{row[2]:>10.2f}"
                f"{row[3]:>9.1f}{row[4]:>10.0f}{row[5]:>14.1f}{row[5] / (row[3] / 1e3):>8.0f}"
            )
    med = [statistics.median(r[i] for r in rows) for i in range(6)]
    print(f"\nmedians over {len(rows)} tasks:")
    print(f"  build {med[0]:.1f} ms; replay (uncached) {med[1]:.1f} us; fates while enumerating {med[2]:.2f} us")
    print(f"  enumerate 256..ceiling {med[3]:.1f} ms per task")
    print(f"  whole run {med[4]:.0f} us per fates(); 256..ceiling by whole runs {med[5]:.1f} s per task (extrapolated)")
    print(
        f"  ratio per call: whole / replay {med[4] / med[1]:.0f}x, whole / enumerating fates {med[4] / med[2]:.0f}x; "
        f"per task enumeration: {med[5] / (med[3] / 1e3):.0f}x"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
