"""Replaying what happened: :class:`TimelinePlot` paints a :class:`~.timelines.TimelineValue`,
:class:`TimelinePage` puts it over a table of the worker's events with a worker chooser.

The plot draws each process's recomputed curve from 0, the checkpoint and zone lines, the
recorded ``context_usage`` as a ring, and lanes of task and process marks; hovering a point or
a mark says what it is.  See docs/run-files.md#in-the-window.
"""

from __future__ import annotations

import datetime
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QHelpEvent, QPainter, QPainterPath, QPen, QPolygonF
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QSizePolicy,
    QSplitter,
    QTableView,
    QToolTip,
    QVBoxLayout,
    QWidget,
)

from ctxviewer.engine.runfiles.fleet import RunEvent
from ctxviewer.gui.views.session.plot import LINE_COLORS
from ctxviewer.gui.views.session.ticks import nice_ticks, tokens_k
from ctxviewer.gui.views.session.timelines import LANES, TimelineMark, TimelineValue
from ctxviewer.gui.widgets.charts import RED, ROLE, zone_color
from ctxviewer.gui.widgets.empty import NO_RUN, draw_empty
from ctxviewer.gui.widgets.models import Column, RecordModel, is_dark
from ctxviewer.gui.widgets.plaintext import plain_tip
from ctxviewer.gui.widgets.table_actions import install_table_actions

if TYPE_CHECKING:
    from PySide6.QtGui import QPaintEvent

#: A mark's colour by kind (light palette, dark palette).
MARK_COLORS = {
    "started": ("#8a8a8a", "#9a9a9a"),
    "completed": ("#1b7f3b", "#7bd88f"),
    "failed": ("#b3261e", "#ff8a80"),
    "checkpoint": ("#7b4fd0", "#b59cf5"),
    "start": ("#3b6ea5", "#7fb0e6"),
    "restart": ("#a35c00", "#ffb454"),
}
LANE_H = 14.0
#: The key under the plot.
TIMELINE_LEGEND = (
    "Curve: the real tracker's arithmetic recomputed from the log (500 per completed task + 100 per minute), "
    "from 0 at each process start; ring: the context_usage the worker recorded. Tasks: | started, "
    "\u25cf completed, \u2715 failed. Worker: \u25b6 start (orange: a restart), \u25c6 checkpoint."
)
LANE_NAMES = ("tasks", "worker")


def mark_color(kind: str, dark: bool) -> QColor:
    light_c, dark_c = MARK_COLORS.get(kind, ("#6b6b6b", "#a0a0a0"))
    return QColor(dark_c if dark else light_c)


def local_time(moment: float | None) -> str:
    """``2026-02-14 09:03:12`` in this machine's time zone; ``-`` for no time."""
    if moment is None:
        return "-"
    return datetime.datetime.fromtimestamp(moment).strftime("%Y-%m-%d %H:%M:%S")


