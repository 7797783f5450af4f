"""The ``ctxviewer`` command line: assemble, batch, check, whatif, compare, follow, split (and the GUI).

Exit codes: 0 success; 1 ``check`` found tasks over budget, or the reproduced
pipeline itself raised (``fallback_to_full: false``); 2 bad input -- a missing
folder, an unknown feature or task, a malformed task graph or config, a project file
that is unreadable, binary, not UTF-8, or outside the project.  Bad input is one
line on stderr naming the file (and line), never a traceback.  Where a run could
still be completed (an unreadable spec file is something the pipeline tolerates),
its output is written before exiting 2, so no result is lost.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import io
import json
import math
import os
import sys
from collections.abc import Sequence
from typing import Any

from ctxviewer import __version__
from ctxviewer.engine.atomic import atomic_write
from ctxviewer.engine.errors import CtxViewerError
from ctxviewer.engine.tokens import TOKENIZERS

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_BAD_INPUT = 2


def _write_out(text: str, output: str | None) -> None:
    if output:
        atomic_write(output, text)
    else:
        _print(text)


def _print(text: str) -> bool:
    """Write *text* to stdout as UTF-8 whatever the locale's encoding, and flush.

    Task ids, titles and paths come from the project and may be in any script: a console
    that cannot show them must not turn a report into a traceback.  When the reader has
    gone (``check ... | head -1``) the rest is discarded and False returned, so a command
    still ends with the exit code its findings call for, not 0.
    """
    stream = sys.stdout
    buffer = getattr(stream, "buffer", None)
    try:
        if buffer is None:  # a stdout replaced by a text-only stream
            stream.write(text)
        else:
            stream.flush()  # anything written as text first stays first
            buffer.write(text.encode("utf-8"))
        stream.flush()
    except BrokenPipeError:
        _discard_stdout()
        return False
    return True


def _discard_stdout() -> None:
    """Point stdout at the null device, so nothing more (not the flush at exit) fails."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


#: The window's tabs (``ctxviewer.gui.window.TABS``; repeated here so the CLI needs no Qt).
GUI_TABS = (
    "sections",
    "paragraphs",
    "rules",
    "computed",
    "trimming",
    "context",
    "whatif",
    "compare",
    "task",
    "findings",
)


def _err(message: str) -> None:
    sys.stderr.write(f"ctxviewer: {message}\n")
    sys.stderr.flush()


def _setting(text: str) -> tuple[str, Any]:
    """``KEY=VALUE`` from ``--set``; the value is read as YAML (numbers, booleans, mappings)."""
    from ctxviewer.engine.compare import parse_assignment

    try:
        return parse_assignment(text)
    except CtxViewerError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _overrides(args: argparse.Namespace) -> dict[str, Any]:
    """``--set`` values, with ``--profile``, ``--budget`` and ``--tokenizer`` on top."""
    from ctxviewer.engine.compare import check_profile

    out: dict[str, Any] = dict(getattr(args, "set", None) or [])
    if getattr(args, "profile", None) is not None:
        out["profile"] = check_profile(args.profile, "--profile")
    if getattr(args, "budget", None) is not None:
        out["budget"] = args.budget
    if getattr(args, "tokenizer", None) is not None:
        out["tokenizer"] = args.tokenizer
    return out


def _report_project_warnings(project: Any) -> None:
    for warning in project.warnings:
        _err(f"note: {warning}")


def _format_of(output: str | None, by_suffix: dict[str, str], default: str) -> str:
    """The output format an ``-o`` file's extension implies."""
    if output:
        for suffix, fmt in by_suffix.items():
            if output.lower().endswith(suffix):
                return fmt
    return default


def _report_trace_errors(trace: Any) -> int:
    """Print the trace's errors to stderr; the exit code they call for."""
    return _report_errors(trace.errors)


def _report_two_runs(first: Any, second: Any) -> int:
    """Report the errors of two runs of one task; both read the same files, so each once."""
    code = _report_trace_errors(second)
    return max(code, _report_errors([e for e in first.errors if e not in second.errors]))


