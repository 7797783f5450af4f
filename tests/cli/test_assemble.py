"""``ctxviewer assemble``: exactly the context, the trace, the pipeline's warnings and the debug record."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.helpers import run
from tests.factories import write


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
    assert (data["feature"], data["task_id"], data["schema_version"]) == ("feat", "T1", "2.3")
    assert data["context_tokens"]["cl100k_base"] > 0


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


def test_the_html_report_carries_the_workers_prompt(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The command line's report is the window's: the worker's prompt (its parts and text) is in it."""
    code, out, _ = run(capsys, "assemble", str(project), "--feature", "feat", "--task", "T1", "--format", "html")
    assert code == 0
    section = out.split('<section id="prompt">', 1)[1].split("</section>", 1)[0]
    # The prompt's task header names the task and its title (the project's text, escaped).
    assert "T1" in section and "Login session" in section


def test_the_json_trace_carries_the_workers_prompt_beside_it(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from ctxviewer.engine.trace.model import trace_from_json

    code, out, _ = run(capsys, "assemble", str(project), "--feature", "feat", "--task", "T1", "--format", "json")
    assert code == 0
    data = json.loads(out)
    prompt = data["worker_prompt"]
    # The parts cover the prompt's text end to end, and the task's title is in it.
    spans = [part["span"] for part in prompt["parts"]]
    assert spans[0][0] == 0 and spans[-1][1] == len(prompt["prompt"])
    assert "Login session" in prompt["prompt"]
    assert trace_from_json(data).task_id == "T1"  # the trace still reads back
