"""The worker's window for a task, and the path by which each candidate's text reached it."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxviewer.engine.project.loading import load_project
from ctxviewer.engine.runs.pipeline import assemble
from ctxviewer.engine.trace.model import (
    ESTIMATE_BLOCK,
    MEMORY_BLOCK,
    PROMPT_BLOCK,
    REACHED_MEMORY,
    REACHED_NO,
    REACHED_PROMPT,
    REACHED_PROMPT_PART,
    Trace,
    trace_from_json,
    trace_to_json,
)
from ctxviewer.engine.worker.prompt import SPEC_TOKENS
from ctxviewer.engine.worker.window import _index, reach_of
from tests.factories import make_project, write

#: The spec fallback keeps the requirements to SPEC_TOKENS // 2 * 4 = 4,000 characters, cut at a
#: paragraph break past half of that, else after a sentence past half.  The first paragraph is
#: one 908-character line; the second, 60 lines of 67 characters, ends past 4,000 and holds the
#: only breaks past 2,000 (sentences), so it is cut inside; the third is never reached.
PARA = [
    "Login session paragraph one " + "word " * 176,
    "\n".join(f"Session line {n:02d} of paragraph two is one whole sentence about login." for n in range(60)),
    "Login session paragraph three is never reached.",
]
PYTHON_RULE = "## Rule: Validate login input\n**Level**: strict\n**When**: always\nCheck every session field.\n"
WEB_RULE = "---\npaths:\n  - web/**/*.ts\n---\n## Rule: Escape login output\nEncode every session value.\n"


def _project(root: Path) -> Path:
    tasks = [
        {"id": "T1", "title": "Login session", "files": {"modify": ["src/app.py"]}},
        {
            "id": "T2",
            "title": "Login session",
            "files": {"modify": ["src/app.py"]},
            "context": "Use the requirements.\n" + PARA[0],
        },
    ]
    make_project(
        root,
        tasks,
        requirements="\n\n".join(p.strip() for p in PARA),
        design="The session design.",
        rules={"languages/python/CLAUDE.md": PYTHON_RULE, "languages/javascript/CLAUDE.md": WEB_RULE},
    )
    write(root, "CLAUDE.md", "Project memory for every worker.\n")
    return root


def _trace(root: Path, task: str, **overrides: object) -> Trace:
    project = load_project(root)
    return assemble(project, "feat", task, {"upstream": "latest", **overrides})


def test_blocks_of_a_spec_fallback_task(tmp_path: Path) -> None:
    trace = _trace(_project(tmp_path), "T1")
    window = trace.worker
    assert window is not None
    assert window.folder == ".mahabharatha-worktrees/feat/worker-0"
    assert window.prompt_uses == "spec context"
    kinds = [b.kind for b in window.blocks]
    parts = [b.name for b in window.blocks if b.kind == PROMPT_BLOCK]
    assert parts == [
        "spec_header",
        "spec_requirements",
        "spec_design",
        "spec_separator",
        "header",
        "files",
        "instructions",
    ]
    assert kinds == [ESTIMATE_BLOCK] * 3 + [MEMORY_BLOCK] * 6 + [PROMPT_BLOCK] * 7
    assert [b.stated for b in window.blocks[:3]] == [3200, 11600, 0]
    memory = [(b.name, b.loaded) for b in window.blocks if b.kind == MEMORY_BLOCK]
    wt = window.folder
    assert memory == [
        ("CLAUDE.md", False),  # the worktree holds it too
        (".claude/rules/security/languages/javascript/CLAUDE.md", False),
        (".claude/rules/security/languages/python/CLAUDE.md", False),
        (f"{wt}/CLAUDE.md", True),
        (f"{wt}/.claude/rules/security/languages/javascript/CLAUDE.md", False),  # web/**/*.ts: no match
        (f"{wt}/.claude/rules/security/languages/python/CLAUDE.md", True),
    ]
    first = next(b for b in window.blocks if b.name == f"{wt}/CLAUDE.md")
    assert first.text == (
        f"Contents of {tmp_path}/{wt}/CLAUDE.md (project instructions, checked into the codebase):\n\n"
        "Project memory for every worker.\n"
    )
    assert first.tokens.chars == len(first.text)
    # The memory total counts what loads: the two loaded files, exactly.
    assert window.total(MEMORY_BLOCK) == sum(b.size for b in window.blocks if b.kind == MEMORY_BLOCK and b.loaded)
    assert window.summary().startswith("the worker gets project memory: 2 files, ")


def test_each_path_by_which_a_candidate_reaches_the_worker(tmp_path: Path) -> None:
    trace = _trace(_project(tmp_path), "T1")
    items = {i.id: i for i in trace.items}
    python = items["rule:languages/python/CLAUDE.md"]
    assert python.reached == REACHED_MEMORY
    assert "loads whole as project memory" in python.reached_how
    web = items["rule:languages/javascript/CLAUDE.md"]
    assert web.reached == REACHED_NO
    assert "is not loaded" in web.reached_how and "web/**/*.ts" in web.reached_how
    paragraphs = [i for i in trace.items if i.kind == "spec_paragraph" and i.part == "requirements"]
    assert [p.reached for p in paragraphs] == [REACHED_PROMPT, REACHED_PROMPT_PART, REACHED_NO]
    assert "spec fallback: requirements" in paragraphs[0].reached_how
    assert "cut to" in paragraphs[1].reached_how  # where the spec fallback cut it
    limit = SPEC_TOKENS // 2 * 4
    assert len(PARA[0]) + 2 < limit // 2 < limit < len(PARA[0]) + 2 + len(PARA[1])


def test_a_design_time_context_replaces_the_spec(tmp_path: Path) -> None:
    trace = _trace(_project(tmp_path), "T2")
    assert trace.worker is not None and trace.worker.prompt_uses == "task context"
    paragraphs = [i for i in trace.items if i.kind == "spec_paragraph" and i.part == "requirements"]
    # Only the paragraph the context quotes reached the worker.
    assert [p.reached for p in paragraphs] == [REACHED_PROMPT, REACHED_NO, REACHED_NO]
    assert "design-time context" in paragraphs[0].reached_how


def test_a_root_session_and_loading_twice(tmp_path: Path) -> None:
    root = _project(tmp_path)
    window = _trace(root, "T1", worker_folder="root").worker
    assert window is not None and window.folder == ""
    assert [b.name for b in window.loaded(MEMORY_BLOCK)] == [
        "CLAUDE.md",
        ".claude/rules/security/languages/python/CLAUDE.md",
    ]
    twice = _trace(root, "T1", memory_duplicates="twice").worker
    assert twice is not None
    assert len(twice.loaded(MEMORY_BLOCK)) == 4  # both copies of both files


def test_the_version_picks_the_worktrees_folder(tmp_path: Path) -> None:
    root = _project(tmp_path)
    assert _trace(root, "T1", upstream="zerg-ai-0.3.2").worker.folder.startswith(".zerg-worktrees/")  # type: ignore[union-attr]
    assert _trace(root, "T1", upstream="2026-01-30").worker.folder.startswith(".zerg-worktrees/")  # type: ignore[union-attr]
    assert _trace(root, "T1", worker_id="3").worker.folder.endswith("/worker-3")  # type: ignore[union-attr]


def test_json_round_trip(tmp_path: Path) -> None:
    trace = _trace(_project(tmp_path), "T1")
    again = trace_from_json(trace_to_json(trace))
    assert again.worker == trace.worker
    assert [(i.reached, i.reached_how) for i in again.items] == [(i.reached, i.reached_how) for i in trace.items]


@pytest.mark.parametrize("seed", [3, 11, 19])
def test_paths_agree_with_searching_the_window(tmp_path: Path, seed: int) -> None:
    """On generated projects, each candidate's path agrees with looking for its lines in the window."""
    from tests.engine.profiles.upstream_oracle.generate import make_project as random_project

    random_project(tmp_path, seed, 12)
    project = load_project(tmp_path)
    checked = 0
    for feature, task in project.tasks():
        for profile in ("mahabharatha", "zerg-0.3.2", "drift"):
            trace = assemble(project, feature.name, task.id, {"profile": profile})
            window = trace.worker
            assert window is not None
            prompt = "\n".join(b.text for b in window.loaded(PROMPT_BLOCK))
            memory = "\n".join(b.text for b in window.loaded(MEMORY_BLOCK))
            sources = {b.source for b in window.loaded(MEMORY_BLOCK)}
            # Each item's path is the one the general rule gives it.
            index = _index(window)
            assert [(i.reached, i.reached_how) for i in trace.items] == [reach_of(i, index) for i in trace.items]
            for item in trace.items:
                lines = [line.strip() for line in item.text.splitlines() if len(line.strip()) >= 8]
                if item.reached == REACHED_MEMORY:
                    assert item.source in sources or all(line in memory for line in lines)
                elif item.reached == REACHED_PROMPT:
                    assert lines and all(line in prompt for line in lines)
                elif item.reached == REACHED_PROMPT_PART:
                    assert any(line in prompt for line in lines) and not all(line in prompt for line in lines)
                else:
                    assert item.reached == REACHED_NO
                    assert item.source not in sources
                    whole = {s.strip() for s in (prompt + "\n" + memory).splitlines()}
                    assert not any(line in whole for line in lines)
                checked += 1
    assert checked > 0


