"""The action table alone: ids, placement and shortcuts, as the menus are built from it."""

from __future__ import annotations

from collections import Counter

from PySide6.QtGui import QKeySequence

from ctxviewer.gui.window.actions import ACTIONS, BY_ID, Kind, Menu, When
from ctxviewer.gui.window.tabs import TABS


def test_ids_are_unique_and_each_menu_s_groups_come_in_order() -> None:
    assert len(BY_ID) == len(ACTIONS)
    menus = [spec.menu for spec in ACTIONS]
    # Each menu's rows are together, the menus in menu-bar order, and a menu's groups never go back.
    assert list(dict.fromkeys(menus)) == list(Menu)
    for menu in Menu:
        groups = [spec.group for spec in ACTIONS if spec.menu is menu]
        assert groups == sorted(groups), menu


def test_no_two_actions_share_a_shortcut(qapp) -> None:  # type: ignore[no-untyped-def]
    typed = [spec.key_sequence().toString() for spec in ACTIONS if isinstance(spec.shortcut, str)]
    assert all(typed), "a shortcut Qt cannot read"
    # A standard key is the platform's (Quit has none on some): those it has count too.
    keys = [spec.key_sequence().toString() for spec in ACTIONS if spec.shortcut is not None]
    assert [key for key, n in Counter(k for k in keys if k).items() if n > 1] == []


def test_the_shortcuts_the_docs_name(qapp) -> None:  # type: ignore[no-untyped-def]
    # docs/gui.md names these; Ctrl+0 resets the budgets, so the tabs after the ninth have none.
    named = {
        "file.export_markdown": "Ctrl+E",
        "file.export_json": "Ctrl+Shift+E",
        "file.export_html": "Ctrl+Alt+E",
        "file.copy_context": "Ctrl+Shift+C",
        "file.attach_run": "Ctrl+Shift+R",
        "file.attach_log": "Ctrl+Shift+L",
        "run.rerun": "F5",
        "run.cancel": "Esc",
        "run.pin_baseline": "Ctrl+B",
        "run.revisions": "Ctrl+Shift+D",
        "run.reset_budgets": "Ctrl+0",
        "run.save_settings": "Ctrl+S",
        **{f"view.tab.{name}": f"Ctrl+{n}" for n, name in enumerate(TABS[:9], start=1)},
    }
    assert {i: BY_ID[i].key_sequence().toString() for i in named} == named
    assert all(BY_ID[f"view.tab.{name}"].shortcut is None for name in TABS[9:])
    assert BY_ID["file.open"].shortcut == QKeySequence.StandardKey.Open
    assert BY_ID["view.find"].shortcut == QKeySequence.StandardKey.Find


def test_what_parts_make_and_when_the_rest_is_enabled() -> None:
    parts = {spec.id for spec in ACTIONS if spec.kind is Kind.PART}
    assert parts == {"run.undo", "run.redo"} | {
        f"view.panel.{name}" for name in ("outline", "budget", "tracker", "session", "window", "search", "logs")
    }
    assert [spec.id for spec in ACTIONS if spec.kind is Kind.SUBMENU] == ["file.recent"]
    conditional = {spec.id: spec.enabled for spec in ACTIONS if spec.enabled not in (When.ALWAYS, When.PART)}
    assert conditional == {
        "file.export_markdown": When.TRACE_SHOWN,
        "file.export_json": When.TRACE_SHOWN,
        "file.export_html": When.TRACE_SHOWN,
        "file.copy_context": When.TRACE_SHOWN,
        "file.export_whatif": When.BASELINE_PINNED,
        "file.detach": When.FOLLOWING,
        "run.clear_baseline": When.BASELINE_PINNED,
    }
