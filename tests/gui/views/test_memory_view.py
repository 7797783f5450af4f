"""The Memory tab: the worker session's project memory files, each with how it loads and its text."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from ctxviewer.engine.project.loading import load_project
from ctxviewer.engine.runs.pipeline import assemble_task
from ctxviewer.engine.tokens.counting import load_encoding
from ctxviewer.engine.trace.model import Trace
from ctxviewer.gui.views.memory_view import COPY_COLUMN, NO_FILES, MemoryTab
from ctxviewer.gui.widgets.empty import NO_TASK
from tests.factories import make_project, write

#: The project's memory: a CLAUDE.md at its root (loads at session start) and a rule scoped
#: to api/** (the task works on src/vault.py: it does not load).
ROOT_MEMORY = "# House rules\nRun the tests before you stop.\n"
API_RULE = "---\npaths:\n  - api/**\n---\nEvery endpoint takes a request id.\n"


@pytest.fixture
def trace(tmp_path: Path) -> Trace:
    task = {"id": "T-1", "title": "Rotate keys", "description": "", "files": {"modify": ["src/vault.py"]}}
    root = make_project(tmp_path / "proj", [task], requirements="Rotate keys daily.\n")
    write(root, "CLAUDE.md", ROOT_MEMORY)
    write(root, ".claude/rules/api.md", API_RULE)
    write(root, "ctxviewer.yaml", "worker:\n  folder: root\n")  # the session runs at the root: one copy each
    project = load_project(root)
    feature = project.feature("feat")
    return assemble_task(project, feature, feature.task("T-1"), project.settings)


def _cells(tab: MemoryTab, header: str) -> list[str]:
    model = tab.table.model
    column = next(c for c in range(model.columnCount()) if model.headerData(c, Qt.Orientation.Horizontal) == header)
    return [model.index(r, column).data() for r in range(model.rowCount())]


@pytest.fixture
def tab(qtbot) -> MemoryTab:
    widget = MemoryTab()
    qtbot.addWidget(widget)
    widget.resize(900, 600)
    widget.show()
    return widget


def test_each_memory_file_says_whether_it_loads_and_why(tab: MemoryTab, trace: Trace, tmp_path: Path) -> None:
    tab.set_trace(trace)
    assert _cells(tab, "File") == ["CLAUDE.md", ".claude/rules/api.md"]
    assert tab.table.view.isColumnHidden(COPY_COLUMN)  # the session runs at the root: one copy of each
    assert _cells(tab, "Loads") == ["always", "not loaded"]
    why = _cells(tab, "Why")
    assert "paths: api/**" in why[1] and "none of the task's files match" in why[1]
    # What the session receives of CLAUDE.md: Claude Code's framing line, a blank line, the file.
    framed_start = f"Contents of {tmp_path / 'proj'}/CLAUDE.md"
    enc = load_encoding("cl100k_base")
    loaded = tab.table.current_row()
    assert loaded.text.startswith(framed_start) and loaded.text.endswith("\n\n" + ROOT_MEMORY)
    assert _cells(tab, "Chars")[0] == f"{len(loaded.text):,}"
    assert _cells(tab, "cl100k")[0] == f"{len(enc.encode_ordinary(loaded.text)):,}"
    # The not-loaded rule: its text without its front matter, as the session would get it.
    rule_text = "Every endpoint takes a request id.\n"
    assert _cells(tab, "Chars")[1] == f"{len(rule_text):,}"
    tokens = len(enc.encode_ordinary(loaded.text))
    assert tab.summary.text().startswith(
        f"The worker's session for feat / T-1 loads 1 file as project memory, {tokens:,} tokens (cl100k_base); "
        "1 more listed, not loaded. Working folder: the project root"
    )


def test_the_detail_pane_shows_the_text_the_session_receives(tab: MemoryTab, trace: Trace) -> None:
    tab.set_trace(trace)
    # The first file that loads is selected and shown whole.
    shown = tab.table.detail.toPlainText()
    assert "Loads (always)" in shown and "Run the tests before you stop." in shown and "Contents of" in shown
    tab.table.select(lambda b: not b.loaded)
    shown = tab.table.detail.toPlainText()
    assert "Not loaded for this task" in shown and "Every endpoint takes a request id." in shown
    assert "paths:" not in shown.split("does not receive:")[1]  # its front matter is not text the session gets


def test_no_task_and_no_memory_say_so(tab: MemoryTab, trace: Trace, tmp_path: Path) -> None:
    tab.set_trace(None)
    assert tab.summary.text() == NO_TASK and tab.table.model.rowCount() == 0
    task = {"id": "T-1", "title": "Rotate keys", "description": "", "files": {"modify": ["src/vault.py"]}}
    bare = make_project(tmp_path / "bare", [task])
    write(bare, "ctxviewer.yaml", "worker:\n  folder: root\n")
    project = load_project(bare)
    feature = project.feature("feat")
    tab.set_trace(assemble_task(project, feature, feature.task("T-1"), project.settings))
    assert tab.summary.text() == NO_FILES and tab.table.model.rowCount() == 0
    tab.set_trace(trace)
    assert tab.table.model.rowCount() == 2  # filled again after an empty one


def test_the_files_text_gets_the_room_the_few_rows_leave(qtbot, tab: MemoryTab, trace: Trace) -> None:
    tab.set_trace(trace)
    table, text = tab.table.splitter.sizes()
    view = tab.table.view
    rows = view.horizontalHeader().height() + 2 * view.verticalHeader().defaultSectionSize()
    assert rows <= table <= 0.4 * (table + text) + 1  # its two rows whole, at most 40 % of the height
    assert text > table


def test_in_a_worktree_each_file_says_which_copy_the_session_finds(qtbot, tab: MemoryTab, tmp_path: Path) -> None:
    # Upstream runs the worker in a worktree inside the project: the session finds the worktree's
    # CLAUDE.md in its folder and the main checkout's in the folders above; it loads one of them.
    task = {"id": "T-1", "title": "Rotate keys", "description": "", "files": {"modify": ["src/vault.py"]}}
    root = make_project(tmp_path / "wt", [task], requirements="Rotate keys daily.\n")
    write(root, "CLAUDE.md", ROOT_MEMORY)
    project = load_project(root)
    feature = project.feature("feat")
    trace = assemble_task(project, feature, feature.task("T-1"), project.settings)
    assert trace.worker is not None and trace.worker.folder  # the default: the version's worktree
    tab.set_trace(trace)
    assert not tab.table.view.isColumnHidden(COPY_COLUMN)
    rows = list(zip(_cells(tab, "File"), _cells(tab, "Copy"), _cells(tab, "Loads"), strict=True))
    assert sorted(rows) == [("CLAUDE.md", "checkout", "not loaded"), ("CLAUDE.md", "worktree", "always")]
    assert tab.table.current_row().name == f"{trace.worker.folder}/CLAUDE.md"  # the copy that loads
