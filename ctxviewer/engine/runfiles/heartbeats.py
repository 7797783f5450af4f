"""Reading upstream's worker heartbeats, ``state/heartbeat-<id>.json``: the last sign of life.

:class:`HeartbeatReader` re-reads the file when it changed; a heartbeat that goes away is a
worker that shut down cleanly, not a problem.  The fields: ``docs/run-files.md#state-files-and-token-records``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ctxviewer.engine.errors import json_type
from ctxviewer.engine.files.reading import ProjectFS
from ctxviewer.engine.runfiles.jsondoc import Fields, JsonDocument
from ctxviewer.engine.runfiles.plausible import PERCENT
from ctxviewer.engine.runfiles.problems import ProblemList, RunProblem

PREFIX, SUFFIX = "heartbeat-", ".json"


@dataclass(frozen=True, slots=True)
class Heartbeat:
    """One heartbeat file as last read."""

    file: str
    worker_id: str
    time: float | None
    """``timestamp`` in epoch seconds."""
    task_id: str | None
    step: str | None
    progress_pct: int | None


def worker_of_heartbeat(name: str) -> str:
    """The worker id in a heartbeat file's name (``heartbeat-3.json`` -> ``3``)."""
    stem = name[: -len(SUFFIX)] if name.endswith(SUFFIX) else name
    return stem[len(PREFIX) :] if stem.startswith(PREFIX) else stem


class HeartbeatReader:
    """Follows one heartbeat file; call :meth:`poll` on a timer."""

    def __init__(self, fs: ProjectFS, rel: str, shown: str | None = None) -> None:
        self.rel = rel
        self.shown = shown or rel
        self.problems = ProblemList()
        self._doc = JsonDocument(fs, rel, self.shown, self.problems, vanishes=True)
        self._seen: set[str] = set()
        self._worker = worker_of_heartbeat(rel.rsplit("/", 1)[-1])
        self._heartbeat: Heartbeat | None = None

    @property
    def heartbeat(self) -> Heartbeat | None:
        """The last heartbeat read (kept after the file is deleted: it was the last one)."""
        return self._heartbeat

    def poll(self) -> tuple[bool, tuple[RunProblem, ...]]:
        """Whether a new heartbeat was read, and the new problems."""
        read = self._doc.poll()
        new = list(read.problems)
        if not read.changed:
            return False, tuple(new)
        check = Fields(self.shown, self.problems, new, text=read.text, seen=self._seen)
        data: Any = read.data
        if not isinstance(data, dict):
            check.report((), f"not a heartbeat (the document is {json_type(data)}, not an object)")
            return False, tuple(new)
        worker = data.get("worker_id")
        self._heartbeat = Heartbeat(
            file=self.shown,
            worker_id=str(worker) if isinstance(worker, int | str) and not isinstance(worker, bool) else self._worker,
            time=check.time(data, "timestamp", (), naive_is_utc=True),
            task_id=check.string(data, "task_id", ()),
            step=check.string(data, "step", ()),
            progress_pct=check.integer(data, "progress_pct", (), kind=PERCENT),
        )
        return True, tuple(new)
