"""The bad-input corpus in the window: a representative subset of tests/engine/test_hostile_corpus.py.

Each hostile project is opened in the real window; the banner says exactly what the engine
says (a project that cannot be opened: the load error; a broken task graph: a note; a run
with bad input: its errors and notes), the views show exactly the engine's context, and the
window keeps working: the next project opens and is assembled as usual.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ctxviewer.engine.pipeline import assemble
from ctxviewer.engine.project import load_project
from ctxviewer.engine.trace import Trace
from ctxviewer.gui.window import MainWindow
from ctxviewer.gui.worker import RunState
from tests.engine.test_hostile_corpus import (
    CASES,
    CTX,
    FULL,
    GRAPH,
    REQ,
    SEC,
    SECRET,
    TASK,
    Case,
    build_case,
    graph_project,
    needs_symlinks,
)
from tests.gui.conftest import open_and_wait

BY_ID = {case.id: case for case in CASES}

#: One or two of each kind: a file that stops the load, a broken graph, bad input the run
#: survives, a symlink out, a file over the size limit, a file gone between listing and reading.
SUBSET = [
    "ctxviewer-yaml-billion-laughs",
    "config-yaml-bad-indent",
    "ctxviewer-yaml-latin1",
    "graph-json-trailing-comma",
    "graph-json-nested-100000-deep",
    "tasks-is-a-mapping",
    "task-entries-of-other-types",
    "spec-latin1",
    "rule-latin1",
    "design-is-a-png",
    "spec-over-64MiB",
    "spec-symlink-absolute-outside",
    "rule-symlink-loop",
    "paths-specs-dotdot",
    "graph-deleted-after-listing",
    "rule-unreadable-after-listing",
    "ctxviewer-yaml-symlink-outside",
    "graph-symlink-outside",
]

RETRY = " \u2014 fix it and the window tries again when the file changes (or press F5)"
NO_TASK = "no task to show \u2014 no feature has a readable task graph."


def _params() -> list[object]:
    out = []
    for name in SUBSET:
        case = BY_ID[name]
        marks = [needs_symlinks] if case.symlinks else []
        if case.engine_bug:
            marks.append(pytest.mark.xfail(strict=True, reason=case.engine_bug + " -- and the window shows nothing"))
        out.append(pytest.param(case, id=name, marks=marks))
    return out


def keeps_working(qtbot, window: MainWindow, tmp_path: Path) -> None:
    """The window opens and assembles a sound project after the hostile one."""
    root = graph_project(tmp_path / "sound", [TASK])
    trace = open_and_wait(qtbot, window, root, "feat", "T1")
    assert trace.context == FULL
    assert window.context_view.editor.toPlainText() == FULL
    assert not window.problems.isVisible()


@pytest.mark.parametrize("case", _params())
def test_the_banner_says_what_the_engine_says(
    qtbot, window: MainWindow, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: Case
) -> None:
    built = build_case(tmp_path, case, monkeypatch)
    folder = str(built.root)
    if case.load_error or case.graph_error:
        window.open_project(built.root)
        qtbot.waitUntil(lambda: window.load_lane.state in (RunState.DONE, RunState.ERROR), timeout=15_000)
    if case.load_error:
        assert (window.load_lane.state, window.project) == (RunState.ERROR, None)
        assert window.problems.isVisible()
        assert window.problems.messages == [f"could not open {folder}: {built.fill(case.load_error)}{RETRY}"]
    elif case.graph_error:
        assert window.header.text() == f"<b>{built.root.name}</b>: {NO_TASK}"
        assert window.problems.messages == [f"feat: {built.fill(case.graph_error)}"]
        assert window.outline.model.item(0, 1).text() == "unreadable"
        assert window.trace is None
    else:
        trace = open_and_wait(qtbot, window, built.root, "feat", "T1")
        context = built.fill(case.context)
        assert trace.context == context
        assert window.context_view.editor.toPlainText() == context
        assert window.problems.messages == [built.fill(t) for _, t in case.errors] + list(case.warnings)
        assert (window.problems.isVisible(), trace.budget) == (bool(window.problems.messages), case.budget)
    assert SECRET not in window.problems.label.text()
    monkeypatch.undo()  # no race left armed for the next project
    keeps_working(qtbot, window, tmp_path)


def test_a_project_that_failed_on_an_alias_bomb_opens_with_f5_once_fixed(
    qtbot, window: MainWindow, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    built = build_case(tmp_path, BY_ID["ctxviewer-yaml-billion-laughs"], monkeypatch)
    with qtbot.waitSignal(window.load_lane.errored, timeout=15_000):
        window.open_project(built.root, "feat", "T1")
    window.watcher.blockSignals(True)  # no watcher: only F5 may retry
    (built.root / CTX).write_text("budget:\n  total: 3000\n", encoding="utf-8")
    with qtbot.waitSignal(window.traceShown, timeout=15_000) as shown:
        window.refresh()
    trace: Trace = shown.args[0]
    assert (trace.task_id, trace.budget, trace.context) == ("T1", 3000, FULL)
    assert window.problems.messages == [] and not window.problems.isVisible()


def test_an_empty_project_folder(qtbot, window: MainWindow, tmp_path: Path) -> None:
    root = tmp_path / "empty"
    root.mkdir()
    with qtbot.waitSignal(window.projectLoaded, timeout=15_000):
        window.open_project(root)
    assert window.header.text() == f"<b>empty</b>: {NO_TASK}"
    assert window.problems.messages == [".gsd/specs: no specs folder; the project has no features"]
    assert window.outline.model.rowCount() == 0
    keeps_working(qtbot, window, tmp_path)


def test_tasks_without_ids_and_duplicate_ids_are_listed_apart(qtbot, window: MainWindow, tmp_path: Path) -> None:
    root = graph_project(tmp_path / "p", [{**TASK, "id": None}, TASK, TASK])
    trace = open_and_wait(qtbot, window, root, "feat", "T1~2")
    assert (trace.task_id, trace.context) == ("T1~2", FULL)
    feature = window.outline.model.item(0, 0)
    assert [feature.child(r, 0).text() for r in range(feature.rowCount())] == [
        "#1  Login session",
        "T1  Login session",
        "T1~2  Login session",
    ]
    assert window.problems.messages == [
        f"{GRAPH}: tasks[0] has no id; shown as #1",
        f"{GRAPH}: duplicate task id 'T1' at tasks[2]; shown as T1~2",
    ]


def test_ten_thousand_tasks_open_and_close_mid_batch(qtbot, window: MainWindow, tmp_path: Path) -> None:
    tasks = [TASK] + [{"id": f"T{i:05d}", "title": f"Task {i}", "files": {}} for i in range(1, 10_000)]
    root = graph_project(tmp_path / "p", tasks)
    trace = open_and_wait(qtbot, window, root)
    assert (trace.task_id, trace.context) == ("T1", FULL)
    assert window.outline.model.item(0, 0).rowCount() == 10_000
    assert window.outline.model.item(0, 1).text() == "10000 tasks"
    # the background pass starts once the first task is on screen; at 10,000 tasks it has only begun
    qtbot.waitUntil(window.batch_lane.is_busy, timeout=5000)
    window.close()  # waits for the pool (up to 10 s): a cancelled pass must stop at once
    assert window.pool.activeThreadCount() == 0
    assert len(window.batch_totals) < 10_000


def test_a_one_megabyte_paragraph_is_shown_cut_as_the_engine_cuts_it(qtbot, window: MainWindow, tmp_path: Path) -> None:
    root = graph_project(tmp_path / "p", [TASK])
    (root / REQ).write_text(("Login session store keeps tokens. " * 31_000)[: 1024 * 1024], encoding="utf-8")
    trace = open_and_wait(qtbot, window, root, "feat", "T1")
    assert trace.context == assemble(load_project(root), "feat", "T1").context
    assert trace.context.startswith(SEC) and trace.context.endswith("[... truncated for context limits ...]")
    assert window.context_view.editor.toPlainText() == trace.context
    assert window.paragraphs.model.rowCount() == 1
    keeps_working(qtbot, window, tmp_path)


@needs_symlinks
def test_a_spec_linked_outside_is_not_shown_anywhere(qtbot, window: MainWindow, tmp_path: Path) -> None:
    base = tmp_path.resolve()
    root = graph_project(base / "p", [TASK])
    (base / "secret.md").write_text(f"Login session {SECRET}.\n", encoding="utf-8")
    os.unlink(root / REQ)
    os.symlink(base / "secret.md", root / REQ)
    trace = open_and_wait(qtbot, window, root, "feat", "T1")
    window.focus_search()
    window.search.field.setText(SECRET.lower())
    assert window.search.matches() == ()
    assert SECRET not in trace.context and SECRET not in window.context_view.editor.toPlainText()
    assert window.paragraphs.model.rowCount() == 0


def test_the_status_bar_stops_saying_opening_once_a_project_without_tasks_is_open(
    qtbot, window: MainWindow, tmp_path: Path
) -> None:
    root = tmp_path / "empty"
    root.mkdir()
    with qtbot.waitSignal(window.projectLoaded, timeout=15_000):
        window.open_project(root)
    assert not window.statusBar().currentMessage().startswith("Opening")


@needs_symlinks
def test_a_project_that_failed_to_open_is_watched_only_inside(qtbot, window: MainWindow, tmp_path: Path) -> None:
    base = tmp_path.resolve()
    outside = base / "outside"
    (outside / "mahabharatha").mkdir(parents=True)
    (outside / "mahabharatha" / "config.yaml").write_text(f"# {SECRET}\n", encoding="utf-8")
    root = graph_project(base / "p", [TASK])
    (root / CTX).write_text("budget: [unclosed\n", encoding="utf-8")
    os.symlink(outside / "mahabharatha", root / ".mahabharatha")
    with qtbot.waitSignal(window.load_lane.errored, timeout=15_000):
        window.open_project(root)
    watched = window.watcher.files() + window.watcher.directories()
    assert str(root / CTX) in watched  # the broken file itself is watched, so fixing it retries
    real_root = os.path.realpath(root)
    assert [p for p in watched if not os.path.realpath(p).startswith(real_root + os.sep) and p != real_root] == []
