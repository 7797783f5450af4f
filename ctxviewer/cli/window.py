"""The ``window`` command: what a task's worker session starts with, block by block (docs/worker-window.md)."""

from __future__ import annotations

import argparse
from collections import Counter
from typing import Any

from ctxviewer.cli.common import (
    EXIT_OK,
    RAISED,
    Subparsers,
    add_feature,
    add_project,
    add_report_output,
    add_run_options,
    add_task,
    exits,
    open_project,
    output_format,
    run_overrides,
    versioned_json,
    wrap_long_lines,
    write_out,
)
from ctxviewer.engine.trace.model import (
    ESTIMATE_BLOCK,
    REACHED_LABELS,
    REACHED_PATHS,
    Trace,
    WorkerWindow,
    received_json,
)

WINDOW_SUFFIXES = {".txt": "text", ".md": "md", ".markdown": "md", ".json": "json"}
LOAD_WORDS = {
    "always": "always",
    "conditional": "paths: match",
    "on_demand": "on demand",
    "import": "import",
    "prompt": "prompt",
    "estimate": "stated",
}


def _count(value: int | None) -> str:
    return "-" if value is None else f"{value:,}"


def window_data(trace: Trace, window: WorkerWindow) -> dict[str, Any]:
    """The window as plain data: blocks, totals and each candidate's path."""
    total = window.total()
    return {
        "feature": trace.feature,
        "task": trace.task_id,
        "profile": trace.profile,
        "upstream": trace.upstream,
        "folder": window.folder,
        "folder_reason": window.folder_reason,
        "summary": window.summary(),
        "prompt_uses": window.prompt_uses,
        "prompt_error": window.prompt_error,
        "total_tokens": total,
        "stated_tokens": window.total(ESTIMATE_BLOCK),
        "model_window_tokens": int(trace.settings["max_context_tokens"].value),
        "blocks": [{**received_json(b), "tokens": b.size, "counts": b.tokens.to_json()} for b in window.blocks],
        "candidates": [
            {
                "id": i.id,
                "kind": i.kind,
                "source": i.source,
                "status": i.status,
                "reached": i.reached,
                "how": i.reached_how,
            }
            for i in trace.items
        ],
        "notes": list(window.notes),
    }


def _reach_line(data: dict[str, Any]) -> str:
    counts = Counter(c["reached"] for c in data["candidates"])
    parts = [f"{counts[p]} {REACHED_LABELS[p]}" for p in REACHED_PATHS if counts[p]]
    return "Candidates of the plugin that reached the worker: " + (", ".join(parts) if parts else "none listed")


def _text(data: dict[str, Any]) -> str:
    out = [
        f"Worker window: {data['feature']} / {data['task']}",
        f"Working folder: {data['folder'] or '(the project root)'} -- {data['folder_reason']}",
        data["summary"][0].upper() + data["summary"][1:] + ".",
        "",
    ]
    rows = [("#", "block", "load", "tokens", "cl100k", "o200k", "chars")]
    for n, b in enumerate(data["blocks"], 1):
        load, cl100k, o200k, chars = _cells(b)
        tokens = f"{b['tokens']:,}" if b["loaded"] else f"({b['tokens']:,})"
        rows.append((str(n), b["title"], load, tokens, cl100k, o200k, chars))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    right = {0, 3, 4, 5, 6}
    for row in rows:
        cells = [c.rjust(widths[i]) if i in right else c.ljust(widths[i]) for i, c in enumerate(row)]
        out.append("  ".join(cells).rstrip())
    window = data["model_window_tokens"]
    share = 100 * data["total_tokens"] / window if window else 0.0
    out += [
        "",
        f"At session start: {data['total_tokens']:,} tokens ({data['stated_tokens']:,} of them stated, not counted), "
        f"{share:.1f}% of the {window:,}-token window.",
        "Exact counts are cl100k_base (o200k_base beside it): proxies for Claude's tokenizer.",
        _reach_line(data),
    ]
    skipped = [b for b in data["blocks"] if b["kind"] == "memory" and not b["loaded"]]
    if skipped:
        out += ["", "Listed, not loaded (their tokens in parentheses are not counted):"]
        out += [f"  {b['title']}: {b['note']}" for b in skipped]
    if data["notes"]:
        out += ["", *(f"Note: {n}" for n in data["notes"])]
    return "\n".join(out) + "\n"


