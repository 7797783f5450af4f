"""Fixtures for widget tests: isolated settings and a window that must not leak workers."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings

from ctxviewer.engine.project.loading import load_project
from ctxviewer.engine.runs.pipeline import assemble
from ctxviewer.engine.trace.model import Trace
from ctxviewer.gui.app import make_app
from ctxviewer.gui.window import MainWindow
from tests.conftest import SAMPLES

LEDGER = SAMPLES / "ledger-service"
EDGE = SAMPLES / "edge-cases"


@pytest.fixture
def app_style(qapp) -> None:
    """The style, palette and style sheet the app runs with (``make_app``), for a test that
    measures what a user sees.  Not every test's: widgets under the app's style sheet take
    about twice as long to build and lay out, and whether a test before had started the app
    must not decide what such a test measures (a dark theme's palette included)."""
    app = make_app()
    app.setPalette(app.style().standardPalette())


@pytest.fixture
def settings(tmp_path: Path) -> QSettings:
    """A throwaway settings file, so tests never read or touch the user's."""
    return QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)


@pytest.fixture
def window(qtbot, settings: QSettings) -> Iterator[MainWindow]:
    """The real window at 1280x800; fails the test if a worker is still running at the end."""
    win = MainWindow(settings)
    qtbot.addWidget(win)
    win.resize(1280, 800)
    win.show()
    yield win
    win.close()
    assert win.lanes.pool.activeThreadCount() == 0, "a worker outlived the window"


def open_and_wait(qtbot, win: MainWindow, project: Path, feature: str | None = None, task: str | None = None) -> Trace:
    """Open *project* and wait for the selected task's trace to be shown."""
    with qtbot.waitSignal(win.traceShown, timeout=30_000) as blocker:
        win.open_project(project, feature, task)
    trace = blocker.args[0]
    assert isinstance(trace, Trace)
    return trace


def engine_trace(project: Path, feature: str, task: str) -> Trace:
    """The same run straight from the engine (no Qt), to compare the views against."""
    return assemble(load_project(project), feature, task)
