"""The real window, driven like a user would: open, select, wait for the worker, read the views."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtCore import QModelIndex, QSettings, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication

from ctxviewer.engine.errors import ProjectError
from ctxviewer.engine.exports import report
from ctxviewer.engine.trace.model import RULE_FILE, SPEC_PARAGRAPH, Trace
from ctxviewer.gui.widgets.models import RowRole
from ctxviewer.gui.window import MainWindow
from tests.factories import make_project
from tests.gui.conftest import EDGE, LEDGER, engine_trace, open_and_wait

PY_RULE = "## Rule: Never eval input\n**Level**: strict\n**When**: parsing\n"
JS_RULE = "## Rule: No innerHTML\n**Level**: strict\n**When**: rendering\n"
# Keywords of the task below: "rotate", "signing", "keys" (title words over 3 characters)
# and "vault" (stem of src/vault.py).  Scores: the number of keywords a paragraph contains.
REQUIREMENTS = (
    "\n\n".join(
        [
            "Rotate signing keys daily.",  # 3 -> rank 1
            "Rotate keys weekly.",  # 2 -> rank 2
            "Signing is audited.",  # 1 -> rank 3
            "Rotate nothing else.",  # 1 -> rank 4
            "Keys are stored apart.",  # 1 -> rank 5
            "Rotate again later.",  # 1 -> rank 6: the first one past the top 5
            "Nothing relevant here.",  # 0 -> never ranked
        ]
    )
    + "\n"
)


@pytest.fixture
def small_project(tmp_path: Path) -> Path:
    task = {
        "id": "T-1",
        "title": "Rotate signing keys",
        "description": "",
        "files": {"create": [], "modify": ["src/vault.py"], "read": []},
    }
    return make_project(
        tmp_path / "proj",
        [task],
        requirements=REQUIREMENTS,
        rules={"languages/python/CLAUDE.md": PY_RULE, "languages/javascript/CLAUDE.md": JS_RULE},
    )


def _column(table, header: str) -> int:
    headers = [table.model.headerData(c, Qt.Orientation.Horizontal) for c in range(table.model.columnCount())]
    return headers.index(header)


def _cell(table, row: int, header: str) -> str:
    return str(table.proxy.index(row, _column(table, header)).data())


def test_opening_a_sample_shows_the_engines_trace_in_every_view(qtbot, window: MainWindow) -> None:
    trace = open_and_wait(qtbot, window, LEDGER, "auth-sessions", "AUTH-L1-001")
    expected = engine_trace(LEDGER, "auth-sessions", "AUTH-L1-001")
    assert trace.context == expected.context
    assert trace.context_tokens == expected.context_tokens

    # Sections: one row per section plus the whole context, numbers as in the trace.
    table = window.tabs.sections.table
    assert table.model.rowCount() == len(expected.sections) + 1
    for row, section in enumerate(expected.sections):
        assert _cell(table, row, "Section") == section.title
        assert _cell(table, row, "Budget") == f"{section.budget:,}"
        assert _cell(table, row, "Estimate") == f"{section.tokens.heuristic:,}"
        assert _cell(table, row, "cl100k_base") == f"{section.tokens.cl100k_base:,}"
        diff = section.tokens.cl100k_base - section.tokens.heuristic
        assert _cell(table, row, "\u0394 cl100k").replace("\u2212", "-").lstrip("+") == f"{diff:,}"
    chart = window.tabs.sections.chart.value()
    assert [s.tokens for s in chart.segments] == [s.tokens.heuristic for s in expected.sections]
    assert chart.total_budget == expected.budget

    # Paragraphs and rules: every candidate listed.
    assert window.tabs.paragraphs.model.rowCount() == len(expected.items_of(SPEC_PARAGRAPH))
    assert window.tabs.rules.model.rowCount() == len(expected.items_of(RULE_FILE))

    # Trimming steps in order.
    steps = window.tabs.trimming.table.model.rows()
    assert [s.order for s in steps] == [s.order for s in expected.trim_steps]

    # The context view holds exactly the context.
    assert window.tabs.context.editor.toPlainText() == expected.context

    # The gauge shows the tracker.
    gauge = window.docks.tracker.gauge.value()
    assert gauge.used == expected.tracker.estimated_tokens
    assert gauge.maximum == expected.tracker.max_tokens
    assert gauge.threshold_percent == expected.tracker.threshold_percent == 70.0
    assert window.docks.tracker.fields["estimated"].text() == f"{expected.tracker.estimated_tokens:,} tokens"


def test_a_dropped_paragraph_says_why(qtbot, window: MainWindow, small_project: Path) -> None:
    open_and_wait(qtbot, window, small_project)
    table = window.tabs.paragraphs
    assert table.model.rowCount() == 7
    # File order is kept until a header is clicked.
    statuses = [_cell(table, r, "Status") for r in range(7)]
    assert statuses == ["included"] * 5 + ["outranked", "not a candidate"]  # rank 6 of top 5; score 0
    assert _cell(table, 5, "Rank") == "6"
    assert _cell(table, 5, "Reason") == "rank 6, only the top 5 are kept (score 1)"
    assert _cell(table, 6, "Reason") == "score 0: no task keyword occurs in it"
    assert _cell(table, 0, "Score") == "3"
    assert _cell(table, 0, "Keywords") == "keys, rotate, signing"

    # Selecting the dropped one explains where the top-5 cut fell.
    assert table.select(lambda i: i.rank == 6)
    detail = table.detail.toPlainText()
    assert "rank 6, only the top 5 are kept (score 1)" in detail
    assert "the top 5 were kept (lowest kept score 1)" in detail
    assert "rank 6, below the cut" in detail

    # Rules: python matched by the .py file, javascript not considered.
    rules = {_cell(window.tabs.rules, r, "Rule file"): r for r in range(window.tabs.rules.model.rowCount())}
    py = rules["languages/python/CLAUDE.md"]
    assert _cell(window.tabs.rules, py, "Status") == "included"
    assert _cell(window.tabs.rules, py, "Matched by") == "src/vault.py (.py)"
    js = rules["languages/javascript/CLAUDE.md"]
    assert _cell(window.tabs.rules, js, "Status") == "not a candidate"
    assert _cell(window.tabs.rules, js, "Reason").startswith("not matched")


def test_filters_narrow_the_paragraph_table(qtbot, window: MainWindow, small_project: Path) -> None:
    open_and_wait(qtbot, window, small_project)
    table = window.tabs.paragraphs
    table.status_buttons["included"].setChecked(False)
    assert table.shown() == 2
    table.filter.setText("again")
    assert table.shown() == 1
    assert table.count.text() == "1 of 7 paragraphs"
    table.filter.clear()
    table.status_buttons["included"].setChecked(True)
    assert table.shown() == 7


def test_search_lists_every_candidate_and_goes_to_it(qtbot, window: MainWindow, small_project: Path) -> None:
    open_and_wait(qtbot, window, small_project)
    window.docks.focus_search()
    window.docks.search.field.setText("rotate")
    # "rotate" is in paragraphs 1, 2, 4 and 6 (rank 6 dropped); no rule file mentions it.
    matches = window.docks.search.matches()
    assert [m.status for m in matches] == ["included", "included", "included", "outranked"]
    assert window.docks.search_dock.isVisible()
    assert "task keyword" in window.docks.search.summary.text()
    window.docks.search.matchChosen.emit(matches[-1])
    assert window.tabs.current_tab() == "paragraphs"
    assert window.tabs.paragraphs.current_row().text == "Rotate again later."
    # A rule file by name.
    window.docks.search.field.setText("javascript")
    (match,) = window.docks.search.matches()
    assert match.kind == RULE_FILE and match.status == "not_candidate"


def test_jumping_to_an_item_selects_its_span_in_the_context(qtbot, window: MainWindow, small_project: Path) -> None:
    trace = open_and_wait(qtbot, window, small_project)
    item = next(i for i in trace.items if i.kind == SPEC_PARAGRAPH and i.rank == 2)
    window.tabs.jump_to_item(item)
    assert window.tabs.current_tab() == "context"
    start, end = window.tabs.context.selected_span()
    assert trace.context[start:end] == "Rotate keys weekly."
    assert window.tabs.context.selected_text() == "Rotate keys weekly."
    # A dropped paragraph has no span: the window says so and stays where it is.
    window.tabs.show_tab("paragraphs")
    dropped = next(i for i in trace.items if i.rank == 6)
    window.tabs.jump_to_item(dropped)
    assert window.tabs.current_tab() == "paragraphs"
    assert "not in the context" in window.statusBar().currentMessage()


def test_section_click_jumps_to_its_text(qtbot, window: MainWindow, small_project: Path) -> None:
    trace = open_and_wait(qtbot, window, small_project)
    window.tabs.jump_to_section("spec_excerpts")
    start, end = window.tabs.context.selected_span()
    assert trace.context[start:end].startswith("## Relevant Requirements")


def test_selecting_another_task_reassembles(qtbot, window: MainWindow) -> None:
    open_and_wait(qtbot, window, LEDGER, "auth-sessions", "AUTH-L1-001")
    with qtbot.waitSignal(window.traceShown, timeout=30_000) as blocker:
        window.select_task("reconciliation", "REC-L1-002")
    assert blocker.args[0].task_id == "REC-L1-002"
    assert window.header.text().count("REC-L1-002") == 1


def test_panels_behind_a_tab_show_the_task_when_raised(qtbot, window: MainWindow) -> None:
    """The Tracker and Window panels, behind the Budget panel's tab, are filled when raised."""
    first = open_and_wait(qtbot, window, LEDGER, "auth-sessions", "AUTH-L1-001")
    docks = window.docks
    docks.show_panel("budget")
    with qtbot.waitSignal(window.traceShown, timeout=30_000) as blocker:
        window.select_task("reconciliation", "REC-L1-002")
    second = blocker.args[0]
    assert second.tracker.estimated_tokens != first.tracker.estimated_tokens  # the check below can tell them apart
    estimated = docks._tracker.fields["estimated"]
    assert estimated.text() != f"{second.tracker.estimated_tokens:,} tokens"  # not filled out of sight
    with qtbot.waitSignal(docks.tracker_dock.visibilityChanged):
        docks.show_panel("tracker")
    assert estimated.text() == f"{second.tracker.estimated_tokens:,} tokens"
    assert docks._window_view.trace() is not second
    assert docks.window_view.trace() is second  # read: filled first


