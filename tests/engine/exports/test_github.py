"""GitHub annotations: as many as GitHub shows (10 of a kind per step), failing and severe ones
first, one notice counting the rest (its own slot kept free), values escaped as the runner
reads them; the job summary's table holds every site."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxviewer.engine.errors import WriteError
from ctxviewer.engine.exports.github import PER_KIND, summary_markdown, workflow_annotations
from ctxviewer.engine.exports.sites import Site
from ctxviewer.engine.files.writing import append_whole


def site(n: int, severity: str, fails: bool = False, message: str = "m") -> Site:
    return Site("rule-cut", severity, "feat", f"T{n}", message, "p/a.md", n, str(n), fails)


def test_below_the_caps_every_site_is_an_annotation_failing_first() -> None:
    sites = [site(1, "info"), site(2, "warning"), site(3, "error"), site(4, "warning", fails=True)]
    got = workflow_annotations(sites)
    assert got.left_out == 0
    assert [line.split(" ", 1)[0] for line in got.lines] == ["::warning", "::error", "::warning", "::notice"]
    assert got.lines[1] == "::error file=p/a.md,line=3,title=rule-cut (feat/T3)::m"


def test_over_the_caps_ten_of_a_kind_and_one_notice_for_the_rest() -> None:
    # 12 errors, 3 warnings, 15 infos: 10 errors and 3 warnings shown; 9 infos, since the
    # notice that counts the rest is a notice too; left out: 2 errors and 6 infos.
    sites = [site(n, "error") for n in range(12)] + [site(n, "warning") for n in range(3)]
    sites += [site(n, "info") for n in range(15)]
    got = workflow_annotations(sites)
    kinds = [line.split(" ", 1)[0] for line in got.lines]
    assert (kinds.count("::error"), kinds.count("::warning"), kinds.count("::notice")) == (10, 3, PER_KIND)
    assert got.left_out == 8
    assert got.lines[-1].startswith("::notice title=ctxviewer::8 more not annotated")
    assert [line for line in got.lines if "title=rule-cut" in line and line.startswith("::error")][-1].startswith(
        "::error file=p/a.md,line=9,"
    )  # the first ten errors, in order


def test_values_are_escaped_as_workflow_commands_read_them() -> None:
    odd = Site("tie-by-order", "info", "f,1", "T:1", "50% off\r\nnext line", "a, b:c.md", None, "x")
    (line,) = workflow_annotations([odd]).lines
    assert line == "::notice file=a%2C b%3Ac.md,title=tie-by-order (f%2C1/T%3A1)::50%25 off%0D%0Anext line"


def test_the_summary_lists_every_site_in_a_table() -> None:
    sites = [site(n, "info") for n in range(40)] + [site(99, "error", fails=True, message="a | b\nc")]
    text = summary_markdown("ctxviewer check", "0 of 41 tasks over", sites)
    lines = text.splitlines()
    assert lines[:3] == ["### ctxviewer check", "", "0 of 41 tasks over"]
    rows = [line for line in lines if line.startswith("| ") and "`rule-cut`" in line]
    assert len(rows) == 41
    assert rows[0] == "| fails | `rule-cut` | feat/T99 | p/a.md:99 | a \\| b c |"


def test_appending_adds_to_what_is_there_and_refuses_a_folder(tmp_path: Path) -> None:
    path = tmp_path / "summary.md"
    path.write_text("before\n")
    append_whole(path, "one\n")
    append_whole(path, "two\n")
    assert path.read_text() == "before\none\ntwo\n"
    with pytest.raises(WriteError):
        append_whole(tmp_path, "x")
