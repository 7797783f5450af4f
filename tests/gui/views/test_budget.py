"""The budget controls: every control re-assembles the task with the engine's result,
bad values are refused where typed, undo/redo/reset, and saving to ctxviewer.yaml."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from PySide6.QtCore import Qt

from ctxviewer.engine.project.loading import load_project
from ctxviewer.engine.runs.pipeline import assemble
from ctxviewer.engine.trace.model import Trace
from ctxviewer.gui.views.budget import BudgetPanel, parse_number, parse_zones
from ctxviewer.gui.window import MainWindow
from tests.gui.conftest import LEDGER, open_and_wait

FEATURE, TASK = "auth-sessions", "AUTH-L1-001"


def _type(qtbot, panel: BudgetPanel, key: str, text: str) -> None:
    field = panel.rows[key].field
    field.selectAll()
    qtbot.keyClicks(field, text)


def _tuned_trace(qtbot, window: MainWindow, act) -> Trace:  # type: ignore[no-untyped-def]
    with qtbot.waitSignal(window.traceShown, timeout=20_000) as blocker:
        act()
    return blocker.args[0]


@pytest.mark.parametrize(
    ("key", "typed", "override"),
    [
        ("budget", "1,500", {"budget": 1500}),
        ("budget", "2.5k", {"budget": 2500}),
        ("security_share", "15", {"security_share": 0.15}),
        ("spec_share", "35%", {"spec_share": 0.35}),
        ("top_k", "2", {"top_k": 2}),
        ("threshold_percent", "55", {"threshold_percent": 55.0}),
        ("max_context_tokens", "8000", {"max_context_tokens": 8000}),
        ("zones", "compaction=75", {"zones": {"compaction": 75}}),
    ],
)
def test_each_field_reassembles_as_the_engine_does(
    qtbot, window: MainWindow, key: str, typed: str, override: dict[str, Any]
) -> None:
    open_and_wait(qtbot, window, LEDGER, FEATURE, TASK)
    trace = _tuned_trace(qtbot, window, lambda: _type(qtbot, window.docks.budget, key, typed))
    expected = assemble(load_project(LEDGER), FEATURE, TASK, override)
    assert trace.context == expected.context
    assert trace.items == expected.items
    assert trace.tracker == expected.tracker
    assert trace.settings[next(iter(override))].origin == "gui"


def test_tokenizer_choice_reassembles(qtbot, window: MainWindow) -> None:
    open_and_wait(qtbot, window, LEDGER, FEATURE, TASK)
    trace = _tuned_trace(qtbot, window, lambda: window.docks.budget.tokenizer.setCurrentText("o200k_base"))
    assert trace.tokenizer == "o200k_base"
    assert trace.context == assemble(load_project(LEDGER), FEATURE, TASK, {"tokenizer": "o200k_base"}).context


def test_dragging_the_budget_slider_reassembles_once_settled(qtbot, window: MainWindow) -> None:
    open_and_wait(qtbot, window, LEDGER, FEATURE, TASK)
    panel = window.docks.budget
    slider = panel.rows["budget"].slider
    assert slider is not None
    spec = panel.rows["budget"].spec
    assert spec.from_slider is not None

    def drag() -> None:
        for position in range(slider.value(), slider.value() - 120, -10):
            slider.setValue(position)

    trace = _tuned_trace(qtbot, window, drag)
    expected_budget = spec.from_slider(slider.value())
    assert trace.budget == expected_budget < 4000
    assert panel.rows["budget"].field.text() == f"{expected_budget:,}"
    # The whole drag is one undo step, back to the project's 4,000.
    assert panel.undo_stack.count() == 1
    trace = _tuned_trace(qtbot, window, panel.undo_stack.undo)
    assert trace.budget == 4000


@pytest.mark.parametrize(
    ("key", "typed", "message"),
    [
        ("budget", "0", "budget: must be between 1 and 10,000,000, not 0"),
        ("budget", "12.5", "budget: must be a whole number"),
        ("budget", "lots", "not a number: 'lots'"),
        ("spec_share", "75", "section shares add up to 105%, more than the whole budget"),
        ("threshold_percent", "0", "threshold_percent: must be above 0"),
        ("zones", "checkpoint=80", "'checkpoint' is threshold_percent"),
        ("zones", "compaction", "write zones as name=percent"),
    ],
)
def test_invalid_values_are_refused_where_typed(qtbot, window: MainWindow, key: str, typed: str, message: str) -> None:
    open_and_wait(qtbot, window, LEDGER, FEATURE, TASK)
    panel = window.docks.budget
    before = panel.settings()
    with qtbot.assertNotEmitted(panel.settingsChanged, wait=400):
        _type(qtbot, panel, key, typed)
    row = panel.rows[key]
    assert row.message.isVisible() and message in row.message.text()
    assert row.field.property("invalid") is True
    assert panel.settings() == before and not panel.is_tuned()
    # Typing a good value clears the message and applies.
    good = {"budget": "3000", "spec_share": "40", "threshold_percent": "60", "zones": "compaction=75"}[key]
    _tuned_trace(qtbot, window, lambda: _type(qtbot, panel, key, good))
    assert not row.message.isVisible()


def test_undo_redo_and_reset(qtbot, window: MainWindow) -> None:
    open_and_wait(qtbot, window, LEDGER, FEATURE, TASK)
    panel = window.docks.budget
    _tuned_trace(qtbot, window, lambda: _type(qtbot, panel, "budget", "1200"))
    trace = _tuned_trace(qtbot, window, lambda: _type(qtbot, panel, "top_k", "1"))
    assert (trace.budget, trace.settings["top_k"].value) == (1200, 1)

    trace = _tuned_trace(qtbot, window, window.menus["run.undo"].trigger)
    assert (trace.budget, trace.settings["top_k"].value) == (1200, 5)
    assert panel.rows["top_k"].field.text() == "5"
    trace = _tuned_trace(qtbot, window, window.menus["run.redo"].trigger)
    assert trace.settings["top_k"].value == 1

    trace = _tuned_trace(qtbot, window, panel.reset_button.click)
    assert (trace.budget, trace.settings["top_k"].value) == (4000, 5)
    assert window.tuner.tuned is None and not panel.is_tuned()
    assert trace.settings["budget"].origin != "gui"
    # Reset is itself undoable.
    trace = _tuned_trace(qtbot, window, panel.undo_stack.undo)
    assert (trace.budget, trace.settings["top_k"].value) == (1200, 1)


def test_quick_edits_are_debounced_into_one_run(qtbot, window: MainWindow) -> None:
    open_and_wait(qtbot, window, LEDGER, FEATURE, TASK)
    panel = window.docks.budget
    emitted: list[object] = []
    panel.settingsChanged.connect(emitted.append)
    trace = _tuned_trace(qtbot, window, lambda: _type(qtbot, panel, "budget", "2750"))
    # Four keystrokes, four accepted values (2, 27, 275, 2750), one settled change.
    assert len(emitted) == 1 and trace.budget == 2750
    assert panel.undo_stack.count() == 1


def test_the_buffer_is_shown_and_follows_the_shares(qtbot, window: MainWindow) -> None:
    open_and_wait(qtbot, window, LEDGER, FEATURE, TASK)
    panel = window.docks.budget
    assert panel.buffer_label.text() == "20% \u00b7 800"  # 4,000 - 1,200 - 2,000
    _tuned_trace(qtbot, window, lambda: _type(qtbot, panel, "spec_share", "60"))
    assert panel.buffer_label.text() == "10% \u00b7 400"
    assert panel.share_bar.shares == (0.3, 0.6)


def test_save_writes_ctxviewer_yaml_and_reloads(qtbot, window: MainWindow, tmp_path: Path) -> None:
    root = tmp_path / "ledger"
    shutil.copytree(LEDGER, root)
    system_config = (root / ".mahabharatha/config.yaml").read_bytes()
    open_and_wait(qtbot, window, root, FEATURE, TASK)
    _tuned_trace(qtbot, window, lambda: _type(qtbot, window.docks.budget, "budget", "2200"))
    _tuned_trace(qtbot, window, lambda: _type(qtbot, window.docks.budget, "zones", "compaction=75"))

    with qtbot.waitSignal(window.settingsSaved) as saved, qtbot.waitSignal(window.traceShown, timeout=20_000):
        window.tuner.save(confirm=False)
    result = saved.args[0]
    assert [c.key for c in result.changes] == ["budget", "zones"]
    data = yaml.safe_load((root / "ctxviewer.yaml").read_text(encoding="utf-8"))
    assert data == {"budget": {"total": 2200}, "zones": {"compaction": 75.0}}
    assert (root / ".mahabharatha/config.yaml").read_bytes() == system_config
    # Reloaded: the saved values are now the project's own, nothing is left tuned.
    assert window.project is not None and window.project.settings.budget == 2200
    assert window.project.settings.origin("budget") == "ctxviewer.yaml"
    assert not window.docks.budget.is_tuned() and window.current == (FEATURE, TASK)
    assert "budget: 4,000 \u2192 2,200" in window.docks.budget.state.text()


def test_saving_over_a_broken_ctxviewer_yaml_is_refused(qtbot, window: MainWindow, tmp_path: Path) -> None:
    root = tmp_path / "ledger"
    shutil.copytree(LEDGER, root)
    open_and_wait(qtbot, window, root, FEATURE, TASK)
    _tuned_trace(qtbot, window, lambda: _type(qtbot, window.docks.budget, "budget", "2200"))
    (root / "ctxviewer.yaml").write_text("budget: [broken\n", encoding="utf-8")
    with qtbot.assertNotEmitted(window.settingsSaved):
        window.tuner.save(confirm=False)
    assert any("settings not saved" in m for m in window.problems.messages)
    assert (root / "ctxviewer.yaml").read_text(encoding="utf-8") == "budget: [broken\n"


@pytest.mark.parametrize(
    ("text", "value"), [("4000", 4000), ("4,000", 4000), ("4_000", 4000), ("4k", 4000), ("1.5M", 1_500_000)]
)
def test_parse_number(text: str, value: float) -> None:
    assert parse_number(text) == value


@pytest.mark.parametrize("text", ["1,5k", "4,00", "40,00", "4,0000", "4_00", ",4", "4kk", ""])
def test_parse_number_refuses_what_the_engine_refuses(text: str) -> None:
    # A comma or underscore that does not split off groups of three is a slip, not a separator.
    with pytest.raises(ValueError):
        parse_number(text)


def test_parse_zones() -> None:
    assert parse_zones("compaction=75, warn: 50%") == {"compaction": 75.0, "warn": 50.0}
    assert parse_zones("  ") == {}
    with pytest.raises(ValueError, match="name=percent"):
        parse_zones("75")


def test_enter_tidies_the_typed_number(qtbot, window: MainWindow) -> None:
    open_and_wait(qtbot, window, LEDGER, FEATURE, TASK)
    panel = window.docks.budget
    _tuned_trace(qtbot, window, lambda: _type(qtbot, panel, "budget", "3500"))
    qtbot.keyClick(panel.rows["budget"].field, Qt.Key.Key_Return)
    assert panel.rows["budget"].field.text() == "3,500"


def test_the_panel_says_what_the_settings_do(qtbot, window: MainWindow) -> None:
    open_and_wait(qtbot, window, LEDGER, FEATURE, TASK)
    with qtbot.waitSignal(window.replayShown, timeout=20_000) as shown:
        window.docks.budget.set_values({"max_context_tokens": 18_000})
        window.docks.budget.flush()
    replay = shown.args[0]
    assert replay.first_checkpoint is not None
    step = replay.steps[replay.first_checkpoint]
    text = window.docks.budget.effect.text()
    assert f"checkpoint after task {step.index + 1} of {len(replay.steps)} ({step.task_id}" in text
    trace = window.trace
    assert trace is not None
    assert f"context <b>{trace.context_tokens.heuristic:,}</b> of 4,000 heuristic tokens" in text


def test_undo_while_typing_drops_the_typed_value(qtbot, window: MainWindow) -> None:
    open_and_wait(qtbot, window, LEDGER, FEATURE, TASK)
    panel = window.docks.budget
    _tuned_trace(qtbot, window, lambda: _type(qtbot, panel, "spec_share", "40"))
    panel.rows["budget"].field.setFocus()
    _type(qtbot, panel, "budget", "1500")  # still pending: typing has not paused yet
    assert panel.is_pending()
    trace = _tuned_trace(qtbot, window, window.menus["run.undo"].trigger)
    # The spec share change is undone and the typed budget never applied.
    assert (trace.budget, trace.settings["spec_share"].value) == (4000, 0.5)
    assert panel.rows["budget"].field.text() == "4,000"
    assert panel.undo_stack.count() == 1 and panel.undo_stack.index() == 0 and not panel.is_tuned()
    trace = _tuned_trace(qtbot, window, window.menus["run.redo"].trigger)
    assert (trace.budget, trace.settings["spec_share"].value) == (4000, 0.4)


def test_reset_while_typing_does_not_reapply_the_typed_value(qtbot, window: MainWindow) -> None:
    open_and_wait(qtbot, window, LEDGER, FEATURE, TASK)
    panel = window.docks.budget
    _tuned_trace(qtbot, window, lambda: _type(qtbot, panel, "top_k", "2"))
    _type(qtbot, panel, "budget", "1500")
    trace = _tuned_trace(qtbot, window, panel.reset)
    assert (trace.budget, trace.settings["top_k"].value) == (4000, 5) and not panel.is_tuned()
    with qtbot.assertNotEmitted(panel.settingsChanged, wait=600):  # the typed 1500 does not come back
        pass
    assert not panel.is_tuned()


def test_a_new_base_shows_in_a_focused_field(qtbot, window: MainWindow) -> None:
    open_and_wait(qtbot, window, LEDGER, FEATURE, TASK)
    field = window.docks.budget.rows["budget"].field
    field.setFocus()
    window.docks.budget.set_base(window.docks.budget.base.with_overrides({"budget": 3200}, "ctxviewer.yaml"))
    assert field.text() == "3,200"


def test_an_accepted_change_clears_other_fields_stale_refusals(qtbot, window: MainWindow) -> None:
    open_and_wait(qtbot, window, LEDGER, FEATURE, TASK)
    panel = window.docks.budget
    _type(qtbot, panel, "security_share", "90")  # 90 + 50 = 140%: refused
    assert panel.rows["security_share"].message.isVisible()
    _tuned_trace(qtbot, window, lambda: _type(qtbot, panel, "spec_share", "40"))
    security = panel.rows["security_share"]
    assert not security.message.isVisible() and security.field.text() == "30%"
    assert security.field.property("invalid") is False


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"enabled": False}, "enabled is not tuned here (it comes from the system's config)"),
        ({"paths.rules": "x"}, "paths.rules is not tuned here (set it in ctxviewer.yaml)"),
        ({"budgt": 1}, "budgt is not a setting; did you mean budget?"),
        ({"zones": 5}, "zones: must be a mapping of zone name to percent"),
        ({"zones": "75"}, "write zones as name=percent"),
    ],
)
def test_set_values_refuses_what_it_cannot_apply(window: MainWindow, values: dict[str, Any], message: str) -> None:
    assert message in window.docks.budget.set_values(values)
    assert not window.docks.budget.is_tuned()


def test_set_values_takes_zones_as_typed(window: MainWindow) -> None:
    assert window.docks.budget.set_values({"zones": "compaction=75"}) == ""
    assert window.docks.budget.settings().zones == (("compaction", 75.0),)


@pytest.mark.parametrize(("text", "share"), [("35", 0.35), ("35%", 0.35), ("0.35", 0.35), ("0.5%", 0.005), ("1", 0.01)])
def test_shares_take_percents_or_fractions(text: str, share: float) -> None:
    from ctxviewer.gui.views.budget import parse_share

    assert parse_share(text) == pytest.approx(share)


def test_without_a_project_the_panel_waits(window: MainWindow) -> None:
    assert not window.docks.budget.isEnabled()
    assert not window.docks.budget.undo_button.isEnabled() and not window.docks.budget.redo_button.isEnabled()
    window.docks.budget.settingsChanged.emit(window.docks.budget.settings())  # nothing to run, and no error
    assert window.run_settings() == window.docks.budget.settings()


def test_a_negative_budget_gets_the_engines_range_message(qtbot, window: MainWindow) -> None:
    open_and_wait(qtbot, window, LEDGER, FEATURE, TASK)
    _type(qtbot, window.docks.budget, "budget", "-100")
    assert "must be between 1 and 10,000,000" in window.docks.budget.rows["budget"].message.text()


def test_the_profile_dims_what_it_does_not_use_and_each_pick_is_one_undo_step(qtbot) -> None:  # type: ignore[no-untyped-def]
    panel = BudgetPanel()
    qtbot.addWidget(panel)
    panel.set_base(load_project(LEDGER).settings)
    assert all(row.field.isEnabled() for row in panel.rows.values())
    assert "heuristic tokens" in panel.state.text()
    panel.profile.setCurrentText("drift")
    unused = {key for key, row in panel.rows.items() if not row.field.isEnabled()}
    assert unused == {"security_share", "spec_share", "top_k"}
    assert panel.rows["top_k"].field.toolTip() == "not used by drift: it caps paragraphs with drift.caps.paragraphs"
    assert "whole context <b>4,000</b> heuristic tokens" in panel.state.text()
    panel.profile.setCurrentText("ctxviewer")
    assert {key for key, row in panel.rows.items() if not row.field.isEnabled()} == {"top_k"}
    # ctxviewer decides with cl100k_base although the tokenizer says heuristic.
    assert "+ what security leaves \u00b7 buffer <b>800</b> cl100k_base tokens" in panel.state.text()
    # Two picks, two undo steps.
    panel.undo_stack.undo()
    assert panel.settings().profile == "drift"
    panel.undo_stack.undo()
    assert panel.settings().profile == "mahabharatha"


def test_the_share_bar_is_muted_for_a_whole_budget_profile(qtbot: Any) -> None:
    from ctxviewer.gui.views.budget import ShareBar
    from ctxviewer.gui.widgets.charts import segment_color

    bar = ShareBar()
    qtbot.addWidget(bar)
    bar.resize(200, 16)
    bar.set_shares(0.5, 0.25)
    # x = 50 lies in the security segment (the first half of the bar)
    live = bar.grab().toImage().pixelColor(50, 8)
    bar.setEnabled(False)
    muted = bar.grab().toImage().pixelColor(50, 8)
    assert live.name() == segment_color(0).name()
    assert muted.name() != live.name()
