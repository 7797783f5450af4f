"""What every profile shares: item drafts, trim steps, errors, and the finished result.

A profile run (:class:`RunBase` subclass) decides each candidate's fate on a mutable
:class:`ItemDraft`; :meth:`RunBase.finish_items` turns the drafts into the trace's
immutable :class:`~ctxviewer.engine.trace.model.Item`\\ s once the sections' places in the
context are known.  :class:`ProfileResult` is what a run hands back to
:mod:`ctxviewer.engine.runs.pipeline`, which packages it as a :class:`~ctxviewer.engine.trace.model.Trace`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ctxviewer.engine.files.reading import ProjectFS
from ctxviewer.engine.project.loading import Feature, Project, Task
from ctxviewer.engine.project.settings import Settings
from ctxviewer.engine.signals import rules as R
from ctxviewer.engine.tokens.counting import Census, TokenCounter, TokenCounts
from ctxviewer.engine.trace.model import (
    Item,
    Keyword,
    Section,
    Signals,
    TraceError,
    TrimStep,
    candidate_words,
    give_paths,
    make_item,
)

Progress = Callable[[str, float], None]

#: Why a rule file outside the reference filter's four is not in the context.
NEVER_CONSIDERED = (
    "never considered: the pipeline reads only _core/owasp-2025.md and the python, javascript and docker rule files"
)


#: Texts counted per call by :meth:`RunBase.measure_many` (between two cancel checks).
MEASURE_CHUNK = 8192


class Cancelled(Exception):
    """The run was cancelled through its cancel token."""


@dataclass(slots=True)
class ItemDraft:
    """An item before token counts and context spans are known."""

    id: str
    kind: str
    section: str
    part: str
    source: str
    line_start: int | None
    line_end: int | None
    score: int | None
    matched: tuple[str, ...]
    rank: int | None
    status: str
    reason: str
    text: str
    kept_chars: int
    offset: int | None = None  # offset of the kept text within its section
    details: Mapping[str, Any] | None = None


def plain_name(draft: Item | ItemDraft) -> str:
    """A draft or item as people say it (see :func:`~ctxviewer.engine.trace.model.candidate_words`)."""
    details = draft.details or {}
    summary = details.get("summary") or details.get("component") or ""
    return candidate_words(
        draft.kind, draft.id, draft.source, draft.line_start, draft.line_end, draft.part, str(summary)
    )


def draft_of(item: Item | ItemDraft) -> ItemDraft:
    """A mutable draft of a finished item, for the run to decide its fate."""
    if isinstance(item, ItemDraft):
        return item
    return ItemDraft(
        id=item.id,
        kind=item.kind,
        section=item.section,
        part=item.part,
        source=item.source,
        line_start=item.line_start,
        line_end=item.line_end,
        score=item.score,
        matched=item.matched_keywords,
        rank=item.rank,
        status=item.status,
        reason=item.reason,
        text=item.text,
        kept_chars=item.kept_chars,
    )


@dataclass(frozen=True)
class ProfileResult:
    """What a profile hands back to :mod:`ctxviewer.engine.runs.pipeline` to build the trace.

    ``tokenizer``, ``section_budgets`` and ``buffer`` are set by profiles that decide
    with another tokenizer or other budgets than the settings say (None: as set).
    """

    context: str
    sections: tuple[Section, ...]
    items: tuple[Item, ...]
    trim_steps: tuple[TrimStep, ...]
    keywords: tuple[Keyword, ...]
    errors: tuple[TraceError, ...]
    task_files: tuple[str, ...]
    tokenizer: str | None = None
    section_budgets: Mapping[str, int] | None = None
    buffer: int | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)
    #: The computed profile's "Context Debug" record.
    debug: str = ""
    #: The task's signals when the profile extracted them itself (else the pipeline does).
    signals: Signals | None = None
    #: The upstream version's token record for the task (see :attr:`Trace.token_record`).
    token_record: Mapping[str, int] | None = None


def fmt(n: int) -> str:
    return f"{n:,}"


class RunBase:
    """The plumbing of one profile run over one task: progress, cancellation, steps, errors."""

    def __init__(
        self,
        project: Project,
        feature: Feature,
        task: Task,
        settings: Settings,
        counter: TokenCounter,
        census: Census,
        cancel: threading.Event | None = None,
        progress: Progress | None = None,
    ) -> None:
        self.project = project
        self.fs: ProjectFS = project.fs
        self.feature = feature
        self.task = task
        self.raw: Mapping[str, Any] = task.raw
        self.settings = settings
        self.counter = counter
        self.census = census
        self.cancel = cancel
        self.progress = progress
        self.items: list[ItemDraft | Item] = []
        self.steps: list[TrimStep] = []
        self.errors: list[TraceError] = []
        self.keywords: tuple[Keyword, ...] = ()
        #: Set by the caller before :meth:`run`: a candidate's (project file, text) -> (path, how)
        #: it reached the worker's session, so each item is made once with it (None: items
        #: are made with neither).  :attr:`reached_items` is then the run's items.
        self.reach: Callable[[str, str], tuple[str, str]] | None = None
        self.reached_items: tuple[Item, ...] | None = None

    def run(self) -> ProfileResult:
        """Decide every candidate's fate and lay out the context."""
        raise NotImplementedError

    def _check(self, stage: str, fraction: float) -> None:
        """A stage's end: stop if cancelled (:meth:`_poll`), else report it (:meth:`_report`)."""
        self._poll(stage)
        self._report(stage, fraction)

    def _report(self, stage: str, fraction: float) -> None:
        """Progress only, no cancel check: a point inside a builder whose failures upstream
        catches (a :class:`Cancelled` raised there would read as the section failing).  The
        window's background pass waits in its progress while the task asked for runs."""
        if self.progress is not None:
            self.progress(stage, fraction)

    def _poll(self, stage: str) -> None:
        """Stop if cancelled: the cheap check long loops make every few thousand steps.

        :meth:`_check` marks a stage's end and reports progress; this only raises
        :class:`Cancelled` (naming *stage*) once the cancel token is set.
        """
        if self.cancel is not None and self.cancel.is_set():
            raise Cancelled(stage)

    def measure_many(self, texts: Sequence[str], stage: str) -> list[TokenCounts]:
        """:meth:`Census.measure_many`, a few thousand texts at a time, :meth:`_poll`-ing between.

        Counting a spec's paragraphs exactly can take seconds; this keeps it cancellable.
        """
        out: list[TokenCounts] = []
        for start in range(0, len(texts), MEASURE_CHUNK):
            self._poll(stage)
            out.extend(self.census.measure_many(texts[start : start + MEASURE_CHUNK]))
        return out

    def _step(self, section: str, action: str, target: str, description: str, before: str, after: str) -> None:
        self._step_counted(
            section,
            action,
            target,
            description,
            (self.counter.count(before), len(before)),
            (self.counter.count(after), len(after)),
        )

    def _step_counted(
        self,
        section: str,
        action: str,
        target: str,
        description: str,
        before: tuple[int, int],
        after: tuple[int, int],
    ) -> None:
        """A trim step whose (tokens, characters) before and after are already known."""
        self.steps.append(
            TrimStep(
                order=len(self.steps) + 1,
                section=section,
                action=action,
                target=target,
                description=description,
                tokens_before=before[0],
                tokens_after=after[0],
                chars_before=before[1],
                chars_after=after[1],
            )
        )

    def _error(
        self, stage: str, kind: str, message: str, consequence: str, path: str | None = None, line: int | None = None
    ) -> None:
        self.errors.append(TraceError(stage, kind, message, consequence, path, line))

    def _rule_rel(self, rule: str) -> str:
        return f"{self.settings.paths.rules}/{rule}"

    def other_rule_files(self) -> list[str]:
        """Rule files in the rules folder that the reference filter can never choose."""
        base = self.settings.paths.rules
        found = self.fs.walk_files(base, ".md")
        rels = [f[len(base) + 1 :] for f in found if f.startswith(base + "/")]
        return [r for r in rels if r not in R.CANDIDATES]

    def finish_items(self, sections: Sequence[Section]) -> tuple[Item, ...]:
        """The drafts as finished items, each kept text placed in its section's span (and with
        its path to the worker, when :attr:`reach` is set)."""
        spans = {s.name: s.span for s in sections}
        # Most entries are already finished Items (a part's paragraphs are recorded
        # finished and only the top k replaced by drafts): the exact-type test skips them
        # without an isinstance call; Item is no ItemDraft, so the drafts found are the same.
        drafts = [(n, d) for n, d in enumerate(self.items) if type(d) is not Item and isinstance(d, ItemDraft)]
        counts = self.measure_many([d.text for _, d in drafts], "finish")
        reach = self.reach
        out: list[Any] = list(self.items)
        make = make_item
        if reach is not None:
            give_paths(out, reach)  # the finished items, shared with other runs; the drafts below
        path = how = ""
        for (n, draft), tokens in zip(drafts, counts, strict=True):
            span = None
            section_span = spans.get(draft.section)
            if draft.offset is not None and section_span is not None and draft.kept_chars:
                start = section_span[0] + draft.offset
                span = (start, start + draft.kept_chars)
            if reach is not None:
                path, how = reach(draft.source, draft.text)
            out[n] = make(
                draft.id,
                draft.kind,
                draft.section,
                draft.part,
                draft.source,
                draft.line_start,
                draft.line_end,
                draft.score,
                draft.matched,
                draft.rank,
                draft.status,
                draft.reason,
                draft.text,
                draft.kept_chars,
                tokens,
                span,
                dict(draft.details or {}),
                path,
                how,
            )
        items = tuple(out)
        if reach is not None:
            self.reached_items = items
        return items