def test_a_newer_request_cancels_the_older(qtbot, window: MainWindow) -> None:
    open_and_wait(qtbot, window, LEDGER, "auth-sessions", "AUTH-L1-001")
    # Two selections in a row: only the second one's trace is shown.
    shown: list[str] = []
    window.traceShown.connect(lambda t: shown.append(t.task_id))
    with qtbot.waitSignal(window.traceShown, timeout=30_000):
        window.select_task("auth-sessions", "AUTH-L1-002")
        window.select_task("auth-sessions", "AUTH-L1-003")
    qtbot.waitUntil(lambda: not window.lanes.run.running_jobs())
    assert shown == ["AUTH-L1-003"]


def test_an_engine_error_shows_in_the_panel_and_the_window_keeps_working(
    qtbot, window: MainWindow, monkeypatch: pytest.MonkeyPatch
) -> None:
    open_and_wait(qtbot, window, LEDGER, "auth-sessions", "AUTH-L1-001")
    import ctxviewer.gui.window.runs as window_module

    real = window_module.assemble_task

    def broken(*args, **kwargs):
        raise ProjectError("task graph vanished mid-run", ".gsd/specs/auth-sessions/task-graph.json")

    monkeypatch.setattr(window_module, "assemble_task", broken)
    with qtbot.waitSignal(window.lanes.run.errored, timeout=10_000) as blocker:
        window.select_task("auth-sessions", "AUTH-L1-002")
    assert "task graph vanished mid-run" in blocker.args[0]
    assert window.problems.isVisible()
    assert "task graph vanished mid-run" in window.problems.label.text()
    assert window.trace.task_id == "AUTH-L1-001"  # the last good trace stays on screen

    monkeypatch.setattr(window_module, "assemble_task", real)
    with qtbot.waitSignal(window.traceShown, timeout=30_000) as done:
        window.select_task("auth-sessions", "AUTH-L1-002")
    assert done.args[0].task_id == "AUTH-L1-002"
    assert not window.problems.isVisible()


