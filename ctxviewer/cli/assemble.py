"""The ``assemble`` command: one task's context as the plugin assembles it (Markdown), its trace (JSON) or
the self-contained HTML report.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping
from typing import Any

from ctxviewer.cli.common import (
    ASSEMBLE_SUFFIXES,
    OUTPUT_HELP,
    RAISED,
    Subparsers,
    add_feature,
    add_project,
    add_run_options,
    add_task,
    err,
    exits,
    open_project,
    output_format,
    report_trace_errors,
    run_overrides,
    write_out,
)
from ctxviewer.engine.exports.terminal import visible
from ctxviewer.engine.project.upstream import version_words
from ctxviewer.engine.tokens.counting import HEURISTIC_RULE, ROUNDED


def cmd_assemble(args: argparse.Namespace) -> int:
    from ctxviewer.engine.runs.pipeline import assemble

    fmt = output_format(args, ASSEMBLE_SUFFIXES, "markdown")
    project = open_project(args.project, run_overrides(args))
    trace = assemble(project, args.feature, args.task, exact=fmt != "markdown")
    if fmt == "json":
        from ctxviewer.engine.exports.report import trace_json_text

        text = trace_json_text(trace, prompt=_prompt_json(project, args.feature, args.task))
    elif fmt == "html":
        from ctxviewer.engine.exports.report import html_report

        text = html_report(trace, prompt=_prompt_json(project, args.feature, args.task))
    else:
        text = trace.context
        for warning in trace.warnings:  # the JSON carries them; plain output says them here
            err(f"note: {warning}")
        if trace.own_estimate == ROUNDED:  # the count upstream itself would give the text
            own, heuristic = trace.own_count(trace.context_tokens), trace.context_tokens.heuristic
            err(
                f"note: the context is {own or 0:,} tokens as {version_words(trace.upstream)} estimates it, "
                f"{ROUNDED} "
                f"({heuristic:,} by {HEURISTIC_RULE}; exact counts: --format json or html)"
            )
    if args.debug:  # the Context Debug record on stderr, so the context stays clean
        from ctxviewer.engine.profiles.computed import debug_text

        sys.stderr.write(visible(debug_text(trace), lines=True))
    write_out(text, args.output)
    return report_trace_errors(trace)


def _prompt_json(project: Any, feature: str, task: str) -> Mapping[str, Any] | None:
    """The worker's prompt for the report, as the window's export passes it (None: not composable)."""
    from ctxviewer.engine.errors import CtxViewerError
    from ctxviewer.engine.upstream.prompt import build_prompt

    try:
        feat = project.feature(feature)
        return build_prompt(project, feat, feat.task(task), project.settings, exact=True).to_json()
    except CtxViewerError:
        return None  # the report is still written; it says the prompt is not there


def add_parser(sub: Subparsers) -> None:
    """Add the ``assemble`` command's parser to *sub*."""
    p = sub.add_parser(
        "assemble",
        allow_abbrev=False,
        help="assemble one task's context (markdown), its trace (json) or the HTML report (html)",
        description="Assemble one task and print exactly the context the worker gets (markdown, the default), "
        "the trace of every decision (json) or the self-contained HTML report (html); notes go to stderr. "
        + exits(RAISED),
    )
    add_project(p)
    add_feature(p)
    add_task(p)
    add_run_options(p)
    p.add_argument(
        "--format",
        choices=("markdown", "md", "json", "html"),
        help="markdown: exactly the context; json: the trace; html: the self-contained report "
        "(default: from the -o file's extension, .md/.txt, .json, .html; else markdown)",
    )
    p.add_argument("-o", "--output", help=OUTPUT_HELP)
    p.add_argument(
        "--debug",
        action="store_true",
        help="also print the Context Debug record to stderr: signals, knowledge matched, dependencies, "
        "context-map filtering, limits and budget (the computed profile's; other profiles: the signals)",
    )
    p.set_defaults(func=cmd_assemble)
