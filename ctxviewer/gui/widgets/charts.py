"""Painted charts of one assembly run: budget shares, trim steps, tracker gauge.

Each widget takes a small frozen value object (:class:`ShareValue`, :class:`TrimValue`,
:class:`GaugeValue`) and knows nothing of :class:`~ctxviewer.engine.trace.model.Trace`; the
``from_trace``/``from_tracker`` constructors build those values from a trace.  The layout
arithmetic lives in pure functions (:func:`share_layout`, :func:`fraction`,
:func:`trim_spans`, :func:`gauge_geometry`, :func:`zone_ticks`, :func:`label_rect`) so it
can be tested exactly.  Painting clamps
whatever it is given (zero budgets, negative or huge counts) and never raises.  See docs/gui.md.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

from PySide6.QtCore import (
    Property,
    QEasingCurve,
    QEvent,
    QPointF,
    QPropertyAnimation,
    QRectF,
    QSize,
    Qt,
    Signal,
)
from PySide6.QtGui import QBrush, QColor, QFont, QHelpEvent, QPainter, QPalette, QPen
from PySide6.QtWidgets import QToolTip, QWidget

from ctxviewer.engine.trace.model import step_label
from ctxviewer.gui.widgets.empty import NO_TASK, draw_empty
from ctxviewer.gui.widgets.models import is_dark
from ctxviewer.gui.widgets.plaintext import plain_tip

if TYPE_CHECKING:
    from PySide6.QtGui import QKeyEvent, QMouseEvent, QPaintEvent

    from ctxviewer.engine.tokens.counting import TokenCounts
    from ctxviewer.engine.trace.model import Trace, TrackerState

#: Segment colours (Tableau 10 without its red): mid-tone, readable on light and dark.
SEGMENT_COLORS = ("#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#76b7b2", "#edc948", "#9c755f")
OVER_COLOR, REMOVED_COLOR = QColor("#d62728"), QColor("#e8743b")
GREEN, AMBER, RED = QColor("#3a9d4a"), QColor("#e6a700"), QColor("#d62728")
#: Colours of the further usage zones (light palette, dark palette): apart from the gauge's
#: green/amber/red and from the checkpoint's own mark, distinct from one another.
ZONE_COLORS = (("#7b4fd0", "#b59cf5"), ("#0f7f8e", "#4fd1e0"), ("#b8327f", "#f27cc0"), ("#6b7a0c", "#c2d14a"))
#: Alpha of the red tint over the dial's track beyond the checkpoint.
OVER_TINT_ALPHA = 55
MINUS, ARROW = "\u2212", "\u2192"
MARGIN, BAR_H, ROW_H, TRIM_ROW_H = 8, 22, 34, 30
ARC_START, ARC_SPAN = 210.0, 240.0  # degrees, counter-clockwise from 3 o'clock
GAUGE_THICKNESS = 0.14  # ring thickness as a fraction of the dial's radius
ALIGN, ROLE = Qt.AlignmentFlag, QPalette.ColorRole
LEFT, RIGHT, CENTER = ALIGN.AlignLeft, ALIGN.AlignRight, ALIGN.AlignHCenter


def segment_color(index: int) -> QColor:
    """The legend colour of the *index*-th segment (the same in the bar and the rows)."""
    return QColor(SEGMENT_COLORS[index % len(SEGMENT_COLORS)])


def zone_color(index: int, dark: bool = False) -> QColor:
    """The colour of the *index*-th further zone (zones sorted by percent), for a light or dark palette."""
    light, dark_c = ZONE_COLORS[index % len(ZONE_COLORS)]
    return QColor(dark_c if dark else light)


def _num(value: Any) -> float:
    """A finite float; 0 for NaN, infinities and garbage."""
    try:
        v = float(value)
    except (TypeError, ValueError, OverflowError):
        return 0.0
    return v if math.isfinite(v) else 0.0


def _pos(value: Any) -> int:
    return max(0, int(_num(value)))


def percent_text(part: int, whole: int) -> str:
    """``part/whole`` as ``"41.7%"`` (rounded half up); ``"-"`` when *whole* is not positive."""
    part, whole = _pos(part), _pos(whole)
    if whole == 0:
        return "-"
    tenths = (2000 * part + whole) // (2 * whole)
    return f"{tenths // 10:,}.{tenths % 10}%"


def fraction(part: float, whole: float) -> float:
    """``part/whole`` clamped to [0, 1]; a positive part of a zero whole is a full 1."""
    part, whole = max(0.0, _num(part)), max(0.0, _num(whole))
    if whole <= 0:
        return 1.0 if part > 0 else 0.0
    return min(1.0, part / whole)


# -- values ------------------------------------------------------------------------------


@dataclass(frozen=True)
class ShareSegment:
    """One section of the context: its tokens and its own budget."""

    name: str
    title: str
    tokens: int
    budget: int


@dataclass(frozen=True)
class ShareValue:
    """How the context's sections share the total budget (whose last ``buffer`` is reserve)."""

    segments: tuple[ShareSegment, ...]
    total_budget: int
    buffer: int
    tokenizer: str
    #: The whole context's count (sections plus the separators between them), when known.
    context: int | None = None

    @classmethod
    def from_trace(cls, trace: Trace) -> ShareValue:
        def tokens(counts: TokenCounts) -> int:
            value = counts.get(trace.tokenizer)
            return int(counts.heuristic if value is None else value)

        segments = tuple(ShareSegment(s.name, s.title, tokens(s.tokens), s.budget) for s in trace.sections)
        return cls(segments, trace.budget, trace.buffer, trace.tokenizer, tokens(trace.context_tokens))

    @property
    def used(self) -> int:
        """The whole context, as the header and the sections table count it (not the sum of
        the sections: the blank lines joining them count too)."""
        sections = sum(_pos(s.tokens) for s in self.segments)
        return max(sections, _pos(self.context)) if self.context is not None else sections


