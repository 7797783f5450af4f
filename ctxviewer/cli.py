"""The ``ctxviewer`` command line: assemble, list, why, prompt, verify, batch, check, whatif, compare, follow,
split, gui.

Exit codes: 0 success; 1 ``check`` found tasks over budget or a finding that fails,
``why`` found no candidate, or the reproduced pipeline itself raised
(``fallback_to_full: false``); 2 bad input -- a missing folder, an unknown feature or
task, a bad budget, setting or finding code, an ``-o`` extension that contradicts
``--format``, a malformed task graph or config, a project file that is unreadable,
binary, not UTF-8, or outside the project, no display for ``gui``.  Bad input is one
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
import re
import sys
from collections.abc import Mapping, Sequence
from typing import Any

from ctxviewer import __version__
from ctxviewer.engine.errors import CtxViewerError
from ctxviewer.engine.files.writing import atomic_write
from ctxviewer.engine.tokens.counting import TOKENIZERS

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_BAD_INPUT = 2


#: Characters a terminal acts on instead of showing: C0 controls, DEL, C1 controls (CSI,
#: OSC...), bidi overrides and isolates (which reorder what follows), line and paragraph
#: separators, and lone surrogates (undecodable bytes of a file name).
_OTHER_CONTROLS = "\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff"
_UNSAFE = re.compile("[\x00-\x1f" + _OTHER_CONTROLS + "]")
_UNSAFE_IN_LINES = re.compile("[\x00-\x08\x0b-\x1f" + _OTHER_CONTROLS + "]")  # keeps tab and newline


def _escape_char(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: str, *, lines: bool = False) -> str:
    """*text* (from a project) safe to print on a terminal: every character a terminal would
    act on -- ESC and the other controls, C1 controls, bidi overrides -- written visibly as
    ``\\x1b`` or ``\\u202e``.  With *lines*, newlines and tabs are kept (a report of many
    lines); otherwise they are escaped too, so a name cannot start a line of its own.
    """
    return (_UNSAFE_IN_LINES if lines else _UNSAFE).sub(_escape_char, text)


def _write_out(text: str, output: str | None) -> None:
    if output:
        atomic_write(output, text)
    else:
        # Data (a context, JSON, CSV) goes to files and pipes as it is; shown on a
        # terminal, what the terminal would act on is escaped.
        _print(visible(text, lines=True) if _is_terminal(sys.stdout) else text)


def _is_terminal(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


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
    sys.stderr.write(f"ctxviewer: {visible(message)}\n")
    sys.stderr.flush()


def _setting(text: str) -> tuple[str, Any]:
    """``KEY=VALUE`` from ``--set``; the value is read as YAML (numbers, booleans, mappings)."""
    from ctxviewer.engine.runs.compare import parse_assignment

    try:
        return parse_assignment(text)
    except CtxViewerError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _overrides(args: argparse.Namespace) -> dict[str, Any]:
    """``--set`` values, with ``--profile``, ``--budget`` and ``--tokenizer`` on top."""
    from ctxviewer.engine.runs.compare import check_profile

    out: dict[str, Any] = dict(getattr(args, "set", None) or [])
    if getattr(args, "profile", None) is not None:
        out["profile"] = check_profile(args.profile, "--profile")
    if getattr(args, "budget", None) is not None:
        from ctxviewer.engine.project.settings import parse_budget

        out["budget"] = parse_budget(args.budget, "--budget")
    if getattr(args, "tokenizer", None) is not None:
        out["tokenizer"] = args.tokenizer
    return out


def _report_project_warnings(project: Any) -> None:
    for warning in project.warnings:
        _err(f"note: {warning}")


#: For each command with ``-o``: the output format each file extension names (case-insensitive).
ASSEMBLE_SUFFIXES = {
    ".md": "markdown",
    ".markdown": "markdown",
    ".txt": "markdown",
    ".json": "json",
    ".html": "html",
    ".htm": "html",
}
BATCH_SUFFIXES = {".jsonl": "jsonl", ".ndjson": "jsonl", ".csv": "csv"}
COMPARE_SUFFIXES = {".txt": "text", ".md": "md", ".markdown": "md", ".json": "json"}
REPORT_SUFFIXES = {".txt": "text", ".json": "json"}  # list, why
#: ``--format`` spellings that name the same format.
FORMAT_ALIASES = {"md": "markdown"}


def _output_format(args: argparse.Namespace, by_suffix: dict[str, str], default: str) -> str:
    """The format to write: ``--format`` if given, else the one ``-o``'s extension names, else *default*.

    An extension that names another format than ``--format`` is an error, and so is an
    extension the command does not know when ``--format`` does not say (a file without
    an extension takes the default).  Checked before anything is assembled.
    """
    given: str | None = getattr(args, "format", None)
    output: str | None = getattr(args, "output", None)
    suffix = os.path.splitext(output)[1].lower() if output else ""
    implied = by_suffix.get(suffix) if suffix else None
    if given is None:
        if suffix and implied is None:
            by_format: dict[str, list[str]] = {}
            for ext, fmt in by_suffix.items():
                by_format.setdefault(fmt, []).append(ext)
            known = "; ".join(f"{' '.join(exts)} for {fmt}" for fmt, exts in by_format.items())
            raise CtxViewerError(
                f"cannot tell the output format from the extension {suffix!r}: use {known}, or give --format",
                output,
            )
        return implied or default
    if implied is not None and FORMAT_ALIASES.get(implied, implied) != FORMAT_ALIASES.get(given, given):
        raise CtxViewerError(
            f"the extension {suffix!r} means {implied}, but --format says {given}; rename the file or drop --format",
            output,
        )
    return FORMAT_ALIASES.get(given, given)


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
    from ctxviewer.engine.project.loading import load_project
    from ctxviewer.engine.runs.pipeline import assemble
    from ctxviewer.engine.trace.model import trace_to_json

    fmt = _output_format(args, ASSEMBLE_SUFFIXES, "markdown")
    project = load_project(args.project, _overrides(args))
    trace = assemble(project, args.feature, args.task, exact=fmt != "markdown")
    if fmt == "json":
        text = json.dumps(trace_to_json(trace), ensure_ascii=False, indent=2) + "\n"
    elif fmt == "html":
        from ctxviewer.engine.exports.report import html_report

        text = html_report(trace)
    else:
        text = trace.context
        for warning in trace.warnings:  # the JSON carries them; plain output says them here
            _err(f"note: {warning}")
    if args.debug:  # seed 004's DEBUG_CONTEXT: the record on stderr, the context stays clean
        from ctxviewer.engine.profiles.computed import debug_text

        sys.stderr.write(visible(debug_text(trace), lines=True))
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

    fmt = _output_format(args, BATCH_SUFFIXES, "jsonl")
    project = load_project(args.project, _overrides(args))
    _report_project_warnings(project)
    batch_targets(project, args.feature)  # fail on bad input before any output
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n") if fmt == "csv" else None
    if writer is not None:
        writer.writerow(CSV_COLUMNS)
    code = EXIT_OK
    for row in run_batch(project, args.feature, exact=not args.no_exact):
        assert row.trace is not None  # without collect_errors, a refused task raises
        findings = findings_of(row.trace)
        if writer is not None:
            writer.writerow([*_csv_row(row.trace), *_finding_cells(findings)])
        else:
            line = trace_to_json(row.trace)
            line["findings"] = [_finding_json(f) for f in findings]  # derived: not part of the trace schema
            buffer.write(json.dumps(line, ensure_ascii=False) + "\n")
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
    from ctxviewer.engine.project.loading import load_project
    from ctxviewer.engine.project.settings import parse_budget
    from ctxviewer.engine.runs.batch import batch_targets, run_batch

    max_tokens = None if args.max_tokens is None else parse_budget(args.max_tokens, "--max-tokens")
    fail, ignored = _failing_codes(args)  # unknown codes are bad input, before anything runs
    project = load_project(args.project, _overrides(args))
    _report_project_warnings(project)
    if not batch_targets(project, args.feature):
        _err(f"no tasks to check in {project.root}{f' (feature {args.feature})' if args.feature else ''}")
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
        bad_input = max(bad_input, _report_row_input_errors(row))
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
                    **_finding_json(f),
                    "section": f.section,
                    "fails": f.code in fail,
                }
                for f in found
            ],
        }
        _print(_json_text(data))
    else:
        for feature, task, used in over:
            _print(f"OVER  {_one_line(feature)}/{_one_line(task)}: {used:,} {tokenizer} tokens > {limit:,}\n")
        for f in failing:
            where = f"{_one_line(f.feature)}/{_one_line(f.task)}"
            _print(f"{f.severity.upper():<7} {f.code}  {where}: {_one_line(f.message)}\n")
        _print(f"{len(over)} of {total} tasks over {limit:,} {tokenizer} tokens\n")
        if failing:
            tasks_failing = len({(f.feature, f.task) for f in failing})
            summary = f"{tasks_failing} of {total} tasks have findings that fail: {_tally(failing)}"
        else:
            summary = "no finding fails"
        if others:
            summary += f"; not failing: {_tally(others)}"
        if found:  # the line is left out when there is nothing to say
            _print(summary + "\n")
    return bad_input or (EXIT_FINDINGS if over or failing else EXIT_OK)


_FOLDED_SPACE = re.compile(r"[ \t\n]+")


def _one_line(text: str) -> str:
    """*text* for one line of a terminal report: runs of spaces, tabs and line feeds become one
    space (a wrapped paragraph reads as a sentence); every other control character, a carriage
    return included, is shown escaped (see :func:`visible`), so nothing can forge a line."""
    return visible(_FOLDED_SPACE.sub(" ", text))


def _json_text(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"


def _table(rows: Sequence[Sequence[str]], right: Sequence[int] = (), indent: str = "  ") -> list[str]:
    """Rows of cells as aligned lines: columns as wide as their widest cell, *right* ones right-aligned."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))] if rows else []
    lines = []
    for row in rows:
        cells = [c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths, strict=True))]
        lines.append((indent + "  ".join(cells)).rstrip())
    return lines


