"""The ``compare`` command: one task assembled by two profiles (or two settings) side by side."""

from __future__ import annotations

import argparse

from ctxviewer.cli.common import (
    COMPARE_SUFFIXES,
    RAISED,
    Subparsers,
    add_budget,
    add_feature,
    add_project,
    add_report_output,
    add_set,
    add_task,
    add_verbose,
    exits,
    open_project,
    output_format,
    report_two_runs,
    run_overrides,
    versioned_json,
    write_out,
)


def cmd_compare(args: argparse.Namespace) -> int:
    from ctxviewer.engine.runs.compare import compare_markdown, compare_task, compare_text, compare_to_json, parse_sides

    a, b = parse_sides(args.profiles)  # a malformed spec fails before anything is read
    fmt = output_format(args, COMPARE_SUFFIXES, "text")
    project = open_project(args.project, run_overrides(args))
    feature = project.feature(args.feature)
    task = feature.task(args.task)
    settings_a = a.settings(project.settings, "--profiles A")
    settings_b = b.settings(project.settings, "--profiles B")
    names = (f"A: {a.label}", f"B: {b.label}")
    diff = compare_task(project, feature, task, settings_a, settings_b, exact=not args.no_exact, names=names)
    if fmt == "json":
        text = versioned_json("compare", compare_to_json(diff, a, b))
    elif fmt in ("md", "markdown"):
        text = compare_markdown(diff, a, b)
    else:
        text = compare_text(diff, a, b, every=args.verbose)
    write_out(text, args.output)
    return report_two_runs(diff.baseline, diff.current)


def add_parser(sub: Subparsers) -> None:
    """Add the ``compare`` command's parser to *sub*."""
    p = sub.add_parser(
        "compare",
        allow_abbrev=False,
        help="one task assembled by two profiles (or two settings) side by side",
        description="Assemble one task with two profiles, or one profile with two settings, and print both "
        "contexts' tokens against their budgets, the sections side by side, every candidate whose fate "
        "differs with both reasons, and the context diff. --budget and --set apply to both sides; a side's "
        "own settings win. " + exits(RAISED),
    )
    add_project(p)
    add_feature(p)
    add_task(p)
    p.add_argument(
        "--profiles",
        required=True,
        metavar="A,B",
        help="the two sides, each a profile with optional settings: mahabharatha,drift:budget=6000,top_k=8",
    )
    add_budget(p)
    add_set(p)
    add_report_output(p)
    add_verbose(p, "list every candidate whose fate differs (text; it shows the first few of each kind)")
    p.set_defaults(func=cmd_compare)
