"""Finding a run's files from a project folder, its upstream folder, its state folder or one file."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxviewer.engine.errors import ProjectError
from ctxviewer.engine.runfiles.rundir import discover_run, rescan, scan_signature, worker_of_log


def touch(root: Path, *rels: str) -> None:
    for rel in rels:
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("{}\n")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    touch(
        tmp_path,
        ".mahabharatha/config.yaml",
        ".mahabharatha/logs/workers/worker-10.jsonl",
        ".mahabharatha/logs/workers/worker-2.jsonl",
        ".mahabharatha/logs/workers/worker-2.jsonl.1",
        ".mahabharatha/logs/workers/worker-orchestrator.jsonl",
        ".mahabharatha/state/shop.json",
        ".mahabharatha/state/shop.json.bak",
        ".mahabharatha/state/shop.lock",
        ".mahabharatha/state/tokens-2.json",
        ".mahabharatha/state/token-cache.json",
        ".mahabharatha/state/heartbeat-2.json",
        ".mahabharatha/state/progress-2.json",
        ".mahabharatha/state/shop-events.jsonl",
        ".zerg/config.yaml",
        ".zerg/logs/workers/worker-3.jsonl.1",  # rotated, and nothing written since
        ".zerg/state/legacy.json",
        ".zerg/state/tokens-unknown.json",
    )
    return tmp_path


def test_a_project_with_both_layouts(project: Path) -> None:
    run = discover_run(project)
    assert run.root == project.resolve()
    assert run.layouts == (".mahabharatha", ".zerg")
    # Numbered workers in number order, then named ones; a log seen only as .1 is listed by its name.
    assert run.worker_logs == (
        ".mahabharatha/logs/workers/worker-2.jsonl",
        ".zerg/logs/workers/worker-3.jsonl",
        ".mahabharatha/logs/workers/worker-10.jsonl",
        ".mahabharatha/logs/workers/worker-orchestrator.jsonl",
    )
    assert run.state_files == (".mahabharatha/state/shop.json", ".zerg/state/legacy.json")
    assert run.token_records == (".mahabharatha/state/tokens-2.json", ".zerg/state/tokens-unknown.json")
    assert run.config == ".mahabharatha/config.yaml"
    assert run.heartbeats == (".mahabharatha/state/heartbeat-2.json",)


@pytest.mark.parametrize("named", [".zerg", ".zerg/state", ".zerg/logs", ".zerg/logs/workers"])
def test_the_upstream_folder_or_one_inside_it_is_the_whole_layout(project: Path, named: str) -> None:
    run = discover_run(project / named)
    assert run.root == project.resolve() and run.layouts == (".zerg",)
    assert run.worker_logs == (".zerg/logs/workers/worker-3.jsonl",)
    assert run.state_files == (".zerg/state/legacy.json",)
    assert run.token_records == (".zerg/state/tokens-unknown.json",)
    assert run.config == ".zerg/config.yaml"


def test_a_single_file(project: Path) -> None:
    rotated = discover_run(project / ".zerg/logs/workers/worker-3.jsonl.1")
    assert rotated.root == project.resolve()
    assert (rotated.worker_logs, rotated.state_files, rotated.token_records) == (
        (".zerg/logs/workers/worker-3.jsonl",),
        (),
        (),
    )
    assert rotated.config == ".zerg/config.yaml"
    state = discover_run(project / ".mahabharatha/state/shop.json")
    assert (state.worker_logs, state.state_files, state.config) == (
        (),
        (".mahabharatha/state/shop.json",),
        ".mahabharatha/config.yaml",
    )
    tokens = discover_run(project / ".mahabharatha/state/tokens-2.json")
    assert tokens.token_records == (".mahabharatha/state/tokens-2.json",) and tokens.state_files == ()


def test_a_file_outside_any_layout(tmp_path: Path) -> None:
    touch(tmp_path, "copy/worker-4.jsonl")
    run = discover_run(tmp_path / "copy" / "worker-4.jsonl")
    assert run.root == (tmp_path / "copy").resolve() and run.worker_logs == ("worker-4.jsonl",)
    assert run.config is None and run.layouts == ()


def test_a_plain_folder_of_copied_files(tmp_path: Path) -> None:
    touch(tmp_path, "state/shop.json", "state/tokens-1.json", "workers/worker-1.jsonl", "worker-2.jsonl", "notes.txt")
    run = discover_run(tmp_path)
    assert run.worker_logs == ("workers/worker-1.jsonl", "worker-2.jsonl")
    assert run.state_files == ("state/shop.json",) and run.token_records == ("state/tokens-1.json",)


def test_nothing_to_read_is_a_clear_error(tmp_path: Path) -> None:
    touch(tmp_path, ".zerg/config.yaml", "readme.md")
    with pytest.raises(ProjectError, match="no worker logs"):
        discover_run(tmp_path)
    with pytest.raises(ProjectError, match="no such file or folder"):
        discover_run(tmp_path / "nowhere")
    with pytest.raises(ProjectError, match="not a worker log"):
        discover_run(tmp_path / "readme.md")


def test_worker_of_log() -> None:
    assert worker_of_log("worker-7.jsonl") == "7"
    assert worker_of_log("worker-orchestrator.jsonl.1") == "orchestrator"
    assert worker_of_log("worker-7.json") is None and worker_of_log("shop-events.jsonl") is None


def test_rescan_finds_files_added_since(project: Path) -> None:
    run = discover_run(project / ".zerg")
    signature = scan_signature(run)
    touch(project, ".zerg/logs/workers/worker-9.jsonl", ".zerg/state/tokens-9.json")
    assert scan_signature(run) != signature
    again = rescan(run)
    assert again.worker_logs == (".zerg/logs/workers/worker-3.jsonl", ".zerg/logs/workers/worker-9.jsonl")
    assert again.token_records == (".zerg/state/tokens-9.json", ".zerg/state/tokens-unknown.json")
    single = discover_run(project / ".zerg/state/legacy.json")
    assert rescan(single) is single and scan_signature(single) == ()
