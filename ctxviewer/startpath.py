"""Keep the current folder off ``sys.path`` when ctxviewer starts: a project's files are data.

``python -m ctxviewer``, an empty ``PYTHONPATH`` entry or a ``.`` put the current folder on
``sys.path``, so a project's ``glob.py`` would be imported in place of the standard library's.
:func:`drop_current_folder` removes those entries, but not the one ctxviewer itself was imported
from (its code is running anyway, and ``spawn``-ed workers import from the same path); the
console script and ``__main__`` call it first.  This module imports nothing but ``os`` and
``sys``.  What it cannot undo: docs/security.md#python-the-current-folder-is-not-a-source-of-code.
"""

from __future__ import annotations

import os
import sys


def drop_current_folder(path: list[str] | None = None) -> list[str]:
    """Remove ``''``, ``'.'`` and the current folder from *path* (``sys.path``); the entries removed."""
    entries = sys.path if path is None else path
    try:
        here = os.path.realpath(os.getcwd())
    except OSError:  # the current folder was deleted: only '' and '.' can name it
        here = None
    package = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))  # where ctxviewer was found
    dropped: list[str] = []
    kept: list[str] = []
    for entry in entries:
        current = entry in ("", os.curdir) or (here is not None and os.path.realpath(entry) == here)
        if current and os.path.realpath(entry or os.curdir) != package:
            dropped.append(entry)
        else:
            kept.append(entry)
    entries[:] = kept
    return dropped


def run() -> None:
    """The console script ``ctxviewer``: the current folder dropped before the command line is imported."""
    drop_current_folder()
    from ctxviewer.cli import run as run_cli

    run_cli()
