"""The options of a run, as every command that assembles takes them: ``--budget`` as people write
it, ``--tokenizer``, ``--profile``, ``--set``; and no option abbreviated.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctxviewer.cli import main
from tests.cli.helpers import CONTEXT_T1, assemble_json, run


def test_budget_and_tokenizer_flags(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys,
        "assemble",
        str(project),
        "--feature",
        "feat",
        "--task",
        "T1",
        "--format",
        "json",
        "--budget",
        "1000",
        "--tokenizer",
        "o200k_base",
    )
    data = json.loads(out)
    assert code == 0
    assert (data["budget"], data["tokenizer"]) == (1000, "o200k_base")
    assert data["section_budgets"] == {"security_rules": 300, "spec_excerpts": 500}


def test_set_overrides_any_setting(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "assemble", str(project), "--feature", "feat", "--task", "T1", "--format", "json",
        "--set", "spec_share=0.2", "--set", "zones={compaction: 75}", "--set", "top_k=1",
    )  # fmt: skip
    assert code == 0
    data = json.loads(out)
    assert data["settings"]["spec_share"] == {"value": 0.2, "origin": "command line"}
    assert data["settings"]["zones"]["value"] == {"compaction": 75.0}
    assert data["tracker"]["zones"] == {"checkpoint": 70.0, "compaction": 75.0}
    # top_k 1: only the first of the two scoring requirement paragraphs is kept.
    assert "Alpha login flow." in data["context"] and "Beta session store." not in data["context"]


def test_set_with_a_bad_value_or_form_is_refused(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "assemble", str(project), "--feature", "feat", "--task", "T1", "--set", "top_k=0")
    assert code == 2 and "top_k: must be between 1 and 10,000, not 0" in err
    with pytest.raises(SystemExit):
        main(["assemble", str(project), "--feature", "feat", "--task", "T1", "--set", "budget"])
    assert "write KEY=VALUE" in capsys.readouterr().err


def test_profile_option_is_the_profile_setting(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "assemble", str(project), "--feature", "feat", "--task", "T1", "--profile", "mahabharatha",
        "--format", "json",
    )  # fmt: skip
    assert code == 0
    data = json.loads(out)
    assert (data["profile"], data["settings"]["profile"]) == (
        "mahabharatha",
        {"value": "mahabharatha", "origin": "command line"},
    )


@pytest.mark.parametrize(
    "argv",
    [
        ["assemble", "{p}", "--feature", "feat", "--task", "T1"],
        ["batch", "{p}"],
        ["check", "{p}"],
        ["whatif", "{p}", "--feature", "feat", "--task", "T1"],
        ["gui", "{p}"],
    ],
    ids=["assemble", "batch", "check", "whatif", "gui"],
)
def test_a_bad_profile_name_is_one_line_and_exit_2(
    argv: list[str], project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, *(a.replace("{p}", str(project)) for a in argv), "--profile", "drfit")
    assert (code, out) == (2, "")
    assert err == "ctxviewer: --profile: 'drfit' is not a profile; did you mean drift?\n"


def test_options_are_never_abbreviated(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["compare", str(project), "--feature", "feat", "--task", "T1", "--profile", "drift"])
    assert exited.value.code == 2
    assert "the following arguments are required: --profiles" in capsys.readouterr().err


@pytest.mark.parametrize("budget", ["2000", "2,000", "2k", "2K", "2.0k"])
def test_budget_flag_takes_4k_forms(three_features: Path, capsys: pytest.CaptureFixture[str], budget: str) -> None:
    data = assemble_json(capsys, three_features, "feat", "T1", "--budget", budget)
    assert data["budget"] == 2000
    assert data["section_budgets"] == {"security_rules": 600, "spec_excerpts": 1000}  # 30 % and 50 %


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--budget", "4kk"], "--budget: must be a whole number of tokens (4000, 4,000 or 4k), not '4kk'"),
        (["--budget=-4k"], "--budget: must be between 1 and 10,000,000, not -4,000"),
        (["--budget", "0"], "--budget: must be between 1 and 10,000,000, not 0"),
        (["--budget", "nan"], "--budget: must be a whole number of tokens (4000, 4,000 or 4k), not 'nan'"),
        (["--set", "budget=1.5"], "command line: budget: must be a whole number, not 1.5"),
    ],
)
def test_bad_budgets_are_one_line_and_exit_2(
    three_features: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, out, err = run(capsys, "assemble", str(three_features), "--feature", "feat", "--task", "T1", *argv)
    assert (code, out, err) == (2, "", f"ctxviewer: {message}\n")


def test_set_budget_and_check_max_tokens_take_4k(three_features: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert assemble_json(capsys, three_features, "feat", "T1", "--set", "budget=2,500")["budget"] == 2500
    # T1's context is len(CONTEXT_T1) // 4 heuristic tokens (46): over a limit of 0.04k = 40
    used = len(CONTEXT_T1) // 4
    code, out, _ = run(capsys, "check", str(three_features), "--feature", "feat", "--max-tokens", "0.04k")
    assert code == 1 and f"OVER  feat/T1: {used:,} heuristic tokens > 40\n" in out
    code, _, err = run(capsys, "check", str(three_features), "--max-tokens", "4kk")
    assert (
        code == 2
        and err == "ctxviewer: --max-tokens: must be a whole number of tokens (4000, 4,000 or 4k), not '4kk'\n"
    )


# -- --budget wherever a budget applies: the same run as --set budget= ----------------------------


@pytest.mark.parametrize(
    "argv",
    [
        ["whatif", "{root}", "--feature", "feat", "--task", "T1", "--format", "json", "--no-exact"],
        ["compare", "{root}", "--feature", "feat", "--task", "T1", "--profiles", "drift,shaktiman", "--format", "json"],
    ],
    ids=["whatif", "compare"],
)
def test_budget_is_the_same_as_set_budget(project: Path, capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    filled = [a.format(root=project) for a in argv]
    by_flag = run(capsys, *filled, "--budget", "1.5k")
    by_set = run(capsys, *filled, "--set", "budget=1500")
    assert by_flag == by_set and by_flag[0] == 0
    data = json.loads(by_flag[1])
    if "sides" in data:  # both sides of compare run with the budget given
        assert {s["budget"] for s in data["sides"].values()} == {1500}
    else:  # whatif's second run has it; the baseline keeps the project's 4,000
        assert data["settings"] == [{"key": "budget", "before": 4000, "after": 1500}]


def test_diff_takes_budget_and_profile(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import shutil

    from tests.factories import make_git_project

    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    repo = make_git_project(tmp_path / "proj")
    base = ["diff", str(repo), "--rev", "HEAD~1", "--rev", "HEAD", "--format", "json", "--no-exact"]
    code, out, _ = run(capsys, *base, "--budget", "2k", "--profile", "drift")
    assert code == 0
    assert out == run(capsys, *base, "--set", "budget=2000", "--set", "profile=drift")[1]
    [task] = json.loads(out)["tasks"]
    assert {(s["key"], s["after"]) for s in task["settings"]} <= {("budget", 2000), ("profile", "drift")}
