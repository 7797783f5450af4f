"""Command splitting: where a command file would be split and the files a split writes.

Rules under test (the reference ``CommandSplitter``):

* ``lines = text.split("\\n")``; eligible with 300 lines or more;
* sections start at lines beginning ``"# "`` or ``"## "`` (not ``"### "``); lines
  before the first header belong to no section;
* ``target = int(lines * 0.30)``; the split is the end of the first section at which
  the cumulative section line count reaches the target (0 if none), clamped to
  ``[10, lines - 10]``;
* the core file is the first *split* lines joined + ``"\\n"``; the details file is a
  fixed header + the rest joined + ``"\\n"``; the original is rewritten as the core
  lines + a ``<!-- SPLIT: ... -->`` reference + ``"\\n"``.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import pytest

from ctxviewer.engine.errors import WriteError
from ctxviewer.engine.project.loading import load_project
from ctxviewer.engine.project.splitter import analyze_project, analyze_text, apply_split
from ctxviewer.engine.tokens.counting import Census

CENSUS = Census(exact=False)


def command_text(total: int, headers: dict[int, str]) -> str:
    """*total* lines (no trailing newline); line i (0-based) is headers[i] or "line i"."""
    return "\n".join(headers.get(i, f"line {i}") for i in range(total))


def details_header(name: str) -> str:
    return (
        f"<!-- SPLIT: details, parent: {name}.md -->\n"
        f"# {name} \u2014 Detailed Reference\n\n"
        "This file contains extended examples, templates, and edge cases.\n"
        f"Core instructions are in `{name}.core.md`.\n\n"
    )


def split_reference(name: str) -> str:
    return (
        f"\n\n<!-- SPLIT: core={name}.core.md details={name}.details.md -->\n"
        f"<!-- For detailed examples and templates, see {name}.details.md -->\n"
        "\n"
    )


# -- analyze_text: where the split falls -----------------------------------------------


def test_lines_before_the_first_header_are_in_no_section() -> None:
    # 300 lines, target int(300 * 0.30) = 90
    # 0-69 preamble (no section); "# Title" at 70 (30 lines, to 99);
    # "## A" at 100 (150 lines, to 249); "## B" at 250 (50 lines, to 299)
    # cumulative: 30 < 90, 180 >= 90 -> split at the end of A = 250
    # (counting the preamble would give 100 >= 90 and split at 100)
    text = command_text(300, {70: "# Title", 100: "## A", 250: "## B"})
    a = analyze_text("cmd.md", text, CENSUS)
    assert (a.lines, a.target_line, a.suggested_split, a.split_line) == (300, 90, 250, 250)
    assert [(s.header, s.start_line, s.end_line, s.lines) for s in a.sections] == [
        ("Title", 71, 100, 30),  # 1-based, inclusive
        ("A", 101, 250, 150),
        ("B", 251, 300, 50),
    ]
    assert a.eligible


def test_level_three_headers_do_not_start_sections() -> None:
    # as above with "### Sub" at 190 inside A; were it a section, A would end at 190
    # (cumulative 30 + 90 = 120 >= 90) and the split would be 190
    text = command_text(300, {70: "# Title", 100: "## A", 190: "### Sub", 250: "## B"})
    a = analyze_text("cmd.md", text, CENSUS)
    assert a.split_line == 250
    assert [s.header for s in a.sections] == ["Title", "A", "B"]


def test_headers_need_the_space_and_must_start_the_line() -> None:
    # none of these start a section, so no section reaches the target -> 0 -> 10
    text = command_text(300, {50: "#NoSpace", 100: "##Tight", 150: " # indented", 200: "#### deep"})
    a = analyze_text("cmd.md", text, CENSUS)
    assert a.sections == ()
    assert (a.suggested_split, a.split_line) == (0, 10)


def test_reaching_the_target_exactly_is_enough() -> None:
    # "# A" at 0 (90 lines) == target 90 -> split 90 (with ">" it would be 200)
    text = command_text(300, {0: "# A", 90: "## B", 200: "## C"})
    a = analyze_text("cmd.md", text, CENSUS)
    assert (a.suggested_split, a.split_line) == (90, 90)


def test_no_section_reaching_the_target_gives_zero_clamped_up_to_ten() -> None:
    a = analyze_text("cmd.md", command_text(300, {}), CENSUS)
    assert (a.target_line, a.suggested_split, a.split_line) == (90, 0, 10)


def test_an_early_split_is_clamped_up_to_ten() -> None:
    # 30 lines: target int(30 * 0.30) = 9; "# A" at 0 has 9 lines -> 9 -> max(10, 9) = 10
    a = analyze_text("cmd.md", command_text(30, {0: "# A", 9: "## B"}), CENSUS)
    assert (a.target_line, a.suggested_split, a.split_line) == (9, 9, 10)


def test_split_is_clamped_above_to_lines_minus_ten() -> None:
    # one section of 300 lines: cumulative 300 >= 90 -> 300 -> min(300, 290) = 290
    a = analyze_text("cmd.md", command_text(300, {0: "# Only"}), CENSUS)
    assert (a.suggested_split, a.split_line) == (300, 290)


def test_target_is_thirty_percent_rounded_down() -> None:
    # 333 * 0.30 = 99.9 -> 99; a section ending at 99 lines reaches it
    text = command_text(333, {0: "# A", 99: "## B", 200: "## C"})
    a = analyze_text("cmd.md", text, CENSUS)
    assert (a.target_line, a.split_line) == (99, 99)


@pytest.mark.parametrize(
    ("text", "lines", "eligible"),
    [
        (command_text(299, {}), 299, False),
        (command_text(300, {}), 300, True),
        # 299 lines and a final newline: split("\n") gives 300 items
        (command_text(299, {}) + "\n", 300, True),
    ],
    ids=["299", "300", "299+newline"],
)
def test_eligible_from_three_hundred_lines(text: str, lines: int, eligible: bool) -> None:
    a = analyze_text("cmd.md", text, CENSUS)
    assert (a.lines, a.eligible) == (lines, eligible)


def test_outputs_and_estimated_saving() -> None:
    # 300 lines "x": 300 + 299 newlines = 599 chars -> 599 // 4 = 149 tokens
    # no headers -> split 10; core = "x\n" * 10 = 20 chars -> 5 tokens; saved 144
    text = "\n".join(["x"] * 300)
    a = analyze_text(".claude/commands/go.md", text, CENSUS)
    assert a.core_text == "x\n" * 10
    assert a.details_text == details_header("go") + "\n".join(["x"] * 290) + "\n"
    assert a.rewritten_text == "\n".join(["x"] * 10) + split_reference("go")
    assert (a.core_path, a.details_path) == (
        ".claude/commands/go.core.md",
        ".claude/commands/go.details.md",
    )
    assert (a.tokens.chars, a.tokens.heuristic, a.core_tokens.heuristic) == (599, 149, 5)
    assert a.tokens_saved == 144


def test_no_saving_is_reported_for_a_file_too_short_to_split() -> None:
    a = analyze_text("cmd.md", "\n".join(["x"] * 50), CENSUS)
    assert not a.eligible
    assert a.tokens_saved == 0


# -- apply_split: the exact files written ----------------------------------------------


def make_project(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "proj"
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))
    root.mkdir(exist_ok=True)
    return root


def test_apply_split_writes_the_three_files_exactly(tmp_path: Path) -> None:
    # 300 content lines and a final newline -> 301 items, the last one "";
    # target int(301 * 0.30) = int(90.3) = 90; "# Intro" at 0 (40 lines) then
    # "## Usage" at 40 (80 lines, cumulative 120 >= 90) -> split 120
    body = [f"line {i}" for i in range(300)]
    body[0] = "# Intro"
    body[40] = "## Usage"
    body[120] = "## Examples"
    original = "\n".join(body) + "\n"
    root = make_project(tmp_path, {".claude/commands/z:init.md": original})
    project = load_project(root)
    (analysis,) = analyze_project(project, exact=False)
    assert (analysis.lines, analysis.split_line) == (301, 120)

    written = apply_split(project, analysis)

    folder = root / ".claude" / "commands"
    assert written == [
        ".claude/commands/z:init.core.md",
        ".claude/commands/z:init.details.md",
        ".claude/commands/z:init.md",
    ]
    core_lines = body[:120]
    rest = [*body[120:], ""]  # the item after the final newline
    assert (folder / "z:init.core.md").read_bytes() == ("\n".join(core_lines) + "\n").encode()
    assert (folder / "z:init.details.md").read_bytes() == (details_header("z:init") + "\n".join(rest) + "\n").encode(
        "utf-8"
    )
    assert (folder / "z:init.md").read_bytes() == ("\n".join(core_lines) + split_reference("z:init")).encode()
    # nothing else (no temporary files) is left in the folder
    assert sorted(p.name for p in folder.iterdir()) == [
        "z:init.core.md",
        "z:init.details.md",
        "z:init.md",
    ]


def test_split_details_file_starts_with_its_header_lines(tmp_path: Path) -> None:
    root = make_project(tmp_path, {".claude/commands/deep.md": "\n".join(["y"] * 300)})
    project = load_project(root)
    (analysis,) = analyze_project(project, exact=False)
    apply_split(project, analysis)
    details = (root / ".claude/commands/deep.details.md").read_text(encoding="utf-8")
    # split 10 (no headers): the details hold lines 11-300 after the 5-line header
    assert details.split("\n")[:6] == [
        "<!-- SPLIT: details, parent: deep.md -->",
        "# deep \u2014 Detailed Reference",
        "",
        "This file contains extended examples, templates, and edge cases.",
        "Core instructions are in `deep.core.md`.",
        "",
    ]
    assert details.count("\n") == 6 + 289 + 1  # header newlines, 290 lines joined, final


def test_split_outputs_are_not_split_again_and_mark_the_parent(tmp_path: Path) -> None:
    root = make_project(tmp_path, {".claude/commands/big.md": "\n".join(["y"] * 300)})
    project = load_project(root)
    (analysis,) = analyze_project(project, exact=False)
    assert not analysis.already_split
    apply_split(project, analysis)
    again = analyze_project(load_project(root), exact=False)
    assert [a.path for a in again] == [".claude/commands/big.md"]
    assert again[0].already_split


def test_crlf_command_file_is_analyzed_with_universal_newlines(tmp_path: Path) -> None:
    root = make_project(tmp_path, {".claude/commands/w.md": "\r\n".join(["y"] * 300)})
    (analysis,) = analyze_project(load_project(root), exact=False)
    assert (analysis.lines, analysis.eligible) == (300, True)
    assert analysis.core_text == "y\n" * 10


def test_apply_split_refuses_a_file_that_is_not_eligible(tmp_path: Path) -> None:
    original = "\n".join(["y"] * 299)
    root = make_project(tmp_path, {".claude/commands/small.md": original})
    project = load_project(root)
    (analysis,) = analyze_project(project, exact=False)
    with pytest.raises(WriteError):
        apply_split(project, analysis)
    folder = root / ".claude" / "commands"
    assert [p.name for p in folder.iterdir()] == ["small.md"]
    assert (folder / "small.md").read_text() == original


def test_apply_split_never_writes_outside_the_project(tmp_path: Path) -> None:
    # outside/cmds/big.md is not part of the project.  Inside the project,
    # .claude/out -> ../../outside/cmds (relative, leaves the root), and
    # .claude/commands/ext -> <root>/.claude/out (absolute, lexically inside the root).
    outside = tmp_path / "outside" / "cmds"
    outside.mkdir(parents=True)
    big = "\n".join(["y"] * 300)
    (outside / "big.md").write_text(big)
    root = make_project(tmp_path, {".claude/commands/own.md": "short\n"})
    os.symlink("../../outside/cmds", root / ".claude" / "out")
    os.symlink(str(root.resolve() / ".claude" / "out"), root / ".claude" / "commands" / "ext")
    project = load_project(root)

    analyses = analyze_project(project, exact=False)
    for analysis in analyses:
        if analysis.eligible:
            with contextlib.suppress(WriteError):  # refusing is fine; writing outside is not
                apply_split(project, analysis)

    assert sorted(p.name for p in outside.iterdir()) == ["big.md"]
    assert (outside / "big.md").read_text() == big
    # The folder link that leaves the project is named, not skipped without a word.
    assert [(a.path, a.problem) for a in analyses] == [
        (
            ".claude/commands/ext",
            ".claude/commands/ext: not read: symlink to ../../outside/cmds outside the project",
        ),
        (".claude/commands/own.md", None),
    ]
