"""The ``whatif`` command: one task's context under other settings (``--set``) diffed against a baseline
(the project's own settings, or ``--baseline-set``).
"""

from __future__ import annotations

import argparse

from ctxviewer.cli.common import (
    ASSEMBLE_SUFFIXES,
    OUTPUT_HELP,
    RAISED,
    Subparsers,
    add_budget,
    add_feature,
    add_profile,
    add_project,
    add_set,
    add_task,
    exits,
    open_project,
    output_format,
    parse_setting,
    report_two_runs,
    run_overrides,
    versioned_json,
    write_out,
)


def cmd_whatif(args: argparse.Namespace) -> int:
    from ctxviewer.engine.analysis.whatif import diff_markdown, diff_to_json, diff_traces
    from ctxviewer.engine.runs.pipeline import assemble_task

    fmt = output_format(args, ASSEMBLE_SUFFIXES, "markdown")
    project = open_project(args.project)
    feature = project.feature(args.feature)
    task = feature.task(args.task)
    base_settings = project.settings.with_overrides(dict(args.baseline_set or []), "baseline")
    settings = base_settings.with_overrides(run_overrides(args), "command line")
    exact = not args.no_exact
    baseline = assemble_task(project, feature, task, base_settings, exact=exact)
    current = assemble_task(project, feature, task, settings, exact=exact)
    diff = diff_traces(baseline, current)
    if fmt == "json":
        text = versioned_json("whatif", diff_to_json(diff))
    elif fmt == "html":  # the report of the run with --set, with the diff against the baseline
        from ctxviewer.engine.exports.report import html_report

        text = html_report(current, diff)
    else:
        text = diff_markdown(diff)
    write_out(text, args.output)
    return report_two_runs(baseline, current)


def add_parser(sub: Subparsers) -> None:
    """Add the ``whatif`` command's parser to *sub*."""
    p = sub.add_parser(
        "whatif",
        allow_abbrev=False,
        help="compare a task's context under other settings with its baseline",
        description="Assemble one task twice, with the project's settings (or --baseline-set) and with "
        "--budget, --profile and --set on top, and print the diff: settings changed, section deltas, "
        "candidates that entered or left and why, and the context diff (markdown, json, or the HTML report "
        "of the second run). " + exits(RAISED),
    )
    add_project(p)
    add_feature(p)
    add_task(p)
    add_budget(p)
    add_profile(p)
    add_set(p)
    p.add_argument(
        "--baseline-set",
        type=parse_setting,
        action="append",
        metavar="KEY=VALUE",
        help="settings of the baseline run (default: the project's own); repeatable",
    )
    p.add_argument(
        "--format",
        choices=("markdown", "md", "json", "html"),
        help="html: the report of the run with --set, the diff against the baseline included "
        "(default: from the -o file's extension, .md/.txt, .json, .html; else markdown)",
    )
    p.add_argument("--no-exact", action="store_true", help="skip exact tiktoken counts")
    p.add_argument("-o", "--output", help=OUTPUT_HELP)
    p.set_defaults(func=cmd_whatif)
