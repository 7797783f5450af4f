"""The what-if workflow in the window: pin, tune, read the diff, export it."""

from __future__ import annotations

import html
import json
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from ctxviewer.engine.analysis.whatif import diff_traces
from ctxviewer.engine.project.loading import load_project
from ctxviewer.engine.runs.pipeline import assemble
from ctxviewer.engine.trace.model import INCLUDED, TRUNCATED
from ctxviewer.gui.views.findings_view import finding_rows
from ctxviewer.gui.views.whatif_view import OWN_CAPTION, UNTUNED_CAPTION
from ctxviewer.gui.window import MainWindow
from tests.gui.conftest import LEDGER, open_and_wait

FEATURE, TASK = "auth-sessions", "AUTH-L1-001"


def _in_context(status: str) -> bool:
    return status in (INCLUDED, TRUNCATED)


def test_pin_then_tune_shows_what_left_and_why(qtbot, window: MainWindow) -> None:
    open_and_wait(qtbot, window, LEDGER, FEATURE, TASK)
    window.baseline.pin()
    assert window.baseline.diff is not None and window.baseline.diff.unchanged
    with qtbot.waitSignal(window.traceShown, timeout=20_000) as shown:
        window.docks.budget.set_values({"budget": 1500})
    current = shown.args[0]
    diff = window.baseline.diff
    assert diff is not None and diff.current is current and diff.baseline is window.baseline.trace

    # Expected from the engine alone: the candidates in the baseline's context and not now.
    before = assemble(load_project(LEDGER), FEATURE, TASK)
    after = assemble(load_project(LEDGER), FEATURE, TASK, {"budget": 1500})
    left = {
        i.id
        for i in before.items
        if _in_context(i.status) and (a := after.item(i.id)) is not None and not _in_context(a.status)
    }
    assert left and {c.item_id for c in diff.items if c.change == "left"} == left
    for section in diff.sections:
        old, new = before.section(section.name), after.section(section.name)
        assert old is not None and new is not None
        assert section.delta == (new.tokens.heuristic - old.tokens.heuristic)
    assert [(c.key, c.before, c.after) for c in diff.settings] == [("budget", 4000, 1500)]
    # The tab shows it: one row per change, the header names the baseline.
    assert window.tabs.whatif.changes.model.rowCount() == len(diff.items)
    assert "AUTH-L1-001" in window.tabs.whatif.header.text()
    assert window.tabs.tabText(window.tabs.indexOf(window.tabs.whatif)).startswith("What-if \u25cf")


def test_with_nothing_pinned_a_tuned_run_is_compared_with_the_project_s_own_settings(
    qtbot,
    window: MainWindow,  # type: ignore[no-untyped-def]
) -> None:
    open_and_wait(qtbot, window, LEDGER, FEATURE, TASK)
    whatif = window.tabs.whatif  # read again after each change: the tab is filled when read or shown
    # Nothing tuned: the run is the project's own, and the tab says how to see a change.
    assert window.baseline.trace is None and whatif.diff() is not None and whatif.diff().unchanged
    assert html.escape(UNTUNED_CAPTION) in whatif.header.text()
    with qtbot.waitSignal(window.traceShown, timeout=20_000):
        window.docks.budget.set_values({"budget": 1500})
    whatif = window.tabs.whatif
    diff = whatif.diff()
    assert diff is not None and window.baseline.diff is None  # nothing pinned, nothing exported as pinned
    before = assemble(load_project(LEDGER), FEATURE, TASK)
    after = assemble(load_project(LEDGER), FEATURE, TASK, {"budget": 1500})
    left = {
        i.id
        for i in before.items
        if _in_context(i.status) and (a := after.item(i.id)) is not None and not _in_context(a.status)
    }
    assert left and {c.item_id for c in diff.items if c.change == "left"} == left
    assert [(c.key, c.before, c.after) for c in diff.settings] == [("budget", 4000, 1500)]
    assert html.escape(OWN_CAPTION) in whatif.header.text() and "own settings" in whatif.header.text()
    # Pinning takes over; clearing the pin goes back to the project's own settings.
    window.baseline.pin()
    whatif = window.tabs.whatif
    assert whatif.diff() is window.baseline.diff and "AUTH-L1-001" in whatif.header.text()


