"""Wrapped labels that keep their height while their text changes (see docs/gui.md, The window's layout).

A wrapped label's height follows its text: a header one line shorter for the next task would
have the layout move and repaint everything below it, in the middle of the click that shows
that task.
"""

from __future__ import annotations

from PySide6.QtWidgets import QLabel


def hold_height(label: QLabel) -> None:
    """Keep *label* as tall as the tallest text it has shown at its present width; at a new
    width (the window or a dock resized) it starts again from its text's own height.  Call
    it after setting the text."""
    if not label.isVisible():
        return  # not laid out yet: its width says nothing about the room it will have
    width = label.width()
    if label.property("heldWidth") != width:
        label.setProperty("heldWidth", width)
        label.setMinimumHeight(0)
    needed = label.heightForWidth(width)
    if needed > label.minimumHeight():
        label.setMinimumHeight(needed)


def release_height(label: QLabel) -> None:
    """Let *label* be as tall as its text again (a new project, or nothing to show)."""
    label.setProperty("heldWidth", None)
    label.setMinimumHeight(0)
