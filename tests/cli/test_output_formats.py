"""``-o``'s extension picks the output format (``--format`` wins, a contradiction is exit 2),
for every command that writes a file.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.helpers import CONTEXT_T1, CORE, run
from tests.factories import make_project


def test_assemble_o_html_writes_the_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_project(
        tmp_path / "p",
        [{"id": "T<1>&", "title": "Login", "files": {"create": ["src/app.py"]}}],
        requirements="Alpha login flow.",
        rules={"_core/owasp-2025.md": CORE},
    )
    out = tmp_path / "ctx.html"
    code, stdout, err = run(capsys, "assemble", str(root), "--feature", "feat", "--task", "T<1>&", "-o", str(out))
    assert (code, stdout, err) == (0, "", "")
    html = out.read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>\n")
    assert "T&lt;1&gt;&amp;" in html and "T<1>" not in html  # the task id, escaped
    assert "Alpha login flow." in html


def test_assemble_o_json_writes_the_trace_and_o_md_the_context(
    three_features: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = ["assemble", str(three_features), "--feature", "feat", "--task", "T1"]
    assert run(capsys, *base, "-o", str(tmp_path / "trace.JSON")) == (0, "", "")
    data = json.loads((tmp_path / "trace.JSON").read_text(encoding="utf-8"))
    assert (data["feature"], data["task_id"], data["context"]) == ("feat", "T1", CONTEXT_T1)
    assert data["context_tokens"]["cl100k_base"] > 0  # a trace file carries the exact counts
    for name in ("ctx.md", "ctx.markdown", "ctx.txt", "ctx"):  # no extension: the default, markdown
        assert run(capsys, *base, "-o", str(tmp_path / name)) == (0, "", "")
        assert (tmp_path / name).read_text(encoding="utf-8") == CONTEXT_T1


def test_format_html_writes_the_report_to_stdout(three_features: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "assemble", str(three_features), "--feature", "feat", "--task", "T1", "--format", "html")
    assert code == 0 and out.startswith("<!DOCTYPE html>\n") and out.endswith("</html>\n")


@pytest.mark.parametrize(
    ("argv", "name", "message"),
    [
        (
            ["--format", "json"],
            "out.html",
            "the extension '.html' means html, but --format says json; rename the file or drop --format",
        ),
        (
            ["--format", "html"],
            "out.md",
            "the extension '.md' means markdown, but --format says html; rename the file or drop --format",
        ),
        (
            [],
            "out.yaml",
            "cannot tell the output format from the extension '.yaml': use .md .markdown .txt for markdown; "
            ".json for json; .html .htm for html, or give --format",
        ),
    ],
)
def test_an_extension_that_does_not_say_the_format_is_one_line_and_exit_2(
    three_features: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], name: str, message: str
) -> None:
    out = tmp_path / name
    code, stdout, err = run(
        capsys, "assemble", str(three_features), "--feature", "feat", "--task", "T1", *argv, "-o", str(out)
    )
    assert (code, stdout) == (2, "")
    assert err == f"ctxviewer: {out}: {message}\n"
    assert not out.exists()


def test_an_unknown_extension_is_fine_when_format_says(
    three_features: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "context.prompt"
    assert (
        run(
            capsys,
            "assemble",
            str(three_features),
            "--feature",
            "feat",
            "--task",
            "T1",
            "--format",
            "md",
            "-o",
            str(out),
        )[0]
        == 0
    )
    assert out.read_text(encoding="utf-8") == CONTEXT_T1


def test_batch_whatif_compare_follow_the_extension_too(
    three_features: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, "batch", str(three_features), "--no-exact", "-o", str(tmp_path / "rows.csv"))[0] == 0
    rows = (tmp_path / "rows.csv").read_text(encoding="utf-8").splitlines()
    assert rows[0].startswith("feature,task,title,budget,") and len(rows) == 1 + 3  # T1, T2, B-001
    assert run(capsys, "batch", str(three_features), "--no-exact", "-o", str(tmp_path / "rows.jsonl"))[0] == 0
    lines = (tmp_path / "rows.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["task_id"] for line in lines] == ["B-001", "T1", "T2"]  # features in name order
    code, _, err = run(capsys, "batch", str(three_features), "-o", str(tmp_path / "rows.json"))
    assert code == 2 and "'.json'" in err and ".jsonl .ndjson for jsonl; .csv for csv" in err
    whatif = ["whatif", str(three_features), "--feature", "feat", "--task", "T1", "--set", "budget=1k", "--no-exact"]
    assert run(capsys, *whatif, "-o", str(tmp_path / "d.html"))[0] == 0
    html = (tmp_path / "d.html").read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>") and "What-if against the pinned baseline" in html
    assert run(capsys, *whatif, "-o", str(tmp_path / "d.json"))[0] == 0
    assert "sections" in json.loads((tmp_path / "d.json").read_text(encoding="utf-8"))
    compare = ["compare", str(three_features), "--feature", "feat", "--task", "T1", "--profiles", "mahabharatha,drift"]
    code, _, err = run(capsys, *compare, "-o", str(tmp_path / "c.html"))
    assert code == 2 and ".txt for text; .md .markdown for md; .json for json" in err


def test_list_and_why_write_o_files(three_features: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "list", str(three_features), "-o", str(tmp_path / "l.json")) == (0, "", "")
    assert json.loads((tmp_path / "l.json").read_text(encoding="utf-8"))["project"] == "proj"
    argv = ["why", str(three_features), "--feature", "feat", "--task", "T1", "alpha"]
    assert run(capsys, *argv, "-o", str(tmp_path / "w.txt")) == (0, "", "")
    assert (tmp_path / "w.txt").read_text(encoding="utf-8").startswith("'alpha' in feat/T1 ")


def test_o_dash_is_stdout_for_a_whole_text_and_a_stream(
    three_features: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    here = tmp_path / "here"
    here.mkdir()
    monkeypatch.chdir(here)
    assert run(capsys, "assemble", str(three_features), "--feature", "feat", "--task", "T1", "-o", "-") == (
        0,
        CONTEXT_T1,
        "",
    )
    code, out, err = run(capsys, "batch", str(three_features), "--no-exact", "--jobs", "1", "-o", "-")
    assert (code, err) == (0, "")
    rows = [json.loads(line) for line in out.splitlines()]
    assert [r["context"] for r in rows if (r["feature"], r["task_id"]) == ("feat", "T1")] == [CONTEXT_T1]
    assert list(here.iterdir()) == []  # no file named "-"
    # A file of that name is still one path away.
    assert run(capsys, "assemble", str(three_features), "--feature", "feat", "--task", "T1", "-o", "./-") == (0, "", "")
    assert (here / "-").read_text(encoding="utf-8") == CONTEXT_T1
