"""The Window tab: seed 003's layout of the worker's whole window, worked by hand."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QImage, QPalette

from ctxviewer.engine.project.loading import load_project
from ctxviewer.engine.runs.pipeline import assemble
from ctxviewer.engine.trace.model import Trace, WindowBlock, WindowLayout
from ctxviewer.gui.views.window_view import (
    MIN_BLOCK_H,
    NO_LAYOUT,
    NO_TRACE,
    WindowChart,
    WindowLayoutTab,
    block_label,
    factor_text,
    inset_geometry,
    spread_labels,
    threshold_phrase,
    window_geometry,
    window_summary,
)
from ctxviewer.gui.widgets.charts import segment_color
from ctxviewer.gui.widgets.models import RowRole
from tests.factories import make_project
from tests.gui.widgets.test_charts import dark_palette


def block(name: str, tokens: int, exact: int | None = None) -> WindowBlock:
    return WindowBlock(name, name.replace("_", " ").capitalize(), tokens, tokens, exact, f"{name} source", "")


def layout(*tokens: int, reserve: int = 200, window: int = 1000) -> WindowLayout:
    names = ("base_prompt", "command", "task_context", "conversation")
    return WindowLayout(
        window,
        100 * reserve / window,
        (*(block(n, t) for n, t in zip(names, tokens, strict=True)), block("reserve", reserve)),
        (("checkpoint", 70.0), ("compaction", 75.0)),
    )


#: Window 1,000: base prompt 100, command 50, task context 0, conversation 250, reserve 200.
HAND = layout(100, 50, 0, 250)


def heights(geo: object) -> dict[str, float]:
    return {name: r.height() for name, r in geo.blocks}  # type: ignore[attr-defined]


# -- pure layout ----------------------------------------------------------------------------


def test_geometry_is_proportional_with_the_reserve_at_the_bottom() -> None:
    # 500 px stand for 1,000 tokens: half a pixel a token, every block to scale.
    geo = window_geometry(HAND, QRectF(10, 20, 80, 500))
    assert geo.scale == 0.5
    assert heights(geo) == {
        "base_prompt": 50,
        "command": 25,
        "task_context": 0,  # 0 tokens: no height (its label still points at where it is)
        "conversation": 125,
        "reserve": 100,
    }
    tops = {name: r.top() for name, r in geo.blocks}
    assert tops == {"base_prompt": 20, "command": 70, "task_context": 95, "conversation": 95, "reserve": 420}
    assert all(r.left() == 10 and r.width() == 80 for _n, r in geo.blocks)
    assert geo.free == QRectF(10, 220, 80, 420 - 220)
    assert geo.enlarged == frozenset()
    # thresholds measured from the window's top at the true scale
    assert [(t.name, t.tokens, t.y) for t in geo.thresholds] == [
        ("checkpoint", 700, 20 + 350),
        ("compaction", 750, 20 + 375),
    ]
    assert geo.window_y == 520
    # Blocks this tall need no enlargement beside the column.
    assert inset_geometry(HAND, geo, QRectF(116, 20, 80, 300)) is None


#: A real window: 200,000 tokens, the blocks a few thousand, the reserve 40,000.
REAL = layout(300, 631, 647, 1248, reserve=40000, window=200000)


def test_thin_blocks_are_drawn_again_enlarged_beside_the_column() -> None:
    # 200,000 tokens in 500 px: 0.0025 px a token, so 300 tokens are 0.75 px -- too thin.
    geo = window_geometry(REAL, QRectF(0, 0, 100, 500))
    assert geo.scale == pytest.approx(0.0025)
    assert heights(geo)["base_prompt"] == pytest.approx(0.75) and heights(geo)["reserve"] == pytest.approx(100)
    # The inset stands for 300 + 631 + 647 + 1,248 = 2,826 tokens in 282.6 px: 0.1 px a token,
    # 40 times the column's scale; each block keeps its own proportion.
    inset = inset_geometry(REAL, geo, QRectF(126, 0, 100, 282.6))
    assert inset is not None
    assert inset.tokens == 2826
    assert inset.scale == pytest.approx(0.1) and inset.factor == pytest.approx(40)
    assert [n for n, _r in inset.blocks] == ["base_prompt", "command", "task_context", "conversation"]
    assert [r.height() for _n, r in inset.blocks] == pytest.approx([30, 63.1, 64.7, 124.8])
    assert [r.top() for _n, r in inset.blocks] == pytest.approx([0, 30, 93.1, 157.8])
    # It enlarges the column's top 2,826 tokens (7.065 px); no threshold falls inside it.
    assert inset.source.top() == 0 and inset.source.height() == pytest.approx(7.065)
    assert inset.thresholds == ()
    assert factor_text(inset.factor) == "\u00d740" and factor_text(2.46) == "\u00d72.5"
    # Not worth it when the inset would hardly enlarge them.
    assert inset_geometry(REAL, geo, QRectF(126, 0, 100, 10)) is None


def test_the_minimum_height_is_kept_when_asked_and_said() -> None:
    # With a minimum of 14 px (not the chart's choice): 300 tokens are 0.75 px, drawn 14 px.
    geo = window_geometry(REAL, QRectF(0, 0, 100, 500), MIN_BLOCK_H)
    assert heights(geo) == {
        "base_prompt": MIN_BLOCK_H,
        "command": MIN_BLOCK_H,
        "task_context": MIN_BLOCK_H,
        "conversation": MIN_BLOCK_H,
        "reserve": 100,
    }
    assert geo.enlarged == {"base_prompt", "command", "task_context", "conversation"}
    assert geo.free == QRectF(0, 4 * MIN_BLOCK_H, 100, 400 - 4 * MIN_BLOCK_H)
    assert block_label(REAL.blocks[0], 200000, True) == (
        "Base prompt: 300 tokens (0.2%) \u2014 drawn larger than scale"
    )
    assert block_label(REAL.blocks[4], 200000, False) == "Reserve: 40,000 tokens (20.0%)"


def test_minimum_heights_never_push_blocks_out_of_the_column() -> None:
    # 96 + 1 + 1 + 1 + reserve 1 tokens in 100 px: the four small blocks take 14 px each
    # (56 px), so the big one gives up what does not fit and keeps 100 - 56 = 44 px.
    tight = layout(96, 1, 1, 1, reserve=1, window=100)
    geo = window_geometry(tight, QRectF(0, 0, 10, 100), MIN_BLOCK_H)
    h = heights(geo)
    assert h["base_prompt"] == pytest.approx(44)
    assert [h[n] for n in ("command", "task_context", "conversation", "reserve")] == [MIN_BLOCK_H] * 4
    assert sum(h.values()) == pytest.approx(100)
    assert geo.free.height() == pytest.approx(0)


def test_blocks_over_the_window_rescale_and_mark_its_end() -> None:
    # used 1,300 of 1,000: the 520 px stand for 1,300 tokens (0.4 px a token)
    over = layout(100, 50, 700, 250)
    geo = window_geometry(over, QRectF(0, 0, 10, 520))
    assert geo.scale == pytest.approx(0.4)
    assert geo.window_y == pytest.approx(400)
    assert geo.thresholds[0].y == pytest.approx(280)  # 700 tokens
    assert geo.free.height() == 0
    assert dict(geo.blocks)["reserve"].top() == pytest.approx(440)


def test_spread_labels_keeps_them_apart_and_inside() -> None:
    assert spread_labels([10, 12, 14], 10, 0, 100) == [5, 15, 25]
    assert spread_labels([95, 96], 10, 0, 100) == [80, 90]  # pulled up from the bottom
    assert spread_labels([2], 10, 0, 100) == [0]  # kept under the top
    assert spread_labels([], 10, 0, 100) == []


# -- the summary ------------------------------------------------------------------------------


def test_summary_measures_the_thresholds_from_the_total_without_the_reserve() -> None:
    # used 600 with the reserve; 400 without it: 300 to 700 and 350 to 750.
    assert window_summary(HAND) == (
        "Used 600 of 1,000 (60.0%) with the reserve; 400 (40.0%) without the 200-token reserve. "
        "300 to the checkpoint at 70% (700); 350 to compaction at 75% (750)."
    )


def test_summary_says_when_a_threshold_is_passed_or_reached() -> None:
    late = layout(100, 50, 0, 600)  # 750 without the reserve
    assert threshold_phrase(late, "checkpoint", 70.0) == "the checkpoint at 70% (700) already passed by 50"
    assert threshold_phrase(late, "compaction", 75.0) == "compaction at 75% (750) reached exactly"
    assert window_summary(layout(100, 50, 700, 250)).startswith(
        "Used 1,300 of 1,000 (130.0%) with the reserve; 1,100 (110.0%) without the 200-token reserve; "
        "over the window by 300. "
    )
    assert window_summary(None) == NO_LAYOUT


# -- the widgets ------------------------------------------------------------------------------


@pytest.fixture
def trace(tmp_path: Path) -> Trace:
    make_project(tmp_path, [{"id": "T1", "title": "Refund ledger"}])
    return assemble(load_project(tmp_path), "feat", "T1", {"profile": "computed"}, exact=False)


@pytest.fixture
def tab(qtbot) -> WindowLayoutTab:
    widget = WindowLayoutTab()
    qtbot.addWidget(widget)
    widget.resize(820, 640)
    widget.show()
    return widget


def test_the_tab_shows_the_blocks_and_the_summary(tab: WindowLayoutTab, trace: Trace) -> None:
    tab.set_trace(trace)
    window = trace.window
    assert window is not None
    proxy = tab.table.proxy
    rows = [tuple(proxy.index(r, c).data() for c in range(5)) for r in range(proxy.rowCount())]
    assert [r[0] for r in rows] == [b.title for b in window.blocks]
    reserve = rows[-1]
    assert reserve == ("Response reserve", "40,000", "40,000", "n/a", "20.0%")
    assert tab.summary.text() == window_summary(window)
    assert tab.chart.value() is window


def test_a_missing_trace_or_layout_is_said_in_words(tab: WindowLayoutTab, trace: Trace) -> None:
    tab.set_trace(None)
    assert tab.summary.text() == NO_TRACE and tab.chart.empty_text == NO_TRACE
    assert tab.table.model.rowCount() == 0
    tab.set_trace(dataclasses.replace(trace, window=None))
    assert tab.summary.text() == NO_LAYOUT and tab.chart.empty_text == NO_LAYOUT


def test_clicking_a_block_names_it(qtbot) -> None:
    chart = WindowChart()
    qtbot.addWidget(chart)
    chart.setValue(HAND)
    chart.resize(600, 500)
    chart.show()
    geo = chart.geometry_now()
    assert geo is not None
    centre = dict(geo.blocks)["conversation"].center().toPoint()
    with qtbot.waitSignal(chart.blockClicked, timeout=2000) as blocker:
        qtbot.mouseClick(chart, Qt.MouseButton.LeftButton, pos=centre)
    assert blocker.args == ["conversation"]
    assert "Conversation: 250 tokens, 25.0% of 1,000" in chart._tooltip(3)


def test_clicking_a_block_of_a_trace_selects_its_row(qtbot, tab: WindowLayoutTab, trace: Trace) -> None:
    tab.set_trace(trace)
    geo = tab.chart.geometry_now()
    assert geo is not None
    qtbot.mouseClick(tab.chart, Qt.MouseButton.LeftButton, pos=dict(geo.blocks)["reserve"].center().toPoint())
    assert tab.table.current_row().block.name == "reserve"
    assert "20% of the window kept free" in tab.table.detail.toPlainText()
    with qtbot.waitSignal(tab.blockActivated, timeout=2000) as blocker:
        tab.table.view.setFocus()
        qtbot.keyClick(tab.table.view, Qt.Key.Key_Return)
    assert blocker.args == ["reserve"]


def test_each_block_says_where_a_double_click_leads(tab: WindowLayoutTab, trace: Trace) -> None:
    tab.set_trace(trace)
    proxy = tab.table.proxy
    tips = {
        proxy.index(r, 0).data(RowRole).block.name: proxy.index(r, 0).data(Qt.ItemDataRole.ToolTipRole)
        for r in range(proxy.rowCount())
    }
    assert "double-click for the Memory tab" in tips["memory"]
    assert "double-click for the Prompt tab" in tips["prompt"]
    assert "double-click for the Tracker" in tips["conversation"]
    assert "double-click for its setting in the Task tab" in tips["system_prompt"]
    tab.table.select(lambda r: r.block.name == "memory")
    assert tab.table.detail.toPlainText().endswith(
        "Double-click (or Enter) for the Memory tab: each file, whether it loads and why, and its text."
    )


@pytest.mark.parametrize("dark", [False, True])
def test_the_chart_paints_its_blocks_in_both_palettes(qtbot, dark: bool) -> None:
    chart = WindowChart()
    qtbot.addWidget(chart)
    if dark:
        chart.setPalette(dark_palette())
    chart.setValue(HAND)
    chart.resize(600, 500)
    image = QImage(600, 500, QImage.Format.Format_ARGB32)
    image.fill(chart.palette().color(QPalette.ColorRole.Window))
    chart.render(image)
    geo = chart.geometry_now()
    assert geo is not None
    rects = dict(geo.blocks)
    for index, name in enumerate(("base_prompt", "command", "task_context", "conversation")):
        if name == "task_context":
            continue  # 0 tokens: nothing to paint
        centre: QPointF = rects[name].center()
        # a point left of the label leaders, inside the block
        point = QPointF(rects[name].left() + 6, centre.y())
        assert image.pixelColor(int(point.x()), int(point.y())) == QColor(segment_color(index)), name


def _runs(image: QImage, x: int, top: int, bottom: int) -> dict[str, int]:
    """Pixels of each block colour down column *x* of *image*, between *top* and *bottom*."""
    colours = {segment_color(n).rgb(): name for n, name in enumerate(("base", "command", "task", "conversation"))}
    found: dict[str, int] = {}
    for y in range(top, bottom):
        name = colours.get(image.pixelColor(x, y).rgb())
        if name is not None:
            found[name] = found.get(name, 0) + 1
    return found


def test_the_painted_enlargement_is_in_proportion_to_the_tokens(qtbot) -> None:
    chart = WindowChart()
    qtbot.addWidget(chart)
    chart.setValue(REAL)
    chart.resize(420, 640)
    image = QImage(420, 640, QImage.Format.Format_ARGB32)
    image.fill(chart.palette().color(QPalette.ColorRole.Window))
    chart.render(image)
    inset = chart.inset_now()
    assert inset is not None
    box = dict(inset.blocks)
    x = int(box["command"].center().x())
    runs = _runs(image, x, 0, 640)
    tokens = {"base": 300, "command": 631, "task": 647, "conversation": 1248}
    # Each painted height is its tokens at the inset's scale, within two pixels (block edges
    # are drawn over by a one-pixel separator line) ...
    for name, count in tokens.items():
        assert abs(runs[name] - count * inset.scale) <= 2, (name, runs[name], count * inset.scale)
    # ... so the painted heights stand in the tokens' ratio: 1,248 / 300 = 4.16.
    assert runs["conversation"] / runs["base"] == pytest.approx(1248 / 300, abs=0.35)
    # The whole column is to scale too: the reserve is a fifth of it.
    geo = chart.geometry_now()
    assert geo is not None
    column = chart.column_rect()
    assert dict(geo.blocks)["reserve"].height() == pytest.approx(column.height() * 40000 / 200000)
