"""Benchmark: a profile's fast refit against the whole-run refit, on the sample projects.

Exact sensitivity builds a task's refit once, then asks it for the fates at every integer
budget from the bottom of the range up to its ceiling.  ``--profile P`` times P's refit the
way it was tuned, against :class:`WholeRunRefit` (a whole run per call, files read once):

* ``mahabharatha`` (the seed's version): the build, ``fates()`` per call, the enumeration per
  task (build, ceiling, every budget), totals in CPU time; whole runs measured over
  ``--whole-tasks`` tasks in full and estimated on the rest (``--tokenizer`` picks the one set);
* ``zerg-0.3.2``, ``mahabharatha-latest``: per project, the build, ``fates()`` in order and
  shuffled, the enumeration, whole runs per call and estimated per task, wall and CPU time;
  one task per project (``--full-whole``) enumerated by whole runs in full;
* ``ctxviewer``: per task, the build, the ceiling, ``fates()`` on a cold pass and a warm one
  and at every section budget of each share, whole runs per call and estimated per task;
* ``shaktiman``: per task, the build, one uncached replay of packing (``--replays`` budgets),
  ``fates()`` while enumerating, whole runs per call and estimated per task;
* ``drift`` (with ``drift_partial`` on and off) and ``computed``: per project, ``fates()`` per
  call and the enumeration per task, fast and by whole runs.

It prints medians (and, where a line per task is printed, the task's numbers first) and the
ratios::

    python bench/bench_refit.py --profile ctxviewer
    python bench/bench_refit.py --profile zerg-0.3.2 --whole-samples 100
    python bench/bench_refit.py --profile mahabharatha --tokenizer cl100k_base --whole-tasks 1
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ctxviewer.engine.profiles.ctxviewer.refit import CtxviewerRefit  # noqa: E402
from ctxviewer.engine.profiles.lookup import refit_builder  # noqa: E402
from ctxviewer.engine.profiles.mahabharatha.refit import build_refit as seed_refit  # noqa: E402
from ctxviewer.engine.profiles.refit_contract import budget_range  # noqa: E402
from ctxviewer.engine.profiles.shaktiman.refit import ShaktimanRefit  # noqa: E402
from ctxviewer.engine.profiles.zerg.refit import ZergRefit  # noqa: E402
from ctxviewer.engine.project.loading import Project, load_project  # noqa: E402
from ctxviewer.engine.project.upstream import SEED  # noqa: E402
from ctxviewer.engine.registry import REGISTRY  # noqa: E402
from ctxviewer.engine.runs.pipeline import spec_source  # noqa: E402
from ctxviewer.engine.runs.sensitivity import WholeRunRefit, refit_for  # noqa: E402

SAMPLES = ("ledger-service", "storefront-web", "edge-cases")
#: The profiles with a fast refit, each with the whole-run calls timed per task by default.
WHOLE_SAMPLES = {
    "mahabharatha": 40,
    "zerg-0.3.2": 40,
    "mahabharatha-latest": 40,
    "ctxviewer": 25,
    "shaktiman": 12,
    "drift": 15,
    "computed": 15,
}


def _projects(args: argparse.Namespace) -> list[tuple[str, Project]]:
    return [(name, load_project(ROOT / "sample_projects" / name)) for name in args.projects.split(",")]


# -- mahabharatha: the seed's version, totals in CPU time ------------------------------------------------


def bench_seed(args: argparse.Namespace) -> None:
    """The seed's run: per call the median of wall-clock times, totals in CPU time (the machine may be shared)."""
    clock = time.process_time
    fast_calls: list[float] = []  # per task: median us per fates()
    fast_enum: list[float] = []  # per task: seconds, build + ceiling + every budget
    fast_build: list[float] = []
    whole_calls: list[float] = []
    whole_enum: list[float] = []  # per task: seconds, measured or estimated
    measured: list[tuple[float, float]] = []  # (fast, whole) enumeration where both were timed
    tasks = 0
    projects = _projects(args)
    for _name, project in projects:
        settings = replace(project.settings, profile=args.profile, upstream=SEED, tokenizer=args.tokenizer)
        bottom = budget_range(settings)[0]
        for feature in project.features:
            for task in feature.tasks:
                t0 = clock()
                refit = seed_refit(project, feature, task, settings, whole=WholeRunRefit, source=spec_source)
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
    print(f"{tasks} tasks of {', '.join(name for name, _ in projects)}; tokenizer {args.tokenizer}")
    print(f"fast refit  build (one run)           median {med(fast_build) * 1e3:8.2f} ms")
    print(f"fast refit  fates() per call          median {med(fast_calls):8.2f} us")
    print(f"whole runs  fates() per call          median {med(whole_calls):8.2f} us")
    print(f"  ratio per call (whole / fast)              {med(whole_calls) / med(fast_calls):8.0f} x")
    print(f"fast refit  enumeration per task      median {med(fast_enum) * 1e3:8.2f} ms (build, ceiling, every budget)")
    how = f"the first {args.whole_tasks} timed, the rest first call + mean call x budgets"
    print(f"whole runs  enumeration per task      median {med(whole_enum) * 1e3:8.2f} ms ({how})")
    print(f"  ratio per task (whole / fast)              {med(whole_enum) / med(fast_enum):8.0f} x")
    for fast, slow in measured:
        print(f"  timed whole on one task: fast {fast * 1e3:.1f} ms, whole {slow * 1e3:.0f} ms ({slow / fast:.0f} x)")


