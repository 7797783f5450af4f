"""Keep the current folder off ``sys.path`` when ctxviewer starts: a project's files are data.

``python -m ctxviewer`` puts the current folder first on ``sys.path``, and an empty entry in
``PYTHONPATH`` (``PYTHONPATH=/x:``) or a ``.`` does too: run from inside a project, its
``glob.py`` or ``json.py`` would be imported in place of the standard library's.
:func:`drop_current_folder` removes those entries; the console script (:func:`run`, which
imports the command line only after it) and ``python -m ctxviewer`` (``__main__``) call it
first.  This module imports nothing but ``os`` and ``sys``.

What it cannot undo: the interpreter imports ``sitecustomize`` (and reads ``.pth`` files) from
those entries before any of ctxviewer runs, and ``python -m`` finds ctxviewer itself in the
current folder first.  The entry ctxviewer itself was imported from stays (a checkout run
with ``python -m ctxviewer`` from its own folder): its code is what is running anyway, and
worker processes started by ``spawn`` import from the same ``sys.path``.
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
