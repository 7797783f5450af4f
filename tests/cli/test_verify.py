"""``ctxviewer verify``: the installed upstream plugin against ours (the oracle virtualenv of
test_upstream_oracle stands for a user's installation; skipped, saying why, without it)."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from ctxviewer.cli import main
from ctxviewer.engine.upstream.verify import first_difference
from tests.engine.profiles.test_upstream_oracle import SAMPLES, oracle  # noqa: F401  (a fixture)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _files(root: Path) -> dict[str, float]:
    return {str(p.relative_to(root)): p.stat().st_mtime for p in root.rglob("*")}


def test_first_difference() -> None:
    assert first_difference("a\nb\nc", "a\nb\nc") == (0, None, None)
    assert first_difference("a\nb\nc", "a\nB\nc") == (2, "b", "B")
    assert first_difference("a\nb", "a\nb\nc") == (3, None, "c")  # ours goes on
    assert first_difference("a\nb\n", "a\nb") == (3, "", None)  # a trailing newline is a line


def test_bad_interpreters_are_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "p"
    shutil.copytree(SAMPLES / "edge-cases", root, symlinks=True)
    code, out, err = run(capsys, "verify", str(root), "--upstream-python", str(tmp_path / "nope"))
    assert (code, out) == (2, "") and err.count("\n") == 1 and "no such interpreter" in err
    code, out, err = run(capsys, "verify", str(root), "--upstream-python", sys.executable)  # no zerg in ours
    assert (code, out) == (2, "") and err.count("\n") == 1 and "no zerg or mahabharatha package" in err


def test_a_sample_is_identical_and_the_seed_is_not(
    oracle: str,  # noqa: F811
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    root = tmp_path / "storefront-web"
    shutil.copytree(SAMPLES / "storefront-web", root, symlinks=True)
    before = _files(root)
    code, out, err = run(capsys, "verify", str(root), "--upstream-python", oracle, "--set", "tdd_mode=1")
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0].startswith("upstream zerg 0.3.2 (") and "against profile zerg-0.3.2" in lines[0]
    assert lines[-1] == "16 of 16 tasks identical"
    assert _files(root) == before  # the plugin's token records are never written
    # Against the seed's pipeline every task differs, each named with its first differing line.
    code, out, _ = run(capsys, "verify", str(root), "--upstream-python", oracle, "--set", "upstream=2026-01-30")
    assert code == 1
    diffs = [line for line in out.splitlines() if line.startswith("DIFF  ")]
    assert len(diffs) == 16 and out.splitlines()[-1] == "0 of 16 tasks identical"
    assert any(
        ": line 1: upstream '## Relevant Requirements' / ctxviewer '## Security Rules (task-scoped)'" in d
        for d in diffs
    )


def test_the_graph_feature_setting_is_what_the_plugin_is_given(
    oracle: str,  # noqa: F811
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # The folder 'feat' holds a graph naming 'old-name'; with spec_feature: graph ours reads
    # that folder's spec, so the plugin must be given 'old-name' too (not the folder's name).
    import json

    from tests.factories import write

    root = tmp_path / "p"
    task = {"id": "T1", "title": "Session expiry", "description": "Expire the session", "files": {"create": ["a.py"]}}
    write(root, ".gsd/specs/feat/task-graph.json", json.dumps({"feature": "old-name", "tasks": [task]}))
    write(root, ".gsd/specs/feat/requirements.md", "The session in the folder of the graph.")
    write(root, ".gsd/specs/old-name/requirements.md", "The session of the renamed feature.")
    for setting in ("spec_feature=graph", "spec_feature=folder"):
        code, out, err = run(
            capsys, "verify", str(root), "--upstream-python", oracle, "--set", "upstream=zerg-ai-0.3.2",
            "--set", setting,
        )  # fmt: skip
        assert (code, err, out.splitlines()[-1]) == (0, "", "1 of 1 task identical"), out
