"""The window layout: each block's size worked out from the project's files and the settings."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ctxviewer.engine.project.loading import load_project
from ctxviewer.engine.runs.pipeline import assemble
from ctxviewer.engine.trace.model import WindowLayout
from tests.factories import make_project, write

CMDS = ".claude/commands"


def layout(root: Path, exact: bool = False, **overrides: Any) -> WindowLayout:
    trace = assemble(load_project(root), "feat", "T1", overrides or None, exact=exact)
    assert trace.window is not None
    return trace.window


def sizes(window: WindowLayout) -> dict[str, int]:
    return {b.name: b.tokens for b in window.blocks}


def test_defaults_draw_what_the_worker_receives_and_reserve_a_fifth(tmp_path: Path) -> None:
    make_project(tmp_path, [{"id": "T1", "title": "x", "files": {"read": ["src/a.py"]}}])
    write(tmp_path, "src/a.py", "a" * 1000)
    write(tmp_path, "CLAUDE.md", "m" * 400)
    window = layout(tmp_path)
    assert window.window == 200_000 and window.reserve_percent == 20.0
    # No command file and no base prompt: upstream's worker loads none unless settings name one.
    assert window.block("command") is None and window.block("base_prompt") is None
    # The prompt: its title, its files and the fixed instructions, each part len // 4.
    parts = [
        "# Task: x\n",
        "## Files\nReference: src/a.py\n",
        "## Instructions\nImplement the task as specified. Make all necessary changes.\n"
        "Do NOT commit - the orchestrator handles commits.",
    ]
    # Project memory: the worktree's CLAUDE.md with its framing line (the main checkout's copy
    # does not load again).
    framing = f"Contents of {tmp_path.resolve()}/.zerg-worktrees/feat/worker-0/CLAUDE.md "
    framing += "(project instructions, checked into the codebase):\n\n"
    # conversation: 500 for the task + int(1000 * 0.25) + 100 for the read
    assert sizes(window) == {
        "system_prompt": 3_200,
        "tools": 11_600,
        "user_memory": 0,
        "memory": (len(framing) + 400) // 4,
        "prompt": sum(len(p) // 4 for p in parts),
        "conversation": 500 + 250 + 100,
        "reserve": 40_000,
    }
    assert window.thresholds == (("checkpoint", 70.0), ("compaction", 75.0))
    assert window.free == 200_000 - sum(sizes(window).values())
    assert all(window.block(n).note.startswith("stated: ") for n in ("system_prompt", "tools", "user_memory"))  # type: ignore[union-attr]


def test_a_base_prompt_file_is_counted(tmp_path: Path) -> None:
    make_project(tmp_path, [{"id": "T1", "title": "x"}])
    write(tmp_path, "prompts/base.md", "b" * 1234)
    block = layout(tmp_path, base_prompt="prompts/base.md").block("base_prompt")
    assert block is not None and (block.tokens, block.estimate, block.source) == (308, 308, "prompts/base.md")


def test_a_missing_base_prompt_file_falls_back_to_the_assumed_size_and_says_so(tmp_path: Path) -> None:
    make_project(tmp_path, [{"id": "T1", "title": "x"}])
    block = layout(tmp_path, base_prompt="prompts/none.md", base_prompt_tokens=123).block("base_prompt")
    assert block is not None and block.tokens == 123 and "assumed 123 tokens" in block.note


def _command(lines: int) -> str:
    """*lines* lines of 10 characters (9 and a newline), a ``#`` heading every 40."""
    return "".join("# Heading\n" if i % 40 == 0 else "line xxxx\n" for i in range(lines))


def test_an_unsplit_long_command_is_loaded_whole_and_the_saving_named(tmp_path: Path) -> None:
    make_project(tmp_path, [{"id": "T1", "title": "x"}])
    write(tmp_path, f"{CMDS}/team/worker.md", _command(320))  # 3,200 chars: 800 tokens
    write(tmp_path, f"{CMDS}/team/rush.md", "short\n")
    block = layout(tmp_path, window_command="team/worker.md").block("command")
    assert block is not None
    assert (block.tokens, block.full, block.source) == (800, 800, f"{CMDS}/team/worker.md")
    assert block.title == "Command (full)" and "not split: loads the whole file; a split would load" in block.note


