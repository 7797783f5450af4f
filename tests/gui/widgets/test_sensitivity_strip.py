"""The sensitivity strip: a hand-made Sensitivity mapped to spans, positions, colours and tooltips."""

from __future__ import annotations

import math

from PySide6.QtCore import QPointF, QSize, Qt
from PySide6.QtGui import QColor, QImage, QMouseEvent, QPalette
from PySide6.QtWidgets import QApplication

from ctxviewer.gui.widgets.models import is_dark, status_colour
from ctxviewer.gui.widgets.sensitivity_strip import (
    BAR_H,
    LABEL_W,
    MARGIN,
    TAIL_SHARE,
    SensitivityStrip,
    compact,
    edge,
    render_image,
    span_rect,
    strip_layout,
    strip_rows,
    tip_at,
)
from tests.factories import small_sensitivity

IN, PART, CUT = "included", "truncated", "cut_for_budget"
SENS = small_sensitivity()
WIDTH = 600


def light_palette() -> QPalette:
    palette = QPalette()
    palette.setColor(QPalette.ColorRole.Window, QColor("#f0f0f0"))
    palette.setColor(QPalette.ColorRole.Base, QColor("#ffffff"))
    palette.setColor(QPalette.ColorRole.WindowText, QColor("#000000"))
    palette.setColor(QPalette.ColorRole.PlaceholderText, QColor("#777777"))
    return palette


def test_spans_follow_the_candidates_fate_along_each_axis() -> None:
    budget, share, switch = strip_rows(SENS, "a")
    # a: cut at 1-99 (vector 1), in at 100-249 (0), truncated at 250-399 (2), in from 400 (3, then 0).
    assert [(s.lo, s.hi, s.status) for s in budget.spans] == [
        (1, 99, CUT),
        (100, 249, IN),
        (250, 399, PART),
        (400, 10_000_000, IN),
    ]
    assert [s.tip for s in budget.spans] == [
        "budget 1\u201399: cut for budget",
        "budget 100\u2013249: included",
        "budget 250\u2013399: truncated",
        "budget 400 and above: included",
    ]
    assert budget.current == 300 and budget.current_text == "300"
    # The ceiling 450, 10 % headroom: 495, rounded up to two digits: 500; nothing the tail hides changes.
    assert budget.linear_end == 500 and budget.has_tail
    assert budget.tail_text == "500" and budget.hi_text == "10M" and budget.lo_text == "1"
    assert budget.suggest == (50, 2_000)
    # The share: section budgets 0-199 (share 0 to under 0.2) cut, 200-500 (0.2 up to 0.5) truncated.
    assert [(s.lo, s.hi, s.status) for s in share.spans] == [(0, 199, CUT), (200, 500, PART)]
    assert share.spans[0].tip == "security share 0 to under 0.2 (section budget 0\u2013199 of 1,000): cut for budget"
    assert share.spans[1].tip == "security share 0.2\u20130.5 (section budget 200\u2013500 of 1,000): truncated"
    assert share.current == 300 and not share.has_tail and share.suggest is None
    # The switch: true (vector 2) truncated, false (vector 3) included.
    assert switch.cells == ("true", "false") and switch.current == 0
    assert [(s.lo, s.hi, s.status) for s in switch.spans] == [(0, 0, PART), (1, 1, IN)]
    assert switch.spans[1].tip == "security rule filtering false: included"
    # c is in only at 400-449: one in-span among cuts, merged across vectors 1, 0 and 2.
    c_budget = strip_rows(SENS, "c")[0]
    assert [(s.lo, s.hi, s.status) for s in c_budget.spans] == [(1, 399, CUT), (400, 449, IN), (450, 10_000_000, CUT)]


def test_the_scale_is_linear_to_the_knee_and_logarithmic_in_the_tail() -> None:
    budget, share, switch = strip_rows(SENS, "a")
    linear = 1 - TAIL_SHARE
    assert edge(budget, 1) == 0.0
    # Position 100's left edge: 99 of the 500 positions 1..500 the linear part holds.
    assert math.isclose(edge(budget, 100), linear * 99 / 500)
    assert math.isclose(edge(budget, 501), linear)  # the break
    assert math.isclose(edge(budget, 10_000_001), 1.0)
    # 2,001 (the bracket's end) sits log(20001/501)/log(10000001/501) of the way along the tail.
    assert math.isclose(edge(budget, 2_001), linear + TAIL_SHARE * math.log(2_001 / 501) / math.log(10_000_001 / 501))
    assert math.isclose(edge(share, 250), 250 / 501)  # no tail: positions 0..500 linear
    assert edge(switch, 1) == 0.5  # two cells, half each
    # A narrow pane gives the labels 30 % of its width (at least 96 px); a wide one 160 px.
    assert strip_layout((budget,), 360).label_width == 108 and strip_layout((budget,), 200).label_width == 96
    assert strip_layout((budget,), 1000).label_width == LABEL_W == 160
    assert compact(10_000_000) == "10M" and compact(20_000) == "20k" and compact(4_800) == "4,800"