# -- the nine-section versions: per project, wall and CPU time -------------------------------------------


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


def bench_nine(args: argparse.Namespace) -> None:
    """A nine-section version: in order and shuffled, wall and CPU time, one task per project in full."""
    print(f"python {platform.python_version()} on {platform.machine()}, {platform.system()}, {os.cpu_count()} CPUs")
    rng = random.Random(19)
    for name, project in _projects(args):
        settings = project.settings.with_overrides({"profile": args.profile}, "bench")
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
            f"\n{name} / {args.profile}: {len(budgets)} tasks, {min(budgets):,}-{max(budgets):,} budgets each "
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


# -- ctxviewer: per task, cold, warm and share calls -----------------------------------------------------


def _timed(fn: Callable[..., Any], *args: Any) -> tuple[Any, float]:
    start = time.perf_counter()
    out = fn(*args)
    return out, time.perf_counter() - start


def bench_ctxviewer(args: argparse.Namespace) -> None:
    """The ctxviewer profile: a line per task, then the medians over tasks."""
    print(f"python {platform.python_version()}, {os.cpu_count()} cpus, {platform.machine()}")
    print(
        f"{'task':<28}{'build ms':>9}{'ceil':>7}{'ceil ms':>8}{'enum ms':>9}{'µs/call':>9}{'warm µs':>8}"
        f"{'share µs':>9}{'whole µs':>10}{'whole enum s':>13}{'ratio':>7}"
    )
    cold, warm, share_calls, whole_calls = [], [], [], []
    enum_fast, enum_whole, fallbacks = [], [], 0
    for name, project in _projects(args):
        settings = replace(project.settings, profile=args.profile)
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
        return
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


# -- shaktiman: per task, uncached replays -----------------------------------------------------------------


