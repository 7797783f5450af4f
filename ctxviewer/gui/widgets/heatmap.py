"""A painted heatmap of rows by columns (a sweep's tasks by budgets), with a legend and axis labels.

The widget takes a frozen :class:`HeatmapValue` (labels, and per cell a level in [0, 1] and two
marks) and knows nothing of sweeps.  The layout is a pure function (:func:`heatmap_layout`), so
tests can find a cell's pixels; :func:`paint_heatmap` draws on any painter, so the same picture
goes to the screen, a PNG (:func:`png_bytes`) and an SVG (:func:`svg_bytes`).  Clicking a cell
emits :attr:`SweepHeatmap.cellClicked`.  See docs/sweeps.md.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QImage, QPainter, QPalette, QPen, QPolygonF
from PySide6.QtSvg import QSvgGenerator
from PySide6.QtWidgets import QSizePolicy, QWidget

from ctxviewer.gui.widgets.empty import draw_empty
from ctxviewer.gui.widgets.plaintext import plain_tip

if TYPE_CHECKING:
    from PySide6.QtGui import QKeyEvent, QMouseEvent, QPaintEvent

#: The level scale's stops: 0 (pale), 0.5 and 1 (dark), blue so that red and amber stand apart.
SCALE = ((0.0, QColor("#eef4fb")), (0.5, QColor("#6baed6")), (1.0, QColor("#08306b")))
OVER_COLOR = QColor("#d62728")
RULE_CUT_COLOR = QColor("#ffb000")
ERROR_COLOR = QColor("#9e9e9e")
#: Room around the plot: labels left, axis labels below, the legend on the right.
MARGIN, LEGEND_W, AXIS_H, LABEL_GAP = 8, 168, 40, 6
#: A row shorter than this gets no label of its own (every k-th is labelled); the widget
#: asks for at least MIN_ROW_H per row, so a long sweep scrolls rather than vanishing.
LABEL_ROW_H, MIN_ROW_H, MAX_ROW_H = 13.0, 6.0, 28.0


@dataclass(frozen=True, slots=True)
class HeatCell:
    """One cell: its level in [0, 1], its marks, and the tooltip that tells its numbers."""

    level: float
    over: bool = False
    rule_cut: bool = False
    error: bool = False
    tip: str = ""


@dataclass(frozen=True, slots=True)
class HeatmapValue:
    """What the heatmap shows: row and column labels, the cells row by row, and the legend's words."""

    rows: tuple[str, ...]
    columns: tuple[str, ...]
    cells: tuple[tuple[HeatCell, ...], ...]
    row_title: str = "task"
    column_title: str = "budget (tokens)"
    legend_title: str = "context / budget"
    legend_low: str = "0%"
    legend_high: str = "100%"
    #: A cell's tooltip made when it is asked for (a sweep has tens of thousands of cells and
    #: one is hovered at a time); a cell's own ``tip`` wins.
    tips: Callable[[int, int], str] | None = field(default=None, compare=False)

    def cell(self, row: int, column: int) -> HeatCell:
        return self.cells[row][column]

    def tip(self, row: int, column: int) -> str:
        """The tooltip of cell (*row*, *column*)."""
        own = self.cells[row][column].tip
        return own if own or self.tips is None else self.tips(row, column)


def level_color(level: float) -> QColor:
    """The scale's colour for *level* (clamped to [0, 1]), linear between the stops."""
    level = 0.0 if not math.isfinite(level) else min(1.0, max(0.0, level))
    for (lo, a), (hi, b) in itertools.pairwise(SCALE):
        if level <= hi:
            t = (level - lo) / (hi - lo)
            return QColor(
                round(a.red() + (b.red() - a.red()) * t),
                round(a.green() + (b.green() - a.green()) * t),
                round(a.blue() + (b.blue() - a.blue()) * t),
            )
    return QColor(SCALE[-1][1])


