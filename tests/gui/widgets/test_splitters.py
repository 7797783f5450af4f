"""A splitter the user has dragged keeps its sizes: views size it only until then."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QSplitter

from ctxviewer.gui.widgets.splitters import is_user_sized, mark_user_sized, track_user_sizes


def test_a_drag_marks_the_splitter_and_a_mark_can_be_taken_back(qtbot) -> None:  # type: ignore[no-untyped-def]
    splitter = QSplitter(Qt.Orientation.Vertical)
    qtbot.addWidget(splitter)
    splitter.addWidget(QLabel("a"))
    splitter.addWidget(QLabel("b"))
    assert not is_user_sized(splitter)
    track_user_sizes(splitter)
    track_user_sizes(splitter)  # once only: a second call adds no second connection
    assert not is_user_sized(splitter)  # tracking alone marks nothing
    splitter.splitterMoved.emit(40, 1)  # what a drag of the handle emits
    assert is_user_sized(splitter)
    mark_user_sized(splitter, False)
    assert not is_user_sized(splitter)
