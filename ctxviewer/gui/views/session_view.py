"""The session panel: a feature's tasks replayed through one worker's ContextTracker.

:class:`SessionPanel` plays a :class:`~ctxviewer.engine.runs.session.SessionReplay` task by
task: a multi-zone :class:`~ctxviewer.gui.widgets.charts.Gauge`, a :class:`UsagePlot` of the
cumulative estimate with the checkpoint and zone lines, a compact table of the steps
and the current task's breakdown.  Playback is a :class:`ReplayPlayer` (a QTimer
stepping a position), which tests drive by hand.

In live mode (:meth:`SessionPanel.follow_log`) the panel follows a running worker's
JSON-lines event log through :class:`~ctxviewer.engine.runtime.eventlog.EventLogFollower`,
polled on file-system notifications and on a one-second timer.

The panel never recomputes a replay itself: a change of the replay parameters emits
``parametersChanged`` and the window answers with :meth:`SessionPanel.set_replay`.
"""

from __future__ import annotations

import html
import math
import os
from bisect import bisect_left
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent, QFileSystemWatcher, QModelIndex, QObject, QPointF, QRectF, QSize, Qt, QTimer, Signal
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QFontMetricsF,
    QGuiApplication,
    QHelpEvent,
    QPainter,
    QPainterPath,
    QPalette,
    QPen,
    QPolygonF,
    QShowEvent,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QSizePolicy,
    QSplitter,
    QTableView,
    QToolTip,
    QVBoxLayout,
    QWidget,
)

from ctxviewer.engine.runs.session import MAX_MINUTES, MAX_TOOL_CALLS, ReplayStep, SessionReplay
from ctxviewer.engine.runtime.eventlog import EventLogFollower, LiveUsage, PollResult
from ctxviewer.gui.widgets.charts import RED, Gauge, GaugeValue, zone_color
from ctxviewer.gui.widgets.models import Column, RecordModel, is_dark, status_colour
from ctxviewer.gui.widgets.plaintext import plain_tip
from ctxviewer.gui.widgets.table_actions import install_table_actions

if TYPE_CHECKING:
    from PySide6.QtGui import QMouseEvent, QPaintEvent

#: Playback speeds offered, and the time one task takes at 1x.
SPEEDS = (0.5, 1.0, 2.0, 4.0)
BASE_INTERVAL_MS = 600
#: Live mode: the log is polled at least this often, file-system notifications or not.
LIVE_POLL_MS = 1000
ROLE = QPalette.ColorRole
#: The estimate's line: a light and a dark palette variant.
LINE_COLORS = ("#3b6ea5", "#7fb0e6")
MINUS = "\u2212"


def _is_number(value: float) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


# -- pure helpers ----------------------------------------------------------------------------


def tokens_k(value: float) -> str:
    """A token count for an axis: ``0``, ``750``, ``12k``, ``2.5k``, ``1.2M``."""
    v = float(value) if _is_number(value) else 0.0
    sign, v = ("-" if v < 0 else ""), abs(v)
    if v >= 1_000_000:
        text = f"{v / 1_000_000:.2f}".rstrip("0").rstrip(".") + "M"
    elif v >= 1000:
        text = f"{v / 1000:.1f}".rstrip("0").rstrip(".") + "k"
    else:
        text = f"{v:.0f}"
    return sign + text


def nice_step(span: float, max_ticks: int) -> float:
    """The smallest of 1, 2, 2.5, 5 x 10^k that divides *span* into at most *max_ticks* parts."""
    span = span if _is_number(span) and span > 0 else 1.0
    max_ticks = max(1, max_ticks)
    raw = span / max_ticks
    magnitude = 10.0 ** math.floor(math.log10(raw))
    for factor in (1.0, 2.0, 2.5, 5.0, 10.0):
        if factor * magnitude >= raw - 1e-12:
            return factor * magnitude
    return 10 * magnitude  # pragma: no cover - the loop always returns


def nice_ticks(top: float, max_ticks: int) -> tuple[float, ...]:
    """Ticks ``0, step, 2 step, ...`` up to the first one at or above *top*."""
    step = nice_step(top, max_ticks)
    count = max(1, math.ceil((top if _is_number(top) and top > 0 else 1.0) / step - 1e-9))
    return tuple(step * i for i in range(count + 1))


def parse_tool_calls(text: str) -> tuple[int | None, str]:
    """The tool calls per task in *text*, or None and what is wrong with it."""
    t = text.strip()
    if not t:
        return None, "enter a whole number"
    try:
        value = int(t)
    except ValueError:
        return None, "not a whole number"
    if not 0 <= value <= MAX_TOOL_CALLS:
        return None, f"0 to {MAX_TOOL_CALLS:,}"
    return value, ""


