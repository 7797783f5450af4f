"""The ``list`` command: the project's features and tasks, each task's context tokens against its
budget and its findings, as an aligned table or JSON.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from typing import Any

from ctxviewer.cli.common import (
    EXIT_BAD_INPUT,
    EXIT_OK,
    OUTPUT_HELP,
    RAISED,
    REPORT_SUFFIXES,
    Subparsers,
    add_feature,
    add_project,
    add_run_options,
    err,
    exits,
    open_project,
    output_format,
    report_project_warnings,
    report_row_input_errors,
    run_overrides,
    versioned_json,
    write_out,
)
from ctxviewer.engine.exports.terminal import one_line
from ctxviewer.engine.tokens.counting import ROUNDED
from ctxviewer.engine.wording import plural


def _table(rows: Sequence[Sequence[str]], right: Sequence[int] = (), indent: str = "  ") -> list[str]:
    """Rows of cells as aligned lines: columns as wide as their widest cell, *right* ones right-aligned."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))] if rows else []
    lines = []
    for row in rows:
        cells = [c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths, strict=True))]
        lines.append((indent + "  ".join(cells)).rstrip())
    return lines


def _severity_counts(findings: Sequence[Any]) -> dict[str, int]:
    from ctxviewer.engine.analysis.findings import SEVERITIES

    return {severity: sum(1 for f in findings if f.severity == severity) for severity in SEVERITIES}


def _counts_text(counts: Mapping[str, int]) -> str:
    """``1 error, 2 warnings`` (only the severities there are), or ``-``."""
    parts = [plural(n, k, k if k == "info" else None) for k, n in counts.items() if n]
    return ", ".join(parts) or "-"


def _list_data(args: argparse.Namespace) -> tuple[dict[str, Any], int]:
    """What ``list`` shows, as JSON-able data, and the exit code bad input calls for."""
    from ctxviewer.engine.analysis.findings import findings_of
    from ctxviewer.engine.runs.batch import run_batch
    from ctxviewer.engine.runs.pipeline import decision_tokenizer
    from ctxviewer.engine.trace.model import MEMORY_BLOCK, PROMPT_BLOCK

    project = open_project(args.project, run_overrides(args))
    report_project_warnings(project)
    features = [project.feature(args.feature)] if args.feature else list(project.features)
    tokenizer = decision_tokenizer(project.settings, project)
    code = EXIT_OK
    rows: dict[tuple[str, str], Any] = {}
    for row in run_batch(project, args.feature, exact=args.exact, collect_errors=True):
        rows[(row.feature.name, row.task.id)] = row
        if row.trace is None:
            err(f"{row.feature.name}/{row.task.id}: {row.error}")
            code = EXIT_BAD_INPUT
        else:
            code = max(code, report_row_input_errors(row))
    out_features: list[dict[str, Any]] = []
    for feature in features:
        problem = None
        if feature.graph_error is not None:
            problem = str(feature.graph_error)
            err(problem)
            code = EXIT_BAD_INPUT
        elif not feature.has_graph:
            problem = "no task graph"
        tasks = []
        for task in feature.tasks if feature.graph_error is None else ():
            row = rows[(feature.name, task.id)]
            trace = row.trace
            entry: dict[str, Any] = {"id": task.id, "title": task.title}
            if trace is None:
                entry.update(tokens=None, budget=None, over_budget=None, problem=row.error)
            else:
                findings = findings_of(trace)
                entry.update(
                    tokens=trace.context_tokens.get(tokenizer),
                    budget=trace.budget,
                    over_budget=(trace.context_tokens.get(tokenizer) or 0) > trace.budget,
                    chars=trace.context_tokens.chars,
                    own_estimate=trace.own_estimate,
                    own_tokens=trace.own_count(trace.context_tokens),
                    findings=_severity_counts(findings),
                    finding_codes=sorted({f.code for f in findings}),
                    problem=None,
                )
                worker = trace.worker
                entry.update(
                    memory_tokens=None if worker is None else worker.total(MEMORY_BLOCK),
                    memory_files=None if worker is None else len(worker.loaded(MEMORY_BLOCK)),
                    prompt_tokens=None if worker is None else worker.total(PROMPT_BLOCK),
                    prompt_uses=None if worker is None else worker.prompt_uses,
                    prompt_error=None if worker is None else worker.prompt_error,
                )
            tasks.append(entry)
        out_features.append(
            {"name": feature.name, "task_graph": feature.graph_path, "problem": problem, "tasks": tasks}
        )
    listed = [t for f in out_features for t in f["tasks"] if t["tokens"] is not None]
    totals = {k: sum(t["findings"][k] for t in listed) for k in _severity_counts(())}
    data = {
        "project": project.name,
        "root": str(project.root),
        "profile": project.settings.profile,
        "tokenizer": tokenizer,
        "budget": project.settings.budget,
        "exact": bool(args.exact),
        "findings": totals,
        "features": out_features,
    }
    return data, code


