"""The painted fleet view: :class:`FleetChart` draws a :class:`~.fleetvalues.FleetValue`.

One row per worker: its status, current task, a bar of its recorded ``context_usage`` in
upstream's dashboard colour against the checkpoint threshold and zones, and its figures.
Hovering a row shows every figure; clicking it emits ``workerActivated``, double-clicking
``workerDoubleClicked``.
See docs/run-files.md#in-the-window.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QHelpEvent, QPainter, QPen
from PySide6.QtWidgets import QFrame, QLabel, QScrollArea, QSizePolicy, QToolTip, QVBoxLayout, QWidget

from ctxviewer.gui.views.session.fleetvalues import FleetValue, WorkerGauge
from ctxviewer.gui.widgets.charts import AMBER, GREEN, OVER_COLOR, OVER_TINT_ALPHA, RED, ROLE, zone_color
from ctxviewer.gui.widgets.empty import NO_RUN, draw_empty
from ctxviewer.gui.widgets.models import is_dark
from ctxviewer.gui.widgets.plaintext import plain_tip

if TYPE_CHECKING:
    from PySide6.QtGui import QMouseEvent, QPaintEvent

#: Upstream's dashboard colours, by band.
BAND_COLORS = {"green": GREEN, "yellow": AMBER, "red": RED}
#: A status's colour by kind (light palette, dark palette).
STATUS_COLORS = {
    "live": ("#1b7f3b", "#7bd88f"),
    "warn": ("#a35c00", "#ffb454"),
    "checkpoint": ("#7b4fd0", "#b59cf5"),
    "stopped": ("#6b6b6b", "#a0a0a0"),
    "crashed": ("#b3261e", "#ff8a80"),
    "stale": ("#6b6b6b", "#a0a0a0"),
    "unknown": ("#6b6b6b", "#a0a0a0"),
}
MARGIN, BAR_H, GAP = 8.0, 10.0, 3.0
#: The key under the rows.
FLEET_LEGEND = (
    "Bar: context_usage as the worker recorded it, in upstream's colours (yellow above 70%, red above 85%); "
    "red line: the checkpoint threshold of the project's config; a red figure: at or over it. "
    "est: ctxviewer's recomputation of the real tracker (500 per task + 100 per minute of the current process). "
    "A status with ?: silent for an hour. Click a worker for its timeline; double-click it to open its task."
)


def status_color(kind: str, dark: bool) -> QColor:
    light_c, dark_c = STATUS_COLORS.get(kind, STATUS_COLORS["unknown"])
    return QColor(dark_c if dark else light_c)


def band_color(band: str | None) -> QColor:
    """Upstream's colour for a band; grey when nothing is recorded."""
    return QColor(BAND_COLORS.get(band or "", QColor("#9a9a9a")))


