"""What a reader of a real run's files could not use, said once, with the file and the line.

Every reader reports trouble as a :class:`RunProblem` instead of raising, and a
:class:`ProblemList` keeps its first :data:`MAX_KEPT_PROBLEMS` and counts the rest, so a file
that is garbage from end to end costs bounded memory (``docs/run-files.md``).
"""

from __future__ import annotations

import stat
from dataclasses import dataclass

#: Problems one reader keeps (and reports); beyond this they are only counted.
MAX_KEPT_PROBLEMS = 1000


@dataclass(frozen=True, slots=True)
class RunProblem:
    """Something in a run's file (or about the file) that could not be used."""

    file: str
    """The file as shown to the user (relative to the run's root where it is inside it)."""
    line: int
    """The 1-based line it concerns, or 0 when it is about the file as a whole."""
    message: str
    """What is wrong, without the file and line, e.g. ``not JSON (Expecting ',' at column 31)``."""

    def describe(self) -> str:
        """One line for the user: ``file:line: message`` (``file: message`` for the whole file)."""
        where = self.file if self.line == 0 else f"{self.file}:{self.line}"
        return f"{where}: {self.message}"


class ProblemList:
    """The problems of one reader: the first :data:`MAX_KEPT_PROBLEMS` kept, all counted."""

    def __init__(self, keep: int = MAX_KEPT_PROBLEMS) -> None:
        self._keep = keep
        self._kept: list[RunProblem] = []
        self.count = 0

    def add(self, problem: RunProblem, new: list[RunProblem]) -> None:
        """Record *problem*; it goes into *new* (this poll's problems) when it is kept."""
        self.count += 1
        if len(self._kept) < self._keep:
            self._kept.append(problem)
            new.append(problem)

    @property
    def kept(self) -> tuple[RunProblem, ...]:
        """The problems kept, oldest first."""
        return tuple(self._kept)


def file_kind(mode: int) -> str:
    """What a file of *mode* (``st_mode``) is, for a message: ``a named pipe``, ``a device``...

    A run file that is not a regular file is never opened for reading (a pipe would block,
    a device never end); the problem names what it is instead.
    """
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISREG(mode):
        return "a file"
    return "an unknown kind of file"


#: Digits of a worker number read as a number; a longer run of digits sorts as a name.
_MAX_WORKER_DIGITS = 18


def worker_order(worker_id: str, tie: str = "") -> tuple[int, int, str]:
    """Workers by number (``2`` before ``10``), named ones (``orchestrator``) after, then *tie*.

    Only ASCII digits make a number: ``"²".isdigit()`` is true but ``int("²")`` raises.
    """
    if worker_id.isascii() and worker_id.isdigit() and len(worker_id) <= _MAX_WORKER_DIGITS:
        return (0, int(worker_id), tie)
    return (1, 0, tie or worker_id)
