"""The Budget panel's upstream version control, alone, and its figures for the version that runs.

The panel learns from each shown trace what ``upstream: auto`` detected; its figures
follow the profile that really runs (``mahabharatha`` on a project of zerg-ai 0.3.2 runs
the nine sections, in characters), not the profile's name.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxviewer.engine.project.loading import Project, load_project
from ctxviewer.engine.project.settings import UPSTREAM_VERSIONS, Settings
from ctxviewer.engine.project.upstream import detect
from ctxviewer.engine.runs.pipeline import assemble, run_profile
from ctxviewer.gui.views.budget import BudgetPanel, budget_line, nine_section_line
from ctxviewer.gui.widgets.versions import running_profile
from tests.factories import make_project, write

TASKS = [{"id": "T1", "title": "Login session", "files": {"create": ["src/app.py"]}}]


def zerg_project(root: Path, ctxviewer_yaml: str | None = None) -> Project:
    """A project of zerg-ai 0.3.2: an engineering rule file under .zerg/rules is what gives it away."""
    make_project(root, TASKS, requirements="Login session.\n\nMore.")
    write(root, ".zerg/rules/quality.yaml", "rules: []\n")
    if ctxviewer_yaml is not None:
        write(root, "ctxviewer.yaml", ctxviewer_yaml)
    return load_project(root)


@pytest.fixture
def panel(qtbot) -> BudgetPanel:  # type: ignore[no-untyped-def]
    widget = BudgetPanel()
    qtbot.addWidget(widget)
    widget.resize(420, 760)
    widget.show()
    return widget


def test_auto_shows_what_the_trace_detected_and_why(panel: BudgetPanel, tmp_path: Path) -> None:
    project = zerg_project(tmp_path)
    panel.set_base(project.settings)
    assert panel.upstream.currentData() == "auto"
    assert panel.upstream_note.text() == "Detected from the project when the task runs."
    panel.show_trace(assemble(project, "feat", "T1"))
    assert panel.upstream.itemText(0) == "auto: detected zerg-ai-0.3.2"
    assert panel.upstream_note.text() == "Detected zerg-ai-0.3.2: engineering rule files in .zerg/rules."
    # the engine's whole reason, with the files found, in the tooltip
    assert (
        panel.upstream_note.toolTip() == "Detected zerg-ai-0.3.2: engineering rule files in .zerg/rules (quality.yaml)"
    )
    assert panel.running_profile() == "zerg-0.3.2"


def test_choosing_a_version_sets_upstream_and_asks_for_a_new_assembly(
    qtbot,
    panel: BudgetPanel,
    tmp_path: Path,  # type: ignore[no-untyped-def]
) -> None:
    project = zerg_project(tmp_path)
    panel.set_base(project.settings)
    panel.show_trace(assemble(project, "feat", "T1"))
    with qtbot.waitSignal(panel.settingsChanged, timeout=2000) as blocker:
        panel.upstream.setCurrentIndex(panel.upstream.findData("latest"))
    settings = blocker.args[0]
    assert isinstance(settings, Settings)
    assert (settings.upstream, settings.origin("upstream")) == ("latest", "gui")
    # what the window then runs: the repository's main, chosen here
    trace = assemble(project, "feat", "T1", {"upstream": settings.upstream})
    assert (trace.profile, trace.upstream) == ("mahabharatha-latest", "latest")
    assert panel.upstream_note.text() == (
        "Chosen: today's nine-section pipeline (mahabharatha main), run as profile mahabharatha-latest. "
        "Auto would detect zerg-ai 0.3.2."
    )
    assert panel.state.text().split("<br>")[1] == "Tuned, not saved: upstream"
    # a second pick is its own undo step; undo goes back one pick and asks again
    with qtbot.waitSignal(panel.settingsChanged, timeout=2000):
        panel.upstream.setCurrentIndex(panel.upstream.findData("2026-01-30"))
    assert panel.running_profile() == "mahabharatha"
    with qtbot.waitSignal(panel.settingsChanged, timeout=2000) as blocker:
        panel.undo_stack.undo()
    assert blocker.args[0].upstream == "latest"
    assert panel.upstream.currentData() == "latest"


def test_a_profile_that_pins_a_version_or_is_not_upstreams_dims_the_control(panel: BudgetPanel) -> None:
    assert panel.set_values({"profile": "zerg-0.3.2"}) == ""
    assert not panel.upstream.isEnabled()
    assert panel.upstream_note.text() == "Profile zerg-0.3.2 runs zerg-ai-0.3.2 whatever upstream says"
    assert panel.set_values({"profile": "drift"}) == ""
    assert not panel.upstream.isEnabled()
    assert panel.upstream_note.text() == "Not used by drift: it is not upstream's pipeline"
    assert panel.set_values({"profile": "mahabharatha"}) == ""
    assert panel.upstream.isEnabled()


def test_figures_follow_the_version_that_runs_not_the_tokenizer_the_config_names(
    panel: BudgetPanel, tmp_path: Path
) -> None:
    # The project's ctxviewer.yaml sets cl100k_base; upstream 0.3.2 cuts in characters whatever it says.
    project = zerg_project(tmp_path, "tokenizer: cl100k_base\n")
    trace = assemble(project, "feat", "T1")
    assert (trace.profile, trace.tokenizer) == ("zerg-0.3.2", "heuristic")
    # Without the profile that runs, the line names the seed's figures in cl100k_base: wrong here.
    assert budget_line(project.settings).endswith("cl100k_base tokens")
    panel.set_base(project.settings)
    panel.show_trace(trace)
    # 4,000 x 10 % = 400 for each of seven sections, x 20 % = 800 for the spec; 4,000 - 3,600 = 400 left
    expected = (
        "engineering <b>400</b> \u00b7 security <b>400</b> \u00b7 spec <b>800</b> \u00b7 repo map <b>400</b> "
        "\u00b7 buffer <b>400</b> heuristic tokens; MCP, depth, mode, TDD 400 each passed and ignored"
    )
    assert panel.state.text().split("<br>")[0] == expected
    assert [s.budget for s in trace.sections if s.name in ("engineering_rules", "spec_excerpts")] == [400, 800]
    assert not panel.tokenizer.isEnabled()  # the tokenizer does not decide here
    assert not panel.rows["security_share"].field.isEnabled()
    assert panel.buffer_label.text() == "10% \u00b7 400"


def test_the_nine_section_line_takes_each_share_with_int() -> None:
    # 4,321 x 10 % = 432.1 -> 432 (seven sections), x 20 % = 864.2 -> 864; 4,321 - 7 x 432 - 864 = 433
    assert nine_section_line(4321) == (
        "engineering <b>432</b> \u00b7 security <b>432</b> \u00b7 spec <b>864</b> \u00b7 repo map <b>432</b> "
        "\u00b7 buffer <b>433</b> heuristic tokens; MCP, depth, mode, TDD 432 each passed and ignored"
    )


def test_the_seed_line_is_unchanged() -> None:
    # 4,000 x 30 % = 1,200 and x 50 % = 2,000, 800 left
    assert budget_line(Settings(), "mahabharatha") == (
        "security <b>1,200</b> \u00b7 spec <b>2,000</b> \u00b7 buffer <b>800</b> heuristic tokens"
    )
    assert budget_line(Settings(tokenizer="cl100k_base", profile="drift")) == (
        "whole context <b>4,000</b> cl100k_base tokens; no per-section budgets"
    )


@pytest.mark.parametrize("profile", ["mahabharatha", "zerg-0.3.2", "mahabharatha-latest", "drift"])
@pytest.mark.parametrize("upstream", UPSTREAM_VERSIONS)
@pytest.mark.parametrize("nine", [True, False])
def test_the_panels_running_profile_is_the_engines(tmp_path: Path, profile: str, upstream: str, nine: bool) -> None:
    project = zerg_project(tmp_path) if nine else load_project(make_project(tmp_path, TASKS, requirements="R."))
    settings = project.settings.with_overrides({"profile": profile, "upstream": upstream}, "gui")
    assert running_profile(profile, upstream, detect(project.fs).version) == run_profile(project, settings)[0]


def test_a_project_of_2026_01_30_says_nothing_later_was_found(panel: BudgetPanel, tmp_path: Path) -> None:
    project = load_project(make_project(tmp_path, TASKS, requirements="R."))
    panel.set_base(project.settings)
    panel.show_trace(assemble(project, "feat", "T1"))
    assert panel.upstream.itemText(0) == "auto: detected 2026-01-30"
    assert panel.upstream_note.text() == "Detected 2026-01-30: nothing of zerg-ai 0.3.2 or later in the project."
    assert panel.upstream_note.toolTip().startswith("Detected 2026-01-30: no engineering rule files, token records")
    assert panel.tokenizer.isEnabled() and panel.rows["security_share"].field.isEnabled()
    assert panel.state.text().split("<br>")[0].startswith("security <b>1,200</b>")


def test_the_version_control_does_not_widen_the_dock(panel: BudgetPanel) -> None:
    # Its entries are long ("latest: main, 9 sections, ..."); the box must stay as narrow as the profile's.
    assert panel.upstream.minimumSizeHint().width() <= panel.profile.minimumSizeHint().width()
    assert panel.minimumSizeHint().width() <= 360


def test_spec_from_the_task_graph_is_one_undoable_setting(qtbot, panel: BudgetPanel, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """The panel's "Spec from" box sets ``spec_feature``; a project's own value shows in it."""
    project = zerg_project(tmp_path, "spec_feature: graph\n")
    panel.set_base(project.settings)
    assert panel.spec_feature.currentData() == "graph"  # the project's value, shown
    panel.set_base(Settings())
    assert panel.spec_feature.currentData() == "folder"  # the default
    with qtbot.waitSignal(panel.settingsChanged, timeout=2000) as blocker:
        panel.spec_feature.setCurrentIndex(panel.spec_feature.findData("graph"))
    settings = blocker.args[0]
    assert (settings.spec_feature, settings.origin("spec_feature")) == ("graph", "gui")
    assert panel.undo_stack.count() == 1
    with qtbot.waitSignal(panel.settingsChanged, timeout=2000) as blocker:
        panel.undo_stack.undo()
    assert blocker.args[0].spec_feature == "folder"
    assert panel.spec_feature.currentData() == "folder"