@dataclass(frozen=True)
class TrimBar:
    """One trim step: tokens before and after the cut."""

    label: str
    before: int
    after: int


@dataclass(frozen=True)
class TrimValue:
    """The run's trim steps in order, measured in ``unit`` (e.g. ``"heuristic tokens"``)."""

    steps: tuple[TrimBar, ...]
    unit: str

    @classmethod
    def from_trace(cls, trace: Trace) -> TrimValue:
        steps = tuple(
            TrimBar(
                f"{s.order}. {trace.step_target(s) or s.section.replace('_', ' ')}: {step_label(s.action)}",
                s.tokens_before,
                s.tokens_after,
            )
            for s in trace.trim_steps
        )
        return cls(steps, f"{trace.tokenizer} tokens")


@dataclass(frozen=True)
class GaugeValue:
    """The tracker's estimated usage of the model's context against its checkpoint threshold.

    ``zones`` are further thresholds besides the checkpoint, as ``(name, percent)``
    (e.g. ``(("compaction", 75.0),)``), each marked on the dial in its own colour.
    """

    used: int
    maximum: int
    threshold_percent: float
    label: str = ""
    zones: tuple[tuple[str, float], ...] = ()

    @classmethod
    def from_tracker(cls, tracker: TrackerState) -> GaugeValue:
        zones = sorted(
            ((n, _num(p)) for n, p in tracker.zones.items() if n != "checkpoint"), key=lambda z: (z[1], z[0])
        )
        return cls(tracker.estimated_tokens, tracker.max_tokens, tracker.threshold_percent, zones=tuple(zones))

    @property
    def percent(self) -> float:
        maximum = _num(self.maximum)
        return 100 * _num(self.used) / maximum if maximum > 0 else 0.0

    @property
    def over_threshold(self) -> bool:
        # As the engine's ContextUsage.is_over_threshold: usage_percent >= threshold_percent.
        return self.percent >= self.threshold_percent


# -- pure layout -------------------------------------------------------------------------


class ShareLayout(NamedTuple):
    """Rectangles of the whole-context bar for one :class:`ShareValue`."""

    segments: tuple[QRectF, ...]
    buffer: QRectF
    budget_x: float
    overflow: QRectF | None


def share_layout(value: ShareValue, rect: QRectF) -> ShareLayout:
    """Segments side by side in *rect*, whose width stands for ``max(total_budget, used)``."""
    budget, used = _pos(value.total_budget), value.used
    scale = rect.width() / max(budget, used) if max(budget, used) > 0 else 0.0
    x, segments = rect.left(), []
    for seg in value.segments:
        w = _pos(seg.tokens) * scale
        segments.append(QRectF(x, rect.top(), w, rect.height()))
        x += w
    budget_x = rect.left() + budget * scale
    buffer_w = min(_pos(value.buffer), budget) * scale
    buffer = QRectF(budget_x - buffer_w, rect.top(), buffer_w, rect.height())
    overflow = None
    if used > budget:
        overflow = QRectF(budget_x, rect.top(), (used - budget) * scale, rect.height())
    return ShareLayout(tuple(segments), buffer, budget_x, overflow)


