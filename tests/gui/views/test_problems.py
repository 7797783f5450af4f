"""The problems banner: its left edge says the worst of what it lists (the app's style sheet)."""

from __future__ import annotations

from PySide6.QtGui import QColor

from ctxviewer.gui.views.problems import ProblemPanel


def _edge(panel: ProblemPanel) -> str:
    """The colour of the banner's left border, halfway down."""
    image = panel.grab().toImage()
    return QColor(image.pixel(2, image.height() // 2)).name()


def test_the_banner_s_edge_follows_the_worst_message_each_time(qtbot, app_style) -> None:  # type: ignore[no-untyped-def]
    panel = ProblemPanel()
    qtbot.addWidget(panel)
    panel.resize(400, 60)
    panel.show_messages([], ["a note"])
    assert panel.isVisible() and _edge(panel) == "#d9822b"  # a warning: amber
    panel.show_messages([], ["another note"])  # the same severity again
    assert _edge(panel) == "#d9822b"
    panel.show_messages(["an error"], ["a note"])
    assert panel.property("severity") == "error" and _edge(panel) == "#d32f2f"
    panel.show_messages([], ["a note"])  # back to a warning
    assert panel.property("severity") == "warning" and _edge(panel) == "#d9822b"
    panel.show_messages([], [])
    assert not panel.isVisible()
