"""The fixed-pitch font every text view of code, contexts and diffs uses.

Qt's system fixed font is what the desktop calls monospace, but on a machine whose
fontconfig maps that name to a proportional family (installing common packages can do it)
Qt hands back a font that is not fixed pitch.  :func:`fixed_pitch_font` checks with
``QFontInfo`` what would really be drawn and tries well-known monospace families in turn.
"""

from __future__ import annotations

from functools import cache

from PySide6.QtGui import QFont, QFontDatabase, QFontInfo

#: Families tried after the system's fixed font, most common first.
MONOSPACE_FAMILIES = (
    "DejaVu Sans Mono",
    "Noto Sans Mono",
    "Noto Mono",
    "Liberation Mono",
    "Ubuntu Mono",
    "Menlo",
    "Consolas",
    "Courier New",
    "Nimbus Mono PS",
    "monospace",
)


def _candidates() -> list[QFont]:
    system = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
    out = [system]
    for family in MONOSPACE_FAMILIES:
        font = QFont(system)
        font.setFamilies([family])
        font.setStyleHint(QFont.StyleHint.TypeWriter)
        font.setFixedPitch(True)
        out.append(font)
    return out


@cache
def fixed_pitch_font() -> QFont:
    """The first candidate Qt confirms is drawn fixed pitch; the system's fixed font when none is."""
    candidates = _candidates()
    for font in candidates:
        if QFontInfo(font).fixedPitch():
            return font
    return candidates[0]