def _finding_json(finding: Any) -> dict[str, Any]:
    """A finding in a row or a match: ``{code, severity, item, message}`` (the row says the task)."""
    return {"code": finding.code, "severity": finding.severity, "item": finding.item, "message": finding.message}


def _severity_counts(findings: Sequence[Any]) -> dict[str, int]:
    from ctxviewer.engine.analysis.findings import SEVERITIES

    return {severity: sum(1 for f in findings if f.severity == severity) for severity in SEVERITIES}


def _counts_text(counts: Mapping[str, int]) -> str:
    """``1 error, 2 warnings`` (only the severities there are), or ``-``."""
    parts = [f"{n} {k}" + ("s" if n != 1 and k != "info" else "") for k, n in counts.items() if n]
    return ", ".join(parts) or "-"


def _list_data(args: argparse.Namespace) -> tuple[dict[str, Any], int]:
    """What ``list`` shows, as JSON-able data, and the exit code bad input calls for."""
    from ctxviewer.engine.analysis.findings import findings_of
    from ctxviewer.engine.project.loading import load_project
    from ctxviewer.engine.runs.batch import run_batch
    from ctxviewer.engine.runs.pipeline import decision_tokenizer

    project = load_project(args.project, _overrides(args))
    _report_project_warnings(project)
    features = [project.feature(args.feature)] if args.feature else list(project.features)
    tokenizer = decision_tokenizer(project.settings, project)
    code = EXIT_OK
    rows: dict[tuple[str, str], Any] = {}
    for row in run_batch(project, args.feature, exact=args.exact, collect_errors=True):
        rows[(row.feature.name, row.task.id)] = row
        if row.trace is None:
            _err(f"{row.feature.name}/{row.task.id}: {row.error}")
            code = EXIT_BAD_INPUT
        else:
            code = max(code, _report_row_input_errors(row))
    out_features: list[dict[str, Any]] = []
    for feature in features:
        problem = None
        if feature.graph_error is not None:
            problem = str(feature.graph_error)
            _err(problem)
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
                    findings=_severity_counts(findings),
                    finding_codes=sorted({f.code for f in findings}),
                    problem=None,
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
        f"{_one_line(data['project'])}: {_count(len(features), 'feature')}, {_count(n_tasks, 'task')} · "
        f"profile {data['profile']} · budget {data['budget']:,} {data['tokenizer']} tokens · "
        f"findings: {_counts_text(data['findings']).replace('-', 'none')}"
    )
    rows = [["TASK", "TOKENS", "BUDGET", "USED", "FINDINGS", "TITLE"]]
    for feature in features:
        for t in feature["tasks"]:
            if t["tokens"] is None:
                rows.append([_one_line(t["id"]), "-", "-", "", "", f"not assembled: {_one_line(t['problem'])}"])
                continue
            used = f"{100 * t['tokens'] / t['budget']:.0f}%"
            findings = _counts_text(t["findings"])
            row = [_one_line(t["id"]), f"{t['tokens']:,}", f"{t['budget']:,}", used, findings, _one_line(t["title"])]
            rows.append(row)
    lines = _table(rows, right=(1, 2, 3))  # one table, so every feature's columns line up
    out = [head]
    at = 1
    for feature in features:
        what = _one_line(feature["problem"]) if feature["problem"] else _count(len(feature["tasks"]), "task")
        out += ["", f"{_one_line(feature['name'])} ({what})"]
        if feature["tasks"]:
            out.append(lines[0])
            out += lines[at : at + len(feature["tasks"])]
            at += len(feature["tasks"])
    return "\n".join(out) + "\n"


