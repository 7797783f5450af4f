"""``ctxviewer prompt``: the worker's whole prompt, its report and its exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctxviewer.cli import main
from tests.factories import make_project

TASKS = [
    {"id": "T1", "title": "Login", "context": "Scoped\x1b[31m notes."},
    {"id": "T2", "title": "Broken", "files": ["a.py"]},  # upstream calls files.get: raises
    {"id": "T3", "verification": {"command": "pytest"}},  # no title: the id
]
TAIL = "## Instructions\nImplement the task as specified. Make all necessary changes.\n" \
    "Do NOT commit - the orchestrator handles commits."  # fmt: skip


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_project(tmp_path / "proj", TASKS, requirements="Req.", design=None)


def test_text_is_exactly_the_prompt(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "prompt", str(project), "--feature", "feat", "--task", "T3")
    assert (code, err) == (0, "")
    expected = "# Feature Context: feat\n\n## Requirements Summary\nReq.\n\n---\n\n"
    expected += "# Task: T3\n\n## Verification\nCommand: `pytest`\n\n" + TAIL
    assert out == expected


def test_json_by_extension_and_markdown_report(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "p.json"
    code, out, _ = run(capsys, "prompt", str(project), "--feature", "feat", "--task", "T1", "-o", str(target))
    assert (code, out) == (0, "")
    data = json.loads(target.read_text(encoding="utf-8"))
    assert data["uses"] == "task context"
    assert [p["name"] for p in data["parts"]] == ["task_context", "header", "instructions"]
    assert data["design_context"]["guidance_tokens"] == 4000
    assert data["design_context"]["stored"]["chars"] == len("Scoped\x1b[31m notes.")
    md = tmp_path / "p.md"
    code, _, _ = run(capsys, "prompt", str(project), "--feature", "feat", "--task", "T1", "-o", str(md))
    text = md.read_text(encoding="utf-8")
    assert code == 0
    assert "| task_context |" in text and "about 4,000 tokens" in text
    assert "```text\n# Task Context (Scoped)\nScoped\x1b[31m notes.\n# Task: Login\n" in text  # data in a file as is


def test_upstream_raising_is_exit_1_and_bad_input_exit_2(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "prompt", str(project), "--feature", "feat", "--task", "T2")
    assert (code, out) == (1, "")
    assert err.count("\n") == 1 and "AttributeError" in err
    code, _, err = run(capsys, "prompt", str(project), "--feature", "feat", "--task", "T9")
    assert code == 2 and err.count("\n") == 1 and "no task 'T9'" in err
    code, _, err = run(capsys, "prompt", str(project), "--feature", "feat", "--task", "T1", "-o", "x.csv")
    assert code == 2 and err.count("\n") == 1 and ".csv" in err