def _report_errors(errors: Sequence[Any]) -> int:
    code = EXIT_OK
    for error in errors:
        if error.kind == "input":
            _err(error.one_line())
            code = EXIT_BAD_INPUT
        else:
            _err(f"note: {error.one_line()}")
            if "raises" in error.consequence and code == EXIT_OK:
                code = EXIT_FINDINGS
    return code


# -- commands ------------------------------------------------------------------------


def cmd_assemble(args: argparse.Namespace) -> int:
    from ctxviewer.engine.pipeline import assemble
    from ctxviewer.engine.project import load_project
    from ctxviewer.engine.trace import trace_to_json

    project = load_project(args.project, _overrides(args))
    trace = assemble(project, args.feature, args.task, exact=args.format == "json")
    if args.format == "json":
        text = json.dumps(trace_to_json(trace), ensure_ascii=False, indent=2) + "\n"
    else:
        text = trace.context
        for warning in trace.warnings:  # the JSON carries them; plain output says them here
            _err(f"note: {warning}")
    if args.debug:  # seed 004's DEBUG_CONTEXT: the record on stderr, the context stays clean
        from ctxviewer.engine.computed import debug_text

        sys.stderr.write(debug_text(trace))
    _write_out(text, args.output)
    return _report_trace_errors(trace)


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
)


def _csv_row(trace: Any) -> list[Any]:
    from ctxviewer.engine.trace import CUT_FOR_BUDGET, INCLUDED, OUTRANKED, RULE_FILE, SPEC_PARAGRAPH, TRUNCATED

    paras = trace.items_of(SPEC_PARAGRAPH)
    rules = trace.items_of(RULE_FILE)
    sec = {s.name: s.tokens.heuristic for s in trace.sections}
    return [
        trace.feature,
        trace.task_id,
        trace.task_title,
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
        "; ".join(e.one_line() for e in trace.errors),
    ]


def cmd_batch(args: argparse.Namespace) -> int:
    from ctxviewer.engine.batch import batch_targets, run_batch
    from ctxviewer.engine.project import load_project
    from ctxviewer.engine.trace import trace_to_json

    project = load_project(args.project, _overrides(args))
    _report_project_warnings(project)
    batch_targets(project, args.feature)  # fail on bad input before any output
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n") if args.format == "csv" else None
    if writer is not None:
        writer.writerow(CSV_COLUMNS)
    code = EXIT_OK
    for row in run_batch(project, args.feature, exact=not args.no_exact):
        assert row.trace is not None  # without collect_errors, a refused task raises
        if writer is not None:
            writer.writerow(_csv_row(row.trace))
        else:
            buffer.write(json.dumps(trace_to_json(row.trace), ensure_ascii=False) + "\n")
        code = max(code, _report_row_input_errors(row))
    _write_out(buffer.getvalue(), args.output)
    return code


def _report_row_input_errors(row: Any) -> int:
    """Name a batch row's bad input on stderr (``feature/task: ...``); the exit code it calls for."""
    code = EXIT_OK
    for error in row.trace.errors:
        if error.kind == "input":
            _err(f"{row.feature.name}/{row.task.id}: {error.one_line()}")
            code = EXIT_BAD_INPUT
    return code


