"""The ``check`` command, for CI: every task against a token limit and the findings that fail
(``--fail-on``, ``--ignore``); exit 1 when any does.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

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
    finding_json,
    json_text,
    open_project,
    print_text,
    report_project_warnings,
    report_row_input_errors,
    run_overrides,
    wrap_long_lines,
)
from ctxviewer.engine.errors import CtxViewerError
from ctxviewer.engine.exports.terminal import one_line
from ctxviewer.engine.tokens.counting import TOKENIZERS
from ctxviewer.engine.wording import plural


def _finding_codes(text: str | None, option: str) -> frozenset[str]:
    """``rule-cut,over-budget`` (or a severity, ``warning``, for all its codes) as a set of codes."""
    import difflib

    from ctxviewer.engine.analysis.findings import CODES, SEVERITIES

    codes: set[str] = set()
    for word in (w.strip().lower() for w in (text or "").split(",")):
        if not word:
            continue
        if word in SEVERITIES:
            codes.update(code for code, (severity, _) in CODES.items() if severity == word)
        elif word in CODES:
            codes.add(word)
        else:
            close = difflib.get_close_matches(word, list(CODES), n=1, cutoff=0.6)
            hint = f"did you mean {close[0]}?" if close else f"codes: {', '.join(CODES)} (or error, warning, info)"
            raise CtxViewerError(f"{option}: {word!r} is not a finding code; {hint}")
    return frozenset(codes)


def _failing_codes(args: argparse.Namespace) -> tuple[frozenset[str], frozenset[str]]:
    """The codes that fail ``check`` (default: every error code) and the ones ignored altogether."""
    from ctxviewer.engine.analysis.findings import CODES, ERROR

    ignored = _finding_codes(args.ignore, "--ignore")
    if args.fail_on is None:
        fail = frozenset(code for code, (severity, _) in CODES.items() if severity == ERROR)
    else:
        fail = _finding_codes(args.fail_on, "--fail-on")
    return fail - ignored, ignored


def _tally(findings: Sequence[Any]) -> str:
    """``rule-cut 15, tie-by-order 3`` (codes in the order findings come)."""
    counts: dict[str, int] = {}
    for f in findings:
        counts[f.code] = counts.get(f.code, 0) + 1
    return ", ".join(f"{code} {n}" for code, n in counts.items())


def cmd_check(args: argparse.Namespace) -> int:
    from ctxviewer.engine.analysis.findings import ESTIMATE_FLIP, findings_of
    from ctxviewer.engine.project.settings import parse_budget
    from ctxviewer.engine.runs.batch import batch_targets, run_batch

    max_tokens = None if args.max_tokens is None else parse_budget(args.max_tokens, "--max-tokens")
    fail, ignored = _failing_codes(args)  # unknown codes are bad input, before anything runs
    project = open_project(args.project, run_overrides(args))
    report_project_warnings(project)
    if not batch_targets(project, args.feature):
        err(f"no tasks to check in {project.root}{f' (feature {args.feature})' if args.feature else ''}")
        return EXIT_BAD_INPUT
    from ctxviewer.engine.runs.pipeline import decision_tokenizer

    # In the unit the profile decides with: shaktiman and ctxviewer count exactly even when
    # the configured tokenizer is the estimate.
    tokenizer = decision_tokenizer(project.settings, project)
    # The decision tokenizer's counts are always measured; every candidate's exact count
    # only when asked, or when a failing code needs it.
    exact = bool(args.exact) or ESTIMATE_FLIP in fail
    limit = project.settings.budget if max_tokens is None else max_tokens
    over: list[tuple[str, str, int]] = []
    found: list[Any] = []
    total = 0
    bad_input = EXIT_OK
    for row in run_batch(project, args.feature, exact=exact):
        assert row.trace is not None  # without collect_errors, a refused task raises
        total += 1
        # A file left out (not UTF-8, too large, unreadable) makes the count too low: the
        # task is still measured, but CI must not pass on it (exit 2, as assemble and batch).
        bad_input = max(bad_input, report_row_input_errors(row))
        used = row.trace.context_tokens.get(tokenizer) or 0
        if used > limit:
            over.append((row.feature.name, row.task.id, used))
        found += [f for f in findings_of(row.trace) if f.code not in ignored]
    failing = [f for f in found if f.code in fail]
    others = [f for f in found if f.code not in fail]
    if args.format == "json":
        data = {
            "limit": limit,
            "tokenizer": tokenizer,
            "tasks": total,
            "over": [{"feature": f, "task": t, "tokens": n} for f, t, n in over],
            "fail_on": sorted(fail),
            "ignored": sorted(ignored),
            "exact": exact,
            "failing": len(failing),
            "findings": [
                {
                    "feature": f.feature,
                    "task": f.task,
                    **finding_json(f),
                    "section": f.section,
                    "fails": f.code in fail,
                }
                for f in found
            ],
        }
        print_text(json_text(data))
    else:
        for feature, task, used in over:
            print_text(f"OVER  {one_line(feature)}/{one_line(task)}: {used:,} {tokenizer} tokens > {limit:,}\n")
        for f in failing:
            where = f"{one_line(f.feature)}/{one_line(f.task)}"
            print_text(wrap_long_lines(f"{f.severity.upper():<7} {f.code}  {where}: {one_line(f.message)}") + "\n")
        print_text(f"{len(over)} of {plural(total, 'task')} over {limit:,} {tokenizer} tokens\n")
        if failing:
            tasks_failing = len({(f.feature, f.task) for f in failing})
            have = "has" if tasks_failing == 1 else "have"
            summary = f"{tasks_failing} of {plural(total, 'task')} {have} findings that fail: {_tally(failing)}"
        else:
            summary = "no finding fails"
        if others:
            summary += f"; not failing: {_tally(others)}"
        if found:  # the line is left out when there is nothing to say
            print_text(summary + "\n")
    return bad_input or (EXIT_FINDINGS if over or failing else EXIT_OK)


def add_parser(sub: Subparsers) -> None:
    """Add the ``check`` command's parser to *sub*."""
    p = sub.add_parser(
        "check",
        allow_abbrev=False,
        help="for CI: exit 1 if any task's context exceeds the budget or has a failing finding, 2 on bad input",
        description="Assemble every task and print each task over the limit (OVER) and each failing finding, "
        "one line each, then how many tasks are over and the findings counted by code, failing and not. "
        + exits("a task is over or a finding fails (--fail-on, default: every error)"),
    )
    add_project(p)
    add_feature(p, required=False, help="only this feature's tasks (default: every feature's)")
    add_budget(p)
    p.add_argument(
        "--max-tokens",
        metavar="N",
        help="limit, written 4000, 4,000 or 4k (default: the budget, --budget or the project's)",
    )
    p.add_argument("--tokenizer", choices=TOKENIZERS, help="how to count (default: the project's)")
    add_profile(p)
    add_set(p)
    p.add_argument(
        "--fail-on",
        metavar="CODE,...",
        help="finding codes that fail the check (default: every error: rule-cut, context-empty, over-budget); "
        "error, warning or info stands for all codes of that severity; codes in docs/findings.md",
    )
    p.add_argument("--ignore", metavar="CODE,...", help="finding codes neither listed nor failing")
    p.add_argument(
        "--exact",
        action="store_true",
        help="count every candidate exactly, so estimate-flip findings are found (on by itself when "
        "--fail-on names estimate-flip)",
    )
    p.add_argument("--format", choices=("text", "json"), default="text", help="json: the tasks over and every finding")
    p.set_defaults(func=cmd_check)
