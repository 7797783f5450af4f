"""The Compare tab: choosing sides, a hand-worked comparison, refusals, stale runs, re-runs."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget

from ctxviewer.engine.analysis.whatif import TraceDiff
from ctxviewer.engine.project.loading import Project, load_project
from ctxviewer.engine.registry import PROFILES, profile_of
from ctxviewer.engine.runs.compare import Side
from ctxviewer.engine.trace.model import Setting
from ctxviewer.gui.views.compare_view import CompareTab
from ctxviewer.gui.window import MainWindow
from ctxviewer.gui.worker import Lane, RunState, make_pool
from tests.factories import COMPARE_P1, COMPARE_P2, make_compare_project
from tests.gui.conftest import open_and_wait

SEC_HEADER = "## Security Rules (task-scoped)\n\n"
BLOCK = "### _core/owasp-2025.md\n## Rule: " + "x" * 1500  # 1,533 chars (tests/factories.py)
REQ_HEADER = "## Relevant Requirements\n\n"
MARKER = "\n\n[... truncated for context limits ...]"


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return load_project(make_compare_project(tmp_path / "proj"))


@pytest.fixture
def tab(qtbot) -> Iterator[CompareTab]:
    """The tab on its own lane and pool, shown at the size it gets in the window."""
    pool = make_pool(2)
    holder = QWidget()
    lane = Lane(pool, "compare", holder)
    widget = CompareTab(lane)
    qtbot.addWidget(widget)
    qtbot.addWidget(holder)
    widget.resize(640, 620)
    widget.show()
    qtbot.waitExposed(widget)
    yield widget
    lane.cancel()
    pool.waitForDone(10_000)
    assert pool.activeThreadCount() == 0, "a comparison outlived the test"


def _target(tab: CompareTab, project: Project, task: str = "T1") -> None:
    """Compare *task* of the project; the tab is shown, so this starts a comparison."""
    feature = project.feature("feat")
    tab.set_target(project, feature, feature.task(task), project.settings)


def _compare(qtbot, tab: CompareTab) -> TraceDiff:  # type: ignore[no-untyped-def]
    with qtbot.waitSignal(tab.compared, timeout=20_000) as blocker:
        tab.compare()
    diff = blocker.args[0]
    assert isinstance(diff, TraceDiff) and tab.diff() is diff
    return diff


def test_choosing_sides(tab: CompareTab) -> None:
    combo = tab.a.editor.profile
    assert [combo.itemText(i) for i in range(combo.count())] == list(PROFILES)
    for i, name in enumerate(PROFILES):
        assert combo.itemData(i, Qt.ItemDataRole.ToolTipRole) == f"{name}: {profile_of(name).summary}"
    assert tab.set_spec("mahabharatha,drift:budget=6000,top_k=8")
    assert (tab.a.editor.profile.currentText(), tab.a.editor.settings.text()) == ("mahabharatha", "")
    assert (tab.b.editor.profile.currentText(), tab.b.editor.settings.text()) == ("drift", "budget=6000, top_k=8")
    assert profile_of("drift").summary in tab.b.editor.profile.toolTip()
    # Chosen by hand: a profile and settings typed with semicolons.
    tab.a.editor.profile.setCurrentText("shaktiman")
    tab.a.editor.settings.setText("budget=2000; top_k=3")
    assert tab.sides() == (
        Side("shaktiman", (("budget", 2000), ("top_k", 3)), "budget=2000, top_k=3"),
        Side("drift", (("budget", 6000), ("top_k", 8)), "budget=6000, top_k=8"),
    )


def test_a_known_task_compared_at_4000_and_1000(qtbot, tab: CompareTab, project: Project) -> None:
    tab.set_spec("mahabharatha,mahabharatha:budget=1000")
    with qtbot.waitSignal(tab.compared, timeout=20_000) as blocker:
        _target(tab, project)
    diff = blocker.args[0]
    context_a = f"{SEC_HEADER}{BLOCK}\n\n{REQ_HEADER}{COMPARE_P1}\n\n{COMPARE_P2}"
    context_b = f"{REQ_HEADER}{COMPARE_P1}{MARKER}"
    assert (diff.baseline.context, diff.current.context) == (context_a, context_b)

    # Each side's shares against its own budgets: security 1,200 (4,000 * 0.3) and 300.
    a, b = tab.a.chart.value(), tab.b.chart.value()
    assert a is not None and b is not None
    assert (a.total_budget, a.used, b.total_budget, b.used) == (4000, len(context_a) // 4, 1000, len(context_b) // 4)
    assert [(s.name, s.tokens, s.budget) for s in a.segments] == [
        ("security_rules", len(SEC_HEADER + BLOCK) // 4, 1200),
        ("spec_excerpts", len(f"{REQ_HEADER}{COMPARE_P1}\n\n{COMPARE_P2}") // 4, 2000),
    ]
    assert [(s.name, s.tokens, s.budget) for s in b.segments] == [
        ("security_rules", 0, 300),
        ("spec_excerpts", len(context_b) // 4, 500),
    ]

    # What left B's context, and why: the rule block (1,533 chars > 1,200) and P2 (cut by truncation).
    model = tab.changes.model
    assert {model.index(r, 0).data(Qt.ItemDataRole.UserRole + 1).item_id for r in range(model.rowCount())} == {
        "rule:_core/owasp-2025.md",
        "requirements:2",
    }
    detail = tab.changes.detail.toPlainText()
    assert "A: core rules, always considered; block of 1,533 characters fit the 4,800 left of 4,800" in detail
    assert "B: core rules, always considered; block of 1,533 characters did not fit the 1,200 left of 1,200" in detail
    headers = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())]
    assert headers[-1] == "Reason in B"

    # The diff keeps "## Relevant Requirements", "", P1, "" and removes the five security
    # lines before them; P2 becomes the truncation marker: 1 line added, 6 removed.
    lines = tab.diff_pane.view.toPlainText().splitlines()
    assert lines[:2] == ["--- A", "+++ B"] and f"-{COMPARE_P2}" in lines
    assert tab.diff_pane.caption.text() == "Context diff, A \u2192 B: 1 line added, 6 lines removed"
    header = tab.header.text()
    assert "A <b>mahabharatha</b> vs B <b>mahabharatha: budget=1000</b>" in header
    assert "budget 4,000 \u2192 1,000" in header
    assert f"context {len(context_a) // 4:,} \u2192 {len(context_b) // 4:,} heuristic tokens" in header
    assert tab.message.isHidden()


@pytest.mark.parametrize(
    ("side", "text", "message"),
    [
        ("b", "budgett=1", "side B: budgett: unknown setting; did you mean budget?"),
        ("b", "budget", "side B: 'budget': write KEY=VALUE, e.g. budget=1500 or spec_share=0.4"),
        ("a", "budget=-5", "side A: budget: must be between 1 and 10,000,000, not -5"),
        ("a", "profile=drift", "side A: profile: the side's profile is chosen by its name, not as a setting"),
    ],
)
def test_a_bad_side_is_explained_in_the_tab(
    qtbot, tab: CompareTab, project: Project, side: str, text: str, message: str
) -> None:
    editor = getattr(tab, side).editor
    editor.settings.setText(text)
    with qtbot.assertNotEmitted(tab.lane.stateChanged):
        _target(tab, project)
        tab.compare()
    assert tab.message.isVisible() and tab.message.text() == message
    assert editor.settings.property("invalid") is True
    assert tab.diff() is None and tab.lane.state is RunState.IDLE
    # Fixed, it compares and the message goes.
    editor.settings.setText("")
    _compare(qtbot, tab)
    assert tab.message.isHidden() and editor.settings.property("invalid") is False


def test_a_profile_refusing_its_budget_and_a_malformed_spec(qtbot, tab: CompareTab, project: Project) -> None:
    tab.set_spec("mahabharatha,shaktiman:budget=100")
    _target(tab, project)
    assert tab.message.text().startswith("side B: budget: the shaktiman profile takes a budget of 256-32,768 tokens")
    assert not tab.set_spec("drfit,drift")
    assert tab.message.text() == "--profiles A: 'drfit' is not a profile; did you mean drift?"
    assert tab.b.editor.profile.currentText() == "shaktiman"  # a malformed spec changes nothing


def test_a_newer_comparison_cancels_the_one_in_flight(qtbot, tab: CompareTab, project: Project) -> None:
    shown: list[TraceDiff] = []
    tab.compared.connect(shown.append)
    tab.set_spec("mahabharatha,mahabharatha:budget=1000")
    _target(tab, project)
    assert tab.lane.is_busy()
    tab.set_spec("mahabharatha,mahabharatha:top_k=1")
    with qtbot.waitSignal(tab.lane.cancelled, timeout=5000), qtbot.waitSignal(tab.compared, timeout=20_000):
        tab.compare()
    qtbot.waitUntil(lambda: tab.lane.running_jobs() == 0, timeout=20_000)
    # Only the newer comparison is shown: top_k 1 drops P2 with the top-k reason.
    assert len(shown) == 1 and shown[0] is tab.diff()
    assert [(s.key, s.after) for s in shown[0].settings] == [("top_k", 1)]
    assert [c.item_id for c in shown[0].items] == ["requirements:2"]


def test_a_bad_side_cancels_the_comparison_in_flight(qtbot, tab: CompareTab, project: Project) -> None:
    _target(tab, project)
    assert tab.lane.is_busy()
    tab.b.editor.settings.setText("top_k=0")
    with qtbot.waitSignal(tab.lane.cancelled, timeout=5000):
        tab.compare()
    qtbot.waitUntil(lambda: tab.lane.running_jobs() == 0, timeout=20_000)
    assert tab.diff() is None and tab.message.text() == "side B: top_k: must be between 1 and 10,000, not 0"


# -- in the window -------------------------------------------------------------------------------


def test_reruns_when_the_task_changes_while_shown_and_when_shown(qtbot, window: MainWindow, tmp_path: Path) -> None:
    root = make_compare_project(tmp_path / "proj")
    window.tabs.show_tab("compare")
    window.tabs.compare.set_spec("mahabharatha,mahabharatha:top_k=1")
    with qtbot.waitSignal(window.tabs.compare.compared, timeout=20_000) as first:
        open_and_wait(qtbot, window, root, "feat", "T1")
    assert first.args[0].current.task_id == "T1"

    with qtbot.waitSignal(window.tabs.compare.compared, timeout=20_000) as second:
        window.select_task("feat", "T2")
    diff = second.args[0]
    # T2 "Session" scores only P1 (P2 has no 'session'): top_k 1 changes nothing.
    assert (diff.current.task_id, diff.items) == ("T2", ())

    # Hidden, the tab waits; shown again, it compares the task now selected.
    window.tabs.show_tab("sections")
    submitted = window.lanes.compare.generation
    with qtbot.waitSignal(window.traceShown, timeout=20_000):
        window.select_task("feat", "T1")
    assert window.lanes.compare.generation == submitted and not window.lanes.compare.is_busy()
    with qtbot.waitSignal(window.tabs.compare.compared, timeout=20_000) as third:
        window.tabs.show_tab("compare")
    assert third.args[0].current.task_id == "T1"


def test_the_window_waits_for_the_comparison_before_it_is_settled(qtbot, window: MainWindow, tmp_path: Path) -> None:
    root = make_compare_project(tmp_path / "proj")
    window.tabs.compare.set_spec("mahabharatha,mahabharatha:budget=1000")
    window.tabs.show_tab("compare")
    window.open_project(root, "feat", "T1")
    qtbot.waitUntil(window.is_settled, timeout=30_000)
    diff = window.tabs.compare.diff()
    assert diff is not None and diff.current.budget == 1000


def test_the_budget_dock_chooses_the_profile_of_the_main_run(qtbot, window: MainWindow, tmp_path: Path) -> None:
    root = make_compare_project(tmp_path / "proj")
    open_and_wait(qtbot, window, root, "feat", "T1")
    combo = window.docks.budget.profile
    assert combo.currentText() == "mahabharatha"
    assert combo.itemData(PROFILES.index("drift"), Qt.ItemDataRole.ToolTipRole) == (
        f"drift: {profile_of('drift').summary}"
    )
    with qtbot.waitSignal(window.traceShown, timeout=20_000) as shown:
        combo.setCurrentText("drift")
    trace = shown.args[0]
    assert trace.profile == "drift" and trace.settings["profile"] == Setting("drift", "gui")
    assert "profile drift" in window.header.text()

    # shaktiman refuses a budget above 32,768: the choice is refused where it was made.
    with qtbot.waitSignal(window.traceShown, timeout=20_000):
        window.docks.budget.set_values({"budget": 40_000})
    combo.setCurrentText("shaktiman")
    assert window.docks.budget.profile_message.isVisible()
    assert "the shaktiman profile takes a budget of 256-32,768 tokens" in window.docks.budget.profile_message.text()
    assert combo.currentText() == "drift" and window.docks.budget.settings().profile == "drift"


def test_opening_another_project_clears_the_comparison(qtbot, window: MainWindow, tmp_path: Path) -> None:
    from tests.gui.conftest import EDGE

    window.tabs.show_tab("sections")
    open_and_wait(qtbot, window, make_compare_project(tmp_path / "proj"), "feat", "T1")
    with qtbot.waitSignal(window.tabs.compare.compared, timeout=20_000):
        window.tabs.show_tab("compare")
    window.tabs.show_tab("sections")  # hidden: the new project's task waits to be compared
    open_and_wait(qtbot, window, EDGE)
    assert (
        window.tabs.compare.diff() is None
        and window.tabs.compare.header.text() == "Choose a profile (and settings) for each side, then Compare."
    )
    with qtbot.waitSignal(window.tabs.compare.compared, timeout=20_000) as shown:
        window.tabs.show_tab("compare")
    assert shown.args[0].current.project == str(EDGE)


def test_a_dark_palette_switches_the_diff_colours(qtbot, tab: CompareTab, project: Project) -> None:
    from PySide6.QtGui import QColor, QPalette, QTextCharFormat

    from ctxviewer.gui.views.whatif_view import _DIFF_COLOURS

    tab.set_spec("mahabharatha,mahabharatha:budget=1000")
    with qtbot.waitSignal(tab.compared, timeout=20_000) as blocker:
        _target(tab, project)
    lines = blocker.args[0].context_diff
    dark = QPalette(tab.palette())
    dark.setColor(QPalette.ColorRole.Window, QColor("#202124"))
    dark.setColor(QPalette.ColorRole.WindowText, QColor("#e8eaed"))
    tab.setPalette(dark)
    number = lines.index(f"-{COMPARE_P2}")
    layout = tab.diff_pane.view.document().findBlockByNumber(number).layout()
    assert QTextCharFormat(layout.formats()[0].format).background().color() == QColor(_DIFF_COLOURS["del"][1])


def test_until_sides_are_chosen_a_is_the_profile_in_force(qtbot, tab: CompareTab, project: Project) -> None:
    feature = project.feature("feat")
    drift = project.settings.with_overrides({"profile": "drift"}, "test")
    with qtbot.waitSignal(tab.compared, timeout=20_000) as blocker:
        tab.set_target(project, feature, feature.task("T1"), drift)
    assert (tab.a.editor.profile.currentText(), tab.b.editor.profile.currentText()) == ("drift", "ctxviewer")
    assert (blocker.args[0].baseline.profile, blocker.args[0].current.profile) == ("drift", "ctxviewer")
    ctxviewer = project.settings.with_overrides({"profile": "ctxviewer"}, "test")
    with qtbot.waitSignal(tab.compared, timeout=20_000):
        tab.set_target(project, feature, feature.task("T1"), ctxviewer)
    assert (tab.a.editor.profile.currentText(), tab.b.editor.profile.currentText()) == ("ctxviewer", "mahabharatha")
    # Once chosen, the sides stay whatever the profile in force.
    tab.b.editor.settings.setText("budget=900")
    with qtbot.waitSignal(tab.compared, timeout=20_000):
        tab.set_target(project, feature, feature.task("T1"), drift)
    assert (tab.a.editor.profile.currentText(), tab.b.editor.settings.text()) == ("ctxviewer", "budget=900")
