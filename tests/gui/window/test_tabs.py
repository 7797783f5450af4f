"""The result tabs alone: which candidate a row means, the tab titles, and moving to a candidate."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace

import pytest

from ctxviewer.engine.project.loading import load_project
from ctxviewer.engine.trace.model import Trace
from ctxviewer.engine.upstream.prompt import build_prompt
from ctxviewer.gui.widgets.highlighter import display_text
from ctxviewer.gui.window.tabs import TABS, ResultTabs, item_of
from ctxviewer.gui.worker import Lane, make_pool
from tests.factories import make_item
from tests.gui.conftest import LEDGER, engine_trace


@dataclass(frozen=True)
class Row:
    """A table row that names its candidate by id (as search matches and what-if changes do)."""

    item_id: str


@dataclass(frozen=True)
class OtherRow:
    """One that names it as ``item`` (as findings do)."""

    item: str


def small_trace() -> Trace:
    base = engine_trace(LEDGER, "auth-sessions", "AUTH-L1-001")
    items = (
        make_item(id="p1", span=(10, 20)),
        make_item(id="p2", status="outranked", reason="ranked 7th of 5 kept", span=None),
    )
    return replace(base, items=items)


def test_a_row_means_the_candidate_it_is_or_names() -> None:
    trace = small_trace()
    p1 = trace.item("p1")
    assert item_of(trace, p1) is p1
    assert item_of(trace, Row("p2")) is trace.item("p2")
    assert item_of(trace, OtherRow("p1")) is p1
    assert item_of(trace, Row("gone")) is None
    assert item_of(None, Row("p1")) is None
    assert item_of(trace, object()) is None


@pytest.fixture
def tabs(qtbot) -> Iterator[ResultTabs]:
    pool = make_pool(1)
    widget = ResultTabs(Lane(pool, "compare"))
    qtbot.addWidget(widget)
    yield widget
    pool.waitForDone(10_000)


def test_the_tabs_are_the_twelve_named_and_their_titles_follow_the_run(tabs: ResultTabs) -> None:
    assert [tabs.tabText(i) for i in range(tabs.count())] == [
        "Sections",
        "Paragraphs",
        "Rules",
        "Computed",
        "Trimming",
        "Plugin context",
        "What-if",
        "Compare",
        "Task",
        "Findings",
        "Prompt",
        "Memory",
    ]
    assert len(TABS) == tabs.count()
    tabs.set_findings_count(3)
    tabs.mark_baseline(True)
    assert tabs.tabText(9) == "Findings (3)" and tabs.tabText(6) == "What-if \u25cf"
    tabs.set_findings_count(0)
    tabs.mark_baseline(False)
    assert tabs.tabText(9) == "Findings" and tabs.tabText(6) == "What-if"
    tabs.show_tab("task")
    assert tabs.currentIndex() == 8 and tabs.current_tab() == "task"


def test_a_title_set_to_itself_is_not_set_again(tabs: ResultTabs, monkeypatch: pytest.MonkeyPatch) -> None:
    """Setting a tab's title lays the tab bar and the window out again, even when it is the same:
    the title the next task gives (its findings count, mostly the same) is set only when new."""
    set_titles: list[str] = []
    set_tab_text = ResultTabs.setTabText
    monkeypatch.setattr(ResultTabs, "setTabText", lambda self, i, t: (set_titles.append(t), set_tab_text(self, i, t)))
    for count in (2, 2, 3, 3):
        tabs.set_findings_count(count)
    for pinned in (True, True, False):
        tabs.mark_baseline(pinned)
    assert set_titles == ["Findings (2)", "Findings (3)", "What-if \u25cf", "What-if"]


def test_moving_to_a_candidate_not_in_the_context_says_why(qtbot, tabs: ResultTabs) -> None:
    trace = small_trace()
    tabs.trace = trace
    tabs.show_tab("rules")
    with qtbot.waitSignal(tabs.message) as said:
        tabs.jump_to_item(trace.item("p2"))
    assert said.args == [".gsd/specs/f/requirements.md is not in the context: ranked 7th of 5 kept", 6000]
    assert tabs.current_tab() == "rules"  # stays put
    with qtbot.waitSignal(tabs.message) as said:
        tabs.jump_to_section("no_such_section")
    assert said.args == ["no_such_section is not in the context", 4000]
    # A candidate only in the baseline is said in words (its number from its id, its file, its
    # lines); one in neither run by its id.
    baseline = replace(trace, items=(make_item(id="spec:requirements:12", line_start=40, line_end=44),))
    with qtbot.waitSignal(tabs.message) as said:
        tabs.go_to_item_id("spec:requirements:12", baseline)
    assert said.args == ["paragraph 12 of requirements.md (lines 40-44) is only in the baseline", 5000]
    with qtbot.waitSignal(tabs.message) as said:
        tabs.go_to_item_id("nowhere", baseline)
    assert said.args == ["nowhere is in neither run", 5000]


def test_a_tab_out_of_sight_shows_the_latest_trace_once_switched_to(qtbot, tabs: ResultTabs) -> None:
    tabs.show()
    first = engine_trace(LEDGER, "auth-sessions", "AUTH-L1-001")
    second = engine_trace(LEDGER, "auth-sessions", "AUTH-L1-002")
    assert first.context != second.context
    tabs.show_tab("sections")
    tabs.show_trace(first)
    tabs.show_trace(second)  # another task selected before the Context tab was ever looked at
    # Only the tab in sight was filled; the others wait, owing the second trace only.
    assert not tabs.is_pending("sections") and tabs.is_pending("context") and tabs.is_pending("paragraphs")
    assert tabs._sections.table.model.rows()[0].budget == second.sections[0].budget
    tabs.show_tab("context")  # the switch itself fills it, before it is painted
    assert not tabs.is_pending("context") and tabs.is_pending("paragraphs")
    assert tabs._context.editor.toPlainText() == second.context
    # Read without being shown, a view fills too: what it holds is never an older trace's.
    paragraphs = tabs.paragraphs.model.rows()
    assert paragraphs == second.items_of("spec_paragraph") and not tabs.is_pending("paragraphs")
    assert tabs.paragraphs.current_row() is not None  # a candidate explained, as when filled at once
    # The tab in sight when a trace arrives is filled with it at once.
    tabs.show_trace(first)
    assert not tabs.is_pending("context") and tabs._context.editor.toPlainText() == first.context
    assert tabs.is_pending("sections") and tabs.is_pending("paragraphs")


def test_the_prompt_out_of_sight_is_shown_once_its_tab_is(qtbot, tabs: ResultTabs) -> None:
    tabs.show()
    ledger = load_project(LEDGER)
    feature = ledger.feature("auth-sessions")
    prompt = build_prompt(ledger, feature, feature.task("AUTH-L1-002"), ledger.settings, exact=True)
    trace = engine_trace(LEDGER, "auth-sessions", "AUTH-L1-002")
    tabs.show_tab("sections")
    tabs.show_trace(trace)
    tabs.show_prompt(None)
    tabs.show_prompt(prompt)  # composed after its trace: the trace's fills do not drop it
    tabs.show_trace(trace)
    assert tabs.is_pending("prompt")
    tabs.show_tab("prompt")
    assert not tabs.is_pending("prompt")
    assert tabs._prompt.prompt() == prompt and tabs._prompt.editor.toPlainText() == display_text(prompt.text)
    tabs.show_prompt(None)  # in sight: at once
    assert not tabs.is_pending("prompt") and tabs._prompt.prompt() is None
