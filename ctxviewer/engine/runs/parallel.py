"""A batch across processes: ``batch --jobs N``, rows in the same order and bytes as one process.

The batch's targets (every task of every feature, in order) are cut into contiguous ranges
that keep a feature's tasks together where they can (its spec paragraphs and rule blocks are
then tokenized once per process, not once per range).  Each worker process loads the project
once, assembles its ranges and turns every row into its output with the caller's *render*
function there, so only the finished text crosses back; ``Executor.map`` hands the results
back in range order, so the output is the one process's, byte for byte.

Workers start with ``forkserver`` where the platform has it (a fresh interpreter forked
from a small server: no threads or locks inherited from the caller, unlike ``fork``), else
``spawn``.  Starting one costs a second or so (imports, the encodings); a batch too small
to repay that runs in-process (:func:`effective_jobs`).
"""

from __future__ import annotations

import math
import multiprocessing
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any, TypeVar

from ctxviewer.engine.project.loading import Project, load_project
from ctxviewer.engine.runs.batch import BatchRow, batch_targets, run_targets

R = TypeVar("R")

#: Below this many tasks per extra process, starting it costs more than it saves.
TASKS_PER_PROCESS = 40
#: Ranges per process: more balance the load, fewer keep more of a feature's text in one cache.
RANGES_PER_PROCESS = 4


def default_jobs() -> int:
    """The cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def effective_jobs(jobs: int, tasks: int) -> int:
    """How many processes a batch of *tasks* gets when *jobs* are asked for."""
    return max(1, min(jobs, math.ceil(tasks / TASKS_PER_PROCESS)))


def ranges(features: Sequence[str], jobs: int) -> list[tuple[int, int]]:
    """Contiguous ``(start, stop)`` ranges over targets whose feature names are *features*.

    No range is longer than ``len / (jobs * RANGES_PER_PROCESS)`` (rounded up) and none
    crosses from one feature into the next.
    """
    if not features:
        return []
    size = max(1, math.ceil(len(features) / (max(1, jobs) * RANGES_PER_PROCESS)))
    out: list[tuple[int, int]] = []
    start = 0
    for n in range(1, len(features) + 1):
        if n == len(features) or features[n] != features[start] or n - start >= size:
            out.append((start, n))
            start = n
    return out


# -- the worker side: one project per process ---------------------------------------------------

_worker: dict[str, Any] = {}


def _start(root: str, overrides: Mapping[str, Any], feature: str | None, exact: bool, render: Any) -> None:
    project = load_project(root, overrides)
    _worker.update(project=project, targets=batch_targets(project, feature), exact=exact, render=render)


def _work(span: tuple[int, int]) -> list[Any]:
    project: Project = _worker["project"]
    render = _worker["render"]
    rows = run_targets(project, _worker["targets"][span[0] : span[1]], exact=_worker["exact"])
    return [render(row) for row in rows]


def run_rendered(
    project: Project,
    feature: str | None,
    render: Callable[[BatchRow], R],
    *,
    root: str,
    overrides: Mapping[str, Any] | None = None,
    exact: bool = True,
    jobs: int = 1,
) -> Iterator[R]:
    """Every task's row of a batch, each turned into ``render(row)``, in batch order.

    *project* is the one the caller loaded (from *root* with *overrides*); with more than
    one job each worker loads its own the same way.  *render* must be a module-level
    function (it is sent to the workers by name).  Bad input raises as in one process.
    """
    targets = batch_targets(project, feature)
    jobs = effective_jobs(jobs, len(targets))
    if jobs <= 1:
        for row in run_targets(project, targets, exact=exact):
            yield render(row)
        return
    spans = ranges([f.name for f, _ in targets], jobs)
    method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
    context = multiprocessing.get_context(method)
    with ProcessPoolExecutor(
        max_workers=jobs,
        mp_context=context,
        initializer=_start,
        initargs=(root, dict(overrides or {}), feature, exact, render),
    ) as pool:
        try:
            for rendered in pool.map(_work, spans):
                yield from rendered
        except BaseException:
            pool.shutdown(wait=True, cancel_futures=True)
            raise
