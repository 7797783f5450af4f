"""The Sweep view: every task of a feature at every budget of a range, as a heatmap.

The sweep runs on a worker :class:`~ctxviewer.gui.worker.Lane`
(:func:`~ctxviewer.engine.runs.sweep.run_sweep`) with progress and Cancel; one over
:data:`~ctxviewer.engine.runs.sweep.MAX_ASSEMBLIES` is refused before anything runs.  Clicking
a cell emits :attr:`SweepView.openRequested` with its task and settings, for the window to open
it.  :class:`SweepDialog` is the view in a window of its own.  See docs/sweeps.md.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from ctxviewer.engine.analysis.findings import RULE_CUT
from ctxviewer.engine.errors import CtxViewerError, WriteError
from ctxviewer.engine.files.writing import atomic_write
from ctxviewer.engine.project.loading import Project
from ctxviewer.engine.project.settings import Settings
from ctxviewer.engine.runs.batch import batch_targets
from ctxviewer.engine.runs.sweep import (
    Sweep,
    SweepCell,
    check_sweep_size,
    parse_budget_range,
    parse_share_range,
    run_sweep,
)
from ctxviewer.engine.tokens.counting import HEURISTIC
from ctxviewer.gui.widgets.heatmap import HeatCell, HeatmapValue, SweepHeatmap, png_bytes, render_image, svg_bytes
from ctxviewer.gui.worker import Lane, RunState

#: What the colour can show: key -> (menu text, legend title).
METRICS: dict[str, tuple[str, str]] = {
    "share": ("Context share of budget", "context / budget"),
    "tokens": ("Context tokens", "context tokens"),
    "cut": ("Candidates cut for budget", "cut for budget"),
    "rule-cut": ("Matched rule files cut", "rule files cut"),
}
DEFAULT_RANGE = "1000:8000:250"
ALL_FEATURES = "(every feature)"


def _unit(sweep: Sweep) -> str:
    return "estimated tokens" if sweep.tokenizer == HEURISTIC else f"{sweep.tokenizer} tokens"


def cell_tip(sweep: Sweep, cell: SweepCell, title: str) -> str:
    """A cell's numbers in words, for its tooltip."""
    where = f"budget {cell.budget:,}"
    if sweep.share_key and cell.share is not None:
        where += f", {sweep.share_key} {cell.share:g}"
    lines = [f"{cell.task} \u2014 {title} ({cell.feature})", where]
    if cell.error:
        lines.append(f"refused: {cell.error}")
        return "\n".join(lines)
    size = f"context {cell.tokens:,} {_unit(sweep)} = {100 * cell.share_of_budget:.1f}% of the budget"
    if cell.over_budget:
        size += f", over by {cell.tokens - cell.budget:,}"
    lines.append(size)
    lines.append(f"{cell.included:,} candidates in, {cell.cut:,} cut for budget")
    found = [f"{code} {n:,}" for code, n in cell.findings if n]
    lines.append("findings: " + (", ".join(found) if found else "none of the codes counted"))
    lines.append("Click to open this task at this setting")
    return "\n".join(lines)


def heatmap_value(sweep: Sweep, metric: str = "share", share: int = 0) -> HeatmapValue:
    """The heatmap of *sweep*'s cells at share value number *share*, coloured by *metric*."""
    grid = sweep.cells_at(share)
    titles = {(t.feature, t.task): t.title for t in sweep.tasks}
    if metric == "share":

        def level(c: SweepCell) -> float:
            return c.share_of_budget

        low, high = "0%", "100% of budget"
    else:

        def raw(c: SweepCell) -> float:
            return float(c.tokens if metric == "tokens" else c.cut if metric == "cut" else c.count(RULE_CUT))

        top = max((raw(c) for row in grid for c in row if not c.error), default=0.0)

        def level(c: SweepCell) -> float:
            return raw(c) / top if top else 0.0

        low, high = "0", f"{int(top):,}"

    def tip_of(row: int, column: int) -> str:
        c = grid[row][column]
        return cell_tip(sweep, c, titles.get((c.feature, c.task), ""))

    cells = tuple(
        tuple(
            HeatCell(
                level=level(c),
                over=c.over_budget,
                rule_cut=c.count(RULE_CUT) > 0,
                error=bool(c.error),
            )
            for c in row
        )
        for row in grid
    )
    return HeatmapValue(
        rows=tuple(t.task for t in sweep.tasks),
        columns=tuple(f"{b:,}" for b in sweep.budgets),
        cells=cells,
        column_title=f"budget ({_unit(sweep)})",
        legend_title=METRICS.get(metric, METRICS["share"])[1],
        legend_low=low,
        legend_high=high,
        tips=tip_of,
    )


