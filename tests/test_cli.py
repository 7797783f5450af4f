"""The command line: outputs, exit codes, and one clear line for each kind of bad input."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ctxviewer.cli import main
from tests.factories import make_project, write

TASK = {"id": "T1", "title": "Login session", "files": {"create": ["src/app.py"], "read": []}}
CORE = "## Rule: A\n**Level**: strict\n"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_project(
        tmp_path / "proj",
        [TASK, {"id": "T2", "title": "Other work", "files": {}}],
        requirements="Alpha login flow.\n\nBeta session store.",
        design="Login screen design.",
        rules={"_core/owasp-2025.md": CORE},
    )


def test_assemble_markdown_is_exactly_the_context(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "assemble", str(project), "--feature", "feat", "--task", "T1")
    assert code == 0 and err == ""
    assert out == (
        "## Security Rules (task-scoped)\n\n### _core/owasp-2025.md\n## Rule: A\n**Level**: strict"
        "\n\n## Relevant Requirements\n\nAlpha login flow.\n\nBeta session store."
        "\n\n## Relevant Design\n\nLogin screen design."
    )


def test_assemble_json_and_output_file(project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out_file = tmp_path / "trace.json"
    code, out, _ = run(
        capsys, "assemble", str(project), "--feature", "feat", "--task", "T1", "--format", "json", "-o", str(out_file)
    )
    assert code == 0 and out == ""
    data = json.loads(out_file.read_text(encoding="utf-8"))
    assert (data["feature"], data["task_id"], data["schema_version"]) == ("feat", "T1", "2.1")
    assert data["context_tokens"]["cl100k_base"] > 0


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


def test_batch_jsonl_and_csv(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "batch", str(project))
    lines = [json.loads(line) for line in out.splitlines()]
    assert code == 0
    assert [(d["feature"], d["task_id"]) for d in lines] == [("feat", "T1"), ("feat", "T2")]
    assert all("context" in d for d in lines)
    code, out, _ = run(capsys, "batch", str(project), "--format", "csv", "--no-exact")
    rows = out.splitlines()
    assert rows[0].startswith("feature,task,title,budget")
    assert rows[1].startswith("feat,T1,Login session,4000,")
    assert len(rows) == 3


def test_check_exit_codes(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # T2 ("Other work") has no task files (so no rule file) and neither 'other' nor 'work' is
    # in any paragraph: its context is empty, an error finding that fails the check.
    code, out, _ = run(capsys, "check", str(project))
    assert code == 1 and out.startswith("ERROR   context-empty  feat/T2: The task's context is empty")
    assert "0 of 2 tasks over 4,000 heuristic tokens\n1 of 2 tasks have findings that fail: context-empty 1" in out
    code, out, _ = run(capsys, "check", str(project), "--ignore", "context-empty")
    assert code == 0 and out.startswith("0 of 2 tasks over 4,000 heuristic tokens\n")
    code, out, _ = run(
        capsys, "check", str(project), "--max-tokens", "10", "--tokenizer", "cl100k_base", "--ignore", "context-empty"
    )
    assert code == 1  # over the limit, whatever the findings say
    assert "OVER  feat/T1:" in out and "\n1 of 2 tasks over 10 cl100k_base tokens\n" in out


def test_no_such_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "assemble", str(tmp_path / "nope"), "--feature", "f", "--task", "t")
    assert code == 2 and out == ""
    assert err == f"ctxviewer: {tmp_path / 'nope'}: no such folder\n"


def test_unknown_feature_lists_features(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "assemble", str(project), "--feature", "zzz", "--task", "T1")
    assert code == 2
    assert err.strip().endswith("no feature 'zzz' in .gsd/specs; features: feat")


def test_unknown_task_lists_tasks(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "assemble", str(project), "--feature", "feat", "--task", "T9")
    assert code == 2
    assert err == "ctxviewer: .gsd/specs/feat/task-graph.json: no task 'T9' in feature 'feat'; tasks: T1, T2\n"


def test_malformed_json_names_line(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(project, ".gsd/specs/feat/task-graph.json", '{"tasks": [\n  {"id": "T1",}\n]}')
    code, _, err = run(capsys, "batch", str(project))
    assert code == 2
    assert err.startswith("ctxviewer: .gsd/specs/feat/task-graph.json:2: invalid JSON:")
    assert err.count("\n") == 1


def test_malformed_yaml_names_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "y"
    write(root, ".gsd/specs/feat/task-graph.yaml", "tasks:\n  - id: T1\n    title: [unclosed\n")
    code, _, err = run(capsys, "assemble", str(root), "--feature", "feat", "--task", "T1")
    assert code == 2
    assert err.startswith("ctxviewer: .gsd/specs/feat/task-graph.yaml:4: invalid YAML:")


def test_malformed_config_yaml(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(project, "ctxviewer.yaml", "budget:\n  total: lots\n")
    code, _, err = run(capsys, "assemble", str(project), "--feature", "feat", "--task", "T1")
    assert code == 2
    assert err == (
        "ctxviewer: ctxviewer.yaml: budget.total: must be a whole number of tokens (4000, 4,000 or 4k), not 'lots'\n"
    )


def test_non_utf8_spec_writes_output_then_exits_2(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(project, ".gsd/specs/feat/design.md", b"ok\n\xff\xfe bad\n")
    code, out, err = run(capsys, "assemble", str(project), "--feature", "feat", "--task", "T1")
    assert code == 2
    assert out.startswith("## Security Rules")  # the pipeline tolerates it: spec left out
    assert err.startswith("ctxviewer: .gsd/specs/feat/design.md:2: not UTF-8 (byte 0xff at line 2)")


def test_binary_spec_is_reported(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(project, ".gsd/specs/feat/requirements.md", "Alpha login\x00 flow.")
    code, _, err = run(capsys, "assemble", str(project), "--feature", "feat", "--task", "T1")
    assert code == 2
    assert "requirements.md: binary content (NUL bytes)" in err


def test_unreadable_spec(project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    real_open = os.open

    def guarded(path: object, flags: int, *args: object) -> int:
        if str(path).endswith("requirements.md"):
            raise PermissionError(13, "Permission denied")
        return real_open(path, flags, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "open", guarded)
    code, out, err = run(capsys, "assemble", str(project), "--feature", "feat", "--task", "T1")
    assert code == 2
    assert "requirements.md: cannot be read (Permission denied)" in err
    assert "## Relevant Design" in out  # the design file still counts, as in the real system


def test_task_path_outside_project_is_not_touched(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    secret = project.parent / "secret.py"
    secret.write_text("x" * 4000, encoding="utf-8")
    task = {"id": "T1", "title": "Login", "files": {"modify": ["../secret.py", str(secret)]}}
    write(project, ".gsd/specs/feat/task-graph.json", json.dumps({"tasks": [task]}))
    code, out, _ = run(capsys, "assemble", str(project), "--feature", "feat", "--task", "T1", "--format", "json")
    data = json.loads(out)
    assert code == 0
    assert data["tracker"]["files_read"] == 0
    notes = [f["note"] for f in data["tracker"]["files"]]
    assert any("goes above the project root" in n for n in notes)
    assert any("absolute path outside the project" in n for n in notes)


def test_split_preview_and_apply(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "c"
    body = "# Title\n" + "".join(f"## Part {i}\n" + "text\n" * 29 for i in range(11))
    write(root, ".claude/commands/sub/big.md", body)
    write(root, ".claude/commands/small.md", "# small\nline\n")
    write(root, ".gsd/specs/.keep", "")
    code, out, _ = run(capsys, "split", str(root), "--no-exact")
    assert code == 0
    assert "SPLIT .claude/commands/sub/big.md: 332 lines" in out
    assert "keep  .claude/commands/small.md: 3 lines" in out
    assert not (root / ".claude/commands/sub/big.core.md").exists()
    code, out, _ = run(capsys, "split", str(root), "--apply", "--no-exact")
    assert code == 0
    assert (root / ".claude/commands/sub/big.core.md").exists()
    assert (root / ".claude/commands/sub/big.details.md").exists()


def test_module_entry_point_runs(project: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "ctxviewer", "assemble", str(project), "--feature", "feat", "--task", "T2"],
        capture_output=True,
        text=True,
        check=False,
    )
    # T2 has no files and title words 'other', 'work' match nothing: the context is empty.
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")


SAMPLE_ROOTS = __import__("tests.conftest", fromlist=["sample_projects"]).sample_projects()


@pytest.mark.parametrize("root", SAMPLE_ROOTS, ids=[p.name for p in SAMPLE_ROOTS])
def test_every_command_works_on_samples(root: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    from ctxviewer.engine.project.loading import load_project

    project = load_project(root)
    feature, task = project.tasks()[0]
    code, out, _ = run(capsys, "assemble", str(root), "--feature", feature.name, "--task", task.id)
    assert code in (0, 2) and out
    code, out, _ = run(capsys, "batch", str(root), "--no-exact", "--format", "csv")
    assert code in (0, 2) and len(out.splitlines()) == len(project.tasks()) + 1
    code, out, _ = run(capsys, "check", str(root))
    assert code in (0, 1) and "tasks over" in out
    code, out, _ = run(capsys, "split", str(root), "--no-exact")
    assert code in (0, 2)


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


def test_follow_once_prints_the_trackers_usage(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "w.jsonl"
    log.write_text(
        '{"ts": 0, "event": "task_executed", "id": "A"}\n'
        '{"ts": 60, "event": "file_read", "path": "x.py", "size": 4000}\n'
        '{"ts": 120, "event": "tool_call", "count": 4}\n'
        '{"ts": 180, "event": "tool_call"}',  # no newline: with --once it is the last line all the same
        encoding="utf-8",
    )
    code, out, err = run(capsys, "follow", str(log), "--once", "--set", "max_context_tokens=2000", "--format", "json")
    # 500 (task) + 4000*0.25+100 (read) + 5*50 (tools) + int(3 min * 100) = 2,150 tokens.
    assert code == 0 and err == ""
    data = json.loads(out)
    assert (data["estimated_tokens"], data["tool_calls"], data["events"]) == (2150, 5, 4)
    # After the read (1 min in): 500 + 1,100 + 100 = 1,700 >= 70% of 2,000, so event index 1.
    assert data["is_over_threshold"] and data["first_checkpoint"] == 1


def test_follow_once_reports_bad_lines_and_a_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "w.jsonl"
    log.write_text('{"ts": 0, "event": "task_executed", "id": "A"}\nnot json\n', encoding="utf-8")
    code, out, err = run(capsys, "follow", str(log), "--once")
    assert code == 1 and "line 2" in err and "500 / 200,000 tokens" in out
    code, _, err = run(capsys, "follow", str(tmp_path / "nope.jsonl"), "--once")
    assert code == 2 and "no such log file" in err


def test_whatif_compares_two_settings(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(
        capsys, "whatif", str(project), "--feature", "feat", "--task", "T1",
        "--baseline-set", "top_k=2", "--set", "top_k=1", "--format", "json", "--no-exact",
    )  # fmt: skip
    assert code == 0 and err == ""
    data = json.loads(out)
    assert data["settings"] == [{"key": "top_k", "before": 2, "after": 1}]
    # 'Beta session store.' (requirements paragraph 2, rank 2) leaves with top_k 1.
    left = [c for c in data["items"] if c["change"] == "left"]
    assert [c["item_id"] for c in left] == ["requirements:2"]
    assert "-Beta session store." in data["context_diff"]


def test_check_with_no_tasks_is_bad_input_and_a_wrong_path_is_noted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_project(tmp_path / "p", [TASK], requirements="Login.")
    write(root, "ctxviewer.yaml", "paths:\n  specs: nope/specs\n  rules: nope/rules\n")
    code, out, err = run(capsys, "check", str(root))
    assert code == 2 and out == ""
    assert "note: nope/specs: no specs folder" in err
    assert "note: paths.rules is nope/rules (ctxviewer.yaml), which is not a folder in the project" in err
    assert "no tasks to check" in err


def test_follow_refuses_a_folder_and_a_too_short_interval(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "follow", str(tmp_path), "--once")
    assert code == 2 and "is a folder, not a log file" in err
    code, _, err = run(capsys, "follow", str(tmp_path / "x.jsonl"), "--interval", "0")
    assert code == 2 and "--interval: 0 s is too short" in err


def test_follow_once_status_counts_the_finished_last_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "w.jsonl"
    log.write_text('{"ts": 0, "event": "task_executed", "id": "A"}\n{"ts": 60, "event": "tool_call"}', encoding="utf-8")
    code, out, _ = run(capsys, "follow", str(log), "--once")
    assert code == 0 and "2 events:" in out and "1 task, 0 files, 1 tool call, 1.0 min" in out


CONTEXT_T1 = (
    "## Security Rules (task-scoped)\n\n### _core/owasp-2025.md\n## Rule: A\n**Level**: strict"
    "\n\n## Relevant Requirements\n\nAlpha login flow.\n\nBeta session store."
    "\n\n## Relevant Design\n\nLogin screen design."
)


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


def test_check_counts_in_the_unit_the_profile_decides_with(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    quiet = ("--ignore", "context-empty,section-empty")  # T2's context is empty (test_check_exit_codes)
    code, out, _ = run(capsys, "check", str(project), "--profile", "shaktiman", *quiet)
    assert code == 0 and out.endswith("0 of 2 tasks over 4,000 cl100k_base tokens\n")
    code, out, _ = run(capsys, "check", str(project), "--profile", "drift", *quiet)
    assert out.endswith("0 of 2 tasks over 4,000 heuristic tokens\n")


def test_options_are_never_abbreviated(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["compare", str(project), "--feature", "feat", "--task", "T1", "--profile", "drift"])
    assert exited.value.code == 2
    assert "the following arguments are required: --profiles" in capsys.readouterr().err


def test_assemble_says_the_trace_warnings_on_stderr(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["assemble", str(project), "--feature", "feat", "--task", "T1", "--profile", "drift"]
    code, out, err = run(capsys, *argv, "--set", "budget=20", "--set", "drift_priority=design")
    assert code == 0 and out
    assert err.startswith("ctxviewer: note: drift: the context is still ") and "over the budget of 20" in err


def test_debug_prints_the_context_debug_record_to_stderr(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(
        project,
        ".mahabharatha/context-map.yaml",
        "knowledge:\n  - {type: pattern, summary: Hash session ids, tags: [session]}\n",
    )
    argv = ("assemble", str(project), "--feature", "feat", "--task", "T1", "--profile", "computed", "--debug")
    code, out, err = run(capsys, *argv)
    assert code == 0
    assert out.startswith("## Context (Computed)\n\n### Patterns to Follow\n- **Hash session ids**\n")
    # title "Login session": keywords login, session; login and session both trigger auth
    assert err.startswith(
        "## Context Debug\n\n### Signals Extracted\n- Keywords: [login, session]\n- Domains: [auth]\n"
        "- Files Mentioned: []\n- Task: []\n\n### Knowledge Graph Query\n"
        "- Source: .mahabharatha/context-map.yaml\n- Nodes matched: 1\n- Patterns found: 1 (kept 1)\n"
    )
    # another profile: the signals part, and a line saying the rest is the computed profile's
    code, out, err = run(capsys, *argv[:-3], "--debug")
    assert code == 0 and out.startswith("## Security Rules")
    assert "- Keywords: [login, session]" in err and "the mahabharatha profile computes no knowledge" in err
