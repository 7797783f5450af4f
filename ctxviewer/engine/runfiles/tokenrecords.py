"""Reading upstream's token records, ``state/tokens-<worker>.json``: what each task's context cost.

:class:`TokenRecordReader` re-reads the file when it changed (upstream replaces it whole)
and takes each task's sections and total; a value of the wrong type, or a total that is not
its sections' sum, is one :class:`~.problems.RunProblem` with its line.  The fields and their
problems: ``docs/run-files.md#state-files-and-token-records``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ctxviewer.engine.errors import json_type
from ctxviewer.engine.files.reading import ProjectFS
from ctxviewer.engine.runfiles.jsondoc import Fields, JsonDocument
from ctxviewer.engine.runfiles.plausible import COUNT, TOKENS
from ctxviewer.engine.runfiles.problems import ProblemList, RunProblem

PREFIX, SUFFIX = "tokens-", ".json"


@dataclass(frozen=True, slots=True)
class TaskTokens:
    """One task's entry: the tokens per context section, as recorded."""

    task_id: str
    sections: tuple[tuple[str, int], ...]
    """``(section, tokens)`` in the file's order."""
    total: int | None
    """As recorded (upstream writes the sum of the sections)."""
    mode: str | None
    """``estimated`` (characters / 4) or ``exact`` (the Anthropic count)."""
    timestamp: str | None
    time: float | None


@dataclass(frozen=True, slots=True)
class TokenRecord:
    """One ``tokens-<worker>.json`` as last read."""

    file: str
    worker_id: str
    tasks: tuple[TaskTokens, ...]
    cumulative_total: int | None
    cumulative_tasks: int | None

    def task(self, task_id: str) -> TaskTokens | None:
        """The entry of *task_id*, or None."""
        return next((t for t in self.tasks if t.task_id == task_id), None)


@dataclass(frozen=True, slots=True)
class TokenPoll:
    """What one :meth:`TokenRecordReader.poll` found."""

    changed: bool
    record: TokenRecord | None
    problems: tuple[RunProblem, ...]


def worker_of(name: str) -> str:
    """The worker id in a token record's file name (``tokens-3.json`` -> ``3``)."""
    stem = name[: -len(SUFFIX)] if name.endswith(SUFFIX) else name
    return stem[len(PREFIX) :] if stem.startswith(PREFIX) else stem


class TokenRecordReader:
    """Follows one token record file; call :meth:`poll` on a timer."""

    def __init__(self, fs: ProjectFS, rel: str, shown: str | None = None) -> None:
        self.rel = rel
        self.shown = shown or rel
        self.problems = ProblemList()
        self._doc = JsonDocument(fs, rel, self.shown, self.problems)
        self._seen: set[str] = set()
        self._record: TokenRecord | None = None
        self._worker = worker_of(rel.rsplit("/", 1)[-1])

    @property
    def record(self) -> TokenRecord | None:
        """The record as last read successfully (None before any)."""
        return self._record

    def poll(self) -> TokenPoll:
        """Read the file again if it changed."""
        read = self._doc.poll()
        new = list(read.problems)
        if read.changed:
            record = self._parse(read.data, read.text, new)
            if record is not None:
                self._record = record
                return TokenPoll(True, record, tuple(new))
        return TokenPoll(False, self._record, tuple(new))

    def _parse(self, data: Any, text: str, new: list[RunProblem]) -> TokenRecord | None:
        check = Fields(self.shown, self.problems, new, text=text, seen=self._seen)
        if not isinstance(data, dict):
            check.report((), f"not a token record (the document is {json_type(data)}, not an object)")
            return None
        worker = data.get("worker_id")
        worker_id = str(worker) if isinstance(worker, int | str) and not isinstance(worker, bool) else self._worker
        tasks: list[TaskTokens] = []
        for task_id, entry in (check.mapping(data, "tasks", ()) or {}).items():
            path = ("tasks", task_id)
            if not isinstance(entry, dict):
                check.report(path, f'"tasks.{task_id}" must be an object, not {json_type(entry)}')
                continue
            sections: list[tuple[str, int]] = []
            for name in check.mapping(entry, "breakdown", path) or {}:
                count = check.integer(entry["breakdown"], name, (*path, "breakdown"), kind=TOKENS)
                if count is not None:
                    sections.append((name, count))
            total = check.integer(entry, "total", path, kind=TOKENS)
            if total is not None and total != sum(n for _, n in sections):
                check.report(
                    (*path, "total"),
                    f'"tasks.{task_id}.total" is {total:,} but its sections add up to {sum(n for _, n in sections):,}',
                )
            tasks.append(
                TaskTokens(
                    task_id=task_id,
                    sections=tuple(sections),
                    total=total,
                    mode=check.string(entry, "mode", path),
                    timestamp=check.string(entry, "timestamp", path),
                    time=check.time(entry, "timestamp", path, naive_is_utc=True),
                )
            )
        cumulative = check.mapping(data, "cumulative", ()) or {}
        return TokenRecord(
            file=self.shown,
            worker_id=worker_id,
            tasks=tuple(tasks),
            cumulative_total=check.integer(cumulative, "total_tokens", ("cumulative",), kind=TOKENS),
            cumulative_tasks=check.integer(cumulative, "tasks_completed", ("cumulative",), kind=COUNT),
        )
