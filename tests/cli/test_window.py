"""``ctxviewer window``: every block a task's worker session starts with, in text, Markdown and JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctxviewer.cli import main
from tests.factories import make_project, write

RULE = "## Rule: Validate input\n**Level**: strict\n**When**: always\n"
TASKS = [{"id": "T1", "title": "Login", "files": {"modify": ["src/app.py"]}, "context": "Scoped notes."}]
WT = ".mahabharatha-worktrees/feat/worker-0"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = make_project(tmp_path / "proj", TASKS, requirements="Req.", rules={"languages/python/CLAUDE.md": RULE})
    write(root, "CLAUDE.md", "Be brief.\n")
    return root


def test_json_lists_every_block_in_order(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(
        capsys,
        "window",
        str(project),
        "--feature",
        "feat",
        "--task",
        "T1",
        "--set",
        "upstream=latest",
        "--format",
        "json",
    )
    assert (code, err) == (0, "")
    data = json.loads(out)
    assert data["folder"] == WT
    names = [(b["kind"], b["name"], b["loaded"]) for b in data["blocks"]]
    assert names == [
        ("estimate", "system_prompt", True),
        ("estimate", "tools", True),
        ("estimate", "user_memory", True),
        ("memory", "CLAUDE.md", False),
        ("memory", ".claude/rules/security/languages/python/CLAUDE.md", False),
        ("memory", f"{WT}/CLAUDE.md", True),
        ("memory", f"{WT}/.claude/rules/security/languages/python/CLAUDE.md", True),
        ("prompt", "task_context", True),
        ("prompt", "header", True),
        ("prompt", "files", True),
        ("prompt", "instructions", True),
    ]
    memory = next(b for b in data["blocks"] if b["name"] == f"{WT}/CLAUDE.md")
    framing = f"Contents of {project}/{WT}/CLAUDE.md (project instructions, checked into the codebase):\n\n"
    assert memory["text"] == framing + "Be brief.\n"
    assert memory["counts"]["chars"] == len(framing) + len("Be brief.\n")
    # The total is the stated sizes plus every loaded block's cl100k_base count.
    counted = sum(b["counts"]["cl100k_base"] for b in data["blocks"] if b["kind"] != "estimate" and b["loaded"])
    assert data["total_tokens"] == 3200 + 11600 + 0 + counted
    assert data["stated_tokens"] == 14800
    rule = next(c for c in data["candidates"] if c["id"] == "rule:languages/python/CLAUDE.md")
    assert rule["reached"] == "memory"


def test_text_is_a_table_with_the_totals(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "window", str(project), "--feature", "feat", "--task", "T1", "--set", "worker_folder=root"
    )
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "Worker window: feat / T1"
    assert lines[1].startswith("Working folder: (the project root) -- worker.folder: root")
    assert lines[2].startswith("The worker gets project memory: 2 files, ")
    assert "CLAUDE.md" in out and "stated" in out
    assert "Candidates of the plugin that reached the worker: 1 yes, as project memory" in out


def test_markdown_and_an_unknown_task(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "window", str(project), "--feature", "feat", "--task", "T1", "--format", "md")
    assert code == 0 and out.startswith("# Worker window: feat / T1\n")
    assert "| # | block | load | tokens | cl100k | o200k | chars | source | note |" in out
    code, _, err = run(capsys, "window", str(project), "--feature", "feat", "--task", "NOPE")
    assert code == 2 and "NOPE" in err
