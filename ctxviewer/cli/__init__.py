"""The ``ctxviewer`` command line: one module per command, named after it (``listing`` for ``list``).

:mod:`ctxviewer.cli.app` builds the parser and runs a command (:func:`main`; :func:`run`, the
console script, also ends the process); :mod:`ctxviewer.cli.common` holds what the commands
share (exit codes, the run options, output writing, terminal escaping, error lines).  A new
command is a new module holding its code and parser (``add_parser``) and one line in
``app.COMMANDS``.  Commands, options and exit codes: docs/cli.md.
"""

from __future__ import annotations

from ctxviewer.cli.app import main, run

__all__ = ["main", "run"]
