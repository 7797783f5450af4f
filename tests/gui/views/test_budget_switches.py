"""The Budget panel's upstream switches: one control per environment variable, the presets, undo.

Expected values come from ``docs/profiles.md`` (the variables each version reads) and
from zerg-ai 0.3.2's worker launcher (``ResolvedCapabilities.to_env_vars`` with its
defaults: depth standard, mode precision, TDD 0, compact 1, worker 0).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from ctxviewer.engine.project.loading import Project, load_project
from ctxviewer.engine.project.settings import SWITCH_KEYS, Settings
from ctxviewer.engine.runs.pipeline import assemble
from ctxviewer.gui.views.budget import BudgetPanel
from ctxviewer.gui.views.switches import LAUNCHER_PRESET, parse_switch, variable_name
from tests.factories import make_project, write

TASKS = [{"id": "T1", "title": "Login session", "files": {"create": ["src/app.py"]}}]


def zerg_project(root: Path, folder: str = ".zerg") -> Project:
    make_project(root, TASKS, requirements="Login session.\n\nMore.")
    write(root, f"{folder}/rules/quality.yaml", "rules: []\n")
    return load_project(root)


@pytest.fixture
def panel(qtbot) -> BudgetPanel:  # type: ignore[no-untyped-def]
    widget = BudgetPanel()
    qtbot.addWidget(widget)
    widget.resize(360, 760)
    widget.show()
    return widget


def test_parse_switch_reads_unset_and_empty_as_unset() -> None:
    assert parse_switch("unset") is None
    assert parse_switch("  ") is None
    assert parse_switch(" think ") == "think"
    assert parse_switch("0") == "0"


def test_variable_names_follow_the_running_version() -> None:
    assert variable_name("compact_mode", "zerg-0.3.2") == "ZERG_COMPACT_MODE"
    assert variable_name("worker_id", "mahabharatha-latest") == "MAHABHARATHA_WORKER_ID"


def test_defaults_are_unset_and_named_for_the_detected_version(panel: BudgetPanel, tmp_path: Path) -> None:
    project = zerg_project(tmp_path)
    panel.set_base(project.settings)
    panel.show_trace(assemble(project, "feat", "T1"))
    box = panel.switches
    assert [box.boxes[k].currentText() for k in SWITCH_KEYS] == ["unset"] * 5
    assert box.labels["analysis_depth"].text() == "ZERG_ANALYSIS_DEPTH"
    assert all(box.boxes[k].isEnabled() for k in SWITCH_KEYS)
    assert not box.reason.isVisible()


def test_latest_names_mahabharatha_variables(panel: BudgetPanel, tmp_path: Path) -> None:
    project = zerg_project(tmp_path, ".mahabharatha")
    panel.set_base(project.settings)
    panel.show_trace(assemble(project, "feat", "T1"))
    assert panel.running_profile() == "mahabharatha-latest"
    assert panel.switches.labels["tdd_mode"].text() == "MAHABHARATHA_TDD_MODE"


def test_greyed_out_with_the_reason_for_a_profile_that_ignores_them(panel: BudgetPanel) -> None:
    panel.set_base(Settings(profile="drift"))
    box = panel.switches
    assert not any(box.boxes[k].isEnabled() for k in SWITCH_KEYS)
    assert not box.launcher.isEnabled() and not box.unset_all.isEnabled()
    assert box.reason.isVisible()
    assert box.reason.text().startswith("Not used by drift: only zerg-ai 0.3.2 and today's nine-section pipeline")
    assert box.boxes["compact_mode"].toolTip() == box.reason.text()[:1].lower() + box.reason.text()[1:]
    # the seed's version does not read them either
    panel.set_base(Settings())
    assert not box.boxes["tdd_mode"].isEnabled()
    assert "not used by mahabharatha" in box.boxes["tdd_mode"].toolTip()


def test_a_pick_is_a_setting_and_an_undo_step(qtbot, panel: BudgetPanel, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    project = zerg_project(tmp_path)
    panel.set_base(project.settings)
    panel.show_trace(assemble(project, "feat", "T1"))
    box = panel.switches.boxes["tdd_mode"]
    with qtbot.waitSignal(panel.settingsChanged, timeout=2000) as blocker:
        box.setCurrentIndex(box.findText("1"))
        box.activated.emit(box.currentIndex())
    settings = blocker.args[0]
    assert (settings.tdd_mode, settings.origin("tdd_mode")) == ("1", "gui")
    assert panel.undo_stack.undoText() == "ZERG_TDD_MODE '1'"
    # the window re-assembles with it: the TDD section is built
    trace = assemble(project, "feat", "T1", {"tdd_mode": settings.tdd_mode})
    assert trace.section("tdd_enforcement").text.startswith("## TDD Enforcement")
    # a typed value, then undo back to the pick, then to unset
    line = panel.switches.boxes["analysis_depth"].lineEdit()
    line.selectAll()
    qtbot.keyClicks(line, "deep")
    with qtbot.waitSignal(panel.settingsChanged, timeout=2000) as blocker:
        qtbot.keyClick(line, Qt.Key.Key_Return)
    assert blocker.args[0].analysis_depth == "deep"
    assert panel.undo_stack.count() == 2
    with qtbot.waitSignal(panel.settingsChanged, timeout=2000) as blocker:
        panel.undo_stack.undo()
    assert blocker.args[0].analysis_depth is None
    assert panel.switches.boxes["analysis_depth"].currentText() == "unset"
    panel.undo_stack.undo()
    assert box.currentText() == "unset"
    assert panel.values["tdd_mode"] is None


def test_presets_set_the_launchers_values_and_unset_them_in_one_step(
    qtbot,
    panel: BudgetPanel,
    tmp_path: Path,  # type: ignore[no-untyped-def]
) -> None:
    project = zerg_project(tmp_path)
    panel.set_base(project.settings)
    panel.show_trace(assemble(project, "feat", "T1"))
    with qtbot.waitSignal(panel.settingsChanged, timeout=2000) as blocker:
        panel.switches.launcher.click()
    settings = blocker.args[0]
    assert {k: getattr(settings, k) for k in SWITCH_KEYS} == {
        "analysis_depth": "standard",
        "behavioral_mode": "precision",
        "tdd_mode": "0",
        "compact_mode": "1",
        "worker_id": "0",
    }
    assert dict(LAUNCHER_PRESET) == {k: getattr(settings, k) for k in SWITCH_KEYS}
    assert panel.switches.boxes["compact_mode"].currentText() == "1"
    assert panel.undo_stack.count() == 1
    # of the launcher's values only compact mode changes the text: hints and abbreviations
    trace = assemble(project, "feat", "T1", {k: getattr(settings, k) for k in SWITCH_KEYS})
    built = [s.name for s in trace.sections if s.text]
    assert "efficiency_hints" in built
    assert not {"depth_guidance", "behavioral_mode", "tdd_enforcement"} & set(built)
    with qtbot.waitSignal(panel.settingsChanged, timeout=2000) as blocker:
        panel.switches.unset_all.click()
    assert all(getattr(blocker.args[0], k) is None for k in SWITCH_KEYS)
    assert panel.undo_stack.count() == 2
    panel.undo_stack.undo()
    assert panel.switches.boxes["behavioral_mode"].currentText() == "precision"