def trim_spans(step: TrimBar, scale: int, width: float) -> tuple[float, float]:
    """Widths of the kept (0..after) and removed (after..before) parts of one trim bar."""
    before = _pos(step.before)
    kept = min(_pos(step.after), before)
    unit = width / scale if scale > 0 else 0.0
    return kept * unit, (before - kept) * unit


def gauge_geometry(width: float, height: float, mx: float, my: float) -> tuple[QPointF, float]:
    """Centre and outer radius of a 240 degree dial (1.5 radii tall) inside margins mx, my."""
    w, h = max(0.0, width - 2 * mx), max(0.0, height - 2 * my)
    r = max(1.0, min(w / 2, h / 1.5))
    return QPointF(width / 2, my + (h - 1.5 * r) / 2 + r), r


def gauge_direction(percent: float) -> QPointF:
    """Unit vector (y down, as on screen) from the dial's centre to *percent* (clamped) of the arc."""
    angle = math.radians(ARC_START - ARC_SPAN * min(100.0, max(0.0, _num(percent))) / 100)
    return QPointF(math.cos(angle), -math.sin(angle))


class ZoneTick(NamedTuple):
    """Where one further zone is marked on the dial."""

    name: str
    percent: float  # clamped to [0, 100]
    direction: QPointF  # unit vector from the centre, y down
    inner: QPointF
    outer: QPointF
    color_index: int  # for :func:`zone_color`


def zone_ticks(zones: Sequence[tuple[str, float]], centre: QPointF, inner: float, outer: float) -> tuple[ZoneTick, ...]:
    """A radial tick from *inner* to *outer* radius for each zone, coloured by its position."""
    ticks = []
    for index, (name, percent) in enumerate(zones):
        clamped = min(100.0, max(0.0, _num(percent)))
        d = gauge_direction(clamped)
        ticks.append(ZoneTick(str(name), clamped, d, centre + d * inner, centre + d * outer, index))
    return tuple(ticks)


def label_rect(anchor: QPointF, direction: QPointF, width: float, height: float, bounds: QRectF) -> QRectF:
    """A *width* x *height* label beside *anchor*, on the side *direction* points to, kept in *bounds*."""
    dx, dy = direction.x(), direction.y()
    x = anchor.x() - (0 if dx > 0.3 else width if dx < -0.3 else width / 2)
    y = anchor.y() - (height if dy < -0.3 else 0 if dy > 0.3 else height / 2)
    x = min(max(bounds.left(), x), bounds.right() - width)
    y = min(max(bounds.top(), y), bounds.bottom() - height)
    return QRectF(x, y, width, height)


def gauge_color(percent: float, threshold: float) -> QColor:
    """Red at/over the threshold, amber within 10 points under it, green below."""
    if percent >= threshold:
        return QColor(RED)
    return QColor(AMBER if percent >= threshold - 10 else GREEN)


#: Parts of a row's bar: start and end as fractions of the track, and how to fill them.
Fills = Sequence[tuple[float, float, QBrush]]


def _contrast(color: QColor) -> QColor:
    lum = 0.299 * color.redF() + 0.587 * color.greenF() + 0.114 * color.blueF()
    return QColor("#111111" if lum > 0.55 else "#ffffff")


def _text(p: QPainter, rect: QRectF, text: str, align: Qt.AlignmentFlag = CENTER) -> None:
    """Draw *text* elided to *rect*'s width, vertically centred."""
    elided = p.fontMetrics().elidedText(text, Qt.TextElideMode.ElideRight, max(0, int(rect.width())))
    p.drawText(rect, int(align | Qt.AlignmentFlag.AlignVCenter), elided)


# -- widgets -----------------------------------------------------------------------------


