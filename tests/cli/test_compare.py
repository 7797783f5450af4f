"""``ctxviewer compare``: one task by two profiles (or settings) side by side."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.helpers import CONTEXT_T1, run


def test_compare_text_shows_both_sides_and_what_left(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(
        capsys, "compare", str(project), "--feature", "feat", "--task", "T1",
        "--profiles", "mahabharatha:top_k=2,mahabharatha:top_k=1", "--no-exact",
    )  # fmt: skip
    assert (code, err) == (0, "")
    # B keeps only the rank-1 requirements paragraph: 21 characters ("\n\nBeta session store.") fewer.
    used_a, used_b = len(CONTEXT_T1) // 4, (len(CONTEXT_T1) - 21) // 4
    lines = out.splitlines()
    assert lines[0] == "T1 (feat): Login session"
    assert lines[1] == (
        f"A  mahabharatha: top_k=2  {used_a} of 4,000 heuristic tokens ({100 * used_a / 4000:.1f}%), within budget"
    )
    assert lines[2] == (
        f"B  mahabharatha: top_k=1  {used_b} of 4,000 heuristic tokens ({100 * used_b / 4000:.1f}%), within budget"
    )
    assert lines[3] == "Settings that differ (A \u2192 B): top_k 2 \u2192 1"
    assert (
        "  left    .gsd/specs/feat/requirements.md:3-3 (paragraph): included \u2192 outranked, 4 \u2192 0 tokens"
        in lines
    )
    assert "          A: rank 2 of 2 kept (score 1)" in lines
    assert "          B: rank 2, only the top 1 are kept (score 1)" in lines
    at = lines.index("Context diff (A \u2192 B):")
    assert lines[at + 1 : at + 3] == ["--- A: mahabharatha: top_k=2", "+++ B: mahabharatha: top_k=1"]
    assert "-Beta session store." in lines[at:]


def test_compare_json_and_md_to_files(project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = ["compare", str(project), "--feature", "feat", "--task", "T1", "--profiles", "mahabharatha,mahabharatha"]
    code, out, _ = run(capsys, *base, "--set", "budget=1000", "--format", "json", "-o", str(tmp_path / "c.json"))
    assert (code, out) == (0, "")
    data = json.loads((tmp_path / "c.json").read_text(encoding="utf-8"))
    # --set applies to both sides: the same settings, the same context.
    assert data["unchanged"] and data["sides"]["A"]["budget"] == data["sides"]["B"]["budget"] == 1000
    code, out, _ = run(capsys, *base, "--format", "md", "-o", str(tmp_path / "c.md"))
    assert (code, out) == (0, "")
    text = (tmp_path / "c.md").read_text(encoding="utf-8")
    assert text.startswith("## Compare T1: A `mahabharatha` vs B `mahabharatha`\n")
    assert "No change: settings, sections, candidates and the context are the same" in text


@pytest.mark.parametrize(
    ("profiles", "message"),
    [
        ("mahabharatha", "--profiles: name exactly two sides"),
        ("mahabharatha,drfit", "--profiles B: 'drfit' is not a profile; did you mean drift?"),
        ("mahabharatha:budget=0,mahabharatha", "--profiles A: budget: must be between 1 and 10,000,000, not 0"),
        ("mahabharatha:budgett=9,mahabharatha", "--profiles A: budgett: unknown setting; did you mean budget?"),
    ],
)
def test_compare_bad_sides_are_one_line_and_exit_2(
    profiles: str, message: str, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "compare", str(project), "--feature", "feat", "--task", "T1", "--profiles", profiles)
    assert (code, out) == (2, "")
    assert err.startswith(f"ctxviewer: {message}") and err.count("\n") == 1


def test_compare_unknown_task_is_bad_input(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(
        capsys,
        "compare",
        str(project),
        "--feature",
        "feat",
        "--task",
        "NOPE",
        "--profiles",
        "mahabharatha,mahabharatha",
    )
    assert code == 2 and "NOPE" in err and err.count("\n") == 1


def test_compare_output_format_follows_the_file_extension(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = ["compare", str(project), "--feature", "feat", "--task", "T1", "--profiles", "mahabharatha,ctxviewer"]
    assert run(capsys, *base, "-o", str(tmp_path / "c.md"))[0] == 0
    assert (
        (tmp_path / "c.md").read_text(encoding="utf-8").startswith("## Compare T1: A `mahabharatha` vs B `ctxviewer`")
    )
    assert run(capsys, *base, "-o", str(tmp_path / "c.JSON"))[0] == 0
    assert json.loads((tmp_path / "c.JSON").read_text(encoding="utf-8"))["sides"]["B"]["profile"] == "ctxviewer"
    assert run(capsys, *base, "-o", str(tmp_path / "c.txt"))[0] == 0
    assert (tmp_path / "c.txt").read_text(encoding="utf-8").startswith("T1 (feat):")
