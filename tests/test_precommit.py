"""``.pre-commit-hooks.yaml``: the ``ctxviewer-check`` hook, run as pre-commit runs it -- its entry,
its args, then the staged files its ``files`` pattern takes -- in a generated repository."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.conftest import REPO
from tests.factories import git, make_project, write

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

HOOKS = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))


def hook() -> dict:
    (found,) = [h for h in HOOKS if h["id"] == "ctxviewer-check"]
    return found


def run_hook(repo: Path) -> tuple[int | None, str]:
    """Run the hook on *repo*'s staged files as pre-commit would: not at all when its pattern
    takes none of them (None), else ``entry args files`` in the repository's root."""
    spec = hook()
    staged = git(repo, "diff", "--cached", "--name-only").split()
    files = [name for name in staged if re.search(spec["files"], name)]
    if not files:
        return None, ""
    entry = shlex.split(spec["entry"])
    assert entry[0] == "ctxviewer"  # the console script: run here as the module of this checkout
    command = [sys.executable, "-m", "ctxviewer", *entry[1:], *spec.get("args", []), *files]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run(command, cwd=repo, env=env, capture_output=True, text=True, timeout=120)
    return done.returncode, done.stdout + done.stderr


def test_the_hook_is_declared_as_pre_commit_reads_it() -> None:
    spec = hook()
    assert spec["language"] == "python" and spec["pass_filenames"] is True and spec["require_serial"] is True
    takes = re.compile(spec["files"])
    for name in (
        ".gsd/specs/auth/task-graph.json",
        ".gsd/specs/auth/requirements.md",
        "svc/.gsd/specs/auth/design.md",
        ".claude/rules/security/_core/owasp-2025.md",
        ".mahabharatha/config.yaml",
        ".zerg/config.yaml",
        "ctxviewer.yaml",
    ):
        assert takes.search(name), name
    for name in ("README.md", "src/app.py", ".gsd/notes.md", "docs/ctxviewer.yaml.md"):
        assert not takes.search(name), name


def test_the_hook_runs_check_on_commits_that_touch_what_decides_a_context(tmp_path: Path) -> None:
    t1 = {"id": "T1", "title": "Login session", "files": {"create": ["src/app.py"]}}
    repo = make_project(
        tmp_path / "repo",
        [t1],
        requirements="Alpha login flow.\n\nBeta session store.",
        rules={"_core/owasp-2025.md": "## Rule: A\n**Level**: strict\n"},
    )
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    assert run_hook(repo)[0] == 0  # every file staged: T1's context is fine
    git(repo, "commit", "-q", "-m", "first")
    write(repo, "README.md", "Nothing ctxviewer reads.\n")
    git(repo, "add", "README.md")
    assert run_hook(repo) == (None, "")  # the pattern takes no staged file: the hook is not run
    git(repo, "commit", "-q", "-m", "readme")
    # A second task whose context is empty ("Other work" matches no paragraph, has no files).
    t2 = {"id": "T2", "title": "Other work", "files": {}}
    write(repo, ".gsd/specs/feat/task-graph.json", json.dumps({"feature": "feat", "tasks": [t1, t2]}))
    git(repo, "add", "-A")
    code, out = run_hook(repo)
    assert code == 1 and "context-empty  feat/T2" in out
