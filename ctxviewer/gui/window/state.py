"""What the window shows, as its parts read it: the project, the task selected, its trace, the settings.

See docs/architecture.md (The window).
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
