"""The ``bisect`` command: every commit of a range that changed one task's context, prompt or
window, with the edit behind each change (docs/bisect.md)."""

from __future__ import annotations

import argparse

from ctxviewer.cli.common import (
    EXIT_OK,
    OUTPUT_HELP,
    REPORT_SUFFIXES,
    Subparsers,
    TerminalProgress,
    add_budget,
    add_feature,
    add_profile,
    add_project,
    add_set,
    add_task,
    exits,
    output_format,
    run_overrides,
    versioned_json,
    wrap_long_lines,
    write_out,
)


def cmd_bisect(args: argparse.Namespace) -> int:
    from ctxviewer.engine.files.git import check_revision_name
    from ctxviewer.engine.runs.bisection import bisect_task, parse_range
    from ctxviewer.engine.runs.bisection_report import bisection_text, bisection_to_json

    for name in parse_range(args.rev):
        check_revision_name(name)  # refused before anything runs
    fmt = output_format(args, REPORT_SUFFIXES, "text")
    with TerminalProgress("bisect") as progress:  # one assembly per commit that touches the task's inputs
        found = bisect_task(
            args.project,
            args.rev,
            feature=args.feature,
            task=args.task,
            what=args.what,
            overrides=run_overrides(args),
            progress=progress,
        )
    if fmt == "json":
        write_out(versioned_json("bisect", bisection_to_json(found)), args.output)
    else:
        write_out(wrap_long_lines(bisection_text(found)), args.output)
    return EXIT_OK


def add_parser(sub: Subparsers) -> None:
    """Add the ``bisect`` command's parser to *sub*."""
    p = sub.add_parser(
        "bisect",
        allow_abbrev=False,
        help="which commits of a range changed one task's context (or its worker prompt or window), and how",
        description="Follow one task through the commits A..B along B's first parents (merges named) and print "
        "each commit that changed its assembled context (--what prompt: its worker prompt; --what window: its "
        "worker window): the files it touched that the task reads, the candidates that entered, left or changed "
        "fate, and the edit behind each, as diff gives them. Only commits that change a file the task's last "
        "assembly read are assembled; the output says how many. A commit that changed it is not a failure, "
        "as with diff. " + exits(),
    )
    add_project(p, help="the project folder, in a git repository")
    add_feature(p)
    add_task(p)
    p.add_argument(
        "--rev",
        required=True,
        metavar="A..B",
        help="the range: the commits after A up to B, each a commit, branch or tag (HEAD~20..HEAD, v1.2..main)",
    )
    p.add_argument(
        "--what",
        choices=("context", "prompt", "window"),
        default="context",
        help="what to follow: the assembled context (default), the worker's prompt, or its whole window",
    )
    add_budget(p)
    add_profile(p)
    add_set(p)
    p.add_argument("--format", choices=("text", "json"), help="text or json (default: from the -o file's extension)")
    p.add_argument("-o", "--output", help=OUTPUT_HELP)
    p.set_defaults(func=cmd_bisect)