def test_the_copy_with_its_reach_keeps_every_field() -> None:
    """The written-out copy of an item keeps every field (a new field must be added to it)."""
    from dataclasses import fields, replace

    from ctxviewer.engine.trace.model import REACHED_NO, WorkerWindow
    from ctxviewer.engine.worker.window import with_reach
    from tests.factories import make_item

    item = make_item(span=(1, 2), details={"k": 1}, text="")
    assert len(fields(item)) == 19 and [f.name for f in fields(item)][-2:] == ["reached", "reached_how"]
    window = WorkerWindow("", "", "no context", None, ())
    (copied,) = with_reach([item], window)
    assert copied == replace(item, reached=REACHED_NO, reached_how="it has no text of its own")


@pytest.mark.parametrize("seed", [3, 19])
def test_a_run_told_the_window_makes_the_items_the_copy_makes(
    tmp_path: Path, seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run that knows the worker's window makes each item once with its path (its drafts, and
    a copy of each item it shares with other runs): every profile's items are those the copy of
    the same run's plain items gives, field for field."""
    from ctxviewer.engine.registry import PROFILES
    from ctxviewer.engine.runs import pipeline
    from tests.engine.profiles.upstream_oracle.generate import make_project as random_project

    random_project(tmp_path, seed, 12)
    project = load_project(tmp_path)
    tasks = list(project.tasks())[:6]
    told = {
        (f.name, t.id, p): assemble(project, f.name, t.id, {"profile": p}).items for f, t in tasks for p in PROFILES
    }
    monkeypatch.setattr(pipeline, "reach_in", lambda window: None)  # the run makes plain items; the copy adds paths
    copied = {key: assemble(project, key[0], key[1], {"profile": key[2]}).items for key in told}
    assert told == copied
    assert sum(len(items) for items in told.values()) > 100
    assert {i.reached for items in told.values() for i in items} >= {REACHED_NO, REACHED_PROMPT}


