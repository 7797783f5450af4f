"""``ctxviewer bisect``: a task through part of the generated history, as text and JSON, and refusals.

The history (tests/factories.make_bisect_repo) is worked by hand in
tests/engine/runs/test_bisection.py.  These tests take yaml-top5..t2-title: seven commits
(yaml-top6, yaml-top5-again, gsd-notes, third-feature, rule-python, t1-title, t2-title), of
which all but gsd-notes touch a file T1's run reads (six assembled) and three change its
context: top_k 5 -> 6 brings paragraph 5 (line 9) back, 6 -> 5 sends it out again, and T1's
title losing 'session' drops paragraph 6 to score 1, outranked by paragraphs 1-5.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.cli.helpers import run
from tests.factories import make_bisect_repo

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed: bisect needs it")


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    root = tmp_path_factory.mktemp("bisect-cli") / "proj"
    return root, make_bisect_repo(root)


def _range(shas: dict[str, str]) -> str:
    return f"{shas['yaml-top5']}..{shas['t2-title']}"


def test_text_lists_each_commit_that_changed_the_context_with_its_inputs_and_causes(
    history: tuple[Path, dict[str, str]], capsys: pytest.CaptureFixture[str]
) -> None:
    root, shas = history
    code, out, err = run(capsys, "bisect", str(root), "--feature", "feat", "--task", "t1", "--rev", _range(shas))
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0] == f"Bisect of {root}: feat/T1, its assembled context"
    assert lines[1].endswith(": 7 commits along the first parents")
    assert lines[2].startswith("Assembled 6 of them")
    assert "3 commits changed its assembled context, oldest first:" in lines
    heads = [ln for ln in lines if ln[:7] in {shas[k][:7] for k in shas}]
    assert heads == [
        f"{shas['yaml-top6'][:7]}  yaml-top6",
        f"{shas['yaml-top5-again'][:7]}  yaml-top5-again",
        f"{shas['t1-title'][:7]}  t1-title",
    ]
    assert "  inputs touched: ctxviewer.yaml" in lines
    assert "  inputs touched: .gsd/specs/feat/task-graph.json" in lines
    assert "  entered paragraph 5 of requirements.md (line 9): outranked \u2192 included" in lines
    assert "          cause (setting): setting top_k: 5 \u2192 6 (set in ctxviewer.yaml)" in lines


def test_json_has_the_schema_version_the_full_commit_ids_and_the_number_assembled(
    history: tuple[Path, dict[str, str]], capsys: pytest.CaptureFixture[str]
) -> None:
    root, shas = history
    code, out, _ = run(
        capsys, "bisect", str(root), "--feature", "feat", "--task", "T1", "--rev", _range(shas), "--format", "json"
    )
    assert code == 0
    data = json.loads(out)
    assert (data["schema_version"], data["what"], data["commits_in_range"], data["assembled"]) == (
        "1.0",
        "context",
        7,
        6,
    )
    assert [c["commit"] for c in data["changes"]] == [shas[k] for k in ("yaml-top6", "yaml-top5-again", "t1-title")]
    first = data["changes"][0]
    assert (first["inputs"], first["merge"], first["parents"]) == (["ctxviewer.yaml"], False, [shas["yaml-top5"]])
    [moved] = first["candidates"]
    assert (moved["item_id"], moved["change"], moved["causes"][0]["kind"]) == ("requirements:5", "entered", "setting")


def test_a_range_without_a_change_says_so_and_exits_0(
    history: tuple[Path, dict[str, str]], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    root, shas = history
    out_file = tmp_path / "b.json"
    rev = f"{shas['yaml-top5-again']}..{shas['gsd-notes']}"  # .gsd/notes.md: nothing T1 reads
    code, out, err = run(capsys, "bisect", str(root), "--feature", "feat", "--task", "T1", "--rev", rev)
    assert (code, err) == (0, "")
    assert "Assembled 0 of them" in out and "No commit in the range changed its assembled context." in out
    code, out, _ = run(
        capsys, "bisect", str(root), "--feature", "feat", "--task", "T1", "--rev", rev, "-o", str(out_file)
    )
    data = json.loads(out_file.read_text(encoding="utf-8"))
    assert (code, out, data["changes"], data["assembled"]) == (0, "", [], 0)


def test_window_lists_the_memory_file(history: tuple[Path, dict[str, str]], capsys: pytest.CaptureFixture[str]) -> None:
    root, shas = history
    rev = f"{shas['claude-add']}..{shas['claude-edit']}"
    code, out, _ = run(
        capsys, "bisect", str(root), "--feature", "feat", "--task", "T1", "--rev", rev, "--what", "window"
    )
    assert code == 0
    assert f"{shas['claude-edit'][:7]}  claude-edit" in out
    # Only the worktree's copy loads (the main checkout's is listed, its text unseen): one block changed.
    blocks = [ln for ln in out.splitlines() if ln.startswith("  changed ")]
    assert len(blocks) == 1 and blocks[0].startswith("  changed    CLAUDE.md [worktree] (")
    assert "             edit: CLAUDE.md, lines 2-3" in out


@pytest.mark.parametrize(
    ("rev", "message"),
    [
        ("nope..HEAD", "'nope': no such revision (commit, branch or tag) in this repository"),
        ("HEAD..HEAD~3", "no commit is in the range: HEAD~3 ("),
        ("HEAD", "'HEAD': write the range A..B"),
        ("HEAD~1..HEAD~1", "are the same commit"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    history: tuple[Path, dict[str, str]], capsys: pytest.CaptureFixture[str], rev: str, message: str
) -> None:
    root, _shas = history
    code, out, err = run(capsys, "bisect", str(root), "--feature", "feat", "--task", "T1", "--rev", rev)
    assert (code, out) == (2, "")
    assert err.count("\n") == 1 and err.startswith("ctxviewer: ") and message in err


def test_an_unknown_task_and_a_folder_outside_git_are_one_line(
    history: tuple[Path, dict[str, str]], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    root, _shas = history
    code, out, err = run(capsys, "bisect", str(root), "--feature", "feat", "--task", "T77", "--rev", "HEAD~1..HEAD")
    assert (code, out) == (2, "")
    assert "no task 'T77' in feature 'feat' at HEAD (" in err and err.count("\n") == 1
    code, out, err = run(capsys, "bisect", str(tmp_path), "--feature", "f", "--task", "t", "--rev", "HEAD~1..HEAD")
    assert (code, out) == (2, "")
    assert (
        err
        == f"ctxviewer: {tmp_path}: not in a git repository: revisions need one (git init, then commit the project)\n"
    )
