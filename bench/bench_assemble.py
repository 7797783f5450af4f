"""Benchmark: assembling every task of a project with the default ``mahabharatha`` profile.

Times :func:`~ctxviewer.engine.runs.batch.run_targets` (exact cl100k_base/o200k_base
counts) over every task of a project, in CPU seconds (``time.process_time``: the machine
is shared, so wall time says more about the neighbours than about the code).  Each
*cold* repeat loads the project afresh and clears every content cache (token counts,
spec indexes, rankings, paragraph items), so it pays what ``ctxviewer batch`` pays; the
*warm* repeat then runs the same targets again on that project, caches kept.  Prints
the medians, the machine and its load average.

    python bench/bench_assemble.py --project /tmp/assembly-p700   # generated if missing
    python bench/bench_assemble.py --project P --profile /tmp/assemble.prof
    python bench/bench_assemble.py --project P --dump /tmp/traces.txt  # one line per trace: id, sha256

``--dump`` writes each trace's JSON export (``trace_json_text``) as its sha256 (and, with
``--dump-dir``, in full), so a change that must not alter traces can be checked on the
whole project.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import hashlib
import os
import platform
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from bench_batch import generate  # noqa: E402

from ctxviewer.engine.exports.report import trace_json_text  # noqa: E402
from ctxviewer.engine.profiles import mahabharatha  # noqa: E402
from ctxviewer.engine.project.loading import Project, load_project  # noqa: E402
from ctxviewer.engine.runs.batch import batch_targets, run_targets  # noqa: E402
from ctxviewer.engine.signals import rules as rules_mod  # noqa: E402
from ctxviewer.engine.signals import spec as spec_mod  # noqa: E402
from ctxviewer.engine.tokens import counting as tokens  # noqa: E402


def reset_caches() -> None:
    """Forget every content cache a batch fills, so the next run starts cold."""
    for counter in tokens._counters.values():
        if isinstance(counter, tokens.TiktokenCounter):
            counter._cache.clear()
            counter._estimated.clear()
    spec_mod.clear_caches()
    mahabharatha.clear_caches()
    # Older revisions (run for a before/after comparison) have no rule summary cache.
    clear_rules = getattr(rules_mod, "clear_caches", None)
    if clear_rules is not None:
        clear_rules()


def run_all(project: Project) -> tuple[float, int]:
    """CPU seconds to assemble every task of *project* (rows dropped as they come), and the task count."""
    targets = batch_targets(project)
    gc.collect()
    start = time.process_time()
    n = 0
    for _row in run_targets(project, targets, exact=True):
        n += 1
    return time.process_time() - start, n


def dump(project: Project, out: Path, full: Path | None) -> int:
    """Write one line per trace (feature/task, sha256 of its JSON export) to *out*; the JSON too under *full*."""
    lines = []
    for row in run_targets(project, batch_targets(project), exact=True):
        assert row.trace is not None
        text = trace_json_text(row.trace)
        name = f"{row.feature.name}/{row.task.id}"
        lines.append(f"{name} {hashlib.sha256(text.encode()).hexdigest()}\n")
        if full is not None:
            path = full / row.feature.name / f"{row.task.id}.json"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    out.write_text("".join(lines), encoding="utf-8")
    return len(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--project", type=Path, default=Path("/tmp/bench-assemble-p700"))
    parser.add_argument("--tasks", type=int, default=700, help="tasks when generating the project")
    parser.add_argument("--spec-mb", type=float, default=2.0, help="MB of specs when generating the project")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--profile", type=Path, help="write a cProfile of one cold run here (no timings)")
    parser.add_argument("--dump", type=Path, help="write each trace's sha256 here (no timings)")
    parser.add_argument("--dump-dir", type=Path, help="with --dump: also each trace's JSON under this folder")
    args = parser.parse_args()

    if not (args.project / ".gsd").is_dir():
        generate(args.project, args.tasks, args.spec_mb)
    for name in tokens.EXACT_ENCODINGS:
        tokens.get_counter(name)  # load the encodings once, untimed

    if args.dump is not None:
        reset_caches()
        count = dump(load_project(args.project), args.dump, args.dump_dir)
        print(f"{count} traces -> {args.dump}")
        return 0
    if args.profile is not None:
        reset_caches()
        project = load_project(args.project)
        profiler = cProfile.Profile()
        profiler.enable()
        run_all(project)
        profiler.disable()
        profiler.dump_stats(args.profile)
        print(f"profile -> {args.profile}")
        return 0

    cold, warm = [], []
    n_tasks = 0
    for _ in range(args.repeat):
        reset_caches()
        project = load_project(args.project)
        seconds, n_tasks = run_all(project)
        cold.append(seconds)
        warm.append(run_all(project)[0])
        del project
    load = os.getloadavg()
    print(
        f"machine: {platform.node()} ({platform.machine()}, {os.cpu_count()} cores), "
        f"{platform.python_implementation()} {platform.python_version()}; "
        f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}"
    )
    print(f"project: {args.project}, {n_tasks} tasks")
    print(f"cold (fresh load, caches cleared), CPU s: {' '.join(f'{t:.2f}' for t in cold)}")
    print(f"warm (same project again), CPU s:        {' '.join(f'{t:.2f}' for t in warm)}")
    print(
        f"median of {args.repeat}: cold {statistics.median(cold):.2f} s "
        f"({n_tasks / statistics.median(cold):.0f} tasks/s), warm {statistics.median(warm):.2f} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
