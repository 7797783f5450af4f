"""The sweep heatmap: the colour scale worked by hand, the right colours in known cells of a
picture painted at a fixed size, clicks, and the PNG and SVG exports."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QImage, QMouseEvent, QPainter, QPalette
from PySide6.QtWidgets import QApplication

from ctxviewer.gui.widgets.heatmap import (
    ERROR_COLOR,
    OVER_COLOR,
    RULE_CUT_COLOR,
    HeatCell,
    HeatmapValue,
    SweepHeatmap,
    cell_at,
    cell_rect,
    heatmap_layout,
    level_color,
    paint_heatmap,
    png_bytes,
    render_image,
    svg_bytes,
    visible_rows,
)

#: Two tasks by three budgets: a pale cell, a mid cell, an over-budget cell; a rule cut at
#: a full-level cell, a refused cell, a level-0.25 cell.
VALUE = HeatmapValue(
    rows=("T1", "T2"),
    columns=("1,000", "2,000", "3,000"),
    cells=(
        (HeatCell(0.0, tip="T1 at 1,000"), HeatCell(0.5, tip="T1 at 2,000"), HeatCell(1.3, over=True, tip="over")),
        (HeatCell(1.0, rule_cut=True, tip="cut"), HeatCell(0.0, error=True, tip="refused"), HeatCell(0.25, tip="q")),
    ),
)
SIZE = QSize(640, 300)


def test_level_colours_worked_by_hand() -> None:
    assert level_color(0.0) == QColor("#eef4fb")
    assert level_color(0.5) == QColor("#6baed6")
    assert level_color(1.0) == QColor("#08306b")
    # A quarter is halfway from #eef4fb to #6baed6: (238+107)/2 = 172.5 -> 172 (round half to even),
    # (244+174)/2 = 209, (251+214)/2 = 232.5 -> 232.
    assert level_color(0.25) == QColor(172, 209, 232)
    assert level_color(-3) == level_color(0.0) and level_color(7) == level_color(1.0)
    assert level_color(float("nan")) == level_color(0.0)


def _pixel(image: QImage, point: QPointF) -> QColor:
    return image.pixelColor(int(point.x()), int(point.y()))


def test_painted_cells_have_their_colours(qtbot) -> None:  # type: ignore[no-untyped-def]
    palette = QPalette()
    image = render_image(VALUE, SIZE, palette)
    assert image.size() == SIZE
    layout = heatmap_layout(VALUE, SIZE.width(), SIZE.height())
    centre = {(r, c): cell_rect(layout, r, c).center() for r in range(2) for c in range(3)}
    assert _pixel(image, centre[0, 0]) == QColor("#eef4fb")
    assert _pixel(image, centre[0, 1]) == QColor("#6baed6")
    assert _pixel(image, centre[0, 2]) == OVER_COLOR  # over budget: red whatever its level
    assert _pixel(image, centre[1, 0]) == QColor("#08306b")  # the corner mark leaves the centre alone
    assert _pixel(image, centre[1, 2]) == QColor(172, 209, 232)
    # The refused cell is grey, crossed by a diagonal: a point off the diagonal is the grey.
    grey = cell_rect(layout, 1, 1)
    assert _pixel(image, QPointF(grey.left() + grey.width() * 0.75, grey.top() + grey.height() * 0.25)) == ERROR_COLOR
    # The rule cut's amber triangle sits in the top-right corner of its cell, only there.
    cut = cell_rect(layout, 1, 0)
    assert _pixel(image, cut.topRight() + QPointF(-4, 4)) == RULE_CUT_COLOR
    assert _pixel(image, cut.bottomLeft() + QPointF(4, -4)) == QColor("#08306b")
    assert not any(_pixel(image, cell_rect(layout, 0, c).topRight() + QPointF(-4, 4)) == RULE_CUT_COLOR for c in (0, 1))


def test_cells_are_found_under_points_and_nowhere_else() -> None:
    layout = heatmap_layout(VALUE, SIZE.width(), SIZE.height())
    for r in range(2):
        for c in range(3):
            assert cell_at(layout, VALUE, cell_rect(layout, r, c).center()) == (r, c)
    assert cell_at(layout, VALUE, QPointF(2, 2)) is None  # the label margin
    assert cell_at(layout, VALUE, QPointF(layout.plot.right() + 20, layout.plot.center().y())) is None  # the legend


def test_click_emits_the_cell_and_marks_it(qtbot) -> None:  # type: ignore[no-untyped-def]
    widget = SweepHeatmap()
    qtbot.addWidget(widget)
    widget.resize(SIZE)
    widget.setValue(VALUE)
    widget.show()
    qtbot.waitExposed(widget)
    with qtbot.waitSignal(widget.cellClicked) as blocker:
        qtbot.mouseClick(widget, Qt.MouseButton.LeftButton, pos=widget.cell_center(1, 2).toPoint())
    assert blocker.args == [1, 2]
    with qtbot.assertNotEmitted(widget.cellClicked):
        qtbot.mouseClick(widget, Qt.MouseButton.LeftButton, pos=QPointF(3, 3).toPoint())


def test_png_and_svg_exports() -> None:
    palette = QPalette()
    png = png_bytes(render_image(VALUE, SIZE, palette))
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    again = QImage.fromData(png)
    assert again.size() == SIZE
    layout = heatmap_layout(VALUE, SIZE.width(), SIZE.height())
    assert _pixel(again, cell_rect(layout, 0, 2).center()) == OVER_COLOR
    svg = svg_bytes(VALUE, SIZE, palette, "sweep of feat").decode("utf-8")
    assert "<svg" in svg and "<title>sweep of feat</title>" in svg
    assert 'width="640' in svg.replace("px", "") or 'viewBox="0 0 640 300"' in svg
    assert "#d62728" in svg.lower() and "#ffb000" in svg.lower()  # the over-budget fill and the rule mark
    assert "T2" in svg and "3,000" in svg  # the axis labels are text


def _hover(widget: SweepHeatmap, point: QPointF) -> None:
    # Sent to the widget itself: a pointer moved by the platform reaches whichever window is
    # on top there, which in a long test run need not be this one.
    move = QMouseEvent(
        QEvent.Type.MouseMove,
        point,
        widget.mapToGlobal(point),
        Qt.MouseButton.NoButton,
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
    )
    QApplication.sendEvent(widget, move)


def test_hover_shows_the_cells_numbers(qtbot) -> None:  # type: ignore[no-untyped-def]
    widget = SweepHeatmap()
    qtbot.addWidget(widget)
    widget.resize(SIZE)
    widget.setValue(VALUE)
    _hover(widget, widget.cell_center(0, 1))
    assert widget.toolTip() == "T1 at 2,000"
    assert widget.cursor().shape() == Qt.CursorShape.PointingHandCursor
    _hover(widget, widget.cell_center(1, 1))
    assert widget.toolTip() == "refused"
    _hover(widget, QPointF(3, 3))  # off the cells: no tooltip
    assert widget.toolTip() == "" and widget.cursor().shape() == Qt.CursorShape.ArrowCursor


def test_keys_move_the_mark_and_enter_asks_for_it(qtbot) -> None:  # type: ignore[no-untyped-def]
    widget = SweepHeatmap()
    qtbot.addWidget(widget)
    widget.resize(SIZE)
    widget.setValue(VALUE)
    widget.show()
    with qtbot.assertNotEmitted(widget.cellClicked):
        qtbot.keyClick(widget, Qt.Key.Key_Return)  # nothing marked yet
    qtbot.keyClick(widget, Qt.Key.Key_Down)  # the first key marks the first cell
    for key in (Qt.Key.Key_Down, Qt.Key.Key_Right, Qt.Key.Key_Right, Qt.Key.Key_Right, Qt.Key.Key_Down):
        qtbot.keyClick(widget, key)  # down to row 1, right to the last column and no further
    assert widget.toolTip() == "q"
    with qtbot.waitSignal(widget.cellClicked) as blocker:
        qtbot.keyClick(widget, Qt.Key.Key_Return)
    assert blocker.args == [1, 2]


def test_a_partial_repaint_draws_the_rows_it_crosses_as_a_whole_one_does() -> None:
    layout = heatmap_layout(VALUE, SIZE.width(), SIZE.height())
    row1 = cell_rect(layout, 1, 0)
    # A strip inside row 1: rows [1, 2) are drawn; the edges round outwards (a row more).
    strip = QRectF(0, row1.top() + 2, SIZE.width(), 4)
    assert visible_rows(layout, 2, strip) == (1, 2)
    assert visible_rows(layout, 2, None) == (0, 2)
    assert visible_rows(layout, 2, QRectF(0, 0, 10, 1)) == (0, 1)
    palette = QPalette()
    whole = render_image(VALUE, SIZE, palette)
    part = QImage(SIZE, QImage.Format.Format_ARGB32)
    part.fill(QColor("#123456"))
    p = QPainter(part)
    paint_heatmap(p, VALUE, SIZE.width(), SIZE.height(), palette, exposed=strip)
    p.end()
    for c in range(3):
        point = QPointF(cell_rect(layout, 1, c).center().x(), strip.center().y())
        assert _pixel(part, point) == _pixel(whole, point)
    assert _pixel(part, cell_rect(layout, 0, 0).center()) == QColor("#123456")  # row 0 untouched
