"""The session feeds alone, against a stand-in for the Session panel."""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import Any

import pytest
from PySide6.QtCore import QObject

from ctxviewer.engine.project.loading import load_project
from ctxviewer.engine.runs.session import SessionReplay
from ctxviewer.gui.window.session import SessionFeeds
from ctxviewer.gui.worker import Lane, make_pool
from tests.gui.conftest import LEDGER


class Panel:
    """Records what the feeds ask of the panel."""

    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []

    def set_replay(self, replay: SessionReplay | None, *, keep_position: bool = False) -> None:
        self.calls.append(("replay", replay.feature if replay else None, keep_position))

    def set_live_limits(
        self, threshold_percent: float, max_tokens: int, zones: Sequence[tuple[str, float]] = ()
    ) -> None:
        self.calls.append(("limits", threshold_percent, max_tokens, tuple(zones)))

    def follow_log(self, path: str | os.PathLike[str]) -> None:
        self.calls.append(("follow", str(path)))


@pytest.fixture
def feeds(qtbot) -> Iterator[SessionFeeds]:
    pool = make_pool(1)
    owner = QObject()
    yield SessionFeeds(Lane(pool, "replay", owner), Panel(), owner)
    pool.waitForDone(10_000)


def test_the_live_limits_are_given_only_when_they_change(feeds: SessionFeeds) -> None:
    settings = load_project(LEDGER).settings
    panel = feeds.panel
    assert isinstance(panel, Panel)
    feeds.apply_live_limits(settings)
    feeds.apply_live_limits(replace(settings, budget=settings.budget + 1))  # not a tracker limit
    assert panel.calls == [
        ("limits", settings.threshold_percent, settings.max_context_tokens, tuple(settings.all_zones))
    ]
    feeds.apply_live_limits(replace(settings, threshold_percent=50.0))
    assert panel.calls[-1][:2] == ("limits", 50.0) and len(panel.calls) == 2


def test_a_replay_reaches_the_panel_with_its_position_kept_or_not(qtbot, feeds: SessionFeeds) -> None:
    project = load_project(LEDGER)
    settings = project.settings
    assert feeds.changes_replay(settings)  # nothing replayed yet
    with qtbot.waitSignal(feeds.replayed, timeout=30_000) as shown:
        feeds.replay(project, "auth-sessions", settings, keep_position=True)
    assert shown.args[0].feature == "auth-sessions" and feeds.feature == "auth-sessions"
    panel = feeds.panel
    assert isinstance(panel, Panel)
    assert panel.calls[-1] == ("replay", "auth-sessions", True)
    # Budgets do not change a replay; the tool calls per task do.
    assert not feeds.changes_replay(replace(settings, budget=settings.budget // 2))
    assert feeds.changes_replay(replace(settings, replay_tool_calls=settings.replay_tool_calls + 1))
