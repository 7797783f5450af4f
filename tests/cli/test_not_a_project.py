"""A folder that is not a project (no specs folder) is exit 2 and one line for every command."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ctxviewer.cli.app import build_parser
from tests.cli.helpers import run
from tests.conftest import OFFSCREEN

REPO = Path(__file__).resolve().parents[2]

#: What each command needs besides the folder to get as far as reading it.
MORE: dict[str, list[str]] = {
    "assemble": ["--feature", "f", "--task", "t"],
    "batch": [],
    "sweep": ["--budget", "1000"],
    "check": [],
    "list": [],
    "why": ["--feature", "f", "--task", "t", "text"],
    "prompt": ["--feature", "f", "--task", "t"],
    "window": ["--feature", "f", "--task", "t"],
    "verify": ["--upstream-python", sys.executable],
    "split": [],
    "whatif": ["--feature", "f", "--task", "t", "--budget", "1500"],
    "compare": ["--feature", "f", "--task", "t", "--profiles", "drift,shaktiman"],
    "diff": ["--rev", "HEAD"],
    "bisect": ["--feature", "f", "--task", "t", "--rev", "HEAD~1..HEAD"],
    "follow": ["--once"],
    "gui": ["--screenshot", "out.png"],
}


def test_every_command_is_here() -> None:
    [sub] = [a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)]
    # Every command that takes a project; ``schema`` prints what the package ships and takes none.
    assert set(MORE) | {"schema"} == set(sub.choices)


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "notes"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "readme.md").write_text("Not a project.\n", encoding="utf-8")
    return root


@pytest.mark.parametrize("command", sorted(MORE))
def test_a_folder_that_is_not_a_project_is_exit_2_in_one_line(
    command: str, folder: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(folder.parent)
    monkeypatch.setenv("QT_QPA_PLATFORM", OFFSCREEN)
    code, out, err = run(capsys, command, str(folder), *MORE[command])
    assert (code, out) == (2, "")
    assert err.count("\n") == 1 and err.startswith("ctxviewer: ") and "Traceback" not in err
    if command not in ("diff", "bisect", "follow"):  # no repository; no run's files: said in their own words
        assert f"{folder}: not a project: no specs folder .gsd/specs" in err
    assert not (folder.parent / "out.png").exists()


def test_a_repository_without_the_project_is_not_a_project_at_either_revision(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.factories import git

    git(folder, "init", "-q", "-b", "main")
    git(folder, "add", "-A")
    git(folder, "commit", "-q", "-m", "notes")
    code, out, err = run(capsys, "diff", str(folder), "--rev", "HEAD")
    assert (code, out) == (2, "")
    assert err == (
        f"ctxviewer: {folder}: not a project at HEAD ({git(folder, 'rev-parse', '--short', 'HEAD').strip()}) "
        "or at working tree: no specs folder .gsd/specs, where a project keeps its features "
        "(paths.specs in ctxviewer.yaml names another)\n"
    )


def test_the_process_says_it_in_one_line_too(folder: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "ctxviewer", "list", str(folder)],
        capture_output=True,
        text=True,
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        check=False,
    )
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr.count("\n") == 1 and "not a project" in result.stderr