def cmd_check(args: argparse.Namespace) -> int:
    from ctxviewer.engine.batch import batch_targets, run_batch
    from ctxviewer.engine.project import load_project

    project = load_project(args.project, _overrides(args))
    _report_project_warnings(project)
    if not batch_targets(project, args.feature):
        _err(f"no tasks to check in {project.root}{f' (feature {args.feature})' if args.feature else ''}")
        return EXIT_BAD_INPUT
    from ctxviewer.engine.pipeline import decision_tokenizer

    # In the unit the profile decides with: shaktiman and ctxviewer count exactly even when
    # the configured tokenizer is the estimate.
    tokenizer = decision_tokenizer(project.settings)
    exact = False  # the decision tokenizer's counts are always measured
    limit = args.max_tokens if args.max_tokens is not None else project.settings.budget
    over: list[tuple[str, str, int]] = []
    total = 0
    bad_input = EXIT_OK
    for row in run_batch(project, args.feature, exact=exact):
        assert row.trace is not None  # without collect_errors, a refused task raises
        total += 1
        # A file left out (not UTF-8, too large, unreadable) makes the count too low: the
        # task is still measured, but CI must not pass on it (exit 2, as assemble and batch).
        bad_input = max(bad_input, _report_row_input_errors(row))
        used = row.trace.context_tokens.get(tokenizer) or 0
        if used > limit:
            over.append((row.feature.name, row.task.id, used))
    for feature, task, used in over:
        _print(f"OVER  {feature}/{task}: {used:,} {tokenizer} tokens > {limit:,}\n")
    _print(f"{len(over)} of {total} tasks over {limit:,} {tokenizer} tokens\n")
    return bad_input or (EXIT_FINDINGS if over else EXIT_OK)


def cmd_split(args: argparse.Namespace) -> int:
    from ctxviewer.engine.project import load_project
    from ctxviewer.engine.splitter import analyze_project, apply_split

    project = load_project(args.project)
    analyses = analyze_project(project, exact=not args.no_exact)
    code = EXIT_OK
    if not analyses:
        _print(f"no command files under {project.settings.paths.commands}\n")
    for a in analyses:
        if a.problem:
            _err(a.problem)
            code = EXIT_BAD_INPUT
            continue
        exact = ""
        if a.tokens.cl100k_base is not None:
            exact = f", cl100k_base {a.tokens.cl100k_base:,} -> {a.core_tokens.cl100k_base:,}"
        if a.eligible:
            _print(
                f"SPLIT {a.path}: {a.lines} lines, {len(a.sections)} sections; split after line "
                f"{a.split_line} (target {a.target_line}); core {a.core_tokens.heuristic:,} + details "
                f"{a.details_tokens.heuristic:,} est. tokens, saves {a.tokens_saved:,} of "
                f"{a.tokens.heuristic:,}{exact}\n"
            )
        else:
            _print(f"keep  {a.path}: {a.lines} lines (< 300), {a.tokens.heuristic:,} est. tokens\n")
    if args.apply:
        for a in analyses:
            if a.eligible and not a.problem:
                written = apply_split(project, a)
                _print(f"wrote {', '.join(written)}\n")
    elif any(a.eligible for a in analyses):
        _print("preview only: run with --apply to write the split files\n")
    return code


def cmd_whatif(args: argparse.Namespace) -> int:
    from ctxviewer.engine.pipeline import assemble_task
    from ctxviewer.engine.project import load_project
    from ctxviewer.engine.whatif import diff_markdown, diff_to_json, diff_traces

    project = load_project(args.project)
    feature = project.feature(args.feature)
    task = feature.task(args.task)
    base_settings = project.settings.with_overrides(dict(args.baseline_set or []), "baseline")
    settings = base_settings.with_overrides(_overrides(args), "command line")
    exact = not args.no_exact
    baseline = assemble_task(project, feature, task, base_settings, exact=exact)
    current = assemble_task(project, feature, task, settings, exact=exact)
    diff = diff_traces(baseline, current)
    if args.format == "json":
        text = json.dumps(diff_to_json(diff), ensure_ascii=False, indent=2) + "\n"
    else:
        text = diff_markdown(diff)
    _write_out(text, args.output)
    return _report_two_runs(baseline, current)


