"""The ``verify`` command: an installed upstream plugin run over every task, its text compared with
ctxviewer's line by line.
"""

from __future__ import annotations

import argparse

from ctxviewer.cli.common import (
    EXIT_BAD_INPUT,
    EXIT_FINDINGS,
    EXIT_OK,
    Subparsers,
    add_budget,
    add_feature,
    add_profile,
    add_project,
    add_set,
    err,
    exits,
    open_project,
    print_text,
    report_project_warnings,
    run_overrides,
    versioned_json,
)
from ctxviewer.engine.exports.terminal import one_line, visible
from ctxviewer.engine.wording import plural


def _clip(text: str | None, width: int = 100) -> str:
    if text is None:
        return "(end of text)"
    shown = one_line(text)
    return repr(shown if len(shown) <= width else shown[: width - 1] + "\u2026")


def cmd_verify(args: argparse.Namespace) -> int:
    from ctxviewer.engine.runs.batch import batch_targets
    from ctxviewer.engine.upstream.verify import verify

    project = open_project(args.project, run_overrides(args))
    report_project_warnings(project)
    targets = batch_targets(project, args.feature)
    if not targets:
        err(f"no tasks to verify in {project.root}{f' (feature {args.feature})' if args.feature else ''}")
        return EXIT_BAD_INPUT
    result = verify(project, args.upstream_python, targets)
    if args.format == "json":
        data = {
            "python": result.python,
            "package": result.package,
            "package_version": result.package_version,
            "version": result.version,
            "profile": result.profile,
            "why": result.why,
            "notes": list(result.notes),
            "tasks": len(result.checks),
            "differing": [
                {
                    "feature": c.feature,
                    "task": c.task,
                    "line": c.line,
                    "upstream": c.upstream_line,
                    "ctxviewer": c.ours_line,
                    "upstream_error": c.upstream_error,
                }
                for c in result.differing
            ],
        }
        print_text(versioned_json("verify", data))
    else:
        print_text(
            f"upstream {visible(result.package)} {visible(result.package_version)} ({visible(result.python)}) "
            f"against profile {result.profile}, version {result.version}: {one_line(result.why)}\n"
        )
        for note in result.notes:
            print_text(f"note: {one_line(note)}\n")
        for c in result.differing:
            where = f"{one_line(c.feature)}/{one_line(c.task)}"
            if c.upstream_error is not None:
                print_text(
                    f"DIFF  {where}: upstream raised {one_line(c.upstream_error)}; ctxviewer {_clip(c.ours_line)}\n"
                )
            else:
                lines = f"upstream {_clip(c.upstream_line)} / ctxviewer {_clip(c.ours_line)}"
                print_text(f"DIFF  {where}: line {c.line}: {lines}\n")
        same = len(result.checks) - len(result.differing)
        print_text(f"{same} of {plural(len(result.checks), 'task')} identical\n")
    return EXIT_FINDINGS if result.differing else EXIT_OK


def add_parser(sub: Subparsers) -> None:
    """Add the ``verify`` command's parser to *sub*."""
    p = sub.add_parser(
        "verify",
        allow_abbrev=False,
        help="run an installed upstream plugin over every task and compare its text with ctxviewer's",
        description="Run the context plugin installed in the given interpreter (zerg-ai or mahabharatha) over "
        "every task and compare each text with the profile of its version (or of the version chosen with "
        "--set upstream=... / --profile), and print a DIFF line for each task that differs, with the first "
        "differing line of both texts, then how many are identical.  The project is not written to. "
        + exits("a task differs")
        + " Bad input includes no such interpreter and no upstream package in it.",
    )
    add_project(p)
    p.add_argument(
        "--upstream-python",
        required=True,
        metavar="PATH",
        help="the interpreter (Python 3.12 or later) with zerg-ai or mahabharatha installed",
    )
    add_feature(p, required=False, help="only this feature's tasks (default: every feature's)")
    add_budget(p)
    add_profile(p)
    add_set(p)
    p.add_argument(
        "--format", choices=("text", "json"), default="text", help="text (default): a line a difference; json: data"
    )
    p.set_defaults(func=cmd_verify)
