"""The window's menus and their actions: File, Run, View and Help, with their shortcuts.

:func:`build_menus` makes every action on the window (so its shortcut works anywhere in it)
and connects it to the window's own methods; the few actions the window enables, disables or
fills later come back in :class:`Menus`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMainWindow, QMenu

from ctxviewer.gui.window.tabs import TABS

if TYPE_CHECKING:
    from ctxviewer.gui.window.main import MainWindow


@dataclass(frozen=True)
class Menus:
    """The actions and menu the window changes after building them."""

    recent: QMenu
    exports: list[QAction]
    whatif_export: QAction
    detach: QAction
    clear_baseline: QAction
    undo: QAction
    redo: QAction


def add_action(
    window: QMainWindow, menu: QMenu, text: str, slot: Callable[[], Any], shortcut: Any = None, tip: str = ""
) -> QAction:
    """An action in *menu* (and on *window*, so its shortcut works wherever the focus is)."""
    action = QAction(text, window)
    if shortcut is not None:
        action.setShortcut(QKeySequence(shortcut))
    if tip:
        action.setStatusTip(tip)
        action.setToolTip(tip)
    action.triggered.connect(lambda _checked=False: slot())
    menu.addAction(action)
    window.addAction(action)
    return action


def build_menus(w: MainWindow) -> Menus:
    """Every menu of *w*, each action wired to *w*'s methods."""
    add = functools.partial(add_action, w)
    bar = w.menuBar()
    file = bar.addMenu("&File")
    add(file, "&Open Folder\u2026", w.open_dialog, QKeySequence.StandardKey.Open, "Open a project folder")
    recent = file.addMenu("Open &Recent")
    file.addSeparator()
    exports = [
        add(
            file,
            "&Export Context (.md)\u2026",
            lambda: w.export_dialog("markdown"),
            "Ctrl+E",
            "Save exactly the assembled context",
        ),
        add(
            file,
            "Export &Trace (.json)\u2026",
            lambda: w.export_dialog("json"),
            "Ctrl+Shift+E",
            "Save the full decision trace as JSON",
        ),
        add(
            file,
            "Export &HTML Report\u2026",
            lambda: w.export_dialog("html"),
            "Ctrl+Alt+E",
            "Save a self-contained report that opens in any browser",
        ),
        add(file, "&Copy Context", w.copy_context, "Ctrl+Shift+C", "Copy the assembled context to the clipboard"),
    ]
    whatif_export = add(
        file,
        "Export &What-if (.whatif.md)\u2026",
        lambda: w.export_dialog("whatif-md"),
        None,
        "Save the diff against the pinned baseline as Markdown (JSON and HTML exports include it too)",
    )
    whatif_export.setEnabled(False)
    file.addSeparator()
    add(
        file,
        "Attach to R&un\u2026",
        w.follow_run_dialog,
        "Ctrl+Shift+R",
        "Show a real run's workers in the Session panel: choose a project or run folder",
    )
    add(
        file,
        "&Attach to Worker Log\u2026",
        w.follow_dialog,
        "Ctrl+Shift+L",
        "Follow a running worker's JSON-lines event log in the Session panel",
    )
    detach = add(file, "&Detach from Worker Log", w.stop_following)
    detach.setEnabled(False)
    add(
        file,
        "Open Worker &Logs\u2026",
        w.logs_dialog,
        None,
        "Show a run's worker logs (logs/workers/worker-<id>.jsonl) as a table in the Worker logs panel",
    )
    file.addSeparator()
    add(file, "&Quit", w.close, QKeySequence.StandardKey.Quit)

    run = bar.addMenu("&Run")
    add(run, "&Re-run", w.refresh, "F5", "Pick up changes on disk and assemble the selected task again")
    add(run, "&Cancel", w.cancel_run, "Esc", "Stop the running assembly")
    add(run, "Re-run &Batch Pass", w.start_batch, "Shift+F5", "Recompute every task's total")
    add(run, "Feature S&weep\u2026", w.show_sweep, "Ctrl+Shift+W", "Every task of a feature at every budget")
    run.addSeparator()
    add(run, "&Pin as Baseline", w.pin_baseline, "Ctrl+B", "Compare every later run with this one")
    clear_baseline = add(run, "C&lear Baseline", w.clear_baseline, "Ctrl+Shift+B", "Stop comparing")
    clear_baseline.setEnabled(False)
    add(run, "Compare Re&visions\u2026", w.show_revision_diff, "Ctrl+Shift+D", "The task at two git revisions")
    run.addSeparator()
    undo = w.budget.undo_stack.createUndoAction(w, "&Undo Budget Change")
    undo.setShortcut(QKeySequence.StandardKey.Undo)
    redo = w.budget.undo_stack.createRedoAction(w, "&Redo Budget Change")
    redo.setShortcut(QKeySequence.StandardKey.Redo)
    for action in (undo, redo):
        action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        run.addAction(action)
    add(run, "Reset &Budgets", w.budget.reset, "Ctrl+0", "Back to the project's own settings")
    add(run, "&Save Settings to ctxviewer.yaml\u2026", w.save_settings, "Ctrl+S", "Write the tuned settings")

    view = bar.addMenu("&View")
    add(
        view,
        "&Find Candidate\u2026",
        w.focus_search,
        QKeySequence.StandardKey.Find,
        "Why was it dropped? Search every candidate",
    )
    add(view, "Filter &Tasks", w.focus_outline, "Ctrl+L", "Filter the project outline")
    view.addSeparator()
    for n, name in enumerate(TABS, start=1):
        key = f"Ctrl+{n}" if n <= 9 else None  # Ctrl+0 resets the budgets
        add(view, f"Show {w.tabs.tabText(n - 1)}", functools.partial(w.show_tab, name), key)
    view.addSeparator()
    for dock in w.docks.toggle_docks():
        view.addAction(dock.toggleViewAction())
    help_menu = bar.addMenu("&Help")
    add(help_menu, "&Keyboard Shortcuts", w.show_shortcuts, QKeySequence.StandardKey.HelpContents)
    return Menus(recent, exports, whatif_export, detach, clear_baseline, undo, redo)
