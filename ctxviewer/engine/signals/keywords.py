"""Task keywords as the reproduced pipeline extracts them, with where each came from.

Rules (``SpecLoader._extract_task_keywords`` of the reference system):

* ``title`` and ``description``: split on whitespace; each word longer than 3
  characters is lowercased and kept, punctuation attached (``module.`` stays).
* every list under ``files`` (all keys, not only create/modify): each path's stem,
  ``-`` turned into ``_``, split on ``_``; parts longer than 2 characters, lowercased.

Where the reference would raise (a title that is not text, ``files`` that is not a
mapping, a path entry that is not a string) :class:`KeywordError` is raised with a
message saying what the real system trips over.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import PurePosixPath
from typing import Any

from ctxviewer.engine.trace.model import Keyword


class KeywordError(Exception):
    """The task dict makes the reference keyword extraction raise."""


def describe_value(value: Any) -> str:
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{type(value).__name__} {text}"


def path_stem(path: str) -> str:
    """``Path(path).stem`` as on the POSIX machines the reference system runs on."""
    return PurePosixPath(path).stem


def extract_keywords(task: Mapping[str, Any]) -> tuple[Keyword, ...]:
    """The task's keywords, sorted, each with its sources in the order they were found."""
    # Sources as dict keys: ordered and de-duplicated in constant time each (a list
    # searched per add is quadratic in a task listing tens of thousands of files).
    found: dict[str, dict[str, None]] = {}

    def add(word: str, source: str) -> None:
        found.setdefault(word, {})[source] = None

    for field in ("title", "description"):
        text = task.get(field, "")
        if not text:
            continue
        if not isinstance(text, str):
            raise KeywordError(f"task {field} is {describe_value(text)}, not text")
        for word in text.split():
            if len(word) > 3:
                add(word.lower(), field)

    files = task.get("files", {})
    if not isinstance(files, Mapping):
        raise KeywordError(f"task 'files' is {describe_value(files)}, not a mapping")
    for key, entries in files.items():
        if not isinstance(entries, list):
            continue
        for entry in entries:
            if not isinstance(entry, str):
                raise KeywordError(f"files.{key} has an entry that is {describe_value(entry)}, not a path")
            for part in path_stem(entry).replace("-", "_").split("_"):
                if len(part) > 2:
                    add(part.lower(), f"files.{key}: {entry}")
    return tuple(Keyword(word, tuple(found[word])) for word in sorted(found))
