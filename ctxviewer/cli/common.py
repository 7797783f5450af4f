"""What every command shares: the exit codes and the table ``--help`` ends with; opening a project
(a folder that is not one is exit 2); project text made safe for a terminal (:func:`visible`,
:func:`one_line`); writing output (atomically to ``-o``, else to stdout, as ``-o -`` asks too) and
the format an ``-o`` file's extension names; errors and notes as one line on stderr, and the exit code they call for;
the arguments every command words the same (``PROJECT``, ``--feature``, ``--task``, ``-v``), the
options of a run (``--budget``, ``--tokenizer``, ``--profile``, ``--set``) and the overrides they
make; long report lines wrapped.  Commands, options and exit codes: docs/cli.md.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import time
from collections.abc import Iterable, Sequence
from typing import Any, TypeAlias, TypeGuard

from ctxviewer.engine.errors import CtxViewerError
from ctxviewer.engine.exports.terminal import visible
from ctxviewer.engine.files.writing import (
    Producer,
    ScratchPart,
    atomic_write,
    atomic_write_stream,
    scratch_folder,
    take_scratch_part,
)
from ctxviewer.engine.tokens.counting import TOKENIZERS

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_BAD_INPUT = 2


#: The ``-o`` value that means standard output (a file of that name is ``./-``).
STDOUT = "-"
#: What every ``-o`` option says.
OUTPUT_HELP = "write here (atomically) instead of stdout; - is stdout"


def _to_file(output: str | None) -> TypeGuard[str]:
    return bool(output) and output != STDOUT


def write_out(text: str, output: str | None) -> None:
    if _to_file(output):
        atomic_write(output, text)
    else:
        # Data (a context, JSON, CSV) goes to files and pipes as it is; shown on a
        # terminal, what the terminal would act on is escaped.
        print_text(visible(text, lines=True) if is_terminal(sys.stdout) else text)


def stream_out(chunks: Iterable[str] | Producer, output: str | None) -> None:
    """Write *chunks* (whole lines) as they come: to *output* atomically (it appears when
    complete), else to stdout in pieces of about a megabyte, escaped on a terminal as
    :func:`write_out` does.  When the reader of stdout has gone the rest is not produced.

    *chunks* may be a producer of text and parts other processes wrote (``batch --jobs``):
    it is given a scratch folder for them (beside *output*, else a private temporary one).
    When the producer fails, what it produced before is still written to stdout (a file
    is left as it was), so the rows finished before a failure are out, however many
    processes made them.
    """
    if _to_file(output):
        atomic_write_stream(output, chunks)
        return
    if not callable(chunks):
        _stream_stdout(chunks)
        return
    with scratch_folder("ctxviewer-parts-") as folder:
        _stream_stdout(chunks(folder))


def _stream_stdout(chunks: Iterable[str | bytes | ScratchPart]) -> None:
    terminal = is_terminal(sys.stdout)
    # Gathered as bytes for a file or a pipe (a batch's JSON lines come as UTF-8: never decoded
    # and encoded again), as text for a terminal (escaped before it is shown).
    piece: list[Any] = []
    size = 0

    def flush() -> bool:
        nonlocal piece, size
        if not piece:
            return True
        if terminal:
            text, piece, size = "".join(piece), [], 0
            return print_text(visible(text, lines=True))
        data, piece, size = b"".join(piece), [], 0
        return print_text(data)

    try:
        for chunk in chunks:
            if isinstance(chunk, ScratchPart):
                if not (flush() and _print_part(chunk, terminal)):
                    return
                continue
            if terminal:
                piece.append(chunk.decode("utf-8") if isinstance(chunk, bytes) else chunk)
            else:
                piece.append(chunk if isinstance(chunk, bytes) else chunk.encode("utf-8"))
            size += len(chunk)
            if size >= STREAM_PIECE_CHARS and not flush():
                return
    except Exception:
        flush()
        raise
    finally:
        close = getattr(chunks, "close", None)
        if close is not None:  # a producer left early: its workers stop before their folder goes
            close()
    flush()


def _print_part(part: ScratchPart, terminal: bool) -> bool:
    """Write a part (UTF-8, whole lines) to stdout; False when the reader has gone."""
    if not terminal:
        return all(print_text(block) for block in take_scratch_part(part))
    pending = b""  # shown on a terminal: escaped a run of whole lines at a time, as pieces are
    for block in take_scratch_part(part):
        pending += block
        cut = pending.rfind(b"\n") + 1
        if cut and not print_text(visible(pending[:cut].decode("utf-8"), lines=True)):
            return False
        pending = pending[cut:]
    return print_text(visible(pending.decode("utf-8"), lines=True)) if pending else True


#: How much streamed output is gathered before one write to stdout.
STREAM_PIECE_CHARS = 1 << 20


def is_terminal(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


def print_text(text: str | bytes) -> bool:
    """Write *text* to stdout as UTF-8 whatever the locale's encoding (bytes as they are), and flush.

    Task ids, titles and paths come from the project and may be in any script: a console
    that cannot show them must not turn a report into a traceback.  When the reader has
    gone (``check ... | head -1``) the rest is discarded and False returned, so a command
    still ends with the exit code its findings call for, not 0.
    """
    stream = sys.stdout
    buffer = getattr(stream, "buffer", None)
    try:
        if buffer is None:  # a stdout replaced by a text-only stream
            stream.write(text.decode("utf-8") if isinstance(text, bytes) else text)
        else:
            stream.flush()  # anything written as text first stays first
            buffer.write(text if isinstance(text, bytes) else text.encode("utf-8"))
        stream.flush()
    except BrokenPipeError:
        discard_stdout()
        return False
    return True


def discard_stdout() -> None:
    """Point stdout at the null device, so nothing more (not the flush at exit) fails."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