def test_a_broken_project_path_is_reported(qtbot, window: MainWindow, tmp_path: Path) -> None:
    with qtbot.waitSignal(window.lanes.load.errored, timeout=10_000):
        window.open_project(tmp_path / "does-not-exist")
    assert window.problems.isVisible()
    assert "could not open" in window.problems.label.text() and "does-not-exist" in window.problems.label.text()


def test_outline_lists_features_greys_the_graphless_and_fills_batch_totals(qtbot, window: MainWindow) -> None:
    with qtbot.waitSignal(window.batchFinished, timeout=60_000):
        open_and_wait(qtbot, window, EDGE)
    model = window.docks.outline.model
    names = [model.item(r, 0).text() for r in range(model.rowCount())]
    assert names == ["long-spec", "no-graph", "upper-names", "yaml-graph"]
    no_graph = model.item(names.index("no-graph"), 0)
    assert no_graph.rowCount() == 0
    assert "no task-graph" in no_graph.toolTip()
    assert model.item(names.index("no-graph"), 1).text() == "no graph"
    # Every task got its total from the batch pass, matching a direct engine run.
    feature, task = "long-spec", window.project.feature("long-spec").tasks[0].id
    expected = engine_trace(EDGE, feature, task)
    used = expected.context_tokens.get(expected.tokenizer)
    mark = " \u26a0" if used > expected.budget else ""
    assert window.docks.outline.total_text(feature, task) == f"{used:,}{mark}"
    assert len(window.batch.totals) == len(window.project.tasks())


