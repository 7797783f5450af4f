"""The menu bar built from the action table: what it holds, in order, and what each action does."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMainWindow, QMenu

from ctxviewer.gui.window import MainWindow
from ctxviewer.gui.window.actions import ACTIONS, ActionSpec, Kind, Menu, When
from ctxviewer.gui.window.menus import build_menus, fill_recent, shortcuts_line
from tests.gui.conftest import LEDGER, open_and_wait

Key = QKeySequence.StandardKey
SEP = ("---", None)
SUBMENU = "submenu"

#: The menus as the window has always had them: text and shortcut, separators as "---".
EXPECTED: dict[str, list[tuple[str, object]]] = {
    "&File": [
        ("&Open Folder\u2026", Key.Open),
        ("Open &Recent", SUBMENU),
        SEP,
        ("&Export Context (.md)\u2026", "Ctrl+E"),
        ("Export &Trace (.json)\u2026", "Ctrl+Shift+E"),
        ("Export &HTML Report\u2026", "Ctrl+Alt+E"),
        ("&Copy Context", "Ctrl+Shift+C"),
        ("Export &What-if (.whatif.md)\u2026", None),
        SEP,
        ("Attach to R&un\u2026", "Ctrl+Shift+R"),
        ("&Attach to Worker Log\u2026", "Ctrl+Shift+L"),
        ("&Detach from Worker Log", None),
        ("Open Worker &Logs\u2026", None),
        SEP,
        ("&Quit", Key.Quit),
    ],
    "&Run": [
        ("&Re-run", "F5"),
        ("&Cancel", "Esc"),
        ("Re-run &Batch Pass", "Shift+F5"),
        ("Feature S&weep\u2026", "Ctrl+Shift+W"),
        SEP,
        ("&Pin as Baseline", "Ctrl+B"),
        ("C&lear Baseline", "Ctrl+Shift+B"),
        ("Compare Re&visions\u2026", "Ctrl+Shift+D"),
        ("Find the Co&mmit\u2026", None),
        SEP,
        ("&Undo Budget Change", Key.Undo),
        ("&Redo Budget Change", Key.Redo),
        ("Reset &Budgets", "Ctrl+0"),
        ("&Save Settings to ctxviewer.yaml\u2026", "Ctrl+S"),
    ],
    "&View": [
        ("&Find Candidate\u2026", Key.Find),
        ("Filter &Tasks", "Ctrl+L"),
        SEP,
        ("Show Sections", "Ctrl+1"),
        ("Show Paragraphs", "Ctrl+2"),
        ("Show Rules", "Ctrl+3"),
        ("Show Computed", "Ctrl+4"),
        ("Show Trimming", "Ctrl+5"),
        ("Show Plugin context", "Ctrl+6"),
        ("Show What-if", "Ctrl+7"),
        ("Show Compare", "Ctrl+8"),
        ("Show Task", "Ctrl+9"),
        ("Show Findings", None),
        ("Show Prompt", None),
        ("Show Memory", None),
        SEP,
        ("Project", None),
        ("Budget", None),
        ("Tracker", None),
        ("Session", None),
        ("Window", None),
        ("Why was it dropped?", None),
        ("Worker logs", None),
        SEP,
        ("Reset &Layout", None),
    ],
    "&Help": [("&Keyboard Shortcuts", Key.HelpContents)],
}
#: Disabled in a fresh window: nothing to export, no baseline, nothing followed, nothing to undo.
DISABLED_AT_START = {
    "&Export Context (.md)\u2026",
    "Export &Trace (.json)\u2026",
    "Export &HTML Report\u2026",
    "&Copy Context",
    "Export &What-if (.whatif.md)\u2026",
    "&Detach from Worker Log",
    "C&lear Baseline",
    "&Undo Budget Change",
    "&Redo Budget Change",
}


def menu_entries(menu: QMenu) -> list[tuple[str, object]]:
    entries: list[tuple[str, object]] = []
    for action in menu.actions():
        if action.isSeparator():
            entries.append(SEP)
        elif action.menu() is not None:
            entries.append((action.text(), SUBMENU))
        else:
            entries.append((action.text(), action.shortcut().toString() or None))
    return entries


def key_text(shortcut: object) -> object:
    if isinstance(shortcut, QKeySequence.StandardKey):
        return QKeySequence(shortcut).toString() or None
    return shortcut


def test_the_menu_bar_holds_every_action_in_its_place(window: MainWindow) -> None:
    menus = {a.text(): a.menu() for a in window.menuBar().actions()}
    assert list(menus) == list(EXPECTED) == [m.value for m in Menu]
    for title, expected in EXPECTED.items():
        menu = menus[title]
        assert isinstance(menu, QMenu)
        assert menu_entries(menu) == [(text, key_text(key)) for text, key in expected], title


def test_each_action_is_as_its_row_says(window: MainWindow) -> None:
    for spec in ACTIONS:
        if spec.kind is Kind.SUBMENU:
            assert window.menus.submenus[spec.id].title() == spec.text
            continue
        action = window.menus[spec.id]
        assert action.text() == spec.text
        assert action.shortcut() == spec.key_sequence(), spec.id
        assert action.isCheckable() == spec.checkable, spec.id
        if spec.tip:
            assert (action.statusTip(), action.toolTip()) == (spec.tip, spec.tip)
        # Commands work wherever the focus is: they are the window's own actions too.
        assert (action in window.actions()) == (spec.kind is Kind.COMMAND), spec.id
        assert action.isEnabled() == (spec.text not in DISABLED_AT_START), spec.id


def test_no_two_of_the_window_s_actions_share_a_shortcut(window: MainWindow) -> None:
    contexts = (Qt.ShortcutContext.WindowShortcut, Qt.ShortcutContext.ApplicationShortcut)
    keys = [
        a.shortcut().toString()
        for a in window.findChildren(QAction)
        if not a.shortcut().isEmpty() and a.shortcutContext() in contexts
    ]
    assert len(keys) >= len([s for s in ACTIONS if s.key_sequence().toString()])
    assert [key for key, n in Counter(keys).items() if n > 1] == []


def test_the_actions_are_enabled_as_the_window_s_state_allows(qtbot, window: MainWindow, tmp_path: Path) -> None:
    menus = window.menus
    exports = ("file.export_markdown", "file.export_json", "file.export_html", "file.copy_context")
    open_and_wait(qtbot, window, LEDGER, "auth-sessions", "AUTH-L1-001")
    assert all(menus[i].isEnabled() for i in exports)
    assert not menus["file.export_whatif"].isEnabled() and not menus["run.clear_baseline"].isEnabled()
    menus["run.pin_baseline"].trigger()
    assert window.baseline.trace is window.trace
    assert menus["file.export_whatif"].isEnabled() and menus["run.clear_baseline"].isEnabled()
    menus["run.clear_baseline"].trigger()
    assert window.baseline.trace is None
    assert not menus["file.export_whatif"].isEnabled() and not menus["run.clear_baseline"].isEnabled()
    log = tmp_path / "events.jsonl"
    log.write_text("", encoding="utf-8")
    window.following.follow_log(log)
    assert menus["file.detach"].isEnabled()
    menus["file.detach"].trigger()
    assert not menus["file.detach"].isEnabled() and window.docks.session.following is None
    qtbot.waitUntil(window.is_settled, timeout=30_000)


def test_a_shortcut_and_a_menu_entry_reach_their_slot(qtbot, window: MainWindow) -> None:
    window.activateWindow()
    qtbot.waitUntil(lambda: window.isActiveWindow())
    qtbot.keyClick(window, Qt.Key.Key_3, Qt.KeyboardModifier.ControlModifier)
    assert window.tabs.current_tab() == "rules"
    window.menus["view.tab.prompt"].trigger()
    assert window.tabs.current_tab() == "prompt"
    window.menus["help.shortcuts"].trigger()
    (note,) = window.problems.messages
    assert note == shortcuts_line(window.actions()) and "Show Rules: Ctrl+3" in note


def _spec(action_id: str, kind: Kind = Kind.COMMAND, text: str = "", enabled: When = When.ALWAYS) -> ActionSpec:
    return ActionSpec(action_id, text or action_id, Menu.FILE, 0, enabled=enabled, kind=kind)


def test_each_command_calls_the_slot_bound_to_its_id(qtbot) -> None:  # type: ignore[no-untyped-def]
    window = QMainWindow()
    qtbot.addWidget(window)
    called: list[str] = []
    specs = (_spec("a"), _spec("b", enabled=When.FOLLOWING))
    slots = {"a": lambda: called.append("a"), "b": lambda: called.append("b")}
    built = build_menus(window, slots, {}, specs)
    built["a"].trigger()
    built["b"].trigger()  # disabled: nothing happens
    built.set_condition(When.FOLLOWING, True)
    built["b"].trigger()
    assert called == ["a", "b"]


def test_a_missing_or_unknown_slot_or_a_part_that_says_otherwise_is_refused(qtbot) -> None:  # type: ignore[no-untyped-def]
    window = QMainWindow()
    qtbot.addWidget(window)
    specs = (_spec("a"), _spec("p", Kind.PART, text="Part"))
    part = QAction("Part", window)
    with pytest.raises(ValueError, match=r"slots: missing \['a'\], unknown \['z'\]"):
        build_menus(window, {"z": lambda: None}, {"p": part}, specs)
    with pytest.raises(ValueError, match=r"part actions: missing \['p'\]"):
        build_menus(window, {"a": lambda: None}, {}, specs)
    with pytest.raises(ValueError, match="p: the part's action says 'Other', the table 'Part'"):
        build_menus(window, {"a": lambda: None}, {"p": QAction("Other", window)}, specs)


def test_open_recent_lists_the_paths_with_their_ampersands_kept(qtbot) -> None:  # type: ignore[no-untyped-def]
    menu = QMenu()
    qtbot.addWidget(menu)
    opened: list[str] = []
    fill_recent(menu, [], opened.append)
    assert [(a.text(), a.isEnabled()) for a in menu.actions()] == [("(none yet)", False)]
    fill_recent(menu, ["/p/R&D", "/p/b"], opened.append)
    assert [a.text() for a in menu.actions()] == ["/p/R&&D", "/p/b"]
    menu.actions()[0].trigger()
    assert opened == ["/p/R&D"]
