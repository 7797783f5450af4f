"""The window works out the shown task's sensitivity on its lane: budget first, then the rest,
merged; Apply goes through the Budget panel's undo stack (two settings together as one step); a
new run cancels the computation.

The engine's computation is replaced by a stand-in here (the real one is tested in the engine
and, on a sample, in tests/gui/views): what is tested is the window's wiring.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import pytest

from ctxviewer.engine.profiles.base import Cancelled
from ctxviewer.engine.runs.pairs import PairSuggestion
from ctxviewer.engine.runs.sensitivity import CHOICE, COUNT, TOKENS, Axis, Segment, Sensitivity, Suggestion, merged
from ctxviewer.engine.trace.model import INCLUDED, KEPT, Trace
from ctxviewer.gui.window import MainWindow
from ctxviewer.gui.window import sensitivity as feed_module
from tests.conftest import SAMPLES
from tests.factories import small_sensitivity
from tests.gui.conftest import open_and_wait

STORE = SAMPLES / "storefront-web"
JS_RULE = "rule:languages/javascript/CLAUDE.md"


def fake_result(trace: Trace, keys: Sequence[str]) -> Sensitivity:
    """The budget: the run's fates up to 3,199; from 3,200 the JavaScript rule file is in and
    the core rules are out.  The rest: the switch, whose other value changes nothing."""
    ids = tuple(i.id for i in trace.items)
    now = tuple(i.status for i in trace.items)
    if list(keys) == ["budget"]:
        other = tuple(
            "included" if i == JS_RULE else "cut_for_budget" if i == "rule:_core/owasp-2025.md" else s
            for i, s in zip(ids, now, strict=True)
        )
        axis = Axis(
            "budget",
            TOKENS,
            3_000,
            1,
            10_000_000,
            (Segment(1, 3_199, 0), Segment(3_200, 10_000_000, 1)),
            suggest_lo=500,
            suggest_hi=20_000,
            ceiling=3_200,
        )
        return Sensitivity(trace.task_id, "mahabharatha", ids, (now, other), 0, (axis,), 2, 0.0, "fast")
    axis = Axis(
        "security_rule_filtering",
        CHOICE,
        True,
        0,
        1,
        (Segment(0, 0, 0), Segment(1, 1, 0)),
        choices=(True, False),
        suggest_lo=0,
        suggest_hi=1,
    )
    return Sensitivity(trace.task_id, "mahabharatha", ids, (now,), 0, (axis,), 1, 0.0, "fast")


@pytest.fixture
def fake_engine(monkeypatch):  # type: ignore[no-untyped-def]
    calls: list[list[str]] = []

    def fake(project: Any, feat: Any, task: Any, settings: Any, trace: Trace, *, keys: Any, **_kw: Any) -> Sensitivity:
        calls.append(list(keys))
        return fake_result(trace, keys)

    monkeypatch.setattr(feed_module, "sensitivity", fake)
    return calls


def test_merging_keeps_each_axis_on_its_own_vectors() -> None:
    sens = small_sensitivity()
    first = Sensitivity(sens.task_id, sens.profile, sens.item_ids, sens.vectors, 2, sens.axes[:1], 5, 1.0, "fast")
    # The second job saw the vectors in another order: its switch cells point at its own.
    second = Sensitivity(
        sens.task_id,
        sens.profile,
        sens.item_ids,
        (sens.vectors[3], sens.vectors[2]),
        1,
        (
            Axis(
                "security_rule_filtering",
                CHOICE,
                True,
                0,
                1,
                (Segment(0, 0, 1), Segment(1, 1, 0)),
                choices=(True, False),
            ),
        ),
        3,
        0.5,
        "whole runs",
    )
    both = merged(first, second)
    assert [a.key for a in both.axes] == ["budget", "security_rule_filtering"]
    assert both.current == 2 and both.evaluations == 8 and both.method == "whole runs"
    # c is cut with the switch on and in with it off, as in the second job's own terms.
    assert [(s.lo, s.status) for s in both.strip("c", "security_rule_filtering")] == [
        (True, "cut_for_budget"),
        (False, "included"),
    ]
    assert both.strip("c", "budget") == sens.strip("c", "budget")


def test_worked_out_when_shown_and_applied_through_undo(qtbot, window: MainWindow, fake_engine) -> None:  # type: ignore[no-untyped-def]
    open_and_wait(qtbot, window, STORE, "cart-checkout", "CHK-L2-003")
    assert fake_engine == []  # nobody has looked: nothing worked out
    window.tabs.show_tab("rules")
    view = window.tabs.sensitivity_views["rules"]
    pages = window.tabs.rules.detail_pages
    assert pages is not None
    with qtbot.waitSignal(window.sensitivity.worked, timeout=20_000):
        pages.setCurrentWidget(view)
    assert fake_engine == [["budget"], list(feed_module.REST)]
    window.tabs.rules.select(lambda i: i.id == JS_RULE)
    assert view.item is not None and view.item.id == JS_RULE
    assert [row.key for row in view.strip.rows()] == ["budget", "security_rule_filtering"]
    assert view.change.text().startswith("Smallest change: budget 3,200 (+6.7\u202f%, from 3,000) \u2192 included")
    assert "pushes out: the security rule file _core/owasp-2025.md" in view.change.text()
    # Apply: one undoable change in the Budget panel, and the task runs again with it.
    with qtbot.waitSignal(window.traceShown, timeout=30_000) as shown:
        view.apply_button.click()
    assert window.docks.budget.settings().budget == 3_200 and shown.args[0].settings["budget"].value == 3_200
    assert window.docks.budget.undo_stack.undoText().startswith("what would get it in: budget 3,200")
    # The page follows the new run's selected row, not the old run's candidate.
    assert view.item is not None and view.item is window.tabs.rules.current_row()
    # The new trace is worked out again (someone has looked), and Undo takes the change back.
    qtbot.waitUntil(window.sensitivity.is_done, timeout=20_000)
    with qtbot.waitSignal(window.traceShown, timeout=30_000) as shown:
        window.docks.budget.undo_stack.undo()
        window.docks.budget.flush()
    assert window.docks.budget.settings().budget == 3_000 and shown.args[0].settings["budget"].value == 3_000
    js = shown.args[0].item(JS_RULE)
    assert js is not None and js.status not in KEPT


def test_a_new_run_cancels_the_computation(qtbot, window: MainWindow, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    started = threading.Event()
    saw_cancel = threading.Event()

    def slow(
        project: Any, feat: Any, task: Any, settings: Any, trace: Trace, *, cancel: threading.Event, **_kw: Any
    ) -> Sensitivity:
        started.set()
        if cancel.wait(20):  # a real run polls its cancel token between evaluations
            saw_cancel.set()
            raise Cancelled("sensitivity")
        raise AssertionError("never cancelled")

    monkeypatch.setattr(feed_module, "sensitivity", slow)
    open_and_wait(qtbot, window, STORE, "cart-checkout", "CHK-L2-003")
    window.tabs.show_tab("rules")
    view = window.tabs.sensitivity_views["rules"]
    pages = window.tabs.rules.detail_pages
    assert pages is not None
    pages.setCurrentWidget(view)
    qtbot.waitUntil(started.is_set, timeout=10_000)
    assert view.state == "computing" and window.sensitivity.lane.is_busy()
    with qtbot.waitSignal(window.sensitivity.lane.cancelled, timeout=5_000):
        window.select_task("cart-checkout", "CHK-L1-001")
    qtbot.waitUntil(saw_cancel.is_set, timeout=10_000)
    assert view.state != "done" and window.sensitivity.result is None


def test_a_two_setting_change_is_applied_as_one_undoable_step(qtbot, window: MainWindow, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # No value of the budget or top_k moves anything here, so the JavaScript rule file (out
    # at 3,000) has no single-setting change and the view asks for two; the stand-in search
    # answers budget 3,200 with top_k 9.
    def flat(project: Any, feat: Any, task: Any, settings: Any, trace: Trace, *, keys: Any, **_kw: Any) -> Sensitivity:
        ids = tuple(i.id for i in trace.items)
        now = tuple(i.status for i in trace.items)
        if list(keys) == ["budget"]:
            axis = Axis("budget", TOKENS, 3_000, 1, 10_000_000, (Segment(1, 10_000_000, 0),), suggest_hi=10_000_000)
            return Sensitivity(trace.task_id, "mahabharatha", ids, (now,), 0, (axis,), 1, 0.0, "fast")
        top_k = Axis("top_k", COUNT, 5, 1, 10_000, (Segment(1, 10_000, 0),), suggest_lo=1, suggest_hi=10_000)
        return Sensitivity(trace.task_id, "mahabharatha", ids, (now,), 0, (top_k,), 1, 0.0, "fast")

    asked: list[str] = []

    class Pairs:
        def __init__(self, project: Any, feat: Any, task: Any, settings: Any, trace: Trace, sens: Sensitivity) -> None:
            self.sens = sens
            self.answered: set[str] = set()

        def known(self, item_id: str) -> bool:
            return item_id in self.answered

        def suggestion(self, item_id: str, cancel: threading.Event | None = None) -> PairSuggestion | None:
            asked.append(item_id)
            self.answered.add(item_id)
            budget = Suggestion("budget", 3_200, INCLUDED, 200 / 3_000, (), ())
            top_k = Suggestion("top_k", 9, INCLUDED, 4 / 5, (), ())
            return PairSuggestion((budget, top_k), INCLUDED, 200 / 3_000 + 4 / 5, (), ())

    monkeypatch.setattr(feed_module, "sensitivity", flat)
    monkeypatch.setattr(feed_module, "PairSearch", Pairs)
    open_and_wait(qtbot, window, STORE, "cart-checkout", "CHK-L2-003")
    before = window.docks.budget.settings()
    assert (before.budget, before.top_k) == (3_000, 5)
    window.tabs.show_tab("rules")
    view = window.tabs.sensitivity_views["rules"]
    pages = window.tabs.rules.detail_pages
    assert pages is not None
    with qtbot.waitSignal(window.sensitivity.worked, timeout=20_000):
        pages.setCurrentWidget(view)
    window.tabs.rules.select(lambda i: i.id == JS_RULE)
    qtbot.waitUntil(lambda: view.pair is not None, timeout=20_000)
    assert asked == [JS_RULE]
    assert view.change.text().startswith("No single setting brings it in (")
    assert (
        "Smallest change of two settings: budget 3,200 (+6.7\u202f%, from 3,000) and top-k 9 (+80\u202f%, from 5) "
        "\u2192 included; pushes nothing out" in view.change.text()
    )
    assert view.apply_button.isEnabled() and view.values() == {"budget": 3_200, "top_k": 9}
    # The HTML export takes what was worked out: the pair, as --set takes each change.
    entries = window.sensitivity.report_entries(window.trace)
    assert entries is not None
    assert [c["set"] for c in entries[JS_RULE]["changes"]] == ["budget=3200", "top_k=9"]  # type: ignore[attr-defined]
    steps = window.docks.budget.undo_stack.count()
    with qtbot.waitSignal(window.traceShown, timeout=30_000) as shown:
        view.apply_button.click()
    after = window.docks.budget.settings()
    assert (after.budget, after.top_k) == (3_200, 9)
    assert shown.args[0].settings["budget"].value == 3_200 and shown.args[0].settings["top_k"].value == 9
    # Both values in one step: one more on the undo stack, and one Undo takes both back.
    assert window.docks.budget.undo_stack.count() == steps + 1
    assert window.docks.budget.undo_stack.undoText().startswith("what would get it in: budget 3,200")
    with qtbot.waitSignal(window.traceShown, timeout=30_000) as shown:
        window.docks.budget.undo_stack.undo()
        window.docks.budget.flush()
    undone = window.docks.budget.settings()
    assert (undone.budget, undone.top_k) == (3_000, 5)
    assert shown.args[0].settings["top_k"].value == 5