def spread(lo: int, hi: int, n: int) -> list[int]:
    """*n* budgets evenly spread over lo..hi (fewer when the range is shorter)."""
    if hi <= lo:
        return [lo]
    return sorted({lo + (hi - lo) * k // max(1, n - 1) for k in range(n)})


def bench_shaktiman(args: argparse.Namespace) -> None:
    """The shaktiman refit: a line per task (build, replay, fates, enumeration, whole runs), then the medians."""
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    print(
        f"{'task':<34}{'ceiling':>8}{'build ms':>10}{'replay us':>11}{'fates us':>10}"
        f"{'enum ms':>9}{'whole us':>10}{'whole enum s':>14}{'ratio':>8}"
    )
    rows: list[tuple[float, float, float, float, float, float]] = []
    clock = time.perf_counter
    for name, project in _projects(args):
        settings = project.settings.with_overrides({"profile": args.profile}, "bench")
        bottom = budget_range(settings)[0]
        for feature, task in project.tasks():
            start = clock()
            refit = refit_for(project, feature, task, settings)
            built = clock()
            assert isinstance(refit, ShaktimanRefit), task.id
            ceiling = refit.ceiling()
            calls = []
            for budget in range(bottom, ceiling + 1):
                t = clock()
                refit.fates(budget)
                calls.append(clock() - t)
            enumerate_s = clock() - start
            replays = []
            for budget in spread(bottom, ceiling, args.replays):
                t = clock()
                refit.span(budget)
                replays.append(clock() - t)
            whole = WholeRunRefit(project, feature, task, settings)
            wholes = []
            for budget in spread(bottom, ceiling, args.whole_samples):
                t = clock()
                whole.fates(budget)
                wholes.append(clock() - t)
            whole_us = statistics.median(wholes) * 1e6
            whole_enum = statistics.median(wholes) * (ceiling - bottom + 1)
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
    print(f"  enumerate {bottom}..ceiling {med[3]:.1f} ms per task")
    print(
        f"  whole run {med[4]:.0f} us per fates(); {bottom}..ceiling by whole runs {med[5]:.1f} s per task "
        "(extrapolated)"
    )
    print(
        f"  ratio per call: whole / replay {med[4] / med[1]:.0f}x, whole / enumerating fates {med[4] / med[2]:.0f}x; "
        f"per task enumeration: {med[5] / (med[3] / 1e3):.0f}x"
    )


# -- drift and computed: per project --------------------------------------------------------------------

#: The variants measured per profile: (name, setting overrides).
VARIANTS: Mapping[str, tuple[tuple[str, Mapping[str, Any]], ...]] = {
    "drift": (("drift", {"profile": "drift"}), ("drift-whole-sources", {"profile": "drift", "drift_partial": False})),
    "computed": (("computed", {"profile": "computed"}),),
}


def bench_cut_sequence(args: argparse.Namespace) -> None:
    """Drift (partial cuts and whole sources) or computed: per project, per call and per task, fast and whole."""
    python = f"{platform.python_implementation()} {platform.python_version()}"
    fast = [p.name for p in REGISTRY if refit_builder(p.name) is not None]
    print(f"{python}, {os.cpu_count()} cores; fast refits registered: {', '.join(sorted(fast))}")
    for variant, overrides in VARIANTS[args.profile]:
        print(f"{variant}:")
        for name, project in _projects(args):
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
                for n in range(args.whole_samples):
                    t0 = time.perf_counter()
                    whole.fates(budgets[len(budgets) * n // args.whole_samples])
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


#: What each profile's refit is timed with (see the module docstring).
BENCHES: Mapping[str, Callable[[argparse.Namespace], None]] = {
    "mahabharatha": bench_seed,
    "zerg-0.3.2": bench_nine,
    "mahabharatha-latest": bench_nine,
    "ctxviewer": bench_ctxviewer,
    "shaktiman": bench_shaktiman,
    "drift": bench_cut_sequence,
    "computed": bench_cut_sequence,
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--profile", required=True, choices=tuple(BENCHES), help="whose refit to time")
    parser.add_argument("--projects", default=",".join(SAMPLES), help="sample projects, comma-separated")
    defaults = ", ".join(f"{p} {n}" for p, n in WHOLE_SAMPLES.items())
    parser.add_argument("--whole-samples", type=int, help=f"whole-run calls timed per task (default: {defaults})")
    parser.add_argument(
        "--tokenizer",
        default="heuristic",
        choices=("heuristic", "cl100k_base", "o200k_base"),
        help="mahabharatha: the tokenizer set",
    )
    parser.add_argument(
        "--whole-tasks", type=int, default=2, help="mahabharatha: tasks enumerated by whole runs in full"
    )
    parser.add_argument(
        "--full-whole",
        type=int,
        default=1,
        help="zerg-0.3.2, mahabharatha-latest: tasks per project enumerated by whole runs in full",
    )
    parser.add_argument("--replays", type=int, default=200, help="shaktiman: uncached replays timed per task")
    args = parser.parse_args(argv)
    if args.whole_samples is None:
        args.whole_samples = WHOLE_SAMPLES[args.profile]
    BENCHES[args.profile](args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
