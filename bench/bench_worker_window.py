"""What the worker's window costs a batch: every task assembled with it and without it, side by side.

Each round assembles every task of the projects in one file-system pass (as ``batch`` does),
once as the engine runs and once with the worker's window and the candidates' paths to the
worker left out (the baseline: what a trace cost before it carried them), alternating so
both see the same machine.  Prints the medians, their ratio and the window's share::

    python bench/bench_worker_window.py [PROJECT ...] [--repeat 7] [--profile zerg-0.3.2]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from host_speed import describe  # noqa: E402

from ctxviewer.engine.files.reading import one_pass  # noqa: E402
from ctxviewer.engine.project.loading import Project, load_project  # noqa: E402
from ctxviewer.engine.runs import pipeline  # noqa: E402
from ctxviewer.engine.trace.model import WorkerWindow  # noqa: E402

EMPTY = WorkerWindow("", "left out (baseline)", "", None, ())


def _round(projects: list[Project], exact: bool, profile: str | None) -> float:
    start = time.perf_counter()
    for project in projects:
        settings = project.settings if profile is None else project.settings.with_overrides({"profile": profile}, "b")
        ctx = one_pass()
        for feature, task in project.tasks():
            ctx.run(pipeline.assemble_task, project, feature, task, settings, exact=exact)
    return time.perf_counter() - start


def _without_window(run: Callable[[], float]) -> float:
    """*run* with the worker's window and the paths to the worker replaced by no-ops."""
    saved: dict[str, Any] = {"worker_window": pipeline.worker_window, "with_reach": pipeline.with_reach}
    pipeline.worker_window = lambda *args, **kwargs: EMPTY  # type: ignore[assignment]
    pipeline.with_reach = lambda items, window: tuple(items)  # type: ignore[assignment]
    try:
        return run()
    finally:
        pipeline.worker_window = saved["worker_window"]
        pipeline.with_reach = saved["with_reach"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("projects", nargs="*", type=Path, help="default: the bundled samples")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--exact", action="store_true", help="count with both exact encodings, as batch does")
    parser.add_argument("--profile", help="a profile for every project (default: each project's own)")
    args = parser.parse_args(argv)
    roots = args.projects or sorted(p for p in (REPO / "sample_projects").iterdir() if p.is_dir())
    projects = [load_project(root) for root in roots]
    n_tasks = sum(len(project.tasks()) for project in projects)
    print(describe())
    print(
        f"{n_tasks} tasks in {len(projects)} project(s); exact counts: {args.exact}; profile: {args.profile or 'own'}"
    )
    _round(projects, args.exact, args.profile)  # warm the caches both sides share
    with_window, without = [], []
    for _ in range(args.repeat):
        with_window.append(_round(projects, args.exact, args.profile))
        without.append(_without_window(lambda: _round(projects, args.exact, args.profile)))
    w, b = statistics.median(with_window), statistics.median(without)
    print(f"median of {args.repeat}: with the worker's window {w:.3f} s ({w / n_tasks * 1000:.1f} ms a task)")
    print(f"median of {args.repeat}: without it (baseline) {b:.3f} s ({b / n_tasks * 1000:.1f} ms a task)")
    print(f"ratio {w / b:.2f}; the window's share of a task: {(w - b) / w:.0%}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