def clean_budget(sweep: Sweep, share: int = 0) -> int | None:
    """The smallest budget at which no task is over budget, refused, or has a matched rule file cut."""
    grid = sweep.cells_at(share)
    for column, budget in enumerate(sweep.budgets):
        if all(not (row[column].over_budget or row[column].error or row[column].count(RULE_CUT)) for row in grid):
            return budget
    return None


def summary(sweep: Sweep, share: int = 0) -> str:
    """One line: the sweep's size and the smallest budget that suits every task."""
    what = f"{len(sweep.tasks):,} tasks \u00d7 {len(sweep.budgets):,} budgets"
    if sweep.share_key:
        what += f" \u00d7 {len(sweep.shares):,} {sweep.share_key} values"
    grid = sweep.cells_at(share)
    over = sum(1 for row in grid for c in row if c.over_budget)
    cut = sum(1 for row in grid for c in row if c.count(RULE_CUT))
    best = clean_budget(sweep, share)
    verdict = (
        f"smallest budget with every task within it and no matched rule file cut: {best:,}"
        if best is not None
        else "no budget here keeps every task within it with no matched rule file cut"
    )
    return f"{what} ({sweep.profile}, {_unit(sweep)}): {over:,} cells over budget, {cut:,} with a rule cut; {verdict}"


