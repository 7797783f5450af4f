"""Benchmark: exact sensitivity for one task, as the window computes it on selection.

For every task of the sample projects and every profile, it computes the whole
:class:`~ctxviewer.engine.runs.sensitivity.Sensitivity` (every integer budget up to the
ceiling, every section budget of each share, every top_k, every switch) and prints, per
profile, the median and worst seconds per task, the evaluations per task and the median
microseconds per budget evaluation.  As the baseline, in the same process, the budget axis
alone is computed for the same tasks with whole runs (``WholeRunRefit``, what a profile
without a refit of its own gets); the ratio is whole runs / refit for that axis.

    python bench/bench_sensitivity.py
    python bench/bench_sensitivity.py --profiles mahabharatha,drift --baseline-tasks 3
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time
from pathlib import Path

from ctxviewer.engine.files.reading import one_pass
from ctxviewer.engine.profiles.lookup import refit_builder
from ctxviewer.engine.project.loading import load_project
from ctxviewer.engine.registry import PROFILES
from ctxviewer.engine.runs.pipeline import assemble_task, run_profile
from ctxviewer.engine.runs.sensitivity import WholeRunRefit, sensitivity

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ("storefront-web", "ledger-service", "edge-cases")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--profiles", default=",".join(PROFILES))
    parser.add_argument("--baseline-tasks", type=int, default=2, help="tasks per profile timed with whole runs")
    args = parser.parse_args()
    print(f"machine: {platform.node()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    print(
        f"{'profile':<20} {'refit':<12} {'tasks':>5} {'median s':>9} {'worst s':>8} {'evals':>7} "
        f"{'us/budget':>9} {'whole-run us/budget':>20} {'ratio':>6}"
    )
    for profile in args.profiles.split(","):
        times: list[float] = []
        evals: list[int] = []
        per_budget: list[float] = []
        baseline: list[float] = []
        kind = ""
        for sample in SAMPLES:
            project = load_project(ROOT / "sample_projects" / sample)
            settings = project.settings.with_overrides({"profile": profile}, "bench")
            if profile == "shaktiman":
                settings = settings.with_overrides({"budget": max(256, min(settings.budget, 32_768))}, "bench")
            kind = "own" if refit_builder(run_profile(project, settings)[0]) is not None else "whole runs"
            fs = one_pass()
            for feature in project.features:
                for task in feature.tasks:
                    trace = fs.run(assemble_task, project, feature, task, settings, exact=False)
                    started = time.perf_counter()
                    sens = sensitivity(project, feature, task, settings, trace)
                    times.append(time.perf_counter() - started)
                    evals.append(sens.evaluations)
                    budget = sens.axis("budget")
                    assert budget is not None and budget.ceiling is not None
                    span = range(budget.lo, budget.ceiling + 1)
                    started = time.perf_counter()
                    sensitivity(project, feature, task, settings, trace, keys=["budget"])
                    per_budget.append((time.perf_counter() - started) / len(span) * 1e6)
                    if len(baseline) < args.baseline_tasks:
                        whole = WholeRunRefit(project, feature, task, settings)
                        step = max(1, len(span) // 400)
                        sample_budgets = span[::step]
                        started = time.perf_counter()
                        for b in sample_budgets:
                            whole.fates(b)
                        baseline.append((time.perf_counter() - started) / len(sample_budgets) * 1e6)
        fast = statistics.median(per_budget)
        slow = statistics.median(baseline) if baseline else float("nan")
        print(
            f"{profile:<20} {kind:<12} {len(times):>5} {statistics.median(times):>9.2f} {max(times):>8.2f} "
            f"{int(statistics.median(evals)):>7} {fast:>9.1f} {slow:>20.1f} {slow / fast:>6.1f}"
        )


if __name__ == "__main__":
    main()
