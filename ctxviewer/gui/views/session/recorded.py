"""The Recorded page: each recorded task's token record beside what the detected version reproduces.

:class:`RecordedPage` shows a :class:`~ctxviewer.engine.runs.recorded.RecordedComparison`
(computed by the window off the GUI thread): a row per recorded task, and the chosen task's
sections, recorded beside reproduced, each that differs with its likely cause.  A
double-click on a task asks for it (``taskRequested``).  See docs/run-files.md#in-the-window.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QBrush
from PySide6.QtWidgets import QAbstractItemView, QLabel, QSplitter, QTableView, QVBoxLayout, QWidget

from ctxviewer.engine.runs.recorded import RecordedComparison, SectionCount, TaskComparison
from ctxviewer.gui.widgets.empty import NO_RUN
from ctxviewer.gui.widgets.models import Column, RecordModel, status_colour
from ctxviewer.gui.widgets.table_actions import install_table_actions

#: What the page says before any comparison.
NOT_COMPARED = (
    "No token records compared yet: each recorded task is reproduced once the run's records are read "
    "and a project is open."
)


def _count(n: int | None) -> str:
    return "-" if n is None else f"{n:,}"


def _difference(s: SectionCount) -> str:
    if s.recorded is None or s.reproduced is None:
        return ""
    diff = s.reproduced - s.recorded
    return f"{diff:+,}".replace("-", "\u2212") if diff else "0"


def task_verdict(task: TaskComparison) -> str:
    """``same``, ``differs`` or ``not reproduced``."""
    if not task.reproduced:
        return "not reproduced"
    return "same" if task.matches else "differs"


def task_columns() -> list[Column]:
    return [
        Column("worker", lambda t: f"W{t.worker_id}", whole=True),
        Column(
            "task",
            lambda t: t.task_id,
            whole=True,
            detail=lambda t: f"reproduced in feature {t.feature}" if t.feature else "",
        ),
        Column("recorded", lambda t: _count(t.recorded_total), key=lambda t: t.recorded_total, numeric=True),
        Column("reproduced", lambda t: _count(t.reproduced_total), key=lambda t: t.reproduced_total, numeric=True),
        Column("", task_verdict, detail=lambda t: t.note, tip="Every section the same, or not"),
    ]


def section_columns() -> list[Column]:
    return [
        Column("section", lambda s: s.section, whole=True, tip="Upstream's component name"),
        Column("recorded", lambda s: _count(s.recorded), key=lambda s: s.recorded, numeric=True),
        Column("reproduced", lambda s: _count(s.reproduced), key=lambda s: s.reproduced, numeric=True),
        Column("\u0394", _difference, numeric=True, tip="Reproduced minus recorded"),
        Column(
            "likely cause",
            lambda s: s.cause or s.verdict,
            detail=lambda s: s.why,
            tip="version: another version wrote the record; files changed since: a file the section reads "
            "changed after the record; settings: the budget or the worker's switches the files do not hold",
        ),
    ]


class MarkedModel(RecordModel):
    """A record model whose rows that are not the same are written in the warning colour."""

    def __init__(self, columns: list[Column], differs: Any, parent: Any = None) -> None:
        super().__init__(columns, parent)
        self._differs = differs

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role == Qt.ItemDataRole.ForegroundRole and index.isValid() and index.row() < len(self.rows()):
            if self._differs(self.rows()[index.row()]):
                return QBrush(status_colour("failed"))
            return None
        return super().data(index, role)


def _table(model: RecordModel, parent: QWidget) -> QTableView:
    table = QTableView(parent)
    table.setModel(model)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setAlternatingRowColors(True)
    table.setWordWrap(False)
    table.verticalHeader().setVisible(False)
    table.verticalHeader().setDefaultSectionSize(table.fontMetrics().height() + 6)
    table.horizontalHeader().setStretchLastSection(True)
    table.horizontalHeader().setHighlightSections(False)
    install_table_actions(table)
    return table


class RecordedPage(QWidget):
    """The recorded tasks of a run beside their reproduction; the chosen one's sections under them."""

    taskRequested = Signal(object)  # TaskComparison

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._comparison: RecordedComparison | None = None
        self.header = QLabel(NO_RUN, self)
        self.header.setTextFormat(Qt.TextFormat.PlainText)  # paths and reasons from the project
        self.header.setWordWrap(True)
        self.header.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.tasks_model = MarkedModel(task_columns(), lambda t: t.reproduced and not t.matches, self)
        self.tasks = _table(self.tasks_model, self)
        self.tasks.setToolTip("Double-click a task to open it at its recorded settings")
        self.tasks.doubleClicked.connect(self._on_activated)
        self.tasks.selectionModel().currentRowChanged.connect(lambda current, _previous: self._show_task(current))
        self.sections_model = MarkedModel(section_columns(), lambda s: bool(s.cause), self)
        self.sections = _table(self.sections_model, self)
        self.note = QLabel(self)
        self.note.setTextFormat(Qt.TextFormat.PlainText)
        self.note.setWordWrap(True)
        self.note.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        splitter = QSplitter(Qt.Orientation.Vertical, self)
        splitter.setChildrenCollapsible(False)
        splitter.addWidget(self.tasks)
        lower = QWidget(self)
        lower_layout = QVBoxLayout(lower)
        lower_layout.setContentsMargins(0, 0, 0, 0)
        lower_layout.addWidget(self.sections, 1)
        lower_layout.addWidget(self.note)
        splitter.addWidget(lower)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 0)
        layout.addWidget(self.header)
        layout.addWidget(splitter, 1)

    def comparison(self) -> RecordedComparison | None:
        return self._comparison

    def set_message(self, text: str) -> None:
        """No comparison to show: say why."""
        self._comparison = None
        self.header.setText(text)
        self.header.setToolTip("")
        self.tasks_model.set_rows(())
        self.sections_model.set_rows(())
        self.note.setText("")

    def set_comparison(self, comparison: RecordedComparison) -> None:
        """Show *comparison*; the task chosen stays chosen while it is there."""
        chosen = self.current_task()
        key = None if chosen is None else (chosen.file, chosen.task_id)
        self._comparison = comparison
        tasks = comparison.tasks
        self.header.setText(
            f"{len(tasks):,} recorded task{'s' if len(tasks) != 1 else ''}: {comparison.same:,} the same, "
            f"{comparison.differ:,} different, {comparison.not_reproduced:,} not reproduced "
            f"(reproduced with {comparison.profile or 'nothing'}). Double-click a task to open it at its "
            "recorded settings."
        )
        self.header.setToolTip(f"Reproduced in {comparison.project}\n{comparison.reason}")
        self.tasks_model.set_rows(tasks)
        for column in range(self.tasks_model.columnCount() - 1):
            self.tasks.resizeColumnToContents(column)
        row = next((n for n, t in enumerate(tasks) if (t.file, t.task_id) == key), None)
        if row is None:  # the first that differs, else the first
            row = next((n for n, t in enumerate(tasks) if t.reproduced and not t.matches), 0 if tasks else None)
        if row is None:
            self._show_task(QModelIndex())
        else:
            self.tasks.selectRow(row)
            self._show_task(self.tasks_model.index(row, 0))

    def current_task(self) -> TaskComparison | None:
        index = self.tasks.currentIndex()
        rows = self.tasks_model.rows()
        return rows[index.row()] if index.isValid() and index.row() < len(rows) else None

    def select_task(self, task_id: str, worker_id: str | None = None) -> bool:
        """Choose the row of *task_id* (of *worker_id* when given); False when there is none."""
        row = self.tasks_model.row_of(
            lambda t: t.task_id == task_id and (worker_id is None or t.worker_id == worker_id)
        )
        if row is None:
            return False
        self.tasks.selectRow(row)
        return True

    def _show_task(self, index: QModelIndex | QPersistentModelIndex) -> None:
        rows = self.tasks_model.rows()
        task = rows[index.row()] if index.isValid() and index.row() < len(rows) else None
        self.sections_model.set_rows(task.sections if task is not None else ())
        for column in range(self.sections_model.columnCount() - 1):
            self.sections.resizeColumnToContents(column)
        if task is None:
            self.note.setText("")
            return
        lines = [f"{task.task_id} (W{task.worker_id}, {task.file}): {task_verdict(task)}"]
        lines += [f"{s.section}: {s.cause}: {s.why}" for s in task.sections if s.cause]
        if task.note:
            lines.append(task.note)
        self.note.setText("\n".join(lines))

    def _on_activated(self, index: QModelIndex) -> None:
        rows = self.tasks_model.rows()
        if index.isValid() and index.row() < len(rows):
            self.taskRequested.emit(rows[index.row()])