def _list_text(data: Mapping[str, Any]) -> str:
    features = data["features"]
    n_tasks = sum(len(f["tasks"]) for f in features)
    head = (
        f"{one_line(data['project'])}: {plural(len(features), 'feature')}, {plural(n_tasks, 'task')} · "
        f"profile {data['profile']} · budget {data['budget']:,} {data['tokenizer']} tokens · "
        f"findings: {_counts_text(data['findings']).replace('-', 'none')}"
    )
    # Tasks run by a version that counts with round(len / 4) get that count beside the decision's
    # (an UPSTREAM column); a list with none of them keeps its columns.
    rounded = any(t.get("own_estimate") == ROUNDED for f in features for t in f["tasks"])
    own = ["UPSTREAM"] if rounded else []
    rows = [["TASK", "TOKENS", *own, "BUDGET", "USED", "MEMORY", "PROMPT", "FINDINGS", "TITLE"]]
    for feature in features:
        for t in feature["tasks"]:
            if t["tokens"] is None:
                blank = ["-"] * len(own)
                problem = f"not assembled: {one_line(t['problem'])}"
                rows.append([one_line(t["id"]), "-", *blank, "-", "", "-", "-", "", problem])
                continue
            used = f"{100 * t['tokens'] / t['budget']:.0f}%"
            findings = _counts_text(t["findings"])
            mine = [f"{t['own_tokens']:,}" if t.get("own_estimate") == ROUNDED and t["own_tokens"] else "-"] * len(own)
            memory = "-" if t.get("memory_tokens") is None else f"{t['memory_tokens']:,}"
            prompt = "-" if t.get("prompt_tokens") is None else f"{t['prompt_tokens']:,}"
            if t.get("prompt_error"):
                prompt = "fails"
            row = [one_line(t["id"]), f"{t['tokens']:,}", *mine, f"{t['budget']:,}", used, memory, prompt, findings]
            rows.append([*row, one_line(t["title"])])
    lines = _table(rows, right=tuple(range(1, 6 + len(own))))  # one table: every feature's columns line up
    out = [head]
    if rounded:
        out.append(f"UPSTREAM: the task's context by the upstream version's own estimate, {ROUNDED}")
    at = 1
    for feature in features:
        what = one_line(feature["problem"]) if feature["problem"] else plural(len(feature["tasks"]), "task")
        out += ["", f"{one_line(feature['name'])} ({what})"]
        if feature["tasks"]:
            out.append(lines[0])
            out += lines[at : at + len(feature["tasks"])]
            at += len(feature["tasks"])
    out += [
        "",
        "TOKENS: the plugin's context; MEMORY and PROMPT: what the worker's session loads as project memory "
        "and gets as its prompt, 'fails' where upstream raises composing it (docs/worker-window.md)",
    ]
    return "\n".join(out) + "\n"


def cmd_list(args: argparse.Namespace) -> int:
    fmt = output_format(args, REPORT_SUFFIXES, "text")
    data, code = _list_data(args)
    write_out(versioned_json("list", data) if fmt == "json" else _list_text(data), args.output)
    return code


def add_parser(sub: Subparsers) -> None:
    """Add the ``list`` command's parser to *sub*."""
    p = sub.add_parser(
        "list",
        allow_abbrev=False,
        help="the project's features and tasks, each task's context tokens against its budget",
        description="Print the features and their tasks; every task is assembled to give its context's tokens "
        "(in the unit the profile decides with) against its budget, what the worker's session loads, its "
        "findings by severity and its title, as an aligned table (text) or data (json). " + exits(RAISED),
    )
    add_project(p)
    add_feature(p, required=False, help="only this feature's tasks (default: every feature's)")
    p.add_argument(
        "--exact",
        action="store_true",
        help="also count every candidate exactly, so findings that compare the estimate with the exact "
        "count (estimate-flip) are found too (slower)",
    )
    add_run_options(p)
    p.add_argument("--format", choices=("text", "json"), help="default: from the -o file's extension, else text")
    p.add_argument("-o", "--output", help=OUTPUT_HELP)
    p.set_defaults(func=cmd_list)