def parse_minutes(text: str) -> tuple[float | None, str]:
    """The minutes per task in *text*, or None and what is wrong with it."""
    t = text.strip()
    if not t:
        return None, "enter a number"
    try:
        value = float(t)
    except ValueError:
        return None, "not a number"
    if not math.isfinite(value) or not 0 <= value <= MAX_MINUTES:
        return None, f"0 to {MAX_MINUTES:g}"
    return value, ""


# -- playback --------------------------------------------------------------------------------


class ReplayPlayer(QObject):
    """Steps a position through ``count`` steps, on a timer while playing.

    ``position`` is the index of the last step shown, ``-1`` before the first.  *timer*
    (a QTimer, or a function making one) replaces the internal timer, so tests can emit
    its ``timeout`` themselves instead of waiting.
    """

    positionChanged = Signal(int)
    playingChanged = Signal(bool)
    finished = Signal()

    def __init__(
        self,
        parent: QObject | None = None,
        *,
        timer: QTimer | Callable[[], QTimer] | None = None,
    ) -> None:
        super().__init__(parent)
        if timer is None:
            self.timer = QTimer(self)
        elif isinstance(timer, QTimer):
            self.timer = timer
        else:
            self.timer = timer()
        self.timer.setSingleShot(False)
        self.timer.setInterval(BASE_INTERVAL_MS)
        self.timer.timeout.connect(self._tick)
        self._count = 0
        self._position = -1
        self._playing = False
        self._speed = 1.0

    # -- state -------------------------------------------------------------------------------

    @property
    def count(self) -> int:
        return self._count

    @property
    def position(self) -> int:
        return self._position

    @property
    def playing(self) -> bool:
        return self._playing

    @property
    def speed(self) -> float:
        return self._speed

    def interval(self) -> int:
        """Milliseconds between two steps while playing."""
        return int(self.timer.interval())

    def set_count(self, count: int) -> None:
        """Start over with *count* steps (paused, before the first step)."""
        self.pause()
        self._count = max(0, int(count))
        self._position = -1
        self.positionChanged.emit(-1)

    # -- control -----------------------------------------------------------------------------

    def play(self) -> None:
        """Play from here (from the start when at the end); the first step comes at once."""
        if self._count == 0 or self._playing:
            return
        if self._position >= self._count - 1:
            self.seek(-1)
        self._playing = True
        self.timer.start()
        self.playingChanged.emit(True)
        self._tick()

    def pause(self) -> None:
        if not self._playing:
            return
        self._playing = False
        self.timer.stop()
        self.playingChanged.emit(False)

    def toggle(self) -> None:
        if self._playing:
            self.pause()
        else:
            self.play()

    def step(self) -> bool:
        """Show the next step; False when already at the last one."""
        if self._position >= self._count - 1:
            return False
        self.seek(self._position + 1)
        return True

    def reset(self) -> None:
        """Pause and go back before the first step."""
        self.pause()
        self.seek(-1)

    def seek(self, position: int) -> None:
        """Show step *position* (clamped to ``-1 .. count - 1``)."""
        position = min(max(-1, int(position)), self._count - 1)
        if position == self._position:
            return
        self._position = position
        self.positionChanged.emit(position)
        if self._count and position == self._count - 1:
            self.pause()
            self.finished.emit()

    def set_speed(self, speed: float) -> None:
        """Play at *speed* times the base pace (600 ms a task at 1x)."""
        if not _is_number(speed) or speed <= 0:
            raise ValueError(f"speed must be a positive number, not {speed!r}")
        self._speed = float(speed)
        self.timer.setInterval(max(1, round(BASE_INTERVAL_MS / self._speed)))

    def _tick(self) -> None:
        if not self.step():
            self.pause()


# -- the plot --------------------------------------------------------------------------------


