"""A run written by the real zerg-ai 0.3.2 code in the window: the Recorded page sets each task's token
record beside its reproduction, and a recorded task, a timeline event or a fleet worker double-clicked
opens its task at the recorded settings.

The run comes from ``recorded_run_driver.py`` in the oracle virtualenv the upstream differential test
caches under ``~/.cache/ctxviewer-tests/`` (skipped when it is not there).
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from ctxviewer.engine.runs.recorded import FILES_CHANGED, SETTINGS
from ctxviewer.gui.window import MainWindow
from tests.cli.helpers import CORE, TASK
from tests.factories import make_project
from tests.gui.conftest import open_and_wait

CACHE = Path(os.environ.get("CTXVIEWER_TEST_CACHE") or Path.home() / ".cache" / "ctxviewer-tests")
VENV = CACHE / "zerg-ai-0.3.2"
DRIVER = Path(__file__).with_name("recorded_run_driver.py")
T2 = {"id": "T2", "title": "Other", "files": {}}


@pytest.fixture
def run_root(tmp_path: Path) -> Path:
    """A project whose T1 worker 1 and T2 worker 2 ran through the real plugin; then its design was edited."""
    python = VENV / "bin" / "python"
    if not (VENV / "ready").exists() or not python.exists():
        pytest.skip(f"no zerg-ai 0.3.2 virtualenv at {VENV} (tests/engine/profiles/test_upstream_oracle.py makes it)")
    root = make_project(
        tmp_path / "p",
        [TASK, T2],
        requirements="Alpha login flow.\n\nBeta session store.",
        design="Login screen design.",
        rules={"_core/owasp-2025.md": CORE},
    )
    job = {
        "root": str(root),
        "feature": "feat",
        "workers": {"1": [TASK], "2": [T2]},
        "budget": 4000,
        "security_rule_filtering": True,
    }
    done = subprocess.run(
        [str(python), str(DRIVER)], input=json.dumps(job), capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    design = root / ".gsd/specs/feat/design.md"
    design.write_text("Login screen design, revised.")
    later = time.time() + 60  # after the records, whatever the clock's resolution
    os.utime(design, (later, later))
    return root


def _recorded(root: Path, worker: str) -> dict[str, dict[str, int]]:
    """What the plugin wrote to tokens-<worker>.json: each task's breakdown."""
    data = json.loads((root / f".zerg/state/tokens-{worker}.json").read_text())
    return {task: entry["breakdown"] for task, entry in data["tasks"].items()}


def _attach(qtbot, window: MainWindow, root: Path):  # type: ignore[no-untyped-def]
    open_and_wait(qtbot, window, root, "feat", "T2")
    with qtbot.waitSignal(window.recorded.compared, timeout=60_000) as compared:
        window.following.follow_run(root)
    return compared.args[0]


def test_the_recorded_page_sets_each_record_beside_its_reproduction(qtbot, window: MainWindow, run_root: Path) -> None:  # type: ignore[no-untyped-def]
    assert _recorded(run_root, "1") == {"T1": {"security_rules": 21, "spec_excerpt": 26}}
    assert _recorded(run_root, "2") == {"T2": {}}  # 'Other' matches no paragraph: nothing in its context
    comparison = _attach(qtbot, window, run_root)
    assert comparison.profile == "zerg-0.3.2"  # detected: token records under .zerg/state
    page = window.docks.session.recorded
    assert [(t.worker_id, t.task_id, t.recorded_total) for t in page.tasks_model.rows()] == [
        ("1", "T1", 47),
        ("2", "T2", 0),
    ]
    # The design gained ", revised" (9 characters) after the record: the spec text is 115 characters,
    # round(115 / 4) = 29 where the plugin wrote 26; the security rules read nothing that changed.
    t1 = page.current_task()
    assert t1 is not None and t1.task_id == "T1"  # the first task that differs is chosen
    sections = page.sections_model
    texts = [[sections.data(sections.index(r, c)) for c in range(5)] for r in range(sections.rowCount())]
    assert texts == [
        ["security_rules", "21", "21", "0", "same"],
        ["spec_excerpt", "26", "29", "+3", FILES_CHANGED],
    ]
    assert sections.data(sections.index(0, 0), Qt.ItemDataRole.ForegroundRole) is None
    assert sections.data(sections.index(1, 0), Qt.ItemDataRole.ForegroundRole) is not None  # marked
    assert ".gsd/specs/feat/design.md" in page.note.text()
    assert page.tasks_model.rows()[1].matches  # T2: nothing recorded, nothing reproduced

    # Tuned to compact mode: the efficiency hints are only reproduced, and the settings are why.
    with qtbot.waitSignal(window.recorded.compared, timeout=60_000) as again:
        window.tuner.set_values({"compact_mode": "1"}, "compact mode", "not applied")
    hints = next(s for s in again.args[0].tasks[0].sections if s.section == "efficiency_hints")
    assert (hints.recorded, hints.cause) == (None, SETTINGS) and hints.why.endswith("(tuned here: compact_mode)")
    qtbot.waitUntil(window.is_settled, timeout=60_000)