def cmd_compare(args: argparse.Namespace) -> int:
    from ctxviewer.engine.compare import compare_markdown, compare_task, compare_text, compare_to_json, parse_sides
    from ctxviewer.engine.project import load_project

    a, b = parse_sides(args.profiles)  # a malformed spec fails before anything is read
    project = load_project(args.project, _overrides(args))
    feature = project.feature(args.feature)
    task = feature.task(args.task)
    settings_a = a.settings(project.settings, "--profiles A")
    settings_b = b.settings(project.settings, "--profiles B")
    names = (f"A: {a.label}", f"B: {b.label}")
    diff = compare_task(project, feature, task, settings_a, settings_b, exact=not args.no_exact, names=names)
    fmt = args.format or _format_of(args.output, {".json": "json", ".md": "md"}, "text")
    if fmt == "json":
        text = json.dumps(compare_to_json(diff, a, b), ensure_ascii=False, indent=2) + "\n"
    elif fmt in ("md", "markdown"):
        text = compare_markdown(diff, a, b)
    else:
        text = compare_text(diff, a, b)
    _write_out(text, args.output)
    return _report_two_runs(diff.baseline, diff.current)


def _follow_limits(args: argparse.Namespace) -> Any:
    from ctxviewer.engine.project import load_project
    from ctxviewer.engine.settings import Settings

    if args.project:
        return load_project(args.project, _overrides(args)).settings
    overrides = _overrides(args)
    return Settings().with_overrides(overrides, "command line") if overrides else Settings()


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}" + ("" if n == 1 else "s")


def _usage_line(usage: Any, zones: Sequence[tuple[str, float]]) -> str:
    reached = [name for name, percent in zones if usage.usage_percent >= percent]
    first = "" if usage.first_checkpoint is None else f"; checkpoint first due after event {usage.first_checkpoint + 1}"
    return (
        f"{usage.estimated_tokens:,} / {usage.max_tokens:,} tokens ({usage.usage_percent:.1f}%, checkpoint at "
        f"{usage.threshold_percent:g}%) · {_count(usage.tasks_executed, 'task')}, "
        f"{_count(usage.files_read, 'file')}, {_count(usage.tool_calls, 'tool call')}, "
        f"{usage.elapsed_minutes:.1f} min" + (f" · reached: {', '.join(reached)}" if reached else "") + first
    )


#: Longest ``follow --interval`` (a day).
MAX_INTERVAL = 86_400


def cmd_follow(args: argparse.Namespace) -> int:
    import time
    from dataclasses import asdict

    from ctxviewer.engine.eventlog import EventLogFollower

    settings = _follow_limits(args)
    if not math.isfinite(args.interval):  # nan or inf: time.sleep would raise
        _err(f"--interval: {args.interval:g} is not a number of seconds")
        return EXIT_BAD_INPUT
    if args.interval > MAX_INTERVAL:  # time.sleep overflows far above this
        _err(f"--interval: {args.interval:g} s is too long; use {MAX_INTERVAL:,} s or less")
        return EXIT_BAD_INPUT
    if args.interval < 0.05:
        _err(f"--interval: {args.interval:g} s is too short; use 0.05 s or more")
        return EXIT_BAD_INPUT
    if args.once and not os.path.isfile(args.log):
        what = "is a folder, not a log file" if os.path.isdir(args.log) else "no such log file"
        _err(f"{args.log}: {what}")
        return EXIT_BAD_INPUT
    follower = EventLogFollower(args.log, settings.threshold_percent, settings.max_context_tokens)
    shown: tuple[Any, ...] | None = None
    while True:
        result = follower.poll()
        problems = list(result.problems)
        while result.more:
            result = follower.poll()
            problems += result.problems
        if args.once:  # nothing more will come to complete a last line without its newline
            problems += follower.finish().problems
        for problem in problems:
            _err(problem.message)
        usage = follower.usage
        status = follower.summary() if result.status.startswith("following") else result.status
        # Print when anything changed: a rotated log with as many events still differs.
        state = (usage.events, usage.estimated_tokens, usage.elapsed_minutes, status)
        if args.once or state != shown:
            if args.format == "json":
                record = asdict(usage)
                record.pop("history")
                record["status"] = status
                line = json.dumps(record) + "\n"
            else:
                line = f"{status}: {_usage_line(usage, settings.all_zones)}\n"
            if not _print(line) and not args.once:  # nobody is reading any more
                return EXIT_OK
        shown = state
        if args.once:
            return EXIT_FINDINGS if follower.problem_count else EXIT_OK
        time.sleep(args.interval)


