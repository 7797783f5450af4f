"""``check`` and ``diff`` for CI: SARIF that the official schema and a SARIF library accept, with
fingerprints that an unrelated edit leaves alone; GitHub annotations and the job summary; the
same exit codes whatever the format; and the changed files pre-commit passes to ``check``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from sarif.loader import load_sarif_file

from tests.cli.helpers import SAMPLES, run
from tests.engine.exports.test_sarif import sarif_errors
from tests.factories import make_git_project, make_project, write

REPO = SAMPLES.parent
SAMPLE_PROJECTS = sorted(p for p in SAMPLES.iterdir() if p.is_dir())
FINGERPRINT = "ctxviewerSite/v1"


@pytest.mark.parametrize("sample", SAMPLE_PROJECTS, ids=lambda p: p.name)
def test_sarif_of_every_sample_validates_loads_and_holds_every_finding(
    sample: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(REPO)  # paths in the log are from here, as in CI from the repository's root
    project = str(sample.relative_to(REPO))
    code, out, _ = run(capsys, "check", project, "--format", "json")
    expected = json.loads(out)
    sarif_code, _, _ = run(capsys, "check", project, "--format", "sarif", "-o", str(tmp_path / "c.sarif"))
    assert sarif_code == code
    log = json.loads((tmp_path / "c.sarif").read_text(encoding="utf-8"))
    assert sarif_errors(log) == []
    results = log["runs"][0]["results"]
    assert len(results) == len(expected["findings"]) + len(expected["over"])
    assert sorted(r["ruleId"] for r in results if r["ruleId"] != "over-limit") == sorted(
        f["code"] for f in expected["findings"]
    )
    for result in results:
        where = result["locations"][0]["physicalLocation"]
        path = REPO / where["artifactLocation"]["uri"]
        assert path.is_file() and path.is_relative_to(sample)
        lines = path.read_bytes().splitlines()
        assert 1 <= where["region"]["startLine"] <= len(lines)
    prints = [r["partialFingerprints"][FINGERPRINT] for r in results]
    assert len(set(prints)) == len(prints)
    # A SARIF library reads it back: the tool, every result, each at its file and line.
    loaded = load_sarif_file(str(tmp_path / "c.sarif"))
    assert loaded.get_distinct_tool_names() == ["ctxviewer"]
    records = loaded.get_records()
    assert len(records) == len(results)
    first = results[0]["locations"][0]["physicalLocation"] if results else None
    if first is not None:
        assert (records[0]["Location"], int(records[0]["Line"])) == (
            first["artifactLocation"]["uri"],
            first["region"]["startLine"],
        )


#: Budget 120: both "alpha" paragraphs score 1 and only the first fits, so the second is a
#: tie-by-order (tests/engine/analysis/test_findings.py works it by hand); the first
#: paragraph holds no "alpha", so it is no candidate and its size decides nothing.
FIRST, SECOND = "alpha " + "a" * 100, "alpha " + "b" * 100


def _fingerprinted(capsys: pytest.CaptureFixture[str], root: Path) -> dict[str, int]:
    code, out, _ = run(capsys, "check", str(root), "--budget", "120", "--format", "sarif")
    assert code == 0
    results = json.loads(out)["runs"][0]["results"]
    return {
        r["partialFingerprints"][FINGERPRINT]: r["locations"][0]["physicalLocation"]["region"]["startLine"]
        for r in results
    }


def test_fingerprints_survive_an_edit_elsewhere_and_change_with_the_finding(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    task = {"id": "T", "title": "alpha", "files": {}}
    root = make_project(tmp_path / "p", [task], requirements=f"Unrelated words.\n\n{FIRST}\n\n{SECOND}")
    before = _fingerprinted(capsys, root)
    # The tie on line 5 (1: unrelated, 3: first, 5: second), and section-empty (no task files, so
    # no rule file) on the task's line of the one-line task graph.
    assert sorted(before.values()) == [1, 5]
    write(root, ".gsd/specs/feat/requirements.md", f"Unrelated words,\nnow on two lines.\n\n{FIRST}\n\n{SECOND}")
    after = _fingerprinted(capsys, root)
    assert after.keys() == before.keys() and sorted(after.values()) == [1, 6]
    write(root, ".gsd/specs/feat/requirements.md", f"Unrelated words.\n\n{FIRST}\n\n{SECOND} edited")
    assert _fingerprinted(capsys, root).keys() != before.keys()  # the finding's own paragraph changed


def test_github_format_annotates_and_appends_the_whole_table_to_the_job_summary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    storefront = SAMPLES / "storefront-web"
    monkeypatch.chdir(REPO)
    code, out, _ = run(capsys, "check", str(storefront.relative_to(REPO)), "--format", "json")
    findings = json.loads(out)["findings"]
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    gh_code, out, _ = run(capsys, "check", str(storefront.relative_to(REPO)), "--format", "github")
    assert gh_code == code
    annotations = [line for line in out.splitlines() if line.startswith("::")]
    shown = [line for line in annotations if not line.startswith("::notice title=ctxviewer::")]
    assert len(shown) == min(len(findings), len(shown)) and len(annotations) <= 30
    assert all(line.startswith(("::error file=", "::warning file=", "::notice file=")) for line in shown)
    if len(findings) > len(shown):
        assert annotations[-1].startswith(f"::notice title=ctxviewer::{len(findings) - len(shown)} more not annotated")
    assert out.splitlines()[-2].startswith("0 of 16 tasks over")
    text = summary.read_text()
    assert text.startswith("earlier step\n### ctxviewer check\n")
    assert sum(1 for line in text.splitlines() if line.startswith("| ") and "`" in line) == len(findings)


def test_text_and_json_are_unchanged_by_the_new_formats(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # T2's context is empty: context-empty fails (tests/cli/test_check.py); every format exits 1.
    codes = {fmt: run(capsys, "check", str(project), "--format", fmt)[0] for fmt in ("text", "json", "sarif", "github")}
    assert set(codes.values()) == {1}


def test_changed_files_choose_what_check_runs(three_features: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = three_features
    elsewhere = root.parent / "other.md"
    elsewhere.write_text("x")
    code, out, err = run(capsys, "check", str(root), str(elsewhere))
    assert (code, out) == (0, "") and "none of the 1 file given is in" in err
    # A billing spec file: billing's one task only, which passes (feat's T2 is never run).
    code, out, _ = run(capsys, "check", str(root), str(root / ".gsd/specs/billing/requirements.md"))
    assert out.startswith("0 of 1 task over") and code == 0
    # A rule file can change every task: all three run, and feat/T2's empty context fails.
    rule = str(root / ".claude/rules/security/_core/owasp-2025.md")
    code, out, _ = run(capsys, "check", str(root), rule)
    assert out.splitlines()[-2].startswith("0 of 3 tasks over") and code == 1
    # After options too, as pre-commit passes them after a hook's args; still not an option.
    code, out, _ = run(capsys, "check", str(root), "--ignore", "context-empty", rule)
    assert out.startswith("0 of 3 tasks over") and code == 0
    with pytest.raises(SystemExit):
        run(capsys, "check", str(root), "--ignore", "context-empty", rule, "--nope")
    assert "unrecognized arguments: " in (err := capsys.readouterr().err) and err.rstrip().endswith("--nope")


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed: revision diffs need it")
def test_diff_as_sarif_and_github(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # tests/cli/test_diff.py: HEAD~1 -> HEAD, the context grows 28 -> 29 tokens (+3.57%);
    # paragraph 6 enters (its own text edited, line 11) and paragraph 5 leaves.
    repo = make_git_project(tmp_path / "proj")
    monkeypatch.chdir(tmp_path)
    args = ("diff", "proj", "--rev", "HEAD~1", "--rev", "HEAD", "--no-exact", "--fail-if-grows", "1")
    code, out, err = run(capsys, *args, "--format", "sarif")
    assert code == 1 and "more than the 1% allowed" in err
    log = json.loads(out)
    assert sarif_errors(log) == []
    results = log["runs"][0]["results"]
    assert [r["ruleId"] for r in results] == ["context-grew", "candidate-moved", "candidate-moved"]
    grew = results[0]["locations"][0]["physicalLocation"]
    assert grew["artifactLocation"]["uri"] == "proj/.gsd/specs/feat/task-graph.json" and results[0]["level"] == "error"
    entered = results[1]["locations"][0]["physicalLocation"]
    assert (entered["artifactLocation"]["uri"], entered["region"]["startLine"]) == (
        "proj/.gsd/specs/feat/requirements.md",
        11,
    )
    code, out, _ = run(capsys, *args, "--format", "github")
    assert code == 1
    assert out.splitlines()[0].startswith("::error file=proj/.gsd/specs/feat/task-graph.json,line=1,title=context-grew")
    last = out.splitlines()[-1]
    assert last.startswith("1 of 1 tasks changed from HEAD~1 (") and last.endswith("; 1 grew more than 1%")
    assert repo.is_dir()
