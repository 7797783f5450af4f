"""The Session panel's feeds: the replay of the current feature, the live log's limits, and picking a log or a run.

See docs/gui.md (Session) and docs/event-log.md.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QFileDialog, QWidget

from ctxviewer.engine.project.loading import Project
from ctxviewer.engine.project.settings import Settings
from ctxviewer.engine.runs.session import SessionReplay, replay_session
from ctxviewer.gui.window.state import Shown
from ctxviewer.gui.worker import Lane

LiveLimits = tuple[float, int, tuple[tuple[str, float], ...]]


class SessionView(Protocol):
    """What the feeds need of the Session panel."""

    def set_replay(self, replay: SessionReplay | None, *, keep_position: bool = False) -> None: ...

    def set_live_limits(
        self, threshold_percent: float, max_tokens: int, zones: Sequence[tuple[str, float]] = ()
    ) -> None: ...

    def follow_log(self, path: str | os.PathLike[str]) -> None: ...


def replay_inputs(settings: Settings) -> tuple[Any, ...]:
    """The settings a session replay depends on."""
    return (
        settings.threshold_percent,
        settings.max_context_tokens,
        settings.zones,
        settings.replay_tool_calls,
        settings.replay_minutes,
    )


class SessionFeeds(QObject):
    """Replays on *lane* for *panel*, and keeps its live log's limits in step with the settings.

    :attr:`feature` is the feature of the replay shown or asked for (None: replay again
    when the next task is shown); :attr:`reset` whether the replay resets after each
    checkpoint.  :attr:`replayed` follows each replay the panel shows; :attr:`failed`
    carries the lane's error, once the panel is cleared.
    """

    replayed = Signal(object)  # SessionReplay
    failed = Signal(str)

    def __init__(self, lane: Lane, panel: SessionView, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.lane = lane
        self.panel = panel
        self.feature: str | None = None
        self.reset = False
        self._keep_position = False
        self._inputs: tuple[Any, ...] = ()
        self._live_limits: LiveLimits | None = None
        self._shown: Shown | None = None
        self._set_values: Callable[[dict[str, Any], str, str], bool] = lambda *_: False
        self._pending: Callable[[], bool] = lambda: False
        self._select: Callable[[str, str], None] = lambda feature, task: None
        lane.finished.connect(self._on_replayed)
        lane.errored.connect(self._on_error)

    def bind(
        self,
        shown: Shown,
        set_values: Callable[[dict[str, Any], str, str], bool],
        pending: Callable[[], bool],
        select: Callable[[str, str], None],
    ) -> None:
        """What the panel's own controls act on: the window shown, the tuner's ``set_values``,
        whether the Budget panel has a change pending, and selecting a task."""
        self._shown, self._set_values, self._pending, self._select = shown, set_values, pending, select

    def update(self, keep_position: bool = False) -> None:
        """Replay the shown feature's tasks with the settings in force (off the GUI thread)."""
        shown = self._shown
        if shown is not None and shown.project is not None and shown.current is not None:
            self.replay(shown.project, shown.current[0], shown.run_settings(), keep_position)

    def on_parameters(self, tool_calls: int, minutes: float, reset: bool) -> None:
        """The panel's tool calls, minutes and reset changed: tune them, and replay again."""
        self.reset = reset
        values = {"replay_tool_calls": tool_calls, "replay_minutes": minutes}
        if not self._set_values(values, "replay tool calls and minutes", "replay parameters not applied"):
            return
        if not self._pending():  # else the tuned settings re-run the task and the replay
            self.update(keep_position=True)

    def on_task(self, task_id: str) -> None:
        """A step of the replay was activated: show its task."""
        if self.feature is not None:
            self._select(self.feature, task_id)

    def replay(self, project: Project, name: str, settings: Settings, keep_position: bool = False) -> None:
        """Replay the feature *name* with *settings* off the GUI thread (a newer request replaces
        an older one); the panel keeps its position in the steps when *keep_position*."""
        self.apply_live_limits(settings)
        self._inputs = replay_inputs(settings)
        feature = project.feature(name)
        reset = self.reset
        self.feature = feature.name
        self._keep_position = keep_position

        def job(cancel: threading.Event, progress: Callable[[str, float], None]) -> SessionReplay:
            return replay_session(project, feature, settings, reset_on_checkpoint=reset)

        self.lane.submit(job)

    def changes_replay(self, settings: Settings) -> bool:
        """Whether *settings* differ from the last replay's in what a replay depends on
        (budgets and shares do not change a replay)."""
        return replay_inputs(settings) != self._inputs

    def apply_live_limits(self, settings: Settings) -> None:
        """Give the live log the tracker limits of *settings* (when they changed: it re-reads the log)."""
        limits = (settings.threshold_percent, settings.max_context_tokens, settings.all_zones)
        if limits != self._live_limits:
            self._live_limits = limits
            self.panel.set_live_limits(*limits)

    def _on_replayed(self, replay: SessionReplay) -> None:
        if replay.feature != self.feature:
            return
        self.panel.set_replay(replay, keep_position=self._keep_position)
        self.replayed.emit(replay)

    def _on_error(self, message: str) -> None:
        self.panel.set_replay(None)
        self.failed.emit(message)


def ask_log_path(parent: QWidget, project: Project | None) -> str:
    """Ask which worker event log to follow (starting in the project's log folder); ``''`` if none."""
    start = str(Path.home())
    if project is not None:
        logs = project.root / ".mahabharatha" / "logs"
        start = str(logs if logs.is_dir() else project.root)
    path, _ = QFileDialog.getOpenFileName(
        parent, "Attach to a worker's event log", start, "Event logs (*.jsonl *.ndjson *.log *.json);;All files (*)"
    )
    return path


#: A worker log as upstream names it (worker ids are numbers): ``worker-3.jsonl``, ``worker-3.jsonl.1``.
_UPSTREAM_LOG = re.compile(r"^worker-\d+\.jsonl(?:\.1)?$")


def is_run_path(path: str | os.PathLike[str]) -> bool:
    """Whether *path* names a real run rather than an event log of ctxviewer's own format.

    A run: a folder, a file in a ``logs/workers`` folder or named as upstream names a
    worker's log (``worker-<number>.jsonl``), or a ``.json`` file (a state file or token
    record).  Any other file (``worker-auth-sessions.jsonl``, ``events.jsonl``) is an event log.
    """
    given = Path(path)
    if given.is_dir():
        return True
    in_workers = given.parent.name == "workers" and given.parent.parent.name == "logs"
    return in_workers or bool(_UPSTREAM_LOG.match(given.name)) or given.suffix == ".json"


def ask_run_path(parent: QWidget, project: Project | None) -> str:
    """Ask for a real run's folder (a project, its ``.mahabharatha``/``.zerg`` folder, or a copy); ``''`` if none."""
    start = str(project.root) if project is not None else str(Path.home())
    return QFileDialog.getExistingDirectory(parent, "Attach to a run (a project or run folder)", start)
