"""The ``follow`` command: a real run's fleet (every worker log, state file, token record and
heartbeat under a path, or one file), once or live; and ctxviewer's own event log as a what-if.

``--once`` prints one snapshot (text, JSON, or JSON lines of changes); otherwise the fleet is
redrawn in place on a terminal, printed again on each change elsewhere, or streamed as JSON
lines.  ``--recorded`` sets each token record beside what the project's upstream profile
reproduces.  A file of ctxviewer's own event-log format, recognised by its first line, is folded
into ctxviewer's tracker instead.  See docs/run-files.md#following-a-run-from-the-command-line.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import shutil
import signal
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from ctxviewer.cli.common import (
    EXIT_BAD_INPUT,
    EXIT_FINDINGS,
    EXIT_OK,
    Subparsers,
    add_set,
    err,
    exits,
    is_terminal,
    json_text,
    print_text,
    run_overrides,
    wrap_long_lines,
)
from ctxviewer.engine.exports.terminal import visible
from ctxviewer.engine.wording import plural

#: Longest ``follow --interval`` (a day).
MAX_INTERVAL = 86_400
#: ``--set`` keys that change the fleet's scale (the rest go to the project ``--recorded`` runs).
FLEET_KEYS = ("threshold_percent", "zones", "max_context_tokens")


# -- ctxviewer's own event log: the what-if replay ---------------------------------------------------


def _follow_limits(args: argparse.Namespace) -> Any:
    from ctxviewer.engine.project.loading import load_project
    from ctxviewer.engine.project.settings import Settings

    if args.project:
        return load_project(args.project, run_overrides(args)).settings
    overrides = run_overrides(args)
    return Settings().with_overrides(overrides, "command line") if overrides else Settings()


def _usage_line(usage: Any, zones: Sequence[tuple[str, float]]) -> str:
    reached = [name for name, percent in zones if usage.usage_percent >= percent]
    first = "" if usage.first_checkpoint is None else f"; checkpoint first due after event {usage.first_checkpoint + 1}"
    return (
        f"{usage.estimated_tokens:,} / {usage.max_tokens:,} tokens ({usage.usage_percent:.1f}%, checkpoint at "
        f"{usage.threshold_percent:g}%) · {plural(usage.tasks_executed, 'task')}, "
        f"{plural(usage.files_read, 'file')}, {plural(usage.tool_calls, 'tool call')}, "
        f"{usage.elapsed_minutes:.1f} min" + (f" · reached: {', '.join(reached)}" if reached else "") + first
    )


def follow_event_log(args: argparse.Namespace) -> int:
    """ctxviewer's own event log folded into its tracker (``--format json`` and ``jsonl``: a JSON
    object per line); exit 2 once any line was a problem."""
    from dataclasses import asdict

    from ctxviewer.engine.exports.schemas import versioned
    from ctxviewer.engine.runtime.eventlog import EventLogFollower

    if args.recorded:
        err("--recorded: ctxviewer's own event log holds no token records")
        return EXIT_BAD_INPUT
    settings = _follow_limits(args)
    follower = EventLogFollower(args.path, settings.threshold_percent, settings.max_context_tokens)
    shown: tuple[Any, ...] | None = None
    try:
        while True:
            result = follower.poll()
            problems = list(result.problems)
            while result.more:
                result = follower.poll()
                problems += result.problems
            if args.once:  # nothing more will come to complete a last line without its newline
                problems += follower.finish().problems
            for problem in problems:
                err(problem.message)
            usage = follower.usage
            status = follower.summary() if result.status.startswith("following") else result.status
            # Print when anything changed: a rotated log with as many events still differs.
            state = (usage.events, usage.estimated_tokens, usage.elapsed_minutes, status)
            if args.once or state != shown:
                if args.format in ("json", "jsonl"):
                    record = asdict(usage)
                    record.pop("history")
                    record["status"] = status
                    line = json.dumps(versioned("follow-events", record)) + "\n"
                else:
                    line = f"{visible(status)}: {visible(_usage_line(usage, settings.all_zones))}\n"
                if not print_text(line) and not args.once:  # nobody is reading any more
                    break
            shown = state
            if args.once:
                break
            time.sleep(args.interval)
    except KeyboardInterrupt:
        pass
    return EXIT_BAD_INPUT if follower.problem_count else EXIT_OK


# -- a real run ------------------------------------------------------------------------------------


def fleet_config(run: Any, overrides: dict[str, Any]) -> tuple[Any, int]:
    """The run's gauge scale with ``--set threshold_percent/zones/max_context_tokens`` on top, and
    how many problems its files had (each said on stderr); None when none is given (the watcher
    reads the run's own, reporting what is wrong with it)."""
    from ctxviewer.engine.project.settings import Settings
    from ctxviewer.engine.runfiles.fleetconfig import read_fleet_config

    given = {k: v for k, v in overrides.items() if k in FLEET_KEYS}
    if not given:
        return None, 0
    base, problems = read_fleet_config(run)
    for problem in problems:
        err(problem.describe())
    settings = Settings().with_overrides(given, "command line")
    config = replace(
        base,
        threshold_percent=settings.threshold_percent if "threshold_percent" in given else base.threshold_percent,
        threshold_origin="--set" if "threshold_percent" in given else base.threshold_origin,
        zones=settings.zones if "zones" in given else base.zones,
        max_tokens=settings.max_context_tokens if "max_context_tokens" in given else base.max_tokens,
    )
    return config, len(problems)


def shown_snapshot(snapshot: Any) -> Any:
    """*snapshot* with every text that came from the run's files shown visibly (controls,
    line breaks and bidi overrides escaped: it cannot act on the terminal or break a line), so the
    coloured text rendering needs no escaping after."""
    config = snapshot.config
    config = replace(
        config,
        threshold_origin=visible(config.threshold_origin),
        zones=tuple((visible(name), percent) for name, percent in config.zones),
    )

    def text(value: str | None) -> str | None:
        return None if value is None else visible(value)

    workers = tuple(
        replace(
            row,
            worker_id=visible(row.worker_id),
            status=text(row.status),
            current_task=text(row.current_task),
            zone=text(row.zone),
        )
        for row in snapshot.workers
    )
    return replace(snapshot, root=visible(snapshot.root), config=config, workers=workers)


def use_color(stream: Any) -> bool:
    """Colours only on a terminal, and not when ``NO_COLOR`` is set (to anything but nothing)."""
    return is_terminal(stream) and not os.environ.get("NO_COLOR")


def fleet_text(snapshot: Any, color: bool) -> str:
    from ctxviewer.engine.exports.fleet_text import render_fleet_text

    return str(render_fleet_text(shown_snapshot(snapshot), color=color))


def jsonl_text(changes: Sequence[dict[str, Any]]) -> str:
    return "".join(json.dumps(change, ensure_ascii=False) + "\n" for change in changes)


def _out(text: str, terminal: bool) -> bool:
    """Data (JSON) to stdout, anything a terminal would act on escaped when it is one."""
    return print_text(visible(text, lines=True) if terminal else text)


def recorded_comparison(run: Any, snapshot: Any, args: argparse.Namespace) -> Any:
    """Each token record's tasks beside the reproduction (``--recorded``)."""
    from ctxviewer.engine.errors import ProjectError
    from ctxviewer.engine.project.loading import load_project
    from ctxviewer.engine.runs.recorded import compare_records

    if args.project:
        root = args.project
    elif run.layouts:
        root = str(run.root)
    else:
        raise ProjectError(
            "--recorded: these files are not inside a project's .mahabharatha/ or .zerg/ folder; "
            "name the project with --project",
            str(args.path),
        )
    overrides = {k: v for k, v in run_overrides(args).items() if k not in FLEET_KEYS}
    project = load_project(root, overrides)
    prefer = list(dict.fromkeys(row.feature for row in snapshot.workers if row.feature))
    return compare_records(project, snapshot.token_records, prefer_features=prefer)


def recorded_text(comparison: Any) -> str:
    """The comparison for a person: a line per task, the sections that differ named, and under
    it a line per likely cause with the sections it explains."""
    from ctxviewer.engine.runs.recorded import likely_causes

    lines = [f"recorded vs reproduced ({comparison.profile or 'nothing reproduced'}: {comparison.reason})"]
    for task in comparison.tasks:
        head = (
            f"W{task.worker_id:<3} {task.task_id:<14} {task.feature or '-':<16} "
            f"recorded {'-' if task.recorded_total is None else f'{task.recorded_total:,}':>7}"
        )
        if not task.reproduced:
            lines.append(f"{head}  {task.note}")
            continue
        verdict = "same" if task.matches else "differs"
        other = [
            f"{s.section} {'-' if s.recorded is None else f'{s.recorded:,}'}/"
            f"{'-' if s.reproduced is None else f'{s.reproduced:,}'}"
            for s in task.sections
            if s.verdict != "same"
        ]
        tail = f": {', '.join(other)}" if other else ""
        note = f" ({task.note})" if task.note else ""
        lines.append(f"{head}  reproduced {task.reproduced_total:>7,}  {verdict}{tail}{note}")
        lines += [
            f"     likely cause ({', '.join(sections)}): {cause}: {why}" for sections, cause, why in likely_causes(task)
        ]
    lines.append(
        f"{plural(len(comparison.tasks), 'task')}: {comparison.same:,} the same, {comparison.differ:,} different, "
        f"{comparison.not_reproduced:,} not reproduced"
    )
    return wrap_long_lines("\n".join(visible(line) for line in lines)) + "\n"


def follow_once(run: Any, config: Any, args: argparse.Namespace, problems_before: int = 0) -> int:
    """One snapshot of the whole run; exit 2 with problems, 1 when ``--recorded`` found a task that differs."""
    from ctxviewer.engine.exports.fleet_json import fleet_changes, fleet_document
    from ctxviewer.engine.exports.schemas import versioned
    from ctxviewer.engine.runfiles.fleet import read_run
    from ctxviewer.engine.runs.recorded import comparison_data, task_data

    snapshot = read_run(run, config=config)
    for problem in snapshot.new_problems:
        err(problem.describe())
    comparison = recorded_comparison(run, snapshot, args) if args.recorded else None
    terminal = is_terminal(sys.stdout)
    if args.format == "json":
        document = fleet_document(snapshot)
        if comparison is not None:
            document["recorded"] = comparison_data(comparison)
        _out(json_text(document), terminal)
    elif args.format == "jsonl":
        changes = fleet_changes(None, snapshot)
        if comparison is not None:
            changes += [
                versioned("follow-change", {"type": "recorded", **task_data(task)}) for task in comparison.tasks
            ]
        _out(jsonl_text(changes), terminal)
    else:
        text = fleet_text(snapshot, use_color(sys.stdout))
        if comparison is not None:
            text += "\n" + recorded_text(comparison)
        print_text(text)
    if snapshot.problem_count or problems_before:
        return EXIT_BAD_INPUT
    return EXIT_FINDINGS if comparison is not None and comparison.differ else EXIT_OK


_ANSI_SGR = re.compile(r"\x1b\[[0-9;]*m")


def _rows(text: str, width: int) -> int:
    """How many terminal rows *text* takes at *width* columns (its colour escapes take none)."""
    return sum(max(1, -(-len(_ANSI_SGR.sub("", line)) // width)) for line in text.splitlines())


def follow_live(
    run: Any,
    *,
    fmt: str,
    interval: float,
    stop: threading.Event,
    config: Any = None,
    clock: Callable[[], float] = time.time,
    terminal: bool = False,
    color: bool = False,
    problems_before: int = 0,
) -> int:
    """Follow *run* until *stop* is set (or Ctrl+C, or nobody reads stdout); the exit code.

    ``jsonl``: each poll's changes, one JSON object per line.  ``text``: on a *terminal* the
    fleet redrawn in place every poll (new problems land above it), else the fleet printed
    again whenever a poll changed something.
    """
    from ctxviewer.engine.exports.fleet_json import fleet_changes
    from ctxviewer.engine.runfiles.fleet import follow_run

    previous = None
    drawn = 0  # rows of the fleet last drawn on the terminal
    problems = problems_before
    try:
        for snapshot in follow_run(run, interval=interval, stop=stop, config=config, clock=clock):
            if fmt == "text" and terminal and drawn:
                print_text(f"\x1b[{drawn}F\x1b[J")  # back to the fleet's first row, cleared to the end
                drawn = 0
            for problem in snapshot.new_problems:
                err(problem.describe())
            problems = problems_before + snapshot.problem_count
            if fmt == "jsonl":
                text = jsonl_text(fleet_changes(previous, snapshot))
                ok = _out(text, terminal) if text else True
            elif terminal:
                text = fleet_text(snapshot, color)
                ok = print_text(text)
                drawn = _rows(text, shutil.get_terminal_size().columns)
            elif previous is None or snapshot.changed:
                ok = print_text(fleet_text(snapshot, False) + "\n")
            else:
                ok = True
            previous = snapshot
            if not ok:  # nobody is reading any more
                break
    except KeyboardInterrupt:
        pass
    return EXIT_BAD_INPUT if problems else EXIT_OK


def _on_sigterm(stop: threading.Event) -> Callable[[], None]:
    """Let SIGTERM set *stop* (in the main thread only); returns the undo."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    before = signal.signal(signal.SIGTERM, lambda _signum, _frame: stop.set())

    def undo() -> None:
        signal.signal(signal.SIGTERM, before)

    return undo


def cmd_follow(args: argparse.Namespace) -> int:
    from ctxviewer.engine.runfiles.rundir import discover_run
    from ctxviewer.engine.runtime.eventlog import is_event_log

    if not math.isfinite(args.interval):  # nan or inf: a wait cannot take it
        err(f"--interval: {args.interval:g} is not a number of seconds")
        return EXIT_BAD_INPUT
    if args.interval > MAX_INTERVAL:  # a wait overflows far above this
        err(f"--interval: {args.interval:g} s is too long; use {MAX_INTERVAL:,} s or less")
        return EXIT_BAD_INPUT
    if args.interval < 0.05:
        err(f"--interval: {args.interval:g} s is too short; use 0.05 s or more")
        return EXIT_BAD_INPUT
    if is_event_log(Path(args.path)):
        return follow_event_log(args)
    if args.format == "json" and not args.once:
        err("--format json prints one document: add --once, or stream changes with --format jsonl")
        return EXIT_BAD_INPUT
    if args.recorded and not args.once:
        err("--recorded runs the pipeline for every recorded task: use it with --once")
        return EXIT_BAD_INPUT
    run = discover_run(args.path)  # nothing to read: ProjectError, one line and exit 2
    config, config_problems = fleet_config(run, run_overrides(args))
    if args.once:
        return follow_once(run, config, args, config_problems)
    stop = threading.Event()
    undo = _on_sigterm(stop)
    try:
        return follow_live(
            run,
            fmt=args.format,
            interval=args.interval,
            stop=stop,
            config=config,
            terminal=is_terminal(sys.stdout),
            color=use_color(sys.stdout),
            problems_before=config_problems,
        )
    finally:
        undo()


def add_parser(sub: Subparsers) -> None:
    """Add the ``follow`` command's parser to *sub*."""
    p = sub.add_parser(
        "follow",
        allow_abbrev=False,
        help="follow a run's worker logs, state files and token records: every worker's context gauge",
        description="Read a real run's worker logs, state files, token records and heartbeats and print every "
        "worker's recorded context gauge, once (--once) or live until Ctrl-C; --recorded sets each recorded "
        "task beside what ctxviewer reproduces. "
        + exits("--recorded finds a task whose counts differ")
        + " Bad input includes a path holding no run's files.",
    )
    p.add_argument(
        "path",
        metavar="PATH",
        help="a project, its .mahabharatha/ or .zerg/ folder (or its state or logs folder), a folder of "
        "copied files, or one file; a file in ctxviewer's own event-log format (docs/event-log.md) is "
        "replayed through ctxviewer's tracker as a what-if",
    )
    p.add_argument("--once", action="store_true", help="read everything there, print one snapshot, and exit")
    p.add_argument(
        "--format",
        choices=("text", "json", "jsonl"),
        default="text",
        help="text (the fleet, a line per worker), json (one document; with --once), jsonl (changes as they come)",
    )
    p.add_argument(
        "--recorded",
        action="store_true",
        help="with --once: each token record's tasks beside what the upstream profile reproduces",
    )
    p.add_argument(
        "--project",
        help="the project --recorded reproduces tasks from (default: the one the files are in); for an "
        "event log, where the threshold, max context and zones come from",
    )
    add_set(p)
    p.add_argument("--interval", type=float, default=1.0, help="seconds between polls (default 1)")
    p.set_defaults(func=cmd_follow)
