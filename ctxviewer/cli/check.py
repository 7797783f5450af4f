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
    OUTPUT_HELP,
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
    report_project_warnings,
    report_row_input_errors,
    run_overrides,
    versioned_json,
    wrap_long_lines,
    write_out,
)
from ctxviewer.engine.errors import CtxViewerError
from ctxviewer.engine.exports.terminal import one_line
from ctxviewer.engine.runs.batch import shard_of
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


def _changed_features(project: Any, files: Sequence[str]) -> tuple[bool, frozenset[str] | None]:
    """What trailing FILES (as pre-commit passes the changed ones) leave to check: whether any is
    in the project, and the features to check (None: every one).  A file under one feature's spec
    folder narrows the check to that feature; any other file of the project (a rule, the config)
    can change every task, so it keeps them all."""
    from pathlib import Path

    root = project.root.resolve()
    features: set[str] = set()
    every = False
    inside = False
    for name in files:
        try:
            rel = Path(name).resolve().relative_to(root).as_posix()
        except ValueError:
            continue  # another project's file, or one outside the repository's project folder
        inside = True
        owner = next((f.name for f in project.features if rel == f.spec_dir or rel.startswith(f.spec_dir + "/")), None)
        if owner is None:
            every = True
        else:
            features.add(owner)
    return inside, None if every else frozenset(features)


def cmd_check(args: argparse.Namespace) -> int:
    from ctxviewer.engine.analysis.findings import ESTIMATE_FLIP, findings_of
    from ctxviewer.engine.project.settings import parse_budget
    from ctxviewer.engine.runs.batch import batch_targets, run_targets

    max_tokens = None if args.max_tokens is None else parse_budget(args.max_tokens, "--max-tokens")
    fail, ignored = _failing_codes(args)  # unknown codes are bad input, before anything runs
    fmt = args.format
    project = open_project(args.project, run_overrides(args))
    report_project_warnings(project)
    targets = batch_targets(project, args.feature)
    if not targets:
        err(f"no tasks to check in {project.root}{f' (feature {args.feature})' if args.feature else ''}")
        return EXIT_BAD_INPUT
    if args.files:
        inside, features = _changed_features(project, args.files)
        if not inside:
            err(f"note: none of the {plural(len(args.files), 'file')} given is in {project.root}: nothing to check")
            return EXIT_OK
        if features is not None and not args.feature:
            targets = [(f, t) for f, t in targets if f.name in features]
    if args.shard is not None:
        targets = shard_of(targets, args.shard)
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
    sites: list[Any] = []
    locator = None
    if fmt in ("sarif", "github"):
        from ctxviewer.engine.exports.sites import OVER_LIMIT, Locator

        locator = Locator(project)
    total = 0
    bad_input = EXIT_OK
    for row in run_targets(project, targets, exact=exact):
        assert row.trace is not None  # without collect_errors, a refused task raises
        total += 1
        # A file left out (not UTF-8, too large, unreadable) makes the count too low: the
        # task is still measured, but CI must not pass on it (exit 2, as assemble and batch).
        bad_input = max(bad_input, report_row_input_errors(row))
        used = row.trace.context_tokens.get(tokenizer) or 0
        mine = [f for f in findings_of(row.trace) if f.code not in ignored]
        if locator is not None:
            if used > limit:
                message = f"the context is {used:,} {tokenizer} tokens, over the limit of {limit:,}"
                sites.append(locator.task_site(row.feature, row.task, OVER_LIMIT, message, True))
            sites += locator.sites(row.feature, row.task, row.trace, mine, fail)
        if used > limit:
            over.append((row.feature.name, row.task.id, used))
        found += mine
    failing = [f for f in found if f.code in fail]
    others = [f for f in found if f.code not in fail]
    if fmt == "json":
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
        write_out(versioned_json("check", data), args.output)
    elif fmt == "sarif":
        from ctxviewer import __version__
        from ctxviewer.engine.exports.sarif import sarif_text

        write_out(sarif_text(sites, __version__), args.output)
    else:
        lines: list[str] = []
        if fmt == "github":
            from ctxviewer.engine.exports.github import workflow_annotations

            lines += [line + "\n" for line in workflow_annotations(sites).lines]
        else:
            for feature, task, used in over:
                lines.append(f"OVER  {one_line(feature)}/{one_line(task)}: {used:,} {tokenizer} tokens > {limit:,}\n")
            for f in failing:
                where = f"{one_line(f.feature)}/{one_line(f.task)}"
                line = f"{f.severity.upper():<7} {f.code}  {where}: {one_line(f.message)}"
                lines.append(wrap_long_lines(line) + "\n")
        headline = f"{len(over)} of {plural(total, 'task')} over {limit:,} {tokenizer} tokens\n"
        lines.append(headline)
        if failing:
            tasks_failing = len({(f.feature, f.task) for f in failing})
            have = "has" if tasks_failing == 1 else "have"
            summary = f"{tasks_failing} of {plural(total, 'task')} {have} findings that fail: {_tally(failing)}"
        else:
            summary = "no finding fails"
        if others:
            summary += f"; not failing: {_tally(others)}"
        if found:  # the line is left out when there is nothing to say
            lines.append(summary + "\n")
        if fmt == "github":
            _step_summary(headline + (summary + "\n" if found else ""), sites)
        write_out("".join(lines), args.output)
    return bad_input or (EXIT_FINDINGS if over or failing else EXIT_OK)


def _step_summary(headline: str, sites: Sequence[Any]) -> None:
    """Append the whole table to GitHub's job summary, when the step has one."""
    import os

    path = os.environ.get("GITHUB_STEP_SUMMARY")
    if not path:
        return
    from ctxviewer.engine.exports.github import summary_markdown
    from ctxviewer.engine.files.writing import append_whole

    append_whole(path, summary_markdown("ctxviewer check", headline.strip().replace("\n", "; "), sites))


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
    p.add_argument(
        "files",
        nargs="*",
        metavar="FILE",
        help="changed files, as pre-commit passes them: none in the project, nothing to check; all in one "
        "feature's spec folder, that feature's tasks only; any other file of the project, every task",
    )
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
    p.add_argument(
        "--format",
        choices=("text", "json", "sarif", "github"),
        default="text",
        help="json: the tasks over and every finding; sarif: SARIF 2.1.0 for code scanning; github: annotations "
        "for GitHub Actions, and the whole table in the job summary ($GITHUB_STEP_SUMMARY)",
    )
    add_shard(p, "the exit codes of shards 1 to N, their largest, are the whole check's")
    p.add_argument("-o", "--output", help=OUTPUT_HELP)
    p.set_defaults(func=cmd_check, trailing="files")
