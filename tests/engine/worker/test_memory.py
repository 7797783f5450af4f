"""Claude Code's project memory for a worker's session: each load rule on a project made for it."""

from __future__ import annotations

from pathlib import Path

from ctxviewer.engine.files.reading import ProjectFS
from ctxviewer.engine.worker.memory import (
    ALWAYS,
    CHECKOUT,
    CONDITIONAL,
    IMPORT,
    ON_DEMAND,
    WORKTREE,
    MemoryFile,
    imports_in,
    load_memory,
    split_front_matter,
    task_paths,
)
from tests.factories import write

WT = ".mahabharatha-worktrees/feat/worker-0"


def _project(root: Path) -> ProjectFS:
    write(root, "CLAUDE.md", "Root memory.\nSee @docs/style.md for style.\n")
    write(root, "docs/style.md", "Style: four spaces.\nAlso @nested/deep.md\n")
    write(root, "docs/nested/deep.md", "Deep import.\n")
    write(root, ".claude/CLAUDE.md", "Dot-claude memory.\n")
    write(root, ".claude/rules/security/python.md", "Python rules.\n")
    write(root, ".claude/rules/api.md", "---\npaths:\n  - src/api/**/*.py\n---\nAPI rules.\n")
    write(root, ".claude/rules/web.md", "---\npaths: web/**/*.ts, web/**/*.tsx\n---\nWeb rules.\n")
    write(root, "CLAUDE.local.md", "My local notes.\n")
    write(root, "src/api/CLAUDE.md", "API folder memory.\n")
    write(root, "src/api/handlers.py", "pass\n")
    return ProjectFS(root)


def _by_path(files: tuple[MemoryFile, ...]) -> dict[str, MemoryFile]:
    return {f.path: f for f in files}


def test_root_session_loads_each_kind_in_order(tmp_path: Path) -> None:
    fs = _project(tmp_path)
    files, notes = load_memory(fs, ["src/api/handlers.py"])
    assert notes == ()
    assert [(f.path, f.load, f.loaded) for f in files] == [
        ("CLAUDE.md", ALWAYS, True),
        ("docs/style.md", IMPORT, True),  # right after the file that imports it
        ("docs/nested/deep.md", IMPORT, True),  # relative to the importing file: docs/nested/
        (".claude/CLAUDE.md", ALWAYS, True),
        (".claude/rules/api.md", CONDITIONAL, True),  # src/api/handlers.py matches src/api/**/*.py
        (".claude/rules/security/python.md", ALWAYS, True),
        (".claude/rules/web.md", CONDITIONAL, False),  # no task file under web/
        ("CLAUDE.local.md", ALWAYS, True),
        ("src/api/CLAUDE.md", ON_DEMAND, True),  # below the working folder, where the task's file is
    ]
    by = _by_path(files)
    assert by[".claude/rules/api.md"].content == "API rules.\n"  # front matter is not sent
    assert by[".claude/rules/api.md"].globs == ("src/api/**/*.py",)
    assert by[".claude/rules/web.md"].globs == ("web/**/*.ts", "web/**/*.tsx")
    assert by["docs/style.md"].imported_by == "CLAUDE.md"
    assert all(f.origin == CHECKOUT for f in files)


def test_framing_names_the_file_and_its_scope(tmp_path: Path) -> None:
    fs = _project(tmp_path)
    by = _by_path(load_memory(fs, [])[0])
    assert by["CLAUDE.md"].framed("/p") == (
        "Contents of /p/CLAUDE.md (project instructions, checked into the codebase):\n\n"
        "Root memory.\nSee @docs/style.md for style.\n"
    )
    assert (
        by["CLAUDE.local.md"]
        .framed("/p")
        .startswith("Contents of /p/CLAUDE.local.md (user's private project instructions, not checked in):")
    )


