"""The project outline: features and their tasks, with batch totals as they arrive.

A two-column tree (task, tokens); feature folders without a readable task graph are listed
greyed with the reason as a tooltip, and a task's total appears (with an over-budget mark)
once the background batch pass has assembled it.  Built for projects of tens of thousands
of tasks: a task is one label item, its tokens cell and tooltips are made only when needed,
and a row's task follows from its position.  See docs/gui.md.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QEvent, QModelIndex, QObject, QPersistentModelIndex, QSize, QSortFilterProxyModel, Qt, Signal
from PySide6.QtGui import QBrush, QHelpEvent, QPalette, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QLineEdit,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QToolTip,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from ctxviewer.engine.project.loading import Feature, Project, Task
from ctxviewer.gui.views.findings_view import findings_tooltip, severity_icon, worst
from ctxviewer.gui.widgets.models import is_dark, status_colour
from ctxviewer.gui.widgets.plaintext import plain_tip

#: The feature name, on a feature's row.
FeatureRole = Qt.ItemDataRole.UserRole + 20

_Index = QModelIndex | QPersistentModelIndex

_RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
PENDING_TIP = "Total context tokens once the background batch pass reaches this task"


@dataclass(frozen=True)
class TaskTotal:
    """One task's size from the batch pass."""

    feature: str
    task_id: str
    tokens: int
    budget: int
    tokenizer: str
    error: str = ""
    #: The task's findings (``FindingRow`` s, worst first is not implied), from the same run.
    findings: tuple[Any, ...] = ()

    @property
    def over(self) -> bool:
        return not self.error and self.tokens > self.budget


def total_text(total: TaskTotal) -> str:
    """What the tokens column says for a task's total."""
    if total.error:
        return "error"
    mark = " \u26a0" if total.over else ""
    return f"{total.tokens:,}{mark}"


def total_tooltip(total: TaskTotal) -> str:
    if total.error:
        return total.error
    verdict = (
        f"over the {total.budget:,} budget by {total.tokens - total.budget:,}"
        if total.over
        else f"within the {total.budget:,} budget"
    )
    return f"{total.tokens:,} {total.tokenizer} tokens in the assembled context; {verdict}"


#: The Project pane before a project is open.
NO_PROJECT = "No project open: File \u25b8 Open Folder (Ctrl+O), or drop a project folder on the window."
#: A project without features.
NO_FEATURES = "a feature is a folder in the project's specs folder (.gsd/specs unless its config names another)."


def task_label(task_id: str, title: str) -> str:
    """A task's row: its id, and its title on a line of its own (the whole width of the
    tree is the title's: beside the id it had room for eight characters at 1280x800)."""
    return f"{task_id}\n{title}" if title else task_id


