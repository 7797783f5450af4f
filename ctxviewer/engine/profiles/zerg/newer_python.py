"""Python sources this Python cannot parse, parsed by a newer Python found on the machine.

Upstream runs on Python 3.12 or newer and reads the project's sources with that grammar;
under 3.11 the files that fail here go, all in one subprocess, to a Python >= 3.12 (the
``python_for_sources`` setting, or the newest found on PATH or in pyenv's versions), which
only parses them (:mod:`.pysymbols` run as a script).  Where there is none, the files whose
error lies on 3.12-only syntax are named.  docs/profiles.md#python-sources-and-the-grammar.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ctxviewer.engine.files.writing import scratch_folder
from ctxviewer.engine.profiles.zerg import pysymbols

if TYPE_CHECKING:
    from ctxviewer.engine.profiles.zerg.pysymbols import Symbols

#: The oldest Python upstream runs on: its grammar is what the map must parse with.
UPSTREAM_PYTHON = (3, 12)
#: The setting's value that looks for a Python itself.
AUTO = "auto"
#: Seconds the parsing Python may take for one pass over the files.
TIMEOUT = 120.0
SCRIPT = Path(pysymbols.__file__)

#: A line where 3.11 stops on syntax 3.12 added: type parameters (PEP 695) or a type alias.
_NEWER_LINE = re.compile(r"\s*(?:(?:async\s+)?def|class)\s+\w+\s*\[|\s*type\s+\w+\s*[\[=]")


def here_is_new_enough() -> bool:
    """Whether this Python parses with a grammar at least as new as upstream's."""
    return sys.version_info >= UPSTREAM_PYTHON


def uses_newer_syntax(source: str, filename: str) -> bool:
    """Whether *source* fails to parse here where 3.12 added syntax (PEP 695 and 701).

    The parser stops at the first error; when that is a ``def``/``class`` with type
    parameters, a ``type`` statement, or an f-string, a newer grammar may read the file.
    """
    try:
        pysymbols.parse_strict(source, filename)
    except SyntaxError as exc:
        if exc.msg.startswith("f-string"):
            return True
        lines = source.split("\n")
        line = exc.text if exc.text is not None else lines[exc.lineno - 1] if exc.lineno else ""
        return _NEWER_LINE.match(line or "") is not None
    except ValueError:  # NUL bytes: no Python parses them
        return False
    return False


@dataclass
class Elsewhere:
    """What a newer Python made of the files: one result per file, or why there was none."""

    results: list[Symbols | None] = field(default_factory=list)
    #: The Python that parsed them (its path) and its version (``3.13``); empty when none did.
    python: str = ""
    version: str = ""
    #: Why none did: none found, or the one found failed.
    problem: str = ""
    #: The problem is the setting's (a Python named that cannot serve), not the machine's.
    setting_at_fault: bool = False


class _Failed(Exception):
    """One interpreter could not serve (not runnable, too old, no answer)."""

    def __init__(self, message: str, *, too_old: bool = False) -> None:
        super().__init__(message)
        self.too_old = too_old


#: The interpreter auto-detection settled on ("" none found), once per process.
_auto: list[str] = []


def candidates() -> list[str]:
    """Interpreters that may be Python >= 3.12, newest first: PATH, then pyenv's versions.

    pyenv's shims are left out: they run only the versions pyenv has selected, and the
    versions themselves are listed from its folder.
    """
    found: list[str] = []
    for minor in range(19, UPSTREAM_PYTHON[1] - 1, -1):
        path = shutil.which(f"python3.{minor}")
        if path and Path(path).parent.name != "shims":
            found.append(path)
    root = Path(os.environ.get("PYENV_ROOT") or Path.home() / ".pyenv") / "versions"
    versions = []
    for binary in root.glob("*/bin/python3.1[2-9]"):
        numbers = tuple(int(n) for n in re.findall(r"\d+", binary.parent.parent.name)[:3])
        versions.append((int(binary.name[len("python3.") :]), numbers, str(binary)))
    found += [p for *_, p in sorted(versions, reverse=True)]
    seen: set[str] = set()
    out = []
    for path in found:
        real = os.path.realpath(path)
        if real not in seen:
            seen.add(real)
            out.append(path)
    return out


