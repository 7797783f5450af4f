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


def test_size_hints_follow_the_text_and_the_font(qtbot) -> None:  # type: ignore[no-untyped-def]
    """The hints are the label's own heights: a new text, font or margin is never answered with
    the old text's hints, and the least size never exceeds the preferred one."""
    label = _pair(qtbot, SHORT)[0]
    metrics = label.fontMetrics()

    def check() -> tuple[int, int]:
        hint, least = label.sizeHint(), label.minimumSizeHint()
        assert hint.height() == label.heightForWidth(hint.width())
        assert least.width() <= hint.width() and least.height() <= hint.height()
        assert least.height() >= label.fontMetrics().lineSpacing()
        return hint.width(), hint.height()

    short = check()
    assert short[0] >= 80 * metrics.averageCharWidth()  # the preferred width, not the text's own
    label.setText(LONG)
    long = check()
    assert long[1] > short[1]  # six lines and more at that width, where SHORT takes one
    big = QFont(label.font())
    big.setPointSize(big.pointSize() * 2)
    label.setFont(big)
    assert check()[1] > long[1]
    label.setMargin(20)
    hint = label.sizeHint()
    assert hint.height() == label.heightForWidth(hint.width())
    label.setWordWrap(False)  # unwrapped: QLabel's own hint, one line per paragraph
    qt = _pair(qtbot, LONG)[1]
    qt.setWordWrap(False)
    qt.setFont(big)
    qt.setMargin(20)
    assert label.sizeHint() == qt.sizeHint()


def test_a_long_word_does_not_widen_the_least_size(qtbot) -> None:  # type: ignore[no-untyped-def]
    """A task title holding one long word (a commit hash, say): QLabel's least width is that
    word's, so the window could not be narrower; ours stays a few characters wide."""
    word = "0123456789abcdef" * 8
    ours, qt = _pair(qtbot, f"<b>T-1</b> Revert {word}")
    assert qt.minimumSizeHint().width() >= qt.fontMetrics().horizontalAdvance(word)
    assert ours.minimumSizeHint().width() <= 12 * ours.fontMetrics().averageCharWidth() + 2 * ours.frameWidth()
    assert ours.minimumSizeHint().height() == ours.fontMetrics().lineSpacing()
