"""A painted strip per setting: where along it one candidate is in the context, and where out.

The widget takes plain :class:`StripRow` values (made by :func:`strip_rows` from an exact
:class:`~ctxviewer.engine.runs.sensitivity.Sensitivity`) and knows nothing of runs.  A numeric
axis that runs far past where anything changes is drawn linearly over the interesting part and
the rest as a compressed log tail; choice axes are cells.  The layout is a pure function
(:func:`strip_layout`) and the tooltip of a point is :func:`tip_at`, so tests can find a span's
pixels.  See docs/sensitivity.md.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QImage, QPainter, QPalette, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from ctxviewer.engine.project.settings import show_setting
from ctxviewer.engine.runs.sensitivity import CHOICE, SHARE, TOKENS, Axis, Sensitivity
from ctxviewer.engine.trace.model import fate_label
from ctxviewer.gui.widgets.models import is_dark, status_colour
from ctxviewer.gui.widgets.plaintext import plain_tip

if TYPE_CHECKING:
    from PySide6.QtGui import QMouseEvent, QPaintEvent

#: The colour of a status the fate table has no colour for (a candidate absent at a value).
ABSENT_COLOR = QColor("#d9d9d9")
#: Geometry (pixels): the label column's width, the bar's height, a row's whole height.
LABEL_W, BAR_H, ROW_H, MARGIN = 160, 14, 34, 4
#: A narrow widget's label column: this share of its width, at least MIN_LABEL_W.
LABEL_SHARE, MIN_LABEL_W = 0.3, 96
#: The share of the bar the compressed tail takes, when a row has one.
TAIL_SHARE = 0.12
#: The linear part ends this much above the interesting end (the ceiling, the current value).
HEADROOM = 1.1
#: The bracket of the real system's range sits this far under the bar.
BRACKET_GAP = 3


@dataclass(frozen=True, slots=True)
class StripSpan:
    """Positions *lo*..*hi* (both included) of a row at which the candidate has *status*."""

    lo: int
    hi: int
    status: str
    #: The exact interval and fate in words, the span's tooltip.
    tip: str


@dataclass(frozen=True, slots=True)
class StripRow:
    """One setting's strip: its positions *lo*..*hi*, the spans along them, the current position.

    Positions are integers: the budget, a share's section budget, top_k, or a choice's index.
    Positions above *linear_end* are drawn in the compressed tail (none when it is *hi*).
    """

    key: str
    label: str
    kind: str
    lo: int
    hi: int
    current: int
    current_text: str
    spans: tuple[StripSpan, ...]
    linear_end: int
    #: What the row's ends (and the tail's start) are called under the bar.
    lo_text: str = ""
    hi_text: str = ""
    tail_text: str = ""
    #: Choice rows: each cell's value in words.
    cells: tuple[str, ...] = ()
    #: The positions a suggestion may use, when narrower than the row (the real system's range).
    suggest: tuple[int, int] | None = None
    suggest_tip: str = ""

    @property
    def has_tail(self) -> bool:
        return self.kind != CHOICE and self.linear_end < self.hi


def axis_label(key: str) -> str:
    """A setting's name as the strip's label: ``security share``, ``top-k``."""
    return "top-k" if key == "top_k" else key.replace("_", " ")


def _nice_above(value: float) -> int:
    """A round number at or above *value* (two significant digits)."""
    if value <= 10:
        return max(1, math.ceil(value))
    step = 10 ** (int(math.log10(value)) - 1)
    return int(math.ceil(value / step) * step)


def compact(value: int) -> str:
    """A large number short, for the narrow tail: ``10M``, ``20k``, ``4,800``."""
    for size, suffix in ((1_000_000, "M"), (1_000, "k")):
        if value >= 10 * size and value % size == 0:
            return f"{value // size:,}{suffix}"
    return f"{value:,}"


def _interval(axis: Axis, lo: object, hi: object, lo_pos: int, hi_pos: int) -> str:
    """An interval of *axis* in words, as the tooltip says it."""
    if axis.kind == CHOICE:
        return show_setting(lo) if lo is not None else "unset"
    if axis.kind == SHARE:
        section = f"section budget {lo_pos:,}" if lo_pos == hi_pos else f"section budget {lo_pos:,}\u2013{hi_pos:,}"
        if hi_pos >= axis.hi:
            return f"{show_setting(lo)}\u2013{show_setting(hi)} ({section} of {axis.of_budget:,})"
        return f"{show_setting(lo)} to under {show_setting(hi)} ({section} of {axis.of_budget:,})"
    if hi_pos >= axis.hi and lo_pos > axis.lo:
        return f"{lo_pos:,} and above"
    if lo_pos == hi_pos:
        return f"{lo_pos:,}"
    return f"{lo_pos:,}\u2013{hi_pos:,}"


def _runs(sens: Sensitivity, axis: Axis, index: int) -> list[tuple[int, int, str]]:
    """The axis's positions in runs of one status of candidate *index* (as Sensitivity.strip merges them)."""
    runs: list[tuple[int, int, str]] = []
    for seg in axis.segments:
        status = sens.vectors[seg.vector][index]
        if runs and runs[-1][2] == status and runs[-1][1] + 1 == seg.lo:
            runs[-1] = (runs[-1][0], seg.hi, status)
        else:
            runs.append((seg.lo, seg.hi, status))
    return runs


