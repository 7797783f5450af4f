"""Exit codes the command line must not lose: bad input a run measured past, a reader that
went away, a console that cannot show a task id, and option values that would crash."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ctxviewer.cli import main
from tests.factories import make_project, write

REPO = Path(__file__).resolve().parents[2]
REQ = ".gsd/specs/feat/requirements.md"
DESIGN = ".gsd/specs/feat/design.md"
CORE = ".claude/rules/security/_core/owasp-2025.md"
TASK = {"id": "T1", "title": "Login session", "files": {"create": ["src/app.py"]}}
PEERS = ("drift", "shaktiman", "ctxviewer")
AS_READ = "read as text all the same, as the real system does"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def run_module(*argv: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "ctxviewer", *argv],
        capture_output=True,
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO), **(env or {})},
        check=False,
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_project(
        tmp_path / "proj",
        [TASK],
        requirements="Login session store.\n\nUnrelated text.",
        design="Login screen.",
        rules={"_core/owasp-2025.md": "## Rule: A\n"},
    )


# -- check: bad input is exit 2, even when tasks are over too ------------------------------------


def test_check_bad_input_outranks_tasks_over_budget(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(project, REQ, "Login session store.\n\nCaf\u00e9 text.\n".encode("latin-1"))
    code, out, err = run(capsys, "check", str(project), "--max-tokens", "1")
    assert code == 2
    assert out.startswith("OVER  feat/T1: ") and "\n1 of 1 task over 1 heuristic tokens\n" in out
    assert err == (
        f"ctxviewer: feat/T1: {REQ}:3: not UTF-8 (byte 0xe9 at line 3) "
        "(the spec section is left out (the real system's read raises))\n"
    )


def test_check_keeps_quiet_about_pipeline_notes(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Not bad input: a files entry the pipeline fails on (fallback to an empty context) is as
    # in batch, not reported on stderr; the empty context it leaves is a failing finding.
    write(
        project,
        ".gsd/specs/feat/task-graph.json",
        '{"tasks": [{"id": "T1", "title": "Login session", "files": {"create": [7]}}]}',
    )
    code, out, err = run(capsys, "check", str(project))
    assert (code, err) == (1, "")
    assert out.startswith("ERROR   context-empty  feat/T1: The task's context is empty")
    assert "\n0 of 1 task over 4,000 heuristic tokens\n1 of 1 task has findings that fail: context-empty 1" in out


@pytest.mark.parametrize("profile", PEERS)
def test_check_names_binary_spec_and_rule_files_in_every_peer_profile(
    profile: str, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(project, DESIGN, "Login\x00 screen.\n")
    write(project, CORE, "## Rule: A\x00\n")
    code, out, err = run(capsys, "check", str(project), "--profile", profile)
    assert code == 2 and out.startswith("0 of 1 task over ")
    assert err == (
        f"ctxviewer: feat/T1: {CORE}: binary content (NUL bytes) in a rule file ({AS_READ})\n"
        f"ctxviewer: feat/T1: {DESIGN}: binary content (NUL bytes) in a spec file ({AS_READ})\n"
    )
    # assemble says the same and still writes the context (NUL and all)
    code, out, err = run(capsys, "assemble", str(project), "--feature", "feat", "--task", "T1", "--profile", profile)
    assert code == 2 and "\x00" in out
    assert err.count("binary content (NUL bytes)") == 2


@pytest.mark.parametrize("profile", PEERS)
def test_peer_profiles_name_a_files_value_that_is_not_a_list(
    profile: str, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    graph = ".gsd/specs/feat/task-graph.json"
    write(project, graph, '{"tasks": [{"id": "T1", "title": "Login session", "files": {"modify": 7, "read": null}}]}')
    code, _, err = run(capsys, "assemble", str(project), "--feature", "feat", "--task", "T1", "--profile", profile)
    # 'read: null' is YAML's empty list (`read:`), as in the reference: no files, no word
    assert (code, err) == (2, f"ctxviewer: {graph}: files.modify is int 7, not a list (ignored)\n")


# -- whatif and compare: bad input in either run is exit 2 ------------------------------------------


def test_whatif_and_compare_exit_2_on_bad_input(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(project, CORE, "## Rule: A\x00\n")
    base = (str(project), "--feature", "feat", "--task", "T1", "--no-exact")
    code, out, err = run(capsys, "whatif", *base, "--set", "top_k=1")
    assert code == 2 and out.startswith("## What-if") and err.count("binary content") == 1
    code, out, err = run(capsys, "compare", *base, "--profiles", "drift,shaktiman")
    assert code == 2 and out and err.count("binary content") == 1  # the same line once


# -- follow: intervals time.sleep cannot take ------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("nan", "--interval: nan is not a number of seconds"),
        ("inf", "--interval: inf is not a number of seconds"),
        ("1e12", "--interval: 1e+12 s is too long; use 86,400 s or less"),
    ],
)
def test_follow_refuses_an_interval_sleep_cannot_take(
    value: str, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, "follow", str(tmp_path / "x.jsonl"), "--interval", value) == (2, "", f"ctxviewer: {message}\n")


# -- stdout that cannot take the text, or that nobody reads ------------------------------------------


def test_reports_reach_a_console_that_cannot_encode_them(tmp_path: Path) -> None:
    root = make_project(tmp_path / "uni", [{"id": "\u4efb\u52a11", "title": "Login session"}], requirements="Login.")
    env = {"PYTHONIOENCODING": "ascii"}
    result = run_module("check", str(root), "--max-tokens", "1", env=env)
    assert result.returncode == 1 and b"Traceback" not in result.stderr
    assert result.stdout.decode("utf-8").startswith("OVER  feat/\u4efb\u52a11: ")
    log = write(tmp_path, "log.jsonl", '{"ts": 0, "event": "task_executed", "id": "A"}\n')  # ctxviewer's own format
    result = run_module("follow", str(log), "--once", env=env)
    assert result.returncode == 0 and b"Traceback" not in result.stderr
    assert "\u00b7" in result.stdout.decode("utf-8")


@pytest.mark.parametrize(
    ("argv", "bad", "code"),
    [
        (("check", "--max-tokens", "1"), False, 1),
        (("check", "--max-tokens", "1"), True, 2),
        (("batch", "--no-exact"), True, 2),
    ],
)
def test_a_reader_that_goes_away_does_not_turn_findings_into_success(
    argv: tuple[str, ...], bad: bool, code: int, project: Path
) -> None:
    if bad:
        write(project, REQ, b"Caf\xe9\n")
    proc = subprocess.Popen(
        [sys.executable, "-m", "ctxviewer", argv[0], str(project), *argv[1:]],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # the reader is gone before anything is written
    with proc.stderr:
        err = proc.stderr.read()
    assert proc.wait(timeout=60) == code
    assert b"Traceback" not in err and b"Exception ignored" not in err
