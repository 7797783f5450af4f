"""The Sweep view: a sweep run on its lane is shown as a heatmap, a click asks for the cell's
task and settings, a bad range runs nothing, Cancel stops a running sweep, exports write files."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt, QThreadPool
from PySide6.QtGui import QImage

from ctxviewer.engine.project.loading import Project, load_project
from ctxviewer.engine.runs.sweep import run_sweep
from ctxviewer.gui.views.sweep_view import ALL_FEATURES, SweepView, clean_budget, heatmap_value
from ctxviewer.gui.widgets.heatmap import OVER_COLOR
from ctxviewer.gui.worker import Lane, RunState, make_pool
from tests.factories import make_compare_project, make_project


@pytest.fixture
def pool() -> Iterator[QThreadPool]:
    pool = make_pool(2)
    yield pool
    assert pool.waitForDone(30_000), "a sweep outlived its test"


@pytest.fixture
def view(qtbot, pool: QThreadPool) -> SweepView:  # type: ignore[no-untyped-def]
    widget = SweepView(Lane(pool, "sweep"))
    qtbot.addWidget(widget)
    widget.resize(1000, 500)
    widget.show()
    return widget


@pytest.fixture
def compare(tmp_path: Path) -> Project:
    root = make_compare_project(tmp_path / "proj")
    # The core rule file loads only for paths no task has: a plugin cut of it is a rule-cut.
    core = root / ".claude/rules/security/_core/owasp-2025.md"
    core.write_text('---\npaths: ["nowhere/**"]\n---\n' + core.read_text(encoding="utf-8"), encoding="utf-8")
    return load_project(root)


def test_a_sweep_runs_on_the_lane_and_is_shown(qtbot, view: SweepView, compare: Project) -> None:  # type: ignore[no-untyped-def]
    view.set_target(compare, "feat", compare.settings)
    assert [view.feature.itemText(i) for i in range(view.feature.count())] == ["feat", ALL_FEATURES]
    view.budgets.setText("1000:4000:3000")
    with qtbot.waitSignal(view.sweepShown, timeout=20_000) as blocker:
        view.run_button.click()
    sweep = blocker.args[0]
    assert sweep.budgets == (1000, 4000) and [t.task for t in sweep.tasks] == ["T1", "T2"]
    value = view.heatmap.value()
    assert value is not None and value.rows == ("T1", "T2") and value.columns == ("1,000", "4,000")
    # T1 at 1,000: the core rule block (1,533 chars) does not fit security's 1,200 chars: a rule
    # cut (tests/engine/runs/test_sweep.py works it out); at 4,000 every task is clean.
    assert value.cell(0, 0).rule_cut and not value.cell(0, 1).rule_cut and not value.cell(1, 0).rule_cut
    assert clean_budget(sweep) == 4000
    assert "2 tasks \u00d7 2 budgets" in view.message.text() and view.message.text().endswith(": 4,000")
    assert "budget 1,000" in value.tip(0, 0) and "rule-cut 1" in value.tip(0, 0)
    assert view.lane.state is RunState.DONE and view.png_button.isEnabled()


def test_click_asks_for_the_cells_task_and_settings(qtbot, view: SweepView, compare: Project) -> None:  # type: ignore[no-untyped-def]
    view.set_target(compare, "feat", compare.settings)
    view.show_sweep(run_sweep(compare, (1000, 4000), share_key="spec_share", shares=(0.1, 0.5)))
    view.share_pick.setCurrentIndex(1)
    qtbot.waitExposed(view.heatmap)
    with qtbot.waitSignal(view.openRequested) as blocker:
        qtbot.mouseClick(view.heatmap, Qt.MouseButton.LeftButton, pos=view.heatmap.cell_center(1, 0).toPoint())
    assert blocker.args == ["feat", "T2", {"budget": 1000, "spec_share": 0.5}]


def test_a_bad_range_is_said_and_nothing_runs(qtbot, view: SweepView, compare: Project) -> None:  # type: ignore[no-untyped-def]
    view.set_target(compare, "feat", compare.settings)
    view.budgets.setText("4k:1k:250")
    with qtbot.assertNotEmitted(view.lane.stateChanged):
        view.run_button.click()
    assert view.message.text() == "budgets: the range ends (1,000) before it starts (4,000)"
    view.budgets.setText("1k:4k:1k")
    view.shares.setText("top_k=1:2:1")
    view.run_button.click()
    assert view.message.text().startswith("share: write SETTING=START:STOP:STEP") and view.lane.state is RunState.IDLE


def test_cancel_stops_a_running_sweep(qtbot, view: SweepView, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    tasks = [{"id": f"T{n:02d}", "title": f"Login session {n}", "files": {"create": ["src/app.py"]}} for n in range(60)]
    text = "\n\n".join(f"Login session paragraph {n} " + "word " * (n % 30) for n in range(200))
    project = load_project(make_project(tmp_path / "big", tasks, requirements=text, design=text))
    view.set_target(project, "feat", project.settings)
    view.budgets.setText("100:20000:100")  # 200 budgets x 60 tasks: far longer than the test waits
    with qtbot.waitSignal(view.lane.progress, timeout=20_000):
        view.run_button.click()
    assert view.cancel_button.isEnabled() and not view.run_button.isEnabled()
    with qtbot.waitSignal(view.lane.cancelled):
        view.cancel_button.click()
    qtbot.waitUntil(lambda: view.lane.running_jobs() == 0, timeout=20_000)
    assert view.sweep is None and view.heatmap.value() is None
    assert view.lane.state is RunState.CANCELLED and view.state.text() == "cancelled"
    assert view.run_button.isEnabled() and not view.cancel_button.isEnabled()


def test_a_sweep_over_the_ceiling_is_refused_and_nothing_runs(qtbot, view: SweepView, compare: Project) -> None:  # type: ignore[no-untyped-def]
    view.set_target(compare, "feat", compare.settings)
    view.budgets.setText("1:1000:1")
    view.shares.setText("spec_share=0:0.25:0.01")
    with qtbot.assertNotEmitted(view.lane.stateChanged):
        view.run_button.click()
    # 1,000 budgets x 26 spec_share values x feat's 2 tasks = 52,000 assemblies.
    assert view.message.text() == (
        "sweep of 1,000 budgets \u00d7 26 spec_share values \u00d7 2 tasks = 52,000 assemblies is over the limit "
        "of 50,000; narrow a range"
    )
    assert view.lane.state is RunState.IDLE and view.run_button.isEnabled() and view.progress.isHidden()


def test_cancel_stops_a_sweep_inside_one_long_task(qtbot, view: SweepView, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    tasks = [{"id": "T1", "title": "Login session", "files": {"create": ["src/app.py"]}}]
    text = "\n\n".join(f"Login session paragraph {n} " + "word " * (n % 30) for n in range(200))
    project = load_project(make_project(tmp_path / "one", tasks, requirements=text, design=text))
    view.set_target(project, "feat", project.settings)
    view.budgets.setText("100:100000:100")  # 1,000 budgets
    view.shares.setText("spec_share=0.1:0.5:0.02")  # x 21 values x 1 task: 21,000 assemblies of one task
    with qtbot.waitSignal(view.lane.progress, timeout=20_000) as blocker:
        view.run_button.click()
    assert blocker.args[0] == "T1" and 0 < blocker.args[1] < 1  # progress before the task is done
    with qtbot.waitSignal(view.lane.cancelled, timeout=20_000):
        view.cancel_button.click()
    qtbot.waitUntil(lambda: view.lane.running_jobs() == 0, timeout=20_000)
    assert view.sweep is None and view.lane.state is RunState.CANCELLED


def test_exports_write_png_and_svg(qtbot, view: SweepView, compare: Project, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    view.set_target(compare, "feat", compare.settings)
    assert view.export_to(str(tmp_path / "none.png"), "png") == "nothing to export: run a sweep first"
    view.show_sweep(run_sweep(compare, (10, 4000)))  # T1 and T2 at 10 tokens: over budget
    with qtbot.waitSignal(view.exported) as blocker:
        view.export_to(str(tmp_path / "sweep.png"), "png")
    assert blocker.args == [str(tmp_path / "sweep.png"), ""]
    image = QImage(str(tmp_path / "sweep.png"))
    assert image.size() == view.export_size()
    centre = view.heatmap.cell_center(0, 0)
    assert image.pixelColor(int(centre.x()), int(centre.y())) == OVER_COLOR
    assert view.export_to(str(tmp_path / "sweep.svg"), "svg") == ""
    svg = (tmp_path / "sweep.svg").read_text(encoding="utf-8")
    assert svg.lstrip().startswith("<?xml") and "<title>ctxviewer sweep: every feature</title>" in svg
    assert sorted(p.name for p in tmp_path.iterdir() if p.suffix in (".png", ".svg")) == ["sweep.png", "sweep.svg"]


def test_heatmap_value_metrics_scale_to_the_largest(compare: Project) -> None:
    sweep = run_sweep(compare, (1000, 4000))
    cut = heatmap_value(sweep, "cut")
    # Cut for budget: T1 at 1,000 loses the rule file and P2 (2, the most), at 4,000 nothing.
    assert (cut.cell(0, 0).level, cut.cell(0, 1).level) == (1.0, 0.0) and cut.legend_high == "2"
    share = heatmap_value(sweep, "share")
    assert share.cell(0, 1).level == pytest.approx(sweep.cell(0, 1).tokens / 4000)
    assert json.dumps(share.legend_high) == '"100% of budget"'
