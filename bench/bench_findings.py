"""Benchmark: :func:`~ctxviewer.engine.analysis.findings.findings_of` over a whole batch's traces.

``ctxviewer batch`` lists every trace's findings in its row, so on a big project the
findings are a real share of the batch.  This generates the project ``bench_batch.py``
times (about ``--tasks`` tasks, ``--spec-mb`` MB of specs), assembles every task once
with exact counts (untimed, the traces are kept), then runs ``findings_of`` over all the
traces ``--repeat`` times and prints the median CPU seconds (``time.process_time``: the
machine is shared, wall time would measure the neighbours).  Any cache the findings
keep is cleared before each repeat, so every repeat pays what one batch pays.

    python bench/bench_findings.py
    python bench/bench_findings.py --profile ctxviewer --repeat 9
    python bench/bench_findings.py --project /tmp/findings-p700   # an already generated project
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

from ctxviewer.engine.analysis import findings as findings_mod
from ctxviewer.engine.project.loading import load_project
from ctxviewer.engine.runs.batch import batch_targets, run_targets
from ctxviewer.engine.trace.model import Trace

sys.path.insert(0, str(Path(__file__).parent))
from bench_batch import generate


def _traces(root: Path, profile: str | None) -> list[Trace]:
    project = load_project(root)
    settings = project.settings.with_overrides({"profile": profile}, "bench") if profile else None
    rows = run_targets(project, batch_targets(project), settings, exact=True)
    return [row.trace for row in rows if row.trace is not None]


def _time_findings(traces: list[Trace]) -> tuple[float, int]:
    clear = getattr(findings_mod, "clear_caches", None)
    if clear is not None:
        clear()
    start = time.process_time()
    found = sum(len(findings_mod.findings_of(t)) for t in traces)
    return time.process_time() - start, found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=700)
    parser.add_argument("--spec-mb", type=float, default=2.0)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--profile", default=None, help="the profile to assemble with (the project's by default)")
    parser.add_argument("--project", type=Path, default=None, help="use this generated project instead of a new one")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        root = args.project or generate(Path(tmp) / "project", args.tasks, args.spec_mb)
        started = time.process_time()
        traces = _traces(root, args.profile)
        assembling = time.process_time() - started
    # The batch streams its rows; holding every trace here would make each full garbage
    # collection during the timing walk all of them, a cost the batch never pays.
    gc.collect()
    gc.freeze()

    times, found = [], 0
    for _ in range(args.repeat):
        seconds, found = _time_findings(traces)
        times.append(seconds)
    median = statistics.median(times)
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(
        f"machine: {platform.node()}, {platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}; load average {load}"
    )
    print(f"project: {root}, {len(traces)} traces (assembled with exact counts in {assembling:.1f} s CPU)")
    print(
        f"findings_of over every trace ({found:,} findings), median of {args.repeat}: {median:.3f} s CPU "
        f"({median / max(1, len(traces)) * 1e3:.2f} ms per trace; runs {', '.join(f'{t:.3f}' for t in times)})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