class FleetChart(QWidget):
    """Every worker's recorded gauge, one painted row each."""

    workerActivated = Signal(str)
    workerDoubleClicked = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setMouseTracking(True)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Minimum)
        self._value: FleetValue | None = None
        self._empty_text = NO_RUN
        self._selected: str | None = None

    def setValue(self, value: FleetValue | None, empty_text: str = NO_RUN) -> None:
        self._value = value
        self._empty_text = empty_text
        self.updateGeometry()
        self.update()

    def value(self) -> FleetValue | None:
        return self._value

    def setSelected(self, worker_id: str | None) -> None:
        self._selected = worker_id
        self.update()

    def selected(self) -> str | None:
        return self._selected

    # -- geometry ----------------------------------------------------------------------------

    def _small_font(self) -> QFont:
        font = QFont(self.font())
        if font.pointSizeF() > 0:
            font.setPointSizeF(max(6.0, font.pointSizeF() * 0.88))
        return font

    def row_height(self) -> float:
        line = QFontMetricsF(self.font()).height()
        small = QFontMetricsF(self._small_font()).height()
        return line + GAP + BAR_H + GAP + small + 2 * GAP + 4

    def row_rect(self, index: int) -> QRectF:
        h = self.row_height()
        return QRectF(MARGIN, MARGIN + index * h, max(0.0, self.width() - 2 * MARGIN), h)

    def bar_rect(self, index: int) -> QRectF:
        """The track of row *index*'s gauge (0 % at its left, 100 % at its right)."""
        row = self.row_rect(index)
        top = row.top() + GAP + QFontMetricsF(self.font()).height() + GAP
        return QRectF(row.left() + 2, top, max(0.0, row.width() - 4), BAR_H)

    def figure_rect(self, index: int) -> QRectF:
        """Where row *index*'s ``usage / threshold`` figure is written."""
        row = self.row_rect(index)
        fm = QFontMetricsF(self.font())
        return QRectF(
            row.right() - fm.horizontalAdvance("100.0% / 100%") - 8,
            row.top() + GAP,
            fm.horizontalAdvance("100.0% / 100%") + 6,
            fm.height(),
        )

    def x_of(self, index: int, percent: float) -> float:
        bar = self.bar_rect(index)
        return bar.left() + bar.width() * min(100.0, max(0.0, percent)) / 100

    def index_at(self, pos: QPointF) -> int | None:
        value = self._value
        if value is None:
            return None
        return next((i for i in range(len(value.rows)) if self.row_rect(i).contains(pos)), None)

    def sizeHint(self) -> QSize:
        n = len(self._value.rows) if self._value is not None else 1
        return QSize(360, int(2 * MARGIN + max(1, n) * self.row_height()))

    def minimumSizeHint(self) -> QSize:
        return self.sizeHint() if self._value is not None else QSize(160, int(self.row_height()))

    # -- interaction -------------------------------------------------------------------------

    def event(self, e: QEvent) -> bool:
        if isinstance(e, QHelpEvent) and e.type() == QEvent.Type.ToolTip:
            i = self.index_at(QPointF(e.pos()))
            if i is None or self._value is None:
                QToolTip.hideText()
                e.ignore()
            else:
                QToolTip.showText(e.globalPos(), plain_tip(self._value.rows[i].detail), self)
            return True
        return super().event(e)

    def mousePressEvent(self, e: QMouseEvent) -> None:
        i = self.index_at(e.position())
        if e.button() != Qt.MouseButton.LeftButton or i is None or self._value is None:
            super().mousePressEvent(e)
            return
        worker = self._value.rows[i].worker_id
        self.setSelected(worker)
        self.workerActivated.emit(worker)

    def mouseDoubleClickEvent(self, e: QMouseEvent) -> None:
        i = self.index_at(e.position())
        if e.button() != Qt.MouseButton.LeftButton or i is None or self._value is None:
            super().mouseDoubleClickEvent(e)
            return
        self.workerDoubleClicked.emit(self._value.rows[i].worker_id)

    # -- painting ----------------------------------------------------------------------------

    def paintEvent(self, event: QPaintEvent) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        value = self._value
        if value is None or not value.rows:
            p.setPen(self.palette().color(ROLE.PlaceholderText))
            text = self._empty_text if value is None else "No workers yet"
            draw_empty(p, QRectF(self.rect()), text)
            return
        for i, row in enumerate(value.rows):
            self._paint_row(p, i, row)

    def _paint_row(self, p: QPainter, i: int, row: WorkerGauge) -> None:
        pal = self.palette()
        dark = is_dark(pal)
        text = pal.color(ROLE.WindowText)
        rect = self.row_rect(i)
        if row.worker_id == self._selected:
            band = QColor(pal.color(ROLE.Highlight))
            band.setAlpha(40)
            p.fillRect(rect, band)
        fm = QFontMetricsF(self.font())
        line = QRectF(rect.left() + 2, rect.top() + GAP, rect.width() - 4, fm.height())
        figure = self.figure_rect(i)
        # First line: worker, status, current task; the figure at the right.
        bold = QFont(self.font())
        bold.setBold(True)
        p.setFont(bold)
        name = f"W{row.worker_id}"
        p.setPen(text)
        p.drawText(line, int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), name)
        x = line.left() + QFontMetricsF(bold).horizontalAdvance(name) + 8
        p.setFont(self.font())
        p.setPen(status_color(row.status_kind, dark))
        p.drawText(QPointF(x, line.top() + fm.ascent()), row.status)
        x += fm.horizontalAdvance(row.status) + 8
        if row.current_task:
            p.setPen(text)
            room = max(0, int(figure.left() - x - 6))
            p.drawText(
                QPointF(x, line.top() + fm.ascent()), fm.elidedText(row.current_task, Qt.TextElideMode.ElideRight, room)
            )
        over = row.over_threshold
        figure_font = QFont(bold) if over else QFont(self.font())
        p.setFont(figure_font)
        p.setPen(OVER_COLOR if over else text)
        p.drawText(figure, int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter), row.figure)
        p.setFont(self.font())
        # The bar: track, the over-threshold part tinted, the recorded usage, the lines.
        bar = self.bar_rect(i)
        p.setPen(QPen(OVER_COLOR, 1.5) if over else QPen(pal.color(ROLE.Mid), 1))
        p.setBrush(pal.color(ROLE.Base))
        p.drawRoundedRect(bar, 2, 2)
        threshold_x = self.x_of(i, row.threshold_percent)
        tint = QColor(RED)
        tint.setAlpha(OVER_TINT_ALPHA // 2)
        p.fillRect(QRectF(threshold_x, bar.top() + 1, bar.right() - threshold_x - 1, bar.height() - 2), tint)
        if row.usage_percent is not None:
            fill = QRectF(
                bar.left() + 1, bar.top() + 1, self.x_of(i, row.usage_percent) - bar.left() - 1, bar.height() - 2
            )
            p.fillRect(fill, band_color(row.band))
        for zi, (_name, percent) in enumerate(row.zones):
            zx = self.x_of(i, percent)
            p.setPen(QPen(zone_color(zi, dark), 2))
            p.drawLine(QPointF(zx, bar.top() - 2), QPointF(zx, bar.bottom() + 2))
        p.setPen(QPen(QColor(RED), 2))
        p.drawLine(QPointF(threshold_x, bar.top() - 3), QPointF(threshold_x, bar.bottom() + 3))
        # Last line: the facts, small.
        small = self._small_font()
        p.setFont(small)
        sfm = QFontMetricsF(small)
        facts = QRectF(rect.left() + 2, bar.bottom() + GAP, rect.width() - 4, sfm.height())
        p.setPen(pal.color(ROLE.PlaceholderText))
        p.drawText(
            facts,
            int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter),
            sfm.elidedText(row.facts, Qt.TextElideMode.ElideRight, facts.width()),
        )
        p.setFont(self.font())
        if i + 1 < len(self._value.rows if self._value else ()):
            sep = QColor(pal.color(ROLE.Mid))
            sep.setAlpha(80)
            p.setPen(QPen(sep, 1))
            p.drawLine(QPointF(rect.left(), rect.bottom()), QPointF(rect.right(), rect.bottom()))