def test_exports_write_exact_content(qtbot, window: MainWindow, tmp_path: Path) -> None:
    trace = open_and_wait(qtbot, window, LEDGER, "auth-sessions", "AUTH-L1-001")
    # The worker's prompt is composed a moment after the trace is shown.
    qtbot.waitUntil(lambda: window.tabs.prompt.prompt() is not None, timeout=30_000)
    tmp_path = tmp_path / "out"
    tmp_path.mkdir()
    for fmt, name in (("markdown", "ctx.md"), ("json", "trace.json"), ("html", "report.html")):
        path = tmp_path / name
        with qtbot.waitSignal(window.exportFinished, timeout=30_000) as blocker:
            window.exporter.export_shown(str(path), fmt)
        assert blocker.args == [str(path), ""]
        # the report carries the worker's prompt the Prompt tab shows for the same task
        prompt = window.tabs.prompt.prompt()
        assert prompt is not None and prompt.task_id == "AUTH-L1-001"
        expected = report.render(trace, fmt, prompt=prompt.to_json())
        assert path.read_bytes() == expected.encode("utf-8")
    assert (tmp_path / "ctx.md").read_bytes() == trace.context.encode("utf-8")
    assert '<section id="prompt">' in (tmp_path / "report.html").read_text("utf-8")
    assert json.loads((tmp_path / "trace.json").read_text("utf-8"))["task_id"] == "AUTH-L1-001"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ctx.md", "report.html", "trace.json"]


def test_a_failed_export_says_why_and_leaves_the_old_file(qtbot, window: MainWindow, tmp_path: Path) -> None:
    open_and_wait(qtbot, window, LEDGER, "auth-sessions", "AUTH-L1-001")
    tmp_path = tmp_path / "out"
    tmp_path.mkdir()
    target = tmp_path / "taken"
    target.mkdir()
    (target / "keep.txt").write_text("old", "utf-8")
    with qtbot.waitSignal(window.exportFinished, timeout=30_000) as blocker:
        window.exporter.export_shown(str(target), "markdown")
    path, error = blocker.args
    assert path == str(target) and error
    assert "export failed" in window.problems.label.text()
    assert (target / "keep.txt").read_text("utf-8") == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["taken"]