def strip_row(sens: Sensitivity, item_id: str, axis: Axis) -> StripRow:
    """The strip of candidate *item_id* along *axis*."""
    index = sens.item_ids.index(item_id)
    label = axis_label(axis.key)
    runs = _runs(sens, axis, index)
    values = sens.strip(item_id, axis.key)
    spans = tuple(
        StripSpan(lo, hi, status, f"{label} {_interval(axis, v.lo, v.hi, lo, hi)}: {fate_label(status)}")
        for (lo, hi, status), v in zip(runs, values, strict=True)
    )
    current = axis.position_of_current()
    if axis.kind == CHOICE:
        cells = tuple("unset" if v is None else show_setting(v) for v in axis.choices)
        return StripRow(
            axis.key, label, axis.kind, axis.lo, axis.hi, current, cells[current], spans, axis.hi, cells=cells
        )
    if axis.kind == SHARE:
        return StripRow(
            axis.key,
            label,
            axis.kind,
            axis.lo,
            axis.hi,
            current,
            show_setting(axis.current),
            spans,
            axis.hi,
            lo_text="0",
            hi_text=show_setting(axis.max_share),
        )
    # tokens and counts: linear up to a little above where the last change is, then the tail.
    knee = axis.ceiling if axis.ceiling is not None else axis.segments[-1].lo
    interesting = max(knee, current, axis.lo + 1)
    end = _nice_above(interesting * HEADROOM)
    linear_end = min(axis.hi, end)
    suggest = None
    if (axis.suggest_lo, axis.suggest_hi) != (axis.lo, axis.hi) and axis.suggest_hi > axis.suggest_lo:
        suggest = (max(axis.lo, axis.suggest_lo), min(axis.hi, axis.suggest_hi))
    what = "budget" if axis.kind == TOKENS else label
    return StripRow(
        axis.key,
        label,
        axis.kind,
        axis.lo,
        axis.hi,
        current,
        show_setting(axis.current),
        spans,
        linear_end,
        lo_text=f"{axis.lo:,}",
        hi_text=compact(axis.hi) if linear_end < axis.hi else f"{axis.hi:,}",
        tail_text=f"{linear_end:,}",
        suggest=suggest,
        suggest_tip=(
            ""
            if suggest is None
            else f"The real system's {what} range: {suggest[0]:,}\u2013{suggest[1]:,} "
            "(a suggested change stays inside it)"
        ),
    )


def strip_rows(sens: Sensitivity, item_id: str) -> tuple[StripRow, ...]:
    """One strip per axis of *sens* for candidate *item_id*."""
    return tuple(strip_row(sens, item_id, axis) for axis in sens.axes)


# -- geometry ------------------------------------------------------------------------------


def edge(row: StripRow, position: float) -> float:
    """Where (0..1 of the bar) position *position*'s left edge is; ``hi + 1`` is the bar's end."""
    if row.kind == CHOICE:
        count = max(1, len(row.cells))
        return min(1.0, max(0.0, (position - row.lo) / count))
    end = row.hi + 1
    if not row.has_tail:
        return min(1.0, max(0.0, (position - row.lo) / max(1, end - row.lo)))
    knee = row.linear_end + 1
    linear = 1.0 - TAIL_SHARE
    if position <= knee:
        return max(0.0, linear * (position - row.lo) / max(1, knee - row.lo))
    return min(1.0, linear + TAIL_SHARE * math.log(position / knee) / math.log(end / knee))


@dataclass(frozen=True, slots=True)
class StripLayout:
    """Where the bars are: the label column's width, the bars' left edge and width, each row's bar top."""

    bar_left: float
    bar_width: float
    tops: tuple[float, ...]
    label_width: float = LABEL_W

    def x(self, row: StripRow, position: float) -> float:
        return self.bar_left + self.bar_width * edge(row, position)


def strip_layout(rows: Sequence[StripRow], width: float) -> StripLayout:
    """The layout of *rows* in a widget *width* pixels wide."""
    # In a narrow pane (the Computed tab's) the labels give way first, down to MIN_LABEL_W.
    label_width = float(min(LABEL_W, max(MIN_LABEL_W, int(width * LABEL_SHARE))))
    bar_left = label_width + MARGIN
    bar_width = max(40.0, width - bar_left - 2 * MARGIN)
    tops = tuple(MARGIN + 10.0 + n * ROW_H for n in range(len(rows)))
    return StripLayout(bar_left, bar_width, tops, label_width)


