"""What the window shows, as its parts read it: the project, the task selected, its trace, the settings.

The window is the one :class:`Shown`; a part is given it rather than the window, so it reads
these four and nothing else.  See docs/gui.md (The window and its parts).
"""

from __future__ import annotations

from typing import Protocol

from ctxviewer.engine.project.loading import Project
from ctxviewer.engine.project.settings import Settings
from ctxviewer.engine.trace.model import Trace


class Shown(Protocol):
    """The open project, the (feature, task) selected, the trace shown and the settings runs use."""

    @property
    def project(self) -> Project | None: ...

    @property
    def current(self) -> tuple[str, str] | None: ...

    @property
    def trace(self) -> Trace | None: ...

    def run_settings(self) -> Settings: ...