def cmd_list(args: argparse.Namespace) -> int:
    fmt = _output_format(args, REPORT_SUFFIXES, "text")
    data, code = _list_data(args)
    _write_out(_json_text(data) if fmt == "json" else _list_text(data), args.output)
    return code


def _item_label(item: Any) -> str:
    """The candidate's file and, for a spec paragraph, its lines (``requirements.md:58``, ``:12-14``)."""
    from ctxviewer.engine.trace.model import SPEC_PARAGRAPH

    if item.kind != SPEC_PARAGRAPH or item.line_start is None:
        return str(item.source)
    lines = str(item.line_start) if item.line_end in (None, item.line_start) else f"{item.line_start}-{item.line_end}"
    return f"{item.source}:{lines}"


def _why_data(args: argparse.Namespace) -> tuple[dict[str, Any], int]:
    """Every candidate of the task that mentions TEXT, as JSON-able data; the exit code the run's errors call for."""
    from ctxviewer.engine.analysis.explain import find_candidates, keyword_sources
    from ctxviewer.engine.analysis.findings import findings_of
    from ctxviewer.engine.project.loading import load_project
    from ctxviewer.engine.runs.pipeline import assemble, decision_tokenizer
    from ctxviewer.engine.trace.model import fate_label

    query = args.text.strip()
    if not query:
        raise CtxViewerError("TEXT is empty: give a word, a rule name, a file or an id to look for")
    project = load_project(args.project, _overrides(args))
    trace = assemble(project, args.feature, args.task, exact=True)
    # Bad input (a file left out) is exit 2; the pipeline's own failures are in the answer.
    code = EXIT_BAD_INPUT if _report_trace_errors(trace) == EXIT_BAD_INPUT else EXIT_OK
    tokenizer = decision_tokenizer(project.settings, project)
    about: dict[str, list[dict[str, Any]]] = {}
    for finding in findings_of(trace):
        if finding.item is not None:
            about.setdefault(finding.item, []).append(_finding_json(finding))
    matches = []
    for match in find_candidates(trace, query):
        item = trace.item(match.item_id)
        assert item is not None
        section = trace.section(item.section)
        matches.append(
            {
                "id": item.id,
                "kind": item.kind,
                "label": _item_label(item),
                "source": item.source,
                "lines": None if item.line_start is None else [item.line_start, item.line_end],
                "section": item.section,
                "section_title": section.title if section is not None else item.section,
                "status": item.status,
                "fate": fate_label(item.status),
                "reason": item.reason,
                "score": item.score,
                "rank": item.rank,
                "matched_keywords": list(item.matched_keywords),
                "tokens": item.tokens.get(tokenizer),
                "token_counts": item.tokens.to_json(),
                "found_in": list(match.found_in),
                "excerpt": match.excerpt,
                "findings": about.get(item.id, []),
            }
        )
    data = {
        "project": project.name,
        "feature": trace.feature,
        "task": trace.task_id,
        "title": trace.task_title,
        "profile": trace.profile,
        "tokenizer": tokenizer,
        "budget": trace.budget,
        "text": query,
        "keyword_sources": keyword_sources(trace, query),
        "candidates": len(trace.items),
        "matches": matches,
        "errors": [e.one_line() for e in trace.errors],
    }
    return data, code


