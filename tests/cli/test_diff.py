"""``ctxviewer diff``: two revisions of a generated repository, its formats, the CI gate and refusals.

The repository (tests/factories.make_git_project) is worked by hand in
tests/engine/runs/test_revisions.py: from the first commit to the second, paragraph 6 of
requirements.md (line 11) enters and pushes paragraph 5 (line 9) out; the context goes from
28 to 29 heuristic tokens, +3.57%.
"""

from __future__ import annotations

import io
import json
import shutil
import sys
from pathlib import Path

import pytest

from ctxviewer.cli import common, main
from tests.cli.helpers import run
from tests.factories import REQUIREMENTS, make_git_project, write

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed: revision diffs need it")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_git_project(tmp_path / "proj")


def test_text_names_the_paragraphs_that_moved_and_the_spec_line(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "diff", str(repo), "--rev", "HEAD~1", "--rev", "HEAD", "--no-exact")
    assert (code, err) == (0, "")
    assert "A  HEAD~1 (" in out and "B  HEAD (" in out
    assert f"Files changed in the project (1): {REQUIREMENTS}" in out
    assert "context 28 \u2192 29 heuristic tokens (+1, +3.6%)" in out
    assert "entered paragraph 6 of requirements.md (line 11): not a candidate \u2192 included" in out
    assert f"cause (edit): its own text was edited: {REQUIREMENTS}, line 11" in out
    assert "left    paragraph 5 of requirements.md (line 9): included \u2192 outranked" in out
    assert (
        f"cause (displaced): moved by paragraph 6 of requirements.md (line 11), which entered (edit: {REQUIREMENTS}:11)"
    ) in out


def test_json_lists_changes_and_causes(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "diff", str(repo), "--rev", "HEAD~1", "--rev", "HEAD", "--format", "json", "--no-exact")
    assert code == 0
    data = json.loads(out)
    assert (data["a"]["name"], data["b"]["name"]) == ("HEAD~1", "HEAD")
    [task] = data["tasks"]
    assert (task["tokens_before"], task["tokens_after"]) == (28, 29)
    assert task["growth_percent"] == pytest.approx(100 / 28, abs=0.001)
    moved = {
        c["item_id"]: (c["change"], [(k["kind"], k["file"], k["lines"]) for k in c["causes"]]) for c in task["changes"]
    }
    assert moved == {
        "requirements:6": ("entered", [("edit", REQUIREMENTS, [[11, 11]])]),
        "requirements:5": ("left", [("displaced", REQUIREMENTS, [[11, 11]])]),
    }


def test_working_tree_is_b_when_one_rev_is_given(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "diff", str(repo), "--rev", "HEAD", "--no-exact")
    assert code == 0
    assert "B  working tree" in out
    assert "Unchanged (1): feat/T1" in out


@pytest.mark.parametrize(("pct", "code"), [("3", 1), ("3.5", 1), ("3.6", 0), ("4%", 0), ("100", 0)])
def test_fail_if_grows_is_a_ci_gate(repo: Path, capsys: pytest.CaptureFixture[str], pct: str, code: int) -> None:
    # Grew 1/28 = 3.571...%: more than 3 and 3.5, not more than 3.6.
    got, _, err = run(
        capsys, "diff", str(repo), "--rev", "HEAD~1", "--rev", "HEAD", "--no-exact", "--fail-if-grows", pct
    )
    assert got == code
    if code:
        assert err.startswith("ctxviewer: feat/T1: context grew +3.6% (28 \u2192 29 tokens), more than the ")
    else:
        assert err == ""


def test_a_shrinking_context_passes_the_gate(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "diff", str(repo), "--rev", "HEAD", "--rev", "HEAD~1", "--no-exact", "--fail-if-grows", "0"
    )
    assert code == 0 and "(\u22121, \u22123.4%)" in out  # 29 -> 28: -1/29