def test_painted_spans_have_their_fate_colours_and_the_current_value_is_marked(qtbot) -> None:  # type: ignore[no-untyped-def]
    rows = strip_rows(SENS, "a")
    palette = light_palette()
    image = render_image(rows, QSize(WIDTH, 140), palette)
    layout = strip_layout(rows, WIDTH)
    assert layout.bar_left == LABEL_W + MARGIN and layout.bar_width == WIDTH - LABEL_W - 3 * MARGIN

    def colour_at(point: QPointF) -> QColor:
        return image.pixelColor(int(point.x()), int(point.y()))

    budget_colours = [colour_at(span_rect(layout, rows, 0, s).center()) for s in range(4)]
    assert budget_colours == [
        status_colour(CUT, False),
        status_colour(IN, False),
        status_colour(PART, False),
        status_colour(IN, False),
    ]
    assert colour_at(span_rect(layout, rows, 1, 0).center()) == status_colour(CUT, False)
    assert colour_at(span_rect(layout, rows, 2, 0).center()) == status_colour(PART, False)
    assert colour_at(span_rect(layout, rows, 2, 1).center()) == status_colour(IN, False)
    # The switch's current cell (true) is framed in black; its middle keeps its colour.
    assert image.pixelColor(int(layout.x(rows[2], 0.5)), int(layout.tops[2])) == QColor("#000000")
    # The current budget (300) is a black line across the bar: at its x, mid-bar, black.
    x = layout.x(rows[0], 300)
    y = layout.tops[0] + BAR_H / 2
    assert QColor("#000000") in [image.pixelColor(int(x) + dx, int(y)) for dx in (-1, 0, 1)]
    # ... and nowhere else on the budget bar away from it (its spans keep their colours).
    assert image.pixelColor(int(layout.x(rows[0], 200)), int(y)) == status_colour(IN, False)
    # The real system's range is a bracket under the bar, from 50 to 2,000.
    below = int(layout.tops[0] + BAR_H + 3)
    inside, outside = int(layout.x(rows[0], 1_000)), int(layout.x(rows[0], 20))
    assert image.pixelColor(inside, below) == QColor("#000000")
    assert image.pixelColor(outside, below) != QColor("#000000")


def test_tooltips_name_the_exact_interval_and_fate(qtbot) -> None:  # type: ignore[no-untyped-def]
    rows = strip_rows(SENS, "c")
    layout = strip_layout(rows, WIDTH)
    assert tip_at(layout, rows, span_rect(layout, rows, 0, 1).center()) == "budget 400\u2013449: included"
    assert tip_at(layout, rows, QPointF(MARGIN + 4, layout.tops[0] + 4)) == "budget: 300 now (the black mark)"
    assert tip_at(layout, rows, QPointF(layout.x(rows[0], 1_000), layout.tops[0] + BAR_H + 3)).startswith(
        "The real system's budget range: 50\u20132,000"
    )
    assert tip_at(layout, rows, QPointF(WIDTH - 2, layout.tops[-1] + 30)) == ""
    # The widget: a hover makes the span's words its tooltip.
    widget = SensitivityStrip()
    qtbot.addWidget(widget)
    widget.resize(WIDTH, widget.sizeHint().height())
    widget.set_rows(rows)
    widget.resize(WIDTH, widget.sizeHint().height())
    point = span_rect(widget.layout_now(), rows, 2, 1).center()
    event = QMouseEvent(
        QMouseEvent.Type.MouseMove,
        point,
        widget.mapToGlobal(point),
        Qt.MouseButton.NoButton,
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
    )
    QApplication.sendEvent(widget, event)
    assert widget.toolTip() == "security rule filtering false: included"


def test_the_widget_paints_what_it_is_given(qtbot) -> None:  # type: ignore[no-untyped-def]
    widget = SensitivityStrip()
    qtbot.addWidget(widget)
    widget.set_rows(strip_rows(SENS, "b"))
    widget.resize(WIDTH, widget.sizeHint().height())
    image: QImage = widget.grab().toImage()
    layout = widget.layout_now()
    # b: in at 1-99 and 250-399, cut at 100-249.
    point = span_rect(layout, widget.rows(), 0, 1).center()
    assert image.pixelColor(int(point.x()), int(point.y())) == status_colour(CUT, is_dark(widget.palette()))