def cell_fill(cell: HeatCell) -> QColor:
    """A cell's fill: grey if refused, red if over budget, else its level's colour."""
    if cell.error:
        return QColor(ERROR_COLOR)
    if cell.over:
        return QColor(OVER_COLOR)
    return level_color(cell.level)


class HeatmapLayout(NamedTuple):
    """Where things go: the plot (the cells), each cell's size, the legend's box, label strides."""

    plot: QRectF
    cell_w: float
    cell_h: float
    legend: QRectF
    label_w: float
    row_stride: int
    column_stride: int


def heatmap_layout(value: HeatmapValue, width: float, height: float, font: QFont | None = None) -> HeatmapLayout:
    """The layout of *value* in a *width* x *height* picture (labels measured with *font*)."""
    metrics = QFontMetricsF(font or QFont())
    widest = max((metrics.horizontalAdvance(r) for r in value.rows), default=0.0)
    label_w = min(170.0, max(40.0, widest)) + LABEL_GAP
    left = MARGIN + label_w
    plot = QRectF(left, MARGIN, max(1.0, width - left - LEGEND_W - MARGIN), max(1.0, height - MARGIN - AXIS_H))
    rows, columns = max(1, len(value.rows)), max(1, len(value.columns))
    cell_w, cell_h = plot.width() / columns, plot.height() / rows
    row_stride = max(1, math.ceil(LABEL_ROW_H / cell_h)) if cell_h > 0 else rows
    column_w = max((metrics.horizontalAdvance(c) for c in value.columns), default=0.0) + 8
    column_stride = max(1, math.ceil(column_w / cell_w)) if cell_w > 0 else columns
    legend = QRectF(plot.right() + 2 * MARGIN, MARGIN, LEGEND_W - 2 * MARGIN, min(plot.height(), 230.0))
    return HeatmapLayout(plot, cell_w, cell_h, legend, label_w, row_stride, column_stride)


def cell_rect(layout: HeatmapLayout, row: int, column: int) -> QRectF:
    plot = layout.plot
    return QRectF(plot.left() + column * layout.cell_w, plot.top() + row * layout.cell_h, layout.cell_w, layout.cell_h)


def cell_at(layout: HeatmapLayout, value: HeatmapValue, pos: QPointF) -> tuple[int, int] | None:
    """The (row, column) under *pos*, or None outside the cells."""
    plot = layout.plot
    if not plot.contains(pos) or not value.rows or not value.columns:
        return None
    row = int((pos.y() - plot.top()) / layout.cell_h)
    column = int((pos.x() - plot.left()) / layout.cell_w)
    if 0 <= row < len(value.rows) and 0 <= column < len(value.columns):
        return row, column
    return None


def _corner(rect: QRectF) -> QPolygonF:
    """The rule-cut mark: a triangle in the cell's top-right corner, at most half its size."""
    side = min(rect.width(), rect.height()) * 0.5
    return QPolygonF([rect.topRight(), rect.topRight() - QPointF(side, 0), rect.topRight() + QPointF(0, side)])


