"""The painted usage plot on its own: odd values draw, and a position finds its point."""

from __future__ import annotations

from PySide6.QtCore import QPointF
from PySide6.QtGui import QImage

from ctxviewer.gui.views.session.plot import UsagePlot
from ctxviewer.gui.views.session.series import PlotValue


def test_usage_plot_copes_with_odd_values(qtbot) -> None:  # type: ignore[no-untyped-def]
    plot = UsagePlot()
    qtbot.addWidget(plot)
    values = [
        None,
        PlotValue((), 0, 0.0),
        PlotValue(((1.0, 5),), 200_000, 70.0),
        PlotValue(((0.0, 10**12), (float("nan"), -5)), 0, float("nan"), (("z", 150.0),), integer_x=False),
        PlotValue(tuple((float(i), i * 10) for i in range(5000)), 60_000, 70.0, integer_x=False, first_checkpoint=4999),
    ]
    for value in values:
        plot.setValue(value)
        for current in (None, -1, 0, 10**6):
            plot.setCurrent(current)
            for w, h in ((360, 200), (40, 30), (1, 1)):
                plot.resize(w, h)
                image = QImage(max(1, w), max(1, h), QImage.Format.Format_ARGB32)
                plot.render(image)


def test_point_at_finds_the_nearest_point(qtbot) -> None:  # type: ignore[no-untyped-def]
    plot = UsagePlot()
    qtbot.addWidget(plot)
    plot.resize(400, 300)
    points = tuple((float(i), 1000 * i) for i in range(1, 9))
    plot.setValue(PlotValue(points=points, max_tokens=20_000, threshold_percent=70.0))
    for i in range(len(points)):
        pos = plot.point_pos(i)
        assert plot.point_at(QPointF(pos.x() + 3, pos.y())) == i
    far_left = plot.plot_rect().left() - 30
    assert plot.point_at(QPointF(far_left, plot.plot_rect().center().y())) is None
