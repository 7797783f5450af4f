"""Every task of every feature, for scripts and CI (``ctxviewer batch`` / ``check``)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TypeVar

from ctxviewer.engine.errors import CtxViewerError
from ctxviewer.engine.files.reading import one_pass
from ctxviewer.engine.profiles.base import Progress
from ctxviewer.engine.project.loading import Feature, Project, Task
from ctxviewer.engine.project.settings import Settings
from ctxviewer.engine.runs.pipeline import assemble_task
from ctxviewer.engine.trace.model import Trace

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class BatchRow:
    """One task's trace within a batch (or, collecting errors, why there is none)."""

    feature: Feature
    task: Task
    trace: Trace | None
    error: str = ""


#: A shard of a batch: ``(k, n)``, the k-th of n (counted from 1).
Shard = tuple[int, int]


def batch_targets(
    project: Project, feature: str | None = None, shard: Shard | None = None
) -> list[tuple[Feature, Task]]:
    """The (feature, task) pairs a batch covers (only *shard*'s, given one); raises for an
    unknown or broken feature, in any shard."""
    features = [project.feature(feature)] if feature else list(project.features)
    out: list[tuple[Feature, Task]] = []
    for feat in features:
        if feat.graph_error is not None:
            raise feat.graph_error
        out.extend((feat, task) for task in feat.tasks)
    return out if shard is None else shard_of(out, shard)


def shard_of(targets: Sequence[T], shard: Shard) -> list[T]:
    """The *shard*-th contiguous run of *targets* (in feature and task order): the n shards are
    as equal in size as can be (they differ by one at most), so shards 1 to n in order are the
    whole list, each target once (docs/ci.md#shards)."""
    k, n = shard
    if not 1 <= k <= n:
        raise ValueError(f"shard {k}/{n}: k must be 1 to n")
    total = len(targets)
    return list(targets[(k - 1) * total // n : k * total // n])


def run_batch(
    project: Project,
    feature: str | None = None,
    settings: Settings | None = None,
    *,
    exact: bool = True,
    cancel: threading.Event | None = None,
    on_row: Callable[[int, int], None] | None = None,
    collect_errors: bool = False,
    shard: Shard | None = None,
) -> Iterator[BatchRow]:
    """Assemble every task in order (*shard*'s only, given one), yielding rows as they are done.

    Token counts are cached by content, so text shared between tasks (the same spec
    paragraphs, the same rule blocks) is tokenized once for the whole batch, and each
    project path is resolved and stat'ed once (a file changed during the batch is seen as
    it was when the batch first asked about it).

    By default bad input raises (a broken feature before any row, a task the engine
    refuses when reached).  With *collect_errors* -- a background pass that must go on --
    features whose task graph is broken are left out and a refused task becomes a row
    with ``trace=None`` and the message in ``error``; cancelling still raises.
    """
    if collect_errors:
        features = [project.feature(feature)] if feature else list(project.features)
        targets = [(f, t) for f in features if f.graph_error is None for t in f.tasks]
        if shard is not None:
            targets = shard_of(targets, shard)
    else:
        targets = batch_targets(project, feature, shard)
    yield from run_targets(
        project, targets, settings, exact=exact, cancel=cancel, on_row=on_row, collect_errors=collect_errors
    )


def run_targets(
    project: Project,
    targets: Sequence[tuple[Feature, Task]],
    settings: Settings | None = None,
    *,
    exact: bool = True,
    cancel: threading.Event | None = None,
    on_row: Callable[[int, int], None] | None = None,
    collect_errors: bool = False,
    progress: Progress | None = None,
) -> Iterator[BatchRow]:
    """Assemble *targets* in order (see :func:`run_batch`), yielding rows as they are done.

    *progress* is each task's own (``progress(stage, fraction)`` at the end of each of its
    stages); the window's pass waits in it while the task the user asked for runs.
    """
    # One pass: each project path is resolved and stat'ed once for the whole batch.
    fs = one_pass()
    for n, (feat, task) in enumerate(targets, start=1):
        try:
            trace = fs.run(assemble_task, project, feat, task, settings, exact=exact, cancel=cancel, progress=progress)
            row = BatchRow(feat, task, trace)
        except CtxViewerError as exc:
            if not collect_errors:
                raise
            row = BatchRow(feat, task, None, str(exc))
        if on_row is not None:
            on_row(n, len(targets))
        yield row


def context_tokens(trace: Trace, tokenizer: str) -> int:
    """The context's size with *tokenizer* (exact counts must have been computed)."""
    value = trace.context_tokens.get(tokenizer)
    if value is None:
        raise ValueError(f"the trace has no {tokenizer} counts; assemble with exact counts")
    return value
