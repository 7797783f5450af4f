"""``batch --jobs``: two processes write the bytes one process writes."""

from __future__ import annotations

import json
from pathlib import Path

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
