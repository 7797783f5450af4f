"""The Tracker panel: the worker's ContextTracker after this task against the checkpoint threshold.

It takes a whole :class:`~ctxviewer.engine.trace.model.Trace` (or ``None``) and only reads it.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QFormLayout,
    QLabel,
    QVBoxLayout,
    QWidget,
)

from ctxviewer.engine.trace.model import Trace
from ctxviewer.gui.widgets.charts import Gauge, GaugeValue
from ctxviewer.gui.widgets.models import (
    tracked_file_columns,
)
from ctxviewer.gui.widgets.tables import RecordTable

TASK_BUDGET_TIP = (
    "The tracker's own share of the budget for one task: the total budget divided by the number "
    "of the task's files, kept between 500 and the total. The tracker reports it; the context is "
    "sized by its sections' budgets, not by this figure."
)


def task_budget_tip(budget: int, value: int) -> str:
    """The tracker's "budget for task", worked out in words for this run."""
    return (
        f"{value:,} tokens: the tracker's own share of the {budget:,}-token budget for one task "
        f"(the budget divided by the number of the task's files, kept between 500 and {budget:,}). "
        "The tracker reports it; the context is sized by its sections' budgets, not by this figure."
    )


class TrackerPanel(QWidget):
    """The checkpoint gauge and the tracker's figures."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.gauge = Gauge(self)
        self.gauge.setToolTip(
            "The tracker's estimated usage of the maximum context; the worker checkpoints when it reaches the threshold"
        )
        form = QFormLayout()
        form.setLabelAlignment(Qt.AlignmentFlag.AlignLeft)
        self.fields: dict[str, QLabel] = {}
        for key, label, tip in (
            (
                "estimated",
                "Estimated",
                "Tokens the tracker estimates the worker has used: task files read and tasks run",
            ),
            ("maximum", "Max context", "The model context size the tracker measures against"),
            ("threshold", "Checkpoint at", "Usage percentage at which the worker must checkpoint"),
            ("usage", "Usage", "Estimated / max context"),
            ("headroom", "Until checkpoint", "Tokens left before the threshold is reached"),
            ("task_budget", "Budget for task", TASK_BUDGET_TIP),
            ("files", "Files read", "Task files (read and modify) that exist and were counted"),
            ("tasks", "Tasks executed", "Tasks the tracker counted in this single-task view"),
        ):
            value = QLabel("\u2014", self)
            value.setToolTip(tip)
            value.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            name = QLabel(label, self)
            name.setToolTip(tip)
            form.addRow(name, value)
            self.fields[key] = value
        self.files = RecordTable(tracked_file_columns(), None, statuses=False, noun="files", parent=self)
        self.files.filter.hide()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        self.gauge.setMinimumHeight(190)
        layout.addWidget(self.gauge)
        layout.addLayout(form)
        layout.addWidget(self.files, 1)

    def set_trace(self, trace: Trace | None, animate: bool = False) -> None:
        if trace is None:
            self.gauge.setValue(None)
            for value in self.fields.values():
                value.setText("\u2014")
            self.files.set_rows([])
            return
        t = trace.tracker
        self.gauge.setValue(GaugeValue.from_tracker(t), animate=animate)
        limit = int(t.max_tokens * t.threshold_percent / 100)
        self.fields["estimated"].setText(f"{t.estimated_tokens:,} tokens")
        self.fields["maximum"].setText(f"{t.max_tokens:,} tokens")
        self.fields["threshold"].setText(f"{t.threshold_percent:g}% ({limit:,} tokens)")
        self.fields["usage"].setText(
            f"{t.usage_percent:.1f}%" + (" \u2014 over, checkpoint" if t.is_over_threshold else "")
        )
        self.fields["headroom"].setText(f"{max(0, limit - t.estimated_tokens):,} tokens")
        self.fields["task_budget"].setText(f"{t.budget_for_task:,} tokens")
        self.fields["task_budget"].setToolTip(task_budget_tip(trace.budget, t.budget_for_task))
        self.fields["files"].setText(str(t.files_read))
        self.fields["tasks"].setText(str(t.tasks_executed))
        self.files.set_rows(t.files)
        self.files.view.resizeColumnsToContents()
