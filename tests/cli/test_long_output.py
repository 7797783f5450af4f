"""Long output folds: a list that grows with the project shows its count and first few (``-v``
for all), and no line of a text report on the samples is longer than MAX_LINE characters."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from ctxviewer.cli.common import MAX_LINE, WRAP_WIDTH, wrap_long_lines
from ctxviewer.engine.wording import FOLD_SHOWN
from tests.cli.helpers import SAMPLES, run
from tests.factories import git, make_project

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed: revision diffs need it")


@needs_git
def test_diff_counts_unchanged_tasks_and_names_the_first_few(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ids = [f"T{n:02d}" for n in range(1, 14)]  # 13 tasks, none changed since HEAD
    root = make_project(tmp_path / "p", [{"id": i, "title": i, "files": {}} for i in ids], requirements="Text.")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "first")
    code, out, _ = run(capsys, "diff", str(root), "--rev", "HEAD", "--no-exact")
    assert code == 0
    names = [f"feat/{i}" for i in ids]
    assert FOLD_SHOWN == 10
    assert out.splitlines()[-1] == f"Unchanged (13): {', '.join(names[:10])}, ... and 3 more (-v for all)"
    code, out, _ = run(capsys, "diff", str(root), "--rev", "HEAD", "--no-exact", "-v")
    assert out.splitlines()[-1] == f"Unchanged (13): {', '.join(names)}"


def test_compare_shows_the_first_few_candidates_of_each_kind(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["compare", str(SAMPLES / "ledger-service"), "--feature", "auth-sessions", "--task", "AUTH-L1-001"]
    argv += ["--profiles", "drift,shaktiman", "--no-exact"]
    _, data, _ = run(capsys, *argv, "--format", "json")
    kinds: dict[str, int] = {}
    for item in json.loads(data)["items"]:
        kinds[item["change"]] = kinds.get(item["change"], 0) + 1
    assert max(kinds.values()) > FOLD_SHOWN + 1  # the sample has a group long enough to fold
    _, out, _ = run(capsys, *argv)
    folds = sorted(int(line.split()[2].replace(",", "")) for line in out.splitlines() if line.startswith("  ... and "))
    assert folds == sorted(n - FOLD_SHOWN for n in kinds.values() if n > FOLD_SHOWN + 1)
    _, every, _ = run(capsys, *argv, "-v")
    assert "... and" not in every.split("Context diff")[0] and len(every) > len(out)


def test_a_long_report_line_wraps_and_its_first_words_stay_first() -> None:
    words = ["ERROR", "  rule-cut", " f/T1:"] + ["word"] * 60  # 6 + ... well over MAX_LINE
    line = " ".join(words)
    assert len(line) > MAX_LINE
    lines = wrap_long_lines(f"short\n{line}").split("\n")
    assert lines[0] == "short" and lines[1].startswith("ERROR   rule-cut  f/T1: word")
    assert all(len(x) <= WRAP_WIDTH for x in lines[1:]) and all(x.startswith("    ") for x in lines[2:])
    assert " ".join(" ".join(lines[1:]).split()) == " ".join(line.split())  # nothing lost
    path = "src/" + "x" * 300
    assert wrap_long_lines(path) == path  # a word longer than the width is kept whole


def _first_tasks(sample: str) -> list[tuple[str, str]]:
    from ctxviewer.engine.project.loading import load_project

    return [(f.name, t.id) for f, t in load_project(SAMPLES / sample).tasks()][::6]


@pytest.mark.parametrize("sample", ["ledger-service", "storefront-web", "edge-cases"])
def test_no_report_line_on_the_samples_is_longer_than_the_limit(
    sample: str, capsys: pytest.CaptureFixture[str]
) -> None:
    root = str(SAMPLES / sample)
    runs = [["list", root], ["check", root], ["split", root, "--no-exact"]]
    for feature, task in _first_tasks(sample):
        at = ["--feature", feature, "--task", task]
        runs += [["why", root, *at, "e"], ["window", root, *at, "--no-exact"]]
        runs += [["compare", root, *at, "--profiles", "drift,shaktiman", "--no-exact"]]
    for argv in runs:
        _, out, _ = run(capsys, *argv)
        report = out.split("\nContext diff (A \u2192 B):\n")[0]  # the diff's lines are the project's own text
        long = [line for line in report.splitlines() if len(line) > MAX_LINE]
        assert long == [], f"{' '.join(argv[:1] + argv[2:])}: {len(long)} lines over {MAX_LINE}"