class _Chart(QWidget):
    """Shared behaviour of the row charts: value, rows, focus, tooltips, clicks and keys."""

    ROW = ROW_H

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setMouseTracking(True)
        self._value: Any = None
        self._texts: tuple[tuple[str, str], ...] = ()
        #: The widest label and figure, for the texts and the font they were measured for.
        self._widest: tuple[object, str, float, float] = ((), "", 0.0, 0.0)
        self._current = 0

    def setValue(self, value: Any) -> None:
        self._value = value
        self._texts = self._make_texts()
        self._current = 0
        self.updateGeometry()
        self.update()

    def value(self) -> Any:
        return self._value

    def _make_texts(self) -> tuple[tuple[str, str], ...]:
        """(label, figure) of each row."""
        return ()

    def _rows_top(self) -> float:
        return MARGIN + self.fontMetrics().height() + 6

    def sizeHint(self) -> QSize:
        return QSize(600, int(self._rows_top()) + self.ROW * max(1, len(self._texts)) + MARGIN)

    def minimumSizeHint(self) -> QSize:
        return QSize(160, int(self._rows_top()) + self.ROW)

    def row_rect(self, index: int) -> QRectF:
        """The full-width rectangle of the *index*-th row."""
        top = self._rows_top() + index * self.ROW
        return QRectF(MARGIN, top, max(0.0, self.width() - 2.0 * MARGIN), self.ROW)

    def _columns(self, index: int, bar_h: float) -> tuple[QRectF, QRectF, QRectF]:
        """Label, bar track and figure rectangles of one row, sized to the widest texts."""
        row = self.row_rect(index)
        widest_label, widest_figure = self._widest_texts()
        label_w = min(row.width() * 0.35, widest_label + 12.0)
        fig_w = min(row.width() * 0.35, widest_figure + 12.0)
        bar_w = max(0.0, row.width() - label_w - fig_w)
        return (
            QRectF(row.left(), row.top(), label_w, row.height()),
            QRectF(row.left() + label_w, row.center().y() - bar_h / 2, bar_w, bar_h),
            QRectF(row.right() - fig_w, row.top(), fig_w, row.height()),
        )

    def _widest_texts(self) -> tuple[float, float]:
        """The widest label and figure in the font: measured once a value and font, not for
        every row of every paint."""
        texts, font = self._texts, self.font().key()
        measured, measured_font, label, figure = self._widest
        if measured is not texts or measured_font != font:
            fm, rows = self.fontMetrics(), texts or (("", ""),)
            label = max(fm.horizontalAdvance(t) for t, _ in rows)
            figure = max(fm.horizontalAdvance(t) for _, t in rows)
            self._widest = (texts, font, label, figure)
        return label, figure

    def _index_at(self, pos: QPointF) -> int | None:
        return next((i for i in range(len(self._texts)) if self.row_rect(i).contains(pos)), None)

    def _tooltip(self, index: int) -> str:
        return ""

    def _activate(self, index: int) -> None:
        pass

    def _paint_focus(self, p: QPainter, rect: QRectF) -> None:
        p.setPen(QPen(self.palette().color(ROLE.Highlight), 2, Qt.PenStyle.DashLine))
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.drawRoundedRect(rect, 3, 3)

    def event(self, e: QEvent) -> bool:
        if isinstance(e, QHelpEvent) and e.type() == QEvent.Type.ToolTip:
            i = self._index_at(QPointF(e.pos()))
            if i is None:
                QToolTip.hideText()
                e.ignore()
            else:
                QToolTip.showText(e.globalPos(), plain_tip(self._tooltip(i)), self)
            return True
        return super().event(e)

    def mouseMoveEvent(self, e: QMouseEvent) -> None:
        i = self._index_at(e.position())
        self.setToolTip("" if i is None else plain_tip(self._tooltip(i)))

    def mousePressEvent(self, e: QMouseEvent) -> None:
        i = self._index_at(e.position())
        if e.button() != Qt.MouseButton.LeftButton or i is None:
            super().mousePressEvent(e)
            return
        self._current = i
        self.update()
        self._activate(i)

    def keyPressEvent(self, e: QKeyEvent) -> None:
        key, n, k = e.key(), len(self._texts), Qt.Key
        if n and key in (k.Key_Left, k.Key_Up, k.Key_Right, k.Key_Down):
            step = -1 if key in (k.Key_Left, k.Key_Up) else 1
            self._current = min(n - 1, max(0, self._current + step))
            self.update()
        elif n and key in (k.Key_Return, k.Key_Enter, k.Key_Space):
            self._activate(min(self._current, n - 1))
        else:
            super().keyPressEvent(e)

    def _paint_row(self, p: QPainter, i: int, bar_h: float, fills: Fills, alert: bool) -> None:
        """Label, a track with *fills* (start, end fractions and brush), figure, focus."""
        (label_text, figure), (label, track, fig) = self._texts[i], self._columns(i, bar_h)
        text, pal = self.palette().color(ROLE.Text), self.palette()
        p.setPen(text)
        _text(p, label, label_text, LEFT)
        p.setPen(QPen(OVER_COLOR, 1.5) if alert else QPen(pal.color(ROLE.Mid), 1))
        p.setBrush(pal.color(ROLE.Base))
        p.drawRoundedRect(track, 3, 3)
        for start, end, brush in fills:
            x0, w = track.left() + start * track.width(), (end - start) * track.width()
            p.fillRect(QRectF(x0, track.top(), w, track.height()), brush)
        p.setPen(OVER_COLOR if alert else text)
        _text(p, fig, figure, RIGHT)
        if self.hasFocus() and i == self._current:
            self._paint_focus(p, self.row_rect(i).adjusted(-3, 1, 3, -1))

    def _painter(self) -> QPainter:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        return p

    def _empty(self, p: QPainter, text: str) -> None:
        """Why the chart is empty, in words, wrapped to its width."""
        p.setPen(self.palette().color(ROLE.PlaceholderText))
        draw_empty(p, QRectF(self.rect()), text)


