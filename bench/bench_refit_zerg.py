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
import os
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


class Clock:
    """Wall and CPU seconds of what runs inside ``with``: the VM's cores are shared, so CPU time
    is the steadier of the two."""

    def __enter__(self) -> Clock:
        self.wall, self.cpu = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc: object) -> None:
        self.wall, self.cpu = time.perf_counter() - self.wall, time.process_time() - self.cpu


def _keep(m: dict[str, tuple[list[float], list[float]]], key: str, clock: Clock) -> None:
    m[key][0].append(clock.wall)
    m[key][1].append(clock.cpu)


def _line(label: str, wall: list[float], cpu: list[float], scale: float, unit: str) -> str:
    return f"  {label:<30} median {_median(wall) * scale:10.1f} {unit} wall, {_median(cpu) * scale:10.1f} {unit} CPU"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--profiles", default="zerg-0.3.2,mahabharatha-latest")
    parser.add_argument("--whole-samples", type=int, default=40, help="whole runs per task for its median")
    parser.add_argument("--full-whole", type=int, default=1, help="tasks per project enumerated in full by whole runs")
    args = parser.parse_args(argv)
    print(f"python {platform.python_version()} on {platform.machine()}, {platform.system()}, {os.cpu_count()} CPUs")
    rng = random.Random(19)
    for root in sorted(p for p in (ROOT / "sample_projects").iterdir() if (p / ".gsd" / "specs").is_dir()):
        project = load_project(root)
        for profile in args.profiles.split(","):
            settings = project.settings.with_overrides({"profile": profile}, "bench")
            m: dict[str, tuple[list[float], list[float]]] = {
                k: ([], []) for k in ("build", "seq", "shuffled", "fast_enum", "whole_call", "whole_enum")
            }

            budgets: list[int] = []
            full: list[tuple[Clock, float]] = []  # (a whole enumeration measured, its CPU estimate)
            for n, (feature, task) in enumerate(project.tasks()):
                with Clock() as c:
                    refit = refit_for(project, feature, task, settings)
                _keep(m, "build", c)
                assert isinstance(refit, ZergRefit), f"{task.id}: {type(refit).__name__}"
                span = range(1, refit.ceiling() + 1)
                budgets.append(len(span))
                with Clock() as c:
                    for b in span:
                        refit.fates(b)
                _keep(m, "fast_enum", c)
                fresh = refit_for(project, feature, task, settings)  # cold caches, timed per call in order
                assert isinstance(fresh, ZergRefit)
                for b in span:
                    with Clock() as c:
                        fresh.fates(b)
                    _keep(m, "seq", c)
                order = list(span)
                rng.shuffle(order)
                fresh = refit_for(project, feature, task, settings)
                assert isinstance(fresh, ZergRefit)
                for b in order[:2000]:
                    with Clock() as c:
                        fresh.fates(b)
                    _keep(m, "shuffled", c)
                whole = WholeRunRefit(project, feature, task, settings)
                whole.fates(settings.budget)  # files read once, as for the fast refit's build
                calls: list[float] = []
                for b in sorted(rng.sample(order, min(args.whole_samples, len(order)))):
                    with Clock() as c:
                        whole.fates(b)
                    _keep(m, "whole_call", c)
                    calls.append(c.cpu)
                m["whole_enum"][0].append(float("nan"))
                m["whole_enum"][1].append(_median(calls) * len(span))
                if n < args.full_whole:
                    with Clock() as c:
                        for b in span:
                            whole.fates(b)
                    full.append((c, _median(calls) * len(span)))
            print(
                f"\n{root.name} / {profile}: {len(budgets)} tasks, {min(budgets):,}-{max(budgets):,} budgets each "
                f"(median {_median([float(b) for b in budgets]):,.0f})"
            )
            print(_line("build (one run)", *m["build"], 1e3, "ms"))
            print(_line("fates(), in order", *m["seq"], 1e6, "us"))
            print(_line("fates(), shuffled", *m["shuffled"], 1e6, "us"))
            print(_line("whole run per fates()", *m["whole_call"], 1e6, "us"))
            print(_line("enumerate 1..ceiling, fast", *m["fast_enum"], 1e3, "ms"))
            whole_enum = _median(m["whole_enum"][1])
            label = "enumerate 1..ceiling, whole"
            print(f"  {label:<30} median {whole_enum:10.1f} s CPU (estimated: median per call x budgets)")
            fast_cpu, fast_enum_cpu = _median(m["seq"][1]), _median(m["fast_enum"][1])
            print(
                f"  ratio whole / fast (CPU)       per call {_median(m['whole_call'][1]) / fast_cpu:,.0f}x, "
                f"per task's enumeration {whole_enum / fast_enum_cpu:,.0f}x"
            )
            for c, estimate in full:
                print(f"  one task enumerated by whole runs in full: {c.wall:.1f} s wall, {c.cpu:.1f} s CPU "
                      f"(estimated {estimate:.1f} s CPU)")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
