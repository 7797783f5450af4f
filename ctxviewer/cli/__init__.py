"""The ``ctxviewer`` command line: assemble, list, why, prompt, verify, batch, check, whatif, compare, diff,
follow, split, gui.

Where things are: :mod:`ctxviewer.cli.app` builds the parser and runs a command (:func:`main`;
:func:`run`, the console script, also ends the process); :mod:`ctxviewer.cli.common` holds
what the commands share (exit codes, the run options, output writing, terminal escaping,
error lines); every command has a module of its own,
named after it (``assemble``, ``batch``, ``check``, ``listing`` for ``list``, ``why``, ``prompt``,
``verify``, ``split``, ``whatif``, ``compare``, ``diff``, ``follow``, ``gui``), holding the command's code and
its parser (``add_parser``).  A new command is a new module and one line in ``app.COMMANDS``.

Exit codes: 0 success; 1 ``check`` found tasks over budget or a finding that fails,
``why`` found no candidate, ``diff --fail-if-grows`` found a task whose context grew more than
allowed, or the reproduced pipeline itself raised
(``fallback_to_full: false``); 2 bad input -- a missing folder, an unknown feature or
task, a bad budget, setting or finding code, an ``-o`` extension that contradicts
``--format``, a malformed task graph or config, a project file that is unreadable,
binary, not UTF-8, or outside the project, no display for ``gui``.  Bad input is one
line on stderr naming the file (and line), never a traceback.  Where a run could
still be completed (an unreadable spec file is something the pipeline tolerates),
its output is written before exiting 2, so no result is lost.
"""

from __future__ import annotations

from ctxviewer.cli.app import main, run

__all__ = ["main", "run"]