def test_worktree_session_loads_the_worktrees_copy_once(tmp_path: Path) -> None:
    fs = _project(tmp_path)
    files, _ = load_memory(fs, ["src/api/handlers.py"], WT)
    by = _by_path(files)
    # The main checkout comes first (farther up); each tracked file loads from the worktree.
    assert by["CLAUDE.md"].loaded is False and "the worktree's copy loads instead" in by["CLAUDE.md"].why
    assert by[f"{WT}/CLAUDE.md"].loaded is True and by[f"{WT}/CLAUDE.md"].origin == WORKTREE
    assert by[f"{WT}/CLAUDE.md"].read_from == "CLAUDE.md"
    # CLAUDE.local.md is untracked: only the main checkout has it, and it loads from there.
    assert by["CLAUDE.local.md"].loaded is True
    assert f"{WT}/CLAUDE.local.md" not in by
    # Imports of the worktree's copy are the worktree's files.
    assert by[f"{WT}/docs/style.md"].loaded is True
    # The worktree's rule matches the task's file by its own path; the main checkout's sees
    # the file under the worktree's folder, where src/api/**/*.py does not match.
    assert by[f"{WT}/.claude/rules/api.md"].loaded is True
    assert "as .mahabharatha-worktrees/feat/worker-0/<file>" in by[".claude/rules/api.md"].why
    assert by[f"{WT}/src/api/CLAUDE.md"].load == ON_DEMAND
    loaded = [f.path for f in files if f.loaded]
    assert loaded == [
        "CLAUDE.local.md",
        f"{WT}/CLAUDE.md",
        f"{WT}/docs/style.md",
        f"{WT}/docs/nested/deep.md",
        f"{WT}/.claude/CLAUDE.md",
        f"{WT}/.claude/rules/api.md",
        f"{WT}/.claude/rules/security/python.md",
        f"{WT}/src/api/CLAUDE.md",
    ]


def test_worktree_session_loading_twice(tmp_path: Path) -> None:
    fs = _project(tmp_path)
    files, _ = load_memory(fs, [], WT, duplicates="twice")
    loaded = [f.path for f in files if f.loaded and f.kind != "import"]
    assert loaded == [
        "CLAUDE.md",
        ".claude/CLAUDE.md",
        ".claude/rules/security/python.md",
        "CLAUDE.local.md",
        f"{WT}/CLAUDE.md",
        f"{WT}/.claude/CLAUDE.md",
        f"{WT}/.claude/rules/security/python.md",
    ]


def test_imports_skip_code_and_stop_at_five_hops(tmp_path: Path) -> None:
    text = "a @x.md b\n`@no.md` and ``@no2.md``\n```\n@no3.md\n```\n~~~md\n@no4.md\n~~~\n@yes.md mail@host.org"
    assert imports_in(text) == ("x.md", "yes.md")
    write(tmp_path, "CLAUDE.md", "@h1.md\n")
    for n in range(1, 7):
        write(tmp_path, f"h{n}.md", f"hop {n}\n@h{n + 1}.md\n")
    files, notes = load_memory(ProjectFS(tmp_path), [])
    assert [f.path for f in files] == ["CLAUDE.md", "h1.md", "h2.md", "h3.md", "h4.md", "h5.md"]
    assert notes == ("h5.md imports h6.md beyond 5 hops: not followed",)


def test_imports_outside_the_project_and_cycles(tmp_path: Path) -> None:
    write(tmp_path, "CLAUDE.md", "@~/.claude/mine.md @../outside.md @a.md @missing.md\n")
    write(tmp_path, "a.md", "back to @CLAUDE.md\n")
    files, notes = load_memory(ProjectFS(tmp_path), [])
    assert [f.path for f in files] == ["CLAUDE.md", "a.md"]  # the cycle ends; a missing file is no import
    assert notes == (
        "CLAUDE.md imports ~/.claude/mine.md, outside the project: not read (not counted)",
        "CLAUDE.md imports ../outside.md, outside the project: not read (not counted)",
    )


def test_front_matter() -> None:
    assert split_front_matter("no front matter") == (None, "no front matter", "")
    assert split_front_matter("---\ntitle: x\n---\nbody") == (None, "body", "")
    globs, body, problem = split_front_matter("---\npaths: [a\n---\nbody")
    assert (globs, body) == (None, "body") and problem.startswith("front matter is not YAML")
    assert split_front_matter("---\npaths: 3\n---\nb")[2].startswith("front matter paths: is not a list")


def test_task_paths() -> None:
    raw = {"files": {"create": ["./a.py", "a.py"], "modify": ["/b.py", 3], "read": ["../x", "c.md"]}}
    assert task_paths(raw) == ("a.py", "b.py", "c.md")
    assert task_paths({"files": ["x.py"]}) == ("x.py",)
    assert task_paths({}) == ()


def test_a_local_files_import_loads_from_the_main_checkout(tmp_path: Path) -> None:
    # CLAUDE.local.md is only in the main checkout; what it imports loads from there too,
    # though the worktree holds a copy of that file (nothing in the worktree imports it).
    write(tmp_path, "CLAUDE.local.md", "Mine: @notes/local.md\n")
    write(tmp_path, "notes/local.md", "Local notes.\n")
    files, _ = load_memory(ProjectFS(tmp_path), [], WT)
    assert [(f.path, f.loaded) for f in files] == [("CLAUDE.local.md", True), ("notes/local.md", True)]