def err(message: str) -> None:
    sys.stderr.write(f"ctxviewer: {visible(message)}\n")
    sys.stderr.flush()


class TerminalProgress:
    """A progress line on stderr, rewritten in place, for a long run whose stderr is a terminal.

    ``with TerminalProgress("sweep") as progress:`` gives a ``progress(stage, fraction)``
    callback for the engine, or None when stderr is not a terminal (a pipe, a file, a test):
    progress is never mixed into what a script reads.  The line is redrawn at most every
    :data:`PROGRESS_SECONDS` and erased when the run ends, however it ends (an error or
    Ctrl-C then says so on a clean line).
    """

    def __init__(self, what: str) -> None:
        self.what = what
        self.shown = False
        self.last = 0.0

    def __enter__(self) -> Any:
        return self.report if is_terminal(sys.stderr) else None

    def __exit__(self, *exc: object) -> None:
        if self.shown:
            with contextlib.suppress(OSError, ValueError):
                sys.stderr.write("\r\033[K")
                sys.stderr.flush()
        self.shown = False

    def report(self, stage: str, fraction: float) -> None:
        now = time.monotonic()
        if self.shown and now - self.last < PROGRESS_SECONDS:
            return
        self.last, self.shown = now, True
        line = visible(f"ctxviewer: {self.what}: {100 * fraction:3.0f}% ({stage})")[:PROGRESS_WIDTH]
        with contextlib.suppress(OSError, ValueError):
            sys.stderr.write(f"\r\033[K{line}")
            sys.stderr.flush()


#: How often a progress line is redrawn, and how wide it may be (it must not wrap to be erased).
PROGRESS_SECONDS = 0.2
PROGRESS_WIDTH = 79


#: A line of a text report longer than this is wrapped (docs/cli.md#long-lists)...
MAX_LINE = 200
#: ... into lines of at most this many characters, the later ones indented under the first.
WRAP_WIDTH = 120


