"""The worker's window on every task of the bundled samples, against what their files say."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxviewer.engine.project.loading import load_project
from ctxviewer.engine.runs.pipeline import assemble_task
from ctxviewer.engine.trace.model import MEMORY_BLOCK, REACHED_MEMORY, REACHED_NO, RULE_FILE
from ctxviewer.engine.worker.memory import task_paths

SAMPLES = Path(__file__).resolve().parents[3] / "sample_projects"


def _framing(root: Path, where: str, local: bool = False) -> str:
    scope = (
        "user's private project instructions, not checked in"
        if local
        else ("project instructions, checked into the codebase")
    )
    return f"Contents of {root}/{where} ({scope}):\n\n"


def test_ledger_service_every_task_in_its_root(tmp_path: Path) -> None:
    root = (SAMPLES / "ledger-service").resolve()
    project = load_project(root)
    rules = sorted(p.relative_to(root).as_posix() for p in (root / ".claude/rules/security").rglob("*.md"))
    for feature, task in project.tasks():
        settings = project.settings.with_overrides({"worker_folder": "root"}, "test")
        trace = assemble_task(project, feature, task, settings, exact=False)
        assert trace.worker is not None and trace.worker.folder == ""
        files = task_paths(task.raw)
        tests = [f for f in files if f.startswith("tests/") and f.endswith(".py")]
        auth = [f for f in files if f.startswith("src/ledger/auth/")]
        expected = [
            ("CLAUDE.md", "always", True),
            ("docs/conventions.md", "import", True),
            *((rel, "always", True) for rel in rules),
            (".claude/rules/testing.md", "conditional", bool(tests)),
        ]
        if auth:
            expected.append(("src/ledger/auth/CLAUDE.md", "on_demand", True))
        memory = [(b.name, b.load, b.loaded) for b in trace.worker.blocks if b.kind == MEMORY_BLOCK]
        assert memory == expected, task.id
        for block in trace.worker.blocks:
            if block.kind == MEMORY_BLOCK and block.loaded:
                text = (root / block.source).read_text(encoding="utf-8")
                if block.source == ".claude/rules/testing.md":
                    text = text.split("---\n", 2)[2]  # the front matter is not sent
                assert block.text == _framing(root, block.name) + text
                assert block.tokens.chars == len(block.text)
        # Every security rule file the plugin considered reaches this worker whole, as memory.
        assert all(i.reached == REACHED_MEMORY for i in trace.items_of(RULE_FILE)), task.id


@pytest.mark.parametrize("task_id", ["ING-L3-001"])
def test_edge_cases_rules_whose_paths_miss(task_id: str) -> None:
    root = (SAMPLES / "edge-cases").resolve()
    project = load_project(root)
    feature, task = next((f, t) for f, t in project.tasks() if t.id == task_id)
    trace = assemble_task(project, feature, task, exact=False)
    items = {i.id: i for i in trace.items_of(RULE_FILE)}
    # Its files include src/web/dashboard.js: the plugin matches the JavaScript rule file by its
    # extension, but the file's paths: names web/**, so the worker never loads it.  The core
    # file (paths: src/**) loads: the task has files under src/.
    assert items["rule:languages/javascript/CLAUDE.md"].reached == REACHED_NO
    assert "web/**/*.js" in items["rule:languages/javascript/CLAUDE.md"].reached_how
    assert items["rule:_core/owasp-2025.md"].reached == REACHED_MEMORY
    assert items["rule:languages/python/CLAUDE.md"].reached == REACHED_MEMORY


def test_edge_cases_core_rules_scoped_to_src_miss_the_docker_only_tasks() -> None:
    root = (SAMPLES / "edge-cases").resolve()
    project = load_project(root)
    for feature, task in project.tasks():
        files = task_paths(task.raw)
        trace = assemble_task(project, feature, task, exact=False)
        core = trace.item("rule:_core/owasp-2025.md")
        assert core is not None
        under_src = any(f.startswith("src/") for f in files)
        assert core.reached == (REACHED_MEMORY if under_src else REACHED_NO), task.id


def test_storefront_web_every_task_loads_its_four_rule_files() -> None:
    """storefront-web has no CLAUDE.md: each worker's session loads the four security rule files,
    from its worktree (.zerg-worktrees/<feature>/worker-0, zerg-ai's folder for the seed's
    version), and every rule file the plugin considered reaches it as memory."""
    root = (SAMPLES / "storefront-web").resolve()
    project = load_project(root)
    rules = sorted(p.relative_to(root).as_posix() for p in (root / ".claude/rules").rglob("*.md"))
    assert len(rules) == 4
    for feature, task in project.tasks():
        trace = assemble_task(project, feature, task, exact=False)
        assert trace.worker is not None
        wt = f".zerg-worktrees/{feature.name}/worker-0"
        loaded = [(b.name, b.source) for b in trace.worker.loaded(MEMORY_BLOCK)]
        assert loaded == [(f"{wt}/{rel}", rel) for rel in rules], task.id
        for block in trace.worker.loaded(MEMORY_BLOCK):
            assert block.text == _framing(root, block.name) + (root / block.source).read_text(encoding="utf-8")
        assert all(i.reached == REACHED_MEMORY for i in trace.items_of(RULE_FILE)), task.id


def test_edge_cases_every_task_from_its_worktree() -> None:
    """edge-cases' workers run in .zerg-worktrees/<feature>/worker-0 (the seed's version): the
    worktree's copy of each rule file loads, the main checkout's twin does not load again, the two
    files with ``paths:`` load only for tasks with files they name, and their front matter is not sent."""
    root = (SAMPLES / "edge-cases").resolve()
    project = load_project(root)
    rules = sorted(p.relative_to(root).as_posix() for p in (root / ".claude/rules").rglob("*.md"))
    scoped = {
        ".claude/rules/security/_core/owasp-2025.md": lambda f: f.startswith("src/"),
        ".claude/rules/security/languages/javascript/CLAUDE.md": lambda f: (
            f.startswith("web/") and f.endswith((".js", ".ts"))
        ),
    }
    assert len(rules) == 7 and not list(root.glob("**/CLAUDE.local.md"))
    for feature, task in project.tasks():
        files = task_paths(task.raw)
        trace = assemble_task(project, feature, task, exact=False)
        assert trace.worker is not None
        wt = f".zerg-worktrees/{feature.name}/worker-0"
        assert trace.worker.folder == wt
        expected = [(rel, "conditional" if rel in scoped else "always", False) for rel in rules]
        expected += [
            (f"{wt}/{rel}", "conditional", any(map(scoped[rel], files)))
            if rel in scoped
            else (f"{wt}/{rel}", "always", True)
            for rel in rules
        ]
        memory = [(b.name, b.load, b.loaded) for b in trace.worker.blocks if b.kind == MEMORY_BLOCK]
        assert memory == expected, task.id
        for block in trace.worker.loaded(MEMORY_BLOCK):
            text = (root / block.source).read_text(encoding="utf-8")
            if block.source in scoped:
                text = text.split("---\n", 2)[2]
            assert block.text == _framing(root, block.name) + text
            assert block.tokens.chars == len(block.text)
