"""The app's icon and style sheet, loaded from ``resources/`` (wheel or checkout)."""

from __future__ import annotations

from functools import lru_cache

from PySide6.QtCore import QByteArray, Qt
from PySide6.QtGui import QIcon, QPainter, QPixmap
from PySide6.QtSvg import QSvgRenderer

from ctxviewer.engine.files.resources import resource_bytes

ICON = ("icons", "ctxviewer.svg")
STYLE = ("styles", "app.qss")


@lru_cache(maxsize=1)
def icon_pixmaps() -> tuple[QPixmap, ...]:
    """The icon rendered at the usual sizes (empty when the file is missing)."""
    try:
        data = QByteArray(resource_bytes(*ICON))
    except OSError:
        return ()
    renderer = QSvgRenderer(data)
    if not renderer.isValid():
        return ()
    out = []
    for size in (16, 32, 48, 64, 128, 256):
        pixmap = QPixmap(size, size)
        pixmap.fill(Qt.GlobalColor.transparent)
        painter = QPainter(pixmap)
        renderer.render(painter)
        painter.end()
        out.append(pixmap)
    return tuple(out)


def app_icon() -> QIcon:
    icon = QIcon()
    for pixmap in icon_pixmaps():
        icon.addPixmap(pixmap)
    return icon


def style_sheet() -> str:
    """The application style sheet ('' when the file is missing)."""
    try:
        return resource_bytes(*STYLE).decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return ""
