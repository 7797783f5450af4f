"""The core of the command line: the parser, with each command's sub-parser added by the command's
module, and :func:`main`, which runs the command chosen and turns what it raises into one line on
stderr and an exit code (see :mod:`ctxviewer.cli` for the codes).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence

from ctxviewer import __version__
from ctxviewer.cli import (
    assemble,
    batch,
    check,
    compare,
    diff,
    follow,
    gui,
    listing,
    prompt,
    split,
    sweep,
    verify,
    whatif,
    why,
)
from ctxviewer.cli.common import EXIT_BAD_INPUT, EXIT_OK, Subparsers, discard_stdout, err
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
    verify.add_parser,
    split.add_parser,
    whatif.add_parser,
    compare.add_parser,
    diff.add_parser,
    follow.add_parser,
    gui.add_parser,
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        allow_abbrev=False,
        prog="ctxviewer",
        description="Inspect the context an LLM context-assembly pipeline gives each task.",
    )
    parser.add_argument("--version", action="version", version=f"ctxviewer {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for add_parser in COMMANDS:
        add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        args = parser.parse_args(["gui", *(argv or [])])
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
