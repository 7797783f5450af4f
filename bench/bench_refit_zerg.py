"""Benchmark: zerg's fast refit against the whole-run refit, on every task of the sample projects.

What exact sensitivity does per task: build a refit once, then ask for the fates at every
integer budget from the bottom of the range (1) up to the refit's ceiling.  For each sample
project and profile (``zerg-0.3.2``, ``mahabharatha-latest``) it prints

* the median time to build the fast refit (one run of the profile);
* the median microseconds per ``fates()`` call, asked in order bottom..ceiling (as sensitivity
  enumerates; consecutive budgets share their sections' budgets, which the refit caches) and in
  a shuffled order (mostly cache misses);
* the median time per task to enumerate bottom..ceiling with the fast refit (measured);
* the whole-run refit's median per call (``--whole-samples`` budgets spread over each task's
  range) and its per-task enumeration time: measured in full for the first task of each
  project (``--full-whole`` 0 skips it), estimated as median per call x budgets elsewhere;
* the ratios.

    python bench/bench_refit_zerg.py
    python bench/bench_refit_zerg.py --profiles zerg-0.3.2 --whole-samples 100
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ctxviewer.engine.profiles.zerg.refit import ZergRefit  # noqa: E402
from ctxviewer.engine.project.loading import load_project  # noqa: E402
from ctxviewer.engine.runs.sensitivity import WholeRunRefit, refit_for  # noqa: E402


def _median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--profiles", default="zerg-0.3.2,mahabharatha-latest")
    parser.add_argument("--whole-samples", type=int, default=40, help="whole runs per task for its median")
    parser.add_argument("--full-whole", type=int, default=1, help="tasks per project enumerated in full by whole runs")
    args = parser.parse_args(argv)
    print(f"python {platform.python_version()} on {platform.machine()}, {platform.system()}")
    rng = random.Random(19)
    for root in sorted(p for p in (ROOT / "sample_projects").iterdir() if (p / ".gsd" / "specs").is_dir()):
        project = load_project(root)
        for profile in args.profiles.split(","):
            settings = project.settings.with_overrides({"profile": profile}, "bench")
            build, seq, shuffled, fast_enum, fast_cpu, whole_call, whole_enum = [], [], [], [], [], [], []
            budgets: list[int] = []
            full: list[tuple[float, float]] = []  # (measured whole enumeration, its estimate)
            for n, (feature, task) in enumerate(project.tasks()):
                t0 = time.perf_counter()
                refit = refit_for(project, feature, task, settings)
                build.append(time.perf_counter() - t0)
                assert isinstance(refit, ZergRefit), f"{task.id}: {type(refit).__name__}"
                top = refit.ceiling()
                span = range(1, top + 1)
                budgets.append(len(span))
                t0, c0 = time.perf_counter(), time.process_time()
                for b in span:
                    refit.fates(b)
                fast_enum.append(time.perf_counter() - t0)
                fast_cpu.append(time.process_time() - c0)
                fresh = refit_for(project, feature, task, settings)  # cold caches, timed per call in order
                assert isinstance(fresh, ZergRefit)
                for b in span:
                    t0 = time.perf_counter()
                    fresh.fates(b)
                    seq.append(time.perf_counter() - t0)
                order = list(span)
                rng.shuffle(order)
                fresh = refit_for(project, feature, task, settings)
                assert isinstance(fresh, ZergRefit)
                for b in order[:2000]:
                    t0 = time.perf_counter()
                    fresh.fates(b)
                    shuffled.append(time.perf_counter() - t0)
                whole = WholeRunRefit(project, feature, task, settings)
                whole.fates(settings.budget)  # files read once, as for the fast refit's build
                calls = []
                for b in sorted(rng.sample(order, min(args.whole_samples, len(order)))):
                    t0 = time.perf_counter()
                    whole.fates(b)
                    calls.append(time.perf_counter() - t0)
                per_call = _median(calls)
                whole_call.extend(calls)
                whole_enum.append(per_call * len(span))
                if n < args.full_whole:
                    t0 = time.perf_counter()
                    for b in span:
                        whole.fates(b)
                    full.append((time.perf_counter() - t0, per_call * len(span)))
            fast_call, slow_call = _median(seq), _median(whole_call)
            print(
                f"\n{root.name} / {profile}: {len(build)} tasks, {min(budgets):,}-{max(budgets):,} budgets each "
                f"(median {_median([float(b) for b in budgets]):,.0f})"
            )
            print(f"  build (one run)             median {_median(build) * 1e3:8.2f} ms")
            print(f"  fates(), in order           median {fast_call * 1e6:8.1f} us")
            print(f"  fates(), shuffled           median {_median(shuffled) * 1e6:8.1f} us")
            ratio = slow_call / fast_call
            print(f"  whole run per fates()       median {slow_call * 1e6:8.1f} us   ratio {ratio:,.0f}x")
            print(
                f"  enumerate bottom..ceiling   median {_median(fast_enum) * 1e3:8.1f} ms fast "
                f"({_median(fast_cpu) * 1e3:.1f} ms of CPU)"
            )
            print(
                f"                              median {_median(whole_enum):8.1f} s whole (estimated)   "
                f"ratio {_median(whole_enum) / _median(fast_enum):,.0f}x"
            )
            for measured, estimate in full:
                print(f"  whole enumeration of one task, in full: {measured:.1f} s (estimated {estimate:.1f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