def test_a_split_command_loads_its_core_as_the_reference_loader_does(tmp_path: Path) -> None:
    make_project(tmp_path, [{"id": "T1", "title": "x"}])
    write(tmp_path, f"{CMDS}/worker.md", "w" * 4000)
    write(tmp_path, f"{CMDS}/worker.core.md", "c" * 1000)
    block = layout(tmp_path, window_command="worker.md").block("command")
    assert block is not None
    assert (block.tokens, block.full, block.source) == (250, 1000, f"{CMDS}/worker.core.md")
    assert "saves 750" in block.note


def test_window_command_chooses_the_file(tmp_path: Path) -> None:
    make_project(tmp_path, [{"id": "T1", "title": "x"}])
    write(tmp_path, f"{CMDS}/worker.md", "w" * 4000)
    write(tmp_path, f"{CMDS}/ops/run.md", "r" * 400)
    block = layout(tmp_path, window_command="ops/run.md").block("command")
    assert block is not None and (block.tokens, block.source) == (100, f"{CMDS}/ops/run.md")
    assert "under the splitter's 300" in block.note


def test_the_prompt_and_memory_blocks_are_the_workers_window(tmp_path: Path) -> None:
    make_project(tmp_path, [{"id": "T1", "title": "Login"}], requirements="Login form.\n")
    write(tmp_path, "CLAUDE.md", "Be brief.\n")
    trace = assemble(load_project(tmp_path), "feat", "T1", exact=True)
    assert trace.window is not None and trace.worker is not None
    prompt, memory = trace.window.block("prompt"), trace.window.block("memory")
    assert prompt is not None and memory is not None
    parts = [b for b in trace.worker.blocks if b.kind == "prompt"]
    assert (prompt.tokens, prompt.exact) == (sum(b.tokens.cl100k_base or 0 for b in parts),) * 2
    assert prompt.title == "Prompt (spec fallback)"
    loaded = [b for b in trace.worker.blocks if b.kind == "memory" and b.loaded]
    assert [b.source for b in loaded] == ["CLAUDE.md"]
    assert memory.tokens == loaded[0].tokens.cl100k_base and memory.title == "Project memory (1 file)"
    # The plugin's assembled context is not a block: it reaches the worker only in a task's context.
    assert trace.window.block("task_context") is None


def test_window_size_reserve_and_thresholds_follow_the_settings(tmp_path: Path) -> None:
    make_project(tmp_path, [{"id": "T1", "title": "x"}])
    write(tmp_path, "ctxviewer.yaml", "max_context_tokens: 100000\nzones: {late: 90}\nwindow: {reserve_percent: 10}\n")
    window = layout(tmp_path, threshold_percent=60.0)
    assert window.window == 100_000 and sizes(window)["reserve"] == 10_000
    assert window.thresholds == (("checkpoint", 60.0), ("compaction", 75.0), ("late", 90.0))


def test_a_compaction_zone_replaces_the_default_compaction_threshold(tmp_path: Path) -> None:
    make_project(tmp_path, [{"id": "T1", "title": "x"}])
    assert layout(tmp_path, zones={"compaction": 80.0}).thresholds == (("checkpoint", 70.0), ("compaction", 80.0))


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("reserve_percent", 95, "reserve_percent: must be between 0 and 90, not 95"),
        ("compaction_percent", 0, "compaction_percent: must be above 0"),
        ("base_prompt_tokens", -1, "base_prompt_tokens: must be between 0 and 10,000,000, not -1"),
    ],
)
def test_bad_window_settings_are_refused(tmp_path: Path, key: str, value: Any, message: str) -> None:
    from ctxviewer.engine.errors import SettingsError

    make_project(tmp_path, [{"id": "T1", "title": "x"}])
    with pytest.raises(SettingsError, match=message):
        layout(tmp_path, **{key: value})


def test_the_blocks_explain_themselves_without_internal_names(tmp_path: Path) -> None:
    """The Window panel shows each block's title, source and note: plain words, no class name
    (ContextTracker) and no reference to the design notes (seed 003) a user has never seen."""
    make_project(tmp_path, [{"id": "T1", "title": "x", "files": {"read": ["src/a.py"]}}])
    write(tmp_path, "src/a.py", "a" * 1000)
    window = layout(tmp_path)
    texts = [t for b in window.blocks for t in (b.title, b.source, b.note)]
    assert [t for t in texts if "ContextTracker" in t or "seed 0" in t] == []
    conversation = window.block("conversation")
    assert conversation is not None
    assert (conversation.source, conversation.note) == (
        "the worker's context tracker's own estimate",
        "1 task(s) x 500 + 1 file read(s)",
    )
