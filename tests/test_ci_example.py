"""docs/examples/ctxviewer.yml, the workflow docs/ci.md shows: it is YAML a workflow can be, every
``ctxviewer`` command in it parses with ctxviewer's own parser, and its steps run as written on a
sample project (the shards joined are the whole batch; the diff gate passes on no change)."""

from __future__ import annotations

import os
import shlex
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from ctxviewer.cli.app import build_parser
from tests.conftest import REPO
from tests.factories import git

EXAMPLE = REPO / "docs" / "examples" / "ctxviewer.yml"
WORKFLOW = yaml.safe_load(EXAMPLE.read_text(encoding="utf-8"))
#: The matrix the batch job runs over, as the test substitutes it.
SHARDS = WORKFLOW["jobs"]["batch"]["strategy"]["matrix"]["shard"]


def run_steps(job: str) -> list[str]:
    """The shell of every ``run`` step of *job* that is not the install."""
    steps = WORKFLOW["jobs"][job]["steps"]
    return [s["run"] for s in steps if "run" in s and "pip install" not in s["run"]]


def commands(script: str, shard: int) -> list[list[str]]:
    """The ``ctxviewer`` command lines of *script*, split as the shell would (up to ``||`` or ``>``)."""
    out = []
    for line in script.replace("${{ matrix.shard }}", str(shard)).splitlines():
        words = shlex.split(line)
        if words[:1] == ["ctxviewer"]:
            cut = next((n for n, w in enumerate(words) if w in ("||", "&&", ">", "|", ";")), len(words))
            out.append(words[1:cut])
    return out


def test_it_is_a_workflow_with_the_jobs_docs_ci_md_describes() -> None:
    assert set(WORKFLOW["jobs"]) == {"check", "budget", "batch", "batch-joined"}
    uses = [s.get("uses", "") for job in WORKFLOW["jobs"].values() for s in job["steps"]]
    assert "github/codeql-action/upload-sarif@v3" in uses
    assert WORKFLOW["jobs"]["check"]["permissions"]["security-events"] == "write"
    assert WORKFLOW["jobs"]["batch-joined"]["needs"] == "batch"


def test_every_ctxviewer_command_in_it_parses() -> None:
    parser = build_parser()
    found = [argv for job in WORKFLOW["jobs"] for script in run_steps(job) for argv in commands(script, 1)]
    assert [argv[0] for argv in found] == ["check", "check", "diff", "batch"]
    for argv in found:
        args = parser.parse_args(argv)  # a wrong command or flag exits 2 here
        assert args.project == "."
    assert parser.parse_args(found[-1]).shard == (1, len(SHARDS))
    assert "--fail-if-grows" in found[2] and "--format" in found[0]


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed: the diff step needs it")
def test_its_steps_run_as_written_on_a_sample_project(tmp_path: Path) -> None:
    work = tmp_path / "ledger-service"
    shutil.copytree(REPO / "sample_projects" / "ledger-service", work)
    git(work, "init", "-q", "-b", "main")
    git(work, "add", "-A")
    git(work, "commit", "-q", "-m", "sample")
    git(work, "update-ref", "refs/remotes/origin/main", "HEAD")  # what a checkout with history has
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "ctxviewer"  # the console script, as this checkout's module
    script.write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} -m ctxviewer "$@"\n')
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    summary = tmp_path / "summary.md"
    env = {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        "PYTHONPATH": str(REPO),
        "GITHUB_STEP_SUMMARY": str(summary),
    }

    def sh(text: str) -> int:
        done = subprocess.run(["bash", "-c", text], cwd=work, env=env, capture_output=True, text=True, timeout=300)
        return done.returncode

    # check: the sample passes (no failing finding), so every step exits 0.
    assert [sh(s) for s in run_steps("check")] == [0, 0]
    assert summary.read_text().startswith("### ctxviewer check\n")
    assert (work / "ctxviewer.sarif").stat().st_size > 0
    # budget: nothing changed since origin/main, so nothing grew.
    assert [sh(s) for s in run_steps("budget")] == [0]
    # batch: each shard as its matrix job runs it, then the join.
    for shard in SHARDS:
        assert [sh(s.replace("${{ matrix.shard }}", str(shard))) for s in run_steps("batch")] == [0]
    assert [sh(s) for s in run_steps("batch-joined")] == [0]
    whole = subprocess.run(
        [sys.executable, "-m", "ctxviewer", "batch", "."], cwd=work, env=env, capture_output=True, timeout=300
    )
    assert (work / "batch.jsonl").read_bytes() == whole.stdout
