"""Errors the engine raises for input a user must fix.

Every error renders as one line that names the file (and the line, where known), so
the CLI can print it as is and the GUI can show it in a panel.  Failures that the
reproduced pipeline itself tolerates are *not* raised: they are recorded in the
trace (see :class:`ctxviewer.engine.trace.model.TraceError`).  :func:`json_type` and
:func:`short` word a bad value the same way in every such message.
"""

from __future__ import annotations

from typing import Any


class CtxViewerError(Exception):
    """Input ctxviewer cannot work with; the message is meant for the user."""

    def __init__(self, message: str, path: str | None = None, line: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.path = path
        self.line = line

    def __reduce__(self) -> tuple[Any, ...]:
        # Rebuilt whole when it crosses from a worker process (``batch --jobs``).
        return (type(self), (self.message, self.path, self.line))

    def __str__(self) -> str:
        where = ""
        if self.path:
            where = self.path if self.line is None else f"{self.path}:{self.line}"
            where += ": "
        return f"{where}{self.message}"


class ProjectError(CtxViewerError):
    """The project folder, its task graph or its configuration is unusable."""


class UnknownFeatureError(CtxViewerError):
    """A feature name that the project does not have."""


class UnknownTaskError(CtxViewerError):
    """A task id that the feature's task graph does not have."""


class SettingsError(CtxViewerError):
    """A setting (from a file, the command line or the GUI) with an invalid value."""


class EncodingUnavailableError(CtxViewerError):
    """A tokenizer's encoding file is missing or does not match its official hash."""


class WriteError(CtxViewerError):
    """A file could not be written; the previous file (if any) is intact."""


def json_type(value: Any) -> str:
    """The JSON name of *value*'s type, for messages: ``a string``, ``a number``, ``null``..."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def short(text: str, limit: int = 40) -> str:
    """``repr`` of *text*, cut to about *limit* characters."""
    return repr(text if len(text) <= limit else text[:limit] + "…")
