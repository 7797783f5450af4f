"""The findings the window lists: the shown task's, its feature's from the background pass, and going to one.

See docs/gui.md (Findings) and docs/findings.md.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, QTimer, Signal

from ctxviewer.engine.trace.model import Trace
from ctxviewer.gui.views.findings_view import FindingRow
from ctxviewer.gui.window.runs import BatchPass, feature_findings
from ctxviewer.gui.window.state import Shown
from ctxviewer.gui.window.tabs import ResultTabs

#: The whole feature's findings list is refilled at most this often during the background pass.
FEATURE_FINDINGS_MS = 500


class FindingsFeed(QObject):
    """Fills the Findings tab of *tabs*: the shown task's findings (:attr:`rows`) and its feature's,
    read from the background pass *batch*'s totals as they come in.

    Going to a finding of another task asks for that task (:attr:`taskRequested`) and goes to
    the finding once it is shown; a finding's candidate is asked for by id (:attr:`itemRequested`).
    """

    taskRequested = Signal(str, str)  # feature, task
    itemRequested = Signal(str)  # item id

    def __init__(self, shown: Shown, tabs: ResultTabs, batch: BatchPass, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.shown = shown
        self.tabs = tabs
        self.totals = batch.totals
        self.rows: tuple[FindingRow, ...] = ()
        #: A finding of another task, to go to once that task is shown.
        self._pending: FindingRow | None = None
        tabs.findings.findingActivated.connect(self.go_to)
        tabs.findings.whole_feature.toggled.connect(self._on_whole_feature)
        #: Refreshes the whole feature's findings list while the background pass fills it.
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(FEATURE_FINDINGS_MS)
        self.timer.timeout.connect(self.update_feature)
        batch.totalsArrived.connect(self.on_totals)
        batch.finished.connect(self.update_feature)

    def show_task(self, trace: Trace, rows: tuple[FindingRow, ...]) -> None:
        """*trace*'s findings are *rows*: list them (and go to the finding that asked for this task)."""
        self.rows = rows
        self.tabs.owe("findings", lambda: self._fill(trace, rows))
        pending, self._pending = self._pending, None
        if pending is not None and (pending.finding.feature, pending.task) == (trace.feature, trace.task_id):
            self.go_to(pending)

    def _fill(self, trace: Trace, rows: tuple[FindingRow, ...]) -> None:
        findings = self.tabs.findings
        findings.set_task(trace.feature, trace.task_id, rows)
        findings.set_feature(*self.feature_findings(trace.feature))

    def feature_findings(self, feature: str) -> tuple[tuple[FindingRow, ...], int]:
        """Every task's findings of *feature* from the background pass, in task order, and the
        number of tasks the pass has not reached yet."""
        return feature_findings(self.shown.project, feature, self.totals)

    def update_feature(self) -> None:
        current = self.shown.current
        if current is not None:
            self.tabs.findings.set_feature(*self.feature_findings(current[0]))

    def on_totals(self, _totals: object = None) -> None:
        """The background pass brought new totals: refill the feature's list if it is shown."""
        if self.tabs.current_tab() == "findings" and self.tabs.findings.whole_feature.isChecked():
            self.timer.start()  # at most twice a second while the pass runs

    def _on_whole_feature(self, on: bool) -> None:
        if on:
            self.update_feature()

    def show(self, feature: bool = False) -> None:
        """Open the Findings tab on this task's findings (or the whole feature's)."""
        self.tabs.findings.show_feature(feature)
        self.tabs.show_tab("findings")

    def go_to(self, row: FindingRow) -> None:
        """Show what *row* is about: its item in its table, else its section in the context.

        A finding of another task selects that task first and goes there once it is shown.
        """
        finding = row.finding
        trace = self.shown.trace
        if trace is None or (finding.feature, finding.task) != (trace.feature, trace.task_id):
            self._pending = row
            self.taskRequested.emit(finding.feature, finding.task)
            return
        if finding.item and trace.item(finding.item) is not None:
            self.itemRequested.emit(finding.item)
        elif finding.section:
            self.tabs.jump_to_section(finding.section)