class FleetPage(QWidget):
    """The fleet view: the run's line, every worker's gauge (scrolling past a dozen), the last poll."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.header = QLabel(NO_RUN, self)
        self.header.setTextFormat(Qt.TextFormat.PlainText)
        self.header.setWordWrap(True)
        self.header.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.chart = FleetChart(self)
        self.scroller = QScrollArea(self)
        self.scroller.setWidgetResizable(True)
        self.scroller.setFrameShape(QFrame.Shape.NoFrame)
        self.scroller.setWidget(self.chart)
        self.legend = QLabel(FLEET_LEGEND, self)
        self.legend.setWordWrap(True)
        self.legend.setEnabled(False)  # drawn faint: a key, not a figure
        self.status = QLabel(self)
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 0)
        layout.addWidget(self.header)
        layout.addWidget(self.scroller, 1)
        layout.addWidget(self.legend)
        layout.addWidget(self.status)

    def show_fleet(self, value: FleetValue | None, root: str = "", status: str = "") -> None:
        self.chart.setValue(value, "Reading the run\u2026" if root else NO_RUN)
        if value is None:
            self.header.setText(f"Run: {root}" if root else NO_RUN)
        else:
            self.header.setText(f"Run: {root}\n{value.summary}")
        self.status.setText(status)
