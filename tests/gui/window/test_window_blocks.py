"""A double click (or Enter) on a block of the Window panel shows what the block is."""

from __future__ import annotations

from dataclasses import replace

import pytest
from PySide6.QtCore import Qt

from ctxviewer.engine.trace.model import MEMORY_BLOCK, Setting
from ctxviewer.gui.window import MainWindow
from ctxviewer.gui.window.window_blocks import block_setting
from tests.gui.conftest import LEDGER, open_and_wait


def _activate(qtbot, window: MainWindow, name: str) -> None:
    """Select the Window panel's block *name* and press Enter on it, as a user does."""
    view = window.docks.window_view
    assert view.table.select(lambda r: r.block.name == name), name
    view.table.view.setFocus()
    qtbot.keyClick(view.table.view, Qt.Key.Key_Return)


@pytest.fixture
def shown(qtbot, window: MainWindow) -> MainWindow:
    open_and_wait(qtbot, window, LEDGER, "auth-sessions", "AUTH-L1-001")
    with qtbot.waitSignal(window.docks.window_dock.visibilityChanged):
        window.docks.show_panel("window")
    return window


def test_memory_opens_the_memory_tab_with_each_file(qtbot, shown: MainWindow) -> None:
    _activate(qtbot, shown, "memory")
    assert shown.tabs.current_tab() == "memory"
    trace = shown.tabs.trace
    assert trace is not None and trace.worker is not None
    files = [b for b in trace.worker.blocks if b.kind == MEMORY_BLOCK]
    table = shown.tabs.memory.table
    assert table.model.rowCount() == len(files) > 0
    assert table.current_row().loaded  # the first file that loads, its text in the pane
    assert table.current_row().text.splitlines()[-1] in table.detail.toPlainText()


def test_the_prompt_and_the_conversation_lead_to_their_views(qtbot, shown: MainWindow) -> None:
    _activate(qtbot, shown, "prompt")
    assert shown.tabs.current_tab() == "prompt"
    # Raised in front of the Window panel (the panels share a place): shown, the Window panel hidden.
    with qtbot.waitSignal(shown.docks.tracker_dock.visibilityChanged, check_params_cb=bool):
        _activate(qtbot, shown, "conversation")
    assert not shown.docks.tracker_dock.visibleRegion().isEmpty()
    assert shown.docks.window_dock.visibleRegion().isEmpty()


@pytest.mark.parametrize(
    ("block", "setting"),
    [
        ("system_prompt", "system_prompt_tokens"),
        ("tools", "tool_tokens"),
        ("user_memory", "user_memory_tokens"),
        ("reserve", "reserve_percent"),
    ],
)
def test_a_stated_size_shows_its_setting_and_where_it_came_from(
    qtbot, shown: MainWindow, block: str, setting: str
) -> None:
    _activate(qtbot, shown, block)
    assert shown.tabs.current_tab() == "task"
    key, value, origin = shown.tabs.task.settings.current_row()
    assert key == setting
    trace = shown.tabs.trace
    assert trace is not None
    assert (value, origin) == (str(trace.settings[setting].value), trace.settings[setting].origin)


def test_a_base_prompt_leads_to_its_file_setting_or_its_stated_size(qtbot, shown: MainWindow) -> None:
    trace = shown.tabs.trace
    assert trace is not None
    assert not trace.settings["base_prompt"].value  # the sample names no file: the stated size
    assert block_setting("base_prompt", trace) == "base_prompt_tokens"
    named = replace(trace, settings={**trace.settings, "base_prompt": Setting("prompts/base.md", "test")})
    assert block_setting("base_prompt", named) == "base_prompt"
