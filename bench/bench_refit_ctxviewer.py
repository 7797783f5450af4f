"""Benchmark: the ctxviewer profile's fast refit against the whole-run refit, on the sample projects.

For every task of every sample project (profile ``ctxviewer``, the project's settings), it
builds both refits and measures

* the fast refit: building it, :meth:`ceiling`, enumerating ``fates(b)`` at every integer
  budget from the bottom of the range to the ceiling (the first pass, memos cold, as the
  sensitivity computation does it), each call timed; then the same again (memos warm); and
  every integer section budget of each share at the built budget;
* the whole-run refit: ``fates(b)`` at ``--whole-samples`` budgets spread over the same range,
  each timed; its enumeration time is the median times the number of budgets (running it
  for real would take minutes per task).

It prints the per-task numbers, then the medians over tasks and the ratios::

    python bench/bench_refit_ctxviewer.py
    python bench/bench_refit_ctxviewer.py --projects ledger-service --whole-samples 40
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ctxviewer.engine.profiles.ctxviewer.refit import CtxviewerRefit  # noqa: E402
from ctxviewer.engine.project.loading import load_project  # noqa: E402
from ctxviewer.engine.runs.sensitivity import WholeRunRefit, refit_for  # noqa: E402

SAMPLES = ("ledger-service", "storefront-web", "edge-cases")


def _timed(fn, *args):  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    out = fn(*args)
    return out, time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--projects", default=",".join(SAMPLES), help="sample projects, comma-separated")
    parser.add_argument("--whole-samples", type=int, default=25, help="whole-run calls timed per task")
    args = parser.parse_args(argv)
    print(f"python {platform.python_version()}, {os.cpu_count()} cpus, {platform.machine()}")
    print(
        f"{'task':<28}{'build ms':>9}{'ceil':>7}{'ceil ms':>8}{'enum ms':>9}{'µs/call':>9}{'warm µs':>8}"
        f"{'share µs':>9}{'whole µs':>10}{'whole enum s':>13}{'ratio':>7}"
    )
    cold, warm, share_calls, whole_calls = [], [], [], []
    enum_fast, enum_whole, fallbacks = [], [], 0
    for name in args.projects.split(","):
        project = load_project(ROOT / "sample_projects" / name)
        settings = replace(project.settings, profile="ctxviewer")
        for feature in project.features:
            for task in feature.tasks:
                refit, build = _timed(refit_for, project, feature, task, settings)
                if not isinstance(refit, CtxviewerRefit):
                    fallbacks += 1
                    print(f"{task.id:<28} falls back to {type(refit).__name__}")
                    continue
                ceiling, ceil_time = _timed(refit.ceiling)
                budgets = range(1, ceiling + 1)
                times = []
                start = time.perf_counter()
                for b in budgets:
                    t0 = time.perf_counter()
                    refit.fates(b)
                    times.append(time.perf_counter() - t0)
                enum = time.perf_counter() - start
                again = []
                for b in budgets:
                    t0 = time.perf_counter()
                    refit.fates(b)
                    again.append(time.perf_counter() - t0)
                shares = []
                for key in ("security_share", "spec_share"):
                    for k in range(settings.budget + 1):
                        t0 = time.perf_counter()
                        refit.fates(settings.budget, {key: (k + 0.5) / settings.budget})
                        shares.append(time.perf_counter() - t0)
                whole = WholeRunRefit(project, feature, task, settings)
                step = max(1, ceiling // args.whole_samples)
                slow = []
                for b in range(1, ceiling + 1, step):
                    t0 = time.perf_counter()
                    whole.fates(b)
                    slow.append(time.perf_counter() - t0)
                med, med_warm, med_share, med_slow = (statistics.median(x) for x in (times, again, shares, slow))
                whole_enum = med_slow * len(budgets)
                cold.append(med)
                warm.append(med_warm)
                share_calls.append(med_share)
                whole_calls.append(med_slow)
                enum_fast.append(enum + build + ceil_time)
                enum_whole.append(whole_enum)
                print(
                    f"{name[:10] + ' ' + task.id:<28}{build * 1e3:>9.1f}{ceiling:>7}{ceil_time * 1e3:>8.1f}"
                    f"{enum * 1e3:>9.1f}{med * 1e6:>9.1f}{med_warm * 1e6:>8.1f}{med_share * 1e6:>9.1f}"
                    f"{med_slow * 1e6:>10.0f}{whole_enum:>13.2f}{whole_enum / (enum + build + ceil_time):>7.0f}"
                )
    if not cold:
        print("no fast refit")
        return 1
    m = statistics.median
    print()
    print(f"tasks {len(cold)}, fallbacks {fallbacks}")
    print(
        f"median µs per fates() call: fast first pass {m(cold) * 1e6:.1f}, fast warm {m(warm) * 1e6:.1f}, "
        f"fast with shares {m(share_calls) * 1e6:.1f}, whole run {m(whole_calls) * 1e6:.0f} "
        f"(ratio {m(whole_calls) / m(cold):.0f}x first pass)"
    )
    print(
        f"median per-task enumeration bottom..ceiling: fast {m(enum_fast) * 1e3:.1f} ms (build, ceiling and "
        f"every budget), whole run {m(enum_whole):.2f} s (estimated: median call x budgets), "
        f"ratio {m(enum_whole) / m(enum_fast):.0f}x"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
