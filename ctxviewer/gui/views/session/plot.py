"""The painted usage plot: :class:`UsagePlot` draws a :class:`~ctxviewer.gui.views.session.series.PlotValue`.

Cumulative estimated tokens over tasks (a replay) or minutes (a live log), with the
checkpoint and zone lines, the first checkpoint's marker and the current point; hovering a
point shows its tooltip and clicking it emits ``pointClicked``.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QHelpEvent, QPainter, QPainterPath, QPen, QPolygonF
from PySide6.QtWidgets import QSizePolicy, QToolTip, QWidget

from ctxviewer.gui.views.session.series import PlotValue, plot_top
from ctxviewer.gui.views.session.ticks import finite, nice_ticks, tokens_k
from ctxviewer.gui.widgets.charts import RED, ROLE, zone_color
from ctxviewer.gui.widgets.empty import draw_empty
from ctxviewer.gui.widgets.models import is_dark
from ctxviewer.gui.widgets.plaintext import plain_tip

if TYPE_CHECKING:
    from PySide6.QtGui import QMouseEvent, QPaintEvent

#: The estimate's line: a light and a dark palette variant.
LINE_COLORS = ("#3b6ea5", "#7fb0e6")


class UsagePlot(QWidget):
    """Cumulative estimated tokens over tasks (or minutes), with checkpoint and zone lines.

    :meth:`setCurrent` marks the current point; points after it are drawn faint (not yet
    played).  ``None`` draws every point as played (live mode).
    """

    pointClicked = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setMouseTracking(True)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self._value: PlotValue | None = None
        self._current: int | None = None
        self._empty_text = "No replay"
        self._scale_cache: tuple[PlotValue | None, tuple[int, int, str], tuple[QRectF, float, tuple[float, ...]]] | None
        self._scale_cache = None
        self._xs_cache: tuple[PlotValue, list[float]] | None = None

    def setValue(self, value: PlotValue | None, empty_text: str = "No replay") -> None:
        self._value = value
        self._empty_text = empty_text
        self.update()

    def value(self) -> PlotValue | None:
        return self._value

    def setCurrent(self, index: int | None) -> None:
        """Mark point *index* as current (``-1``: none played yet; None: all played)."""
        self._current = index
        self.update()

    def current(self) -> int | None:
        return self._current

    def sizeHint(self) -> QSize:
        return QSize(360, 200)

    def minimumSizeHint(self) -> QSize:
        return QSize(180, 110)

    # -- geometry ----------------------------------------------------------------------------

    def _small_font(self) -> QFont:
        font = QFont(self.font())
        if font.pointSizeF() > 0:
            font.setPointSizeF(max(6.0, font.pointSizeF() * 0.88))
        return font

    def plot_rect(self) -> QRectF:
        """The data area, inside the axis labels."""
        return QRectF(self._scale()[0])

    def _scale(self) -> tuple[QRectF, float, tuple[float, ...]]:
        """The data area, the x span and the y ticks; computed once per value, size and font."""
        key = (self.width(), self.height(), self.font().key())
        cache = self._scale_cache
        if cache is not None and cache[0] is self._value and cache[1] == key:  # identity: no O(n) compare
            return cache[2]
        fm = QFontMetricsF(self._small_font())
        left = 6 + max(fm.horizontalAdvance(tokens_k(t)) for t in (0, 888_000, 88_800)) + 6
        top = fm.height() + 10
        bottom = self.height() - fm.height() - 8
        right = self.width() - 10
        rect = QRectF(left, top, max(1.0, right - left), max(1.0, bottom - top))
        value = self._value
        span = 1.0
        if value is not None and value.points:
            span = max(finite(x) for x, _ in value.points)
            span = max(1.0, span) if value.integer_x else (span if span > 1e-6 else 1.0)
        ticks: tuple[float, ...] = (0.0, 1.0)
        if value is not None:
            max_ticks = max(1, int(rect.height() // (self.fontMetrics().height() * 1.5)))
            ticks = nice_ticks(plot_top(value), max_ticks)
        scale = (rect, span, ticks)
        self._scale_cache = (self._value, key, scale)
        return scale

    def map_point(self, x: float, tokens: float) -> QPointF:
        """Screen position of ``(x, tokens)``."""
        return self._mapper()(x, tokens)

    def _mapper(self) -> Callable[[float, float], QPointF]:
        """:meth:`map_point` with the scale looked up once, for mapping many points."""
        rect, span, ticks = self._scale()
        left, width, bottom, height, top = rect.left(), rect.width(), rect.bottom(), rect.height(), ticks[-1]

        def to_screen(x: float, tokens: float) -> QPointF:
            px = left + width * min(1.0, max(0.0, finite(x) / span))
            py = bottom - height * min(1.05, max(0.0, finite(tokens) / top))
            return QPointF(px, py)

        return to_screen

    def point_pos(self, index: int) -> QPointF:
        """Screen position of point *index*."""
        assert self._value is not None
        x, t = self._value.points[index]
        return self.map_point(x, t)

    def _x_range(self) -> float:
        return self._scale()[1]

    def _y_ticks(self) -> tuple[float, ...]:
        return self._scale()[2]

    def point_at(self, pos: QPointF) -> int | None:
        """The point nearest to *pos* horizontally, when *pos* is over the plot."""
        value = self._value
        rect = self.plot_rect().adjusted(-8, -8, 8, 8)
        if value is None or not value.points or not rect.contains(pos):
            return None
        # x only grows along a series (task numbers, elapsed minutes): bisect, then compare
        # the two neighbours, instead of mapping every point on each mouse move.
        plot, span, _ticks = self._scale()
        target = (pos.x() - plot.left()) / plot.width() * span if plot.width() > 0 else 0.0
        xs = self._xs()
        i = bisect_left(xs, target)
        best, best_d = None, math.inf
        for j in (i - 1, i):
            if 0 <= j < len(xs):
                d = abs(self.map_point(xs[j], 0).x() - pos.x())
                if d < best_d:
                    best, best_d = j, d
        return best if best_d <= 24 else None

    def _xs(self) -> list[float]:
        value = self._value
        if value is None:
            return []
        if self._xs_cache is None or self._xs_cache[0] is not value:
            self._xs_cache = (value, [finite(x) for x, _ in value.points])
        return self._xs_cache[1]

    def tooltip_for(self, index: int) -> str:
        value = self._value
        if value is None or not 0 <= index < len(value.points):
            return ""
        x, tokens = value.points[index]
        if index < len(value.labels):
            head = value.labels[index]
        else:
            head = f"{x:,.1f} {value.x_title}" if not value.integer_x else f"{value.x_title} {x:g}"
        if index < len(value.details):
            return f"{head}\n{value.details[index]}"
        pct = 100 * tokens / value.max_tokens if value.max_tokens > 0 else 0.0
        return f"{head}\n{tokens:,} tokens ({pct:.1f}%)"

    # -- interaction -------------------------------------------------------------------------

    def event(self, e: QEvent) -> bool:
        if isinstance(e, QHelpEvent) and e.type() == QEvent.Type.ToolTip:
            i = self.point_at(QPointF(e.pos()))
            if i is None:
                QToolTip.hideText()
                e.ignore()
            else:
                QToolTip.showText(e.globalPos(), plain_tip(self.tooltip_for(i)), self)
            return True
        return super().event(e)

    def mouseMoveEvent(self, e: QMouseEvent) -> None:
        i = self.point_at(e.position())
        self.setToolTip("" if i is None else plain_tip(self.tooltip_for(i)))

    def mousePressEvent(self, e: QMouseEvent) -> None:
        i = self.point_at(e.position())
        if e.button() == Qt.MouseButton.LeftButton and i is not None:
            self.pointClicked.emit(i)
        else:
            super().mousePressEvent(e)

    # -- painting ----------------------------------------------------------------------------

    def _vertices(self, upto: int) -> list[QPointF]:
        """The line through points ``0..upto``, from the origin, dropping to 0 after resets."""
        value = self._value
        assert value is not None
        to_screen = self._mapper()
        out = [to_screen(0, 0)] if value.integer_x else []
        resets = set(value.checkpoints) if value.resets else set()
        for i in range(upto + 1):
            x, t = value.points[i]
            out.append(to_screen(x, t))
            if i in resets and i < len(value.points) - 1:
                out.append(to_screen(x, 0))
        return out

    def _decimated(self, vertices: list[QPointF]) -> list[QPointF]:
        """At most about two vertices per pixel column (the highest kept): long live logs."""
        if len(vertices) <= 2 * max(1, self.width()):
            return vertices
        out: list[QPointF] = []
        for v in vertices:
            if out and int(out[-1].x()) == int(v.x()):
                if v.y() < out[-1].y():
                    out[-1] = v
            else:
                out.append(v)
        return out

    def paintEvent(self, event: QPaintEvent) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        pal, value = self.palette(), self._value
        dark = is_dark(pal)
        text = pal.color(ROLE.WindowText)
        faint_text = pal.color(ROLE.PlaceholderText)
        small = self._small_font()
        p.setFont(small)
        fm = p.fontMetrics()
        rect = self.plot_rect()
        if value is None or (not value.points and value.integer_x):
            p.setPen(faint_text)
            draw_empty(p, QRectF(self.rect()), self._empty_text)
            return
        n = len(value.points)
        current = n - 1 if self._current is None else min(self._current, n - 1)
        # Title row: what is plotted, and the current figure.
        p.setPen(text)
        title_rect = QRectF(rect.left(), 2, rect.width(), fm.height() + 4)
        title = value.title
        p.drawText(title_rect, int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), title)
        if 0 <= current < n:
            x, t = value.points[current]
            pct = 100 * t / value.max_tokens if value.max_tokens > 0 else 0.0
            where = f"task {current + 1}/{n}" if value.integer_x else f"{x:,.1f} min"
            figure = f"{where}: {tokens_k(t)} ({pct:.1f}%)"
            avail = title_rect.width() - fm.horizontalAdvance(title) - 12
            figure = fm.elidedText(figure, Qt.TextElideMode.ElideLeft, max(0, int(avail)))
            p.drawText(title_rect, int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter), figure)
        # Grid and y axis.
        grid = QColor(pal.color(ROLE.Mid))
        grid.setAlpha(90)
        for tick in self._y_ticks():
            y = self.map_point(0, tick).y()
            p.setPen(QPen(grid, 1))
            p.drawLine(QPointF(rect.left(), y), QPointF(rect.right(), y))
            p.setPen(faint_text)
            label_r = QRectF(0, y - fm.height() / 2, rect.left() - 5, fm.height())
            p.drawText(label_r, int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter), tokens_k(tick))
        axis = QColor(pal.color(ROLE.Mid))
        p.setPen(QPen(axis, 1))
        p.drawLine(rect.bottomLeft(), rect.bottomRight())
        self._paint_x_axis(p, value, rect, faint_text)
        # Checkpoint and zone lines (drawn under the series, labelled after it).
        line_labels = []
        for name, percent, zi in value.lines():
            color = QColor(RED) if zi < 0 else zone_color(zi, dark)
            tokens = value.max_tokens * min(100.0, max(0.0, percent)) / 100
            y = self.map_point(0, tokens).y()
            p.setPen(QPen(color, 1.4, Qt.PenStyle.DashLine))
            p.drawLine(QPointF(rect.left(), y), QPointF(rect.right(), y))
            line_labels.append((y, f"{name} {percent:g}%", color))
        # The series: played part solid, the rest faint.
        line_color = QColor(LINE_COLORS[1] if dark else LINE_COLORS[0])
        all_v = self._decimated(self._vertices(n - 1))
        if current == n - 1:  # live, or a replay at its end: the same line, built once
            played_v = all_v
        else:
            played_v = self._decimated(self._vertices(current)) if current >= 0 else [self.map_point(0, 0)]
        base_y = rect.bottom()
        for verts, alpha_fill, alpha_line in ((all_v, 22, 70), (played_v, 70, 255)):
            if len(verts) < 1:
                continue
            fill = QColor(line_color)
            fill.setAlpha(alpha_fill)
            area = QPolygonF([QPointF(verts[0].x(), base_y), *verts, QPointF(verts[-1].x(), base_y)])
            p.setPen(Qt.PenStyle.NoPen)
            p.setBrush(fill)
            p.drawPolygon(area)
            stroke = QColor(line_color)
            stroke.setAlpha(alpha_line)
            p.setPen(QPen(stroke, 2 if alpha_line == 255 else 1.5))
            p.setBrush(Qt.BrushStyle.NoBrush)
            path = QPainterPath(verts[0])
            for v in verts[1:]:
                path.lineTo(v)
            p.drawPath(path)
        # Dots at each point when there is room; checkpoints in red.
        spacing = rect.width() / max(1, n)
        checkpoints = set(value.checkpoints)
        if spacing >= 7:
            for i in range(n):
                pos = self.point_pos(i)
                color = QColor(RED) if i in checkpoints else QColor(line_color)
                if i > current:
                    color.setAlpha(90)
                p.setPen(Qt.PenStyle.NoPen)
                p.setBrush(color)
                p.drawEllipse(pos, 2.8, 2.8)
        # The first checkpoint: a vertical marker with a short label.
        fc = value.first_checkpoint
        if fc is not None and 0 <= fc < n:
            x = self.point_pos(fc).x()
            marker = QColor(RED)
            if fc > current:
                marker.setAlpha(110)
            p.setPen(QPen(marker, 1.6))
            p.drawLine(QPointF(x, rect.top()), QPointF(x, rect.bottom()))
            label = "checkpoint"
            w = fm.horizontalAdvance(label) + 6
            lx = x + 4 if x + 4 + w <= rect.right() else x - 4 - w
            box = QRectF(lx, rect.bottom() - fm.height() - 3, w, fm.height())
            back = QColor(pal.color(ROLE.Window))
            back.setAlpha(200)
            p.fillRect(box, back)
            p.setPen(marker)
            p.drawText(box, int(Qt.AlignmentFlag.AlignCenter), label)
        # The current point: a band and a ring.
        if 0 <= current < n and self._current is not None:
            pos = self.point_pos(current)
            band = QColor(pal.color(ROLE.Highlight))
            band.setAlpha(45)
            p.fillRect(QRectF(pos.x() - 5, rect.top(), 10, rect.height()), band)
            p.setPen(QPen(pal.color(ROLE.Highlight), 2))
            p.setBrush(QColor(RED) if current in checkpoints else line_color)
            p.drawEllipse(pos, 5, 5)
        elif self._current is None and n:
            pos = self.point_pos(n - 1)
            p.setPen(QPen(pal.color(ROLE.Highlight), 2))
            p.setBrush(line_color)
            p.drawEllipse(pos, 4.5, 4.5)
        self._paint_line_labels(p, line_labels, rect)

    def _paint_x_axis(self, p: QPainter, value: PlotValue, rect: QRectF, color: QColor) -> None:
        fm = p.fontMetrics()
        span = self._x_range()
        if value.integer_x:
            n = max(1, round(span))
            widest = fm.horizontalAdvance(str(n)) + 10
            every = 1
            for candidate in (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000, 10_000):
                every = candidate
                if rect.width() / n * candidate >= widest:
                    break
            ticks: list[float] = [float(i) for i in range(0, n + 1, every)]
        else:
            widest = fm.horizontalAdvance("888.8") + 10
            ticks = list(nice_ticks(span, max(1, int(rect.width() // widest))))
            ticks = [t for t in ticks if t <= span * 1.0001]
        y = rect.bottom() + 3
        p.setPen(color)
        right_edge = float(self.width())
        for t in ticks:
            x = self.map_point(t, 0).x()
            label = f"{t:g}"
            w = fm.horizontalAdvance(label) + 4
            lx = min(max(0.0, x - w / 2), right_edge - w)
            p.drawLine(QPointF(x, rect.bottom()), QPointF(x, rect.bottom() + 2))
            p.drawText(QRectF(lx, y, w, fm.height()), int(Qt.AlignmentFlag.AlignCenter), label)

    def _paint_line_labels(self, p: QPainter, labels: list[tuple[float, str, QColor]], rect: QRectF) -> None:
        """Each line's name at its right end, above the line (below when taken), never overlapping."""
        fm = p.fontMetrics()
        h = fm.height()
        placed: list[QRectF] = []
        back = QColor(self.palette().color(ROLE.Window))
        back.setAlpha(210)
        for y, label, color in sorted(labels, key=lambda e: e[0]):
            w = fm.horizontalAdvance(label) + 6
            candidates = [
                QRectF(rect.right() - w, y - h - 1, w, h),
                QRectF(rect.right() - w, y + 1, w, h),
                QRectF(rect.right() - 2 * w - 8, y - h - 1, w, h),
                QRectF(rect.left() + 2, y - h - 1, w, h),
                QRectF(rect.left() + 2, y + 1, w, h),
            ]
            box = next(
                (c for c in candidates if c.top() >= 0 and not any(c.intersects(o) for o in placed)),
                candidates[0],
            )
            placed.append(box)
            p.fillRect(box, back)
            p.setPen(color)
            p.drawText(box, int(Qt.AlignmentFlag.AlignCenter), label)
