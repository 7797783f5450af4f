"""The *Window* tab: the task's context in the worker's whole context window (seed 003).

:class:`WindowChart` paints seed 003's box diagram to scale: the blocks stacked from the top,
free space, the response reserve at the bottom and a dashed line at each threshold; blocks too
thin to see are drawn again beside the column, enlarged by a stated factor and still in
proportion (never larger than their share of their own column).  The arithmetic is in pure
functions (:func:`window_geometry`, :func:`inset_geometry`, :func:`spread_labels`,
:func:`window_summary`), tested exactly.  :class:`WindowLayoutTab` adds a summary and a table.
See docs/gui.md.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

from PySide6.QtCore import QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFontMetrics, QPainter, QPen, QResizeEvent
from PySide6.QtWidgets import QLabel, QSplitter, QVBoxLayout, QWidget

from ctxviewer.engine.trace.model import Trace, WindowBlock, WindowLayout
from ctxviewer.gui.widgets.charts import (
    LEFT,
    MARGIN,
    OVER_COLOR,
    RIGHT,
    ROLE,
    _Chart,
    _pos,
    _text,
    percent_text,
    segment_color,
    zone_color,
)
from ctxviewer.gui.widgets.empty import NO_TASK
from ctxviewer.gui.widgets.models import Column, fmt_int, is_dark
from ctxviewer.gui.widgets.splitters import is_user_sized
from ctxviewer.gui.widgets.tables import RecordTable

if TYPE_CHECKING:
    from PySide6.QtGui import QPaintEvent

#: The block kept at the bottom of the column (the rest stack from the top).
RESERVE = "reserve"
#: The checkpoint threshold's name (drawn in the text colour, the others in zone colours).
CHECKPOINT = "checkpoint"
#: The height :func:`window_geometry` can keep every block at, when asked (the chart does
#: not ask: its column is to scale, and thin blocks are shown enlarged beside it).
MIN_BLOCK_H = 14.0
#: The stacked blocks are shown enlarged beside the column when one of them (with tokens)
#: would be thinner than this at the window's scale (pixels).
INSET_BELOW = 8.0
#: ... and only when that enlarges them at least this much.
INSET_MIN_FACTOR = 1.5
#: The gap between the column and its enlargement, where the guide lines run (pixels).
INSET_GAP = 26.0
#: Reserve colours (light palette, dark palette): neutral, apart from the blocks' own.
RESERVE_COLORS = ("#a7a9ad", "#6b6e74")

NO_TRACE = NO_TASK
NO_LAYOUT = "This trace has no window layout (it was saved by an older ctxviewer)."


# -- pure layout ---------------------------------------------------------------------------


class ThresholdLine(NamedTuple):
    """One threshold across the window: its name, percent, tokens and where it is drawn."""

    name: str
    percent: float
    tokens: int
    y: float


class WindowGeometry(NamedTuple):
    """Where each part of the window is drawn in the column rectangle."""

    blocks: tuple[tuple[str, QRectF], ...]  # in the layout's order (the reserve where it is)
    free: QRectF  # between the stacked blocks and the reserve (height 0 when none is left)
    thresholds: tuple[ThresholdLine, ...]
    enlarged: frozenset[str]  # blocks drawn taller than their tokens (the minimum height)
    scale: float  # pixels per token
    window_y: float  # where the window ends (the column's bottom unless the blocks overflow it)


def window_geometry(layout: WindowLayout, rect: QRectF, min_height: float = 0.0) -> WindowGeometry:
    """Blocks stacked down from the top of *rect*, the reserve at its bottom, free space between.

    *rect*'s height stands for ``max(window, used)`` tokens; by default every block is
    exactly to scale.  With *min_height*, a block is at least that tall (a zero-token
    block too); when that makes the blocks taller than *rect*, the blocks above the
    minimum give up height in proportion.  Thresholds are measured from the top at the
    true scale.
    """
    total = max(_pos(layout.window), layout.used, 1)
    height = max(0.0, rect.height())
    scale = height / total
    min_h = min(max(0.0, min_height), height / max(1, len(layout.blocks)))
    exact = [_pos(b.tokens) * scale for b in layout.blocks]
    heights = [max(min_h, h) for h in exact]
    excess = sum(heights) - height
    if excess > 0:
        room = sum(h - min_h for h in heights if h > min_h)
        if room > 0:
            heights = [h - (h - min_h) * min(1.0, excess / room) if h > min_h else h for h in heights]
    enlarged = frozenset(b.name for b, h, e in zip(layout.blocks, heights, exact, strict=True) if h > e + 0.5)
    rects: list[tuple[str, QRectF]] = []
    y = rect.top()
    reserve_h = sum(h for b, h in zip(layout.blocks, heights, strict=True) if b.name == RESERVE)
    reserve_top = rect.bottom() - reserve_h
    for block, h in zip(layout.blocks, heights, strict=True):
        if block.name == RESERVE:
            rects.append((block.name, QRectF(rect.left(), reserve_top, rect.width(), h)))
        else:
            rects.append((block.name, QRectF(rect.left(), y, rect.width(), h)))
            y += h
    free = QRectF(rect.left(), y, rect.width(), max(0.0, reserve_top - y))
    lines = []
    for name, pct in layout.thresholds:
        at = layout.threshold_tokens(pct)
        lines.append(ThresholdLine(str(name), float(pct), at, rect.top() + at * scale))
    return WindowGeometry(tuple(rects), free, tuple(lines), enlarged, scale, rect.top() + _pos(layout.window) * scale)


class InsetGeometry(NamedTuple):
    """The stacked blocks drawn again, enlarged, beside the column: each to the inset's scale."""

    blocks: tuple[tuple[str, QRectF], ...]  # the blocks above the free space (not the reserve)
    tokens: int  # what the inset's height stands for: those blocks' tokens together
    scale: float  # pixels per token in the inset
    factor: float  # the inset's scale over the column's
    source: QRectF  # the part of the column it enlarges (its top to the free space)
    thresholds: tuple[ThresholdLine, ...]  # the thresholds that fall inside it, at its scale