def _why_text(data: Mapping[str, Any]) -> str:
    from ctxviewer.engine.analysis.whatif import kind_word

    matches = data["matches"]
    where = f"{_one_line(data['feature'])}/{_one_line(data['task'])}"
    head = (
        f"{_one_line(data['text'])!r} in {where} (profile {data['profile']}, budget {data['budget']:,}): "
        f"{len(matches)} of {_count(data['candidates'], 'candidate')} match"
    )
    out = [head]
    if data["keyword_sources"]:
        sources = data["keyword_sources"]
        shown = ", ".join(sources[:3]) + (f" and {len(sources) - 3:,} more" if len(sources) > 3 else "")
        out.append(f"it is a keyword of the task, from {_one_line(shown)}")
    for n, m in enumerate(matches, start=1):
        facts = [f"{kind_word(m['kind'])} in {_one_line(m['section_title'])}"]
        if m["score"] is not None:
            facts.append(f"score {m['score']}")
        if m["rank"] is not None:
            facts.append(f"rank {m['rank']}")
        if m["tokens"] is not None:
            facts.append(f"{m['tokens']:,} {data['tokenizer']} tokens")
        out += [
            "",
            f"{n}. {_one_line(m['label'])}  [{m['fate']}]",
            f"   {_one_line(m['reason'])}" if m["reason"] else "   (no reason recorded)",
            f"   {' · '.join(facts)} · found in {', '.join(m['found_in'])}",
        ]
        if m["matched_keywords"]:
            out.append(f"   keywords: {_one_line(', '.join(m['matched_keywords']))}")
        if m["excerpt"]:
            out.append(f"   text: {_one_line(m['excerpt'])}")
        for f in m["findings"]:
            out.append(f"   finding {f['code']} ({f['severity']}): {_one_line(f['message'])}")
    return "\n".join(out) + "\n"


def cmd_why(args: argparse.Namespace) -> int:
    fmt = _output_format(args, REPORT_SUFFIXES, "text")
    data, code = _why_data(args)
    if not data["matches"]:
        _err(
            f"no candidate of {_one_line(data['feature'])}/{_one_line(data['task'])} contains "
            f"{_one_line(data['text'])!r} "
            f"({_count(data['candidates'], 'candidate')} searched: text, file, id, keywords)"
        )
        if fmt == "json":  # a script still gets the (empty) answer
            _write_out(_json_text(data), args.output)
        return code or EXIT_FINDINGS
    _write_out(_json_text(data) if fmt == "json" else _why_text(data), args.output)
    return code


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
    from ctxviewer.engine.project.loading import load_project
    from ctxviewer.engine.upstream.prompt import build_prompt

    fmt = _output_format(args, PROMPT_SUFFIXES, "text")
    project = load_project(args.project, _overrides(args))
    feature = project.feature(args.feature)
    task = feature.task(args.task)
    prompt = build_prompt(project, feature, task, exact=not args.no_exact)
    data = prompt.to_json()
    for note in prompt.notes:
        _err(f"note: {note}")
    if prompt.error is not None:
        _err(f"upstream raises while composing the prompt of {feature.name}/{task.id}: {prompt.error}")
    if fmt == "json":
        _write_out(_json_text(data), args.output)
    elif fmt in ("md", "markdown"):
        _write_out(_prompt_markdown(data), args.output)
    elif prompt.error is None:
        _write_out(prompt.text, args.output)
    return EXIT_FINDINGS if prompt.error is not None else EXIT_OK


def _clip(text: str | None, width: int = 100) -> str:
    if text is None:
        return "(end of text)"
    shown = _one_line(text)
    return repr(shown if len(shown) <= width else shown[: width - 1] + "\u2026")


