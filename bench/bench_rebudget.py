"""Benchmark: re-assembling one task after a budget or share change, inside the engine.

What the budget controls do on every change: the project is loaded, the task has run
once, and the user moves the total budget or a section share.  The target is one frame
(16 ms) median.  Measured on

* the sample feature with the largest spec (found by size under ``sample_projects/``);
* a generated project whose one feature has a ``--spec-mb`` MB spec (default 5).

For each it prints the cold first run (caches cleared) as the baseline, then the median
and 95th percentile of ``--repeat`` re-budgets cycling through budgets and shares, with
the decision tokenizer's counts only (``exact=False``) and with the exact tiktoken
counts the GUI shows (``exact=True``).

    python bench/bench_rebudget.py
    python bench/bench_rebudget.py --spec-mb 10 --repeat 200
    python bench/bench_rebudget.py --profiles mahabharatha,drift,shaktiman,ctxviewer
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

from ctxviewer.engine.project.loading import Feature, Project, load_project
from ctxviewer.engine.runs.pipeline import assemble_task
from ctxviewer.engine.signals import spec as spec_mod
from ctxviewer.engine.tokens import counting as tokens

sys.path.insert(0, str(Path(__file__).parent))
from bench_batch import generate

ROOT = Path(__file__).resolve().parent.parent


def _clear() -> None:
    spec_mod.clear_caches()
    from ctxviewer.engine.profiles import mahabharatha
    from ctxviewer.engine.profiles.ctxviewer import run as ctxviewer_run

    mahabharatha.clear_caches()
    ctxviewer_run._matches.clear()
    for counter in tokens._counters.values():
        if isinstance(counter, tokens.TiktokenCounter):
            counter._cache.clear()


def _largest_sample() -> tuple[Path, str]:
    best: tuple[int, Path, str] | None = None
    for project in sorted((ROOT / "sample_projects").iterdir()):
        for spec_dir in sorted(project.glob(".gsd/specs/*")):
            size = sum(p.stat().st_size for p in spec_dir.glob("*.md"))
            if best is None or size > best[0]:
                best = (size, project, spec_dir.name)
    assert best is not None, "no sample project with specs"
    return best[1], best[2]


def _changes(n: int) -> list[dict[str, object]]:
    """*n* setting changes as a user dragging the controls would make them."""
    out: list[dict[str, object]] = []
    for i in range(n):
        if i % 3 == 0:
            out.append({"budget": 800 + (i * 97) % 9000})
        elif i % 3 == 1:
            out.append({"spec_share": round(0.2 + (i % 40) / 100, 2)})
        else:
            out.append({"security_share": round(0.1 + (i % 30) / 100, 2)})
    return out


def _measure(project: Project, feature: Feature, exact: bool, repeat: int, profile: str) -> tuple[float, float, float]:
    task = feature.tasks[0]
    base = project.settings.with_overrides({"profile": profile}, "bench")
    _clear()
    start = time.perf_counter()
    assemble_task(project, feature, task, base, exact=exact)
    cold = time.perf_counter() - start
    times = []
    for change in _changes(repeat):
        settings = base.with_overrides(change, "bench")
        start = time.perf_counter()
        assemble_task(project, feature, task, settings, exact=exact)
        times.append(time.perf_counter() - start)
    times.sort()
    p95 = times[min(len(times) - 1, round(0.95 * (len(times) - 1)))]
    return cold, statistics.median(times), p95


def _report(label: str, project: Project, feature: Feature, repeat: int, profiles: list[str]) -> None:
    spec_bytes = sum(
        project.fs.file_size(f"{feature.spec_dir}/{n}") or 0 for n in project.fs.list_dir(feature.spec_dir)
    )
    print(f"{label}: feature {feature.name}, {spec_bytes / 1e6:.2f} MB of spec, task {feature.tasks[0].id}")
    for profile, exact in ((p, e) for p in profiles for e in (False, True)):
        cold, median, p95 = _measure(project, feature, exact, repeat, profile)
        what = f"{profile}, " + ("with exact counts" if exact else "decision counts only")
        print(
            f"  {what:36}  cold first run {cold * 1000:8.1f} ms   re-budget median {median * 1000:6.2f} ms"
            f"   p95 {p95 * 1000:6.2f} ms   ({cold / median:,.0f}x faster than cold)"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spec-mb", type=float, default=5.0)
    parser.add_argument("--repeat", type=int, default=100)
    parser.add_argument("--profiles", default="mahabharatha", help="comma-separated profiles to measure")
    args = parser.parse_args()
    profiles = [p.strip() for p in args.profiles.split(",") if p.strip()]
    for name in tokens.EXACT_ENCODINGS:  # load the encodings once, untimed
        tokens.load_encoding(name)
    print(
        f"machine: {platform.machine()}, {platform.python_implementation()} {platform.python_version()}, "
        f"{os.cpu_count()} cores; {args.repeat} re-budgets each (budget, spec share, security share in turn)"
    )
    sample, feature_name = _largest_sample()
    project = load_project(sample)
    _report(f"sample {sample.name}", project, project.feature(feature_name), args.repeat, profiles)
    with tempfile.TemporaryDirectory() as tmp:
        root = generate(Path(tmp) / "project", 30, args.spec_mb)
        generated = load_project(root)
        _report("generated", generated, generated.features[0], args.repeat, profiles)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