def inset_geometry(layout: WindowLayout, geo: WindowGeometry, rect: QRectF) -> InsetGeometry | None:
    """The stacked blocks to scale in *rect*, when they are too thin to see in the column.

    None when every block with tokens is at least ``INSET_BELOW`` pixels tall at the
    column's scale, or when *rect* would not enlarge them ``INSET_MIN_FACTOR`` times.
    """
    stacked = [b for b in layout.blocks if b.name != RESERVE]
    tokens = sum(_pos(b.tokens) for b in stacked)
    if tokens <= 0 or rect.height() <= 0 or geo.scale <= 0:
        return None
    if min(_pos(b.tokens) * geo.scale for b in stacked if _pos(b.tokens) > 0) >= INSET_BELOW:
        return None
    scale = rect.height() / tokens
    if scale / geo.scale < INSET_MIN_FACTOR:
        return None
    rects: list[tuple[str, QRectF]] = []
    y = rect.top()
    for b in stacked:
        h = _pos(b.tokens) * scale
        rects.append((b.name, QRectF(rect.left(), y, rect.width(), h)))
        y += h
    tops = [r for name, r in geo.blocks if name != RESERVE]
    source = QRectF(tops[0].left(), tops[0].top(), tops[0].width(), tokens * geo.scale)
    lines = tuple(
        ThresholdLine(t.name, t.percent, t.tokens, rect.top() + t.tokens * scale)
        for t in geo.thresholds
        if t.tokens <= tokens
    )
    return InsetGeometry(tuple(rects), tokens, scale, scale / geo.scale, source, lines)


def factor_text(factor: float) -> str:
    """The enlargement as a times sign and a number (63 or 2.5), rounded as far as it is worth saying."""
    return f"\u00d7{factor:,.0f}" if factor >= 10 else f"\u00d7{factor:.1f}"


def end_line(layout: WindowLayout, geo: WindowGeometry) -> ThresholdLine | None:
    """The end of the window, drawn as a line when the blocks overflow it (else None)."""
    if layout.used <= _pos(layout.window):
        return None
    return ThresholdLine("end of window", 100.0, _pos(layout.window), geo.window_y)


