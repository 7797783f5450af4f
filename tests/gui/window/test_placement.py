"""Where the window opens: the first launch fitted to the screen, later launches as the user left them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QByteArray, QRect, QSettings, QSize, Qt

from ctxviewer.gui.widgets.splitters import is_user_sized
from ctxviewer.gui.window import MainWindow
from ctxviewer.gui.window.placement import (
    PANELS_WIDTH,
    PROJECT_WIDTH,
    Placement,
    first_geometry,
    fits,
    splitter_key,
)

SCREEN = QRect(0, 0, 1280, 800)


def test_first_geometry_takes_the_whole_of_a_small_screen() -> None:
    assert first_geometry(QRect(0, 0, 1280, 800)) == QRect(0, 0, 1280, 800)
    assert first_geometry(QRect(0, 0, 1024, 700)) == QRect(0, 0, 1024, 700)
    # A title bar of 30 and borders of 2 each side: the frame, not the client area, fills the screen.
    assert first_geometry(QRect(0, 0, 1280, 800), QSize(4, 32)) == QRect(2, 30, 1276, 768)


def test_first_geometry_takes_most_of_a_large_screen_centred() -> None:
    # 90 % of 1920x1080 is 1728x972, centred: (1920-1728)/2 = 96, (1080-972)/2 = 54.
    assert first_geometry(QRect(0, 0, 1920, 1080)) == QRect(96, 54, 1728, 972)
    # 90 % of 1400x900 is 1260x810: below 1280 wide, so 1280 (centred: 60); 810 tall (45).
    assert first_geometry(QRect(0, 0, 1400, 900)) == QRect(60, 45, 1280, 810)
    # A second screen to the right, below a panel 30 high.
    assert first_geometry(QRect(1920, 30, 2560, 1400)) == QRect(1920 + 128, 30 + 70, 2304, 1260)


def test_a_saved_frame_fits_only_when_it_is_mostly_on_the_screen_and_not_larger() -> None:
    assert fits(QRect(100, 100, 1000, 600), SCREEN)
    assert not fits(QRect(0, 0, 1920, 1080), SCREEN)  # saved on a larger screen
    assert not fits(QRect(1500, 100, 1000, 600), SCREEN)  # saved on a screen to the right
    assert fits(QRect(200, 100, 1000, 600), SCREEN)  # 920 of 1000 columns on screen
    assert not fits(QRect(), SCREEN)  # none saved


@pytest.fixture
def screen(qapp) -> QRect:  # type: ignore[no-untyped-def]
    """The tests' screen: 1280x800, as tests/conftest.py sets up the offscreen platform."""
    available = qapp.primaryScreen().availableGeometry()
    assert available == SCREEN
    return available


def launch(qtbot, path: Path) -> MainWindow:  # type: ignore[no-untyped-def]
    """A window as a launch makes it: not sized by its caller, placed when first shown."""
    win = MainWindow(QSettings(str(path), QSettings.Format.IniFormat))
    qtbot.addWidget(win)
    with qtbot.waitSignal(win.placement.placed, timeout=10_000):
        win.show()
    return win


@pytest.fixture
def ini(tmp_path: Path) -> Iterator[Path]:
    yield tmp_path / "settings.ini"


def test_the_first_launch_fills_the_screen_with_a_project_pane_that_shows_ids(
    qtbot,
    screen: QRect,
    ini: Path,  # type: ignore[no-untyped-def]
) -> None:
    win = launch(qtbot, ini)
    assert win.frameGeometry() == screen
    assert win.docks.outline_dock.width() >= 240
    assert abs(win.docks.outline_dock.width() - PROJECT_WIDTH) <= 8
    # The panels as wide as asked, or as the Budget panel's sliders need; the tabs get the rest.
    budget = win.docks.budget_dock
    assert abs(budget.width() - max(PANELS_WIDTH, budget.minimumSizeHint().width())) <= 8
    assert win.centralWidget().width() >= 1280 - PROJECT_WIDTH - budget.width() - 24
    win.close()


def test_a_second_launch_restores_size_docks_and_the_splitters_the_user_moved(
    qtbot,
    screen: QRect,
    ini: Path,
    monkeypatch: pytest.MonkeyPatch,  # type: ignore[no-untyped-def]
) -> None:
    first = launch(qtbot, ini)
    first.setWindowState(Qt.WindowState.WindowNoState)
    first.setGeometry(QRect(20, 30, 1240, 740))
    first.resizeDocks([first.docks.outline_dock], [300], Qt.Orientation.Horizontal)
    qtbot.waitUntil(lambda: abs(first.docks.outline_dock.width() - 300) <= 8)
    splitter = first.tabs.paragraphs.splitter
    total = sum(splitter.sizes())
    splitter.setSizes([total - 150, 150])
    splitter.splitterMoved.emit(total - 150, 1)  # as a drag of its handle says
    moved = splitter.sizes()
    first.close()

    fitted: list[Placement] = []
    fit = Placement._fit_to_screen
    monkeypatch.setattr(Placement, "_fit_to_screen", lambda self: (fitted.append(self), fit(self)))
    second = launch(qtbot, ini)
    assert not fitted and second.geometry().size() == QSize(1240, 740)  # restored, not fitted again
    assert abs(second.docks.outline_dock.width() - 300) <= 8
    again = second.tabs.paragraphs.splitter
    assert is_user_sized(again) and again.sizes() == moved
    assert not is_user_sized(second.tabs.rules.splitter)
    assert splitter_key(again, second) != splitter_key(second.tabs.rules.splitter, second)
    second.close()


def test_a_saved_layout_that_cannot_be_read_or_does_not_fit_gives_the_first_layout(
    qtbot,
    screen: QRect,
    ini: Path,  # type: ignore[no-untyped-def]
) -> None:
    store = QSettings(str(ini), QSettings.Format.IniFormat)
    store.setValue("geometry", QByteArray(b"not a geometry"))
    store.setValue("window-state", QByteArray(b"nor a state"))
    store.sync()
    win = launch(qtbot, ini)
    assert win.frameGeometry() == screen and win.docks.outline_dock.width() >= 240
    win.setWindowState(Qt.WindowState.WindowNoState)
    win.setGeometry(QRect(0, 0, 1900, 1000))  # as on a larger screen, then moved here
    win.close()
    again = launch(qtbot, ini)
    assert again.frameGeometry() == screen
    again.close()


def test_reset_layout_goes_back_to_the_first_layout_and_forgets_the_saved_one(
    qtbot,
    screen: QRect,
    ini: Path,  # type: ignore[no-untyped-def]
) -> None:
    win = launch(qtbot, ini)
    win.docks.outline_dock.hide()
    splitter = win.tabs.rules.splitter
    splitter.splitterMoved.emit(10, 1)
    assert is_user_sized(splitter)
    win.placement.save()
    with qtbot.waitSignal(win.placement.placed, timeout=10_000):
        win.menus["view.reset_layout"].trigger()
    assert win.docks.outline_dock.isVisible()
    assert abs(win.docks.outline_dock.width() - PROJECT_WIDTH) <= 8
    assert not is_user_sized(splitter)
    store = QSettings(str(ini), QSettings.Format.IniFormat)
    assert not store.contains("geometry") and "splitters" not in store.childGroups()
    win.close()
