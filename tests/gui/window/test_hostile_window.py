"""The bad-input corpus in the window: a representative subset of tests/engine/test_hostile_corpus.py.

Each hostile project is opened in the real window; the banner says exactly what the engine
says (a project that cannot be opened: the load error; a broken task graph: a note; a run
with bad input: its errors and notes), the views show exactly the engine's context, and the
window keeps working: the next project opens and is assembled as usual.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QSettings, Qt
from PySide6.QtWidgets import QAbstractItemView, QFileDialog, QLabel, QMessageBox, QTextBrowser, QWidget

import ctxviewer
from ctxviewer.engine.files.resources import resource_path
from ctxviewer.engine.project.loading import load_project
from ctxviewer.engine.runs.pipeline import assemble
from ctxviewer.engine.trace.model import Trace
from ctxviewer.gui import app as gui_app
from ctxviewer.gui.widgets.charts import _Chart
from ctxviewer.gui.widgets.plaintext import NoResourceBrowser
from ctxviewer.gui.window import OPENING_KEY, TABS, MainWindow
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
from tests.factories import RULES, write
from tests.gui.conftest import open_and_wait
from tests.gui.hostile_text import (
    Hostile,
    OpenWatch,
    hostile_project,
    inotify_available,
    interpreted,
    model_texts,
    shown,
)

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
AUTO, PLAIN, RICH = Qt.TextFormat.AutoText, Qt.TextFormat.PlainText, Qt.TextFormat.RichText
PANELS = ("budget", "tracker", "session", "window")


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
    assert window.tabs.context.editor.toPlainText() == FULL
    assert not window.problems.isVisible()


@pytest.mark.parametrize("case", _params())
def test_the_banner_says_what_the_engine_says(
    qtbot, window: MainWindow, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: Case
) -> None:
    built = build_case(tmp_path, case, monkeypatch)
    folder = str(built.root)
    if case.load_error or case.graph_error:
        window.open_project(built.root)
        qtbot.waitUntil(lambda: window.lanes.load.state in (RunState.DONE, RunState.ERROR), timeout=15_000)
    if case.load_error:
        assert (window.lanes.load.state, window.project) == (RunState.ERROR, None)
        assert window.problems.isVisible()
        assert window.problems.messages == [f"could not open {folder}: {built.fill(case.load_error)}{RETRY}"]
    elif case.graph_error:
        assert window.header.text() == f"<b>{built.root.name}</b>: {NO_TASK}"
        assert window.problems.messages == [f"feat: {built.fill(case.graph_error)}"]
        assert window.docks.outline.model.item(0, 1).text() == "unreadable"
        assert window.trace is None
    else:
        trace = open_and_wait(qtbot, window, built.root, "feat", "T1")
        context = built.fill(case.context)
        assert trace.context == context
        assert window.tabs.context.editor.toPlainText() == context
        assert window.problems.messages == [built.fill(t) for _, t in case.errors] + list(case.warnings)
        assert (window.problems.isVisible(), trace.budget) == (bool(window.problems.messages), case.budget)
    assert SECRET not in window.problems.label.text()
    monkeypatch.undo()  # no race left armed for the next project
    keeps_working(qtbot, window, tmp_path)


def test_a_project_that_failed_on_an_alias_bomb_opens_with_f5_once_fixed(
    qtbot, window: MainWindow, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    built = build_case(tmp_path, BY_ID["ctxviewer-yaml-billion-laughs"], monkeypatch)
    with qtbot.waitSignal(window.lanes.load.errored, timeout=15_000):
        window.open_project(built.root, "feat", "T1")
    window.opener.disk.watcher.blockSignals(True)  # no watcher: only F5 may retry
    (built.root / CTX).write_text("budget:\n  total: 3000\n", encoding="utf-8")
    with qtbot.waitSignal(window.traceShown, timeout=15_000) as shown:
        window.opening.refresh()
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
    assert window.docks.outline.model.rowCount() == 0
    keeps_working(qtbot, window, tmp_path)


def test_tasks_without_ids_and_duplicate_ids_are_listed_apart(qtbot, window: MainWindow, tmp_path: Path) -> None:
    root = graph_project(tmp_path / "p", [{**TASK, "id": None}, TASK, TASK])
    trace = open_and_wait(qtbot, window, root, "feat", "T1~2")
    assert (trace.task_id, trace.context) == ("T1~2", FULL)
    feature = window.docks.outline.model.item(0, 0)
    assert [feature.child(r, 0).text() for r in range(feature.rowCount())] == [
        "#1\nLogin session",
        "T1\nLogin session",
        "T1~2\nLogin session",
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
    assert window.docks.outline.model.item(0, 0).rowCount() == 10_000
    assert window.docks.outline.model.item(0, 1).text() == "10000 tasks"
    # the background pass starts once the first task is on screen; at 10,000 tasks it has only begun
    qtbot.waitUntil(window.lanes.batch.is_busy, timeout=5000)
    window.close()  # waits for the pool (up to 10 s): a cancelled pass must stop at once
    assert window.lanes.pool.activeThreadCount() == 0
    assert len(window.batch.totals) < 10_000


def test_a_one_megabyte_paragraph_is_shown_cut_as_the_engine_cuts_it(qtbot, window: MainWindow, tmp_path: Path) -> None:
    root = graph_project(tmp_path / "p", [TASK])
    (root / REQ).write_text(("Login session store keeps tokens. " * 31_000)[: 1024 * 1024], encoding="utf-8")
    trace = open_and_wait(qtbot, window, root, "feat", "T1")
    assert trace.context == assemble(load_project(root), "feat", "T1").context
    assert trace.context.startswith(SEC) and trace.context.endswith("[... truncated for context limits ...]")
    assert window.tabs.context.editor.toPlainText() == trace.context
    assert window.tabs.paragraphs.model.rowCount() == 1
    keeps_working(qtbot, window, tmp_path)


@needs_symlinks
def test_a_spec_linked_outside_is_not_shown_anywhere(qtbot, window: MainWindow, tmp_path: Path) -> None:
    base = tmp_path.resolve()
    root = graph_project(base / "p", [TASK])
    (base / "secret.md").write_text(f"Login session {SECRET}.\n", encoding="utf-8")
    os.unlink(root / REQ)
    os.symlink(base / "secret.md", root / REQ)
    trace = open_and_wait(qtbot, window, root, "feat", "T1")
    window.docks.focus_search()
    window.docks.search.field.setText(SECRET.lower())
    assert window.docks.search.matches() == ()
    assert SECRET not in trace.context and SECRET not in window.tabs.context.editor.toPlainText()
    assert window.tabs.paragraphs.model.rowCount() == 0


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
    with qtbot.waitSignal(window.lanes.load.errored, timeout=15_000):
        window.open_project(root)
    watched = window.opener.disk.watcher.files() + window.opener.disk.watcher.directories()
    assert str(root / CTX) in watched  # the broken file itself is watched, so fixing it retries
    real_root = os.path.realpath(root)
    assert [p for p in watched if not os.path.realpath(p).startswith(real_root + os.sep) and p != real_root] == []


# -- markup in every name and text: shown as text, nothing loaded ---------------------------------


@pytest.fixture
def hostile(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Path, Hostile, OpenWatch]]:
    """A project of markup, run from the canary's folder (so relative ``<img src=canary.png>``
    would load it too), with every open of the canary watched."""
    if not inotify_available:
        pytest.skip("watching opens needs Linux inotify")
    root, canary_dir, strings = hostile_project(tmp_path)
    monkeypatch.chdir(canary_dir)
    try:
        watch = OpenWatch(canary_dir)
    except OSError as exc:  # e.g. the user's inotify instances are used up
        pytest.skip(f"cannot watch opens: {exc}")
    yield root, strings, watch
    watch.close()


def _visit_everything(qtbot, window: MainWindow, root: Path, h: Hostile) -> None:
    """Open the project, let the pass and the replay finish, pin, switch task, compare, follow the
    log, search, and bring every tab and panel to the front."""
    with qtbot.waitSignals([window.batchFinished, window.replayShown], timeout=30_000):
        trace = open_and_wait(qtbot, window, root)
    assert trace.task_id == h.task_id
    window.tabs.show_tab("compare")
    qtbot.waitUntil(window.tabs.compare.is_settled, timeout=30_000)
    with qtbot.waitSignal(window.traceShown, timeout=30_000):
        window.select_task(h.feature, "T2")
    window.baseline.pin()  # the what-if tab then compares two tasks: both ids in its header
    with qtbot.waitSignal(window.traceShown, timeout=30_000):
        window.select_task(h.feature, h.task_id)
    qtbot.waitUntil(window.tabs.compare.is_settled, timeout=30_000)
    window.docks.focus_search()
    window.docks.search.field.setText(h.paragraph)  # the query is quoted back in the summary
    for name in TABS:
        window.tabs.show_tab(name)
        qtbot.wait(20)  # painted: labels laid out, images (if any) asked for
    window.tabs.show_tab("context")
    window.tabs.context.show_span(0, 10)
    with qtbot.waitSignal(window.docks.session.liveUpdated, timeout=10_000):
        window.following.follow_log(root / ".mahabharatha" / "logs" / "worker.jsonl")
    for panel in PANELS:
        window.docks.show_panel(panel)
        qtbot.wait(20)


def _hover_rows(qtbot, window: MainWindow) -> list[str]:
    """The tooltips the charts and the session plot set as the mouse moves over them, each tab
    and panel brought to the front in turn (a chart hidden behind another gets no mouse)."""
    tips: list[str] = []
    window.following.stop()  # the session plot shows the replay's tasks again
    for show, name in [*((window.tabs.show_tab, t) for t in TABS), *((window.docks.show_panel, p) for p in PANELS)]:
        show(name)
        qtbot.wait(10)
        for chart in [*window.findChildren(_Chart), window.docks.session.plot]:
            if not chart.isVisible():
                continue
            for y in range(0, chart.height(), 6):
                for x in range(0, chart.width(), 24):
                    qtbot.mouseMove(chart, QPoint(x, y))
                    tips.append(chart.toolTip())
    return tips


def test_every_label_tooltip_and_cell_shows_project_markup_as_text(qtbot, window: MainWindow, hostile) -> None:
    root, h, watch = hostile
    pairs = h.pairs()
    _visit_everything(qtbot, window, root, h)
    wrong: list[str] = []
    for label in window.findChildren(QLabel):
        wrong += [f"label {label.objectName()}: {w}" for w in interpreted(label.text(), label.textFormat(), pairs)]
        if label.textFormat() == AUTO and any(m in label.text() for m, _ in pairs):
            wrong.append(f"label {label.text()!r} shows project text in Qt's guessed format")
    for widget in [window, *window.findChildren(QWidget)]:
        wrong += [f"tooltip of {type(widget).__name__}: {w}" for w in interpreted(widget.toolTip(), AUTO, pairs)]
    models = {id(v.model()): v.model() for v in window.findChildren(QAbstractItemView) if v.model() is not None}
    for model in models.values():
        for where, role, text in model_texts(model):
            # an item view paints DisplayRole as plain text; it shows ToolTipRole as a tooltip
            fmt = Qt.TextFormat.PlainText if role == Qt.ItemDataRole.DisplayRole else AUTO
            wrong += [f"{type(model).__name__} {where}: {w}" for w in interpreted(text, fmt, pairs)]
    outline = window.docks.outline
    for row in range(outline.proxy.rowCount()):
        feature = outline.proxy.index(row, 0)
        for task_row in range(outline.proxy.rowCount(feature)):
            for column in (0, 1):
                tip = outline.tooltip(outline.proxy.index(task_row, column, feature)) or ""
                wrong += [f"outline tooltip: {w}" for w in interpreted(tip, AUTO, pairs)]
    for sel in window.tabs.context.editor.extraSelections():
        wrong += [f"context tint tooltip: {w}" for w in interpreted(sel.format.toolTip(), AUTO, pairs)]
    wrong += [f"status bar: {w}" for w in interpreted(window.statusBar().currentMessage(), PLAIN, pairs)]
    assert wrong == [], "\n".join(wrong)

    # Where each string is shown, it is shown whole (worked from the project's files).
    assert window.windowTitle() == f"{h.root_name} \u2014 ctxviewer"
    assert shown(window.header.text(), RICH).startswith(f"{h.task_id} {h.title}\nfeature {h.feature} \u00b7 ")
    assert shown(window.docks.budget.effect.text(), RICH).startswith(f"{h.task_id}: context ")
    assert f"Replaying {h.feature}: " in shown(window.docks.budget.effect.text(), RICH)
    feature_row = outline.model.item(0, 0)
    assert (feature_row.text(), feature_row.child(0, 0).text()) == (h.feature, f"{h.task_id}\n{h.title}")
    assert f"Last task: {h.task_id}" in shown(window.docks.session.breakdown.text(), RICH)
    assert f"unknown event {h.event!r}" in window.docks.session.live_status.text()
    assert window.docks.session.live_status.textFormat() == PLAIN
    assert h.paragraph in window.tabs.paragraphs.detail.toPlainText()
    assert window.tabs.rules.select(lambda i: i.source.endswith("owasp-2025.md"))
    assert h.rule_text in window.tabs.rules.detail.toPlainText()
    assert h.rule_text in window.tabs.context.editor.toPlainText()
    assert shown(window.tabs.whatif.header.text(), RICH).startswith(
        f"Different task: the baseline is T2 ({h.feature}), the current run {h.task_id} ({h.feature})."
    )
    assert all(isinstance(b, NoResourceBrowser) for b in window.findChildren(QTextBrowser))
    assert "<img" not in window.tabs.paragraphs.detail.toHtml()  # escaped: no element named in it
    # The charts' and the plot's tooltips, hovering each one in turn (the live log is left).
    tips = _hover_rows(qtbot, window)
    assert any("Q2Z" in t for t in tips), "the plot's points were hovered: the first task's tooltip was set"
    assert [w for tip in tips for w in interpreted(tip, AUTO, pairs)] == []
    assert f"Task 1 of 2: {h.task_id}\n" in {shown(t)[: len(h.task_id) + 14] for t in tips}
    # ... and the image every string names was never opened, by Python or by Qt.
    assert watch.opened() == []


def test_the_header_and_budget_panel_show_a_task_id_as_text(qtbot, window: MainWindow, tmp_path: Path) -> None:
    tasks = [{**TASK, "id": "<b>T1</b>&amp;", "title": "Login <i>session</i>"}]
    root = graph_project(tmp_path / "p", tasks)
    open_and_wait(qtbot, window, root)
    head = shown(window.header.text(), window.header.textFormat())
    assert head.startswith("<b>T1</b>&amp; Login <i>session</i>\nfeature feat \u00b7 profile ")
    assert shown(window.docks.budget.effect.text(), window.docks.budget.effect.textFormat()).startswith(
        "<b>T1</b>&amp;: context "
    )


def test_a_project_folder_named_with_markup_is_named_as_text(qtbot, window: MainWindow, tmp_path: Path) -> None:
    root = tmp_path / "<b>empty<b>&amp;"
    root.mkdir()
    with qtbot.waitSignal(window.projectLoaded, timeout=15_000):
        window.open_project(root)
    assert shown(window.header.text(), window.header.textFormat()) == f"<b>empty<b>&amp;: {NO_TASK}"
    assert window.windowTitle() == "<b>empty<b>&amp; \u2014 ctxviewer"


def test_tooltips_of_cells_with_markup_are_shown_as_text(qtbot, window: MainWindow, tmp_path: Path) -> None:
    tasks = [{**TASK, "title": "<b>Login</b> session"}]
    root = graph_project(tmp_path / "p", tasks)
    open_and_wait(qtbot, window, root)
    label = window.docks.outline.proxy.index(0, 0, window.docks.outline.proxy.index(0, 0))
    tip = window.docks.outline.tooltip(label) or ""
    assert shown(tip) == "T1: <b>Login</b> session"
    keywords = window.tabs.task.keywords.model
    first = keywords.data(keywords.index(0, 1), Qt.ItemDataRole.ToolTipRole)
    assert shown(first) == f"From: {keywords.data(keywords.index(0, 1))}\nWhere in the task the keyword came from"


def test_the_save_box_quotes_the_project_folder_and_values_as_text(
    qtbot, window: MainWindow, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = graph_project(tmp_path / "<b>p<b>", [TASK])
    open_and_wait(qtbot, window, root)
    assert window.docks.budget.set_values({"zones": {"<b>Q8Z": 50}}) == ""
    labels: dict[str, tuple[Qt.TextFormat, str]] = {}

    def answer(box: QMessageBox) -> QMessageBox.StandardButton:
        labels.update({label.objectName(): (label.textFormat(), label.text()) for label in box.findChildren(QLabel)})
        return QMessageBox.StandardButton.Cancel

    monkeypatch.setattr(QMessageBox, "exec", answer)
    window.tuner.save(confirm=True)
    assert labels["qt_msgbox_label"] == (PLAIN, f"Write 1 change(s) to {root / 'ctxviewer.yaml'}?")
    fmt, text = labels["qt_msgbox_informativelabel"]
    assert fmt == PLAIN and "<b>Q8Z" in text


# -- the export dialog's suggested file name ---------------------------------------------------


def test_the_export_dialog_suggests_a_file_inside_the_export_folder(
    qtbot, window: MainWindow, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = graph_project(tmp_path / "p", [{**TASK, "id": "../../outside/\x1b[2Jx"}])
    open_and_wait(qtbot, window, root)
    exports = tmp_path / "exports"
    window.store.set_export_dir(str(exports))
    asked: list[str] = []

    def dialog(_parent: object, _title: str, default: str, _filters: str) -> tuple[str, str]:
        asked.append(default)
        return "", ""  # cancelled

    monkeypatch.setattr(QFileDialog, "getSaveFileName", dialog)
    window.exporter.ask_and_export("markdown")
    window.exporter.ask_and_export("json")
    assert asked == [str(exports / "____outside__[2Jx.md"), str(exports / "____outside__[2Jx.json")]
    assert all(Path(a).parent == exports for a in asked)


# -- reopening the last project only after a clean start ---------------------------------------


def test_the_project_being_opened_is_on_disk_until_its_first_task_shows(
    qtbot, window: MainWindow, settings: QSettings, tmp_path: Path
) -> None:
    root = graph_project(tmp_path / "p", [TASK])
    with qtbot.waitSignal(window.traceShown, timeout=30_000):
        window.open_project(root)
        # what a crash now would leave behind: read from the file, not from this object
        left = QSettings(settings.fileName(), QSettings.Format.IniFormat).value(OPENING_KEY)
    assert left == str(root)
    after = QSettings(settings.fileName(), QSettings.Format.IniFormat)
    assert (after.contains(OPENING_KEY), after.value("last-project")) == (False, str(root))
    # the next start reopens it
    again = MainWindow(after)
    qtbot.addWidget(again)
    with qtbot.waitSignal(again.traceShown, timeout=30_000) as shown:
        assert again.opening.reopen_last() is True
    assert shown.args[0].task_id == "T1"
    again.close()


def test_a_project_whose_last_open_never_finished_is_offered_not_reopened(
    qtbot, settings: QSettings, tmp_path: Path
) -> None:
    root = graph_project(tmp_path / "p", [TASK])
    settings.setValue("last-project", str(root))
    settings.setValue(OPENING_KEY, str(root))  # left by a window that died opening it
    window = MainWindow(settings)
    qtbot.addWidget(window)
    window.show()
    assert window.opening.reopen_last() is False
    qtbot.wait(100)
    assert (window.project, window.lanes.load.state) == (None, RunState.IDLE)
    assert window.problems.isVisible() and window.problems.messages == [
        f"ctxviewer did not finish opening {root} last time (it crashed or was closed before the first task "
        "was shown), so it was not reopened"
    ]
    assert window.statusBar().currentMessage() == f"Not reopened: {root}"
    assert window.problems.action_button.isVisible() and window.problems.action_button.text() == "Open It Anyway"
    with qtbot.waitSignal(window.traceShown, timeout=30_000) as shown:
        qtbot.mouseClick(window.problems.action_button, Qt.MouseButton.LeftButton)
    assert shown.args[0].task_id == "T1"
    assert not window.problems.isVisible() and not settings.contains(OPENING_KEY)
    window.close()


def test_a_bare_ctxviewer_start_does_not_reopen_an_unfinished_project(
    qtbot, settings: QSettings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = graph_project(tmp_path / "p", [TASK])
    settings.setValue("last-project", str(root))
    settings.setValue(OPENING_KEY, str(root))
    made: list[MainWindow] = []

    def window_with_test_settings() -> MainWindow:
        made.append(MainWindow(settings))
        qtbot.addWidget(made[-1])
        return made[-1]

    class _App:  # run_gui's application, without touching the test process's style or looping
        def exec(self) -> int:
            return 0

    monkeypatch.setattr(gui_app, "MainWindow", window_with_test_settings)
    monkeypatch.setattr(gui_app, "make_app", lambda _theme: _App())
    args = argparse.Namespace(project=None, feature=None, task=None, screenshot=None, tab=None, compare=False)
    assert gui_app.run_gui(args) == 0
    qtbot.wait(100)
    (window,) = made
    assert (window.project, window.lanes.load.state) == (None, RunState.IDLE)
    assert window.problems.action_button.isVisible()
    window.close()


def test_an_open_that_fails_with_a_message_counts_as_finished(
    qtbot, window: MainWindow, settings: QSettings, tmp_path: Path
) -> None:
    root = graph_project(tmp_path / "p", [TASK])
    (root / CTX).write_text("budget: [unclosed\n", encoding="utf-8")
    with qtbot.waitSignal(window.lanes.load.errored, timeout=15_000):
        window.open_project(root)
    assert not settings.contains(OPENING_KEY)  # the window survived it and said why


# -- no file outside the project is opened (Python's audit events) ------------------------------

#: Files opened while recording, as (path, working folder then); None while not recording.
#: Audit hooks cannot be removed, so the one hook installed for this test process does
#: nothing unless a test is recording.
_RECORD: list[list[tuple[str, str]] | None] = [None]
_HOOKED: list[bool] = [False]


def _on_audit(event: str, args: tuple[object, ...]) -> None:
    if event != "open":
        return
    record = _RECORD[0]
    if record is None or not args or isinstance(args[0], int):  # an fd is already open
        return
    path = args[0]
    if isinstance(path, bytes | str | os.PathLike):
        record.append((os.fsdecode(path), os.getcwd()))


@pytest.fixture
def python_opens() -> Iterator[list[tuple[str, str]]]:
    """Every file Python code opens (``open``, ``os.open``, ``io.open``...) in any thread, while the test runs.

    Qt's own C++ file opens raise no Python audit event: these are covered by the inotify
    watch of the canary and by the window showing project text as text (above).
    """
    if not _HOOKED[0]:
        sys.addaudithook(_on_audit)
        _HOOKED[0] = True
    record: list[tuple[str, str]] = []
    _RECORD[0] = record
    yield record
    _RECORD[0] = None


def _outside(opened: list[tuple[str, str]], allowed: list[Path]) -> list[str]:
    out = []
    for path, cwd in opened:
        real = os.path.realpath(os.path.join(cwd, path))
        if not any(real == str(a) or real.startswith(str(a) + os.sep) for a in allowed):
            out.append(real)
    return sorted(set(out))


def _allowed(root: Path) -> list[Path]:
    real = [
        # the project itself: what the window is asked to read
        root,
        # the Python installation and the virtual environment: standard-library modules and
        # installed packages (PySide6, tiktoken, PyYAML) imported on first use
        Path(sys.prefix),
        Path(sys.base_prefix),
        Path(sys.exec_prefix),
        Path(sys.base_exec_prefix),
        # ctxviewer's own code, imported on first use, and the resources it ships (tiktoken rank
        # files, style sheet, icons), wherever the install put them (an editable install
        # keeps both in the source tree, outside the environment, and not in one folder)
        Path(ctxviewer.__file__).parent,
        # (found as the app finds them: the installed package, else the checkout's resources/)
        Path(str(resource_path())),
    ]
    # Not listed, as Python opens nothing there: the test's settings file (QSettings reads and
    # writes it in C++), /dev and /proc.
    return [Path(os.path.realpath(p)) for p in real]


def test_the_audit_hook_sees_an_open_outside(python_opens, tmp_path: Path) -> None:
    """The check below can fail: an open of a file outside the project, in another thread, is seen."""
    secret = tmp_path / "outside.txt"
    secret.write_text(SECRET, encoding="utf-8")
    python_opens.clear()
    reader = threading.Thread(target=secret.read_text)
    reader.start()
    reader.join()
    assert _outside(python_opens, [tmp_path / "project"]) == [str(secret.resolve())]


def test_opening_a_hostile_project_opens_no_file_outside_it(qtbot, window: MainWindow, hostile, python_opens) -> None:
    root, h, watch = hostile
    _visit_everything(qtbot, window, root, h)
    opened = list(python_opens)
    assert opened, "the project's files were read: the hook records"
    assert _outside(opened, _allowed(Path(os.path.realpath(root)))) == []
    assert watch.opened() == []


def test_a_hostile_task_s_findings_show_its_names_as_text(qtbot, window: MainWindow, tmp_path, monkeypatch) -> None:
    """The Findings tab, the header's findings line and the outline marker's tooltip (added after
    the rest of the window was made plain) show a finding about a hostile task as text.

    The hostile task creates ``src/<i>Q4Z<img ...>.py``; a Python rule file of 200 rule lines
    (6,800 characters) matches it and cannot fit the security share of the default budget
    (30 % of 4,000 tokens = 4,800 characters): a rule-cut-loaded finding (the worker loads the file
    as project memory all the same) whose Task cell is the hostile id and whose message quotes the
    hostile file name.
    """
    root, canary_dir, h = hostile_project(tmp_path)
    write(root, f"{RULES}/languages/python/CLAUDE.md", "## Rule: keep it short and simple\n" * 200)
    monkeypatch.chdir(canary_dir)  # a relative <img src=canary.png> would be found here
    pairs = h.pairs()
    with qtbot.waitSignal(window.batchFinished, timeout=30_000):
        trace = open_and_wait(qtbot, window, root)
    assert trace.task_id == h.task_id
    cuts = [r for r in window.findings.rows if r.code == "rule-cut-loaded"]
    assert len(cuts) == 1 and f"src/{h.file_name}" in cuts[0].finding.message
    window.findings.show(feature=True)
    qtbot.wait(20)
    tab = window.tabs.findings
    assert h.task_id in [r.task for r in tab.rows()]
    wrong: list[str] = []
    for label in [window.findings_line, *tab.findChildren(QLabel)]:
        wrong += [f"label {label.objectName()}: {w}" for w in interpreted(label.text(), label.textFormat(), pairs)]
    for widget in [window.findings_line, tab, *tab.findChildren(QWidget)]:
        wrong += [f"tooltip of {type(widget).__name__}: {w}" for w in interpreted(widget.toolTip(), AUTO, pairs)]
    for where, role, text in model_texts(tab.table.model):
        fmt = PLAIN if role == Qt.ItemDataRole.DisplayRole else AUTO
        wrong += [f"findings {where}: {w}" for w in interpreted(text, fmt, pairs)]
    tab.table.select(lambda _r: True)
    detail = tab.table.detail.toPlainText()
    assert f"Task {h.task_id} of {h.feature}" in detail and f"src/{h.file_name}" in detail
    outline = window.docks.outline
    task_index = outline.proxy.index(0, 0, outline.proxy.index(0, 0))
    tip = outline.tooltip(task_index) or ""
    assert f"src/{h.file_name}" in shown(tip)  # the marker's tooltip names the finding ...
    wrong += [f"outline tooltip: {w}" for w in interpreted(tip, AUTO, pairs)]  # ... as text
    assert wrong == [], "\n".join(wrong)
