"""A splitter the user has dragged keeps its sizes: views size it only until then."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QSplitter

from ctxviewer.gui.widgets.splitters import is_user_sized, mark_user_sized, size_splitter, track_user_sizes


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


def test_sizes_asked_again_at_the_same_width_are_not_set_again(qtbot) -> None:  # type: ignore[no-untyped-def]
    splitter = QSplitter(Qt.Orientation.Vertical)
    qtbot.addWidget(splitter)
    splitter.addWidget(QLabel("a"))
    splitter.addWidget(QLabel("b"))
    splitter.resize(200, 300)
    splitter.show()
    size_splitter(splitter, [100, 190])
    asked = splitter.sizes()
    splitter.setSizes([50, 240])  # sized since by someone else (a restored layout, say)
    moved = splitter.sizes()
    assert moved != asked
    size_splitter(splitter, [100, 190])  # the same sizes asked again: left as they are
    assert splitter.sizes() == moved
    splitter.resize(200, 400)  # taller only: the splitter shares the height out itself
    size_splitter(splitter, [100, 190])
    assert splitter.sizes()[0] < asked[0]
    splitter.resize(300, 300)
    size_splitter(splitter, [100, 190])  # the same sizes at another width: set again
    assert splitter.sizes() == asked
    size_splitter(splitter, [150, 140])  # other sizes: set
    assert splitter.sizes()[0] > asked[0]