def paint_heatmap(
    p: QPainter,
    value: HeatmapValue,
    width: float,
    height: float,
    palette: QPalette,
    marked: tuple[int, int] | None = None,
    exposed: QRectF | None = None,
) -> HeatmapLayout:
    """Draw *value* in a *width* x *height* area from (0, 0); *marked* gets an outline.

    With *exposed* (a repaint of part of the widget, as scrolling asks) only the rows that
    cross it are drawn: painting a large sweep whole is too slow for scrolling.
    """
    layout = heatmap_layout(value, width, height, p.font())
    text = palette.color(QPalette.ColorRole.WindowText)
    first, stop = visible_rows(layout, len(value.rows), exposed)
    p.fillRect(exposed or QRectF(0, 0, width, height), palette.color(QPalette.ColorRole.Base))
    p.setRenderHint(QPainter.RenderHint.Antialiasing, False)
    for r in range(first, stop):
        for c, cell in enumerate(value.cells[r]):
            rect = cell_rect(layout, r, c)
            p.fillRect(rect, cell_fill(cell))
            if cell.error:
                p.setPen(QPen(QColor("#616161"), 1))
                p.drawLine(rect.topLeft(), rect.bottomRight())
            if cell.rule_cut:
                p.setPen(QPen(QColor("#3d2a00"), 0.8))
                p.setBrush(QBrush(RULE_CUT_COLOR))
                p.drawPolygon(_corner(rect))
                p.setBrush(Qt.BrushStyle.NoBrush)
    # Thin gaps between cells while there is room for them.
    if layout.cell_w >= 8 and layout.cell_h >= 8:
        p.setPen(QPen(palette.color(QPalette.ColorRole.Base), 1))
        for c in range(1, len(value.columns)):
            x = layout.plot.left() + c * layout.cell_w
            p.drawLine(QPointF(x, layout.plot.top()), QPointF(x, layout.plot.bottom()))
        for r in range(max(1, first), stop):
            y = layout.plot.top() + r * layout.cell_h
            p.drawLine(QPointF(layout.plot.left(), y), QPointF(layout.plot.right(), y))
    if marked is not None and marked[0] < len(value.rows) and marked[1] < len(value.columns):
        p.setPen(QPen(text, 2))
        p.drawRect(cell_rect(layout, *marked).adjusted(1, 1, -1, -1))
    _paint_axes(p, value, layout, text, first, stop)
    _paint_legend(p, value, layout, text)
    return layout


def visible_rows(layout: HeatmapLayout, rows: int, exposed: QRectF | None) -> tuple[int, int]:
    """The rows ``[first, stop)`` that cross *exposed* (every row without one)."""
    if exposed is None or layout.cell_h <= 0:
        return 0, rows
    top = (exposed.top() - layout.plot.top()) / layout.cell_h
    bottom = (exposed.bottom() - layout.plot.top()) / layout.cell_h
    return max(0, min(rows, math.floor(top))), max(0, min(rows, math.ceil(bottom) + 1))


