"""A batch across processes: ``batch --jobs N``, rows in the same order and bytes as one process.

The targets are cut into contiguous ranges that keep a feature's tasks together where they can
(its paragraphs are then tokenized once per process).  :func:`run_written` has each worker
write a range's text into a part file beside the output; :func:`run_rendered` sends the
rendered values back (``--format tokens``).  Bad input raises as in one process, after the
range's earlier rows.  How workers start (fork, forkserver, spawn) and why:
docs/architecture.md#processes.
"""

from __future__ import annotations

import gc
import importlib
import math
import multiprocessing
import os
import sys
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor
from contextlib import contextmanager
from multiprocessing.context import BaseContext
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from ctxviewer.engine.files.writing import ScratchPart, write_scratch_part
from ctxviewer.engine.profiles.lookup import run_modules
from ctxviewer.engine.project.loading import Feature, Project, Task, load_project
from ctxviewer.engine.runs.collector import pace_for_batches

if TYPE_CHECKING:
    from ctxviewer.engine.runs.batch import Shard

R = TypeVar("R")

#: A batch whose workers are forked gets one process for every this many tasks, rounded up:
#: below that, starting one costs more than it saves (bench/README.md#batch-against-its-floor-bench_floorpy).
TASKS_PER_FORKED_PROCESS = 24
#: The same where workers start afresh (a server's or spawned: each imports the engine, builds
#: the encodings and loads the project before its first task).
TASKS_PER_PROCESS = 40
#: A range is at most the tasks left over this many per process (guided: ranges shrink towards
#: the end, so the workers finish together), and at least :data:`MIN_RANGE` tasks.
RANGES_PER_PROCESS = 2
#: The smallest range: a range costs a round trip and a part file, and when it splits a feature
#: the other process tokenizes that feature's spec paragraphs too.
MIN_RANGE = 4
#: Imported by the forkserver before it forks workers (with exact counts, the encodings' module
#: too): the batch's code, and every profile's run, which the pipeline imports on first use.
PRELOAD = ("ctxviewer.engine.runs.parallel", "ctxviewer.engine.runs.batch", *run_modules())
ENCODINGS_PRELOAD = "ctxviewer.engine.runs.parallel_preload"


