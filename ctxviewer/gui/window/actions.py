"""The window's actions as a table: text, shortcut, tip, menu and group, and when each is enabled.

:mod:`.menus` builds the menu bar from :data:`ACTIONS`; nothing here knows the window.
See docs/architecture.md (The window).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from PySide6.QtGui import QKeySequence

from ctxviewer.gui.window.tabs import TAB_TITLES


class Menu(enum.Enum):
    """The menus, in menu-bar order; each value is the menu's title."""

    FILE = "&File"
    RUN = "&Run"
    VIEW = "&View"
    HELP = "&Help"


class When(enum.Enum):
    """When an action is enabled.  Every condition but ALWAYS and PART starts off."""

    ALWAYS = "always"
    #: A trace has been shown since the window opened (the exports and the copy).
    TRACE_SHOWN = "trace shown"
    BASELINE_PINNED = "baseline pinned"
    #: The Session panel follows a worker's log or a run.
    FOLLOWING = "following"
    #: As the part that makes the action says (the undo stack, a dock).
    PART = "part"


class Kind(enum.Enum):
    """Who makes an action."""

    #: A QAction of the menus' own, added to the window too (its shortcut works wherever the
    #: focus is); triggering it calls the slot the window binds to its id.
    COMMAND = "command"
    #: A QAction a part makes (the undo stack's, a dock's toggle), placed in its menu only.
    PART = "part"
    #: A submenu a part fills (Open Recent).
    SUBMENU = "submenu"


Shortcut = str | QKeySequence.StandardKey | None


@dataclass(frozen=True)
class ActionSpec:
    """One row of the table.  *group*: actions of a menu in different groups have a separator
    between them; *tip* is both the status-bar tip and the tooltip."""

    id: str
    text: str
    menu: Menu
    group: int
    shortcut: Shortcut = None
    tip: str = ""
    enabled: When = When.ALWAYS
    checkable: bool = False
    kind: Kind = Kind.COMMAND

    def key_sequence(self) -> QKeySequence:
        """The shortcut as Qt gives it to the action (empty without one)."""
        return QKeySequence() if self.shortcut is None else QKeySequence(self.shortcut)


Key = QKeySequence.StandardKey
F, R, V, H = Menu.FILE, Menu.RUN, Menu.VIEW, Menu.HELP


def _show_tab(n: int, name: str) -> ActionSpec:
    # Ctrl+1 .. Ctrl+9 for the first nine tabs; Ctrl+0 resets the budgets.
    return ActionSpec(f"view.tab.{name}", f"Show {TAB_TITLES[name]}", V, 1, f"Ctrl+{n}" if n <= 9 else None)


def _toggle_panel(name: str, title: str) -> ActionSpec:
    return ActionSpec(f"view.panel.{name}", title, V, 2, checkable=True, kind=Kind.PART)