@dataclass(frozen=True)
class PlotValue:
    """A usage series: ``(x, estimated tokens)`` points against the checkpoint and zone lines.

    ``labels`` and ``details`` (per point, optional) make the hover tooltip; with
    ``resets`` the tracker restarted at 0 after each point in ``checkpoints``.
    """

    points: tuple[tuple[float, int], ...]
    max_tokens: int
    threshold_percent: float
    zones: tuple[tuple[str, float], ...] = ()
    labels: tuple[str, ...] = ()
    details: tuple[str, ...] = ()
    x_title: str = "task"
    title: str = "Estimated tokens"
    integer_x: bool = True
    first_checkpoint: int | None = None
    checkpoints: tuple[int, ...] = ()
    resets: bool = False

    @classmethod
    def from_replay(cls, replay: SessionReplay) -> PlotValue:
        steps = replay.steps
        return cls(
            points=tuple((s.index + 1.0, s.estimated_tokens) for s in steps),
            max_tokens=replay.max_tokens,
            threshold_percent=replay.threshold_percent,
            zones=replay.further_zones,
            labels=tuple(f"Task {s.index + 1} of {len(steps)}: {s.task_id}" for s in steps),
            details=tuple(_step_detail(s) for s in steps),
            x_title="tasks run",
            title="Tokens after each task",
            integer_x=True,
            first_checkpoint=replay.first_checkpoint,
            checkpoints=replay.checkpoints,
            resets=replay.reset_on_checkpoint,
        )

    @classmethod
    def from_live(cls, usage: LiveUsage, zones: Sequence[tuple[str, float]] = ()) -> PlotValue:
        points, first = thin_history(usage.history, usage.first_checkpoint)
        return cls(
            points=points,
            max_tokens=usage.max_tokens,
            threshold_percent=usage.threshold_percent,
            zones=tuple(z for z in zones if z[0] != "checkpoint"),
            x_title="minutes",
            title="Tokens over minutes",
            integer_x=False,
            first_checkpoint=first,
            checkpoints=() if first is None else (first,),
        )

    def lines(self) -> tuple[tuple[str, float, int], ...]:
        """``(name, percent, zone index or -1 for the checkpoint)`` of each horizontal line."""
        out = [("checkpoint", _finite(self.threshold_percent), -1)]
        out += [(str(n), _finite(p), i) for i, (n, p) in enumerate(self.zones)]
        return tuple(out)


#: Bytes of log one poll reads at most (the rest follows in later polls).
LIVE_READ_LIMIT = 250_000
#: A live plot draws at most about this many points, however long the log.
MAX_LIVE_POINTS = 1_500


def thin_history(
    history: Sequence[tuple[float, int]], first_checkpoint: int | None, limit: int = MAX_LIVE_POINTS
) -> tuple[tuple[tuple[float, int], ...], int | None]:
    """At most about *limit* points of a live history, and the first checkpoint's new index.

    A live tracker only grows (no resets, time never goes back), so the last point of each
    run of ``len // limit`` points is that run's highest; those are kept, with the first
    point, the last and the first checkpoint exactly.
    """
    n = len(history)
    if n <= limit:
        return tuple(history), first_checkpoint
    step = -(-n // limit)
    keep = {0, n - 1, *range(step - 1, n, step)}
    if first_checkpoint is not None and 0 <= first_checkpoint < n:
        keep.add(first_checkpoint)
    order = sorted(keep)
    first = order.index(first_checkpoint) if first_checkpoint in keep else None
    return tuple(history[i] for i in order), first


def _finite(value: Any) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError, OverflowError):
        return 0.0
    return v if math.isfinite(v) else 0.0


def _step_detail(s: ReplayStep) -> str:
    text = (
        f"{s.estimated_tokens:,} tokens ({s.usage_percent:.1f}%), +{s.added:,}: task {s.task_tokens:,}, "
        f"reads {s.read_tokens:,}, tools {s.tool_tokens:,}, time {s.time_tokens:,}"
    )
    if s.checkpoint:
        text += "\nthe worker checkpoints after this task"
    if s.zones_reached:
        text += "\nreached: " + ", ".join(s.zones_reached)
    return text


def plot_top(value: PlotValue) -> float:
    """The token count the plot's top stands for: room above the highest point and line."""
    highest = max((max(0, _finite(t)) for _, t in value.points), default=0.0)
    maximum = max(0.0, _finite(value.max_tokens))
    for _, percent, _ in value.lines():
        highest = max(highest, maximum * min(100.0, max(0.0, percent)) / 100)
    return max(1.0, highest * 1.1)


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
            span = max(_finite(x) for x, _ in value.points)
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
            px = left + width * min(1.0, max(0.0, _finite(x) / span))
            py = bottom - height * min(1.05, max(0.0, _finite(tokens) / top))
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
            self._xs_cache = (value, [_finite(x) for x, _ in value.points])
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
            p.drawText(QRectF(self.rect()), int(Qt.AlignmentFlag.AlignCenter), self._empty_text)
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


# -- the step table --------------------------------------------------------------------------


def step_columns() -> list[Column]:
    return [
        Column("#", lambda s: str(s.index + 1), lambda s: s.index, "Order in the replay", numeric=True),
        Column("Task", lambda s: s.task_id, None, "The task (double-click to open it)"),
        Column("+Tokens", lambda s: f"+{s.added:,}", lambda s: s.added, "What this task added", numeric=True),
        Column("Total", lambda s: f"{s.estimated_tokens:,}", lambda s: s.estimated_tokens, "Estimate after it", True),
        Column(
            "Usage", lambda s: f"{s.usage_percent:.1f}%", lambda s: s.usage_percent, "Of the max context", numeric=True
        ),
    ]