def default_jobs() -> int:
    """The cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def effective_jobs(jobs: int, tasks: int, forked: bool = False) -> int:
    """How many processes a batch of *tasks* gets when *jobs* are asked for (*forked*: the
    workers would be forked, see :func:`fork_is_safe`)."""
    return max(1, min(jobs, math.ceil(tasks / (TASKS_PER_FORKED_PROCESS if forked else TASKS_PER_PROCESS))))


def ranges(features: Sequence[str], jobs: int) -> list[tuple[int, int]]:
    """Contiguous ``(start, stop)`` ranges over targets whose feature names are *features*.

    Each range is at most the targets left divided by ``jobs * RANGES_PER_PROCESS`` (rounded
    up), at least :data:`MIN_RANGE` (or what is left), and never crosses from one feature into
    the next: early ranges are whole features, the last ones small, so that when workers take
    them in turn no worker is left with a long range while the others have nothing to do.
    """
    out: list[tuple[int, int]] = []
    start, total = 0, len(features)
    parts = max(1, jobs) * RANGES_PER_PROCESS
    while start < total:
        stop = min(total, start + max(MIN_RANGE, math.ceil((total - start) / parts)))
        feature_end = start + 1
        while feature_end < stop and features[feature_end] == features[start]:
            feature_end += 1
        out.append((start, feature_end))
        start = feature_end
    return out


def _targets(project: Project, feature: str | None, shard: Shard | None) -> list[tuple[Feature, Task]]:
    from ctxviewer.engine.runs.batch import batch_targets

    return batch_targets(project, feature, shard)


# -- the worker side: one project per process ---------------------------------------------------

_worker: dict[str, Any] = {}


def _start(
    root: str,
    overrides: Mapping[str, Any],
    feature: str | None,
    shard: Shard | None,
    exact: bool,
    render: Any,
    scratch: Path | None,
) -> None:
    pace_for_batches()
    if "project" in _worker:  # forked: the caller's project and targets came along
        return
    project = load_project(root, overrides)
    _worker.update(
        project=project, targets=_targets(project, feature, shard), exact=exact, render=render, scratch=scratch
    )


def _rows(span: tuple[int, int]) -> Iterator[Any]:
    from ctxviewer.engine.runs.batch import run_targets

    return run_targets(_worker["project"], _worker["targets"][span[0] : span[1]], exact=_worker["exact"])


def _work(span: tuple[int, int]) -> list[Any]:
    render = _worker["render"]
    return [render(row) for row in _rows(span)]


def _write(job: tuple[int, tuple[int, int]]) -> tuple[ScratchPart, list[str], Exception | None]:
    """Write range *job* (its number, its span) into a part of the scratch folder.

    Returns the part, the rows' messages, and the error that stopped the range early (raised
    by the parent after the part, where one process raises it: after the rows before it).
    """
    number, span = job
    render: Callable[[Any], tuple[str | bytes, Sequence[str]]] = _worker["render"]
    messages: list[str] = []
    failed: list[Exception] = []

    def texts() -> Iterator[bytes]:
        try:
            for row in _rows(span):
                text, notes = render(row)
                messages.extend(notes)
                # A text that is not valid UTF-8 fails here, as on writing it.
                yield text if isinstance(text, bytes) else text.encode("utf-8")
        except Exception as exc:
            failed.append(exc)

    part = write_scratch_part(_worker["scratch"], f"part-{number:06d}", texts())
    return part, messages, failed[0] if failed else None


# -- the parent side ----------------------------------------------------------------------------


def fork_is_safe() -> bool:
    """Whether workers may be forked from this process: on Linux, with no thread but this one
    (a thread could hold a lock the child would wait on forever).  Threads Python did not
    start (a library's, Qt's) count too: the kernel's count of the process's threads is read,
    as Python 3.12 does before warning about such a fork."""
    if not sys.platform.startswith("linux") or "fork" not in multiprocessing.get_all_start_methods():
        return False
    if threading.active_count() != 1:
        return False
    try:
        return len(os.listdir("/proc/self/task")) == 1
    except OSError:
        return False


@contextmanager
def _pool(
    jobs: int,
    project: Project,
    targets: list[tuple[Feature, Task]],
    root: str,
    overrides: Mapping[str, Any] | None,
    feature: str | None,
    shard: Shard | None,
    exact: bool,
    render: Any,
    scratch: Path | None,
    preload: Sequence[str],
    forked: bool,
) -> Iterator[Executor]:
    """Worker processes with the project loaded, *forked* from this one (as :func:`_plan` found
    safe) or started afresh; on leaving (an error, Ctrl-C, a consumer that stopped early) the
    ranges not started are cancelled and the workers waited for, so nothing writes into the
    scratch folder once the caller removes it."""
    # What every worker needs (a forked worker imports the profile it runs on first use).
    needed = [*(m for m in preload if m), *([ENCODINGS_PRELOAD] if exact else [])]
    context: BaseContext
    if forked:
        for module in needed:
            importlib.import_module(module)
        # The workers start with this process's project and targets (see _start).
        _worker.update(project=project, targets=targets, exact=exact, render=render, scratch=scratch)
        # Objects that exist now are left out of every later collection, here and in the
        # workers: collecting them would touch (and so copy) every page the workers share.
        gc.freeze()
        context = multiprocessing.get_context("fork")
    elif "forkserver" in multiprocessing.get_all_start_methods():
        forkserver = multiprocessing.get_context("forkserver")
        forkserver.set_forkserver_preload(list(dict.fromkeys([*PRELOAD, *needed])))
        context = forkserver
    else:
        context = multiprocessing.get_context("spawn")
    try:
        pool = ProcessPoolExecutor(
            max_workers=jobs,
            mp_context=context,
            initializer=_start,
            initargs=(root, dict(overrides or {}), feature, shard, exact, render, scratch),
        )
        try:
            yield pool
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
    finally:
        if forked:
            gc.unfreeze()
            _worker.clear()


def run_rendered(
    project: Project,
    feature: str | None,
    render: Callable[[Any], R],
    *,
    root: str,
    overrides: Mapping[str, Any] | None = None,
    exact: bool = True,
    jobs: int = 1,
    preload: Sequence[str] = (),
    shard: Shard | None = None,
) -> Iterator[R]:
    """Every task's row of a batch, each turned into ``render(row)``, in batch order.

    *project* is the one the caller loaded (from *root* with *overrides*); with more than
    one job each worker loads its own the same way.  *render* must be a module-level
    function (it is sent to the workers by name); *preload* names modules it imports, for
    the workers to start with.  Bad input raises as in one process.
    """
    jobs, targets, spans, forked = _plan(project, feature, shard, jobs)
    if not spans:
        yield from _in_process(project, targets, exact, render)
        return
    with _pool(
        jobs,
        project,
        targets,
        root,
        overrides,
        feature,
        shard,
        exact,
        render,
        None,
        [render.__module__, *preload],
        forked,
    ) as pool:
        for rendered in pool.map(_work, spans):
            yield from rendered


def _plan(
    project: Project, feature: str | None, shard: Shard | None, jobs: int
) -> tuple[int, list[tuple[Feature, Task]], list[tuple[int, int]], bool]:
    """The processes a batch gets, its targets, its ranges (none when it runs in this process)
    and whether its workers are forked (decided once: the count depends on it)."""
    targets = _targets(project, feature, shard)
    forked = fork_is_safe()
    jobs = effective_jobs(jobs, len(targets), forked=forked)
    return jobs, targets, ([] if jobs <= 1 else ranges([f.name for f, _ in targets], jobs)), forked


def _in_process(
    project: Project, targets: list[tuple[Feature, Task]], exact: bool, render: Callable[[Any], R]
) -> Iterator[R]:
    from ctxviewer.engine.runs.batch import run_targets

    for row in run_targets(project, targets, exact=exact):
        yield render(row)


def run_written(
    project: Project,
    feature: str | None,
    render: Callable[[Any], tuple[str | bytes, Sequence[str]]],
    scratch: Path,
    *,
    root: str,
    overrides: Mapping[str, Any] | None = None,
    exact: bool = True,
    jobs: int = 1,
    preload: Sequence[str] = (),
    shard: Shard | None = None,
) -> Iterator[tuple[str | bytes | ScratchPart, Sequence[str]]]:
    """A batch's output, in order, with each piece's messages: ``(text, messages)`` a row, where
    *render* makes them of each row, in one process; with more, ``(part, messages)`` a range,
    the part a file of the *scratch* folder holding the range's texts, in UTF-8.

    As :func:`run_rendered` otherwise.  A row that fails raises after the rows before it.
    """
    jobs, targets, spans, forked = _plan(project, feature, shard, jobs)
    if not spans:
        yield from _in_process(project, targets, exact, render)
        return
    with _pool(
        jobs,
        project,
        targets,
        root,
        overrides,
        feature,
        shard,
        exact,
        render,
        scratch,
        [render.__module__, *preload],
        forked,
    ) as pool:
        for part, messages, error in pool.map(_write, enumerate(spans)):
            yield part, messages
            if error is not None:
                raise error
