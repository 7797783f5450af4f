"""A docked view is filled when its dock comes into sight, or when it is read; only the latest fill."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDockWidget, QLabel, QMainWindow

from ctxviewer.gui.widgets.insight import WhenInSight, in_sight


def _window(qtbot):  # type: ignore[no-untyped-def]
    """A window with two docks tabified, the first at the front."""
    window = QMainWindow()
    qtbot.addWidget(window)
    window.setCentralWidget(QLabel("centre"))
    front, behind = QDockWidget("Front", window), QDockWidget("Behind", window)
    for dock in (front, behind):
        dock.setObjectName(dock.windowTitle())
        dock.setWidget(QLabel("-"))
        window.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, dock)
    window.tabifyDockWidget(front, behind)
    front.raise_()
    window.resize(800, 600)
    window.show()
    qtbot.waitExposed(window)
    return window, front, behind


def test_a_dock_behind_a_tab_waits_until_raised_and_only_the_latest_fill_is_made(qtbot) -> None:  # type: ignore[no-untyped-def]
    _win, front, behind = _window(qtbot)
    assert in_sight(front) and not in_sight(behind)
    assert behind.isVisible()  # Qt calls a dock behind a tab visible: the test must not rely on that
    made: list[str] = []
    owed = WhenInSight(behind)
    owed.owe(lambda: made.append("first"))
    owed.owe(lambda: made.append("second"))
    assert made == [] and owed.is_owed()
    with qtbot.waitSignal(behind.visibilityChanged):
        behind.raise_()
    assert made == ["second"]  # the older fill is never made
    assert not owed.is_owed()
    owed.owe(lambda: made.append("third"))  # in sight now: made at once
    assert made == ["second", "third"]


def test_reading_a_view_out_of_sight_makes_its_fill(qtbot) -> None:  # type: ignore[no-untyped-def]
    _win, _front, behind = _window(qtbot)
    made: list[str] = []
    owed = WhenInSight(behind)
    owed.owe(lambda: made.append("fill"))
    owed.flush()
    owed.flush()  # nothing owed the second time
    assert made == ["fill"]


def test_a_closed_dock_is_filled_when_opened(qtbot) -> None:  # type: ignore[no-untyped-def]
    _win, front, _behind = _window(qtbot)
    front.hide()
    made: list[str] = []
    owed = WhenInSight(front)
    owed.owe(lambda: made.append("fill"))
    assert made == []
    with qtbot.waitSignal(front.visibilityChanged):
        front.show()
    assert made == ["fill"]