class ShareChart(_Chart):
    """One stacked bar of the whole context, then one bar per section against its budget.

    A *compact* chart (two side by side in the Compare tab) leaves the percentages out of
    the section rows and the buffer note out of the caption; the tooltips keep them.
    """

    sectionClicked = Signal(str)

    def __init__(self, parent: QWidget | None = None, compact: bool = False) -> None:
        super().__init__(parent)
        self.compact = compact

    def setValue(self, value: ShareValue | None) -> None:
        """Show *value*; None shows a short empty-state message."""
        super().setValue(value)

    def value(self) -> ShareValue | None:
        return self._value  # type: ignore[no-any-return]

    def _make_texts(self) -> tuple[tuple[str, str], ...]:
        v = self._value

        def figure(s: ShareSegment) -> str:
            text = f"{_pos(s.tokens):,} / {_pos(s.budget):,}"
            return text if self.compact else f"{text} ({percent_text(s.tokens, s.budget)})"

        return tuple((s.title or s.name, figure(s)) for s in (v.segments if v else ()))

    def _rows_top(self) -> float:
        return self.bar_rect().bottom() + self.fontMetrics().height() + 8

    def bar_rect(self) -> QRectF:
        """Where the whole-context bar is drawn."""
        top = MARGIN + self.fontMetrics().height() + 4
        return QRectF(MARGIN, top, max(0.0, self.width() - 2.0 * MARGIN), BAR_H)

    def segment_at(self, pos: QPointF) -> str | None:
        """The name of the segment (in the bar or its row) under *pos*, else None."""
        i = self._index_at(pos)
        return None if i is None else self._value.segments[i].name

    def _index_at(self, pos: QPointF) -> int | None:
        if self._value is None:
            return None
        for i, r in enumerate(share_layout(self._value, self.bar_rect()).segments):
            if r.width() > 0 and r.contains(pos):
                return i
        return super()._index_at(pos)

    def _tooltip(self, index: int) -> str:
        s, unit = self._value.segments[index], self._value.tokenizer
        text = f"{s.title or s.name}: {_pos(s.tokens):,} {unit} tokens of a {_pos(s.budget):,} "
        text += f"budget ({percent_text(s.tokens, s.budget)})"
        over = _pos(s.tokens) - _pos(s.budget)
        return text + (f", over by {over:,}" if over > 0 else "")

    def _activate(self, index: int) -> None:
        self.sectionClicked.emit(self._value.segments[index].name)

    def paintEvent(self, event: QPaintEvent) -> None:
        p, value, pal = self._painter(), self._value, self.palette()
        if value is None or not value.segments:
            self._empty(p, NO_TASK if value is None else "No sections")
            return
        text, mid, fm = pal.color(ROLE.Text), pal.color(ROLE.Mid), p.fontMetrics()
        budget, used = _pos(value.total_budget), value.used
        cap = QRectF(MARGIN, MARGIN, self.width() - 2 * MARGIN, fm.height())
        right = f"over budget by {used - budget:,}" if used > budget else ""
        left = f"{used:,} / {budget:,} {value.tokenizer} tokens ({percent_text(used, budget)})"
        if _pos(value.buffer) and not self.compact:
            left += f" \u00b7 hatched: {_pos(value.buffer):,}-token buffer"
        p.setPen(text)
        _text(p, cap.adjusted(0, 0, -fm.horizontalAdvance(right) - 8 if right else 0, 0), left, LEFT)
        p.setPen(OVER_COLOR)
        _text(p, cap, right, RIGHT)
        bar = self.bar_rect()
        lay = share_layout(value, bar)
        p.setPen(QPen(mid, 1))
        p.setBrush(pal.color(ROLE.Base))
        p.drawRect(bar)
        for i, r in enumerate(lay.segments):
            p.fillRect(r, segment_color(i))
            if r.width() > 40:
                p.setPen(_contrast(segment_color(i)))
                _text(p, r.adjusted(4, 0, -4, 0), self._texts[i][0], LEFT)
        hatch = QColor(text)
        hatch.setAlpha(120)
        p.fillRect(lay.buffer, QBrush(hatch, Qt.BrushStyle.BDiagPattern))
        p.setPen(QPen(hatch, 1, Qt.PenStyle.DashLine))
        p.drawLine(QPointF(lay.buffer.left(), bar.top()), QPointF(lay.buffer.left(), bar.bottom()))
        if lay.overflow is not None:
            p.fillRect(lay.overflow, QBrush(OVER_COLOR, Qt.BrushStyle.DiagCrossPattern))
            p.setPen(QPen(OVER_COLOR, 2))
            p.setBrush(Qt.BrushStyle.NoBrush)
            p.drawRect(lay.overflow.adjusted(1, 1, -1, -1))
        p.setPen(QPen(text, 2))
        p.drawLine(QPointF(lay.budget_x, bar.top() - 3), QPointF(lay.budget_x, bar.bottom() + 3))
        mark = f"budget {budget:,}"
        mw = fm.horizontalAdvance(mark) + 4
        mx = min(max(lay.budget_x - mw / 2, bar.left()), max(bar.left(), bar.right() - mw))
        _text(p, QRectF(mx, bar.bottom() + 3, mw, fm.height()), mark, LEFT)
        if self.hasFocus() and self._current < len(lay.segments):
            self._paint_focus(p, lay.segments[self._current].adjusted(-1, -1, 1, 1))
        for i, s in enumerate(value.segments):
            fill = ((0.0, fraction(s.tokens, s.budget), QBrush(segment_color(i))),)
            self._paint_row(p, i, 12, fill, _pos(s.tokens) > _pos(s.budget))


