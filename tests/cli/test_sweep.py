"""``ctxviewer sweep``: the table's shape in CSV and JSON, bad ranges as one line and exit 2."""

from __future__ import annotations

import csv
import io
import json
import sys
from pathlib import Path

import pytest

from ctxviewer.cli import common, main
from ctxviewer.engine.runs import sweep as sweep_module
from tests.cli.helpers import run
from tests.factories import make_compare_project

CODES = [
    "rule-cut",
    "rule-unseen",
    "context-empty",
    "over-budget",
    "section-empty",
    "estimate-flip",
    "share-too-small",
    "rule-cut-loaded",
]


@pytest.fixture
def compare_project(tmp_path: Path) -> Path:
    return make_compare_project(tmp_path / "proj")


def test_csv_has_a_row_per_task_and_budget(compare_project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "sweep", str(compare_project), "--budget", "1k:4k:3k")
    assert (code, err) == (0, "")
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[0] == [
        "feature",
        "task",
        "budget",
        "context_tokens",
        "cl100k_base_tokens",
        "o200k_base_tokens",
        "share_of_budget",
        "over_budget",
        "included",
        "cut_for_budget",
        *CODES,
        "error",
    ]
    assert [(r[1], r[2]) for r in rows[1:]] == [("T1", "1000"), ("T1", "4000"), ("T2", "1000"), ("T2", "4000")]
    by = {(r[1], r[2]): dict(zip(rows[0], r, strict=True)) for r in rows[1:]}
    # At 1,000 the core rule block (1,533 chars) does not fit security's 1,200: cut, and loaded
    # by the worker as project memory all the same (tests/engine/runs/test_sweep.py works the
    # cells out).
    t1 = by[("T1", "1000")]
    assert (t1["rule-cut-loaded"], t1["rule-cut"], t1["over_budget"], t1["included"], t1["cut_for_budget"]) == (
        "1",
        "0",
        "False",
        "1",
        "2",
    )
    assert t1["cl100k_base_tokens"] == "" and float(t1["share_of_budget"]) == int(t1["context_tokens"]) / 1000
    assert by[("T1", "4000")]["rule-cut"] == "0"


def test_json_with_a_share_axis_and_exact_counts(compare_project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys,
        "sweep",
        str(compare_project),
        "--feature",
        "feat",
        "--budget",
        "4000",
        "--share",
        "spec_share=0.1:0.5:0.4",
        "--exact",
        "--findings",
        "over-budget,rule-cut",
        "--format",
        "json",
    )
    data = json.loads(out)
    assert code == 0
    assert (data["feature"], data["budgets"], data["share"]) == (
        "feat",
        [4000],
        {"key": "spec_share", "values": [0.1, 0.5]},
    )
    assert data["finding_codes"] == ["rule-cut", "over-budget"] and data["exact"] is True
    assert [t["task"] for t in data["tasks"]] == ["T1", "T2"]
    assert [(c["task"], c["spec_share"]) for c in data["cells"]] == [("T1", 0.1), ("T1", 0.5), ("T2", 0.1), ("T2", 0.5)]
    first = data["cells"][0]
    assert first["findings"] == {"rule-cut": 0, "over-budget": 0} and first["cl100k_base_tokens"] > 0
    # spec_share 0.1: 200 tokens of requirements, P2 (600 chars after P1's 600) is cut.
    assert (first["included"], first["cut_for_budget"]) == (2, 1)