def test_double_clicks_open_the_runs_tasks_at_their_recorded_settings(
    qtbot, window: MainWindow, run_root: Path
) -> None:  # type: ignore[no-untyped-def]
    _attach(qtbot, window, run_root)
    session = window.docks.session

    # A recorded task: T1, as worker 1 ran it with zerg-ai 0.3.2.
    page = session.recorded
    session.pages.setCurrentWidget(page)
    row = page.tasks_model.row_of(lambda t: t.task_id == "T1")
    assert row is not None
    rect = page.tasks.visualRect(page.tasks_model.index(row, 1))
    with qtbot.waitSignal(window.traceShown, timeout=30_000, check_params_cb=lambda t: t.task_id == "T1") as shown:
        qtbot.mouseClick(page.tasks.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())  # as a person's
        qtbot.mouseDClick(page.tasks.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    trace = shown.args[0]
    assert (trace.profile, dict(trace.token_record)) == ("zerg-0.3.2", {"security_rules": 21, "spec_excerpt": 29})
    assert window.run_settings().worker_id == "1" and window.current == ("feat", "T1")
    qtbot.waitUntil(window.is_settled, timeout=60_000)

    # A timeline event: worker 2's task_completed of T2.
    session.pages.setCurrentWidget(session.timeline)
    session.timeline.show_worker("2")
    events = session.timeline.model.rows()
    row = next(n for n, e in enumerate(events) if e.task_id == "T2" and e.event == "task_completed")
    rect = session.timeline.table.visualRect(session.timeline.model.index(row, 1))
    with qtbot.waitSignal(window.traceShown, timeout=30_000, check_params_cb=lambda t: t.task_id == "T2"):
        qtbot.mouseClick(session.timeline.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
        qtbot.mouseDClick(session.timeline.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert window.run_settings().worker_id == "2" and window.current == ("feat", "T2")
    qtbot.waitUntil(window.is_settled, timeout=60_000)

    # A fleet worker: worker 1 is stopped, its last task T1.
    session.pages.setCurrentWidget(session.fleet)
    chart = session.fleet.chart
    assert session.worker_task("1") == "T1"
    with qtbot.waitSignal(window.traceShown, timeout=30_000, check_params_cb=lambda t: t.task_id == "T1"):
        qtbot.mouseClick(chart, Qt.MouseButton.LeftButton, pos=chart.row_rect(0).center().toPoint())
        qtbot.mouseDClick(chart, Qt.MouseButton.LeftButton, pos=chart.row_rect(0).center().toPoint())
    assert window.run_settings().worker_id == "1" and session.pages.currentWidget() is session.fleet
    assert page.current_task() is not None and page.current_task().task_id == "T1"  # type: ignore[union-attr]
    qtbot.waitUntil(window.is_settled, timeout=60_000)


def test_attached_again_the_records_are_compared_again(qtbot, window: MainWindow, run_root: Path) -> None:  # type: ignore[no-untyped-def]
    _attach(qtbot, window, run_root)
    window.following.stop()
    assert window.docks.session.recorded.comparison() is None  # detached: nothing shown
    with qtbot.waitSignal(window.recorded.compared, timeout=60_000) as again:
        window.following.follow_run(run_root)
    assert [t.task_id for t in again.args[0].tasks] == ["T1", "T2"]
    assert window.docks.session.recorded.tasks_model.rowCount() == 2
    qtbot.waitUntil(window.is_settled, timeout=60_000)