def cmd_verify(args: argparse.Namespace) -> int:
    from ctxviewer.engine.project.loading import load_project
    from ctxviewer.engine.runs.batch import batch_targets
    from ctxviewer.engine.upstream.verify import verify

    project = load_project(args.project, _overrides(args))
    _report_project_warnings(project)
    targets = batch_targets(project, args.feature)
    if not targets:
        _err(f"no tasks to verify in {project.root}{f' (feature {args.feature})' if args.feature else ''}")
        return EXIT_BAD_INPUT
    result = verify(project, args.upstream_python, targets)
    if args.format == "json":
        data = {
            "python": result.python,
            "package": result.package,
            "package_version": result.package_version,
            "version": result.version,
            "profile": result.profile,
            "why": result.why,
            "notes": list(result.notes),
            "tasks": len(result.checks),
            "differing": [
                {
                    "feature": c.feature,
                    "task": c.task,
                    "line": c.line,
                    "upstream": c.upstream_line,
                    "ctxviewer": c.ours_line,
                    "upstream_error": c.upstream_error,
                }
                for c in result.differing
            ],
        }
        _print(_json_text(data))
    else:
        _print(
            f"upstream {visible(result.package)} {visible(result.package_version)} ({visible(result.python)}) "
            f"against profile {result.profile}, version {result.version}: {_one_line(result.why)}\n"
        )
        for note in result.notes:
            _print(f"note: {_one_line(note)}\n")
        for c in result.differing:
            where = f"{_one_line(c.feature)}/{_one_line(c.task)}"
            if c.upstream_error is not None:
                _print(
                    f"DIFF  {where}: upstream raised {_one_line(c.upstream_error)}; ctxviewer {_clip(c.ours_line)}\n"
                )
            else:
                lines = f"upstream {_clip(c.upstream_line)} / ctxviewer {_clip(c.ours_line)}"
                _print(f"DIFF  {where}: line {c.line}: {lines}\n")
        same = len(result.checks) - len(result.differing)
        _print(f"{same} of {len(result.checks)} tasks identical\n")
    return EXIT_FINDINGS if result.differing else EXIT_OK


def cmd_split(args: argparse.Namespace) -> int:
    from ctxviewer.engine.project.loading import load_project
    from ctxviewer.engine.project.splitter import analyze_project, apply_split

    project = load_project(args.project)
    analyses = analyze_project(project, exact=not args.no_exact)
    code = EXIT_OK
    if not analyses:
        _print(f"no command files under {visible(project.settings.paths.commands)}\n")
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
                f"SPLIT {visible(a.path)}: {a.lines} lines, {len(a.sections)} sections; split after line "
                f"{a.split_line} (target {a.target_line}); core {a.core_tokens.heuristic:,} + details "
                f"{a.details_tokens.heuristic:,} est. tokens, saves {a.tokens_saved:,} of "
                f"{a.tokens.heuristic:,}{exact}\n"
            )
        else:
            _print(f"keep  {visible(a.path)}: {a.lines} lines (< 300), {a.tokens.heuristic:,} est. tokens\n")
    if args.apply:
        for a in analyses:
            if a.eligible and not a.problem:
                written = apply_split(project, a)
                _print(f"wrote {', '.join(visible(w) for w in written)}\n")
    elif any(a.eligible for a in analyses):
        _print("preview only: run with --apply to write the split files\n")
    return code


def cmd_whatif(args: argparse.Namespace) -> int:
    from ctxviewer.engine.analysis.whatif import diff_markdown, diff_to_json, diff_traces
    from ctxviewer.engine.project.loading import load_project
    from ctxviewer.engine.runs.pipeline import assemble_task

    fmt = _output_format(args, ASSEMBLE_SUFFIXES, "markdown")
    project = load_project(args.project)
    feature = project.feature(args.feature)
    task = feature.task(args.task)
    base_settings = project.settings.with_overrides(dict(args.baseline_set or []), "baseline")
    settings = base_settings.with_overrides(_overrides(args), "command line")
    exact = not args.no_exact
    baseline = assemble_task(project, feature, task, base_settings, exact=exact)
    current = assemble_task(project, feature, task, settings, exact=exact)
    diff = diff_traces(baseline, current)
    if fmt == "json":
        text = json.dumps(diff_to_json(diff), ensure_ascii=False, indent=2) + "\n"
    elif fmt == "html":  # the report of the run with --set, with the diff against the baseline
        from ctxviewer.engine.exports.report import html_report

        text = html_report(current, diff)
    else:
        text = diff_markdown(diff)
    _write_out(text, args.output)
    return _report_two_runs(baseline, current)


