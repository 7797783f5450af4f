"""The ``diff`` command: tasks assembled at two git revisions, every candidate that moved and the edit
that moved it; ``--fail-if-grows PCT`` makes it a CI gate on the context's size."""

from __future__ import annotations

import argparse
import math
import os
from typing import Any

from ctxviewer.cli.common import (
    EXIT_FINDINGS,
    EXIT_OK,
    OUTPUT_HELP,
    Subparsers,
    TerminalProgress,
    add_budget,
    add_feature,
    add_profile,
    add_project,
    add_set,
    add_task,
    add_verbose,
    err,
    exits,
    output_format,
    run_overrides,
    versioned_json,
    write_out,
)

DIFF_SUFFIXES = {".txt": "text", ".json": "json", ".html": "html", ".htm": "html", ".sarif": "sarif"}


def _percent(text: str) -> float:
    try:
        value = float(text.strip().removesuffix("%"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a percentage (write 10 or 2.5)") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"{text!r}: give a percentage of 0 or more")
    return value


def cmd_diff(args: argparse.Namespace) -> int:
    from ctxviewer.engine.files.git import check_revision_name
    from ctxviewer.engine.runs.revision_report import growth_text, revision_html, revision_text, revision_to_json
    from ctxviewer.engine.runs.revisions import diff_revisions

    revs = args.rev or []
    if not 1 <= len(revs) <= 2:
        from ctxviewer.engine.errors import CtxViewerError

        raise CtxViewerError(f"give --rev once (A; B is the working tree) or twice (A and B), not {len(revs)} times")
    for rev in revs:
        check_revision_name(rev)  # refused before anything runs
    fmt = output_format(args, DIFF_SUFFIXES, "text")
    with TerminalProgress("diff") as progress:  # two revisions of every task: a long run on a big project
        diff = diff_revisions(
            args.project,
            revs[0],
            revs[1] if len(revs) == 2 else None,
            feature=args.feature,
            task=args.task,
            overrides=run_overrides(args),
            exact=not args.no_exact,
            progress=progress,
        )
    if fmt == "json":
        text = versioned_json("diff", revision_to_json(diff))
    elif fmt == "html":
        text = revision_html(diff)
    elif fmt in ("sarif", "github"):
        text = _ci_text(args, diff, fmt)
    else:
        text = revision_text(diff, every=args.verbose)
    write_out(text, args.output)
    if args.fail_if_grows is None:
        return EXIT_OK
    grown = diff.grown_over(args.fail_if_grows)
    for task in grown:
        err(
            f"{task.feature}/{task.task_id}: context grew {growth_text(task)} "
            f"({task.tokens_before:,} \u2192 {task.tokens_after:,} tokens), "
            f"more than the {args.fail_if_grows:g}% allowed"
        )
    return EXIT_FINDINGS if grown else EXIT_OK


def _ci_text(args: argparse.Namespace, diff: Any, fmt: str) -> str:
    """The diff as SARIF or as GitHub annotations (with the job summary): tasks grown past
    ``--fail-if-grows`` and candidates that moved, placed in the working tree's files."""
    from ctxviewer.engine.exports.sites import Locator, revision_sites
    from ctxviewer.engine.project.loading import load_project

    project = load_project(args.project, dict(args.set or []))
    sites = revision_sites(diff, Locator(project), args.fail_if_grows)
    if fmt == "sarif":
        from ctxviewer import __version__
        from ctxviewer.engine.exports.sarif import sarif_text

        return sarif_text(sites, __version__)
    from ctxviewer.engine.exports.github import summary_markdown, workflow_annotations

    changed = sum(1 for t in diff.tasks if not t.unchanged)
    grown = sum(1 for s in sites if s.fails)
    headline = f"{changed} of {len(diff.tasks)} tasks changed from {diff.a.label} to {diff.b.label}"
    if args.fail_if_grows is not None:
        headline += f"; {grown} grew more than {args.fail_if_grows:g}%"
    summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if summary:
        from ctxviewer.engine.files.writing import append_whole

        append_whole(summary, summary_markdown("ctxviewer diff", headline, sites))
    return "".join(line + "\n" for line in workflow_annotations(sites).lines) + headline + "\n"


def add_parser(sub: Subparsers) -> None:
    """Add the ``diff`` command's parser to *sub*."""
    p = sub.add_parser(
        "diff",
        allow_abbrev=False,
        help="tasks at two git revisions: which candidates moved in or out, and the edit that moved them",
        description="Assemble the chosen tasks at two git revisions of the project and print, for each task "
        "whose context changed, its tokens before and after and every candidate that moved in or out with the "
        "edit that moved it; unchanged tasks are counted (-v names them all). "
        + exits("--fail-if-grows is given and a task's context grew by more than it allows"),
    )
    add_project(p, help="the project folder, in a git repository")
    p.add_argument(
        "--rev",
        action="append",
        metavar="REV",
        help="a commit, branch or tag: give it twice for A and B, once for A against the working tree",
    )
    add_feature(p, required=False, help="only this feature's tasks (default: every feature's)")
    add_task(p, required=False, help="only this task (case ignored where only one fits)")
    add_budget(p)
    add_profile(p)
    add_set(p)
    p.add_argument(
        "--format",
        choices=("text", "json", "html", "sarif", "github"),
        help="sarif: SARIF 2.1.0 for code scanning; github: annotations for GitHub Actions and the job summary; "
        "default: from the -o file's extension (.sarif too), else text",
    )
    p.add_argument("--no-exact", action="store_true", help="skip exact tiktoken counts")
    add_verbose(p, "name every unchanged task and every changed file (text)")
    p.add_argument("-o", "--output", help=OUTPUT_HELP)
    p.add_argument(
        "--fail-if-grows",
        type=_percent,
        metavar="PCT",
        help="exit 1 when any task's context grew by more than PCT percent from A to B (a CI gate)",
    )
    p.set_defaults(func=cmd_diff)
