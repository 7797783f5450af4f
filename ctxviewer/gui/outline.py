"""The project outline: features and their tasks, with batch totals as they arrive.

A two-column tree (task, tokens).  Feature folders without a task graph, or whose
graph cannot be read, are listed greyed with the reason as a tooltip.  Once the
background batch pass has assembled a task, its total tokens appear beside it, with
an over-budget mark when the context exceeds the budget.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QModelIndex, QSortFilterProxyModel, Qt, Signal
from PySide6.QtGui import QBrush, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QLineEdit, QTreeView, QVBoxLayout, QWidget

from ctxviewer.engine.project import Project
from ctxviewer.gui.models import is_dark, status_colour

FeatureRole = Qt.ItemDataRole.UserRole + 20
TaskRole = Qt.ItemDataRole.UserRole + 21


@dataclass(frozen=True)
class TaskTotal:
    """One task's size from the batch pass."""

    feature: str
    task_id: str
    tokens: int
    budget: int
    tokenizer: str
    error: str = ""

    @property
    def over(self) -> bool:
        return not self.error and self.tokens > self.budget


class ProjectOutline(QWidget):
    """Filterable feature → task tree; emits ``taskChosen(feature, task_id)``."""

    taskChosen = Signal(str, str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = QStandardItemModel(self)
        self.model.setHorizontalHeaderLabels(["Task", "Tokens"])
        self.proxy = QSortFilterProxyModel(self)
        self.proxy.setSourceModel(self.model)
        self.proxy.setRecursiveFilteringEnabled(True)
        self.proxy.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.filter = QLineEdit(self)
        self.filter.setPlaceholderText("Filter tasks\u2026")
        self.filter.setClearButtonEnabled(True)
        self.filter.setToolTip("Show only tasks whose id or title contains this text")
        self.filter.textChanged.connect(self._on_filter)
        self.tree = QTreeView(self)
        self.tree.setModel(self.proxy)
        self.tree.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.tree.setUniformRowHeights(True)
        self.tree.setAlternatingRowColors(True)
        header = self.tree.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        self.tree.selectionModel().currentChanged.connect(self._on_current)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.filter)
        layout.addWidget(self.tree, 1)
        self._tasks: dict[tuple[str, str], tuple[QStandardItem, QStandardItem]] = {}
        self._quiet = False

    def set_project(self, project: Project | None) -> None:
        self.model.removeRows(0, self.model.rowCount())
        self._tasks.clear()
        if project is None:
            return
        grey = QBrush(self.palette().color(self.palette().ColorGroup.Disabled, self.palette().ColorRole.Text))
        for feature in project.features:
            node = QStandardItem(feature.name)
            node.setData(feature.name, FeatureRole)
            count = QStandardItem(f"{len(feature.tasks)} tasks" if feature.tasks else "")
            count.setForeground(grey)
            if feature.graph_error is not None:
                node.setToolTip(f"{feature.name}: {feature.graph_error}")
                node.setForeground(grey)
                count.setText("unreadable")
            elif not feature.has_graph:
                node.setToolTip(f"{feature.name}: no task-graph.json/.yaml, so no tasks to assemble")
                node.setForeground(grey)
                count.setText("no graph")
            else:
                node.setToolTip(f"{feature.name}: {len(feature.tasks)} tasks from {feature.graph_path}")
            for task in feature.tasks:
                label = f"{task.id}  {task.title}" if task.title else task.id
                item = QStandardItem(label)
                item.setData(feature.name, FeatureRole)
                item.setData(task.id, TaskRole)
                item.setToolTip(f"{task.id}: {task.title}")
                tokens = QStandardItem("")
                tokens.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                tokens.setToolTip("Total context tokens once the background batch pass reaches this task")
                node.appendRow([item, tokens])
                self._tasks[(feature.name, task.id)] = (item, tokens)
            self.model.invisibleRootItem().appendRow([node, count])
        self.tree.expandAll()

    def set_total(self, total: TaskTotal) -> None:
        pair = self._tasks.get((total.feature, total.task_id))
        if pair is None:
            return
        _item, cell = pair
        if total.error:
            cell.setText("error")
            cell.setToolTip(total.error)
            cell.setForeground(QBrush(status_colour("failed", is_dark(self.palette()))))
            return
        mark = " \u26a0" if total.over else ""
        cell.setText(f"{total.tokens:,}{mark}")
        verdict = (
            f"over the {total.budget:,} budget by {total.tokens - total.budget:,}"
            if total.over
            else f"within the {total.budget:,} budget"
        )
        cell.setToolTip(f"{total.tokens:,} {total.tokenizer} tokens in the assembled context; {verdict}")
        if total.over:
            cell.setForeground(QBrush(status_colour("failed", is_dark(self.palette()))))

    def total_text(self, feature: str, task_id: str) -> str:
        pair = self._tasks.get((feature, task_id))
        return pair[1].text() if pair else ""

    def select_task(self, feature: str, task_id: str) -> bool:
        """Make (feature, task_id) current without emitting ``taskChosen``."""
        pair = self._tasks.get((feature, task_id))
        if pair is None:
            return False
        index = self.proxy.mapFromSource(pair[0].index())
        if not index.isValid():
            self.filter.clear()
            index = self.proxy.mapFromSource(pair[0].index())
        self._quiet = True
        try:
            self.tree.setCurrentIndex(index)
            self.tree.scrollTo(index)
        finally:
            self._quiet = False
        return True

    def _on_filter(self, text: str) -> None:
        self.proxy.setFilterFixedString(text)
        self.tree.expandAll()

    def _on_current(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if self._quiet or not current.isValid():
            return
        first = current.siblingAtColumn(0)
        task_id = first.data(TaskRole)
        feature = first.data(FeatureRole)
        if task_id is not None and feature is not None:
            self.taskChosen.emit(str(feature), str(task_id))