class SweepView(QWidget):
    """Controls, progress and the heatmap of one feature sweep (see the module docstring)."""

    #: (feature, task, settings to apply: ``{"budget": N}`` and the share if one was swept).
    openRequested = Signal(str, str, object)
    sweepShown = Signal(object)  # Sweep
    exported = Signal(str, str)  # path, error ('' when it worked)

    def __init__(self, lane: Lane, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.lane = lane
        self.project: Project | None = None
        self.settings_source: Callable[[], Settings] | None = None
        self.sweep: Sweep | None = None

        self.feature = QComboBox(self)
        self.feature.setToolTip("The feature whose tasks are swept")
        self.budgets = QLineEdit(DEFAULT_RANGE, self)
        self.budgets.setToolTip("Budgets START:STOP:STEP (1000:8000:250, 1k:8k:250; STOP included on a step) or one")
        self.budgets.setMaximumWidth(150)
        self.shares = QLineEdit(self)
        self.shares.setPlaceholderText("share: none")
        self.shares.setToolTip("Optionally one share's range too: spec_share=0.3:0.7:0.1 or security_share=...")
        self.shares.setMaximumWidth(200)
        self.metric_box = QComboBox(self)
        for key, (text, _legend) in METRICS.items():
            self.metric_box.addItem(text, key)
        self.metric_box.setToolTip(
            "What the colour shows; over budget (red) and a matched rule cut (amber corner) always"
        )
        self.share_pick = QComboBox(self)
        self.share_pick.setToolTip("The share value whose cells are shown")
        self.share_pick.hide()
        self.run_button = QPushButton("Run Sweep", self)
        self.cancel_button = QPushButton("Cancel", self)
        self.cancel_button.setEnabled(False)
        self.png_button = QPushButton("PNG\u2026", self)
        self.svg_button = QPushButton("SVG\u2026", self)
        for button, fmt in ((self.png_button, "PNG"), (self.svg_button, "SVG")):
            button.setToolTip(f"Export the heatmap as {fmt}")
            button.setEnabled(False)
        self.progress = QProgressBar(self)
        self.progress.setRange(0, 100)
        self.progress.setMaximumWidth(140)
        self.progress.setTextVisible(False)
        self.progress.hide()
        self.state = QLabel("", self)
        self.state.setTextFormat(Qt.TextFormat.PlainText)
        self.message = QLabel("", self)
        self.message.setTextFormat(Qt.TextFormat.PlainText)
        self.message.setWordWrap(True)
        self.heatmap = SweepHeatmap(self)
        self.scroller = QScrollArea(self)
        self.scroller.setWidgetResizable(True)
        self.scroller.setWidget(self.heatmap)

        bar = QHBoxLayout()
        for label, widget in (
            ("Feature", self.feature),
            ("Budgets", self.budgets),
            ("Share", self.shares),
            ("Colour", self.metric_box),
        ):
            bar.addWidget(QLabel(label, self))
            bar.addWidget(widget)
        bar.addWidget(self.share_pick)
        bar.addWidget(self.run_button)
        bar.addWidget(self.cancel_button)
        bar.addWidget(self.progress)
        bar.addWidget(self.state)
        bar.addStretch(1)
        bar.addWidget(QLabel("Export", self))
        bar.addWidget(self.png_button)
        bar.addWidget(self.svg_button)
        layout = QVBoxLayout(self)
        layout.addLayout(bar)
        layout.addWidget(self.message)
        layout.addWidget(self.scroller, 1)

        self.run_button.clicked.connect(self.run)
        self.budgets.returnPressed.connect(self.run)
        self.shares.returnPressed.connect(self.run)
        self.cancel_button.clicked.connect(self.cancel)
        self.metric_box.currentIndexChanged.connect(self._show)
        self.share_pick.currentIndexChanged.connect(self._show)
        self.heatmap.cellClicked.connect(self._on_cell)
        self.png_button.clicked.connect(lambda: self._export_dialog("png"))
        self.svg_button.clicked.connect(lambda: self._export_dialog("svg"))
        lane.progress.connect(self._on_progress)
        lane.finished.connect(self._on_finished)
        lane.errored.connect(self._on_error)
        lane.stateChanged.connect(self._on_state)

    # -- what to sweep -------------------------------------------------------------------------------

    def set_target(self, project: Project, feature: str | None, settings: Settings | Callable[[], Settings]) -> None:
        """Sweep *project*'s *feature* (None: every feature) from *settings*: a value, or a
        function the view calls at each run (the window's settings in force then).

        The feature list is refilled and *feature* chosen only when the project changes, so
        a choice made here stays while the same project is open.
        """
        self.settings_source = settings if callable(settings) else (lambda: settings)
        if project is self.project:
            return
        kept = self.chosen_feature() if self.project is not None else None
        feature = feature if feature is not None else kept
        self.lane.cancel()
        self.sweep = None
        self.heatmap.setValue(None)
        self.message.setText("")
        for button in (self.png_button, self.svg_button):
            button.setEnabled(False)
        self.project = project
        names = [f.name for f in project.features]
        self.feature.blockSignals(True)
        self.feature.clear()
        self.feature.addItems(names)
        self.feature.addItem(ALL_FEATURES)
        self.feature.setCurrentIndex(names.index(feature) if feature in names else len(names))
        self.feature.blockSignals(False)

    def chosen_feature(self) -> str | None:
        text = self.feature.currentText()
        return None if text == ALL_FEATURES or not text else text

    def run(self) -> None:
        """Start the sweep the controls describe (a bad range is said here, nothing runs)."""
        project, source = self.project, self.settings_source
        if project is None or source is None:
            self.message.setText("Open a project first.")
            return
        feature = self.chosen_feature()
        try:
            budgets = parse_budget_range(self.budgets.text(), "budgets")
            share_key, shares = (
                parse_share_range(self.shares.text(), "share") if self.shares.text().strip() else ("", ())
            )
            # Too big a sweep is refused here, as the engine would refuse it, before the lane starts.
            tasks = len(batch_targets(project, feature))
            check_sweep_size(tasks, len(budgets), share_key, len(shares), feature=feature)
        except CtxViewerError as exc:
            self.message.setText(str(exc))
            return
        settings = source()
        self.message.setText("")

        def job(cancel: threading.Event, progress: Callable[[str, float], None]) -> Sweep:
            return run_sweep(
                project,
                budgets,
                feature=feature,
                settings=settings,
                share_key=share_key,
                shares=shares,
                cancel=cancel,
                progress=progress,
            )

        self.progress.setValue(0)
        self.progress.show()
        self.lane.submit(job)

    def cancel(self) -> None:
        self.lane.cancel()

    # -- results ---------------------------------------------------------------------------------

    def metric_key(self) -> str:
        return str(self.metric_box.currentData())

    def show_sweep(self, sweep: Sweep) -> None:
        """Show *sweep* (what the lane returns; tests may hand one in)."""
        self.sweep = sweep
        self.share_pick.blockSignals(True)
        self.share_pick.clear()
        if sweep.share_key:
            for value in sweep.shares:
                self.share_pick.addItem(f"{sweep.share_key} {value:g}")
        self.share_pick.setVisible(bool(sweep.share_key))
        self.share_pick.blockSignals(False)
        for button in (self.png_button, self.svg_button):
            button.setEnabled(True)
        self._show()
        self.sweepShown.emit(sweep)

    def _share_index(self) -> int:
        return max(0, self.share_pick.currentIndex())

    def _show(self) -> None:
        sweep = self.sweep
        if sweep is None:
            return
        share = self._share_index()
        self.heatmap.setValue(heatmap_value(sweep, self.metric_key(), share))
        self.message.setText(summary(sweep, share))

    def _on_cell(self, row: int, column: int) -> None:
        sweep = self.sweep
        if sweep is None:
            return
        cell = sweep.cell(row, column, self._share_index())
        values: dict[str, object] = {"budget": cell.budget}
        if sweep.share_key and cell.share is not None:
            values[sweep.share_key] = cell.share
        self.openRequested.emit(cell.feature, cell.task, values)

    def _on_progress(self, stage: str, fraction: float) -> None:
        self.progress.setValue(int(100 * fraction))
        self.state.setText(f"swept {stage}")

    def _on_finished(self, sweep: Sweep) -> None:
        self.progress.hide()
        self.show_sweep(sweep)

    def _on_error(self, message: str) -> None:
        self.progress.hide()
        self.message.setText(f"sweep failed: {message}")

    def _on_state(self, state: RunState) -> None:
        busy = state in (RunState.PENDING, RunState.RUNNING)
        self.cancel_button.setEnabled(busy)
        self.run_button.setEnabled(not busy)
        if not busy:
            self.progress.hide()
        self.state.setText({RunState.RUNNING: "running", RunState.PENDING: "starting"}.get(state, state.value))

    # -- export ---------------------------------------------------------------------------------

    def export_size(self) -> QSize:
        """The picture's size: the heatmap as laid out on screen (all of it, scrolled or not)."""
        return QSize(max(640, self.heatmap.width()), max(360, self.heatmap.height()))

    def export_to(self, path: str, fmt: str) -> str:
        """Write the heatmap as *fmt* (``png`` or ``svg``) to *path*; the error ('' when it worked)."""
        value = self.heatmap.value()
        if value is None:
            return "nothing to export: run a sweep first"
        size, palette, font = self.export_size(), self.heatmap.palette(), self.heatmap.font()
        title = f"ctxviewer sweep: {self.sweep.feature or 'every feature'}" if self.sweep else "ctxviewer sweep"
        data = (
            png_bytes(render_image(value, size, palette, font))
            if fmt == "png"
            else svg_bytes(value, size, palette, title, font)
        )
        error = ""
        try:
            atomic_write(path, data)
        except WriteError as exc:
            error = str(exc)
        self.message.setText(error or f"Wrote {path}")
        self.exported.emit(path, error)
        return error

    def _export_dialog(self, fmt: str) -> None:
        start = str(Path.home() / f"sweep.{fmt}")
        pattern = "PNG image (*.png)" if fmt == "png" else "SVG image (*.svg)"
        path, _ = QFileDialog.getSaveFileName(self, f"Export the heatmap as {fmt.upper()}", start, pattern)
        if path:
            self.export_to(path, fmt)


class SweepDialog(QDialog):
    """The Sweep view in a window of its own, beside the inspector (not modal)."""

    def __init__(self, lane: Lane, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Feature Sweep \u2014 ctxviewer")
        self.setModal(False)
        self.view = SweepView(lane, self)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.view)
        self.resize(1180, 680)