class TrimChart(_Chart):
    """A waterfall of trim steps: each bar is ``before`` tokens, the removed tail marked."""

    ROW = TRIM_ROW_H
    stepClicked = Signal(int)

    def setValue(self, value: TrimValue | None) -> None:
        """Show *value*; None (or no steps) shows a short empty-state message."""
        super().setValue(value)

    def value(self) -> TrimValue | None:
        return self._value  # type: ignore[no-any-return]

    def _make_texts(self) -> tuple[tuple[str, str], ...]:
        def figure(s: TrimBar) -> str:
            before, after = _pos(s.before), min(_pos(s.after), _pos(s.before))
            cut = f"{MINUS}{before - after:,}" if after < before else "unchanged"
            return f"{before:,} {ARROW} {after:,} ({cut})"

        return tuple((s.label, figure(s)) for s in (self._value.steps if self._value else ()))

    def step_at(self, pos: QPointF) -> int | None:
        """Index of the step whose row is under *pos*, else None."""
        return self._index_at(pos)

    def _tooltip(self, index: int) -> str:
        s = self._value.steps[index]
        before = _pos(s.before)
        removed = before - min(_pos(s.after), before)
        unit, figure = self._value.unit, self._texts[index][1]
        return f"{s.label}: {figure} {unit}, {percent_text(removed, before)} removed"

    def _activate(self, index: int) -> None:
        self.stepClicked.emit(index)

    def paintEvent(self, event: QPaintEvent) -> None:
        p, value = self._painter(), self._value
        if value is None or not value.steps:
            self._empty(p, NO_TASK if value is None else "No trimming was needed")
            return
        text, fm = self.palette().color(ROLE.Text), p.fontMetrics()
        cap = QRectF(MARGIN, MARGIN, self.width() - 2 * MARGIN, fm.height())
        legend = (("kept", segment_color(0)), ("removed", REMOVED_COLOR))
        legend_w = sum(fm.horizontalAdvance(t) + 22 for t, _ in legend)
        p.setPen(text)
        _text(p, cap.adjusted(0, 0, -legend_w, 0), f"Trim steps in order, before \u2192 after ({value.unit})", LEFT)
        x = cap.right() - legend_w
        for t, color in legend:
            if x >= cap.left():
                p.fillRect(QRectF(x + 4, cap.center().y() - 5, 10, 10), color)
                _text(p, QRectF(x + 18, cap.top(), fm.horizontalAdvance(t) + 4, cap.height()), t, LEFT)
            x += fm.horizontalAdvance(t) + 22
        scale, faded = max(_pos(s.before) for s in value.steps), QColor(REMOVED_COLOR)
        faded.setAlpha(110)
        for i, s in enumerate(value.steps):
            kept, removed = trim_spans(s, scale, 1.0)
            cut = (QBrush(faded), QBrush(REMOVED_COLOR, Qt.BrushStyle.BDiagPattern))
            fills = [(0.0, kept, QBrush(segment_color(0)))] + [(kept, kept + removed, b) for b in cut]
            self._paint_row(p, i, 14, fills, False)