def test_html_is_self_contained_and_escaped(repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    graph = repo / ".gsd/specs/feat/task-graph.json"
    data = json.loads(graph.read_text(encoding="utf-8"))
    data["tasks"][0]["title"] = "Login session <script>alert(1)</script>"
    write(repo, ".gsd/specs/feat/task-graph.json", json.dumps(data))
    out_file = tmp_path / "diff.html"
    code, out, _ = run(capsys, "diff", str(repo), "--rev", "HEAD~1", "--no-exact", "-o", str(out_file))
    assert (code, out) == (0, "")
    page = out_file.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>")
    assert "<script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "src=" not in page and "href=" not in page  # nothing fetched
    assert "paragraph 6 of requirements.md (line 11)" in page
    assert f"<td><code>{REQUIREMENTS}:11</code></td>" in page  # the Edit at column


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--rev", "nope"], "'nope': no such revision"),
        (["--rev=--output=x"], "cannot start with '-'"),
        (["--rev", "HEAD", "--rev", "HEAD", "--rev", "HEAD"], "give --rev once"),
        ([], "give --rev once"),
        (["--rev", "HEAD", "--feature", "nope"], "no feature 'nope'"),
        (["--rev", "HEAD", "--task", "T9"], "no task 'T9'"),
        (["--rev", "HEAD", "-o", "x.pdf"], "cannot tell the output format"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    repo: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, out, err = run(capsys, "diff", str(repo), "--no-exact", *argv)
    assert code == 2 and out == ""
    assert err.startswith("ctxviewer: ") and message in err and err.count("\n") == 1


def test_not_a_repository_and_git_missing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    code, _, err = run(capsys, "diff", str(plain), "--rev", "HEAD")
    assert code == 2 and "not in a git repository" in err
    monkeypatch.setenv("PATH", str(plain))
    code, _, err = run(capsys, "diff", str(plain), "--rev", "HEAD")
    assert code == 2 and err == "ctxviewer: git is not installed (or not on PATH); it is needed to read revisions\n"


def test_percent_must_be_a_number(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        run(capsys, "diff", str(repo), "--rev", "HEAD", "--fail-if-grows", "lots")
    assert exc.value.code == 2
    assert "'lots' is not a percentage" in capsys.readouterr().err


def test_a_repository_whose_git_folder_is_elsewhere_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    elsewhere = make_git_project(tmp_path / "elsewhere")
    proj = tmp_path / "proj"
    shutil.copytree(elsewhere, proj, ignore=shutil.ignore_patterns(".git"))
    write(proj, ".git", f"gitdir: {elsewhere / '.git'}\n")
    code, out, err = run(capsys, "diff", str(proj), "--rev", "HEAD~1", "--no-exact")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "revisions not read: .git is a file pointing to" in err


def test_a_filter_of_the_repository_does_not_run_from_the_command(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import os
    import subprocess

    mark = tmp_path / "mark"
    subprocess.run(
        ["git", "-C", str(repo), "config", "filter.evil.clean", f"sh -c 'touch {mark}; cat'"],
        check=True,
        env={**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull},
    )
    write(repo, ".git/info/attributes", "* filter=evil\n")
    for path in repo.rglob("*"):
        if ".git" not in path.parts and path.is_file():
            os.utime(path, (1_000_000_000, 1_000_000_000))
    code, out, err = run(capsys, "diff", str(repo), "--rev", "HEAD~1", "--no-exact")
    assert (code, err) == (0, "") and "B  working tree" in out
    assert not mark.exists()


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_on_a_terminal_stderr_is_erased_and_stays_out_of_stdout(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(common, "PROGRESS_SECONDS", 0.0)  # every report drawn
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert main(["diff", str(repo), "--rev", "HEAD~1", "--rev", "HEAD", "--no-exact"]) == 0
    out = capsys.readouterr().out
    shown = terminal.getvalue()
    # Reading A first, the one task, then done; the line erased at the end.
    assert shown.startswith("\r\x1b[Kctxviewer: diff:   0% (reading HEAD~1")
    assert shown.endswith("\r\x1b[Kctxviewer: diff: 100% (done)\r\x1b[K")
    assert "\n" not in shown and "\r" not in out and "context 28 \u2192 29 heuristic tokens" in out
