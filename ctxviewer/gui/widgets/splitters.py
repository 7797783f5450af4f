"""Splitters the user has moved keep their sizes: views size theirs only until the user does.

See docs/gui.md (The window's layout).
"""

from __future__ import annotations

from PySide6.QtWidgets import QSplitter

_USER_SIZED = "userSized"


def track_user_sizes(splitter: QSplitter) -> None:
    """Note on *splitter* when the user drags its handle (once per splitter)."""
    if splitter.property("userSizedTracked"):
        return
    splitter.setProperty("userSizedTracked", True)
    splitter.splitterMoved.connect(lambda _pos, _index: mark_user_sized(splitter))


def mark_user_sized(splitter: QSplitter, sized: bool = True) -> None:
    splitter.setProperty(_USER_SIZED, sized)


def is_user_sized(splitter: QSplitter) -> bool:
    """Whether the user sized *splitter* (dragged it, or a saved layout restored it)."""
    return bool(splitter.property(_USER_SIZED))


def size_splitter(splitter: QSplitter, sizes: list[int]) -> None:
    """``splitter.setSizes(sizes)`` unless these sizes were the last asked of it at its present
    width: setting them again lays out every pane anew.  A new height alone (a banner above
    came or went) is shared out by the splitter itself, in the proportions last asked."""
    asked = repr((sizes, splitter.width()))
    if splitter.property("sizesAsked") != asked:
        splitter.setProperty("sizesAsked", asked)
        splitter.setSizes(sizes)
