"""Every task of every feature, for scripts and CI (``ctxviewer batch`` / ``check``)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from ctxviewer.engine.pipeline import assemble_task
from ctxviewer.engine.project import Feature, Project, Task
from ctxviewer.engine.settings import Settings
from ctxviewer.engine.trace import Trace


@dataclass(frozen=True, slots=True)
class BatchRow:
    """One task's trace within a batch."""

    feature: Feature
    task: Task
    trace: Trace


def batch_targets(project: Project, feature: str | None = None) -> list[tuple[Feature, Task]]:
    """The (feature, task) pairs a batch covers; raises for an unknown or broken feature."""
    features = [project.feature(feature)] if feature else list(project.features)
    out: list[tuple[Feature, Task]] = []
    for feat in features:
        if feat.graph_error is not None:
            raise feat.graph_error
        out.extend((feat, task) for task in feat.tasks)
    return out


def run_batch(
    project: Project,
    feature: str | None = None,
    settings: Settings | None = None,
    *,
    exact: bool = True,
    cancel: threading.Event | None = None,
    on_row: Callable[[int, int], None] | None = None,
) -> Iterator[BatchRow]:
    """Assemble every task in order, yielding rows as they are done.

    Token counts are cached by content, so text shared between tasks (the same spec
    paragraphs, the same rule blocks) is tokenized once for the whole batch.
    """
    targets = batch_targets(project, feature)
    for n, (feat, task) in enumerate(targets, start=1):
        trace = assemble_task(project, feat, task, settings, exact=exact, cancel=cancel)
        if on_row is not None:
            on_row(n, len(targets))
        yield BatchRow(feat, task, trace)


def context_tokens(trace: Trace, tokenizer: str) -> int:
    """The context's size with *tokenizer* (exact counts must have been computed)."""
    value = trace.context_tokens.get(tokenizer)
    if value is None:
        raise ValueError(f"the trace has no {tokenizer} counts; assemble with exact counts")
    return value