def test_copy_context_puts_exactly_the_context_on_the_clipboard(qtbot, window: MainWindow) -> None:
    trace = open_and_wait(qtbot, window, LEDGER, "auth-sessions", "AUTH-L1-001")
    window.exporter.copy_context()
    assert QGuiApplication.clipboard().text() == trace.context


def test_recent_projects_and_last_task_are_remembered(qtbot, settings: QSettings, tmp_path: Path) -> None:
    first = MainWindow(settings)
    qtbot.addWidget(first)
    open_and_wait(qtbot, first, LEDGER, "reconciliation", "REC-L2-001")
    first.close()
    assert first.store.recent_projects() == [str(LEDGER.resolve())] or first.store.recent_projects() == [str(LEDGER)]
    second = MainWindow(settings)
    qtbot.addWidget(second)
    trace = open_and_wait(qtbot, second, Path(second.store.recent_projects()[0]))
    assert (trace.feature, trace.task_id) == ("reconciliation", "REC-L2-001")
    assert [a.text() for a in second.menus.recent.actions()] == second.store.recent_projects()
    second.close()


def test_a_trace_is_laid_out_before_its_first_paint(qtbot, window: MainWindow) -> None:
    """The views' new texts are laid out when the trace is shown, not over the paints after it:
    AUTH-L1-003's title takes a line more than AUTH-L1-002's, and the header, the findings
    line and the tabs are where they end up as the trace is announced (before any paint)."""
    open_and_wait(qtbot, window, LEDGER, "auth-sessions", "AUTH-L1-002")
    parts = (window.header, window.findings_line, window.problems, window.tabs)
    before = [w.geometry() for w in parts]
    at_trace: list[list[object]] = []
    window.traceShown.connect(lambda _t: at_trace.append([w.geometry() for w in parts]))
    with qtbot.waitSignal(window.traceShown, timeout=30_000):
        window.select_task("auth-sessions", "AUTH-L1-003")
    for _ in range(5):
        QApplication.processEvents()  # the paints and whatever they set off
    after = [w.geometry() for w in parts]
    assert window.header.height() > before[0].height()  # the title's extra line
    assert at_trace == [after]


def test_keyboard_shortcuts_reach_the_actions(qtbot, window: MainWindow) -> None:
    shortcuts = {a.shortcut().toString() for a in window.actions()}
    for key in ("Ctrl+O", "Ctrl+E", "Ctrl+F", "F5", "Ctrl+Shift+C", "Ctrl+1", "Ctrl+5"):
        assert key in shortcuts, key


def test_rerun_gives_an_equal_trace(qtbot, window: MainWindow) -> None:
    first = open_and_wait(qtbot, window, LEDGER, "auth-sessions", "AUTH-L1-001")
    assert window.current == ("auth-sessions", "AUTH-L1-001")
    with qtbot.waitSignal(window.traceShown, timeout=30_000) as blocker:
        window.select_task(*window.current)
    second: Trace = blocker.args[0]
    assert second == first and second is not first


def test_models_pass_the_model_tester(qtbot, qtmodeltester, window: MainWindow) -> None:
    open_and_wait(qtbot, window, LEDGER, "auth-sessions", "AUTH-L1-001")
    for table in (window.tabs.paragraphs, window.tabs.rules, window.tabs.sections.table, window.tabs.trimming.table):
        qtmodeltester.check(table.model)
        qtmodeltester.check(table.proxy)
        table.view.sortByColumn(0, Qt.SortOrder.DescendingOrder)
        qtmodeltester.check(table.proxy)
    assert window.tabs.paragraphs.model.data(QModelIndex()) is None
    row0 = window.tabs.paragraphs.proxy.index(0, 0).data(RowRole)
    assert row0.kind == SPEC_PARAGRAPH


def test_the_cli_offers_every_tab_of_the_window() -> None:
    from ctxviewer.cli.gui import GUI_TABS
    from ctxviewer.gui.window import TABS

    assert GUI_TABS == TABS