ACTIONS: tuple[ActionSpec, ...] = (
    ActionSpec("file.open", "&Open Folder\u2026", F, 0, Key.Open, "Open a project folder"),
    ActionSpec("file.recent", "Open &Recent", F, 0, kind=Kind.SUBMENU),
    ActionSpec(
        "file.export_markdown",
        "&Export Context (.md)\u2026",
        F,
        1,
        "Ctrl+E",
        "Save exactly the assembled context",
        When.TRACE_SHOWN,
    ),
    ActionSpec(
        "file.export_json",
        "Export &Trace (.json)\u2026",
        F,
        1,
        "Ctrl+Shift+E",
        "Save the full decision trace as JSON",
        When.TRACE_SHOWN,
    ),
    ActionSpec(
        "file.export_html",
        "Export &HTML Report\u2026",
        F,
        1,
        "Ctrl+Alt+E",
        "Save a self-contained report that opens in any browser",
        When.TRACE_SHOWN,
    ),
    ActionSpec(
        "file.copy_context",
        "&Copy Context",
        F,
        1,
        "Ctrl+Shift+C",
        "Copy the assembled context to the clipboard",
        When.TRACE_SHOWN,
    ),
    ActionSpec(
        "file.export_whatif",
        "Export &What-if (.whatif.md)\u2026",
        F,
        1,
        None,
        "Save the diff against the pinned baseline as Markdown (JSON and HTML exports include it too)",
        When.BASELINE_PINNED,
    ),
    ActionSpec(
        "file.attach_run",
        "Attach to R&un\u2026",
        F,
        2,
        "Ctrl+Shift+R",
        "Show a real run's workers in the Session panel: choose a project or run folder",
    ),
    ActionSpec(
        "file.attach_log",
        "&Attach to Worker Log\u2026",
        F,
        2,
        "Ctrl+Shift+L",
        "Follow a running worker's JSON-lines event log in the Session panel",
    ),
    ActionSpec("file.detach", "&Detach from Worker Log", F, 2, enabled=When.FOLLOWING),
    ActionSpec(
        "file.worker_logs",
        "Open Worker &Logs\u2026",
        F,
        2,
        None,
        "Show a run's worker logs (logs/workers/worker-<id>.jsonl) as a table in the Worker logs panel",
    ),
    ActionSpec("file.quit", "&Quit", F, 3, Key.Quit),
    ActionSpec("run.rerun", "&Re-run", R, 0, "F5", "Pick up changes on disk and assemble the selected task again"),
    ActionSpec("run.cancel", "&Cancel", R, 0, "Esc", "Stop the running assembly"),
    ActionSpec("run.batch", "Re-run &Batch Pass", R, 0, "Shift+F5", "Recompute every task's total"),
    ActionSpec("run.sweep", "Feature S&weep\u2026", R, 0, "Ctrl+Shift+W", "Every task of a feature at every budget"),
    ActionSpec("run.pin_baseline", "&Pin as Baseline", R, 1, "Ctrl+B", "Compare every later run with this one"),
    ActionSpec("run.clear_baseline", "C&lear Baseline", R, 1, "Ctrl+Shift+B", "Stop comparing", When.BASELINE_PINNED),
    ActionSpec("run.revisions", "Compare Re&visions\u2026", R, 1, "Ctrl+Shift+D", "The task at two git revisions"),
    ActionSpec("run.bisect", "Find the Co&mmit\u2026", R, 1, None, "Which commits of a range changed the task"),
    ActionSpec("run.undo", "&Undo Budget Change", R, 2, Key.Undo, enabled=When.PART, kind=Kind.PART),
    ActionSpec("run.redo", "&Redo Budget Change", R, 2, Key.Redo, enabled=When.PART, kind=Kind.PART),
    ActionSpec("run.reset_budgets", "Reset &Budgets", R, 2, "Ctrl+0", "Back to the project's own settings"),
    ActionSpec(
        "run.save_settings", "&Save Settings to ctxviewer.yaml\u2026", R, 2, "Ctrl+S", "Write the tuned settings"
    ),
    ActionSpec("view.find", "&Find Candidate\u2026", V, 0, Key.Find, "Why was it dropped? Search every candidate"),
    ActionSpec("view.filter_tasks", "Filter &Tasks", V, 0, "Ctrl+L", "Filter the project outline"),
    *(_show_tab(n, name) for n, name in enumerate(TAB_TITLES, start=1)),
    _toggle_panel("outline", "Project"),
    _toggle_panel("budget", "Budget"),
    _toggle_panel("tracker", "Tracker"),
    _toggle_panel("session", "Session"),
    _toggle_panel("window", "Window"),
    _toggle_panel("search", "Why was it dropped?"),
    _toggle_panel("logs", "Worker logs"),
    ActionSpec("view.reset_layout", "Reset &Layout", V, 3, None, "The window's first size, panels and splitters"),
    ActionSpec("help.shortcuts", "&Keyboard Shortcuts", H, 0, Key.HelpContents),
)

#: Every row by its id.
BY_ID: dict[str, ActionSpec] = {spec.id: spec for spec in ACTIONS}
