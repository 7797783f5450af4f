"""Bad input is one clear line naming the file (and line) and exit 2; what the run could still
measure is written first, and nothing outside the project is read.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.cli.helpers import run
from tests.factories import write


def test_no_such_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "assemble", str(tmp_path / "nope"), "--feature", "f", "--task", "t")
    assert code == 2 and out == ""
    assert err == f"ctxviewer: {tmp_path / 'nope'}: no such folder\n"


def test_unknown_feature_names_the_only_one(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "assemble", str(project), "--feature", "zzz", "--task", "T1")
    assert code == 2
    assert err.strip().endswith("no feature 'zzz' in .gsd/specs; the only feature is feat")


def test_unknown_task_says_none_is_close(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "assemble", str(project), "--feature", "feat", "--task", "T9")
    assert code == 2
    assert err == (
        "ctxviewer: .gsd/specs/feat/task-graph.json: no task 'T9' in feature 'feat'; "
        "none of the 2 tasks is close (ctxviewer list names them)\n"
    )


def test_malformed_json_names_line(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(project, ".gsd/specs/feat/task-graph.json", '{"tasks": [\n  {"id": "T1",}\n]}')
    code, _, err = run(capsys, "batch", str(project))
    assert code == 2
    assert err.startswith("ctxviewer: .gsd/specs/feat/task-graph.json:2: invalid JSON:")
    assert err.count("\n") == 1


def test_malformed_yaml_names_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "y"
    write(root, ".gsd/specs/feat/task-graph.yaml", "tasks:\n  - id: T1\n    title: [unclosed\n")
    code, _, err = run(capsys, "assemble", str(root), "--feature", "feat", "--task", "T1")
    assert code == 2
    assert err.startswith("ctxviewer: .gsd/specs/feat/task-graph.yaml:4: invalid YAML:")


def test_malformed_config_yaml(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(project, "ctxviewer.yaml", "budget:\n  total: lots\n")
    code, _, err = run(capsys, "assemble", str(project), "--feature", "feat", "--task", "T1")
    assert code == 2
    assert err == (
        "ctxviewer: ctxviewer.yaml: budget.total: must be a whole number of tokens (4000, 4,000 or 4k), not 'lots'\n"
    )


def test_non_utf8_spec_writes_output_then_exits_2(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(project, ".gsd/specs/feat/design.md", b"ok\n\xff\xfe bad\n")
    code, out, err = run(capsys, "assemble", str(project), "--feature", "feat", "--task", "T1")
    assert code == 2
    assert out.startswith("## Security Rules")  # the pipeline tolerates it: spec left out
    assert err.startswith("ctxviewer: .gsd/specs/feat/design.md:2: not UTF-8 (byte 0xff at line 2)")


def test_binary_spec_is_reported(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(project, ".gsd/specs/feat/requirements.md", "Alpha login\x00 flow.")
    code, _, err = run(capsys, "assemble", str(project), "--feature", "feat", "--task", "T1")
    assert code == 2
    assert "requirements.md: binary content (NUL bytes)" in err


def test_unreadable_spec(project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    real_open = os.open

    def guarded(path: object, flags: int, *args: object) -> int:
        if str(path).endswith("requirements.md"):
            raise PermissionError(13, "Permission denied")
        return real_open(path, flags, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "open", guarded)
    code, out, err = run(capsys, "assemble", str(project), "--feature", "feat", "--task", "T1")
    assert code == 2
    assert "requirements.md: cannot be read (Permission denied)" in err
    assert "## Relevant Design" in out  # the design file still counts, as in the real system


def test_task_path_outside_project_is_not_touched(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    secret = project.parent / "secret.py"
    secret.write_text("x" * 4000, encoding="utf-8")
    task = {"id": "T1", "title": "Login", "files": {"modify": ["../secret.py", str(secret)]}}
    write(project, ".gsd/specs/feat/task-graph.json", json.dumps({"tasks": [task]}))
    code, out, _ = run(capsys, "assemble", str(project), "--feature", "feat", "--task", "T1", "--format", "json")
    data = json.loads(out)
    assert code == 0
    assert data["tracker"]["files_read"] == 0
    notes = [f["note"] for f in data["tracker"]["files"]]
    assert any("goes above the project root" in n for n in notes)
    assert any("absolute path outside the project" in n for n in notes)