def cmd_compare(args: argparse.Namespace) -> int:
    from ctxviewer.engine.project.loading import load_project
    from ctxviewer.engine.runs.compare import compare_markdown, compare_task, compare_text, compare_to_json, parse_sides

    a, b = parse_sides(args.profiles)  # a malformed spec fails before anything is read
    fmt = _output_format(args, COMPARE_SUFFIXES, "text")
    project = load_project(args.project, _overrides(args))
    feature = project.feature(args.feature)
    task = feature.task(args.task)
    settings_a = a.settings(project.settings, "--profiles A")
    settings_b = b.settings(project.settings, "--profiles B")
    names = (f"A: {a.label}", f"B: {b.label}")
    diff = compare_task(project, feature, task, settings_a, settings_b, exact=not args.no_exact, names=names)
    if fmt == "json":
        text = json.dumps(compare_to_json(diff, a, b), ensure_ascii=False, indent=2) + "\n"
    elif fmt in ("md", "markdown"):
        text = compare_markdown(diff, a, b)
    else:
        text = compare_text(diff, a, b)
    _write_out(text, args.output)
    return _report_two_runs(diff.baseline, diff.current)


def _follow_limits(args: argparse.Namespace) -> Any:
    from ctxviewer.engine.project.loading import load_project
    from ctxviewer.engine.project.settings import Settings

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

    from ctxviewer.engine.runtime.eventlog import EventLogFollower

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
                line = f"{visible(status)}: {visible(_usage_line(usage, settings.all_zones))}\n"
            if not _print(line) and not args.once:  # nobody is reading any more
                return EXIT_OK
        shown = state
        if args.once:
            return EXIT_FINDINGS if follower.problem_count else EXIT_OK
        time.sleep(args.interval)


def _check_gui_target(args: argparse.Namespace, tune: Mapping[str, Any]) -> None:
    """Refuse a bad project, feature, task or setting before a window opens (raises CtxViewerError)."""
    from ctxviewer.engine.errors import UnknownTaskError
    from ctxviewer.engine.project.loading import load_project
    from ctxviewer.engine.project.settings import Settings, apply_flat

    if args.screenshot and not args.project:
        raise CtxViewerError("--screenshot needs a PROJECT folder")
    if not args.project:  # the window reopens the last project: only the values can be checked here
        if tune:
            apply_flat(Settings(), tune, "command line", check=False)
        return
    project = load_project(args.project, dict(tune))
    if args.feature:
        feature = project.feature(args.feature)
        if args.task and feature.graph_error is None:
            feature.task(args.task)
    elif args.task and not any(t.id == args.task for f in project.features for t in f.tasks):
        raise UnknownTaskError(f"no task {args.task!r} in any feature of {project.name}", str(project.root))


#: The way out when there is no screen: Qt's offscreen platform draws the window into a picture.
_SCREEN_HINT = (
    "or save a picture of the window instead: QT_QPA_PLATFORM=offscreen ctxviewer gui PROJECT --screenshot out.png"
)
#: The system libraries Qt's X11 plugin needs that a bare Linux lacks (as the README lists them).
XCB_PACKAGES = "libegl1 libxkbcommon-x11-0 libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1"


def _qt_platforms() -> list[str]:
    """The platforms ``QT_QPA_PLATFORM`` names, in order (``wayland;xcb``, ``offscreen:fontengine=...``)."""
    value = os.environ.get("QT_QPA_PLATFORM", "")
    return [part.split(":", 1)[0].strip().lower() for part in value.split(";") if part.strip()]


def _no_display() -> str | None:
    """Why Qt surely has no screen for a window here, or None when it may have one (then Qt decides).

    Only the certain case is judged: on an X11/Wayland system, Qt's platform is X11 (named
    or by default) and neither ``DISPLAY`` nor a Wayland session is set.  Any other platform
    (offscreen, minimal, wayland with its default socket, ...) is left to Qt.
    """
    if not sys.platform.startswith(("linux", "freebsd", "openbsd", "netbsd", "dragonfly", "sunos")):
        return None
    platforms = _qt_platforms()
    if any(p != "xcb" for p in platforms) or os.environ.get("DISPLAY", "").strip():
        return None
    wayland = os.environ.get("WAYLAND_DISPLAY", "").strip() or os.environ.get("XDG_SESSION_TYPE", "") == "wayland"
    if not platforms and wayland:
        return None
    return "DISPLAY is not set" + (" and QT_QPA_PLATFORM is xcb" if platforms else "")


#: The system libraries Qt's X11 plugin loads (beyond what Qt's own GUI module already needed).
XCB_LIBRARIES = (
    "libxcb.so.1",
    "libX11.so.6",
    "libX11-xcb.so.1",
    "libxcb-cursor.so.0",
    "libxcb-icccm.so.4",
    "libxcb-image.so.0",
    "libxcb-keysyms.so.1",
    "libxcb-randr.so.0",
    "libxcb-render.so.0",
    "libxcb-render-util.so.0",
    "libxcb-shape.so.0",
    "libxcb-shm.so.0",
    "libxcb-sync.so.1",
    "libxcb-util.so.1",
    "libxcb-xfixes.so.0",
    "libxcb-xkb.so.1",
    "libxkbcommon.so.0",
    "libxkbcommon-x11.so.0",
    "libEGL.so.1",
)


def _missing_libraries(names: Sequence[str] = XCB_LIBRARIES) -> list[str]:
    """The libraries of *names* the dynamic loader cannot find (asked as Qt's plugin would ask it)."""
    import ctypes

    missing = []
    for name in names:
        try:
            ctypes.CDLL(name)
        except OSError:
            missing.append(name)
    return missing