def spread_labels(wanted: Sequence[float], height: float, top: float, bottom: float) -> list[float]:
    """Top edges of labels *height* tall, each as near its wanted centre as it can be
    without overlapping the others, kept between *top* and *bottom* (in the given order)."""
    ys: list[float] = []
    for centre in wanted:
        y = max(top, centre - height / 2)
        if ys:
            y = max(y, ys[-1] + height)
        ys.append(y)
    for i in range(len(ys) - 1, -1, -1):  # pull back up what ran past the bottom
        ys[i] = min(ys[i], bottom - height if i == len(ys) - 1 else ys[i + 1] - height)
    if ys:  # too many to fit: keep the first in bounds; the last ones overlap
        ys[0] = max(top, ys[0])
    return ys


def threshold_phrase(layout: WindowLayout, name: str, percent: float) -> str:
    """``97,682 to the checkpoint at 70% (140,000)``, or how far it is already passed."""
    at = layout.threshold_tokens(percent)
    left = at - layout.used_without_reserve
    what = "the checkpoint" if name == CHECKPOINT else name
    where = f"{what} at {percent:g}% ({at:,})"
    if left <= 0:
        return f"{where} already passed by {-left:,}" if left < 0 else f"{where} reached exactly"
    return f"{left:,} to {where}"


def window_summary(layout: WindowLayout | None) -> str:
    """The window in a sentence: what is used, with and without the reserve, and how far each threshold is."""
    if layout is None:
        return NO_LAYOUT
    used, window = layout.used, _pos(layout.window)
    bare = layout.used_without_reserve
    reserve = used - bare
    text = f"Used {used:,} of {window:,} ({percent_text(used, window)}) with the reserve"
    if reserve:
        text += f"; {bare:,} ({percent_text(bare, window)}) without the {reserve:,}-token reserve"
    if used > window:
        text += f"; over the window by {used - window:,}"
    phrases = [threshold_phrase(layout, n, p) for n, p in layout.thresholds]
    return text + (". " + "; ".join(phrases) + "." if phrases else ".")


def block_label(block: WindowBlock, window: int, enlarged: bool, short: bool = False) -> str:
    """``Base prompt: 300 tokens (0.2%) — drawn larger than scale`` (*short*: ``Base prompt 300 (0.2%) ↕``)."""
    if short:
        return f"{block.title} {_pos(block.tokens):,} ({percent_text(block.tokens, window)})" + (
            " \u2195" if enlarged else ""
        )
    text = f"{block.title}: {_pos(block.tokens):,} tokens ({percent_text(block.tokens, window)})"
    return text + (" \u2014 drawn larger than scale" if enlarged else "")


def threshold_label(line: ThresholdLine, short: bool = False) -> str:
    """``checkpoint 70% (140,000)`` (*short*: ``checkpoint 70%``)."""
    return f"{line.name} {line.percent:g}%" + ("" if short else f" ({line.tokens:,})")


def _two_lines(line: ThresholdLine) -> tuple[str, str]:
    """A threshold's label on two lines: its name, then its percent."""
    return line.name, f"{line.percent:g}%"


def fitted(fm: QFontMetrics, width: float, *candidates: str) -> str:
    """The first of *candidates* that fits *width*; else the last, elided."""
    for text in candidates:
        if fm.horizontalAdvance(text) <= width:
            return text
    return fm.elidedText(candidates[-1], Qt.TextElideMode.ElideRight, int(max(0.0, width)))


# -- the chart -----------------------------------------------------------------------------


