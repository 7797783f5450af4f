"""What an empty view says: why it is empty and what fills it, in the same words and the same
place (centred, wrapped to the view's width) in every view.  See docs/gui.md.
"""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QPainter

#: A view of the shown task before any task is shown.
NO_TASK = (
    "No task shown yet: open a project (File \u25b8 Open Folder, Ctrl+O, or drop a folder here) and choose a task."
)
#: A view of a run before one is attached.
NO_RUN = (
    "No run attached: File \u25b8 Attach to Run\u2026 shows a real run's workers (their logs and state), "
    "or start with ctxviewer gui PROJECT --follow RUN"
)


def draw_empty(p: QPainter, rect: QRectF, text: str) -> None:
    """Write *text* centred in *rect*, wrapped to its width (the caller sets the pen)."""
    flags = Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap
    p.drawText(rect.adjusted(8, 0, -8, 0), int(flags), text)
