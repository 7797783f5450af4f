"""Wrapped labels that hold their height while their text changes."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from ctxviewer.gui.widgets.heights import hold_height, release_height

ONE_LINE = "short"
THREE_LINES = "one<br>two<br>three"


def _label(qtbot, width: int) -> tuple[QWidget, QLabel]:  # type: ignore[no-untyped-def]
    holder = QWidget()
    qtbot.addWidget(holder)
    label = QLabel(holder)
    label.setWordWrap(True)
    layout = QVBoxLayout(holder)
    layout.addWidget(label)
    layout.addStretch(1)
    holder.resize(width, 300)
    holder.show()
    return holder, label


def _shown(label: QLabel, text: str) -> int:
    label.setText(text)
    hold_height(label)
    label.parentWidget().layout().activate()
    return label.height()


def test_a_label_keeps_the_height_of_its_tallest_text_at_one_width(qtbot) -> None:  # type: ignore[no-untyped-def]
    holder, label = _label(qtbot, 300)
    short = _shown(label, ONE_LINE)
    tall = _shown(label, THREE_LINES)
    assert tall > short
    assert _shown(label, ONE_LINE) == tall  # held: the widgets below do not move
    # Another width starts again from the text's own height.
    holder.resize(200, 300)
    holder.layout().activate()
    assert _shown(label, ONE_LINE) == short
    release_height(label)
    assert label.minimumHeight() == 0


def test_a_hidden_label_is_not_held_at_a_width_it_was_never_given(qtbot) -> None:  # type: ignore[no-untyped-def]
    label = QLabel("a long text " * 20)
    qtbot.addWidget(label)
    label.setWordWrap(True)
    hold_height(label)  # never shown: its width is no room it will have
    assert label.minimumHeight() == 0
