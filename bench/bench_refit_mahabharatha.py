"""Benchmark: the seed ``mahabharatha`` run's fast refit against whole runs (WholeRunRefit).

For every task of the three sample projects (profile ``mahabharatha``, upstream the seed's,
the project's own budget and shares) it measures

* the fast refit: its build (one run), ``fates()`` at every integer budget from the bottom of
  the range to ``ceiling()`` (median microseconds per call), and the whole enumeration
  (build + ceiling + every call) per task;
* WholeRunRefit: ``fates()`` at ``--whole-samples`` budgets spread over the same range
  (median microseconds per call; the files are read once per refit, as it does), and the
  enumeration per task measured whole on the first ``--whole-tasks`` tasks, estimated as
  the first call (which reads the files) + mean call x the other budgets on the rest;

per call as the median of wall-clock times, totals in CPU time (the machine may be shared);

and prints the medians over tasks and the ratios.

    python bench/bench_refit_mahabharatha.py
    python bench/bench_refit_mahabharatha.py --tokenizer cl100k_base --whole-tasks 1
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

from ctxviewer.engine.profiles.refit_contract import budget_range  # noqa: E402
from ctxviewer.engine.project.loading import load_project  # noqa: E402
from ctxviewer.engine.runs.sensitivity import REFITS, WholeRunRefit  # noqa: E402

SAMPLES = ("storefront-web", "ledger-service", "edge-cases")
#: Totals in CPU time: the machine is shared, and wall time counts other processes' turns.
clock = time.process_time


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tokenizer", default="heuristic", choices=("heuristic", "cl100k_base", "o200k_base"))
    parser.add_argument("--whole-samples", type=int, default=40, help="budgets per task for WholeRunRefit's median")
    parser.add_argument("--whole-tasks", type=int, default=2, help="tasks whose whole-run enumeration is timed whole")
    args = parser.parse_args(argv)

    fast_calls: list[float] = []  # per task: median us per fates()
    fast_enum: list[float] = []  # per task: seconds, build + ceiling + every budget
    fast_build: list[float] = []
    whole_calls: list[float] = []
    whole_enum: list[float] = []  # per task: seconds, measured or estimated
    measured: list[tuple[float, float]] = []  # (fast, whole) enumeration where both were timed
    tasks = 0
    for name in SAMPLES:
        project = load_project(ROOT / "sample_projects" / name)
        settings = replace(project.settings, profile="mahabharatha", upstream="2026-01-30", tokenizer=args.tokenizer)
        bottom = budget_range(settings)[0]
        for feature in project.features:
            for task in feature.tasks:
                t0 = clock()
                refit = REFITS["mahabharatha"](project, feature, task, settings)
                t1 = clock()
                ceiling = refit.ceiling()
                for b in range(bottom, ceiling + 1):
                    refit.fates(b)
                t2 = clock()
                fast_build.append(t1 - t0)
                fast_enum.append(t2 - t0)
                calls = []
                for b in range(bottom, ceiling + 1, 7):
                    c0 = time.perf_counter()
                    refit.fates(b)
                    calls.append(time.perf_counter() - c0)
                fast_calls.append(statistics.median(calls) * 1e6)

                whole = WholeRunRefit(project, feature, task, settings)
                step = max(1, (ceiling - bottom + 1) // args.whole_samples)
                samples = []
                for b in range(bottom, ceiling + 1, step):
                    c0 = clock()
                    whole.fates(b)
                    samples.append(clock() - c0)
                whole_calls.append(statistics.median(samples[1:] or samples) * 1e6)
                if tasks < args.whole_tasks:
                    w0 = clock()
                    whole = WholeRunRefit(project, feature, task, settings)
                    for b in range(bottom, whole.ceiling() + 1):
                        whole.fates(b)
                    whole_enum.append(clock() - w0)
                    measured.append((fast_enum[-1], whole_enum[-1]))
                else:  # the first call reads the files; the others reuse them
                    whole_enum.append(samples[0] + statistics.mean(samples[1:] or samples) * (ceiling - bottom))
                tasks += 1

    med = statistics.median
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    print(f"{tasks} tasks of {', '.join(SAMPLES)}; tokenizer {args.tokenizer}")
    print(f"fast refit  build (one run)           median {med(fast_build) * 1e3:8.2f} ms")
    print(f"fast refit  fates() per call          median {med(fast_calls):8.2f} us")
    print(f"whole runs  fates() per call          median {med(whole_calls):8.2f} us")
    print(f"  ratio per call (whole / fast)              {med(whole_calls) / med(fast_calls):8.0f} x")
    print(f"fast refit  enumeration per task      median {med(fast_enum) * 1e3:8.2f} ms (build, ceiling, every budget)")
    how = f"the first {args.whole_tasks} timed, the rest first call + mean call x budgets"
    print(f"whole runs  enumeration per task      median {med(whole_enum) * 1e3:8.2f} ms ({how})")
    print(f"  ratio per task (whole / fast)              {med(whole_enum) / med(fast_enum):8.0f} x")
    for fast, whole in measured:
        print(f"  timed whole on one task: fast {fast * 1e3:.1f} ms, whole {whole * 1e3:.0f} ms ({whole / fast:.0f} x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
