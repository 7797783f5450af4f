"""The ``batch`` command: every task of every feature, one trace a JSON line or one CSV row a task
(spreadsheet-safe cells).
"""

from __future__ import annotations

import argparse
import csv
import io
import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ctxviewer.cli.common import (
    BATCH_SUFFIXES,
    EXIT_BAD_INPUT,
    EXIT_OK,
    OUTPUT_HELP,
    RAISED,
    Subparsers,
    add_budget,
    add_feature,
    add_profile,
    add_project,
    add_set,
    add_shard,
    err,
    exits,
    finding_json,
    open_project,
    output_format,
    report_project_warnings,
    row_input_errors,
    run_overrides,
    stream_out,
    write_out,
)
from ctxviewer.engine.tokens.counting import TOKENIZERS

if TYPE_CHECKING:
    from ctxviewer.engine.files.writing import ScratchPart

#: What the render functions import when first called: worker processes start with them imported.
RENDER_IMPORTS = (
    "ctxviewer.engine.analysis.findings",
    "ctxviewer.engine.trace.jsonline",
    "ctxviewer.engine.exports.tokens",
)

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
    "worker_memory_files",
    "worker_memory_tokens",
    "worker_prompt",
    "worker_prompt_tokens",
    "rules_reaching_worker",
    "paragraphs_reaching_worker",
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
        *_worker_cells(trace),
        csv_text("; ".join(e.one_line() for e in trace.errors)),
    ]


def _worker_cells(trace: Any) -> list[Any]:
    """What the worker's session starts with, and how many rule files and paragraphs reach it (whole)."""
    from ctxviewer.engine.trace.model import (
        MEMORY_BLOCK,
        PROMPT_BLOCK,
        REACHED_MEMORY,
        REACHED_PROMPT,
        RULE_FILE,
        SPEC_PARAGRAPH,
    )

    worker = trace.worker
    if worker is None:
        return ["", "", "", "", "", ""]
    whole = (REACHED_MEMORY, REACHED_PROMPT)
    return [
        len(worker.loaded(MEMORY_BLOCK)),
        worker.total(MEMORY_BLOCK),
        "fails" if worker.prompt_error else worker.prompt_uses,
        worker.total(PROMPT_BLOCK),
        sum(1 for i in trace.items_of(RULE_FILE) if i.reached in whole),
        sum(1 for i in trace.items_of(SPEC_PARAGRAPH) if i.reached in whole),
    ]


def _finding_cells(findings: Sequence[Any]) -> list[Any]:
    """The CSV row's ``findings`` (how many) and ``finding_codes`` (each code once, space-separated)."""
    return [len(findings), " ".join(dict.fromkeys(f.code for f in findings))]


def render_jsonl(row: Any) -> tuple[bytes, list[str]]:
    """A batch row as its JSON line (UTF-8), and its bad input as stderr lines (run in worker
    processes too)."""
    from ctxviewer.engine.analysis.findings import findings_of
    from ctxviewer.engine.trace.jsonline import trace_json_bytes

    assert row.trace is not None  # without collect_errors, a refused task raises
    # The findings are derived, not part of the trace schema: written after the trace's keys.
    findings = [finding_json(f) for f in findings_of(row.trace)]
    return trace_json_bytes(row.trace, {"findings": findings}), row_input_errors(row)


def render_csv(row: Any) -> tuple[str, list[str]]:
    """A batch row as its CSV row, and its bad input as stderr lines (run in worker processes too)."""
    from ctxviewer.engine.analysis.findings import findings_of

    assert row.trace is not None
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerow([*_csv_row(row.trace), *_finding_cells(findings_of(row.trace))])
    return buffer.getvalue(), row_input_errors(row)


def render_token_record(row: Any) -> tuple[str, list[str]]:
    """A batch row as what upstream records for it, as one JSON line (``{"upstream", "record"}``,
    the record's task id raw), and its bad input as stderr lines (run in worker processes too)."""
    from ctxviewer.engine.exports.tokens import record_of

    assert row.trace is not None
    record = record_of(row.trace, row.task.raw)
    found = None if record is None else {"id": record.task_id, "breakdown": dict(record.breakdown)}
    line = {"upstream": row.trace.upstream, "record": found}
    return json.dumps(line, ensure_ascii=False, default=str) + "\n", row_input_errors(row)


