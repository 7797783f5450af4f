"""Replay timing: the player steps, plays, pauses and finishes on its timer.

Driven by hand through an injected timer's ``timeout``; one test waits for the real timer
through ``qtbot.waitSignal``.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import QTimer

from ctxviewer.gui.views.session.player import BASE_INTERVAL_MS, ReplayPlayer
from tests.gui.views.session.conftest import ManualTimer


def test_player_steps_plays_and_finishes(qtbot, timer: ManualTimer) -> None:  # type: ignore[no-untyped-def]
    player = ReplayPlayer(timer=timer)
    positions: list[int] = []
    player.positionChanged.connect(positions.append)
    player.set_count(3)
    assert player.position == -1 and positions == [-1]
    assert player.interval() == BASE_INTERVAL_MS
    with qtbot.waitSignal(player.playingChanged, timeout=1000) as blocker:
        player.play()
    assert blocker.args == [True] and timer.running and player.playing
    assert player.position == 0  # the first step comes at once
    timer.timeout.emit()
    assert player.position == 1
    with qtbot.waitSignal(player.finished, timeout=1000):
        timer.timeout.emit()
    assert player.position == 2 and not player.playing and not timer.running
    assert player.step() is False
    player.play()  # at the end: plays again from the start
    assert player.position == 0 and player.playing
    player.pause()
    player.reset()
    assert player.position == -1 and positions[-3:] == [-1, 0, -1]
    for speed, interval in ((2.0, 300), (4.0, 150), (0.5, 1200), (1.0, 600)):
        player.set_speed(speed)
        assert player.interval() == interval == timer.interval()
    with pytest.raises(ValueError):
        player.set_speed(0)
    player.set_count(0)
    player.play()
    assert not player.playing


def test_player_with_a_timer_factory_and_the_real_timer(qtbot) -> None:  # type: ignore[no-untyped-def]
    made: list[QTimer] = []

    def factory() -> QTimer:
        made.append(QTimer())
        return made[-1]

    player = ReplayPlayer(timer=factory)
    assert player.timer is made[0]
    player.set_count(4)
    player.set_speed(4.0)
    with qtbot.waitSignal(player.finished, timeout=5000):
        player.play()
    assert player.position == 3 and not player.playing
