"""The inspector window, in parts: ``MainWindow`` (:mod:`.main`) wires them and holds the actions.

:mod:`.tabs` the result tabs, :mod:`.docks` the docked panels, :mod:`.header` the task
header, findings line and budget summary, :mod:`.runs` the assembly and background-pass
requests, :mod:`.session` the replay and live-log feeds, :mod:`.project` opening and
watching a project, :mod:`.export` the exports, :mod:`.tuning` saving tuned settings to
ctxviewer.yaml, :mod:`.persistence` what is kept between sessions and :mod:`.sweep` the
Feature Sweep window.
``from ctxviewer.gui.window import MainWindow`` is the way in; the other names here are
what tests and tools use.
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
