"""The menu bar built from the action table (:mod:`.actions`), each command bound to the slot given for its id.

It knows the window only as a ``QMainWindow`` and its slots as a mapping.
See docs/architecture.md (The window).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMainWindow, QMenu

from ctxviewer.gui.window.actions import ACTIONS, ActionSpec, Kind, Menu, When

Slot = Callable[[], object]


@dataclass
class MenuActions:
    """The built actions by id (``menus["file.detach"]``), the menus, and Open Recent."""

    specs: tuple[ActionSpec, ...]
    actions: dict[str, QAction] = field(default_factory=dict)
    menus: dict[Menu, QMenu] = field(default_factory=dict)
    submenus: dict[str, QMenu] = field(default_factory=dict)

    def __getitem__(self, action_id: str) -> QAction:
        return self.actions[action_id]

    @property
    def recent(self) -> QMenu:
        return self.submenus["file.recent"]

    def set_condition(self, when: When, on: bool) -> None:
        """Enable (or disable) every command that is enabled *when*."""
        for spec in self.specs:
            if spec.enabled is when and spec.kind is Kind.COMMAND:
                self.actions[spec.id].setEnabled(on)


def _check_ids(what: str, wanted: Iterable[str], given: Iterable[str]) -> None:
    wanted, given = set(wanted), set(given)
    if wanted != given:
        raise ValueError(f"{what}: missing {sorted(wanted - given)}, unknown {sorted(given - wanted)}")


def build_menus(
    window: QMainWindow,
    slots: Mapping[str, Slot],
    parts: Mapping[str, QAction],
    specs: tuple[ActionSpec, ...] = ACTIONS,
) -> MenuActions:
    """*window*'s menu bar from *specs*: each command calls ``slots[id]``; ``parts[id]`` are placed as given.

    Every command needs a slot and every part action a QAction, and nothing else may be
    given (a ``ValueError`` says which).
    """
    _check_ids("slots", (s.id for s in specs if s.kind is Kind.COMMAND), slots)
    _check_ids("part actions", (s.id for s in specs if s.kind is Kind.PART), parts)
    built = MenuActions(specs)
    groups: dict[Menu, int] = {}
    bar = window.menuBar()
    for spec in specs:
        menu = built.menus.get(spec.menu)
        if menu is None:
            menu = built.menus[spec.menu] = bar.addMenu(spec.menu.value)
        elif groups[spec.menu] != spec.group:
            menu.addSeparator()
        groups[spec.menu] = spec.group
        if spec.kind is Kind.SUBMENU:
            built.submenus[spec.id] = menu.addMenu(spec.text)
            continue
        if spec.kind is Kind.PART:
            action = parts[spec.id]
            if action.text() != spec.text:
                raise ValueError(f"{spec.id}: the part's action says {action.text()!r}, the table {spec.text!r}")
            if spec.shortcut is not None:
                action.setShortcut(spec.key_sequence())
                action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
            menu.addAction(action)
        else:
            action = _command(window, spec, slots[spec.id])
            menu.addAction(action)
            window.addAction(action)
        built.actions[spec.id] = action
    return built


def _command(window: QMainWindow, spec: ActionSpec, slot: Slot) -> QAction:
    action = QAction(spec.text, window)
    if spec.shortcut is not None:
        action.setShortcut(spec.key_sequence())
    if spec.tip:
        action.setStatusTip(spec.tip)
        action.setToolTip(spec.tip)
    action.setCheckable(spec.checkable)
    action.triggered.connect(lambda _checked=False: slot())
    action.setEnabled(spec.enabled is When.ALWAYS)
    return action


def fill_recent(menu: QMenu, paths: list[str], open_path: Callable[[str], object]) -> None:
    """Open Recent: one entry per path, the latest first (a disabled "(none yet)" without any)."""
    menu.clear()
    for path in paths:
        action = menu.addAction(path.replace("&", "&&"))  # a menu takes '&' for a shortcut
        action.triggered.connect(lambda _c=False, p=path: open_path(p))
    if not paths:
        none = menu.addAction("(none yet)")
        none.setEnabled(False)


def shortcuts_line(actions: Iterable[QAction]) -> str:
    """The shortcuts of *actions* in one line, as the Help menu shows them."""
    lines = [
        f"{a.text().replace('&', '')}: {a.shortcut().toString(QKeySequence.SequenceFormat.NativeText)}"
        for a in actions
        if not a.shortcut().isEmpty()
    ]
    return "Shortcuts \u2014 " + "; ".join(lines)
