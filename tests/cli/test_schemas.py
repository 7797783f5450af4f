"""Every JSON output of every command, on every sample project under every profile, validates
against its published schema (``ctxviewer schema NAME``) and carries that schema's version;
``follow``'s run documents on a generated run, and ``verify`` where the upstream oracle is."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from ctxviewer.engine.exports.schemas import SCHEMA_VERSIONS, schema
from ctxviewer.engine.registry import PROFILES
from tests.cli.helpers import SAMPLES, run
from tests.factories import git
from tests.runfactory import write_run

SAMPLE_PROJECTS = sorted(p for p in SAMPLES.iterdir() if p.is_dir())


def validator(name: str) -> Draft202012Validator:
    return Draft202012Validator(schema(name), format_checker=Draft202012Validator.FORMAT_CHECKER)


def problems(name: str, document: object) -> list[str]:
    """What the schema *name* says is wrong with *document* (nothing: it validates)."""
    errors = validator(name).iter_errors(document)
    return [f"{name} {'/'.join(map(str, e.absolute_path))}: {e.message[:300]}" for e in errors]


def outputs(capsys: pytest.CaptureFixture[str], sample: Path, profile: str, work: Path) -> Iterator[tuple[str, object]]:
    """(schema name, JSON output) of every command with a JSON output, on *sample*'s first task."""
    root = str(sample)
    prof = ("--profile", profile)
    out = run(capsys, "list", root, *prof, "--format", "json")[1]
    listed = json.loads(out)
    yield "list", listed
    feature = listed["features"][0]["name"]
    task = listed["features"][0]["tasks"][0]["id"]
    one = ("--feature", feature, "--task", task)
    yield "trace", json.loads(run(capsys, "assemble", root, *one, *prof, "--format", "json")[1])
    for line in run(capsys, "batch", root, *prof, "--format", "jsonl", "--no-exact")[1].splitlines():
        yield "batch-row", json.loads(line)
    yield "check", json.loads(run(capsys, "check", root, *prof, "--format", "json")[1])
    yield "why", json.loads(run(capsys, "why", root, *one, "the", *prof, "--format", "json")[1])
    yield (
        "sweep",
        json.loads(run(capsys, "sweep", root, "--feature", feature, "--budget", "2000", *prof, "--format", "json")[1]),
    )
    yield "prompt", json.loads(run(capsys, "prompt", root, *one, *prof, "--format", "json")[1])
    yield "window", json.loads(run(capsys, "window", root, *one, *prof, "--format", "json")[1])
    yield (
        "compare",
        json.loads(run(capsys, "compare", root, *one, "--profiles", f"{profile},drift", "--format", "json")[1]),
    )
    yield "whatif", json.loads(run(capsys, "whatif", root, *one, *prof, "--set", "budget=1500", "--format", "json")[1])
    if shutil.which("git") is not None:
        copy = work / sample.name
        if not copy.exists():
            shutil.copytree(sample, copy)
            git(copy, "init", "-q", "-b", "main")
            git(copy, "add", "-A")
            git(copy, "commit", "-q", "-m", "sample")
            with (copy / listed["features"][0]["task_graph"]).parent.joinpath("requirements.md").open("a") as spec:
                spec.write("\nMore.\n")
        yield (
            "diff",
            json.loads(
                run(
                    capsys, "diff", str(copy), "--rev", "HEAD", *one, "--set", f"profile={profile}", "--format", "json"
                )[1]
            ),
        )


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("sample", SAMPLE_PROJECTS, ids=lambda p: p.name)
def test_every_json_output_validates_against_its_schema(
    sample: Path, profile: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    seen: set[str] = set()
    found: list[str] = []
    for name, document in outputs(capsys, sample, profile, tmp_path):
        seen.add(name)
        found += problems(name, document)
        assert isinstance(document, dict) and document["schema_version"] == SCHEMA_VERSIONS[name]
    assert found == []
    assert seen >= {"list", "trace", "batch-row", "check", "why", "sweep", "prompt", "window", "compare", "whatif"}


def test_follow_documents_of_a_run_and_of_an_event_log_validate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    generated = write_run(tmp_path / "run", workers=3, lines=600)
    code, out, _ = run(capsys, "follow", str(generated.root), "--once", "--format", "json")
    assert problems("follow", json.loads(out)) == []
    assert run(capsys, "follow", str(generated.root), "--once", "--format", "jsonl")[0] == code
    out = run(capsys, "follow", str(generated.root), "--once", "--format", "jsonl")[1]
    lines = [json.loads(line) for line in out.splitlines()]
    assert lines and [p for line in lines for p in problems("follow-change", line)] == []
    log = SAMPLES / "ledger-service/.mahabharatha/logs/worker-auth-sessions.jsonl"
    out = run(capsys, "follow", str(log), "--once", "--format", "json")[1]
    (line,) = out.splitlines()
    assert problems("follow-events", json.loads(line)) == []


def test_the_schema_command_lists_and_prints_them(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "schema")
    assert code == 0 and [line.split()[0] for line in out.splitlines()] == list(SCHEMA_VERSIONS)
    assert out.splitlines()[2].split()[:2] == ["check", SCHEMA_VERSIONS["check"]]
    code, out, _ = run(capsys, "schema", "check")
    assert code == 0 and json.loads(out) == schema("check")
    code, out, err = run(capsys, "schema", "checks")
    assert (code, out) == (2, "") and "no schema 'checks'" in err