def _cells(b: dict[str, Any]) -> tuple[str, str, str, str]:
    """A block's load and its exact counts and characters, as the tables show them ("-" for a stated size)."""
    if b["stated"] is not None:
        return "stated", "-", "-", "-"
    counts = b["counts"]
    load = str(LOAD_WORDS.get(b["load"], b["load"])) if b["loaded"] else "not loaded"
    return load, _count(counts["cl100k_base"]), _count(counts["o200k_base"]), f"{counts['chars']:,}"


def _markdown(data: dict[str, Any]) -> str:
    def cell(text: str) -> str:
        return text.replace("|", "\\|").replace("\n", " ")

    out = [
        f"# Worker window: {cell(data['feature'])} / {cell(data['task'])}",
        "",
        f"Working folder: `{data['folder'] or '.'}` ({cell(data['folder_reason'])}).",
        "",
        data["summary"][0].upper() + data["summary"][1:] + ".",
        "",
        "| # | block | load | tokens | cl100k | o200k | chars | source | note |",
        "|---:|---|---|---:|---:|---:|---:|---|---|",
    ]
    for n, b in enumerate(data["blocks"], 1):
        load, cl100k, o200k, chars = _cells(b)
        tokens = f"{b['tokens']:,}{'' if b['loaded'] else ' (not counted)'}"
        out.append(
            f"| {n} | {cell(b['title'])} | {load} | {tokens} | {cl100k} | {o200k} | {chars} | "
            f"{cell(b['source'])} | {cell(b['note'])} |"
        )
    out += ["", f"At session start: {data['total_tokens']:,} tokens.", "", _reach_line(data), ""]
    out += [f"Note: {cell(n)}" for n in data["notes"]]
    return "\n".join(out).rstrip() + "\n"


def cmd_window(args: argparse.Namespace) -> int:
    from ctxviewer.engine.runs.pipeline import assemble_task

    fmt = output_format(args, WINDOW_SUFFIXES, "text")
    project = open_project(args.project, run_overrides(args))
    feature = project.feature(args.feature)
    task = feature.task(args.task)
    trace = assemble_task(project, feature, task, exact=not args.no_exact)
    assert trace.worker is not None  # every assembled trace has one
    data = window_data(trace, trace.worker)
    if fmt == "json":
        write_out(versioned_json("window", data), args.output)
    elif fmt in ("md", "markdown"):
        write_out(_markdown(data), args.output)
    else:
        write_out(wrap_long_lines(_text(data)), args.output)
    return EXIT_OK


def add_parser(sub: Subparsers) -> None:
    """Add the ``window`` command's parser to *sub*."""
    p = sub.add_parser(
        "window",
        allow_abbrev=False,
        help="what a task's worker session starts with: project memory, the prompt, stated sizes",
        description="Print every block upstream's worker session starts with for one task, in order: Claude "
        "Code's own parts and memory outside the project (stated sizes, settings worker.*), each project memory "
        "file (CLAUDE.md, .claude/rules/**, imports, path-scoped rules, subfolder CLAUDE.md) with how it loaded, "
        "and the prompt's parts; then whether each candidate of the plugin reached the worker.  text and md: "
        "a table; json: everything, texts included.  See docs/worker-window.md. " + exits(RAISED),
    )
    add_project(p)
    add_feature(p)
    add_task(p)
    add_run_options(p)
    add_report_output(p)
    p.set_defaults(func=cmd_window)