def test_output_file_is_written_whole_and_its_extension_picks_json(
    compare_project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "out" / "sweep.json"
    target.parent.mkdir()
    code, out, _ = run(capsys, "sweep", str(compare_project), "--budget", "2k", "-o", str(target))
    assert (code, out) == (0, "")
    assert json.loads(target.read_text(encoding="utf-8"))["budgets"] == [2000]
    assert [p.name for p in target.parent.iterdir()] == ["sweep.json"]  # no temporary file left


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--budget", "8k:1k:250"], "--budget: the range ends (1,000) before it starts (8,000)"),
        (["--budget", "1k:8k:0"], "--budget step: must be between 1 and 10,000,000, not 0"),
        (["--budget", "1k-8k"], "--budget: must be a whole number of tokens (4000, 4,000 or 4k), not '1k-8k'"),
        (["--budget", "1k:8k"], "--budget: write a range as START:STOP:STEP (1000:8000:250) or one value, not '1k:8k'"),
        (["--budget", "1k", "--share", "top_k=1:2:1"], "--share: write SETTING=START:STOP:STEP"),
        (["--budget", "1k", "--share", "spec_share=0.8"], "section shares add up to 110%"),
        (["--budget", "1k", "--findings", "nope"], "--findings: nope is not a finding code"),
        (["--budget", "1k", "--feature", "nope"], "nope"),
        (["--budget", "1k", "--format", "json", "-o", "x.csv"], "the extension '.csv' means csv"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    compare_project: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, out, err = run(capsys, "sweep", str(compare_project), *argv)
    assert (code, out) == (2, "")
    assert err.count("\n") == 1 and err.startswith("ctxviewer: ") and message in err


class _Terminal(io.StringIO):
    """A stderr that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def test_a_sweep_over_the_ceiling_is_refused_before_any_assembly(
    compare_project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("the sweep assembled a task")

    monkeypatch.setattr(sweep_module, "assemble_task", never)
    target = tmp_path / "sweep.csv"
    # 1,000 budgets x 26 spec_share values (0 to 0.25 by 0.01) x the project's 2 tasks = 52,000.
    argv = ["--budget", "1:1000:1", "--share", "spec_share=0:0.25:0.01", "-o", str(target)]
    code, out, err = run(capsys, "sweep", str(compare_project), *argv)
    assert (code, out) == (2, "")
    assert err == (
        "ctxviewer: sweep of 1,000 budgets \u00d7 26 spec_share values \u00d7 2 tasks = 52,000 assemblies is over "
        "the limit of 50,000; narrow a range or choose a feature\n"
    )
    assert not target.exists()


def test_progress_goes_to_stderr_only_when_it_is_a_terminal(
    compare_project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(common, "PROGRESS_SECONDS", 0.0)  # every report drawn
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert main(["sweep", str(compare_project), "--budget", "1k:4k:3k"]) == 0
    out = capsys.readouterr().out
    # 2 budgets a task: after T1 half the sweep is done, after T2 all of it; then the line is erased.
    erase = "\r\x1b[K"
    assert terminal.getvalue() == f"{erase}ctxviewer: sweep:  50% (T1){erase}ctxviewer: sweep: 100% (T2){erase}"
    assert out.startswith("feature,task,budget,") and out.count("\n") == 5 and "\r" not in out
    # Not a terminal (the other tests' captured stderr): nothing but what went wrong.
    code, _, err = run(capsys, "sweep", str(compare_project), "--budget", "1k:4k:3k")
    assert (code, err) == (0, "")


def test_ctrl_c_ends_with_one_line_130_and_no_file(
    compare_project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[str] = []
    real = sweep_module.assemble_task

    def interrupted(*args: object, **kwargs: object) -> object:
        calls.append("run")
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(sweep_module, "assemble_task", interrupted)
    monkeypatch.setattr(common, "PROGRESS_SECONDS", 0.0)
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    target = tmp_path / "out" / "sweep.csv"
    target.parent.mkdir()
    assert main(["sweep", str(compare_project), "--budget", "1k:4k:3k", "-o", str(target)]) == 130
    assert capsys.readouterr().out == ""
    # T1's progress was on the line; it is erased before the one line that says why it ended.
    progress, _, last = terminal.getvalue().rpartition("\r\x1b[K")
    assert progress == "\r\x1b[Kctxviewer: sweep:  50% (T1)" and last == "ctxviewer: interrupted\n"
    assert list(target.parent.iterdir()) == []
