"""Upstream's own counts where the CLI shows counts (``list``, ``assemble``), and
``batch --format tokens``: the token records a worker would write for the batch."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.cli.helpers import run
from tests.factories import make_project

# Security off, no rules, no sources: T1's context is the spec section (59 characters, 15 by
# round(len / 4), see tests/engine/exports/test_token_records.py) and the MCP line ("build"
# asks for ui); T2 has no files and no keyword of the spec ("audit", "trail", "review"), so
# only its MCP line ("review" asks for a capability) is built.
TASKS = [
    {"id": "T1", "title": "Session store", "description": "Build the session store", "files": {"create": ["a.py"]}},
    {"id": "T2", "title": "Audit trail", "description": "Review the audit"},
]
SPEC = "The session store keeps sessions."
CONFIG = "plugins:\n  context_engineering:\n    security_rule_filtering: false\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_project(tmp_path / "p", TASKS, requirements=SPEC, config=CONFIG)


def test_batch_tokens_writes_upstreams_record_file(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out_file = project.parent / "tokens-ctxviewer.json"
    code, out, err = run(
        capsys, "batch", str(project), "--format", "tokens", "--set", "upstream=zerg-ai-0.3.2",
        "--set", "worker_id=2", "-o", str(out_file),
    )  # fmt: skip
    assert (code, out, err) == (0, "", "")
    text = out_file.read_text(encoding="utf-8")
    data = json.loads(text)
    assert list(data) == ["worker_id", "tasks", "cumulative"] and data["worker_id"] == "2"
    assert list(data["tasks"]) == ["T1", "T2"]
    t1, t2 = data["tasks"]["T1"], data["tasks"]["T2"]
    assert list(t1) == ["breakdown", "total", "mode", "timestamp"]
    assert list(t1["breakdown"]) == ["spec_excerpt", "mcp_hints"] and t1["breakdown"]["spec_excerpt"] == 15
    assert list(t2["breakdown"]) == ["mcp_hints"]  # no files: no spec keywords from files, no map
    assert t1["total"] == sum(t1["breakdown"].values()) and t1["mode"] == "estimated"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00", t1["timestamp"])
    assert data["cumulative"] == {"total_tokens": t1["total"] + t2["total"], "tasks_completed": 2}
    assert text.startswith('{\n  "worker_id": "2",\n  "tasks": {\n    "T1": {\n      "breakdown": {\n')
    # The records are the traces' token_record, task by task.
    code, out, err = run(capsys, "batch", str(project), "--no-exact", "--set", "upstream=zerg-ai-0.3.2")
    lines = [json.loads(line) for line in out.splitlines()]
    assert [line["token_record"] for line in lines] == [t1["breakdown"], t2["breakdown"]]


def test_batch_tokens_refuses_a_version_that_keeps_no_records(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out_file = project.parent / "tokens.json"
    code, out, err = run(capsys, "batch", str(project), "--format", "tokens", "-o", str(out_file))
    assert (code, out) == (2, "")
    assert err.count("\n") == 1 and "no token records: upstream keeps them from zerg-ai 0.3.2 on" in err
    assert "this batch ran 2026-01-30" in err and not out_file.exists()
    code, out, err = run(capsys, "batch", str(project), "--format", "tokens", "--profile", "drift")
    assert code == 2 and "this batch ran no upstream version" in err


def test_list_shows_upstreams_own_count_beside_the_decisions(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "list", str(project), "--set", "upstream=zerg-ai-0.3.2", "--format", "json")
    assert code == 0
    (feature,) = json.loads(out)["features"]
    t1 = feature["tasks"][0]
    assert t1["own_estimate"] == "round(len / 4)"
    assert t1["own_tokens"] == max(1, round(t1["chars"] / 4)) and t1["tokens"] == t1["chars"] // 4
    code, out, err = run(capsys, "list", str(project), "--set", "upstream=zerg-ai-0.3.2")
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[1] == "UPSTREAM: the task's context by the upstream version's own estimate, round(len / 4)"
    header = next(line for line in lines if line.strip().startswith("TASK"))
    assert header.split() == ["TASK", "TOKENS", "UPSTREAM", "BUDGET", "USED", "MEMORY", "PROMPT", "FINDINGS", "TITLE"]
    row = next(line for line in lines if line.strip().startswith("T1 "))
    assert row.split()[1:3] == [f"{t1['tokens']:,}", f"{t1['own_tokens']:,}"]
    code, out, _err = run(capsys, "list", str(project))  # the seed's: its own estimate is the TOKENS column
    assert "UPSTREAM" not in out
    assert (
        json.loads(run(capsys, "list", str(project), "--format", "json")[1])["features"][0]["tasks"][0]["own_estimate"]
        == "len // 4"
    )


def test_assemble_notes_upstreams_own_count(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(
        capsys, "assemble", str(project), "--feature", "feat", "--task", "T1", "--set", "upstream=latest"
    )
    assert code == 0
    own, heuristic = max(1, round(len(out) / 4)), len(out) // 4
    assert (
        f"note: the context is {own:,} tokens as today's nine-section pipeline (mahabharatha main) estimates it, "
        f"round(len / 4) ({heuristic:,} by len // 4; "
        "exact counts: --format json or html)"
    ) in err
    code, out, err = run(capsys, "assemble", str(project), "--feature", "feat", "--task", "T1")
    assert "estimates it" not in err
