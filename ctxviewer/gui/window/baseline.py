"""The pinned what-if baseline and the shown run's diff against it.

See docs/gui.md (What-if).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Signal

from ctxviewer.engine.analysis.whatif import TraceDiff, diff_traces
from ctxviewer.engine.trace.model import Trace
from ctxviewer.gui.window.state import Shown
from ctxviewer.gui.window.status import StatusLine
from ctxviewer.gui.window.tabs import ResultTabs

#: What the What-if tab compares with until a run is pinned.
OWN_SETTINGS = "the project's own settings"


class Baseline(QObject):
    """The pinned run (:attr:`trace`, None when none is) and the shown run's :attr:`diff` against it,
    shown in the What-if tab of *tabs*.  :attr:`pinned` says when one is pinned or cleared.

    A candidate asked for by id (from the What-if tab, the context) may be only in the
    baseline: :meth:`go_to_item` says so rather than showing nothing.
    """

    pinned = Signal(bool)

    def __init__(self, shown: Shown, tabs: ResultTabs, status: StatusLine, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.shown = shown
        self.tabs = tabs
        self.status = status
        self.trace: Trace | None = None
        self.diff: TraceDiff | None = None
        tabs.whatif.itemActivated.connect(self.go_to_item)
        tabs.context.showInTable.connect(self.go_to_item)

    def label(self) -> str:
        return self.trace.task_id if self.trace is not None else ""

    def commands(self) -> dict[str, Callable[[], object]]:
        """The Run menu's baseline commands, by action id."""
        return {"run.pin_baseline": self.pin, "run.clear_baseline": self.clear}

    def pin(self) -> None:
        """Pin the shown run: every later run is compared with it in the What-if tab."""
        trace = self.shown.trace
        if trace is None:
            self.status.say("Nothing to pin yet", 4000)
            return
        self.trace = trace
        self.diff = diff_traces(trace, trace)
        self.tabs.show_diff(self.diff, self.label())
        self.pinned.emit(True)
        self.tabs.mark_baseline(True)
        self.status.say(f"Pinned {self.label()} as the baseline", 5000)

    def clear(self) -> None:
        self.trace = None
        self.diff = None
        self.tabs.show_diff(None)
        self.pinned.emit(False)
        self.tabs.mark_baseline(False)

    def compare(self, trace: Trace, diff: TraceDiff | None) -> None:
        """Show *trace* against the baseline: *diff*, worked out with the run, unless the baseline
        was pinned after the run was asked for.  With none pinned, *diff* is against the task's
        run at the project's own settings, and the What-if tab says so."""
        if self.trace is None:
            self.diff = None
            self.tabs.show_diff(diff, OWN_SETTINGS if diff is not None else "", own=True)
            return
        if diff is None or diff.baseline is not self.trace:
            diff = diff_traces(self.trace, trace)
        self.diff = diff
        self.tabs.show_diff(self.diff, self.label())

    def keep_for(self, root: str) -> None:
        """A project at *root* opened: a baseline from another project compares nothing useful."""
        if self.trace is not None and self.trace.project != root:
            self.clear()

    def go_to_item(self, item_id: str) -> None:
        """Show the candidate *item_id* in its table (one only in the baseline is said in words)."""
        self.tabs.go_to_item_id(item_id, self.trace)