class WindowChart(_Chart):
    """Seed 003's box diagram of the whole window; ``blockClicked`` carries a block's name."""

    blockClicked = Signal(str)

    def setValue(self, value: WindowLayout | None) -> None:
        """Show *value*; None shows a short empty-state message (see :attr:`empty_text`)."""
        super().setValue(value)

    def value(self) -> WindowLayout | None:
        return self._value  # type: ignore[no-any-return]

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.empty_text = NO_TRACE

    def _make_texts(self) -> tuple[tuple[str, str], ...]:
        v = self.value()
        return tuple((b.title, f"{_pos(b.tokens):,}") for b in (v.blocks if v else ()))

    def sizeHint(self) -> QSize:
        return QSize(600, 420)

    def minimumSizeHint(self) -> QSize:
        return QSize(260, int(8 * MIN_BLOCK_H) + 4 * MARGIN)

    # -- geometry at the current size ------------------------------------------------------

    def _gutter(self) -> float:
        """Width of the threshold labels' gutter, left of the column."""
        v, fm = self.value(), self.fontMetrics()
        if v is None:
            return 0.0
        geo = window_geometry(v, QRectF(0, 0, 1, 1))
        lines = [*geo.thresholds, *filter(None, [end_line(v, geo)])]
        widest = max((fm.horizontalAdvance(threshold_label(t)) for t in lines), default=0)
        if widest + 14.0 > self.width() * 0.3:  # a narrow dock: the short labels
            widest = max((fm.horizontalAdvance(threshold_label(t, short=True)) for t in lines), default=0)
        if widest + 14.0 > self.width() * 0.3:  # narrower still: the name over the percent
            widest = max((fm.horizontalAdvance(w) for t in lines for w in _two_lines(t)), default=0)
        return min(self.width() * 0.3, widest + 14.0)

    def column_rect(self) -> QRectF:
        """Where the column standing for the whole window is drawn."""
        fm = self.fontMetrics()
        top = MARGIN + fm.height() + 8
        width = min(120.0, max(40.0, self.width() * 0.12))
        left = MARGIN + self._gutter()
        return QRectF(left, top, width, max(0.0, self.height() - top - MARGIN - fm.height() / 2))

    def inset_rect(self, geo: WindowGeometry) -> QRectF:
        """Where the enlarged blocks go: beside the column, from its top to above the reserve."""
        col, fm = self.column_rect(), self.fontMetrics()
        reserve_top = min((r.top() for name, r in geo.blocks if name == RESERVE), default=col.bottom())
        room = reserve_top - col.top() - fm.height() - 6  # the factor is written under it
        height = max(0.0, min(col.height() * 0.6, room))
        return QRectF(col.right() + INSET_GAP, col.top(), col.width(), height)

    def geometry_now(self) -> WindowGeometry | None:
        v = self.value()
        return None if v is None else window_geometry(v, self.column_rect())

    def inset_now(self) -> InsetGeometry | None:
        """The enlarged blocks at the current size (None when the column shows them well enough)."""
        v, geo = self.value(), self.geometry_now()
        return None if v is None or geo is None else inset_geometry(v, geo, self.inset_rect(geo))

    def _index_at(self, pos: QPointF) -> int | None:
        v, geo = self.value(), self.geometry_now()
        if v is None or geo is None:
            return None
        names = [b.name for b in v.blocks]
        inset = self.inset_now()
        if inset is not None:
            for name, r in inset.blocks:
                if r.adjusted(0, 0, self.width(), 0).contains(pos) and pos.x() >= r.left():
                    return names.index(name)
        for i, (name, r) in enumerate(geo.blocks):
            if inset is not None and name != RESERVE:
                continue  # thinner than a pixel or two here: picked in the enlargement
            if r.adjusted(0, 0, self.width(), 0).contains(pos) and pos.x() >= r.left():
                return i
        return None

    def _tooltip(self, index: int) -> str:
        v = self.value()
        if v is None:
            return ""
        b = v.blocks[index]
        text = f"{b.title}: {_pos(b.tokens):,} tokens, {percent_text(b.tokens, v.window)} of {_pos(v.window):,}"
        text += f"\nestimate {b.estimate:,}; exact (cl100k) {fmt_int(b.exact)}"
        if b.source:
            text += f"\n{b.source}"
        if b.note:
            text += f"\n{b.note}"
        return text

    def _activate(self, index: int) -> None:
        v = self.value()
        if v is not None:
            self.blockClicked.emit(v.blocks[index].name)

    # -- painting ----------------------------------------------------------------------------

    def paintEvent(self, event: QPaintEvent) -> None:
        p, v, pal = self._painter(), self.value(), self.palette()
        if v is None or not v.blocks:
            self._empty(p, self.empty_text if v is None else "The window layout has no blocks")
            return
        dark, fm = is_dark(pal), p.fontMetrics()
        text, mid, base = pal.color(ROLE.Text), pal.color(ROLE.Mid), pal.color(ROLE.Base)
        col = self.column_rect()
        geo = window_geometry(v, col)
        inset = inset_geometry(v, geo, self.inset_rect(geo))
        window = _pos(v.window)
        # Caption
        cap = QRectF(MARGIN, MARGIN, self.width() - 2 * MARGIN, fm.height())
        p.setPen(text)
        if v.used > window:
            caption = fitted(
                fm,
                cap.width(),
                f"Whole window: {window:,} tokens; the blocks overflow it by {v.used - window:,} (below the red line)",
                f"Window {window:,}: overflowed by {v.used - window:,}",
            )
        elif inset is not None:
            caption = fitted(
                fm,
                cap.width(),
                f"Whole window: {window:,} tokens, to scale; its top {inset.tokens:,} enlarged "
                f"{factor_text(inset.factor)} beside it",
                f"Window {window:,} to scale; top {factor_text(inset.factor)} beside",
                f"Window {window:,}, to scale",
            )
        else:
            caption = fitted(
                fm,
                cap.width(),
                f"Whole window: {window:,} tokens, to scale, top to bottom as the worker fills it",
                f"Whole window: {window:,} tokens, to scale",
            )
        _text(p, cap, caption, LEFT)
        # The column: frame, free space hatched, blocks
        p.setPen(QPen(mid, 1))
        p.setBrush(base)
        p.drawRect(col)
        hatch = QColor(text)
        hatch.setAlpha(55)
        p.fillRect(geo.free, QBrush(hatch, Qt.BrushStyle.BDiagPattern))
        colors: dict[str, QColor] = {}
        n = 0
        for block in v.blocks:
            if block.name == RESERVE:
                colors[block.name] = QColor(RESERVE_COLORS[1 if dark else 0])
            else:
                colors[block.name] = segment_color(n)
                n += 1
        edge = QColor(base)
        for name, r in geo.blocks:
            p.fillRect(r, colors[name])
            p.setPen(QPen(edge, 1))
            p.drawLine(r.bottomLeft(), r.bottomRight())
        reserve = next((r for name, r in geo.blocks if name == RESERVE), None)
        if reserve is not None:
            dots = QColor(255, 255, 255, 30) if dark else QColor(0, 0, 0, 40)
            p.fillRect(reserve, QBrush(dots, Qt.BrushStyle.Dense6Pattern))
        # Free space, named inside the hatch when it fits
        free_text = f"free {_pos(v.free):,}"
        if geo.free.height() >= fm.height() + 4 and fm.horizontalAdvance(free_text) + 8 <= col.width():
            box = QRectF(0, 0, fm.horizontalAdvance(free_text) + 8, fm.height() + 2)
            box.moveCenter(geo.free.center())
            p.fillRect(box, base)
            p.setPen(text)
            _text(p, box, free_text)
        p.setPen(QPen(mid, 1))
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.drawRect(col)
        if v.used > window:  # past the window's end: hatched red, the end marked
            over = QRectF(col.left(), geo.window_y, col.width(), max(0.0, col.bottom() - geo.window_y))
            p.fillRect(over, QBrush(OVER_COLOR, Qt.BrushStyle.DiagCrossPattern))
        if inset is not None:
            self._paint_inset(p, inset, colors, dark)
        self._paint_block_labels(p, v, geo, col, colors, inset)
        self._paint_thresholds(p, geo, col, dark, end_line(v, geo))
        if self.hasFocus() and self._current < len(geo.blocks):
            name, focus = geo.blocks[self._current]
            if inset is not None and name != RESERVE:
                focus = dict(inset.blocks)[name]
            self._paint_focus(p, focus.adjusted(-2, -2, 2, 2))

    def _paint_inset(self, p: QPainter, inset: InsetGeometry, colors: dict[str, QColor], dark: bool) -> None:
        """The stacked blocks enlarged beside the column, tied to the part they enlarge, the factor under them."""
        pal, fm = self.palette(), p.fontMetrics()
        text, mid, base = pal.color(ROLE.Text), pal.color(ROLE.Mid), pal.color(ROLE.Base)
        rects = [r for _n, r in inset.blocks]
        box = QRectF(rects[0].topLeft(), rects[-1].bottomRight())
        src = inset.source
        guide = QPen(mid, 1, Qt.PenStyle.DotLine)
        p.setPen(guide)
        p.drawLine(QPointF(src.right(), src.top()), QPointF(box.left(), box.top()))
        p.drawLine(QPointF(src.right(), src.bottom()), QPointF(box.left(), box.bottom()))
        p.setPen(QPen(text, 1))
        p.drawLine(QPointF(src.right() + 1, src.top()), QPointF(src.right() + 1, max(src.bottom(), src.top() + 1)))
        edge = QColor(base)
        for name, r in inset.blocks:
            p.fillRect(r, colors[name])
            p.setPen(QPen(edge, 1))
            p.drawLine(r.bottomLeft(), r.bottomRight())
        zone = 0
        for line in inset.thresholds:
            if line.name == CHECKPOINT:
                color = QColor(text)
            else:
                color = zone_color(zone, dark)
                zone += 1
            p.setPen(QPen(color, 1.5, Qt.PenStyle.DashLine))
            p.drawLine(QPointF(box.left(), line.y), QPointF(box.right(), line.y))
        p.setPen(QPen(mid, 1))
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.drawRect(box)
        under = QRectF(box.left() - INSET_GAP / 2, box.bottom() + 2, box.width() + INSET_GAP, fm.height())
        p.setPen(text)
        _text(p, under, fitted(fm, under.width(), factor_text(inset.factor)))

    def _paint_block_labels(
        self,
        p: QPainter,
        v: WindowLayout,
        geo: WindowGeometry,
        col: QRectF,
        colors: dict[str, QColor],
        inset: InsetGeometry | None = None,
    ) -> None:
        fm, text = p.fontMetrics(), self.palette().color(ROLE.Text)
        h = fm.height() + 2
        enlarged = dict(inset.blocks) if inset is not None else {}
        # Each label points at its block where it is seen: in the enlargement if there is one.
        shown = [(name, enlarged.get(name, r)) for name, r in geo.blocks]
        x0 = max(r.right() for _n, r in shown) + 18
        area = QRectF(x0, col.top(), max(0.0, self.width() - MARGIN - x0), col.height())
        ys = spread_labels([r.center().y() for _n, r in shown], h, area.top(), area.bottom())
        by_name = {b.name: b for b in v.blocks}
        for (name, r), y in zip(shown, ys, strict=True):
            label = QRectF(area.left(), y, area.width(), h)
            lead = QPen(colors[name], 1.5)
            p.setPen(lead)
            p.drawLine(QPointF(r.right() + 2, r.center().y()), QPointF(x0 - 4, label.center().y()))
            p.fillRect(QRectF(x0 - 4, label.center().y() - 4, 8, 8), colors[name])
            p.setPen(text)
            room = label.adjusted(8, 0, 0, 0)
            block, big = by_name[name], name in geo.enlarged
            words = fitted(
                fm,
                room.width(),
                block_label(block, _pos(v.window), big),
                block_label(block, _pos(v.window), big, short=True),
                f"{block.title} {_pos(block.tokens):,}",
            )
            number = f" {_pos(block.tokens):,}"
            plain = f"{block.title}{number}"
            if fm.horizontalAdvance(plain) > room.width() and fm.horizontalAdvance(number) < room.width():
                # Too narrow for the title whole: cut the title, keep the number.
                title = fm.elidedText(
                    block.title, Qt.TextElideMode.ElideRight, int(room.width() - fm.horizontalAdvance(number))
                )
                words = title + number
            _text(p, room, words, LEFT)

    def _paint_thresholds(
        self, p: QPainter, geo: WindowGeometry, col: QRectF, dark: bool, end: ThresholdLine | None
    ) -> None:
        """Dashed lines across at each threshold, named in the gutter (and *end*, the window's, when overflowing)."""
        fm, text = p.fontMetrics(), self.palette().color(ROLE.Text)
        h = fm.height()
        gutter = QRectF(MARGIN, col.top() - h / 2, max(0.0, col.left() - MARGIN - 6), col.height() + h)
        lines: list[tuple[ThresholdLine, QColor, Qt.PenStyle]] = []
        zone = 0
        for line in geo.thresholds:
            if line.name == CHECKPOINT:
                color = QColor(text)
            else:
                color = zone_color(zone, dark)
                zone += 1
            lines.append((line, color, Qt.PenStyle.DashLine))
        if end is not None:
            lines.append((end, QColor(OVER_COLOR), Qt.PenStyle.SolidLine))
        shown = sorted((entry for entry in lines if col.top() <= entry[0].y <= col.bottom()), key=lambda e: e[0].y)
        width = gutter.width()
        # One line a label when the short form fits the gutter; else the name over the percent.
        two = any(fm.horizontalAdvance(threshold_label(e[0], short=True)) > width for e in shown)
        h = fm.height() * (2 if two else 1)
        ys = spread_labels([entry[0].y for entry in shown], h, gutter.top(), gutter.bottom())
        for (line, color, style), y in zip(shown, ys, strict=True):
            label = QRectF(gutter.left(), y, width, h)
            p.setPen(QPen(color, 1.5, style))
            p.drawLine(QPointF(label.right() + 2, label.center().y()), QPointF(col.left(), line.y))
            p.drawLine(QPointF(col.left(), line.y), QPointF(col.right() + 10, line.y))
            p.setPen(color)
            if two:
                name, percent = _two_lines(line)
                top, bottom = label.adjusted(0, 0, 0, -fm.height()), label.adjusted(0, fm.height(), 0, 0)
                _text(p, top, fitted(fm, width, name), RIGHT)
                _text(p, bottom, percent, RIGHT)
            else:
                _text(p, label, fitted(fm, width, threshold_label(line), threshold_label(line, short=True)), RIGHT)