def cmd_gui(args: argparse.Namespace) -> int:
    from ctxviewer.engine.compare import parse_sides

    if args.profiles:
        parse_sides(args.profiles)  # a malformed spec is bad input here; values are checked in the tab
    tune = _overrides(args)
    if "profile" in tune:  # the window takes --profile as one more --set
        args.set = [*(args.set or []), ("profile", tune["profile"])]
    try:
        from ctxviewer.gui.app import run_gui
    except ImportError as exc:
        _err(f"the GUI is not available ({exc})")
        return EXIT_BAD_INPUT
    return run_gui(args)


# -- parser --------------------------------------------------------------------------


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} must be at least 1")
    return value


def _add_profile(p: argparse.ArgumentParser) -> None:
    from ctxviewer.engine.settings import PROFILES

    p.add_argument(
        "--profile",
        metavar="NAME",
        help=f"the assembly strategy: {', '.join(PROFILES)} (the same as --set profile=NAME)",
    )


def _add_set(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--set",
        type=_setting,
        action="append",
        metavar="KEY=VALUE",
        help="override a setting (keys as in docs/ctxviewer-yaml.md, flat: budget, security_share, "
        "spec_share, top_k, threshold_percent, zones, ...); repeatable",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        allow_abbrev=False,
        prog="ctxviewer",
        description="Inspect the context an LLM context-assembly pipeline gives each task.",
    )
    parser.add_argument("--version", action="version", version=f"ctxviewer {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser(
        "assemble", allow_abbrev=False, help="assemble one task's context (markdown) or its trace (json)"
    )
    p.add_argument("project")
    p.add_argument("--feature", required=True)
    p.add_argument("--task", required=True)
    p.add_argument("--budget", type=_positive_int, help="task_context_budget_tokens (default: the project's)")
    p.add_argument("--tokenizer", choices=TOKENIZERS, help="tokenizer used for decisions")
    _add_profile(p)
    _add_set(p)
    p.add_argument("--format", choices=("markdown", "json"), default="markdown")
    p.add_argument("-o", "--output", help="write here (atomically) instead of stdout")
    p.add_argument(
        "--debug",
        action="store_true",
        help="also print the Context Debug record (seed 004's DEBUG_CONTEXT) to stderr: signals, knowledge "
        "matched, dependencies, context-map filtering, limits and budget (other profiles: the signals)",
    )
    p.set_defaults(func=cmd_assemble)

    p = sub.add_parser("batch", allow_abbrev=False, help="every task of every feature, as JSON lines or CSV")
    p.add_argument("project")
    p.add_argument("--feature")
    p.add_argument("--budget", type=_positive_int)
    p.add_argument("--tokenizer", choices=TOKENIZERS)
    _add_profile(p)
    _add_set(p)
    p.add_argument("--format", choices=("jsonl", "csv"), default="jsonl")
    p.add_argument("--no-exact", action="store_true", help="skip exact tiktoken counts (faster)")
    p.add_argument("-o", "--output")
    p.set_defaults(func=cmd_batch)

    p = sub.add_parser(
        "check",
        allow_abbrev=False,
        help="for CI: exit 1 if any task's context exceeds the budget, 2 on bad input",
    )
    p.add_argument("project")
    p.add_argument("--feature")
    p.add_argument("--max-tokens", type=_positive_int, help="limit (default: the project's budget)")
    p.add_argument("--tokenizer", choices=TOKENIZERS, help="how to count (default: the project's)")
    _add_profile(p)
    _add_set(p)
    p.set_defaults(func=cmd_check)

    p = sub.add_parser("split", allow_abbrev=False, help="preview (or --apply) command-file splitting")
    p.add_argument("project")
    p.add_argument("--apply", action="store_true", help="write .core.md/.details.md for eligible files")
    p.add_argument("--no-exact", action="store_true")
    p.set_defaults(func=cmd_split)

    p = sub.add_parser(
        "whatif", allow_abbrev=False, help="compare a task's context under other settings with its baseline"
    )
    p.add_argument("project")
    p.add_argument("--feature", required=True)
    p.add_argument("--task", required=True)
    _add_profile(p)
    _add_set(p)
    p.add_argument(
        "--baseline-set",
        type=_setting,
        action="append",
        metavar="KEY=VALUE",
        help="settings of the baseline run (default: the project's own); repeatable",
    )
    p.add_argument("--format", choices=("markdown", "json"), default="markdown")
    p.add_argument("--no-exact", action="store_true", help="skip exact tiktoken counts")
    p.add_argument("-o", "--output")
    p.set_defaults(func=cmd_whatif)

    p = sub.add_parser(
        "compare", allow_abbrev=False, help="one task assembled by two profiles (or two settings) side by side"
    )
    p.add_argument("project")
    p.add_argument("--feature", required=True)
    p.add_argument("--task", required=True)
    p.add_argument(
        "--profiles",
        required=True,
        metavar="A,B",
        help="the two sides, each a profile with optional settings: mahabharatha,drift:budget=6000,top_k=8",
    )
    _add_set(p)
    p.add_argument(
        "--format",
        choices=("text", "md", "markdown", "json"),
        help="default: from the -o file's extension (.md, .json), else text",
    )
    p.add_argument("--no-exact", action="store_true", help="skip exact tiktoken counts")
    p.add_argument("-o", "--output", help="write here (atomically) instead of stdout")
    p.set_defaults(func=cmd_compare)

    p = sub.add_parser(
        "follow", allow_abbrev=False, help="follow a worker's JSON-lines event log: tracker usage as it grows"
    )
    p.add_argument("log", help="the event log (format: docs/event-log.md)")
    p.add_argument("--project", help="take the threshold, max context and zones from this project")
    _add_set(p)
    p.add_argument("--once", action="store_true", help="read what is there, print the usage, and exit")
    p.add_argument("--interval", type=float, default=1.0, help="seconds between polls (default 1)")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.set_defaults(func=cmd_follow)

    p = sub.add_parser("gui", allow_abbrev=False, help="open the inspector window")
    p.add_argument("project", nargs="?")
    p.add_argument("--feature")
    p.add_argument("--task")
    p.add_argument(
        "--tab",
        choices=GUI_TABS,
        help="the tab to show first",
    )
    p.add_argument(
        "--panel",
        choices=("budget", "tracker", "session", "window"),
        help="the right-hand panel to show first (window: the worker's whole context window)",
    )
    _add_profile(p)
    _add_set(p)
    p.add_argument(
        "--profiles",
        metavar="A,B",
        help="the sides of the Compare tab, e.g. mahabharatha,mahabharatha:budget=1500",
    )
    p.add_argument("--follow", metavar="LOG", help="follow a worker's JSON-lines event log in the Session panel")
    p.add_argument(
        "--compare",
        action="store_true",
        help="pin the run with the project's own settings as the what-if baseline (then apply --set)",
    )
    p.add_argument(
        "--theme",
        choices=("system", "light", "dark"),
        default="system",
        help="colour scheme (default: follow the system)",
    )
    p.add_argument(
        "--screenshot",
        metavar="OUT.png",
        help="render the window at 1280x800 once the pipeline is done, save it, and exit",
    )
    p.set_defaults(func=cmd_gui)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        args = parser.parse_args(["gui", *(argv or [])])
    try:
        code: int = args.func(args)
        return code
    except CtxViewerError as exc:
        _err(str(exc))
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        _err("interrupted")
        return 130
    except BrokenPipeError:
        _discard_stdout()
        return EXIT_OK