def _paint_axes(p: QPainter, value: HeatmapValue, layout: HeatmapLayout, text: QColor, first: int, stop: int) -> None:
    metrics = QFontMetricsF(p.font())
    p.setPen(text)
    plot = layout.plot
    # Labelled rows are every row_stride-th from the first; a label may reach a row below its own.
    start = max(0, (first // layout.row_stride - 1) * layout.row_stride)
    for r in range(start, stop, layout.row_stride):
        rect = QRectF(
            MARGIN, plot.top() + r * layout.cell_h, layout.label_w - LABEL_GAP, max(layout.cell_h, LABEL_ROW_H)
        )
        label = metrics.elidedText(value.rows[r], Qt.TextElideMode.ElideMiddle, rect.width())
        # Centred on its row while rows are tall enough to hold a label each; else at the row's top.
        vertical = Qt.AlignmentFlag.AlignVCenter if layout.row_stride == 1 else Qt.AlignmentFlag.AlignTop
        p.drawText(rect, int(Qt.AlignmentFlag.AlignRight | vertical), label)
    for c in range(0, len(value.columns), layout.column_stride):
        x = plot.left() + (c + 0.5) * layout.cell_w
        p.drawLine(QPointF(x, plot.bottom()), QPointF(x, plot.bottom() + 3))
        rect = QRectF(x - 40, plot.bottom() + 4, 80, metrics.height())
        p.drawText(rect, int(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop), value.columns[c])
    title = QRectF(plot.left(), plot.bottom() + 4 + metrics.height(), plot.width(), metrics.height() + 2)
    p.drawText(title, int(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop), value.column_title)


def _paint_legend(p: QPainter, value: HeatmapValue, layout: HeatmapLayout, text: QColor) -> None:
    metrics = QFontMetricsF(p.font())
    box = layout.legend
    line = metrics.height() + 4
    p.setPen(text)
    y = box.top()
    p.drawText(QRectF(box.left(), y, box.width(), line), int(Qt.AlignmentFlag.AlignLeft), value.legend_title)
    y += line
    bar = QRectF(box.left(), y, 18, 96)
    steps = 48
    for n in range(steps):  # high at the top
        level = 1 - n / (steps - 1)
        p.fillRect(
            QRectF(bar.left(), bar.top() + n * bar.height() / steps, bar.width(), bar.height() / steps + 0.5),
            level_color(level),
        )
    p.setPen(text)
    p.drawRect(bar)
    label_x = bar.right() + 6
    p.drawText(
        QRectF(label_x, bar.top() - 2, box.width() - 24, line), int(Qt.AlignmentFlag.AlignLeft), value.legend_high
    )
    p.drawText(
        QRectF(label_x, bar.bottom() - line + 2, box.width() - 24, line),
        int(Qt.AlignmentFlag.AlignLeft),
        value.legend_low,
    )
    y = bar.bottom() + 10
    swatch = QRectF(box.left(), y, 18, 14)
    p.fillRect(swatch, OVER_COLOR)
    p.drawText(QRectF(label_x, y - 1, box.width() - 24, line), int(Qt.AlignmentFlag.AlignLeft), "over budget")
    y += line + 2
    swatch = QRectF(box.left(), y, 18, 14)
    p.fillRect(swatch, level_color(0.3))
    p.setPen(QPen(QColor("#3d2a00"), 0.8))
    p.setBrush(QBrush(RULE_CUT_COLOR))
    p.drawPolygon(_corner(QRectF(swatch.left(), swatch.top(), swatch.width(), swatch.width())))
    p.setBrush(Qt.BrushStyle.NoBrush)
    p.setPen(text)
    p.drawText(QRectF(label_x, y - 1, box.width() - 24, line), int(Qt.AlignmentFlag.AlignLeft), "matched rule cut")
    y += line + 2
    p.fillRect(QRectF(box.left(), y, 18, 14), ERROR_COLOR)
    p.drawText(QRectF(label_x, y - 1, box.width() - 24, line), int(Qt.AlignmentFlag.AlignLeft), "refused")


# -- pictures off the screen ---------------------------------------------------------------------------


def render_image(value: HeatmapValue, size: QSize, palette: QPalette, font: QFont | None = None) -> QImage:
    """The heatmap painted into an image of *size*."""
    image = QImage(size, QImage.Format.Format_ARGB32)
    image.fill(palette.color(QPalette.ColorRole.Base))
    p = QPainter(image)
    if font is not None:
        p.setFont(font)
    paint_heatmap(p, value, size.width(), size.height(), palette)
    p.end()
    return image


def png_bytes(image: QImage) -> bytes:
    """*image* encoded as PNG in memory (the caller writes it atomically)."""
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    # The stub says bytes for the format; PySide6 wants str at run time.
    image.save(buffer, "PNG")  # type: ignore[call-overload]
    buffer.close()
    return bytes(data.data())


def svg_bytes(value: HeatmapValue, size: QSize, palette: QPalette, title: str, font: QFont | None = None) -> bytes:
    """The heatmap as an SVG document of *size*, drawn by QtSvg's generator into memory."""
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    generator = QSvgGenerator()
    generator.setOutputDevice(buffer)
    generator.setSize(size)
    generator.setViewBox(QRectF(0, 0, size.width(), size.height()))
    generator.setTitle(title)
    generator.setDescription("ctxviewer feature sweep")
    p = QPainter(generator)
    if font is not None:
        p.setFont(font)
    paint_heatmap(p, value, size.width(), size.height(), palette)
    p.end()
    buffer.close()
    return bytes(data.data())


# -- the widget ---------------------------------------------------------------------------------------------


class SweepHeatmap(QWidget):
    """The heatmap on screen: hover for a cell's numbers, click to ask for it (:attr:`cellClicked`)."""

    cellClicked = Signal(int, int)  # row, column

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._value: HeatmapValue | None = None
        self._marked: tuple[int, int] | None = None
        self._empty_text = "Run a sweep to see every task at every budget."
        self.setMouseTracking(True)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setMinimumSize(420, 220)

    def setValue(self, value: HeatmapValue | None) -> None:
        self._value = value
        self._marked = None
        self.updateGeometry()
        self.update()

    def value(self) -> HeatmapValue | None:
        return self._value

    def set_empty_text(self, text: str) -> None:
        self._empty_text = text
        self.update()

    def mark(self, cell: tuple[int, int] | None) -> None:
        """Outline *cell* (the one last opened)."""
        self._marked = cell
        self.update()

    def layout_now(self) -> HeatmapLayout | None:
        if self._value is None:
            return None
        return heatmap_layout(self._value, self.width(), self.height(), self.font())

    def cell_center(self, row: int, column: int) -> QPointF:
        """Where cell (*row*, *column*) is on screen (for tests and keyboard use)."""
        layout = self.layout_now()
        assert layout is not None
        return cell_rect(layout, row, column).center()

    def sizeHint(self) -> QSize:
        rows = len(self._value.rows) if self._value is not None else 10
        return QSize(900, int(2 * MARGIN + AXIS_H + rows * min(MAX_ROW_H, 22.0)))

    def minimumSizeHint(self) -> QSize:
        rows = len(self._value.rows) if self._value is not None else 10
        return QSize(420, int(2 * MARGIN + AXIS_H + rows * MIN_ROW_H))

    def paintEvent(self, event: QPaintEvent) -> None:
        p = QPainter(self)
        if self._value is None or not self._value.rows:
            p.fillRect(self.rect(), self.palette().color(QPalette.ColorRole.Base))
            p.setPen(self.palette().color(QPalette.ColorRole.PlaceholderText))
            draw_empty(p, QRectF(self.rect()), self._empty_text)
        else:
            exposed = QRectF(event.rect())
            paint_heatmap(p, self._value, self.width(), self.height(), self.palette(), self._marked, exposed)
        p.end()

    def _cell_at(self, pos: QPointF) -> tuple[int, int] | None:
        layout = self.layout_now()
        if layout is None or self._value is None:
            return None
        return cell_at(layout, self._value, pos)

    def mouseMoveEvent(self, e: QMouseEvent) -> None:
        # The tooltip follows the cell under the pointer (Qt shows the widget's own tooltip).
        hit = self._cell_at(e.position())
        self.setCursor(Qt.CursorShape.PointingHandCursor if hit is not None else Qt.CursorShape.ArrowCursor)
        tip = plain_tip(self._value.tip(*hit)) if hit is not None and self._value is not None else ""
        if tip != self.toolTip():
            self.setToolTip(tip)
        super().mouseMoveEvent(e)

    def keyPressEvent(self, e: QKeyEvent) -> None:
        """Arrow keys move the marked cell; Enter or Space asks for it, as a click does."""
        value = self._value
        if value is None or not value.rows or not value.columns:
            super().keyPressEvent(e)
            return
        row, column = self._marked or (0, 0)
        moves = {
            Qt.Key.Key_Up: (-1, 0),
            Qt.Key.Key_Down: (1, 0),
            Qt.Key.Key_Left: (0, -1),
            Qt.Key.Key_Right: (0, 1),
        }
        key = Qt.Key(e.key())
        if key in moves:
            if self._marked is not None:
                dr, dc = moves[key]
                row = min(len(value.rows) - 1, max(0, row + dr))
                column = min(len(value.columns) - 1, max(0, column + dc))
            self.mark((row, column))
            self.setToolTip(plain_tip(value.tip(row, column)))
        elif key in (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Space) and self._marked is not None:
            self.cellClicked.emit(row, column)
        else:
            super().keyPressEvent(e)

    def mousePressEvent(self, e: QMouseEvent) -> None:
        hit = self._cell_at(e.position())
        if e.button() == Qt.MouseButton.LeftButton and hit is not None:
            self.mark(hit)
            self.cellClicked.emit(*hit)
            return
        super().mousePressEvent(e)