def _debian_package(soname: str) -> str:
    """The Debian/Ubuntu package a library usually comes in (``libxcb-icccm.so.4`` -> ``libxcb-icccm4``)."""
    name, _, version = soname.partition(".so.")
    name = name.lower()
    return name + ("-" if name[-1:].isdigit() else "") + version.split(".")[0]


def _libraries_advice(missing: Sequence[str]) -> str:
    if not missing:
        return f"install the libraries it needs (Debian/Ubuntu: apt-get install {XCB_PACKAGES})"
    packages = " ".join(_debian_package(m) for m in missing)
    return f"it lacks {', '.join(missing)}: install them (Debian/Ubuntu: apt-get install {packages})"


def _no_display_line(why: str) -> str:
    missing = _missing_libraries()
    libraries = f"; Qt's X11 plugin also {_libraries_advice(missing).replace('it lacks', 'lacks')}" if missing else ""
    return f"no display to open the window on ({why}): run it in a desktop session{libraries}, {_SCREEN_HINT}"


def _qt_failure_line(said: Sequence[str]) -> str:
    """One line for the user from what Qt said as it failed to start its platform."""
    import re

    lines = [line.strip() for message in said for line in message.splitlines() if line.strip()]
    for line in lines:
        found = re.search(r"could not connect to display\s*(\S*)", line)
        if found:
            display = found.group(1) or os.environ.get("DISPLAY", "")
            return (
                f"cannot connect to the display {display!r} (DISPLAY): is an X server running there, "
                f"and may this user use it? {_SCREEN_HINT[0].upper()}{_SCREEN_HINT[1:]}"
            )
    if any('platform plugin "xcb"' in line or "xcb-cursor0" in line for line in lines):
        advice = _libraries_advice(_missing_libraries())
        return f"Qt cannot load its X11 (xcb) platform plugin: {advice}, {_SCREEN_HINT}"
    why = next(
        (line for line in lines if "plugin" in line.lower() or "display" in line.lower()), lines[-1] if lines else ""
    )
    return f"Qt cannot start a window ({_one_line(why)}): check QT_QPA_PLATFORM and the display, {_SCREEN_HINT}"


def cmd_gui(args: argparse.Namespace) -> int:
    from ctxviewer.engine.runs.compare import parse_sides

    if args.profiles:
        parse_sides(args.profiles)  # a malformed spec is bad input here; values are checked in the tab
    tune = _overrides(args)
    _check_gui_target(args, tune)  # every bad argument is one line and exit 2, before any window
    for key in ("profile", "budget"):  # the window takes --profile and --budget as more --set
        if key in tune:
            args.set = [*(args.set or []), (key, tune[key])]
    why = _no_display()
    if why is not None:
        if not (args.screenshot and not _qt_platforms()):
            _err(_no_display_line(why))
            return EXIT_BAD_INPUT
        os.environ["QT_QPA_PLATFORM"] = "offscreen"  # a screenshot needs no screen
    try:
        from ctxviewer.gui.app import run_gui
        from ctxviewer.gui.startup import create_application
    except ImportError as exc:
        _err(f"the GUI is not available ({exc})")
        return EXIT_BAD_INPUT
    create_application(_qt_failure_line)
    return run_gui(args)


# -- parser --------------------------------------------------------------------------


def _add_budget(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--budget",
        metavar="N",
        help="the task's context budget in tokens, written 4000, 4,000 or 4k (default: the project's)",
    )


def _add_profile(p: argparse.ArgumentParser) -> None:
    from ctxviewer.engine.project.settings import PROFILES

    p.add_argument(
        "--profile",
        metavar="NAME",
        help=f"the assembly strategy: {', '.join(PROFILES)} (the same as --set profile=NAME)",
    )


def _add_report_output(p: argparse.ArgumentParser) -> None:
    """A report's format (text, Markdown or JSON), exact counts, and where it goes."""
    p.add_argument(
        "--format",
        choices=("text", "md", "markdown", "json"),
        help="default: from the -o file's extension (.txt, .md, .json), else text",
    )
    p.add_argument("--no-exact", action="store_true", help="skip exact tiktoken counts")
    p.add_argument("-o", "--output", help="write here (atomically) instead of stdout")


