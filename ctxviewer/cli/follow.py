"""The ``follow`` command: a worker's JSON-lines event log followed as it grows, the tracker's usage
printed whenever it changes (or once, with ``--once``).
"""

from __future__ import annotations

import argparse
import json
import math
import os
from collections.abc import Sequence
from typing import Any

from ctxviewer.cli.common import (
    EXIT_BAD_INPUT,
    EXIT_FINDINGS,
    EXIT_OK,
    Subparsers,
    add_set,
    err,
    plural,
    print_text,
    run_overrides,
)
from ctxviewer.engine.exports.terminal import visible


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


#: Longest ``follow --interval`` (a day).
MAX_INTERVAL = 86_400


def cmd_follow(args: argparse.Namespace) -> int:
    import time
    from dataclasses import asdict

    from ctxviewer.engine.runtime.eventlog import EventLogFollower

    settings = _follow_limits(args)
    if not math.isfinite(args.interval):  # nan or inf: time.sleep would raise
        err(f"--interval: {args.interval:g} is not a number of seconds")
        return EXIT_BAD_INPUT
    if args.interval > MAX_INTERVAL:  # time.sleep overflows far above this
        err(f"--interval: {args.interval:g} s is too long; use {MAX_INTERVAL:,} s or less")
        return EXIT_BAD_INPUT
    if args.interval < 0.05:
        err(f"--interval: {args.interval:g} s is too short; use 0.05 s or more")
        return EXIT_BAD_INPUT
    if args.once and not os.path.isfile(args.log):
        what = "is a folder, not a log file" if os.path.isdir(args.log) else "no such log file"
        err(f"{args.log}: {what}")
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
            err(problem.message)
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
                line = f"{visible(status)}: {visible(_usage_line(usage, settings.all_zones))}\n"
            if not print_text(line) and not args.once:  # nobody is reading any more
                return EXIT_OK
        shown = state
        if args.once:
            return EXIT_FINDINGS if follower.problem_count else EXIT_OK
        time.sleep(args.interval)


def add_parser(sub: Subparsers) -> None:
    """Add the ``follow`` command's parser to *sub*."""
    p = sub.add_parser(
        "follow", allow_abbrev=False, help="follow a worker's JSON-lines event log: tracker usage as it grows"
    )
    p.add_argument("log", help="the event log (format: docs/event-log.md)")
    p.add_argument("--project", help="take the threshold, max context and zones from this project")
    add_set(p)
    p.add_argument("--once", action="store_true", help="read what is there, print the usage, and exit")
    p.add_argument("--interval", type=float, default=1.0, help="seconds between polls (default 1)")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.set_defaults(func=cmd_follow)
