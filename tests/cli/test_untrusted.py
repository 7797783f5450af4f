"""The CLI on an untrusted project (issue 15): terminals and spreadsheets see no active content.

* Every string from a project that the CLI prints for a person -- ``check`` and ``split``
  lines, ``follow``'s status, every stderr message -- shows control characters visibly
  (``\\x1b``, ``\\u202e``): ESC sequences, C1 controls, bidi overrides, and newlines or
  carriage returns that would start or overwrite a line.  Data (a context, JSON) goes to
  files and pipes as it is, and is escaped only when stdout is a terminal.
* ``batch --format csv`` neutralises text cells that a spreadsheet would read as a
  formula (a leading ``=``, ``+``, ``-``, ``@``, tab or carriage return gets a ``'``); our
  own numeric columns stay numbers; a carriage return in a cell becomes a (quoted) line feed.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from ctxviewer.cli import common, main
from ctxviewer.engine.exports import terminal
from tests.factories import make_project, write

ESC_FEATURE = "f\x1b[2J"  # clear the screen
ESC_TASK = "T\x1b]0;pwned\x07"  # set the window title
REQ = "Login session store."
#: The mahabharatha context of a task titled "Login session" with no rule files:
#: "## Relevant Requirements" (24) + "\n\n" (2) + REQ (20) = 46 characters, 11 estimated tokens.
CONTEXT = f"## Relevant Requirements\n\n{REQ}"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def hostile(root: Path, task_id: str = ESC_TASK, feature: str = ESC_FEATURE, title: str = "Login session") -> Path:
    return make_project(root, [{"id": task_id, "title": title, "files": {}}], requirements=REQ, feature=feature)


def test_visible_escapes_what_a_terminal_acts_on_and_nothing_else() -> None:
    text = "a\x1b[2Jb\x9b1m\u202eevil\u2066\x00\x7f\r\n\tcaf\u00e9 \u65e5"
    assert terminal.visible(text) == "a\\x1b[2Jb\\x9b1m\\u202eevil\\u2066\\x00\\x7f\\x0d\\x0a\\x09caf\u00e9 \u65e5"
    kept_lines = "a\\x1b[2Jb\\x9b1m\\u202eevil\\u2066\\x00\\x7f\\x0d\n\tcaf\u00e9 \u65e5"
    assert terminal.visible(text, lines=True) == kept_lines


def test_check_shows_an_escape_sequence_in_a_feature_and_task_id_visibly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = hostile(tmp_path / "p")
    code, out, err = run(capsys, "check", str(root), "--max-tokens", "1", "--tokenizer", "heuristic")
    assert (code, err) == (1, "")
    assert out == (
        "OVER  f\\x1b[2J/T\\x1b]0;pwned\\x07: 11 heuristic tokens > 1\n1 of 1 task over 1 heuristic tokens\n"
        # the project has no security rules, so that section is empty (a warning, not failing)
        "no finding fails; not failing: section-empty 1\n"
    )


def test_a_task_id_cannot_forge_a_line_of_the_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = hostile(tmp_path / "p", task_id="T1: 1 tokens > 4,000\r0 of 2 tasks over 4,000", feature="feat")
    code, out, _ = run(capsys, "check", str(root), "--max-tokens", "1", "--tokenizer", "heuristic")
    assert code == 1
    assert out == (
        "OVER  feat/T1: 1 tokens > 4,000\\x0d0 of 2 tasks over 4,000: 11 heuristic tokens > 1\n"
        "1 of 1 task over 1 heuristic tokens\n"
        "no finding fails; not failing: section-empty 1\n"
    )


def test_stderr_messages_show_project_names_visibly(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = hostile(tmp_path / "p")
    write(root, f".gsd/specs/{ESC_FEATURE}/task-graph.json", "{\n")
    code, out, err = run(capsys, "batch", str(root))
    assert (code, out) == (2, "")
    assert err == (
        "ctxviewer: .gsd/specs/f\\x1b[2J/task-graph.json:2: invalid JSON: Expecting property name enclosed in "
        "double quotes (column 1)\n"
    )
    code, out, err = run(capsys, "assemble", str(root), "--feature", "feat\u202e", "--task", "T1")
    assert (code, out) == (2, "")
    assert "\u202e" not in err and "\x1b" not in err and "feat\\u202e" in err


def test_split_shows_a_command_file_name_visibly(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = hostile(tmp_path / "p")
    write(root, ".claude/commands/x\x1b[31m.md", "# Red\n")
    assert run(capsys, "split", str(root), "--no-exact") == (
        0,
        "keep  .claude/commands/x\\x1b[31m.md: 2 lines (< 300), 1 est. tokens\n",
        "",
    )


def test_follow_shows_the_log_name_visibly(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "w\x1b[2J.jsonl"
    log.write_text('{"ts": 0, "event": "task_executed", "id": "A"}\n', encoding="utf-8")
    code, out, err = run(capsys, "follow", str(log), "--once")
    assert (code, err) == (0, "")
    assert out.startswith(f"following {tmp_path}/w\\x1b[2J.jsonl: 1 event: 500 / 200,000 tokens")
    assert "\x1b" not in out


def test_data_is_written_as_it_is_but_escaped_on_a_terminal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_project(tmp_path / "p", [{"id": "T1", "title": "Login session", "files": {}}], requirements=REQ)
    write(root, ".gsd/specs/feat/requirements.md", "Login session \x1b[2J store.\n\nOther.")
    argv = ("assemble", str(root), "--feature", "feat", "--task", "T1")
    context = "## Relevant Requirements\n\nLogin session \x1b[2J store."
    assert run(capsys, *argv) == (0, context, "")  # a pipe or a file gets the context itself
    monkeypatch.setattr(common, "is_terminal", lambda stream: True)
    assert run(capsys, *argv) == (0, "## Relevant Requirements\n\nLogin session \\x1b[2J store.", "")


def test_csv_cells_that_a_spreadsheet_would_evaluate_are_neutralised(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tasks = [
        {"id": "=1+1", "title": "Login session", "files": {}},
        {"id": "+T2", "title": "@SUM(A1:A9)", "files": {}},
        {"id": "-3", "title": "\tLogin", "files": {}},
        {"id": "T4", "title": "\rLogin", "files": {}},
        {"id": "T5", "title": "Plain -1 title", "files": {}},
    ]
    root = make_project(tmp_path / "p", tasks, requirements=REQ, feature="=cmd|'calc'!A0")
    out = tmp_path / "batch.csv"  # a file, read as written (a carriage return is kept)
    assert run(capsys, "batch", str(root), "--format", "csv", "--no-exact", "-o", str(out)) == (0, "", "")
    rows = list(csv.reader(io.StringIO(out.read_bytes().decode("utf-8"), newline="")))
    assert [row[:4] for row in rows[1:]] == [
        ["'=cmd|'calc'!A0", "'=1+1", "Login session", "4000"],
        ["'=cmd|'calc'!A0", "'+T2", "'@SUM(A1:A9)", "4000"],
        ["'=cmd|'calc'!A0", "'-3", "'\tLogin", "4000"],
        ["'=cmd|'calc'!A0", "T4", "'\nLogin", "4000"],  # a bare CR would end the row: a quoted LF
        ["'=cmd|'calc'!A0", "T5", "Plain -1 title", "4000"],
    ]
    # Our own numbers are numbers: the first row's context is CONTEXT, 46 characters, 11 tokens.
    header = rows[0]
    first = dict(zip(header, rows[1], strict=True))
    assert (first["context_chars"], first["heuristic_tokens"]) == ("46", "11")
    assert float(first["checkpoint_usage_percent"]) >= 0  # a number, not neutralised text
    assert not any(cell.startswith(("=", "+", "-", "@", "\t", "\r")) for row in rows[1:] for cell in row[:3])


IMG = '<img src="file:///etc/passwd">'


def outside_fences(markdown: str) -> str:
    """The Markdown with its fenced blocks taken out (their text is code: never rendered)."""
    kept, fence = [], ""
    for line in markdown.split("\n"):
        if fence:
            fence = "" if line == fence else fence
        elif line.startswith("```"):
            fence = line[: len(line) - len(line.lstrip("`"))]
        else:
            kept.append(line)
    return "\n".join(kept)


@pytest.mark.parametrize("argv", [("compare", "--profiles", "mahabharatha,drift"), ("whatif", "--set", "budget=3000")])
def test_markdown_reports_show_project_html_and_links_as_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: tuple[str, ...]
) -> None:
    task = f"T1{IMG}![x](file:///etc/shadow)"
    root = make_project(
        tmp_path / "p", [{"id": task, "title": "Login session", "files": {}}], requirements=f"Login session {IMG}."
    )
    fmt = ("--format", "md") if argv[0] == "compare" else ()
    code, out, err = run(capsys, argv[0], str(root), "--feature", "feat", "--task", task, *argv[1:], *fmt)
    assert (code, err) == (0, "")
    prose = outside_fences(out)
    assert "<img" not in prose and "[x](" not in prose  # neither HTML nor a link a viewer renders
    shown = 'T1&lt;img src="file:///etc/passwd"&gt;!\\[x\\](file:///etc/shadow)'
    assert f"Baseline {shown} (feat)" in prose
    if argv[0] == "compare":
        assert prose.startswith(f"## Compare {shown}: A `mahabharatha` vs B `drift`\n")


@pytest.mark.parametrize(
    ("path", "stream"),
    [
        ("/dev/stdout", "standard output"),
        ("/dev/stderr", "standard error"),
        ("/dev/fd/1", "standard output"),
        ("/proc/self/fd/2", "standard error"),
        ("/dev/fd/7", "file descriptor 7"),
    ],
)
def test_an_output_that_is_a_stream_is_refused_as_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], path: str, stream: str
) -> None:
    # Written "through" such a name, an atomic write replaced the file a shell had opened
    # (`-o /dev/stdout >> log` lost the log) or, on a pipe, was refused as a missing link.
    root = make_project(tmp_path / "p", [{"id": "T1", "title": "Login session", "files": {}}], requirements=REQ)
    code, out, err = run(capsys, "assemble", str(root), "--feature", "feat", "--task", "T1", "-o", path)
    assert (code, out) == (2, "")
    assert err == (
        f"ctxviewer: {path}: is {stream}, a stream, not a file: ctxviewer writes files atomically (a new file "
        "renamed into place); give -o - or leave out -o to write to standard output\n"
    )


def test_list_and_why_keep_hostile_text_on_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A title and a paragraph carrying a terminal escape and a line break: shown escaped, on one line.
    root = make_project(
        tmp_path / "p",
        [{"id": "T1", "title": "Login \x1b[31mred\x1b[0m\nsecond line", "files": {}}],
        requirements="Login \x1b]0;owned\x07 flow.",
    )
    code, out, _ = run(capsys, "list", str(root))
    assert code == 0 and "\x1b" not in out and "\x07" not in out
    [row] = [line for line in out.splitlines() if line.startswith("  T1 ")]
    assert row.endswith("Login \\x1b[31mred\\x1b[0m second line")
    code, out, _ = run(capsys, "why", str(root), "--feature", "feat", "--task", "T1", "flow")
    assert code == 0 and "\x1b" not in out and "\x07" not in out
    assert "   text: Login \\x1b]0;owned\\x07 flow." in out.splitlines()