def test_a_run_told_the_window_keeps_every_field_of_the_items_it_shares(tmp_path: Path) -> None:
    """An item a run shares with other runs comes out as a copy with its path and every other
    field kept; a draft comes out with its path; neither is changed in place."""
    from dataclasses import replace

    from ctxviewer.engine.profiles.base import ItemDraft, RunBase
    from ctxviewer.engine.tokens.counting import HEURISTIC, Census, TokenCounts, get_counter
    from ctxviewer.engine.trace.model import Section
    from tests.factories import make_item

    project = load_project(_project(tmp_path))
    feature, task = next(iter(project.tasks()))
    run = RunBase(project, feature, task, project.settings, get_counter(HEURISTIC), Census(False, HEURISTIC))
    shared = make_item(span=(3, 4), details={"k": 1}, text="Check every session field.", source="x.md")
    draft = ItemDraft(
        "d", "rule", "spec_excerpts", "spec_excerpts", "CLAUDE.md", None, None, 2, ("a",), 1, "included", "why",
        "Project memory for every worker.", 5, 0, {"n": 2},
    )  # fmt: skip
    run.items = [shared, draft]
    paths = {"x.md": ("no", "not there"), "CLAUDE.md": ("memory", "its file loads")}
    run.reach = lambda source, text: paths[source]
    section = Section("spec_excerpts", "Spec", "", 100, TokenCounts(10, 2), "included", "", span=(20, 30))
    items = run.finish_items([section])
    assert items is run.reached_items
    assert items[0] == replace(shared, reached="no", reached_how="not there") and shared.reached == ""
    made = items[1]
    assert (made.id, made.span, dict(made.details), made.reached, made.reached_how) == (
        "d", (20, 25), {"n": 2}, "memory", "its file loads",
    )  # fmt: skip