def _tokens_batch(args: argparse.Namespace, project: Any, overrides: Any, jobs: int) -> int:
    """``--format tokens``: the batch as upstream's ``tokens-<worker>.json``, written when complete."""
    from ctxviewer.engine.exports.tokens import TaskRecord, token_records_json, worker_name
    from ctxviewer.engine.runs.parallel import run_rendered
    from ctxviewer.engine.trace.model import ROUNDED_VERSIONS

    code = EXIT_OK
    records: list[TaskRecord] = []
    versions: set[str] = set()
    rows = run_rendered(
        project,
        args.feature,
        render_token_record,
        root=args.project,
        overrides=overrides,
        exact=False,
        jobs=jobs,
        preload=RENDER_IMPORTS,
    )
    for text, problems in rows:
        for problem in problems:
            err(problem)
            code = EXIT_BAD_INPUT
        line = json.loads(text)
        versions.add(line["upstream"])
        if line["record"] is not None:
            records.append(TaskRecord(line["record"]["id"], line["record"]["breakdown"]))
    if not versions & set(ROUNDED_VERSIONS):
        ran = ", ".join(sorted(v or "no upstream version" for v in versions)) or "no task"
        err(
            f"no token records: upstream keeps them from zerg-ai 0.3.2 on, and this batch ran {ran}; "
            "choose a version with --set upstream=zerg-ai-0.3.2 or latest"
        )
        return EXIT_BAD_INPUT
    if not records:
        err("no task's context was built without failing, so upstream writes no record (the file would not exist)")
    write_out(token_records_json(worker_name(project.settings.worker_id), records), args.output)
    return code


def cmd_batch(args: argparse.Namespace) -> int:
    from ctxviewer.engine.runs.batch import batch_targets
    from ctxviewer.engine.runs.parallel import default_jobs, run_written

    fmt = output_format(args, BATCH_SUFFIXES, "jsonl")
    if fmt == "tokens" and args.shard is not None:
        err("--shard: the tokens format is one document, which shards cannot join into; use jsonl or csv")
        return EXIT_BAD_INPUT
    jobs = default_jobs() if args.jobs is None else args.jobs
    if jobs < 1:
        err(f"--jobs must be at least 1, not {jobs}")
        return EXIT_BAD_INPUT
    overrides = run_overrides(args)
    project = open_project(args.project, overrides)
    report_project_warnings(project)
    batch_targets(project, args.feature)  # fail on bad input before any output
    if fmt == "tokens":
        return _tokens_batch(args, project, overrides, jobs)
    code = EXIT_OK

    def lines(scratch: Path) -> Iterator[str | bytes | ScratchPart]:
        # Each row is written as soon as its task is assembled (with --jobs, each range as
        # soon as it and those before it are: a part its worker wrote into *scratch*): a
        # batch of a large project is hundreds of megabytes of JSON, never held whole.
        nonlocal code
        if fmt == "csv" and (args.shard is None or args.shard[0] == 1):  # the header is the first shard's
            buffer = io.StringIO()
            csv.writer(buffer, lineterminator="\n").writerow(CSV_COLUMNS)
            yield buffer.getvalue()
        render = render_csv if fmt == "csv" else render_jsonl
        rows = run_written(
            project,
            args.feature,
            render,
            scratch,
            root=args.project,
            overrides=overrides,
            exact=not args.no_exact,
            jobs=jobs,
            preload=RENDER_IMPORTS,
            shard=args.shard,
        )
        for text, problems in rows:
            for problem in problems:
                err(problem)
                code = EXIT_BAD_INPUT
            yield text

    stream_out(lines, args.output)
    return code


def add_parser(sub: Subparsers) -> None:
    """Add the ``batch`` command's parser to *sub*."""
    p = sub.add_parser(
        "batch",
        allow_abbrev=False,
        help="every task of every feature, as JSON lines or CSV",
        description="Assemble every task (of --feature, or of every feature) and print a trace a line (jsonl, "
        "the default), a row a task (csv) or the token records upstream writes (tokens), each task as it is "
        "done. " + exits(RAISED),
    )
    add_project(p)
    add_feature(p, required=False, help="only this feature's tasks (default: every feature's)")
    add_budget(p)
    p.add_argument(
        "--tokenizer", choices=TOKENIZERS, help="the tokenizer decisions count with (default: the project's)"
    )
    add_profile(p)
    add_set(p)
    p.add_argument(
        "--format",
        choices=("jsonl", "csv", "tokens"),
        help="jsonl: a trace a line; csv: a row a task; tokens: the token records upstream (zerg-ai 0.3.2 on) "
        "writes for these tasks, its tokens-<worker>.json, to diff against a worker's (worker from "
        "--set worker_id=N, default unknown). Default: from the -o file's extension (.jsonl, .csv), else jsonl",
    )
    p.add_argument("--no-exact", action="store_true", help="skip exact tiktoken counts (faster)")
    p.add_argument(
        "--jobs",
        type=int,
        metavar="N",
        help="processes to assemble in (default: this machine's cores; a small batch runs in one); "
        "the output is the same, byte for byte",
    )
    add_shard(p, "shards 1 to N, concatenated in order, are the whole batch (jsonl, csv: the header is shard 1's)")
    p.add_argument("-o", "--output", help=OUTPUT_HELP)
    p.set_defaults(func=cmd_batch)