# -- the table ------------------------------------------------------------------------------


class BlockRow(NamedTuple):
    block: WindowBlock
    window: int

    @property
    def text(self) -> str:  # the table's free-text filter also searches this
        return f"{self.block.source} {self.block.note}"


def block_columns() -> list[Column]:
    return [
        Column(
            "Block",
            lambda r: r.block.title,
            None,
            "A part of the worker's whole context window",
            detail=lambda r: "double-click for " + block_lead(r.block.name),
        ),
        Column(
            "Tokens",
            lambda r: fmt_int(r.block.tokens),
            lambda r: r.block.tokens,
            "The size drawn: exact (cl100k_base) where the engine can count it, else the estimate",
            numeric=True,
        ),
        Column(
            "Estimate",
            lambda r: fmt_int(r.block.estimate),
            lambda r: r.block.estimate,
            "The heuristic (characters / 4), or the tracker's own estimate",
            numeric=True,
        ),
        Column(
            "Exact (cl100k)",
            lambda r: fmt_int(r.block.exact),
            lambda r: r.block.exact,
            "tiktoken cl100k_base count; n/a when the block is an assumption or an estimate",
            numeric=True,
        ),
        Column(
            "% of window",
            lambda r: percent_text(r.block.tokens, r.window),
            lambda r: r.block.tokens,
            "Tokens as a share of the whole window",
            numeric=True,
        ),
        Column("Source", lambda r: r.block.source, None, "Where the size comes from"),
        Column("Note", lambda r: r.block.note, None, "How it was measured or assumed"),
    ]


