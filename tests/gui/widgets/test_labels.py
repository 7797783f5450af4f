"""A word-wrapped label's remembered heights are a QLabel's, whatever changed since."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QLabel

from ctxviewer.gui.widgets.labels import KEPT_WIDTHS, WrappedLabel

SHORT = "<b>Budget 4,000</b> tokens: security 1,200, spec 2,000."
LONG = "<br>".join([SHORT] * 6) + " " + "word " * 80
WIDTHS = (80, 200, 333, 640)


def _pair(qtbot, text: str):  # type: ignore[no-untyped-def]
    ours, qt = WrappedLabel(), QLabel()
    qt.setWordWrap(True)
    for label in (ours, qt):
        qtbot.addWidget(label)
        label.setTextFormat(Qt.TextFormat.RichText)
        label.setText(text)
    return ours, qt


def _heights(label: QLabel) -> list[int]:
    return [label.heightForWidth(w) for w in WIDTHS]


def test_heights_follow_the_text(qtbot) -> None:  # type: ignore[no-untyped-def]
    ours, qt = _pair(qtbot, SHORT)
    assert _heights(ours) == _heights(qt)
    assert _heights(_pair(qtbot, LONG)[1]) != _heights(qt)  # the texts below tell stale heights apart
    assert _heights(ours) == _heights(qt)  # asked again: the same answers
    for text in (LONG, SHORT, ""):
        ours.setText(text)
        qt.setText(text)
        assert _heights(ours) == _heights(qt)
    ours.clear()
    qt.clear()
    assert _heights(ours) == _heights(qt)


def test_heights_follow_the_font_the_margin_and_the_format(qtbot) -> None:  # type: ignore[no-untyped-def]
    ours, qt = _pair(qtbot, LONG)
    before = _heights(ours)
    big = QFont(ours.font())
    big.setPointSize(big.pointSize() * 2)
    for label in (ours, qt):
        label.setFont(big)
    assert _heights(ours) == _heights(qt) != before
    for label in (ours, qt):
        label.setMargin(12)
    assert _heights(ours) == _heights(qt)
    for label in (ours, qt):
        label.setIndent(40)
    assert _heights(ours) == _heights(qt)
    for label in (ours, qt):
        label.setTextFormat(Qt.TextFormat.PlainText)  # the markup is shown: longer lines
    assert _heights(ours) == _heights(qt)
    for label in (ours, qt):
        label.setWordWrap(False)
    assert _heights(ours) == _heights(qt)


def test_many_widths_asked_keep_the_answers_right(qtbot) -> None:  # type: ignore[no-untyped-def]
    ours, qt = _pair(qtbot, LONG)
    widths = range(60, 60 + 7 * (3 * KEPT_WIDTHS), 7)
    assert [ours.heightForWidth(w) for w in widths] == [qt.heightForWidth(w) for w in widths]
    assert [ours.heightForWidth(w) for w in widths] == [qt.heightForWidth(w) for w in widths]
