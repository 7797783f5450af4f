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
