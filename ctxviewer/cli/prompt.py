"""The ``prompt`` command: the whole prompt upstream's worker gives the model for a task, as text,
as a Markdown report attributing each part, or as JSON.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Mapping
from typing import Any

from ctxviewer.cli.common import (
    EXIT_FINDINGS,
    EXIT_OK,
    Subparsers,
    add_budget,
    add_feature,
    add_profile,
    add_project,
    add_report_output,
    add_set,
    add_task,
    err,
    exits,
    open_project,
    output_format,
    run_overrides,
    versioned_json,
    write_out,
)

PROMPT_SUFFIXES = {".txt": "text", ".md": "md", ".markdown": "md", ".json": "json"}


def _fence(text: str) -> str:
    """A backtick fence longer than any run of backticks in *text*."""
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    return "`" * max(3, longest + 1)


def _counts_cells(tokens: Mapping[str, Any]) -> str:
    exact = " · ".join(f"{tokens[k]:,} {k}" for k in ("cl100k_base", "o200k_base") if tokens.get(k) is not None)
    return f"{tokens['chars']:,} chars · {tokens['upstream_estimate']:,} upstream estimate" + (
        f" · {exact}" if exact else ""
    )


def _prompt_markdown(data: Mapping[str, Any]) -> str:
    """The prompt report: where each part comes from and what it costs, then the prompt itself."""

    def cell(text: str) -> str:
        return text.replace("|", "\\|").replace("\n", " ")

    out = [f"# Worker prompt: {cell(data['feature'])} / {cell(data['task'])}", ""]
    if data["error"]:
        out += [f"Upstream raises while composing this prompt: `{cell(data['error'])}`; the worker's task fails.", ""]
    else:
        out += [f"Uses the {data['uses']}; {_counts_cells(data['tokens'])}.", ""]
        out += [
            "| part | source | span | chars | upstream est. | cl100k | o200k | note |",
            "|---|---|---|---:|---:|---:|---:|---|",
        ]
        for part in data["parts"]:
            t = part["tokens"]
            exact = [f"{t[k]:,}" if t[k] is not None else "-" for k in ("cl100k_base", "o200k_base")]
            out.append(
                f"| {part['name']} | {cell(part['source'])} | {part['span'][0]}-{part['span'][1]} | {t['chars']:,} | "
                f"{t['upstream_estimate']:,} | {exact[0]} | {exact[1]} | {cell(part['note'])} |"
            )
        out.append("")
    design = data["design_context"]
    if design:
        out += [
            "## Design-time context beside the plugin's",
            "",
            f"- stored in the task graph: {_counts_cells(design['stored'])}",
            f"- what profile {design['profile']} assembles now: {_counts_cells(design['plugin'])}"
            + (" (identical)" if design["identical"] else ""),
            f"- the design step's guidance: about {design['guidance_tokens']:,} tokens "
            f"(~{design['guidance_chars']:,} characters)",
            "",
        ]
    for note in data["notes"]:
        out += [f"Note: {cell(note)}", ""]
    if not data["error"]:
        fence = _fence(data["prompt"])
        out += ["## The prompt", "", fence + "text", data["prompt"], fence, ""]
    return "\n".join(out)


def cmd_prompt(args: argparse.Namespace) -> int:
    from ctxviewer.engine.upstream.prompt import build_prompt

    fmt = output_format(args, PROMPT_SUFFIXES, "text")
    project = open_project(args.project, run_overrides(args))
    feature = project.feature(args.feature)
    task = feature.task(args.task)
    prompt = build_prompt(project, feature, task, exact=not args.no_exact)
    data = prompt.to_json()
    for note in prompt.notes:
        err(f"note: {note}")
    if prompt.error is not None:
        err(f"upstream raises while composing the prompt of {feature.name}/{task.id}: {prompt.error}")
    if fmt == "json":
        write_out(versioned_json("prompt", data), args.output)
    elif fmt in ("md", "markdown"):
        write_out(_prompt_markdown(data), args.output)
    elif prompt.error is None:
        write_out(prompt.text, args.output)
    return EXIT_FINDINGS if prompt.error is not None else EXIT_OK


def add_parser(sub: Subparsers) -> None:
    """Add the ``prompt`` command's parser to *sub*."""
    p = sub.add_parser(
        "prompt",
        allow_abbrev=False,
        help="the whole prompt a worker receives for a task, as upstream composes it, each part attributed",
        description="Print the prompt upstream's worker gives the model for one task "
        "(ProtocolHandler._build_task_prompt): the task's design-time context, else the feature's spec, then "
        "the task's header, description, files, verification and instructions.  text: exactly the prompt; "
        "md: where each part comes from and what it costs, and a design-time context beside what the "
        "profile's plugin assembles now; json: all of it. " + exits("upstream itself raises on the task"),
    )
    add_project(p)
    add_feature(p)
    add_task(p)
    add_budget(p)
    add_profile(p)
    add_set(p)
    add_report_output(p)
    p.set_defaults(func=cmd_prompt)