def _add_run_options(p: argparse.ArgumentParser) -> None:
    """The settings of one run, as every command that assembles takes them."""
    _add_budget(p)
    p.add_argument("--tokenizer", choices=TOKENIZERS, help="tokenizer used for decisions")
    _add_profile(p)
    _add_set(p)


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
        "assemble",
        allow_abbrev=False,
        help="assemble one task's context (markdown), its trace (json) or the HTML report (html)",
    )
    p.add_argument("project")
    p.add_argument("--feature", required=True)
    p.add_argument("--task", required=True)
    _add_run_options(p)
    p.add_argument(
        "--format",
        choices=("markdown", "md", "json", "html"),
        help="markdown: exactly the context; json: the trace; html: the self-contained report "
        "(default: from the -o file's extension, .md/.txt, .json, .html; else markdown)",
    )
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
    _add_budget(p)
    p.add_argument("--tokenizer", choices=TOKENIZERS)
    _add_profile(p)
    _add_set(p)
    p.add_argument(
        "--format", choices=("jsonl", "csv"), help="default: from the -o file's extension (.jsonl, .csv), else jsonl"
    )
    p.add_argument("--no-exact", action="store_true", help="skip exact tiktoken counts (faster)")
    p.add_argument("-o", "--output")
    p.set_defaults(func=cmd_batch)

    p = sub.add_parser(
        "check",
        allow_abbrev=False,
        help="for CI: exit 1 if any task's context exceeds the budget or has a failing finding, 2 on bad input",
    )
    p.add_argument("project")
    p.add_argument("--feature")
    _add_budget(p)
    p.add_argument(
        "--max-tokens",
        metavar="N",
        help="limit, written 4000, 4,000 or 4k (default: the budget, --budget or the project's)",
    )
    p.add_argument("--tokenizer", choices=TOKENIZERS, help="how to count (default: the project's)")
    _add_profile(p)
    _add_set(p)
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

    p = sub.add_parser(
        "list",
        allow_abbrev=False,
        help="the project's features and tasks, each task's context tokens against its budget",
        description="List the features and their tasks; every task is assembled to give its context's tokens "
        "(in the unit the profile decides with) against its budget.",
    )
    p.add_argument("project")
    p.add_argument("--feature", help="only this feature")
    p.add_argument(
        "--exact",
        action="store_true",
        help="also count every candidate exactly, so findings that compare the estimate with the exact "
        "count (estimate-flip) are found too (slower)",
    )
    _add_run_options(p)
    p.add_argument("--format", choices=("text", "json"), help="default: from the -o file's extension, else text")
    p.add_argument("-o", "--output", help="write here (atomically) instead of stdout")
    p.set_defaults(func=cmd_list)

    p = sub.add_parser(
        "why",
        allow_abbrev=False,
        help="why was it left out? every candidate of a task that contains TEXT, with its fate and reason",
        description="Assemble one task and list every candidate (spec paragraph, rule file, computed entry) "
        "whose text, file, id or matched keywords contain TEXT (case-insensitive), with its fate, the "
        "reason, its section, score, rank and tokens.  Exit 0 when something matched, 1 when nothing did, "
        "2 on bad input.",
    )
    p.add_argument("project")
    p.add_argument("--feature", required=True)
    p.add_argument("--task", required=True)
    p.add_argument("text", metavar="TEXT", help="a word, a rule name, a file path or an item id")
    _add_run_options(p)
    p.add_argument("--format", choices=("text", "json"), help="default: from the -o file's extension, else text")
    p.add_argument("-o", "--output", help="write here (atomically) instead of stdout")
    p.set_defaults(func=cmd_why)

    p = sub.add_parser(
        "prompt",
        allow_abbrev=False,
        help="the whole prompt a worker receives for a task, as upstream composes it, each part attributed",
        description="Compose the prompt upstream's worker gives the model for one task "
        "(ProtocolHandler._build_task_prompt): the task's design-time context, else the feature's spec, then "
        "the task's header, description, files, verification and instructions.  text: exactly the prompt; "
        "md: where each part comes from and what it costs, and a design-time context beside what the "
        "profile's plugin assembles now; json: all of it.  Exit 1 when upstream itself raises on the task.",
    )
    p.add_argument("project")
    p.add_argument("--feature", required=True)
    p.add_argument("--task", required=True)
    _add_budget(p)
    _add_profile(p)
    _add_set(p)
    _add_report_output(p)
    p.set_defaults(func=cmd_prompt)

    p = sub.add_parser(
        "verify",
        allow_abbrev=False,
        help="run an installed upstream plugin over every task and compare its text with ctxviewer's",
        description="Run the context plugin installed in the given interpreter (zerg-ai or mahabharatha) over "
        "every task and compare each text with the profile of its version (or of the version chosen with "
        "--set upstream=... / --profile).  The project is not written to.  Exit 0 all identical, 1 some "
        "differ (each named with its first differing line), 2 bad input (no such interpreter, no upstream "
        "package in it).",
    )
    p.add_argument("project")
    p.add_argument("--upstream-python", required=True, metavar="PATH", help="the interpreter with zerg-ai installed")
    p.add_argument("--feature", help="only this feature")
    _add_budget(p)
    _add_profile(p)
    _add_set(p)
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.set_defaults(func=cmd_verify)

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
    p.add_argument(
        "--format",
        choices=("markdown", "md", "json", "html"),
        help="html: the report of the run with --set, the diff against the baseline included "
        "(default: from the -o file's extension, .md/.txt, .json, .html; else markdown)",
    )
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
    _add_report_output(p)
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
    _add_budget(p)
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
    except UnicodeEncodeError as exc:  # a lone surrogate the loaders did not catch (a file name's bytes)
        bad = exc.object[exc.start : exc.end] if isinstance(exc.object, str) else ""
        _err(
            f"cannot write the output: it holds {bad.encode('unicode_escape').decode('ascii')}, half of a UTF-16 "
            "surrogate pair (from a name that is not valid UTF-8?), which is not text"
        )
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        _err("interrupted")
        return 130
    except BrokenPipeError:
        _discard_stdout()
        return EXIT_OK
