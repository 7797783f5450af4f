"""The inspector window, in parts: ``MainWindow`` (:mod:`.main`) makes them and wires them.

``from ctxviewer.gui.window import MainWindow`` is the way in; the other names here are what
tests and tools use.  The parts: docs/architecture.md (The window).
"""

from ctxviewer.gui.window.docks import search_dock_height
from ctxviewer.gui.window.main import MainWindow
from ctxviewer.gui.window.persistence import MAX_RECENT, OPENING_KEY
from ctxviewer.gui.window.project import MAX_WATCHED, project_watch, resolve_target
from ctxviewer.gui.window.runs import Assembled
from ctxviewer.gui.window.tabs import TABS

__all__ = [
    "MAX_RECENT",
    "MAX_WATCHED",
    "OPENING_KEY",
    "TABS",
    "Assembled",
    "MainWindow",
    "project_watch",
    "resolve_target",
    "search_dock_height",
]