def parse_elsewhere(files: Sequence[tuple[str, str, str]], setting: str = AUTO) -> Elsewhere:
    """Parse (source, filename, module) *files* in one Python >= 3.12; see :class:`Elsewhere`."""
    if setting != AUTO:
        python = shutil.which(setting) if os.sep not in setting else os.path.expanduser(setting)
        if python is None:
            return Elsewhere(problem=f"python_for_sources: {setting!r} is not a program on PATH", setting_at_fault=True)
        try:
            return _run(python, files)
        except _Failed as exc:
            return Elsewhere(problem=f"python_for_sources: {exc}", setting_at_fault=True)
    if _auto and not _auto[0]:
        return Elsewhere(problem=_NONE_FOUND)
    tried = _auto or candidates()
    problems = []
    for python in tried:
        try:
            found = _run(python, files)
        except _Failed as exc:
            if not exc.too_old:
                problems.append(str(exc))
            continue
        _auto[:] = [python]
        return found
    if not problems:
        _auto[:] = [""]
        return Elsewhere(problem=_NONE_FOUND)
    return Elsewhere(problem="; ".join(problems))


_NONE_FOUND = (
    "no Python 3.12 or newer found (python3.12 ... python3.19 on PATH, ~/.pyenv/versions); "
    "install one or name it with python_for_sources"
)


def _run(python: str, files: Sequence[tuple[str, str, str]]) -> Elsewhere:
    payload = json.dumps({"files": [list(f) for f in files]})
    try:
        with scratch_folder("ctxviewer-parse-") as neutral:
            # -I: no environment variables, user site or current folder; -S: no site (.pth) code.
            done = subprocess.run(
                [python, "-I", "-S", "-W", "ignore", str(SCRIPT)],
                input=payload,
                capture_output=True,
                text=True,
                timeout=TIMEOUT,
                check=False,
                cwd=neutral,
            )
    except subprocess.TimeoutExpired:
        raise _Failed(f"{python} did not parse {len(files):,} source file(s) within {TIMEOUT:g} s") from None
    except OSError as exc:
        raise _Failed(f"cannot run {python} ({exc.strerror or exc})") from None
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise _Failed(f"{python} failed ({last})")
    try:
        answer = json.loads(done.stdout)
        major, minor = answer["python"]
    except (ValueError, KeyError, TypeError):
        raise _Failed(f"{python} gave no answer ctxviewer can read") from None
    if (major, minor) < UPSTREAM_PYTHON:
        raise _Failed(f"{python} is Python {major}.{minor}, older than 3.12", too_old=True)
    results = answer.get("results")
    if not isinstance(results, list) or len(results) != len(files):
        raise _Failed(f"{python} gave no answer ctxviewer can read")
    return Elsewhere([_result(r) for r in results], python, f"{major}.{minor}")


#: Exceptions a parse may raise in the other Python that upstream's builder lets through.
_RAISED: dict[str, type[Exception]] = {"RecursionError": RecursionError, "MemoryError": MemoryError}


def _result(raw: object) -> Symbols | None:
    if raw is None:
        return None
    if isinstance(raw, dict):
        name, message = raw["raised"]
        raise _RAISED.get(name, RuntimeError)(message if name in _RAISED else f"{name}: {message}")
    if not isinstance(raw, list) or len(raw) != 2:
        raise RuntimeError(f"the parsing Python gave {type(raw).__name__} for a file")
    rows: list[list[Any]] = raw[0]
    edges: list[list[str]] = raw[1]
    return [(r[0], r[1], r[2], r[3], r[4]) for r in rows], [(e[0], e[1]) for e in edges]
