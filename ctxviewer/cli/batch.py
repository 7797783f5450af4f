"""The ``batch`` command: every task of every feature, one trace a JSON line or one CSV row a task
(spreadsheet-safe cells).
"""

from __future__ import annotations

import argparse
import csv
import io
import json
from collections.abc import Iterator, Sequence
from typing import Any

from ctxviewer.cli.common import (
    BATCH_SUFFIXES,
    EXIT_OK,
    Subparsers,
    add_budget,
    add_profile,
    add_set,
    finding_json,
    output_format,
    report_project_warnings,
    report_row_input_errors,
    run_overrides,
    stream_out,
)
from ctxviewer.engine.tokens.counting import TOKENIZERS

CSV_COLUMNS = (
    "feature",
    "task",
    "title",
    "budget",
    "context_chars",
    "heuristic_tokens",
    "cl100k_base_tokens",
    "o200k_base_tokens",
    "security_rules_tokens",
    "spec_excerpts_tokens",
    "paragraphs_included",
    "paragraphs_truncated",
    "paragraphs_cut_for_budget",
    "paragraphs_outranked",
    "rules_included",
    "rules_cut_for_budget",
    "trim_steps",
    "over_budget",
    "checkpoint_usage_percent",
    "errors",
    "findings",
    "finding_codes",
)


#: A cell starting with one of these is read as a formula by spreadsheets (CSV injection).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_text(value: str) -> str:
    """A text cell from the project, neutralised as spreadsheets expect: one that would start a
    formula gets a leading ``'`` (shown as text, not evaluated).  Our own numbers are not passed here.

    A carriage return becomes a line feed: the writer quotes a cell holding a line feed, but
    not one holding a bare carriage return, which readers take as the end of the row.
    """
    if value.startswith(FORMULA_STARTS):
        value = "'" + value
    return value.replace("\r\n", "\n").replace("\r", "\n")


def _csv_row(trace: Any) -> list[Any]:
    from ctxviewer.engine.trace.model import CUT_FOR_BUDGET, INCLUDED, OUTRANKED, RULE_FILE, SPEC_PARAGRAPH, TRUNCATED

    paras = trace.items_of(SPEC_PARAGRAPH)
    rules = trace.items_of(RULE_FILE)
    sec = {s.name: s.tokens.heuristic for s in trace.sections}
    return [
        csv_text(trace.feature),
        csv_text(trace.task_id),
        csv_text(trace.task_title),
        trace.budget,
        trace.context_tokens.chars,
        trace.context_tokens.heuristic,
        trace.context_tokens.cl100k_base,
        trace.context_tokens.o200k_base,
        sec.get("security_rules", 0),
        sec.get("spec_excerpts", 0),
        sum(1 for p in paras if p.status == INCLUDED),
        sum(1 for p in paras if p.status == TRUNCATED),
        sum(1 for p in paras if p.status == CUT_FOR_BUDGET),
        sum(1 for p in paras if p.status == OUTRANKED),
        sum(1 for r in rules if r.status == INCLUDED),
        sum(1 for r in rules if r.status == CUT_FOR_BUDGET),
        len(trace.trim_steps),
        trace.over_budget,
        f"{trace.tracker.usage_percent:.2f}",
        csv_text("; ".join(e.one_line() for e in trace.errors)),
    ]


def _finding_cells(findings: Sequence[Any]) -> list[Any]:
    """The CSV row's ``findings`` (how many) and ``finding_codes`` (each code once, space-separated)."""
    return [len(findings), " ".join(dict.fromkeys(f.code for f in findings))]


def cmd_batch(args: argparse.Namespace) -> int:
    from ctxviewer.engine.analysis.findings import findings_of
    from ctxviewer.engine.project.loading import load_project
    from ctxviewer.engine.runs.batch import batch_targets, run_batch
    from ctxviewer.engine.trace.model import trace_to_json

    fmt = output_format(args, BATCH_SUFFIXES, "jsonl")
    project = load_project(args.project, run_overrides(args))
    report_project_warnings(project)
    batch_targets(project, args.feature)  # fail on bad input before any output
    code = EXIT_OK

    def lines() -> Iterator[str]:
        # Each row is written as soon as its task is assembled: a batch of a large project
        # is hundreds of megabytes of JSON, never held whole.
        nonlocal code
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n") if fmt == "csv" else None
        if writer is not None:
            writer.writerow(CSV_COLUMNS)
            yield buffer.getvalue()
        for row in run_batch(project, args.feature, exact=not args.no_exact):
            assert row.trace is not None  # without collect_errors, a refused task raises
            findings = findings_of(row.trace)
            if writer is not None:
                buffer.seek(0)
                buffer.truncate()
                writer.writerow([*_csv_row(row.trace), *_finding_cells(findings)])
                yield buffer.getvalue()
            else:
                line = trace_to_json(row.trace)
                line["findings"] = [finding_json(f) for f in findings]  # derived: not part of the trace schema
                yield json.dumps(line, ensure_ascii=False) + "\n"
            code = max(code, report_row_input_errors(row))

    stream_out(lines(), args.output)
    return code


def add_parser(sub: Subparsers) -> None:
    """Add the ``batch`` command's parser to *sub*."""
    p = sub.add_parser("batch", allow_abbrev=False, help="every task of every feature, as JSON lines or CSV")
    p.add_argument("project")
    p.add_argument("--feature")
    add_budget(p)
    p.add_argument("--tokenizer", choices=TOKENIZERS)
    add_profile(p)
    add_set(p)
    p.add_argument(
        "--format", choices=("jsonl", "csv"), help="default: from the -o file's extension (.jsonl, .csv), else jsonl"
    )
    p.add_argument("--no-exact", action="store_true", help="skip exact tiktoken counts (faster)")
    p.add_argument("-o", "--output")
    p.set_defaults(func=cmd_batch)