#: Where a double click on a block leads (the window acts on ``blockActivated``), in words.
BLOCK_LEADS = {
    "memory": "the Memory tab: each file, whether it loads and why, and its text",
    "prompt": "the Prompt tab: each part of the prompt and its source",
    "conversation": "the Tracker: the estimate this comes from",
}
#: Where a double click leads for a block whose size is a setting's.
SETTING_LEAD = "its setting in the Task tab, with where its value came from"


def block_lead(name: str) -> str:
    """Where a double click on block *name* leads, in words."""
    return BLOCK_LEADS.get(name, SETTING_LEAD)


def block_html(row: BlockRow) -> str:
    """The detail pane of one block: its sizes, where they come from, how it was measured, and
    where a double click on it leads."""
    b = row.block
    lines = [
        f"<b>{html.escape(b.title)}</b>: {_pos(b.tokens):,} tokens, {percent_text(b.tokens, row.window)} of "
        f"the {_pos(row.window):,}-token window",
        f"Estimate {b.estimate:,} \u00b7 exact (cl100k_base) {fmt_int(b.exact)}",
    ]
    if b.full is not None and b.full != b.tokens:
        lines.append(f"The whole command file: {b.full:,} tokens")
    if b.source:
        lines.append(f"Source: {html.escape(b.source)}")
    if b.note:
        lines.append(html.escape(b.note))
    lines.append(f"<i>Double-click (or Enter) for {html.escape(block_lead(b.name))}.</i>")
    return "<br>".join(lines)


