"""``batch --jobs``: two processes write the bytes one process writes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ctxviewer.engine.runs.parallel import effective_jobs
from tests.cli.helpers import run
from tests.factories import write


def _project(root: Path) -> Path:
    words = ["ledger", "audit", "refund", "session", "token", "webhook", "tenant", "invoice"]
    write(root, ".claude/rules/security/_core/owasp-2025.md", "## Rule: Validate input\n**Level**: strict\n")
    write(root, ".claude/rules/security/languages/python/CLAUDE.md", "## Rule: No eval\n**Level**: strict\n")
    for f in range(3):
        paragraphs = [f"The {words[(f + n) % 8]} flow keeps a {words[(n * 3) % 8]} record {n}." for n in range(30)]
        write(root, f".gsd/specs/feat-{f}/requirements.md", "\n\n".join(paragraphs) + "\n")
        write(root, f".gsd/specs/feat-{f}/design.md", "\n\n".join(reversed(paragraphs)) + "\n")
        tasks = [
            {
                "id": f"F{f}-{t:02d}",
                "title": f"{words[t % 8].title()} {words[(t + f) % 8]}",
                "description": f"Handle the {words[(t * 5) % 8]} case.",
                "files": {"create": [f"src/{words[t % 8]}.py"] if t % 2 else [], "modify": [], "read": []},
            }
            for t in range(40)
        ]
        write(root, f".gsd/specs/feat-{f}/task-graph.json", json.dumps({"tasks": tasks}))
    return root


@pytest.mark.parametrize(("fmt", "exact"), [("jsonl", []), ("jsonl", ["--no-exact"]), ("csv", ["--no-exact"])])
def test_two_processes_write_the_bytes_one_writes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fmt: str, exact: list[str]
) -> None:
    root = _project(tmp_path / "p")
    assert effective_jobs(2, 120) == 2  # the batch below really runs in two processes
    one = run(capsys, "batch", str(root), "--format", fmt, "--jobs", "1", *exact)
    two = run(capsys, "batch", str(root), "--format", fmt, "--jobs", "2", *exact)
    assert one[0] == 0
    assert two == one
    assert len(one[1].splitlines()) == 120 + (fmt == "csv")


def test_jobs_below_one_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "batch", str(_project(tmp_path / "p")), "--jobs", "0")
    assert (code, out) == (2, "")
    assert err.strip() == "ctxviewer: --jobs must be at least 1, not 0"


def test_an_output_file_gets_the_same_bytes_and_nothing_is_left_beside_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _project(tmp_path / "p")
    out = tmp_path / "out"
    out.mkdir()
    one, two = out / "one.jsonl", out / "two.jsonl"
    two.write_text("yesterday's rows\n", encoding="utf-8")
    assert run(capsys, "batch", str(root), "--no-exact", "--jobs", "1", "-o", str(one)) == (0, "", "")
    assert run(capsys, "batch", str(root), "--no-exact", "--jobs", "2", "-o", str(two)) == (0, "", "")
    assert two.read_bytes() == one.read_bytes()
    assert len(one.read_bytes().splitlines()) == 120
    assert sorted(p.name for p in out.iterdir()) == ["one.jsonl", "two.jsonl"]  # no parts, no staged file


def test_bad_input_in_rows_is_reported_as_one_process_reports_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _project(tmp_path / "p")
    write(root, ".gsd/specs/feat-1/design.md", b"ok\n\xff\xfe bad\n")  # every task of feat-1 names it
    one = run(capsys, "batch", str(root), "--no-exact", "--jobs", "1")
    two = run(capsys, "batch", str(root), "--no-exact", "--jobs", "2")
    assert one[0] == 2
    assert two == one
    problems = one[2].splitlines()
    assert len(problems) == 40
    assert problems[0].startswith("ctxviewer: feat-1/F1-00: .gsd/specs/feat-1/design.md:2: not UTF-8")
    assert len(one[1].splitlines()) == 120  # every row is still written


@pytest.mark.parametrize(
    "args",
    [
        ["--feature", "zzz"],  # refused before any row
        ["-o", "missing-folder/rows.jsonl"],  # the output cannot be staged
        ["-o", "."],  # a folder
    ],
)
def test_refusals_are_one_process_refusals(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, args: list[str]
) -> None:
    root = _project(tmp_path / "p")
    monkeypatch.chdir(tmp_path)
    one = run(capsys, "batch", str(root), "--no-exact", "--jobs", "1", *args)
    two = run(capsys, "batch", str(root), "--no-exact", "--jobs", "2", *args)
    assert one[0] == 2 and one[2].count("\n") == 1
    assert two == one
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p"]


def test_token_records_are_the_same_from_two_processes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _project(tmp_path / "p")
    argv = ["batch", str(root), "--format", "tokens", "--set", "upstream=zerg-ai-0.3.2"]
    one = run(capsys, *argv, "--jobs", "1")
    two = run(capsys, *argv, "--jobs", "2")
    assert one[0] == two[0] == 0 and one[2] == two[2] == ""

    def untimed(out: str) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(out)
        for record in data["tasks"].values():
            del record["timestamp"]  # when each record was made, as upstream writes it
        return data

    assert untimed(two[1]) == untimed(one[1])
    assert list(untimed(one[1])["tasks"]) == [f"F{f}-{t:02d}" for f in range(3) for t in range(40)]


def test_workers_spawned_where_there_is_no_forkserver_write_the_same_bytes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import multiprocessing

    root = _project(tmp_path / "p")
    one = run(capsys, "batch", str(root), "--no-exact", "--jobs", "1")
    monkeypatch.setattr(multiprocessing, "get_all_start_methods", lambda: ["spawn"])  # as on Windows
    assert run(capsys, "batch", str(root), "--no-exact", "--jobs", "2") == one


def test_the_command_forks_its_workers_and_writes_the_bytes_one_process_writes(tmp_path: Path) -> None:
    """In a process of its own (as users run it; pytest's has threads of its own, so in it the
    workers come from the forkserver), ``--jobs 2`` forks its workers from the command."""
    import subprocess
    import sys

    root = _project(tmp_path / "p")
    outputs = []
    for jobs in ("1", "2"):
        out = tmp_path / f"jobs{jobs}.jsonl"
        done = subprocess.run(
            [sys.executable, "-m", "ctxviewer", "batch", str(root), "--jobs", jobs, "-o", str(out)],
            capture_output=True,
            text=True,
            check=False,
        )
        assert (done.returncode, done.stderr) == (0, "")
        outputs.append(out.read_bytes())
    assert outputs[1] == outputs[0]
    assert len(outputs[0].splitlines()) == 120
    assert sorted(p.name for p in tmp_path.iterdir()) == ["jobs1.jsonl", "jobs2.jsonl", "p"]
