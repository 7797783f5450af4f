"""The ``split`` command: preview (or ``--apply``) splitting long command files into core and details."""

from __future__ import annotations

import argparse

from ctxviewer.cli.common import (
    EXIT_BAD_INPUT,
    EXIT_OK,
    Subparsers,
    add_project,
    err,
    exits,
    open_project,
    print_text,
)
from ctxviewer.engine.exports.terminal import visible
from ctxviewer.engine.wording import plural


def cmd_split(args: argparse.Namespace) -> int:
    from ctxviewer.engine.project.splitter import analyze_project, apply_split

    project = open_project(args.project)
    analyses = analyze_project(project, exact=not args.no_exact)
    code = EXIT_OK
    if not analyses:
        print_text(f"no command files under {visible(project.settings.paths.commands)}\n")
    for a in analyses:
        if a.problem:
            err(a.problem)
            code = EXIT_BAD_INPUT
            continue
        exact = ""
        if a.tokens.cl100k_base is not None:
            exact = f", cl100k_base {a.tokens.cl100k_base:,} -> {a.core_tokens.cl100k_base:,}"
        if a.eligible:
            print_text(
                f"SPLIT {visible(a.path)}: {a.lines} lines, {plural(len(a.sections), 'section')}; split after line "
                f"{a.split_line} (target {a.target_line}); core {a.core_tokens.heuristic:,} + details "
                f"{a.details_tokens.heuristic:,} est. tokens, saves {a.tokens_saved:,} of "
                f"{a.tokens.heuristic:,}{exact}\n"
            )
        else:
            print_text(f"keep  {visible(a.path)}: {a.lines} lines (< 300), {a.tokens.heuristic:,} est. tokens\n")
    if args.apply:
        for a in analyses:
            if a.eligible and not a.problem:
                written = apply_split(project, a)
                print_text(f"wrote {', '.join(visible(w) for w in written)}\n")
    elif any(a.eligible for a in analyses):
        print_text("preview only: run with --apply to write the split files\n")
    return code


def add_parser(sub: Subparsers) -> None:
    """Add the ``split`` command's parser to *sub*."""
    p = sub.add_parser(
        "split",
        allow_abbrev=False,
        help="preview (or --apply) command-file splitting",
        description="Print, for each command file, whether it would be split (300 lines or more) into a core "
        "and details, where, and the tokens it saves; --apply writes the split files. "
        + exits()
        + " A command file that cannot be followed or written safely is bad input.",
    )
    add_project(p)
    p.add_argument("--apply", action="store_true", help="write .core.md/.details.md for eligible files")
    p.add_argument("--no-exact", action="store_true", help="leave out the exact cl100k_base counts")
    p.set_defaults(func=cmd_split)