class WindowLayoutTab(QWidget):
    """The window chart over a summary line and the blocks table.

    ``blockActivated`` carries a block's name (``memory``, ``prompt``, ``conversation``,
    ``system_prompt``, ...) when its row is double-clicked or Enter is pressed on it; the
    window shows what the block is (``gui/window/window_blocks.py``).
    """

    blockActivated = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._trace: Trace | None = None
        self.chart = WindowChart(self)
        self.chart.setToolTip("The worker's whole context window; click a block to find it in the table")
        self.summary = QLabel(NO_TRACE, self)
        self.summary.setTextFormat(Qt.TextFormat.PlainText)
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.table = RecordTable(block_columns(), block_html, statuses=False, noun="blocks", parent=self)
        self.table.detail.setPlaceholderText(
            "Select a block (here or in the chart) to see how it was measured; double-click it to see what it is."
        )
        self.table.filter.hide()
        self.table.rowActivated.connect(lambda r: self.blockActivated.emit(r.block.name))
        self.chart.blockClicked.connect(lambda name: self.table.select(lambda r: r.block.name == name))
        bottom = QWidget(self)
        bottom_layout = QVBoxLayout(bottom)
        bottom_layout.setContentsMargins(0, 0, 0, 0)
        bottom_layout.setSpacing(2)
        bottom_layout.addWidget(self.summary)
        bottom_layout.addWidget(self.table, 1)
        self.splitter = QSplitter(Qt.Orientation.Vertical, self)
        self.splitter.addWidget(self.chart)
        self.splitter.addWidget(bottom)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 2)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.setSizes([360, 300])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.splitter)

    def trace(self) -> Trace | None:
        return self._trace

    def set_trace(self, trace: Trace | None) -> None:
        """Show *trace*'s window layout (None, or a trace without one: a placeholder in words)."""
        self._trace = trace
        layout = trace.window if trace is not None else None
        self.chart.empty_text = NO_TRACE if trace is None else NO_LAYOUT
        self.chart.setValue(layout)
        self.table.detail.setVisible(layout is not None)
        if layout is None:
            self.summary.setText(NO_TRACE if trace is None else NO_LAYOUT)
            self.table.set_rows([])
            return
        self.summary.setText(window_summary(layout))
        self.table.set_rows([BlockRow(b, layout.window) for b in layout.blocks], widths=[150, 70, 70, 95, 85, 200])
        self._fit_table()

    def _fit_table(self) -> None:
        """Give the blocks table the height of all its rows; the detail pane the rest."""
        view = self.table.view
        inner = view.parentWidget()
        if not isinstance(inner, QSplitter) or is_user_sized(inner):
            return
        needed = self.table.rows_height(max(1, self.table.model.rowCount()))
        total = sum(inner.sizes()) or inner.height()
        inner.setSizes([needed, max(40, total - needed)])

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit_table()
