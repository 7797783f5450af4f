"""Tests of the painted charts: exact layout math, interaction, and rendered pixels."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QImage, QPalette
from PySide6.QtWidgets import QWidget

from ctxviewer.gui.widgets.charts import (
    ARC_SPAN,
    ARC_START,
    GAUGE_THICKNESS,
    Gauge,
    GaugeValue,
    ShareChart,
    ShareSegment,
    ShareValue,
    TrimBar,
    TrimChart,
    TrimValue,
    fraction,
    gauge_color,
    gauge_direction,
    gauge_geometry,
    label_rect,
    percent_text,
    segment_color,
    share_layout,
    trim_spans,
    zone_color,
    zone_ticks,
)

REPO = Path(__file__).resolve().parents[3]

SIMPLE = ShareValue(
    (ShareSegment("a", "Alpha", 300, 400), ShareSegment("b", "Beta", 200, 400)),
    total_budget=1000,
    buffer=200,
    tokenizer="heuristic",
)
OVER = ShareValue(
    (ShareSegment("a", "Alpha", 800, 500), ShareSegment("b", "Beta", 400, 300)),
    total_budget=1000,
    buffer=200,
    tokenizer="heuristic",
)
TRIM = TrimValue(
    (TrimBar("1. requirements: select_top_k", 1000, 250), TrimBar("2. design: cut", 500, 500)),
    "heuristic tokens",
)


def dark_palette() -> QPalette:
    pal = QPalette()
    for role, color in [
        (QPalette.ColorRole.Window, "#1e1f22"),
        (QPalette.ColorRole.Base, "#2b2d30"),
        (QPalette.ColorRole.Text, "#e6e6e6"),
        (QPalette.ColorRole.WindowText, "#e6e6e6"),
        (QPalette.ColorRole.Mid, "#5a5d63"),
        (QPalette.ColorRole.PlaceholderText, "#8c8f94"),
    ]:
        pal.setColor(role, QColor(color))
    return pal


PALETTES = {"light": QPalette, "dark": dark_palette}


def render(widget: QWidget, width: int, height: int, palette: QPalette | None = None) -> QImage:
    if palette is not None:
        widget.setPalette(palette)
    widget.resize(width, height)
    image = QImage(width, height, QImage.Format.Format_ARGB32)
    image.fill(widget.palette().color(QPalette.ColorRole.Window))
    widget.render(image)
    return image


def close(actual: QColor, expected: QColor, tolerance: int = 12) -> bool:
    pairs = [
        (actual.red(), expected.red()),
        (actual.green(), expected.green()),
        (actual.blue(), expected.blue()),
    ]
    return all(abs(a - b) <= tolerance for a, b in pairs)


def pixel(image: QImage, point: QPointF) -> QColor:
    return image.pixelColor(int(point.x()), int(point.y()))


def painted_pixels(image: QImage) -> int:
    background = image.pixelColor(0, 0)
    return sum(
        image.pixelColor(x, y) != background for x in range(0, image.width(), 3) for y in range(0, image.height(), 3)
    )


# -- pure functions ----------------------------------------------------------------------


def test_share_layout_within_budget_is_exact() -> None:
    layout = share_layout(SIMPLE, QRectF(0, 0, 1000, 20))
    assert layout.segments == (QRectF(0, 0, 300, 20), QRectF(300, 0, 200, 20))
    assert layout.budget_x == 1000
    assert layout.buffer == QRectF(800, 0, 200, 20)  # the budget's last 200 tokens
    assert layout.overflow is None


def test_share_layout_over_budget_rescales_to_used() -> None:
    # used 1200 > budget 1000: the 600 px stand for 1200 tokens, 0.5 px a token.
    layout = share_layout(OVER, QRectF(10, 5, 600, 20))
    assert layout.segments == (QRectF(10, 5, 400, 20), QRectF(410, 5, 200, 20))
    assert layout.budget_x == 510
    assert layout.buffer == QRectF(410, 5, 100, 20)
    assert layout.overflow == QRectF(510, 5, 100, 20)


def test_share_layout_copes_with_zero_and_absurd_values() -> None:
    empty = ShareValue((ShareSegment("a", "A", 0, 0),), 0, 0, "heuristic")
    layout = share_layout(empty, QRectF(0, 0, 100, 10))
    assert layout.segments == (QRectF(0, 0, 0, 10),)
    assert layout.budget_x == 0 and layout.overflow is None
    weird = ShareValue((ShareSegment("a", "A", -50, -1), ShareSegment("b", "B", 10**9, 5)), -3, 10**12, "x")
    layout = share_layout(weird, QRectF(0, 0, 100, 10))
    assert layout.segments[0].width() == 0
    assert layout.segments[1] == QRectF(0, 0, 100, 10)
    assert layout.overflow == QRectF(0, 0, 100, 10)
    assert weird.used == 10**9


def test_fractions_and_percent_text() -> None:
    assert fraction(300, 400) == 0.75
    assert fraction(500, 400) == 1.0
    assert fraction(10, 0) == 1.0 and fraction(0, 0) == 0.0
    assert fraction(-5, 100) == 0.0 and fraction(float("nan"), 100) == 0.0
    assert percent_text(833, 2000) == "41.7%"  # 41.65 rounds half up
    assert percent_text(1776, 200_000) == "0.9%"
    assert percent_text(3, 0) == "-"
    assert percent_text(10**9, 1000) == "100,000,000.0%"


def test_trim_spans() -> None:
    assert trim_spans(TrimBar("x", 1000, 250), 1000, 400) == (100, 300)
    assert trim_spans(TrimBar("x", 500, 500), 1000, 400) == (200, 0)
    assert trim_spans(TrimBar("x", 500, 900), 1000, 400) == (200, 0)  # growth clamped
    assert trim_spans(TrimBar("x", -5, -9), 0, 400) == (0, 0)


def test_gauge_value_and_colours() -> None:
    assert GaugeValue(1776, 200_000, 70.0).percent == pytest.approx(0.888)
    assert GaugeValue(5, 0, 70.0).percent == 0
    assert GaugeValue(140_000, 200_000, 70.0).over_threshold  # exactly at: >= as the engine
    assert not GaugeValue(139_999, 200_000, 70.0).over_threshold
    assert gauge_color(70.0, 70.0) == QColor("#d62728")
    assert gauge_color(60.0, 70.0) == gauge_color(69.9, 70.0) != gauge_color(59.9, 70.0)


def test_gauge_geometry_fits_the_dial() -> None:
    centre, r = gauge_geometry(300, 200, 0, 0)
    assert r == pytest.approx(200 / 1.5)  # height-bound: the dial is 1.5 radii tall
    assert centre.x() == 150 and centre.y() == pytest.approx(r)
    centre, r = gauge_geometry(100, 400, 10, 10)
    assert r == 40 and centre.x() == 50
    assert centre.y() == pytest.approx(10 + (380 - 60) / 2 + 40)
    assert gauge_geometry(0, 0, 10, 10)[1] == 1.0


def test_zone_ticks_and_label_placement() -> None:
    centre = QPointF(100, 100)
    # 75% of the 240 degree arc from 210 degrees: 210 - 180 = 30 degrees (up and to the right).
    d = gauge_direction(75.0)
    assert d.x() == pytest.approx(math.cos(math.radians(30))) and d.y() == pytest.approx(-0.5)
    ticks = zone_ticks((("notice", 40.0), ("compaction", 75.0), ("odd", float("nan")), ("big", 150.0)), centre, 50, 70)
    assert [(t.name, t.percent, t.color_index) for t in ticks] == [
        ("notice", 40.0, 0),
        ("compaction", 75.0, 1),
        ("odd", 0.0, 2),
        ("big", 100.0, 3),
    ]
    c = ticks[1]
    cos30 = math.cos(math.radians(30))
    assert c.inner.x() == pytest.approx(100 + 50 * cos30) and c.inner.y() == pytest.approx(75)
    assert c.outer.x() == pytest.approx(100 + 70 * cos30) and c.outer.y() == pytest.approx(65)
    # 0% and 100% are the ends of the arc: 210 and -30 degrees.
    assert ticks[2].direction.y() == pytest.approx(0.5) and ticks[2].direction.x() < 0
    assert ticks[3].direction.y() == pytest.approx(0.5) and ticks[3].direction.x() > 0
    assert zone_ticks((), centre, 50, 70) == ()
    # Labels sit on the side the tick points to, and stay inside the bounds.
    bounds = QRectF(0, 0, 200, 200)
    assert label_rect(QPointF(150, 60), QPointF(0.87, -0.5), 40, 12, bounds) == QRectF(150, 48, 40, 12)
    assert label_rect(QPointF(50, 60), QPointF(-0.87, -0.5), 40, 12, bounds) == QRectF(10, 48, 40, 12)
    assert label_rect(QPointF(100, 20), QPointF(0, -1), 40, 12, bounds) == QRectF(80, 8, 40, 12)
    assert label_rect(QPointF(190, 150), QPointF(0.87, 0.5), 40, 12, bounds) == QRectF(160, 150, 40, 12)
    assert label_rect(QPointF(100, 2), QPointF(0, -1), 40, 12, bounds).top() == 0
    # Zone colours: distinct from each other and from the usage colours, in both palettes.
    for dark in (False, True):
        colours = [zone_color(i, dark).name() for i in range(4)]
        assert len(set(colours)) == 4
        assert not {c for c in colours} & {"#3a9d4a", "#e6a700", "#d62728"}
    assert zone_color(4) == zone_color(0) and zone_color(0) != zone_color(0, True)


def test_gauge_value_zones_from_tracker(trace) -> None:  # type: ignore[no-untyped-def]
    from dataclasses import replace

    assert GaugeValue.from_tracker(trace.tracker).zones == ()  # only the checkpoint
    tracker = replace(trace.tracker, zones={"checkpoint": 70.0, "hard": 90.0, "compaction": 75.0})
    value = GaugeValue.from_tracker(tracker)
    assert value.zones == (("compaction", 75.0), ("hard", 90.0))
    assert value.threshold_percent == trace.tracker.threshold_percent


# -- from a real trace -------------------------------------------------------------------


@pytest.fixture(scope="module")
def trace():  # type: ignore[no-untyped-def]
    from ctxviewer.engine.project.loading import load_project
    from ctxviewer.engine.runs.pipeline import assemble

    project = load_project(REPO / "sample_projects" / "ledger-service")
    return assemble(project, "auth-sessions", "AUTH-L1-001")


def test_values_from_trace(trace) -> None:  # type: ignore[no-untyped-def]
    share = ShareValue.from_trace(trace)
    assert [s.name for s in share.segments] == [s.name for s in trace.sections]
    for seg, sec in zip(share.segments, trace.sections, strict=True):
        counted = sec.tokens.get(trace.tokenizer)
        assert seg.tokens == (sec.tokens.heuristic if counted is None else counted)
        assert (seg.title, seg.budget) == (sec.title, sec.budget)
    assert (share.total_budget, share.buffer, share.tokenizer) == (
        trace.budget,
        trace.buffer,
        trace.tokenizer,
    )
    trim = TrimValue.from_trace(trace)
    assert len(trim.steps) == len(trace.trim_steps)
    first = trace.trim_steps[0]
    # The reference keeps the top 5 of the requirements first: named by its file, in words.
    assert (first.action, first.target) == ("select_top_k", "requirements")
    assert trim.steps[0] == TrimBar(
        "1. requirements.md: kept the best paragraphs",
        first.tokens_before,
        first.tokens_after,
    )
    gauge = GaugeValue.from_tracker(trace.tracker)
    assert gauge.percent == pytest.approx(trace.tracker.usage_percent)
    assert gauge.over_threshold == trace.tracker.is_over_threshold


def test_share_tooltip_for_real_trace(qtbot, trace) -> None:  # type: ignore[no-untyped-def]
    chart = ShareChart()
    qtbot.addWidget(chart)
    chart.setValue(ShareValue.from_trace(trace))
    chart.resize(600, chart.sizeHint().height())
    chart.show()
    qtbot.waitExposed(chart)
    row = [s.name for s in trace.sections].index("spec_excerpts")
    qtbot.mouseMove(chart, chart.row_rect(row).center().toPoint())
    qtbot.waitUntil(lambda: chart.toolTip() != "", timeout=1000)
    assert chart.toolTip() == "Spec excerpts: 833 heuristic tokens of a 2,000 budget (41.7%)"


# -- ShareChart ----------------------------------------------------------------------------


@pytest.fixture
def share(qtbot) -> ShareChart:  # type: ignore[no-untyped-def]
    chart = ShareChart()
    qtbot.addWidget(chart)
    chart.setValue(SIMPLE)
    chart.resize(616, chart.sizeHint().height())
    return chart


def test_share_hit_test(share: ShareChart) -> None:
    bar = share.bar_rect()
    assert bar.width() == 600
    segs = share_layout(SIMPLE, bar).segments
    assert segs[0].width() == 180 and segs[1].width() == 120
    assert share.segment_at(segs[0].center()) == "a"
    assert share.segment_at(segs[1].center()) == "b"
    assert share.segment_at(QPointF(bar.left() + 400, bar.center().y())) is None  # unused
    assert share.segment_at(QPointF(2, 2)) is None
    assert share.segment_at(share.row_rect(1).center()) == "b"
    share.setValue(None)
    assert share.segment_at(segs[0].center()) is None and share.value() is None


def test_share_click_emits_section(qtbot, share: ShareChart) -> None:  # type: ignore[no-untyped-def]
    share.show()
    qtbot.waitExposed(share)
    target = share_layout(SIMPLE, share.bar_rect()).segments[1].center().toPoint()
    with qtbot.waitSignal(share.sectionClicked, timeout=1000) as blocker:
        qtbot.mouseClick(share, Qt.MouseButton.LeftButton, pos=target)
    assert blocker.args == ["b"]
    with qtbot.waitSignal(share.sectionClicked, timeout=1000) as blocker:
        qtbot.mouseClick(share, Qt.MouseButton.LeftButton, pos=share.row_rect(0).center().toPoint())
    assert blocker.args == ["a"]


def test_share_keyboard(qtbot, share: ShareChart) -> None:  # type: ignore[no-untyped-def]
    assert share.focusPolicy() == Qt.FocusPolicy.StrongFocus
    qtbot.keyClick(share, Qt.Key.Key_Right)
    with qtbot.waitSignal(share.sectionClicked, timeout=1000) as blocker:
        qtbot.keyClick(share, Qt.Key.Key_Return)
    assert blocker.args == ["b"]
    qtbot.keyClick(share, Qt.Key.Key_Right)  # stays on the last
    qtbot.keyClick(share, Qt.Key.Key_Left)
    with qtbot.waitSignal(share.sectionClicked, timeout=1000) as blocker:
        qtbot.keyClick(share, Qt.Key.Key_Space)
    assert blocker.args == ["a"]


def test_share_tooltip_on_mouse_move(qtbot, share: ShareChart) -> None:  # type: ignore[no-untyped-def]
    share.show()
    qtbot.waitExposed(share)
    qtbot.mouseMove(share, share_layout(SIMPLE, share.bar_rect()).segments[0].center().toPoint())
    qtbot.waitUntil(lambda: share.toolTip() != "", timeout=1000)
    assert share.toolTip() == "Alpha: 300 heuristic tokens of a 400 budget (75.0%)"


@pytest.mark.parametrize("scheme", PALETTES)
def test_share_renders_segment_colours(share: ShareChart, scheme: str) -> None:
    image = render(share, 616, share.sizeHint().height(), PALETTES[scheme]())
    assert painted_pixels(image) > 200
    segs = share_layout(SIMPLE, share.bar_rect()).segments
    for i, seg in enumerate(segs):  # right part of each segment: clear of its title text
        probe = QPointF(seg.left() + seg.width() * 0.8, seg.center().y())
        assert close(pixel(image, probe), segment_color(i))
    assert not close(pixel(image, QPointF(segs[1].right() + 30, segs[1].center().y())), segment_color(1))


def test_share_over_budget_and_empty_paint(qtbot) -> None:  # type: ignore[no-untyped-def]
    chart = ShareChart()
    qtbot.addWidget(chart)
    assert painted_pixels(render(chart, 300, 80)) > 0  # the empty-state message
    chart.setValue(OVER)
    image = render(chart, 616, chart.sizeHint().height())
    overflow = share_layout(OVER, chart.bar_rect()).overflow
    assert overflow is not None
    edge = pixel(image, QPointF(overflow.right() - 1.5, overflow.center().y()))
    assert close(edge, QColor("#d62728"), 40)  # the red outline of the overflow
    for value in (
        ShareValue((), 0, 0, "heuristic"),
        ShareValue((ShareSegment("z", "", -5, 0),), 0, -3, "heuristic"),
        ShareValue(tuple(ShareSegment(f"s{i}", "T" * 80, 10**9, 1) for i in range(9)), 10**9, 10**10, "h"),
    ):
        chart.setValue(value)
        for width in (600, 40, 1):
            render(chart, width, chart.sizeHint().height())


# -- TrimChart -----------------------------------------------------------------------------


def test_trim_chart_hits_clicks_and_keys(qtbot) -> None:  # type: ignore[no-untyped-def]
    chart = TrimChart()
    qtbot.addWidget(chart)
    chart.setValue(TRIM)
    chart.resize(600, chart.sizeHint().height())
    chart.show()
    qtbot.waitExposed(chart)
    assert chart.step_at(chart.row_rect(0).center()) == 0
    assert chart.step_at(chart.row_rect(1).center()) == 1
    assert chart.step_at(QPointF(5, 2)) is None
    assert chart.step_at(chart.row_rect(2).center()) is None
    with qtbot.waitSignal(chart.stepClicked, timeout=1000) as blocker:
        qtbot.mouseClick(chart, Qt.MouseButton.LeftButton, pos=chart.row_rect(1).center().toPoint())
    assert blocker.args == [1]
    qtbot.keyClick(chart, Qt.Key.Key_Left)
    with qtbot.waitSignal(chart.stepClicked, timeout=1000) as blocker:
        qtbot.keyClick(chart, Qt.Key.Key_Enter)
    assert blocker.args == [0]
    qtbot.mouseMove(chart, chart.row_rect(0).center().toPoint())
    qtbot.waitUntil(lambda: chart.toolTip() != "", timeout=1000)
    assert chart.toolTip() == (
        "1. requirements: select_top_k: 1,000 \u2192 250 (\u2212750) heuristic tokens, 75.0% removed"
    )


@pytest.mark.parametrize("scheme", PALETTES)
def test_trim_chart_renders(qtbot, scheme: str) -> None:  # type: ignore[no-untyped-def]
    chart = TrimChart()
    qtbot.addWidget(chart)
    chart.setValue(TRIM)
    image = render(chart, 600, chart.sizeHint().height(), PALETTES[scheme]())
    assert painted_pixels(image) > 200
    # The kept part (0..250 of the longest 1000) starts the bar in the first legend colour.
    row = chart.row_rect(0)
    found = [
        x
        for x in range(int(row.left()), int(row.right()))
        if close(image.pixelColor(x, int(row.center().y())), segment_color(0))
    ]
    assert found, "no kept-part pixels on the first row"
    chart.setValue(TrimValue((), "heuristic tokens"))
    assert painted_pixels(render(chart, 300, 60)) > 0  # "No trimming was needed"
    chart.setValue(TrimValue((TrimBar("x" * 300, -1, 10**12), TrimBar("", 10**9, -4)), "t"))
    for width in (600, 30):
        render(chart, width, 100)


# -- Gauge ---------------------------------------------------------------------------------


def test_gauge_set_value_at_once_and_animated(qtbot) -> None:  # type: ignore[no-untyped-def]
    gauge = Gauge()
    qtbot.addWidget(gauge)
    assert gauge.value() is None and gauge.property("displayed") == 0
    value = GaugeValue(50_000, 200_000, 70.0)
    gauge.setValue(value)
    assert gauge.property("displayed") == 25.0 and gauge.value() is value
    with qtbot.waitSignal(gauge.animationFinished, timeout=2000):
        gauge.setValue(GaugeValue(150_000, 200_000, 70.0), animate=True)
        assert gauge.property("displayed") < 75.0
    assert gauge.property("displayed") == pytest.approx(75.0)
    gauge.setValue(None)
    assert gauge.property("displayed") == 0


@pytest.mark.parametrize("scheme", PALETTES)
def test_gauge_renders_filled_arc(qtbot, scheme: str) -> None:  # type: ignore[no-untyped-def]
    gauge = Gauge()
    qtbot.addWidget(gauge)
    gauge.setPalette(PALETTES[scheme]())
    gauge.resize(300, 240)
    centre, r = gauge.geometry_of_dial()
    mid = r - max(3.0, r * GAUGE_THICKNESS) / 2  # the pen runs along the ring's middle

    def on_arc(percent: float) -> QPointF:
        angle = math.radians(ARC_START - ARC_SPAN * percent / 100)
        return centre + QPointF(math.cos(angle), -math.sin(angle)) * mid

    for used, colour in ((60_000, "#3a9d4a"), (130_000, "#e6a700"), (160_000, "#d62728")):
        gauge.setValue(GaugeValue(used, 200_000, 70.0))
        image = render(gauge, 300, 240)
        assert painted_pixels(image) > 200
        assert close(pixel(image, on_arc(5)), QColor(colour), 20), used
        assert not close(pixel(image, on_arc(95)), QColor(colour), 20)  # beyond the fill


@pytest.mark.parametrize("scheme", PALETTES)
def test_gauge_renders_zone_ticks_and_the_tint(qtbot, scheme: str) -> None:  # type: ignore[no-untyped-def]
    gauge = Gauge()
    qtbot.addWidget(gauge)
    gauge.setPalette(PALETTES[scheme]())
    gauge.resize(300, 240)
    centre, r = gauge.geometry_of_dial()
    thick = max(3.0, r * GAUGE_THICKNESS)
    rr = r - thick / 2
    gauge.setValue(GaugeValue(20_000, 200_000, 70.0, zones=(("compaction", 75.0), ("hard", 90.0))))
    image = render(gauge, 300, 240)
    dark = scheme == "dark"
    for index, percent in ((0, 75.0), (1, 90.0)):
        d = gauge_direction(percent)
        # Just outside the ring, where only the tick is drawn.
        probe = centre + d * (rr + thick / 2 + 1.5)
        near = [pixel(image, probe + QPointF(dx, dy)) for dx in (-1, 0, 1) for dy in (-1, 0, 1)]
        assert any(close(c, zone_color(index, dark), 40) for c in near), (percent, [c.name() for c in near])
    # The track beyond the checkpoint is tinted red; before it, it is not.
    before, after = pixel(image, centre + gauge_direction(50) * rr), pixel(image, centre + gauge_direction(85) * rr)
    assert after.red() - after.blue() > before.red() - before.blue() + 15
    # The checkpoint tick stays in the text colour.
    tick = centre + gauge_direction(70.0) * (rr + thick / 2 + 1.5)
    text = gauge.palette().color(QPalette.ColorRole.Text)
    assert any(close(pixel(image, tick + QPointF(dx, dy)), text, 60) for dx in (-1, 0, 1) for dy in (-1, 0, 1))


def test_gauge_copes_with_absurd_values(qtbot) -> None:  # type: ignore[no-untyped-def]
    gauge = Gauge()
    qtbot.addWidget(gauge)
    assert gauge.hasHeightForWidth() and gauge.heightForWidth(220) > 100
    render(gauge, 220, 180)  # empty state
    for value in (
        GaugeValue(10**9, 200_000, 70.0, "x" * 200),
        GaugeValue(-500, 0, float("nan")),
        GaugeValue(5, -10, -40.0),
        GaugeValue(10**9, 10**9, 1e300),
        GaugeValue(5, 100, 70.0, zones=(("", float("nan")), ("x" * 300, -5.0), ("y", 1e300))),
        GaugeValue(5, 100, 70.0, zones=tuple((f"zone {i}", 70.0 + i / 10) for i in range(12))),
    ):
        gauge.setValue(value)
        for width, height in ((220, 180), (20, 10), (1, 1)):
            render(gauge, width, height)


# -- pictures to look at -----------------------------------------------------------------


def test_save_pictures(qtbot, trace) -> None:  # type: ignore[no-untyped-def]
    """Save realistic renders to /tmp/charts_*.png for a human look."""
    for scheme, make in PALETTES.items():
        share, trim, gauge = ShareChart(), TrimChart(), Gauge()
        for widget in (share, trim, gauge):
            qtbot.addWidget(widget)
        share.setValue(ShareValue.from_trace(trace))
        trim.setValue(TrimValue.from_trace(trace))
        gauge.setValue(GaugeValue.from_tracker(trace.tracker))
        for name, widget, size in (
            ("share", share, (600, share.sizeHint().height())),
            ("trim", trim, (600, trim.sizeHint().height())),
            ("gauge", gauge, (220, 180)),
        ):
            assert render(widget, *size, make()).save(f"/tmp/charts_{name}_{scheme}.png")


def test_share_value_counts_the_whole_context_like_the_header() -> None:
    from ctxviewer.gui.widgets.charts import ShareValue
    from tests.gui.conftest import LEDGER, engine_trace

    trace = engine_trace(LEDGER, "auth-sessions", "AUTH-L1-001")
    value = ShareValue.from_trace(trace)
    sections = sum(s.tokens.heuristic for s in trace.sections)
    # The blank line joining the two sections counts in the whole context, not in either section.
    assert value.used == trace.context_tokens.heuristic == sections + 1


def test_a_compact_share_chart_leaves_out_percentages_but_not_the_tooltip(qtbot) -> None:  # type: ignore[no-untyped-def]
    chart = ShareChart(compact=True)
    qtbot.addWidget(chart)
    chart.setValue(SIMPLE)
    assert chart._texts == (("Alpha", "300 / 400"), ("Beta", "200 / 400"))
    assert chart._tooltip(0) == "Alpha: 300 heuristic tokens of a 400 budget (75.0%)"
    full = ShareChart()
    qtbot.addWidget(full)
    full.setValue(SIMPLE)
    assert full._texts[0] == ("Alpha", "300 / 400 (75.0%)")