def wrap_long_lines(text: str) -> str:
    """*text* (a report for a terminal) with each line over :data:`MAX_LINE` wrapped at spaces.

    The continuation lines are indented four more than the line, so the first still starts
    as it did (``ERROR   rule-cut  f/T1: ...`` stays findable with grep); a word longer than
    the width (a path) is kept whole.
    """
    import textwrap

    out = []
    for line in text.split("\n"):
        if len(line) <= MAX_LINE:
            out.append(line)
            continue
        indent = line[: len(line) - len(line.lstrip(" "))]
        out += textwrap.wrap(
            line,
            width=WRAP_WIDTH,
            subsequent_indent=indent + "    ",
            break_long_words=False,
            break_on_hyphens=False,
        )
    return "\n".join(out)


def json_text(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"


def versioned_json(schema: str, data: Any) -> str:
    """*data* as :func:`json_text`, its ``schema_version`` first (the version of *schema*)."""
    from ctxviewer.engine.exports.schemas import versioned

    return json_text(versioned(schema, data))


def finding_json(finding: Any) -> dict[str, Any]:
    """A finding in a row or a match: ``{code, severity, item, message}`` (the row says the task)."""
    return {"code": finding.code, "severity": finding.severity, "item": finding.item, "message": finding.message}


def parse_setting(text: str) -> tuple[str, Any]:
    """``KEY=VALUE`` from ``--set``; the value is read as YAML (numbers, booleans, mappings)."""
    from ctxviewer.engine.runs.compare import parse_assignment

    try:
        return parse_assignment(text)
    except CtxViewerError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def run_overrides(args: argparse.Namespace) -> dict[str, Any]:
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


def open_project(path: str, overrides: dict[str, Any] | None = None) -> Any:
    """The project at *path* with *overrides*; a folder that is not a project is bad input (exit 2)."""
    from ctxviewer.engine.project.loading import load_project, require_project

    return require_project(load_project(path, overrides))


def report_project_warnings(project: Any) -> None:
    for warning in project.warnings:
        err(f"note: {warning}")


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


def output_format(args: argparse.Namespace, by_suffix: dict[str, str], default: str) -> str:
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


def report_trace_errors(trace: Any) -> int:
    """Print the trace's errors to stderr; the exit code they call for."""
    return report_errors(trace.errors)


def report_two_runs(first: Any, second: Any) -> int:
    """Report the errors of two runs of one task; both read the same files, so each once."""
    code = report_trace_errors(second)
    return max(code, report_errors([e for e in first.errors if e not in second.errors]))


def report_errors(errors: Sequence[Any]) -> int:
    code = EXIT_OK
    for error in errors:
        if error.kind == "input":
            err(error.one_line())
            code = EXIT_BAD_INPUT
        else:
            err(f"note: {error.one_line()}")
            if "raises" in error.consequence and code == EXIT_OK:
                code = EXIT_FINDINGS
    return code


def report_row_input_errors(row: Any) -> int:
    """Name a batch row's bad input on stderr (``feature/task: ...``); the exit code it calls for."""
    problems = row_input_errors(row)
    for problem in problems:
        err(problem)
    return EXIT_BAD_INPUT if problems else EXIT_OK


def row_input_errors(row: Any) -> list[str]:
    """A batch row's bad input, one ``feature/task: ...`` line each."""
    return [f"{row.feature.name}/{row.task.id}: {e.one_line()}" for e in row.trace.errors if e.kind == "input"]


#: The exit codes, as ``ctxviewer --help`` ends with them (docs/cli.md#exit-codes says the same).
EXIT_CODES_HELP = """\
exit codes (every command):
  0    done: nothing found, no difference
  1    findings or differences: a task over budget or a failing finding (check), nothing
       matched (why), a task that differs (verify, follow --recorded), a context that grew
       too much (diff --fail-if-grows), a task upstream raises on (prompt), a pipeline
       that itself raised (fallback_to_full: false)
  2    bad input, said in one line on stderr: a folder that is not a project, an unknown
       feature or task, a bad option, setting or budget, a file that cannot be read
  130  interrupted (Ctrl-C)
"""


def exits(one: str | None = None) -> str:
    """The end of a command's description: its exit codes, *one* saying when it exits 1."""
    middle = f", 1 when {one}" if one else ""
    return f"Exit 0 when done{middle}, 2 on bad input (a folder that is not a project, an unknown id, a bad option)."


#: What a pipeline raising makes exit 1, for every command that assembles.
RAISED = "the pipeline itself raised (fallback_to_full: false)"


def add_project(p: argparse.ArgumentParser, *, optional: bool = False, help: str | None = None) -> None:
    """The project folder, as every command but ``follow`` takes it first."""
    p.add_argument(
        "project",
        metavar="PROJECT",
        nargs="?" if optional else None,
        help=help
        or "the project folder: the one holding the specs folder (.gsd/specs unless ctxviewer.yaml names another)",
    )


def add_feature(p: argparse.ArgumentParser, *, required: bool = True, help: str | None = None) -> None:
    p.add_argument(
        "--feature",
        metavar="F",
        required=required,
        help=help or "the feature: its folder under the specs folder (case ignored where only one fits)",
    )


def add_task(p: argparse.ArgumentParser, *, required: bool = True, help: str | None = None) -> None:
    p.add_argument(
        "--task",
        metavar="ID",
        required=required,
        help=help or "the task's id in the feature's task graph (case ignored where only one fits)",
    )


def add_verbose(p: argparse.ArgumentParser, what: str) -> None:
    """``-v``: a long list of the text output shown whole (it shows its count and first few)."""
    p.add_argument("-v", "--verbose", action="store_true", help=what)


def add_budget(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--budget",
        metavar="N",
        help="the task's context budget in tokens, written 4000, 4,000 or 4k (default: the project's)",
    )


def add_profile(p: argparse.ArgumentParser) -> None:
    from ctxviewer.engine.registry import PROFILES

    p.add_argument(
        "--profile",
        metavar="NAME",
        help=f"the assembly strategy: {', '.join(PROFILES)} (the same as --set profile=NAME)",
    )


def add_report_output(p: argparse.ArgumentParser) -> None:
    """A report's format (text, Markdown or JSON), exact counts, and where it goes."""
    p.add_argument(
        "--format",
        choices=("text", "md", "markdown", "json"),
        help="default: from the -o file's extension (.txt, .md, .json), else text",
    )
    p.add_argument("--no-exact", action="store_true", help="skip exact tiktoken counts")
    p.add_argument("-o", "--output", help=OUTPUT_HELP)


def add_run_options(p: argparse.ArgumentParser) -> None:
    """The settings of one run, as every command that assembles takes them."""
    add_budget(p)
    p.add_argument("--tokenizer", choices=TOKENIZERS, help="tokenizer used for decisions")
    add_profile(p)
    add_set(p)


def parse_shard(text: str) -> tuple[int, int]:
    """``K/N`` from ``--shard``: the K-th of N shards, 1 <= K <= N."""
    k_text, slash, n_text = text.strip().partition("/")
    try:
        k, n = int(k_text), int(n_text)
    except ValueError:
        k = n = 0
    if not slash or n < 1 or not 1 <= k <= n:
        raise argparse.ArgumentTypeError(f"{text!r}: write K/N, the K-th of N shards (1/4 to 4/4)")
    return k, n


def add_shard(p: argparse.ArgumentParser, joins: str) -> None:
    """``--shard K/N``: only the K-th of N contiguous runs of the tasks (docs/ci.md#shards)."""
    p.add_argument(
        "--shard",
        type=parse_shard,
        metavar="K/N",
        help="only the K-th of N equal runs of the tasks, in feature and task order, for a CI matrix; " + joins,
    )


def add_set(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--set",
        type=parse_setting,
        action="append",
        metavar="KEY=VALUE",
        help="override a setting (keys as in docs/ctxviewer-yaml.md, flat: budget, security_share, "
        "spec_share, top_k, threshold_percent, zones, ...); repeatable",
    )


#: What ``add_subparsers`` returns: each command's module adds its parser to it (``add_parser``).
Subparsers: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"
