"""The core of the command line: the parser, with each command's sub-parser added by the command's
module, and :func:`main`, which runs the command chosen and turns what it raises into one line on
stderr and an exit code (see :mod:`ctxviewer.cli` for the codes).
"""

from __future__ import annotations

import argparse
import atexit
import os
import sys
import threading
from collections.abc import Callable, Sequence
from typing import NoReturn

from ctxviewer import __version__
from ctxviewer.cli import (
    assemble,
    batch,
    bisect,
    check,
    compare,
    diff,
    follow,
    gui,
    listing,
    prompt,
    schema,
    split,
    sweep,
    verify,
    whatif,
    why,
    window,
)
from ctxviewer.cli.common import EXIT_BAD_INPUT, EXIT_CODES_HELP, EXIT_OK, Subparsers, discard_stdout, err
from ctxviewer.engine.errors import CtxViewerError
from ctxviewer.engine.runs.collector import pace_for_batches

#: Each command's ``add_parser``, in the order ``ctxviewer --help`` lists the commands.
COMMANDS: tuple[Callable[[Subparsers], None], ...] = (
    assemble.add_parser,
    batch.add_parser,
    sweep.add_parser,
    check.add_parser,
    listing.add_parser,
    why.add_parser,
    prompt.add_parser,
    window.add_parser,
    verify.add_parser,
    split.add_parser,
    whatif.add_parser,
    compare.add_parser,
    diff.add_parser,
    bisect.add_parser,
    follow.add_parser,
    schema.add_parser,
    gui.add_parser,
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        allow_abbrev=False,
        prog="ctxviewer",
        description="Inspect the context an LLM context-assembly pipeline gives each task. Without a command, "
        "open the window. ctxviewer COMMAND --help says what a command prints.",
        epilog=EXIT_CODES_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"ctxviewer {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for add_parser in COMMANDS:
        add_parser(sub)
    return parser


def run() -> NoReturn:
    """The console script and ``python -m ctxviewer``: :func:`main`, then the process ends.

    A command other than ``gui`` ends without the interpreter's teardown, which frees every
    object one by one: after a batch that is about half a second, most of it tiktoken's two
    encodings.  Exit handlers still run and output is flushed first (see :func:`_end_now`).
    """
    code = main(end_now=True)
    sys.exit(code)


def main(argv: Sequence[str] | None = None, *, end_now: bool = False) -> int:
    """Run the command *argv* asks for (the process's own arguments by default); its exit code.

    With *end_now*, a command other than ``gui`` ends the process when it is done.
    """
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if extra:
        # A command whose trailing positionals may follow its options (check's FILE ..., as
        # pre-commit passes them after the hook's args) names them in ``trailing``.
        trailing = getattr(args, "trailing", None)
        if trailing is None or any(word.startswith("-") for word in extra):
            parser.error(f"unrecognized arguments: {' '.join(extra)}")
        getattr(args, trailing).extend(extra)
    if args.command is None:
        args = parser.parse_args(["gui", *(argv or [])])
    code = _command(args)
    if end_now and args.command != "gui":
        _end_now(code)
    return code


def _end_now(code: int) -> None:
    """End the process with *code* at once, when nothing is left to wait for.

    Only with no thread but this one (the interpreter would wait for the others).  The exit
    handlers run (log handlers, multiprocessing's clean-up), then stdout and stderr are
    flushed; if flushing fails (a closed pipe), the interpreter's own exit deals with it.
    Files are never left half-written by this: every file is written and renamed into
    place before a command returns.
    """
    if threading.active_count() != 1:
        return
    atexit._run_exitfuncs()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        return
    os._exit(code)


def _command(args: argparse.Namespace) -> int:
    """Run the parsed command, turning what it raises into one line on stderr and an exit code."""
    if args.command != "gui":  # a short-lived command: see engine/runs/collector.py
        pace_for_batches()
    try:
        code: int = args.func(args)
        return code
    except CtxViewerError as exc:
        err(str(exc))
        return EXIT_BAD_INPUT
    except UnicodeEncodeError as exc:  # a lone surrogate the loaders did not catch (a file name's bytes)
        bad = exc.object[exc.start : exc.end] if isinstance(exc.object, str) else ""
        err(
            f"cannot write the output: it holds {bad.encode('unicode_escape').decode('ascii')}, half of a UTF-16 "
            "surrogate pair (from a name that is not valid UTF-8?), which is not text"
        )
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        err("interrupted")
        return 130
    except BrokenPipeError:
        discard_stdout()
        return EXIT_OK