class StepModel(RecordModel):
    """The replay's steps; those not yet played greyed, checkpointing steps red and bold."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(step_columns(), parent)
        self.position = -1
        #: Where the colours come from: the view's palette once the panel sets it.
        self.palette: Callable[[], QPalette] = QGuiApplication.palette

    def set_position(self, position: int) -> None:
        old, self.position = self.position, position
        if self.rowCount() and old != position:
            last = self.index(self.rowCount() - 1, self.columnCount() - 1)
            self.dataChanged.emit(self.index(0, 0), last)

    def data(self, index: Any, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if index.isValid() and index.row() < len(self.rows()):
            step: ReplayStep = self.rows()[index.row()]
            if role == Qt.ItemDataRole.ForegroundRole:
                pal = self.palette()
                if index.row() > self.position:
                    return QBrush(pal.color(ROLE.PlaceholderText))
                if step.checkpoint:
                    return QBrush(status_colour("failed", is_dark(pal)))
                return None
            if role == Qt.ItemDataRole.FontRole and step.checkpoint:
                font = QFont()
                font.setBold(True)
                return font
            if role == Qt.ItemDataRole.ToolTipRole:
                return plain_tip(
                    f"{step.task_id}: {step.title}\n{_step_detail(step)}" if step.title else _step_detail(step)
                )
        return super().data(index, role)


# -- the panel -------------------------------------------------------------------------------


class SessionPanel(QWidget):
    """Replay a feature's tasks through the tracker, or follow a live worker's event log."""

    stepped = Signal(int)
    finished = Signal()
    taskActivated = Signal(str)
    parametersChanged = Signal(int, float, bool)
    liveUpdated = Signal(object)

    def __init__(
        self,
        parent: QWidget | None = None,
        *,
        timer: QTimer | Callable[[], QTimer] | None = None,
    ) -> None:
        super().__init__(parent)
        self._replay: SessionReplay | None = None
        self._emitted: tuple[int, float, bool] | None = None
        # Live mode.
        self._follower: EventLogFollower | None = None
        self._live_path: Path | None = None
        self._live_threshold = 70.0
        self._live_max = 200_000
        self._live_zones: tuple[tuple[str, float], ...] = ()
        self._live_polled = False
        self._poll_pending = False
        self._watcher: QFileSystemWatcher | None = None
        self.last_poll: PollResult | None = None
        self.poll_timer = QTimer(self)
        self.poll_timer.setInterval(LIVE_POLL_MS)
        self.poll_timer.timeout.connect(self.poll_log)

        self.player = ReplayPlayer(self, timer=timer)
        self.player.positionChanged.connect(self._on_position)
        self.player.playingChanged.connect(self._on_playing)
        self.player.finished.connect(self.finished)

        self.header = QLabel("No feature replayed", self)
        self.header.setWordWrap(True)
        self.header.setTextFormat(Qt.TextFormat.RichText)

        # Playback controls.
        self.play_button = QPushButton("Play", self)
        self.play_button.setToolTip("Play the replay task by task, or pause it")
        self.play_button.clicked.connect(self.player.toggle)
        self.step_button = QPushButton("Step", self)
        self.step_button.setToolTip("Run the next task")
        self.step_button.clicked.connect(self.player.step)
        self.reset_button = QPushButton("Reset", self)
        self.reset_button.setToolTip("Back to before the first task")
        self.reset_button.clicked.connect(self.player.reset)
        self.speed = QComboBox(self)
        for s in SPEEDS:
            self.speed.addItem(f"{s:g}\u00d7", s)
        self.speed.setCurrentIndex(SPEEDS.index(1.0))
        self.speed.setToolTip(f"Playback speed (1\u00d7 is {BASE_INTERVAL_MS} ms a task)")
        self.speed.currentIndexChanged.connect(self._on_speed)
        controls = QHBoxLayout()
        controls.setSpacing(4)
        for w in (self.play_button, self.step_button, self.reset_button):
            w.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
            controls.addWidget(w)
        controls.addWidget(self.speed)

        # Replay parameters.
        self.tool_calls = QLineEdit("10", self)
        self.tool_calls.setToolTip(f"Tool calls each task makes (50 tokens each); 0 to {MAX_TOOL_CALLS:,}")
        self.minutes = QLineEdit("5", self)
        self.minutes.setToolTip(f"Minutes each task takes (100 tokens a minute); 0 to {MAX_MINUTES:g}")
        self.tool_calls_error = QLabel(self)
        self.minutes_error = QLabel(self)
        for field, error in ((self.tool_calls, self.tool_calls_error), (self.minutes, self.minutes_error)):
            field.setMaximumWidth(72)
            field.editingFinished.connect(self.apply_parameters)
            field.textChanged.connect(self._validate)
            error.setTextFormat(Qt.TextFormat.RichText)  # our colour around an escaped message
            error.setObjectName("fieldMessage")  # the house style sheet colours it
            error.setWordWrap(True)
        self.reset_after = QCheckBox("Reset the tracker after each checkpoint", self)
        self.reset_after.setToolTip("A fresh worker continues after each checkpoint, so the estimate starts over")
        self.reset_after.toggled.connect(lambda _on: self.apply_parameters())
        params = QGridLayout()
        params.setHorizontalSpacing(6)
        params.setVerticalSpacing(2)
        params.addWidget(QLabel("Tool calls / task", self), 0, 0)
        params.addWidget(self.tool_calls, 0, 1)
        params.addWidget(self.tool_calls_error, 0, 2)
        params.addWidget(QLabel("Minutes / task", self), 1, 0)
        params.addWidget(self.minutes, 1, 1)
        params.addWidget(self.minutes_error, 1, 2)
        params.addWidget(self.reset_after, 2, 0, 1, 3)
        params.setColumnStretch(2, 1)
        self.replay_controls = QWidget(self)
        rc = QVBoxLayout(self.replay_controls)
        rc.setContentsMargins(0, 0, 0, 0)
        rc.setSpacing(4)
        rc.addLayout(controls)
        rc.addLayout(params)

        # Gauge and the current task's figures.
        self.gauge = Gauge(self)
        self.gauge.setMinimumSize(150, 130)
        self.gauge.setToolTip("The tracker's estimate after the current task, against the checkpoint and zones")
        self.breakdown = QLabel(self)
        self.breakdown.setWordWrap(True)
        self.breakdown.setTextFormat(Qt.TextFormat.RichText)
        self.breakdown.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        self.breakdown.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.breakdown.setMinimumWidth(120)
        top = QHBoxLayout()
        top.setSpacing(4)
        top.addWidget(self.gauge, 5)
        top.addWidget(self.breakdown, 4)

        self.plot = UsagePlot(self)
        self.plot.pointClicked.connect(self._on_point_clicked)

        self.model = StepModel(self)
        self._fitted = True
        self.table = QTableView(self)
        self.table.setModel(self.model)
        self.model.palette = self.table.palette
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(False)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(self.table.fontMetrics().height() + 6)
        header = self.table.horizontalHeader()
        header.setHighlightSections(False)
        header.setStretchLastSection(False)
        # Fitted once per replay (set_replay), not re-measured on every change: with
        # ResizeToContents each step of playback -- a dataChanged over the whole table --
        # asked every cell for its text again, and each ask waits for the interpreter lock
        # while a background batch pass holds it.
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.table.clicked.connect(lambda index: self.player.seek(index.row()))
        self.table.doubleClicked.connect(self._on_double_clicked)
        install_table_actions(self.table)  # Ctrl+C copies the selected steps; a right click too
        self.table.setMinimumHeight(80)

        self.splitter = QSplitter(Qt.Orientation.Vertical, self)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.addWidget(self.plot)
        self.splitter.addWidget(self.table)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 2)

        self.live_status = QLabel(self)
        self.live_status.setTextFormat(Qt.TextFormat.PlainText)  # event names and paths from the log
        self.live_status.setWordWrap(True)
        self.live_status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.live_status.hide()

        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.setSpacing(6)
        layout.addWidget(self.header)
        layout.addWidget(self.replay_controls)
        layout.addWidget(self.live_status)
        layout.addLayout(top)
        layout.addWidget(self.splitter, 1)
        self.set_replay(None)

    def sizeHint(self) -> QSize:
        return QSize(380, 640)

    # -- replay ------------------------------------------------------------------------------

    def replay(self) -> SessionReplay | None:
        return self._replay

    def _fit_columns(self) -> None:
        """Size the columns to their contents once (the step text column stretches)."""
        self._fitted = True
        for column in range(self.model.columnCount()):
            if column != 1:
                self.table.resizeColumnToContents(column)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if not self._fitted and self.model.rowCount():
            self._fit_columns()

    def set_replay(self, replay: SessionReplay | None, *, keep_position: bool = False) -> None:
        """Show *replay* ready to play from the start (or at the same step, with *keep_position*)."""
        position = self.player.position
        self._replay = replay
        steps = replay.steps if replay is not None else ()
        self.model.set_rows(steps)
        self.model.set_position(-1)
        if steps and self.table.isVisible():
            self._fit_columns()
        else:
            self._fitted = False  # fitted when first shown
        if replay is not None:
            for field, text in (
                (self.tool_calls, str(replay.tool_calls_per_task)),
                (self.minutes, f"{replay.minutes_per_task:g}"),
            ):
                field.blockSignals(True)
                field.setText(text)
                field.blockSignals(False)
            self.reset_after.blockSignals(True)
            self.reset_after.setChecked(replay.reset_on_checkpoint)
            self.reset_after.blockSignals(False)
            self._emitted = (replay.tool_calls_per_task, replay.minutes_per_task, replay.reset_on_checkpoint)
            self._validate()
        self._update_header()
        if self._follower is not None:
            self.player.set_count(len(steps))
            return
        self.plot.setValue(PlotValue.from_replay(replay) if replay is not None else None, "No feature replayed")
        for w in (self.play_button, self.step_button, self.reset_button):
            w.setEnabled(bool(steps))
        self.player.set_count(len(steps))
        if keep_position and position >= 0:
            self.player.seek(min(position, len(steps) - 1))

    def current_step(self) -> ReplayStep | None:
        replay, pos = self._replay, self.player.position
        if replay is None or not 0 <= pos < len(replay.steps):
            return None
        return replay.steps[pos]

    def _gauge_value(self, tokens: int) -> GaugeValue | None:
        replay = self._replay
        if replay is None:
            return None
        return GaugeValue(tokens, replay.max_tokens, replay.threshold_percent, zones=replay.further_zones)

    def _update_header(self) -> None:
        replay = self._replay
        if self._follower is not None:
            path = self._live_path
            assert path is not None
            self.header.setText(f"<b>Live:</b> <b>{_esc(path.name)}</b> in {_esc(str(path.parent))}")
            self.header.setToolTip(plain_tip(str(self._live_path)))
            return
        if replay is None:
            self.header.setText("No feature replayed")
            self.header.setToolTip("")
            return
        n = len(replay.steps)
        parts = [f"<b>{_esc(replay.feature)}</b> \u00b7 {n} task{'s' if n != 1 else ''}"]
        fc = replay.first_checkpoint
        if fc is not None:
            first = f"after task {fc + 1} ({_nowrap(replay.steps[fc].task_id)})"
            count = len(replay.checkpoints)
            if replay.reset_on_checkpoint and count > 1:
                parts.append(f"{count} checkpoints, the first {first}")
            else:
                parts.append(f"first checkpoint {first}")
        elif n:
            peak = max(s.usage_percent for s in replay.steps)
            parts.append(f"no checkpoint (peak {peak:.1f}%)")
        text = " \u00b7 ".join(parts)
        if replay.notes:
            count = len(replay.notes)
            text += f"<br><i>{count} note{'s' if count != 1 else ''} on the task order (hover)</i>"
        self.header.setText(text)
        self.header.setToolTip(plain_tip("\n".join(replay.notes)))

    def _on_position(self, position: int) -> None:
        if self._follower is not None:
            return
        replay = self._replay
        self.model.set_position(position)
        self.plot.setCurrent(position)
        step = self.current_step()
        if replay is None:
            self.gauge.setValue(None)
            self.breakdown.setText("")
            return
        self.gauge.setValue(self._gauge_value(step.estimated_tokens if step else 0), animate=step is not None)
        self._show_breakdown(step)
        if step is None:
            self.table.clearSelection()
            self.table.setCurrentIndex(QModelIndex())
            self.table.scrollToTop()
            return
        index = self.model.index(position, 0)
        self.table.selectRow(position)
        self.table.scrollTo(index, QAbstractItemView.ScrollHint.EnsureVisible)
        self.stepped.emit(position)

    def _show_breakdown(self, step: ReplayStep | None) -> None:
        replay = self._replay
        if replay is None:
            self.breakdown.setText("")
            return
        n = len(replay.steps)
        if step is None:
            per = f"{replay.tool_calls_per_task} tool calls, {replay.minutes_per_task:g} min"
            self.breakdown.setText(f"Ready: {n} task{'s' if n != 1 else ''}<br>{per} each<br>Press Play or Step")
            return
        level = f" \u00b7 level {step.level}" if step.level is not None else " \u00b7 no level"
        rows = [
            f"Task {step.index + 1} of {n}{level}",
            f"<b>{_esc(step.task_id)}</b>",
            f"<b>+{step.added:,}</b> tokens:"
            "<table cellspacing='0' cellpadding='0'>"
            f"<tr><td>task&nbsp;</td><td align='right'>{step.task_tokens:,}</td>"
            f"<td>&nbsp;&nbsp;reads&nbsp;</td><td align='right'>{step.read_tokens:,}</td></tr>"
            f"<tr><td>tools&nbsp;</td><td align='right'>{step.tool_tokens:,}</td>"
            f"<td>&nbsp;&nbsp;time&nbsp;</td><td align='right'>{step.time_tokens:,}</td></tr></table>"
            f"Total {step.estimated_tokens:,} ({step.usage_percent:.1f}%)",
        ]
        if step.checkpoint:
            colour = status_colour("failed", is_dark(self.palette())).name()
            rows.append(f"<span style='color:{colour}'><b>checkpoint</b></span>")
        others = [z for z in step.zones_reached if z != "checkpoint"]
        if others:
            rows.append("reached " + _esc(", ".join(others)))
        self.breakdown.setText("<br>".join(rows))
        self.breakdown.setToolTip(
            plain_tip("\n".join(f"{f.path}: {f.tokens:,} tokens ({f.note})" for f in step.files) or "No task files")
        )

    def _on_playing(self, playing: bool) -> None:
        self.play_button.setText("Pause" if playing else "Play")

    def _on_speed(self, index: int) -> None:
        speed = self.speed.itemData(index)
        if isinstance(speed, (int, float)):
            self.player.set_speed(float(speed))

    def _on_point_clicked(self, index: int) -> None:
        if self._follower is None:
            self.player.seek(index)

    def _on_double_clicked(self, index: QModelIndex) -> None:
        rows = self.model.rows()
        if index.isValid() and index.row() < len(rows):
            self.taskActivated.emit(rows[index.row()].task_id)

    # -- parameters --------------------------------------------------------------------------

    def _validate(self, *_args: object) -> tuple[int, float, bool] | None:
        calls, calls_msg = parse_tool_calls(self.tool_calls.text())
        mins, mins_msg = parse_minutes(self.minutes.text())
        colour = status_colour("failed", is_dark(self.palette())).name()
        for field, label, msg in (
            (self.tool_calls, self.tool_calls_error, calls_msg),
            (self.minutes, self.minutes_error, mins_msg),
        ):
            label.setText(f"<span style='color:{colour}'>{_esc(msg)}</span>" if msg else "")
            label.setToolTip(plain_tip(msg))
            if field.property("invalid") != bool(msg):
                field.setProperty("invalid", bool(msg))  # a red border, by the house style sheet
                field.style().unpolish(field)
                field.style().polish(field)
        if calls is None or mins is None:
            return None
        return calls, mins, self.reset_after.isChecked()

    def parameters(self) -> tuple[int, float, bool] | None:
        """The replay parameters as entered, or None when a field is invalid."""
        return self._validate()

    def apply_parameters(self) -> bool:
        """Emit ``parametersChanged`` if the fields are valid and differ from the replay's."""
        values = self._validate()
        if values is None:
            return False
        if values != self._emitted:
            self._emitted = values
            self.parametersChanged.emit(*values)
        return True

    # -- live mode ---------------------------------------------------------------------------

    @property
    def following(self) -> Path | None:
        """The event log being followed, or None."""
        return self._live_path if self._follower is not None else None

    def live_usage(self) -> LiveUsage | None:
        return self._follower.usage if self._follower is not None else None

    def set_live_limits(
        self, threshold_percent: float, max_tokens: int, zones: Sequence[tuple[str, float]] = ()
    ) -> None:
        """The tracker limits for live mode; re-reads the log when following one."""
        limits = (float(threshold_percent), int(max_tokens))
        changed = limits != (self._live_threshold, self._live_max)
        self._live_threshold, self._live_max = limits
        self._live_zones = tuple(
            sorted(((str(n), float(p)) for n, p in zones if n != "checkpoint"), key=lambda z: z[1])
        )
        if self._follower is not None and self._live_path is not None:
            if changed:  # the estimate's percentages and first checkpoint depend on them: re-read
                self._follower = self._new_follower(self._live_path)
                self._live_polled = False
                self.poll_log()
            elif self.last_poll is not None:  # only the zones: redraw
                self._show_live(self._follower.usage, self.last_poll)

    def _new_follower(self, path: Path) -> EventLogFollower:
        # Reads are parsed on the GUI thread: 250 KB per poll (about 30 ms) with the event
        # loop running between polls, so a long existing log never freezes the window.
        return EventLogFollower(path, self._live_threshold, self._live_max, read_limit=LIVE_READ_LIMIT)

    def follow_log(self, path: str | os.PathLike[str]) -> None:
        """Follow the JSON-lines event log at *path* (replay playback pauses)."""
        self.stop_following()
        self.player.pause()
        self._live_path = Path(path)
        self._follower = self._new_follower(self._live_path)
        self._live_polled = False
        self._watcher = QFileSystemWatcher(self)
        self._watcher.fileChanged.connect(self._schedule_poll)
        self._watcher.directoryChanged.connect(self._schedule_poll)
        self._watch()
        self.poll_timer.start()
        self.replay_controls.hide()
        self.table.hide()
        self.live_status.show()
        self.live_status.setText(f"following {self._live_path}")
        self._update_header()
        self.plot.setValue(None, "Waiting for events")
        self.plot.setCurrent(None)
        self.poll_log()

    def stop_following(self) -> None:
        """Stop following the log and show the replay again."""
        if self._follower is None:
            return
        self.poll_timer.stop()
        if self._watcher is not None:
            paths = self._watcher.files() + self._watcher.directories()
            if paths:
                self._watcher.removePaths(paths)
            self._watcher.deleteLater()
            self._watcher = None
        self._follower = None
        self.last_poll = None
        self.live_status.hide()
        self.replay_controls.show()
        self.table.show()
        replay = self._replay
        self._update_header()
        self.plot.setValue(PlotValue.from_replay(replay) if replay is not None else None, "No feature replayed")
        position = self.player.position
        self.plot.setCurrent(position)
        self.model.set_position(position)
        step = self.current_step()
        self.gauge.setValue(self._gauge_value(step.estimated_tokens if step else 0))
        self._show_breakdown(step)

    def _watch(self) -> None:
        """Watch the log and its folder (re-adding the log once it exists again)."""
        if self._watcher is None or self._live_path is None:
            return
        folder = self._live_path.parent
        if folder.is_dir() and str(folder) not in self._watcher.directories():
            self._watcher.addPath(str(folder))
        if self._live_path.is_file() and str(self._live_path) not in self._watcher.files():
            self._watcher.addPath(str(self._live_path))

    def _schedule_poll(self, *_args: object) -> None:
        if self._poll_pending or self._follower is None:
            return
        self._poll_pending = True
        QTimer.singleShot(0, self, self._deferred_poll)

    def _deferred_poll(self) -> None:
        self._poll_pending = False
        self.poll_log()

    def poll_log(self) -> PollResult | None:
        """Read what the log gained since the last poll and show it; None when not following."""
        follower = self._follower
        if follower is None:
            return None
        result = follower.poll()
        self.last_poll = result
        self._watch()
        changed = bool(result.events or result.problems or result.restarted or not self._live_polled)
        self._live_polled = True
        usage = follower.usage
        if changed:
            self._show_live(usage, result)
        else:
            self.live_status.setText(self._live_status_text(result))
        if result.more:
            self._schedule_poll()
        if changed:
            self.liveUpdated.emit(usage)
        return result

    def _live_status_text(self, result: PollResult) -> str:
        """The follower's status (the log named by its file name; the header has the path) and problems."""
        follower, path = self._follower, self._live_path
        text = result.status
        if path is not None and path.name:
            text = text.replace(str(path), path.name)
        if follower is not None and follower.problems:
            count = follower.problem_count
            last = follower.problems[-1].message
            if path is not None and path.name:
                last = last.replace(str(path), path.name)
            text += f"\n{count:,} problem{'s' if count != 1 else ''}; last: {last}"
        return text

    def _show_live(self, usage: LiveUsage, result: PollResult) -> None:
        self.live_status.setText(self._live_status_text(result))
        follower = self._follower
        if follower is not None and follower.problems:
            self.live_status.setToolTip(plain_tip("\n".join(p.message for p in follower.problems[-20:])))
        self.gauge.setValue(
            GaugeValue(usage.estimated_tokens, usage.max_tokens, usage.threshold_percent, zones=self._live_zones),
            animate=True,
        )
        if usage.history:
            self.plot.setValue(PlotValue.from_live(usage, self._live_zones))
        else:
            self.plot.setValue(None, "Waiting for events")
        self.plot.setCurrent(None)
        rows = [
            f"<b>{usage.estimated_tokens:,}</b> tokens ({usage.usage_percent:.1f}%)",
            f"{usage.events:,} events \u00b7 {usage.elapsed_minutes:,.1f} min",
            f"tasks {usage.tasks_executed:,} \u00b7 files {usage.files_read:,}",
            f"tool calls {usage.tool_calls:,}",
        ]
        if usage.last_task:
            rows.insert(0, f"Last task: <b>{_esc(usage.last_task)}</b>")
        if usage.first_checkpoint is not None and usage.first_checkpoint < len(usage.history):
            minutes = usage.history[usage.first_checkpoint][0]
            colour = status_colour("failed", is_dark(self.palette())).name()
            rows.append(f"<span style='color:{colour}'>checkpoint since {minutes:,.1f} min</span>")
        self.breakdown.setText("<br>".join(rows))
        self.breakdown.setToolTip("")


def _nowrap(text: str) -> str:
    """*text* escaped, kept on one line (task ids have hyphens a label would break at)."""
    return f"<span style='white-space:nowrap'>{_esc(text)}</span>"


def _esc(text: str) -> str:
    return html.escape(text, quote=False)