def test_ctrl_b_pins_wherever_the_focus_is(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    open_and_wait(qtbot, window, LEDGER, FEATURE, TASK)
    places = {
        "the search field": window.docks.search.field,
        "the task filter": window.docks.outline.filter,
        "the task tree": window.docks.outline.tree,
        "a table": window.tabs.paragraphs.view,
        "the context text": window.tabs.context.editor,
        "the budget panel": window.docks.budget,
    }
    for place, widget in places.items():
        window.baseline.clear()
        widget.setFocus()
        QTest.keyClick(window.focusWidget() or widget, Qt.Key.Key_B, Qt.KeyboardModifier.ControlModifier)
        assert window.baseline.trace is window.trace, place


def test_activating_a_change_goes_to_the_candidate(qtbot, window: MainWindow) -> None:
    open_and_wait(qtbot, window, LEDGER, FEATURE, TASK)
    window.baseline.pin()
    with qtbot.waitSignal(window.traceShown, timeout=20_000):
        window.docks.budget.set_values({"spec_share": 0.2})
    assert window.baseline.diff is not None
    change = next(c for c in window.baseline.diff.items if c.kind == "spec_paragraph")
    window.tabs.whatif.itemActivated.emit(change.item_id)
    assert window.tabs.current_tab() == "paragraphs"
    selected = window.tabs.paragraphs.current_row()
    assert selected is not None and selected.id == change.item_id


def test_exports_carry_the_diff(qtbot, window: MainWindow, tmp_path: Path) -> None:
    open_and_wait(qtbot, window, LEDGER, FEATURE, TASK)
    # Nothing to compare yet: the what-if export is refused with a reason.
    with qtbot.waitSignal(window.exportFinished) as done:
        window.exporter.export_shown(str(tmp_path / "x.whatif.md"), "whatif-md")
    assert "no baseline is pinned" in done.args[1] and not (tmp_path / "x.whatif.md").exists()

    window.baseline.pin()
    with qtbot.waitSignal(window.traceShown, timeout=20_000):
        window.docks.budget.set_values({"budget": 1500})
    for name, fmt in (("r.json", "json"), ("r.html", "html"), ("r.whatif.md", "whatif-md")):
        with qtbot.waitSignal(window.exportFinished, timeout=10_000) as done:
            window.exporter.export_shown(str(tmp_path / name), fmt)
        assert done.args[1] == ""
    data = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert data["whatif"]["settings"][0]["key"] == "budget"
    assert "What-if against the pinned baseline" in (tmp_path / "r.html").read_text(encoding="utf-8")
    assert (tmp_path / "r.whatif.md").read_text(encoding="utf-8").startswith("#")
    assert window.baseline.diff is not None
    assert diff_traces(window.baseline.diff.baseline, window.baseline.diff.current).items == window.baseline.diff.items


def test_clear_baseline(qtbot, window: MainWindow) -> None:
    open_and_wait(qtbot, window, LEDGER, FEATURE, TASK)
    window.baseline.pin()
    window.baseline.clear()
    with qtbot.waitSignal(window.traceShown, timeout=20_000):
        window.docks.budget.set_values({"budget": 1500})
    # Nothing pinned: the run is compared with the project's own settings again.
    own = window.tabs.whatif.diff()
    assert window.baseline.diff is None and own is not None
    assert (own.baseline.budget, own.current.budget) == (4000, 1500)
    assert window.tabs.tabText(window.tabs.indexOf(window.tabs.whatif)) == "What-if"


def test_opening_another_project_clears_the_baseline(qtbot, window: MainWindow) -> None:
    from tests.gui.conftest import EDGE

    open_and_wait(qtbot, window, LEDGER, FEATURE, TASK)
    window.baseline.pin()
    open_and_wait(qtbot, window, EDGE)
    assert window.baseline.trace is None and window.baseline.diff is None
    own = window.tabs.whatif.diff()  # the new project's task at its own settings
    assert own is not None and own.unchanged and own.current.project == str(EDGE.resolve())


def test_a_candidate_only_in_the_baseline_is_named_in_words(qtbot, window: MainWindow) -> None:
    # The baseline is a task of another feature, so its spec paragraphs are not candidates
    # of the task on screen: going to one says where it is, in words, not by its id.
    open_and_wait(qtbot, window, LEDGER, FEATURE, TASK)
    window.baseline.pin()
    other = next(f for f in load_project(LEDGER).features if f.name != FEATURE and f.tasks)
    with qtbot.waitSignal(window.traceShown, timeout=20_000):
        window.select_task(other.name, other.tasks[0].id)
    assert window.baseline.trace is not None and window.trace is not None
    gone = next(
        i for i in window.baseline.trace.items if i.kind == "spec_paragraph" and window.trace.item(i.id) is None
    )
    window.baseline.go_to_item(gone.id)
    assert gone.source.endswith(".md") and gone.line_start is not None
    message = window.statusBar().currentMessage()
    assert message.endswith(" is only in the baseline")
    assert gone.id not in message
    assert Path(gone.source).name in message and f"{gone.line_start}" in message


def test_the_what_if_and_findings_tabs_out_of_sight_are_filled_when_shown(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    open_and_wait(qtbot, window, LEDGER, FEATURE, TASK)
    tabs = window.tabs
    tabs.show_tab("sections")
    with qtbot.waitSignal(window.traceShown, timeout=20_000) as shown:
        window.select_task(FEATURE, "AUTH-L1-002")
    trace = shown.args[0]
    assert tabs.is_pending("whatif") and tabs.is_pending("findings")
    assert tabs._whatif.diff() is None or tabs._whatif.diff().current is not trace  # not filled out of sight
    tabs.show_tab("whatif")
    assert not tabs.is_pending("whatif") and tabs._whatif.diff().current is trace
    before = tabs._findings.rows()
    tabs.show_tab("findings")
    assert not tabs.is_pending("findings")
    assert tabs._findings.rows() == finding_rows(trace) != before
