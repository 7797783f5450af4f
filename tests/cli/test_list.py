"""``ctxviewer list``: every task's context tokens (as assembled) against its budget, and its findings."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.helpers import CONTEXT_T1, assemble_json, run
from tests.factories import write


def test_list_json_tokens_are_assembles(three_features: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "list", str(three_features), "--format", "json")
    assert (code, err) == (0, "")
    data = json.loads(out)
    assert (data["project"], data["profile"], data["tokenizer"], data["budget"]) == (
        "proj",
        "mahabharatha",
        "heuristic",
        4000,
    )
    features = {f["name"]: f for f in data["features"]}
    assert list(features) == ["billing", "feat", "notes"]
    assert features["notes"]["problem"] == "no task graph" and features["notes"]["tasks"] == []
    tasks = {t["id"]: t for t in features["feat"]["tasks"]}
    assert list(tasks) == ["T1", "T2"]
    assert (tasks["T1"]["title"], tasks["T1"]["tokens"], tasks["T1"]["budget"]) == (
        "Login session",
        len(CONTEXT_T1) // 4,  # the pipeline's own estimate: characters // 4
        4000,
    )
    for feature, task in (("feat", "T1"), ("feat", "T2"), ("billing", "B-001")):
        trace = assemble_json(capsys, three_features, feature, task)
        listed = next(t for t in features[feature]["tasks"] if t["id"] == task)
        assert listed["tokens"] == trace["context_tokens"]["heuristic"]
        assert listed["chars"] == len(trace["context"])


def test_list_text_is_aligned_with_features_as_headers(
    three_features: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "list", str(three_features), "--budget", "1k")
    assert code == 0
    lines = out.splitlines()
    # findings (see test_list_counts_findings_by_severity): T2 1 error + 2 warnings, B-001 1 warning
    assert lines[0] == (
        "proj: 3 features, 3 tasks · profile mahabharatha · budget 1,000 heuristic tokens · "
        "findings: 1 error, 3 warnings"
    )
    assert lines[2] == "billing (1 task)" and "feat (2 tasks)" in lines and lines[-3] == "notes (no task graph)"
    assert lines[-1].startswith("TOKENS: the plugin's context; MEMORY and PROMPT: what the worker's session loads")
    table = [line for line in lines if line.startswith("  ")]
    header = table[0]
    assert header.split() == ["TASK", "TOKENS", "BUDGET", "USED", "MEMORY", "PROMPT", "FINDINGS", "TITLE"]
    end_tokens = header.index("TOKENS") + len("TOKENS")
    title_at = header.index("TITLE")
    rows = {line.split()[0]: line for line in table if not line.startswith("  TASK")}
    assert list(rows) == ["B-001", "T1", "T2"]
    used = len(CONTEXT_T1) // 4
    t1 = rows["T1"]
    assert t1[end_tokens - len(str(used)) : end_tokens] == str(used)  # right-aligned under TOKENS
    assert t1[title_at:] == "Login session"
    assert f"{100 * used / 1000:.0f}%" in t1  # share of the 1,000-token budget
    assert all(row[title_at - 2 : title_at] == "  " for row in rows.values())  # the title column lines up
    findings_at = header.index("FINDINGS")
    assert rows["T2"][findings_at:title_at].rstrip() == "1 error, 2 warnings"
    assert rows["T1"][findings_at:title_at].rstrip() == "-"


def test_list_counts_findings_by_severity(three_features: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # T1 gets its rule and all three paragraphs: nothing to say.  T2 ("Other work") has no task
    # file (no rule file) and no keyword in any paragraph: an empty context (error) and both
    # sections empty (warnings).  B-001 has its paragraph but no task file: rules empty.
    code, out, _ = run(capsys, "list", str(three_features), "--format", "json")
    assert code == 0
    data = json.loads(out)
    tasks = {t["id"]: t for f in data["features"] for t in f["tasks"]}
    assert tasks["T1"]["findings"] == {"error": 0, "warning": 0, "info": 0} and tasks["T1"]["finding_codes"] == []
    assert tasks["T2"]["findings"] == {"error": 1, "warning": 2, "info": 0}
    assert tasks["T2"]["finding_codes"] == ["context-empty", "section-empty"]
    assert tasks["B-001"]["findings"] == {"error": 0, "warning": 1, "info": 0}
    assert data["findings"] == {"error": 1, "warning": 3, "info": 0}


def test_list_feature_narrows_and_unknown_feature_is_exit_2(
    three_features: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "list", str(three_features), "--feature", "billing", "--format", "json")
    assert code == 0 and [f["name"] for f in json.loads(out)["features"]] == ["billing"]
    code, out, err = run(capsys, "list", str(three_features), "--feature", "nope")
    assert (code, out) == (2, "") and err.count("\n") == 1 and "no feature 'nope'" in err


def test_list_names_a_broken_task_graph_and_exits_2(three_features: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(three_features, ".gsd/specs/billing/task-graph.json", '{"tasks": [\n  {"id": "B-001",}\n]}')
    code, out, err = run(capsys, "list", str(three_features))
    assert code == 2
    assert "feat (2 tasks)" in out and "billing (.gsd/specs/billing/task-graph.json:2: invalid JSON" in out
    assert err.startswith("ctxviewer: .gsd/specs/billing/task-graph.json:2: invalid JSON")