def span_rect(layout: StripLayout, rows: Sequence[StripRow], row: int, span: int) -> QRectF:
    """The bar's rectangle of span *span* of row *row*."""
    r, s = rows[row], rows[row].spans[span]
    left, right = layout.x(r, s.lo), layout.x(r, s.hi + 1)
    return QRectF(left, layout.tops[row], max(1.0, right - left), BAR_H)


def span_at(layout: StripLayout, rows: Sequence[StripRow], point: QPointF) -> tuple[int, int] | None:
    """The (row, span) under *point*, or None."""
    for n, top in enumerate(layout.tops):
        if not top <= point.y() <= top + BAR_H:
            continue
        for s in range(len(rows[n].spans)):
            rect = span_rect(layout, rows, n, s)
            if rect.left() <= point.x() <= rect.right():
                return n, s
    return None


def tip_at(layout: StripLayout, rows: Sequence[StripRow], point: QPointF) -> str:
    """The tooltip at *point*: the span's interval and fate, the row's name and value, or ''."""
    hit = span_at(layout, rows, point)
    if hit is not None:
        return rows[hit[0]].spans[hit[1]].tip
    for n, top in enumerate(layout.tops):
        row = rows[n]
        under = top + BAR_H <= point.y() <= top + BAR_H + BRACKET_GAP + 4
        if row.suggest is not None and under:
            left, right = layout.x(row, row.suggest[0]), layout.x(row, row.suggest[1] + 1)
            if left <= point.x() <= right:
                return row.suggest_tip
        if top - 10 <= point.y() <= top + BAR_H and point.x() < layout.bar_left:
            return f"{row.label}: {row.current_text} now (the black mark)"
    return ""


def fill_colour(status: str, dark: bool) -> QColor:
    """A span's fill: its fate's colour, as the tables write it."""
    if status in ("included", "truncated", "cut_for_budget", "outranked", "not_candidate"):
        return status_colour(status, dark)
    return ABSENT_COLOR


# -- painting ------------------------------------------------------------------------------


