"""The layout fence: its content's layout requests go on to the window only when its hints changed."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QCoreApplication, QEvent
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from ctxviewer.gui.widgets.fence import LayoutFence
from tests.gui.events import EventCount


def _settle() -> None:
    for _ in range(4):
        QCoreApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)


def _window(qtbot, fenced: bool) -> tuple[QWidget, QWidget, QLabel, QWidget]:
    """A window laying out [content, filler]; content holds a one-line label and a box."""
    window = QWidget()
    qtbot.addWidget(window)
    content = QWidget()
    label = QLabel("first text, one line")
    label.setFixedWidth(300)  # a new text of another length asks for no other room
    box = QWidget()
    inner = QVBoxLayout(content)
    inner.setContentsMargins(0, 0, 0, 0)
    inner.addWidget(label)
    inner.addWidget(box)
    filler = QWidget()
    outer = QVBoxLayout(window)
    outer.addWidget(LayoutFence(content) if fenced else content)
    outer.addWidget(filler, 1)
    window.resize(400, 300)
    window.show()
    qtbot.waitExposed(window)
    _settle()
    return window, content, label, box


@pytest.mark.parametrize("fenced", [True, False])
def test_a_new_text_of_the_same_size_lays_the_window_out_only_without_the_fence(qtbot, fenced: bool) -> None:
    # Without the fence Qt passes the request up whether anything changed or not.
    window, _content, label, _box = _window(qtbot, fenced=fenced)
    requests = EventCount(window, QEvent.Type.LayoutRequest)
    label.setText("other text, one line")
    _settle()
    assert (requests.count > 0) is not fenced
    assert label.isVisible() and label.width() > 0


def test_a_content_that_needs_more_room_gets_it(qtbot) -> None:
    _win, content, _label, box = _window(qtbot, fenced=True)
    fence = content.parentWidget()
    assert isinstance(fence, LayoutFence)
    before = fence.height()
    box.setMinimumHeight(before + 60)
    _settle()
    assert fence.height() >= before + 60
    assert content.geometry() == fence.rect()  # the content fills the fence at its new size


def test_the_fence_answers_with_its_contents_hints(qtbot) -> None:
    _win, content, label, _box = _window(qtbot, fenced=True)
    fence = content.parentWidget()
    assert (fence.sizeHint(), fence.minimumSizeHint()) == (content.sizeHint(), content.minimumSizeHint())
    label.setMinimumWidth(0)
    label.setMaximumWidth(10000)
    label.setWordWrap(True)
    label.setText("a long text " * 20)
    _settle()
    assert fence.hasHeightForWidth() and fence.heightForWidth(200) == content.heightForWidth(200)
    assert fence.heightForWidth(200) > fence.heightForWidth(390)


def test_a_hidden_content_hides_the_fence_and_gives_its_room_back(qtbot) -> None:
    win, content, _label, _box = _window(qtbot, fenced=True)
    fence = content.parentWidget()
    filler = win.layout().itemAt(1).widget()
    before = filler.height()
    content.hide()
    _settle()
    assert fence.isHidden()
    assert filler.height() > before
    content.show()
    _settle()
    assert fence.isVisible() and fence.height() > 0


def test_the_content_follows_the_fence_when_the_window_is_resized(qtbot) -> None:
    window, content, _label, _box = _window(qtbot, fenced=True)
    window.resize(600, 400)
    _settle()
    fence = content.parentWidget()
    assert fence.width() > 500
    assert content.geometry() == fence.rect()