class TimelinePlot(QWidget):
    """One worker's recomputed tracker over hours, with its events in lanes under it."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setMouseTracking(True)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self._value: TimelineValue | None = None
        self._empty_text = NO_RUN

    def setValue(self, value: TimelineValue | None, empty_text: str = NO_RUN) -> None:
        self._value = value
        self._empty_text = empty_text
        self.update()

    def value(self) -> TimelineValue | None:
        return self._value

    def sizeHint(self) -> QSize:
        return QSize(360, 240)

    def minimumSizeHint(self) -> QSize:
        return QSize(180, 150)

    # -- geometry ----------------------------------------------------------------------------

    def _small_font(self) -> QFont:
        font = QFont(self.font())
        if font.pointSizeF() > 0:
            font.setPointSizeF(max(6.0, font.pointSizeF() * 0.88))
        return font

    def _top_tokens(self) -> float:
        value = self._value
        if value is None:
            return 1.0
        highest = float(max((t for _, t in value.points), default=0))
        lines = [value.threshold_percent, *(p for _, p in value.zones)]
        if value.recorded is not None:
            lines.append(value.recorded[1])
        highest = max(highest, *(value.max_tokens * min(100.0, max(0.0, p)) / 100 for p in lines))
        return max(1.0, highest * 1.1)

    def plot_rect(self) -> QRectF:
        """The curve's area (the lanes and the axis are under it)."""
        fm = QFontMetricsF(self._small_font())
        left = 6 + max(fm.horizontalAdvance(tokens_k(t)) for t in (0, 888_000, 88_800)) + 6
        top = fm.height() + 10
        bottom = self.height() - fm.height() - 8 - len(LANE_NAMES) * LANE_H - 4
        return QRectF(left, top, max(1.0, self.width() - 10 - left), max(1.0, bottom - top))

    def lane_rect(self, lane: int) -> QRectF:
        rect = self.plot_rect()
        return QRectF(rect.left(), rect.bottom() + 4 + lane * LANE_H, rect.width(), LANE_H)

    def _ticks(self) -> tuple[float, ...]:
        rect = self.plot_rect()
        max_ticks = max(1, int(rect.height() // (QFontMetricsF(self.font()).height() * 1.5)))
        return nice_ticks(self._top_tokens(), max_ticks)

    def map_point(self, hours: float, tokens: float) -> QPointF:
        value = self._value
        rect = self.plot_rect()
        span = value.span if value is not None else 1.0
        top = self._ticks()[-1]
        x = rect.left() + rect.width() * min(1.0, max(0.0, hours / span))
        y = rect.bottom() - rect.height() * min(1.05, max(0.0, tokens / top))
        return QPointF(x, y)

    def mark_pos(self, mark: TimelineMark) -> QPointF:
        lane = self.lane_rect(LANES.get(mark.kind, 0))
        return QPointF(self.map_point(mark.hours, 0).x(), lane.center().y())

    def tooltip_at(self, pos: QPointF) -> str:
        """What is under *pos*: a mark in a lane, or the nearest point of the curve."""
        value = self._value
        if value is None:
            return ""
        best, best_d = "", 7.0
        for mark in value.marks:
            m = self.mark_pos(mark)
            d = max(abs(m.x() - pos.x()), abs(m.y() - pos.y()))
            if d < best_d:
                best, best_d = f"{mark.label}\n{local_time(value.origin + mark.hours * 3600)}", d
        if best:
            return best
        best_d = 10.0
        for (hours, tokens), label in zip(value.points, value.labels, strict=False):
            d = abs(self.map_point(hours, tokens).x() - pos.x())
            if d < best_d:
                best, best_d = f"{label}\n{local_time(value.origin + hours * 3600)}", d
        return best

    def event(self, e: QEvent) -> bool:
        if isinstance(e, QHelpEvent) and e.type() == QEvent.Type.ToolTip:
            tip = self.tooltip_at(QPointF(e.pos()))
            if tip:
                QToolTip.showText(e.globalPos(), plain_tip(tip), self)
            else:
                QToolTip.hideText()
                e.ignore()
            return True
        return super().event(e)

    # -- painting ----------------------------------------------------------------------------

    def paintEvent(self, event: QPaintEvent) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        pal, value = self.palette(), self._value
        dark = is_dark(pal)
        faint = pal.color(ROLE.PlaceholderText)
        p.setFont(self._small_font())
        fm = p.fontMetrics()
        if value is None or not (value.points or value.marks):
            p.setPen(faint)
            text = self._empty_text if value is None else "Nothing recorded for this worker yet"
            draw_empty(p, QRectF(self.rect()), text)
            return
        rect = self.plot_rect()
        p.setPen(pal.color(ROLE.WindowText))
        title = f"W{value.worker_id}: the real tracker, recomputed \u00b7 from {local_time(value.origin)[:16]}"
        p.drawText(
            QRectF(rect.left(), 2, rect.width(), fm.height() + 4),
            int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter),
            fm.elidedText(title, Qt.TextElideMode.ElideRight, int(rect.width())),
        )
        grid = QColor(pal.color(ROLE.Mid))
        grid.setAlpha(90)
        for tick in self._ticks():
            y = self.map_point(0, tick).y()
            p.setPen(QPen(grid, 1))
            p.drawLine(QPointF(rect.left(), y), QPointF(rect.right(), y))
            p.setPen(faint)
            p.drawText(
                QRectF(0, y - fm.height() / 2, rect.left() - 5, fm.height()),
                int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter),
                tokens_k(tick),
            )
        self._paint_lines(p, value, rect, dark)
        self._paint_curve(p, value, rect, dark)
        self._paint_lanes(p, value, dark)
        self._paint_x_axis(p, value)

    def _paint_lines(self, p: QPainter, value: TimelineValue, rect: QRectF, dark: bool) -> None:
        fm = p.fontMetrics()
        lines = [("checkpoint", value.threshold_percent, QColor(RED))]
        lines += [(n, pct, zone_color(i, dark)) for i, (n, pct) in enumerate(value.zones)]
        for name, percent, color in lines:
            y = self.map_point(0, value.max_tokens * min(100.0, max(0.0, percent)) / 100).y()
            p.setPen(QPen(color, 1.4, Qt.PenStyle.DashLine))
            p.drawLine(QPointF(rect.left(), y), QPointF(rect.right(), y))
            label = f"{name} {percent:g}%"
            p.setPen(color)
            p.drawText(QPointF(rect.left() + 4, y - 3), label)
        # Process starts after the first: a faint vertical line through the plot.
        for mark in value.marks:
            if mark.kind == "restart":
                x = self.map_point(mark.hours, 0).x()
                pen = QPen(mark_color("restart", dark), 1, Qt.PenStyle.DotLine)
                p.setPen(pen)
                p.drawLine(QPointF(x, rect.top()), QPointF(x, rect.bottom()))
        del fm

    def _paint_curve(self, p: QPainter, value: TimelineValue, rect: QRectF, dark: bool) -> None:
        line = QColor(LINE_COLORS[1] if dark else LINE_COLORS[0])
        fill = QColor(line)
        fill.setAlpha(60)
        runs: list[list[QPointF]] = []
        previous = None
        for (hours, tokens), process in zip(value.points, value.processes, strict=False):
            if process != previous:
                runs.append([])
                previous = process
            runs[-1].append(self.map_point(hours, tokens))
        for verts in runs:  # each process its own curve: the clock restarts at 0
            area = QPolygonF([QPointF(verts[0].x(), rect.bottom()), *verts, QPointF(verts[-1].x(), rect.bottom())])
            p.setPen(Qt.PenStyle.NoPen)
            p.setBrush(fill)
            p.drawPolygon(area)
            path = QPainterPath(verts[0])
            for v in verts[1:]:
                path.lineTo(v)
            p.setPen(QPen(line, 2))
            p.setBrush(Qt.BrushStyle.NoBrush)
            p.drawPath(path)
        if value.recorded is not None:
            hours, percent = value.recorded
            pos = self.map_point(hours, value.max_tokens * percent / 100)
            p.setPen(QPen(QColor(RED), 2))
            p.setBrush(Qt.BrushStyle.NoBrush)
            p.drawEllipse(pos, 5, 5)
            label = f"recorded {percent:.1f}%"
            fm = p.fontMetrics()
            w = fm.horizontalAdvance(label)
            lx = pos.x() - w - 8 if pos.x() + 8 + w > rect.right() else pos.x() + 8
            p.drawText(QPointF(lx, max(rect.top() + fm.ascent(), pos.y() - 6)), label)

    def _paint_lanes(self, p: QPainter, value: TimelineValue, dark: bool) -> None:
        faint = self.palette().color(ROLE.PlaceholderText)
        for lane, name in enumerate(LANE_NAMES):
            r = self.lane_rect(lane)
            back = QColor(self.palette().color(ROLE.Mid))
            back.setAlpha(30)
            p.fillRect(r, back)
            p.setPen(faint)
            p.drawText(
                QRectF(0, r.top(), r.left() - 5, r.height()),
                int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter),
                name,
            )
        for mark in value.marks:
            pos = self.mark_pos(mark)
            color = mark_color(mark.kind, dark)
            p.setPen(Qt.PenStyle.NoPen)
            p.setBrush(color)
            if mark.kind == "started":
                p.setPen(QPen(color, 1))
                p.drawLine(QPointF(pos.x(), pos.y() - 4), QPointF(pos.x(), pos.y() + 4))
            elif mark.kind == "completed":
                p.drawEllipse(pos, 2.6, 2.6)
            elif mark.kind == "failed":
                p.setPen(QPen(color, 1.6))
                p.drawLine(pos + QPointF(-3, -3), pos + QPointF(3, 3))
                p.drawLine(pos + QPointF(-3, 3), pos + QPointF(3, -3))
            elif mark.kind == "checkpoint":
                p.drawPolygon(
                    QPolygonF([pos + QPointF(0, -5), pos + QPointF(5, 0), pos + QPointF(0, 5), pos + QPointF(-5, 0)])
                )
            else:  # a process start or restart: a triangle pointing right
                p.drawPolygon(QPolygonF([pos + QPointF(-3, -5), pos + QPointF(4, 0), pos + QPointF(-3, 5)]))

    def _paint_x_axis(self, p: QPainter, value: TimelineValue) -> None:
        fm = p.fontMetrics()
        rect = self.plot_rect()
        y = self.lane_rect(len(LANE_NAMES) - 1).bottom() + 2
        p.setPen(self.palette().color(ROLE.PlaceholderText))
        widest = fm.horizontalAdvance("88.8h") + 12
        for tick in nice_ticks(value.span, max(1, int(rect.width() // widest))):
            if tick > value.span * 1.0001:
                continue
            x = self.map_point(tick, 0).x()
            label = f"{tick:g}h"
            w = fm.horizontalAdvance(label) + 4
            lx = min(max(0.0, x - w / 2), self.width() - w)
            p.drawText(QRectF(lx, y, w, fm.height()), int(Qt.AlignmentFlag.AlignCenter), label)


def event_columns() -> list[Column]:
    return [
        Column("time", lambda e: local_time(e.time), key=lambda e: e.time, tip="This machine's local time"),
        Column("event", lambda e: e.event, tip="A log line's task event, or a state file's execution-log entry"),
        Column("task", lambda e: e.task_id or ""),
        Column(
            "from",
            lambda e: f"{e.file.rsplit('/', 1)[-1]}:{e.line}",
            tip="The log file and line, or the state file and the execution-log entry's number",
        ),
    ]


class TimelinePage(QWidget):
    """A worker chooser, the timeline plot and the worker's events as a table."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._values: dict[str, TimelineValue] = {}
        self.worker = QComboBox(self)
        self.worker.setToolTip("The worker whose timeline is shown")
        self.worker.currentIndexChanged.connect(self._on_worker)
        self.summary = QLabel(self)
        self.summary.setTextFormat(Qt.TextFormat.PlainText)
        self.summary.setWordWrap(True)
        self.plot = TimelinePlot(self)
        self.legend = QLabel(TIMELINE_LEGEND, self)
        self.legend.setWordWrap(True)
        self.legend.setEnabled(False)  # drawn faint: a key, not a figure
        self.model = RecordModel(event_columns(), self)
        self.table = QTableView(self)
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(False)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(self.table.fontMetrics().height() + 6)
        header = self.table.horizontalHeader()
        header.setHighlightSections(False)
        header.setStretchLastSection(True)
        # Widths from the font once, not fitted to a few thousand rows on every poll.
        fm = self.table.fontMetrics()
        for column, sample in enumerate(("2026-02-14 08:08:59", "verification_passed", "TASK-0000")):
            self.table.setColumnWidth(column, fm.horizontalAdvance(sample) + 16)
        install_table_actions(self.table)
        self.table.setMinimumHeight(80)
        row = QHBoxLayout()
        row.addWidget(QLabel("Worker", self))
        row.addWidget(self.worker, 1)
        splitter = QSplitter(Qt.Orientation.Vertical, self)
        splitter.setChildrenCollapsible(False)
        top = QWidget(self)
        top_layout = QVBoxLayout(top)
        top_layout.setContentsMargins(0, 0, 0, 0)
        top_layout.addWidget(self.plot, 1)
        top_layout.addWidget(self.legend)
        splitter.addWidget(top)
        splitter.addWidget(self.table)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 2)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 0)
        layout.addLayout(row)
        layout.addWidget(self.summary)
        layout.addWidget(splitter, 1)

    def set_timelines(self, values: tuple[TimelineValue, ...]) -> None:
        """Show these workers' timelines (the chosen worker stays chosen while it is there)."""
        self._values = {v.worker_id: v for v in values}
        chosen = self.worker.currentData()
        ids = [v.worker_id for v in values]
        if [self.worker.itemData(i) for i in range(self.worker.count())] != ids:
            self.worker.blockSignals(True)
            self.worker.clear()
            for worker_id in ids:
                self.worker.addItem(f"W{worker_id}", worker_id)
            self.worker.blockSignals(False)
            index = ids.index(chosen) if chosen in ids else 0
            self.worker.setCurrentIndex(index if ids else -1)
        self._show(self.worker.currentData())

    def show_worker(self, worker_id: str) -> None:
        index = self.worker.findData(worker_id)
        if index >= 0:
            self.worker.setCurrentIndex(index)

    def current(self) -> TimelineValue | None:
        return self._values.get(self.worker.currentData())

    def _on_worker(self, _index: int) -> None:
        self._show(self.worker.currentData())

    def _show(self, worker_id: str | None) -> None:
        value = self._values.get(worker_id) if worker_id is not None else None
        self.plot.setValue(value, NO_RUN if not self._values else "No worker chosen: pick one in the list above")
        events: tuple[RunEvent, ...] = () if value is None else value.events
        if events != self.model.rows():
            self.model.set_rows(events)
        if value is None:
            self.summary.setText("")
            return
        kinds = [m.kind for m in value.marks]
        processes = len(set(value.processes))
        self.summary.setText(
            f"{_count(processes, 'process', 'processes')} in the log ({_count(value.restarts, 'restart')}) \u00b7 "
            f"{kinds.count('completed'):,} tasks completed \u00b7 {kinds.count('failed'):,} failed \u00b7 "
            f"{_count(kinds.count('checkpoint'), 'checkpoint')} \u00b7 {_count(len(value.events), 'event')}"
        )


def _count(n: int, word: str, plural: str = "") -> str:
    return f"{n:,} {word if n == 1 else plural or word + 's'}"