class _LazyTips(QStyledItemDelegate):
    """The default delegate, plus tooltips computed at the moment one is asked for.

    Only ``helpEvent`` and ``sizeHint`` are overridden, so painting stays in C++; the tree
    has uniform row heights, so ``sizeHint`` is asked for one row, not for every row.
    Every row is two lines high: a task's id and its title (:func:`task_label`).
    """

    def __init__(self, tip: Callable[[_Index], str | None], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._tip = tip

    def helpEvent(
        self,
        event: QHelpEvent,
        view: QAbstractItemView,
        option: QStyleOptionViewItem,
        index: _Index,
    ) -> bool:
        if event is not None and event.type() == QEvent.Type.ToolTip and index.isValid():
            text = self._tip(index)
            if text:
                QToolTip.showText(event.globalPos(), text, view.viewport(), option.rect)
                event.setAccepted(True)
                return True
        return super().helpEvent(event, view, option, index)

    def sizeHint(self, option: QStyleOptionViewItem, index: _Index) -> QSize:
        size = super().sizeHint(option, index)
        lines = 2 * option.fontMetrics.lineSpacing() + 6
        return QSize(size.width(), max(size.height(), lines))


class ProjectOutline(QWidget):
    """Filterable feature → task tree; emits ``taskChosen(feature, task_id)``."""

    taskChosen = Signal(str, str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        # A C++ model with no method overridden in Python: the view and the proxy walk its rows
        # without calling into Python (and waiting for the interpreter lock a busy worker holds).
        self.model = QStandardItemModel(self)
        self.model.setHorizontalHeaderLabels(["Task", "Tokens"])
        self.proxy = QSortFilterProxyModel(self)
        self.proxy.setSourceModel(self.model)
        self.proxy.setRecursiveFilteringEnabled(True)
        # A feature whose name matches shows with all its tasks (a task that matches, alone).
        self.proxy.setAutoAcceptChildRows(True)
        self.proxy.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.filter = QLineEdit(self)
        self.filter.setPlaceholderText("Filter tasks\u2026")
        self.filter.setClearButtonEnabled(True)
        self.filter.setToolTip(
            "Show only tasks whose id or title contains this text, and every task of a feature whose name does"
        )
        self.filter.textChanged.connect(self._on_filter)
        self.tree = QTreeView(self)
        self.tree.setModel(self.proxy)
        self.tree.setItemDelegate(_LazyTips(self.tooltip, self.tree))
        self.tree.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.tree.setUniformRowHeights(True)
        self.tree.setAlternatingRowColors(True)
        # Elided at the right, unlike the tables' cells: the id stays whole and the title
        # reads from its start (a middle cut left ids and titles both unreadable); the
        # tooltip has the whole title.  A narrow indent leaves the title more room.
        self.tree.setIndentation(14)
        header = self.tree.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        # Sized to its texts as they come (see _fit_tokens_column): ResizeToContents re-measures
        # up to a thousand rows on every change, for each batch total.
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Fixed)
        self.tree.selectionModel().currentChanged.connect(self._on_current)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.filter)
        #: Why the list is empty, and what fills it (hidden once a project lists a feature).
        self.empty = QLabel(NO_PROJECT, self)
        self.empty.setTextFormat(Qt.TextFormat.PlainText)  # it names the project: its text, never markup
        self.empty.setWordWrap(True)
        self.empty.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        layout.addWidget(self.empty)
        layout.addWidget(self.tree, 1)
        #: The features listed, in row order.
        self._features: tuple[Feature, ...] = ()
        #: Feature name -> row; and per feature, task id -> row, built when first asked for.
        self._feature_rows: dict[str, int] = {}
        self._task_rows: list[dict[str, int] | None] = []
        self._totals: dict[tuple[str, str], TaskTotal] = {}
        self._widest_total = 0
        self._quiet = False

    # -- content ---------------------------------------------------------------------------

    def set_project(self, project: Project | None, totals: Iterable[TaskTotal] = ()) -> None:
        """List *project*'s features and tasks, with the batch *totals* already known."""
        model = self.model
        model.removeRows(0, model.rowCount())
        self._features = project.features if project is not None else ()
        self.empty.setText(NO_PROJECT if project is None else f"{project.name} has no features: {NO_FEATURES}")
        self.empty.setVisible(not self._features)
        self._feature_rows = {f.name: row for row, f in enumerate(self._features)}
        self._task_rows = [None] * len(self._features)
        self._totals = {(t.feature, t.task_id): t for t in totals}
        self._widest_total = 0
        palette = self.palette()
        grey = QBrush(palette.color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text))
        failed = QBrush(status_colour("failed", is_dark(palette)))
        known = self._totals
        counts: set[str] = set()
        for feature in self._features:
            node = QStandardItem(feature.name)
            node.setData(feature.name, FeatureRole)
            count = QStandardItem(f"{len(feature.tasks)} tasks" if feature.tasks else "")
            count.setForeground(grey)
            if feature.graph_error is not None:
                node.setToolTip(plain_tip(f"{feature.name}: {feature.graph_error}"))
                node.setForeground(grey)
                count.setText("unreadable")
            elif not feature.has_graph:
                node.setToolTip(plain_tip(f"{feature.name}: no task-graph.json/.yaml, so no tasks to assemble"))
                node.setForeground(grey)
                count.setText("no graph")
            else:
                node.setToolTip(plain_tip(f"{feature.name}: {len(feature.tasks)} tasks from {feature.graph_path}"))
            counts.add(count.text())
            if feature.tasks:
                # One label item per task; a tokens cell gets its item when its total arrives.
                node.setColumnCount(2)
                node.appendRows([QStandardItem(task_label(t.id, t.title)) for t in feature.tasks])
                if known:  # a reload: the totals of the pass before, until the next pass replaces them
                    for row, task in enumerate(feature.tasks):
                        total = known.get((feature.name, task.id))
                        if total is not None:
                            cell = QStandardItem(total_text(total))
                            cell.setTextAlignment(_RIGHT)
                            if total.error or total.over:
                                cell.setForeground(failed)
                            node.setChild(row, 1, cell)  # not in the model yet: no signal
                            icon = severity_icon(worst(total.findings), is_dark(palette))
                            if icon is not None:
                                node.child(row, 0).setIcon(icon)
            model.appendRow([node, count])
        self._expand_features()
        self._fit_tokens_column([*counts, *(total_text(t) for t in known.values())])

    def set_totals(self, totals: Iterable[TaskTotal]) -> None:
        """Show the background pass's *totals* beside their tasks."""
        for total in totals:
            self.set_total(total)

    def set_total(self, total: TaskTotal) -> None:
        at = self._locate(total.feature, total.task_id)
        if at is None:
            return
        self._totals[(total.feature, total.task_id)] = total
        cell = self.model.index(at[1], 1, self.model.index(at[0], 0))
        text = total_text(total)
        failed = QBrush(status_colour("failed", is_dark(self.palette()))) if total.error or total.over else None
        # One call, one dataChanged; the cell's item is made here the first time (setChild
        # would make the views lay every row out again).  Its tooltip comes from tooltip().
        self.model.setItemData(
            cell,
            {
                Qt.ItemDataRole.DisplayRole: text,
                Qt.ItemDataRole.TextAlignmentRole: _RIGHT,
                Qt.ItemDataRole.ForegroundRole: failed,
            },
        )
        self._widen_tokens_column([text])
        # The marker of the task's worst finding (its tooltip lists them: tooltip()).
        label = cell.siblingAtColumn(0)
        icon = severity_icon(worst(total.findings), is_dark(self.palette()))
        if icon is not None or label.data(Qt.ItemDataRole.DecorationRole) is not None:
            self.model.setData(label, icon, Qt.ItemDataRole.DecorationRole)

    def total_text(self, feature: str, task_id: str) -> str:
        if self._locate(feature, task_id) is None:
            return ""
        total = self._totals.get((feature, task_id))
        return total_text(total) if total is not None else ""

    def task_at(self, index: _Index) -> tuple[str, str] | None:
        """The (feature, task id) of a row of the tree (a proxy index), or None for a feature row."""
        found = self._task_of(index)
        return None if found is None else (found[0].name, found[1].id)

    def tooltip(self, index: _Index) -> str | None:
        """The tooltip of a task's cell, worked out now (shown literally: :func:`plain_tip`); None for
        a feature's (its item carries one)."""
        found = self._task_of(index)
        if found is None:
            return None
        feature, task = found
        total = self._totals.get((feature.name, task.id))
        if index.column() == 0:
            tip = f"{task.id}: {task.title}"
            listed = findings_tooltip(task.id, total.findings) if total is not None else ""
            return plain_tip(f"{tip}\n\n{listed}" if listed else tip)
        return plain_tip(total_tooltip(total)) if total is not None else PENDING_TIP

    def select_task(self, feature: str, task_id: str) -> bool:
        """Make (feature, task_id) current without emitting ``taskChosen``."""
        at = self._locate(feature, task_id)
        if at is None:
            return False
        source = self.model.index(at[1], 0, self.model.index(at[0], 0))
        index = self.proxy.mapFromSource(source)
        if not index.isValid():
            self.filter.clear()
            index = self.proxy.mapFromSource(source)
        self._quiet = True
        try:
            self.tree.setCurrentIndex(index)
            self.tree.scrollTo(index)
        finally:
            self._quiet = False
        return True

    # -- internals ---------------------------------------------------------------------------

    def _task_of(self, index: _Index) -> tuple[Feature, Task] | None:
        source = self.proxy.mapToSource(index) if index.model() == self.proxy else index
        parent = source.parent()
        if not source.isValid() or not parent.isValid():
            return None
        feature = self._features[parent.row()]
        return feature, feature.tasks[source.row()]

    def _locate(self, feature: str, task_id: str) -> tuple[int, int] | None:
        """(feature row, task row) of a task, or None."""
        f = self._feature_rows.get(feature)
        if f is None:
            return None
        rows = self._task_rows[f]
        if rows is None:  # first asked: this feature's ids only, not every task's up front
            rows = self._task_rows[f] = {task.id: t for t, task in enumerate(self._features[f].tasks)}
        t = rows.get(task_id)
        return None if t is None else (f, t)

    def _expand_features(self) -> None:
        # The features one by one rather than expandAll(): the tasks (leaves) are left
        # out of the view's expanded set, and after a reset or a filter change the view
        # lays all rows out in one pass later.
        proxy, tree = self.proxy, self.tree
        for row in range(proxy.rowCount()):
            tree.expand(proxy.index(row, 0))

    def _fit_tokens_column(self, texts: Iterable[str]) -> None:
        """Size the tokens column afresh to its header and *texts*, as ``ResizeToContents`` would."""
        header = self.tree.header()
        header.resizeSection(1, header.sectionSizeHint(1))
        self._widest_total = 0
        self._widen_tokens_column(texts)

    def _widen_tokens_column(self, texts: Iterable[str]) -> None:
        """Widen the tokens column when one of *texts* would not fit it (one text measured per total)."""
        metrics = self.tree.fontMetrics()
        widest = max((metrics.horizontalAdvance(t) for t in texts), default=0)
        if widest <= self._widest_total:
            return
        self._widest_total = widest
        # The item delegate's text margin: the style's focus-frame margin + 1, on either side.
        margin = self.tree.style().pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, self.tree) + 1
        header = self.tree.header()
        if widest + 2 * margin > header.sectionSize(1):
            header.resizeSection(1, widest + 2 * margin)

    def _on_filter(self, text: str) -> None:
        self.proxy.setFilterFixedString(text)
        self._expand_features()

    def _on_current(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if self._quiet or not current.isValid():
            return
        at = self.task_at(current.siblingAtColumn(0))
        if at is not None:
            self.taskChosen.emit(*at)
