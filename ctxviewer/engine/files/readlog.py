"""What a run looked at on disk: every path resolved, every folder listed, every tree scanned.

Inside :func:`recording`, :class:`~ctxviewer.engine.files.reading.ProjectFS` notes each path it
resolves (each component it ``lstat``\\ s, so a link and the folders above a file count), each
folder it lists, and each scan of a tree (a walk for rule files, the repository map's sources);
:func:`reading_as` names the part of the run the reads belong to.  Outside :func:`recording`
nothing is kept.  ``ctxviewer bisect`` assembles a commit only when it changed one of these
(docs/bisect.md).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field

#: The parts of a run reads are tagged with: loading the project, the profile's run, the worker's window.
PROJECT, RUN, WINDOW = "project", "run", "window"


@dataclass(frozen=True, slots=True)
class Scan:
    """A tree read as a whole: every file below *folder* whose name ends in one of *suffixes*
    (lowercased), outside folders named in *skipped* and, with *skip_dot*, folders starting with '.'."""

    folder: str
    suffixes: tuple[str, ...]
    skipped: frozenset[str] = frozenset()
    skip_dot: bool = False

    def covers(self, path: str) -> bool:
        """Whether a change of *path* (project-relative) may change what the scan finds."""
        if self.folder and not path.startswith(self.folder.rstrip("/") + "/"):
            return False
        rest = path[len(self.folder.rstrip("/")) + 1 :] if self.folder else path
        *folders, name = rest.split("/")
        if any(f in self.skipped or (self.skip_dot and f.startswith(".")) for f in folders):
            return False
        return name.lower().endswith(self.suffixes)


@dataclass
class Reads:
    """The paths one part of a run looked at, project-relative (``""`` is the project folder)."""

    #: Paths resolved or stat'ed: each component of each path read, so links and parents count.
    touched: set[str] = field(default_factory=set)
    #: Folders whose entries were listed.
    listed: set[str] = field(default_factory=set)
    scans: set[Scan] = field(default_factory=set)

    def update(self, other: Reads) -> None:
        self.touched |= other.touched
        self.listed |= other.listed
        self.scans |= other.scans


@dataclass
class ReadLog:
    """Every part's :class:`Reads`, by tag (:data:`PROJECT`, :data:`RUN`, :data:`WINDOW`)."""

    parts: dict[str, Reads] = field(default_factory=dict)

    def of(self, *tags: str) -> Reads:
        """The reads of the parts *tags* together."""
        out = Reads()
        for tag in tags:
            found = self.parts.get(tag)
            if found is not None:
                out.update(found)
        return out


_LOG: ContextVar[ReadLog | None] = ContextVar("ctxviewer_read_log", default=None)
_TAG: ContextVar[str] = ContextVar("ctxviewer_read_tag", default=PROJECT)


@contextlib.contextmanager
def recording() -> Iterator[ReadLog]:
    """Note every read made in this context (this thread, or a task it runs) in the log yielded."""
    log = ReadLog()
    token = _LOG.set(log)
    try:
        yield log
    finally:
        _LOG.reset(token)


@contextlib.contextmanager
def reading_as(tag: str) -> Iterator[None]:
    """Tag the reads made inside with *tag* (a no-op when nothing records)."""
    token = _TAG.set(tag)
    try:
        yield
    finally:
        _TAG.reset(token)


def current() -> Reads | None:
    """The :class:`Reads` being filled now, or None when nothing records (the usual case)."""
    log = _LOG.get()
    if log is None:
        return None
    tag = _TAG.get()
    found = log.parts.get(tag)
    if found is None:
        found = log.parts[tag] = Reads()
    return found


def note_scan(scan: Scan) -> None:
    """Note that a tree was read as a whole (see :class:`Scan`)."""
    reads = current()
    if reads is not None:
        reads.scans.add(scan)
