"""The baseline part alone: pinning the shown run, the diff of later runs against it, clearing it."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from PySide6.QtWidgets import QMainWindow

from ctxviewer.engine.analysis.whatif import diff_traces
from ctxviewer.engine.project.loading import Project
from ctxviewer.engine.project.settings import Settings
from ctxviewer.engine.trace.model import Trace
from ctxviewer.gui.window.baseline import Baseline
from ctxviewer.gui.window.status import StatusLine
from ctxviewer.gui.window.tabs import TABS, ResultTabs
from ctxviewer.gui.worker import Lane, make_pool
from tests.gui.conftest import LEDGER, engine_trace


@dataclass
class Shown:
    """What the part reads of the window: only the trace matters here."""

    trace: Trace | None = None
    project: Project | None = None
    current: tuple[str, str] | None = None

    def run_settings(self) -> Settings:
        raise AssertionError("not read")


@pytest.fixture
def parts(qtbot) -> Iterator[tuple[Baseline, Shown, ResultTabs, QMainWindow]]:
    pool = make_pool(1)
    window = QMainWindow()
    qtbot.addWidget(window)
    tabs = ResultTabs(Lane(pool, "compare", window), window)
    shown = Shown()
    yield Baseline(shown, tabs, StatusLine(window), window), shown, tabs, window
    pool.waitForDone(10_000)


def test_pinning_needs_a_run_and_marks_the_what_if_tab(qtbot, parts) -> None:  # type: ignore[no-untyped-def]
    baseline, shown, tabs, window = parts
    said: list[bool] = []
    baseline.pinned.connect(said.append)
    baseline.pin()
    assert baseline.trace is None and said == []
    assert window.statusBar().currentMessage() == "Nothing to pin yet"
    shown.trace = engine_trace(LEDGER, "auth-sessions", "AUTH-L1-001")
    baseline.pin()
    assert baseline.trace is shown.trace and said == [True] and baseline.label() == "AUTH-L1-001"
    assert baseline.diff is not None and baseline.diff.unchanged
    assert tabs.tabText(TABS.index("whatif")) == "What-if \u25cf"
    baseline.clear()
    assert (baseline.trace, baseline.diff, said) == (None, None, [True, False])
    assert tabs.tabText(TABS.index("whatif")) == "What-if"


def test_a_later_run_is_diffed_against_the_pin_unless_its_diff_already_is(parts) -> None:  # type: ignore[no-untyped-def]
    baseline, shown, _tabs, _window = parts
    first = engine_trace(LEDGER, "auth-sessions", "AUTH-L1-001")
    later = engine_trace(LEDGER, "auth-sessions", "AUTH-L1-002")
    baseline.compare(later, None)
    assert baseline.diff is None  # nothing pinned: no diff, whatever the run brought
    shown.trace = first
    baseline.pin()
    baseline.compare(later, None)  # pinned after the run was asked for: worked out here
    assert baseline.diff is not None and baseline.diff.baseline is first and baseline.diff.current is later
    ready = diff_traces(first, later)
    baseline.compare(later, ready)
    assert baseline.diff is ready
    baseline.keep_for(first.project)  # the same project: kept
    assert baseline.trace is first
    baseline.keep_for("/another/project")
    assert baseline.trace is None and baseline.diff is None
