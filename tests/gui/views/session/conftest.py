"""Fixtures for the Session panel's tests: a timer that only ticks when told, the
ledger-service replays, a panel, and the dark palette application-wide."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from ctxviewer.engine.project.loading import load_project
from ctxviewer.engine.runs.session import SessionReplay, replay_session
from ctxviewer.gui.app import dark_palette
from ctxviewer.gui.views.session import SessionPanel
from tests.conftest import SAMPLES

LEDGER = SAMPLES / "ledger-service"


class ManualTimer(QTimer):
    """A timer that never fires by itself: tests emit ``timeout`` when they want a tick."""

    def __init__(self) -> None:
        super().__init__()
        self.started = 0
        self.running = False

    def start(self, *args: Any) -> None:
        self.started += 1
        self.running = True

    def stop(self) -> None:
        self.running = False


@pytest.fixture(scope="module")
def ledger_replays() -> dict[str, SessionReplay]:
    project = load_project(LEDGER)
    feature = project.feature("auth-sessions")
    low = project.settings.with_overrides({"max_context_tokens": 18_000, "zones": {"compaction": 75.0}}, "test")
    return {
        "plain": replay_session(project, feature),
        "low": replay_session(project, feature, low),
        "reset": replay_session(project, feature, low, reset_on_checkpoint=True),
    }


@pytest.fixture
def replay(ledger_replays: dict[str, SessionReplay]) -> SessionReplay:
    """auth-sessions with an 18,000-token context: the checkpoint fires at the 6th task."""
    return ledger_replays["low"]


@pytest.fixture
def dark_app() -> Iterator[None]:
    """The dark palette application-wide, as the app sets it (a widget palette loses to a style sheet)."""
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    old = app.palette()
    app.setPalette(dark_palette())
    yield
    app.setPalette(old)


@pytest.fixture
def timer() -> ManualTimer:
    return ManualTimer()


@pytest.fixture
def panel(qtbot, timer: ManualTimer) -> Iterator[SessionPanel]:  # type: ignore[no-untyped-def]
    widget = SessionPanel(timer=timer)
    qtbot.addWidget(widget)
    widget.resize(380, 640)
    yield widget
    widget.stop_following()