class Gauge(QWidget):
    """A 240 degree dial of tracker usage with the checkpoint threshold marked.

    Painting reads :attr:`displayed` (a percent), never the value directly, so a replay
    can animate it; ``setValue(value, animate=True)`` eases there in 250 ms.
    """

    animationFinished = Signal()
    displayedChanged = Signal(float)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._value: GaugeValue | None = None
        self._displayed = 0.0
        self._anim = QPropertyAnimation(self, b"displayed", self)
        self._anim.setDuration(250)
        self._anim.setEasingCurve(QEasingCurve.Type.OutCubic)
        self._anim.finished.connect(self.animationFinished)

    def _get_displayed(self) -> float:
        return self._displayed

    def _set_displayed(self, percent: float) -> None:
        self._displayed = _num(percent)
        self.displayedChanged.emit(self._displayed)
        self.update()

    displayed = Property(float, _get_displayed, _set_displayed, notify=displayedChanged)

    def setValue(self, value: GaugeValue | None, animate: bool = False) -> None:
        self._value = value
        target = value.percent if value is not None else 0.0
        self._anim.stop()
        if animate:
            self._anim.setStartValue(float(self._displayed))
            self._anim.setEndValue(float(target))
            self._anim.start()
        else:
            self._set_displayed(target)

    def value(self) -> GaugeValue | None:
        return self._value

    def sizeHint(self) -> QSize:
        return QSize(220, 180)

    def minimumSizeHint(self) -> QSize:
        return QSize(100, 80)

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        return max(80, int(width * 0.82))

    def geometry_of_dial(self) -> tuple[QPointF, float]:
        """Centre and outer radius of the dial at the current size."""
        fm = self.fontMetrics()
        return gauge_geometry(self.width(), self.height(), fm.horizontalAdvance("100%") / 2, fm.height() + 4)

    def paintEvent(self, event: QPaintEvent) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        pal, fm, value = self.palette(), self.fontMetrics(), self._value
        text = pal.color(ROLE.Text)
        centre, r = self.geometry_of_dial()
        thick = max(3.0, r * GAUGE_THICKNESS)
        rr = max(1.0, r - thick / 2)
        arc = QRectF(centre.x() - rr, centre.y() - rr, 2 * rr, 2 * rr)
        track = QColor(pal.color(ROLE.Mid))
        track.setAlpha(110)
        flat = Qt.PenCapStyle.FlatCap
        p.setPen(QPen(track, thick, Qt.PenStyle.SolidLine, flat))
        p.drawArc(arc, int(ARC_START * 16), int(-ARC_SPAN * 16))
        if value is None:
            p.setPen(pal.color(ROLE.PlaceholderText))
            _text(p, arc, "No tracker data")
            return
        threshold = min(100.0, max(0.0, _num(value.threshold_percent)))
        shown = min(100.0, max(0.0, self._displayed))
        # The track beyond the checkpoint, tinted: the part of the dial the worker must not reach.
        tint = QColor(RED)
        tint.setAlpha(OVER_TINT_ALPHA)
        p.setPen(QPen(tint, thick, Qt.PenStyle.SolidLine, flat))
        start_angle = ARC_START - ARC_SPAN * threshold / 100
        p.drawArc(arc, int(start_angle * 16), int(-ARC_SPAN * (100 - threshold) / 100 * 16))
        p.setPen(
            QPen(
                gauge_color(self._displayed, _num(value.threshold_percent)),
                thick,
                Qt.PenStyle.SolidLine,
                flat,
            )
        )
        p.drawArc(arc, int(ARC_START * 16), int(-ARC_SPAN * shown / 100 * 16))
        inner, outer = rr - thick / 2 - 3, rr + thick / 2 + 3
        bounds = QRectF(self.rect())
        # The further zones, then the checkpoint on top: a tick in the text colour and its percent.
        d = gauge_direction(threshold)
        mark = f"{threshold:g}%"
        mark_rect = label_rect(centre + d * (outer + 2), d, fm.horizontalAdvance(mark) + 2, fm.height(), bounds)
        legend = self._paint_zones(p, value, centre, inner, outer, [mark_rect])
        p.setPen(QPen(text, 2))
        p.drawLine(centre + d * inner, centre + d * outer)
        _text(p, mark_rect, mark)
        inner_w, used_text = (
            2 * (rr - thick),
            f"{_pos(value.used):,} / {_pos(value.maximum):,} tokens",
        )
        big, small = QFont(self.font()), QFont(self.font())
        big.setPixelSize(max(8, int(r * 0.3)))
        big.setBold(True)
        wide = fm.horizontalAdvance(used_text)
        if wide > 1.7 * rr and small.pointSizeF() > 0:  # shrink to fit the dial's open bottom
            small.setPointSizeF(max(6.0, small.pointSizeF() * 1.7 * rr / wide))
        p.setPen(text)
        p.setFont(big)
        top = QRectF(centre.x() - inner_w / 2, centre.y() - r * 0.32, inner_w, r * 0.4)
        _text(p, top, f"{self._displayed:,.1f}%")
        p.setFont(small)
        lh = p.fontMetrics().height()
        line = QRectF(centre.x() - 0.85 * rr, centre.y() + r * 0.1, 1.7 * rr, lh)
        _text(p, line, used_text)
        p.setPen(pal.color(ROLE.PlaceholderText))
        _text(p, line.translated(0, lh), f"checkpoint {threshold:g}%")
        if legend:  # zone names that did not fit beside their ticks, in their colours, wrapped
            gap, fmx = 10.0, p.fontMetrics()
            rows: list[list[tuple[str, QColor, float]]] = [[]]
            for name, pct, color in legend:
                label = f"{name} {pct:g}%"
                w = min(float(fmx.horizontalAdvance(label)), line.width())
                used = sum(e[2] + gap for e in rows[-1])
                if rows[-1] and used + w > line.width():
                    rows.append([])
                rows[-1].append((label, color, w))
            y = line.top() + 2 * lh
            for row in rows:
                if y + lh > self.height():
                    break
                x = centre.x() - (sum(e[2] for e in row) + gap * (len(row) - 1)) / 2
                for label, color, w in row:
                    p.setPen(color)
                    _text(p, QRectF(x, y, w + 1, lh), label, LEFT)
                    x += w + gap
                y += lh
        if value.label:
            p.setPen(text)
            _text(p, QRectF(top.left(), top.top() - lh, inner_w, lh), value.label)

    def _paint_zones(
        self, p: QPainter, value: GaugeValue, centre: QPointF, inner: float, outer: float, placed: list[QRectF]
    ) -> list[tuple[str, float, QColor]]:
        """Ticks and labels of the further zones; returns the zones whose name did not fit."""
        dark, bounds = is_dark(self.palette()), QRectF(self.rect())
        small = QFont(self.font())
        if small.pointSizeF() > 0:
            small.setPointSizeF(max(6.0, small.pointSizeF() * 0.88))
        p.save()
        p.setFont(small)
        fm = p.fontMetrics()
        anywhere = bounds.adjusted(-1e6, -1e6, 1e6, 1e6)  # place first, then check it fits
        unnamed: list[tuple[str, float, QColor]] = []
        for tick in zone_ticks(value.zones, centre, inner, outer):
            color = zone_color(tick.color_index, dark)
            p.setPen(QPen(color, 2.5))
            p.drawLine(tick.inner, tick.outer)
            anchor = centre + tick.direction * (outer + 2)
            chosen: QRectF | None = None
            label = ""
            for label in (f"{tick.name} {tick.percent:g}%", f"{tick.percent:g}%"):
                w, h = fm.horizontalAdvance(label) + 2, fm.height()
                for shift in (0.0, h, -h, 2 * h, -2 * h):
                    want = label_rect(anchor + QPointF(0, shift), tick.direction, w, h, anywhere)
                    if bounds.contains(want) and not any(want.intersects(o) for o in placed):
                        chosen = want
                        break
                if chosen is not None:
                    break
            if chosen is None:  # nowhere free: the short label, kept in the widget
                chosen = label_rect(anchor, tick.direction, fm.horizontalAdvance(label) + 2, fm.height(), bounds)
            if not label.startswith(tick.name) or not tick.name:
                unnamed.append((tick.name, tick.percent, color))
            placed.append(chosen)
            p.setPen(color)
            _text(p, chosen, label)
        p.restore()
        return unnamed
