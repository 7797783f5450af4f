"""The ``sweep`` command: every task of a feature (or the project) at every budget of a range, and
optionally every value of one share, as one CSV row or JSON cell per task and setting -- the table
behind the GUI's Sweep heatmap, for picking one budget for a whole feature.
"""

from __future__ import annotations

import argparse
import csv
import io
from typing import Any

from ctxviewer.cli.batch import csv_text
from ctxviewer.cli.common import (
    EXIT_BAD_INPUT,
    EXIT_OK,
    OUTPUT_HELP,
    RAISED,
    Subparsers,
    TerminalProgress,
    add_feature,
    add_profile,
    add_project,
    add_set,
    add_shard,
    err,
    exits,
    open_project,
    output_format,
    report_project_warnings,
    run_overrides,
    versioned_json,
    write_out,
)
from ctxviewer.engine.tokens.counting import TOKENIZERS

SWEEP_SUFFIXES = {".csv": "csv", ".json": "json"}


def sweep_csv(sweep: Any, header_row: bool = True) -> str:
    """The sweep as CSV: a header (unless *header_row* is False: a shard after the first), then
    one row per task and setting (task, then share, then budget)."""
    share = [sweep.share_key] if sweep.share_key else []
    header = [
        "feature",
        "task",
        "budget",
        *share,
        "context_tokens",
        "cl100k_base_tokens",
        "o200k_base_tokens",
        "share_of_budget",
        "over_budget",
        "included",
        "cut_for_budget",
        *sweep.codes,
        "error",
    ]
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    if header_row:
        writer.writerow(header)
    for cell in sweep.cells:
        writer.writerow(
            [
                csv_text(cell.feature),
                csv_text(cell.task),
                cell.budget,
                *([f"{cell.share:g}"] if sweep.share_key else []),
                cell.tokens,
                "" if cell.cl100k_base is None else cell.cl100k_base,
                "" if cell.o200k_base is None else cell.o200k_base,
                f"{cell.share_of_budget:.4f}",
                cell.over_budget,
                cell.included,
                cell.cut,
                *(n for _, n in cell.findings),
                csv_text(cell.error),
            ]
        )
    return buffer.getvalue()


def sweep_json(sweep: Any) -> dict[str, Any]:
    """The sweep as one JSON object: what was swept, the tasks, and every cell."""
    return {
        "project": sweep.project,
        "feature": sweep.feature,
        "profile": sweep.profile,
        "tokenizer": sweep.tokenizer,
        "exact": sweep.exact,
        "budgets": list(sweep.budgets),
        "share": {"key": sweep.share_key, "values": list(sweep.shares)} if sweep.share_key else None,
        "finding_codes": list(sweep.codes),
        "tasks": [{"feature": t.feature, "task": t.task, "title": t.title} for t in sweep.tasks],
        "cells": [
            {
                "feature": c.feature,
                "task": c.task,
                "budget": c.budget,
                **({sweep.share_key: c.share} if sweep.share_key else {}),
                "context_tokens": c.tokens,
                "cl100k_base_tokens": c.cl100k_base,
                "o200k_base_tokens": c.o200k_base,
                "share_of_budget": round(c.share_of_budget, 4),
                "over_budget": c.over_budget,
                "included": c.included,
                "cut_for_budget": c.cut,
                "findings": dict(c.findings),
                "error": c.error,
            }
            for c in sweep.cells
        ],
    }


def cmd_sweep(args: argparse.Namespace) -> int:
    from ctxviewer.engine.analysis.findings import CODES
    from ctxviewer.engine.runs.batch import batch_targets
    from ctxviewer.engine.runs.sweep import SWEEP_CODES, parse_budget_range, parse_share_range, run_sweep

    fmt = output_format(args, SWEEP_SUFFIXES, "csv")
    if fmt == "json" and args.shard is not None:
        err("--shard: the JSON output is one document, which shards cannot join into; use csv")
        return EXIT_BAD_INPUT
    # Every range and code is checked before the project is read: a typo costs nothing.
    budgets = parse_budget_range(args.budget_range)
    share_key, shares = parse_share_range(args.share) if args.share else ("", ())
    if args.findings is None:
        codes: tuple[str, ...] = SWEEP_CODES
    elif args.findings.strip() == "all":
        codes = tuple(CODES)
    else:
        codes = tuple(c.strip() for c in args.findings.split(",") if c.strip())
    overrides = run_overrides(args)
    project = open_project(args.project, overrides)
    report_project_warnings(project)
    targets = batch_targets(project, args.feature, args.shard)  # an unknown or broken feature: exit 2 before any work
    with TerminalProgress("sweep") as progress:  # refused before any run when it is too big
        sweep = run_sweep(
            project,
            budgets,
            feature=args.feature,
            targets=targets,
            share_key=share_key,
            shares=shares,
            exact=args.exact,
            codes=codes,
            progress=progress,
        )
    code = EXIT_OK
    for cell in sweep.cells:
        if cell.error:
            at = f"budget {cell.budget:,}" + (f", {sweep.share_key} {cell.share:g}" if sweep.share_key else "")
            err(f"{cell.feature}/{cell.task} at {at}: {cell.error}")
            code = EXIT_BAD_INPUT
    if fmt == "csv":
        text = sweep_csv(sweep, header_row=args.shard is None or args.shard[0] == 1)  # the header is shard 1's
    else:
        text = versioned_json("sweep", sweep_json(sweep))
    write_out(text, args.output)
    return code


def add_parser(sub: Subparsers) -> None:
    """Add the ``sweep`` command's parser to *sub*."""
    p = sub.add_parser(
        "sweep",
        allow_abbrev=False,
        help="every task at every budget of a range (and share): context size, over budget, findings",
        description="Assemble every task (of --feature, or of every feature) at every budget of a range, and at "
        "every value of one share with --share, and print a row per task and setting (csv, the default) or "
        "one JSON document: the context's tokens, its share of the budget, over or not, candidates in and "
        "cut, and a count per finding code. " + exits(RAISED),
    )
    add_project(p)
    add_feature(p, required=False, help="only this feature's tasks (default: every feature's)")
    p.add_argument(
        "--budget",
        dest="budget_range",  # not "budget": run_overrides would read the range as one budget
        required=True,
        metavar="START:STOP:STEP",
        help="the budgets, written 1000:8000:250 or 1k:8k:250 (STOP included when it lands on a step), or one value",
    )
    p.add_argument(
        "--share",
        metavar="KEY=START:STOP:STEP",
        help="also sweep one share: spec_share=0.3:0.7:0.1 or security_share=...",
    )
    p.add_argument(
        "--findings",
        metavar="CODES",
        help="finding codes to count, comma-separated, or 'all' (default: rule-cut, context-empty, over-budget, "
        "section-empty, estimate-flip, share-too-small)",
    )
    p.add_argument("--tokenizer", choices=TOKENIZERS, help="tokenizer used for decisions")
    add_profile(p)
    add_set(p)
    p.add_argument("--exact", action="store_true", help="add exact tiktoken counts to every cell (slower)")
    p.add_argument("--format", choices=("csv", "json"), help="default: from the -o file's extension, else csv")
    add_shard(p, "shards 1 to N, concatenated in order, are the whole sweep (csv: the header is shard 1's)")
    p.add_argument("-o", "--output", help=OUTPUT_HELP)
    p.set_defaults(func=cmd_sweep)