def paint_strips(p: QPainter, rows: Sequence[StripRow], width: float, palette: QPalette) -> StripLayout:
    """Draw *rows* from (0, 0) in a *width*-wide area; returns the layout used."""
    layout = strip_layout(rows, width)
    dark = is_dark(palette)
    text = palette.color(QPalette.ColorRole.WindowText)
    muted = palette.color(QPalette.ColorRole.PlaceholderText)
    base_font = QFont(p.font())
    small = QFont(base_font)
    small.setPointSizeF(max(6.0, base_font.pointSizeF() * 0.85))
    small_metrics = QFontMetricsF(small)
    bold = QFont(base_font)
    bold.setBold(True)
    p.setRenderHint(QPainter.RenderHint.Antialiasing, False)
    for n, row in enumerate(rows):
        top = layout.tops[n]
        # The label: the setting's name, its value now.
        p.setPen(text)
        p.setFont(bold)
        label_w = layout.label_width - 8
        name_rect = QRectF(MARGIN, top - 4, label_w, BAR_H + 8)
        name = QFontMetricsF(bold).elidedText(row.label, Qt.TextElideMode.ElideRight, label_w)
        p.drawText(name_rect, int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), name)
        p.setFont(small)
        p.setPen(muted)
        p.drawText(
            QRectF(MARGIN, top + BAR_H + BRACKET_GAP + 2, label_w, small_metrics.height()),
            int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop),
            small_metrics.elidedText(f"now {row.current_text}", Qt.TextElideMode.ElideRight, label_w),
        )
        # The spans.
        for s, span in enumerate(row.spans):
            p.fillRect(span_rect(layout, rows, n, s), fill_colour(span.status, dark))
        if row.kind == CHOICE:  # cell borders and values
            p.setPen(QPen(palette.color(QPalette.ColorRole.Base), 1))
            for c in range(1, len(row.cells)):
                x = layout.x(row, row.lo + c)
                p.drawLine(QPointF(x, top), QPointF(x, top + BAR_H))
            p.setPen(muted)
            for c, cell in enumerate(row.cells):
                left, right = layout.x(row, row.lo + c), layout.x(row, row.lo + c + 1)
                p.drawText(
                    QRectF(left, top + BAR_H + 1, right - left, small_metrics.height()),
                    int(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop),
                    small_metrics.elidedText(cell, Qt.TextElideMode.ElideRight, right - left - 4),
                )
        else:
            labels_top = top + BAR_H + BRACKET_GAP + 2
            label_h = small_metrics.height()
            p.setPen(muted)
            p.drawText(
                QRectF(layout.bar_left, labels_top, layout.bar_width / 2, label_h),
                int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop),
                row.lo_text,
            )
            p.drawText(
                QRectF(layout.bar_left + layout.bar_width / 2, labels_top, layout.bar_width / 2, label_h),
                int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignTop),
                row.hi_text,
            )
            if row.has_tail:
                # The break: two slanted strokes in the window's colour where the tail starts.
                x = layout.x(row, row.linear_end + 1)
                p.setRenderHint(QPainter.RenderHint.Antialiasing, True)
                p.setPen(QPen(palette.color(QPalette.ColorRole.Window), 2))
                for dx in (-2.0, 2.0):
                    p.drawLine(QPointF(x + dx - 3, top + BAR_H + 1), QPointF(x + dx + 3, top - 1))
                p.setRenderHint(QPainter.RenderHint.Antialiasing, False)
                p.setPen(muted)
                tail = f"{row.tail_text} \u2026"
                width_needed = small_metrics.horizontalAdvance(tail) + 2
                p.drawText(
                    QRectF(x - width_needed - 2, labels_top, width_needed, label_h),  # left of the break
                    int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignTop),
                    tail,
                )
            if row.suggest is not None:  # the real system's range: a bracket under the bar
                left, right = layout.x(row, row.suggest[0]), layout.x(row, row.suggest[1] + 1)
                y = top + BAR_H + BRACKET_GAP
                p.setPen(QPen(text, 1))
                p.drawLine(QPointF(left, y), QPointF(right, y))
                p.drawLine(QPointF(left, y - 2), QPointF(left, y + 2))
                p.drawLine(QPointF(right, y - 2), QPointF(right, y + 2))
        # The current value: a black (white on dark) line across the bar -- a frame round a
        # switch's cell -- and a notch above it.
        mark = QColor("#ffffff") if dark else QColor("#000000")
        p.setPen(QPen(mark, 2))
        if row.kind == CHOICE:
            left, right = layout.x(row, row.current), layout.x(row, row.current + 1)
            x = (left + right) / 2
            p.drawRect(QRectF(left + 1, top, right - left - 2, BAR_H))
        else:
            x = layout.x(row, row.current)
            p.drawLine(QPointF(x, top - 3), QPointF(x, top + BAR_H + 1))
        p.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        p.setBrush(mark)
        p.setPen(Qt.PenStyle.NoPen)
        p.drawPolygon([QPointF(x - 4, top - 8), QPointF(x + 4, top - 8), QPointF(x, top - 3)])
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.setRenderHint(QPainter.RenderHint.Antialiasing, False)
    p.setFont(base_font)
    return layout


def strips_height(rows: Sequence[StripRow]) -> int:
    return int(MARGIN + 10 + ROW_H * len(rows))


def render_image(rows: Sequence[StripRow], size: QSize, palette: QPalette, font: QFont | None = None) -> QImage:
    """The strips painted into an image of *size* (for tests and exports)."""
    image = QImage(size, QImage.Format.Format_ARGB32)
    image.fill(palette.color(QPalette.ColorRole.Window))
    p = QPainter(image)
    if font is not None:
        p.setFont(font)
    paint_strips(p, rows, size.width(), palette)
    p.end()
    return image


class SensitivityStrip(QWidget):
    """The strips of one candidate (set with :meth:`set_rows`); a hovered span tells its interval."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._rows: tuple[StripRow, ...] = ()
        self.setMouseTracking(True)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)

    def set_rows(self, rows: Sequence[StripRow]) -> None:
        self._rows = tuple(rows)
        self.setToolTip("")
        self.updateGeometry()
        self.update()

    def rows(self) -> tuple[StripRow, ...]:
        return self._rows

    def layout_now(self) -> StripLayout:
        return strip_layout(self._rows, self.width())

    def sizeHint(self) -> QSize:
        return QSize(LABEL_W + 360, strips_height(self._rows))

    def minimumSizeHint(self) -> QSize:
        return QSize(MIN_LABEL_W + 120, strips_height(self._rows))

    def paintEvent(self, event: QPaintEvent) -> None:
        p = QPainter(self)
        paint_strips(p, self._rows, self.width(), self.palette())
        p.end()

    def tip_at(self, point: QPointF) -> str:
        return tip_at(self.layout_now(), self._rows, point)

    def mouseMoveEvent(self, e: QMouseEvent) -> None:
        # The tooltip follows the span under the pointer (Qt shows the widget's own tooltip).
        tip = plain_tip(self.tip_at(e.position()))
        if tip != self.toolTip():
            self.setToolTip(tip)
        super().mouseMoveEvent(e)
