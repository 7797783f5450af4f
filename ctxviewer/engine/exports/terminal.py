"""Project text written for a terminal: nothing in it may act on the terminal or forge a line.

Shared by the CLI's reports and the GUI's one-line start-up errors, so it sits below both
front ends.
"""

from __future__ import annotations

import re

#: Characters a terminal acts on instead of showing: C0 controls, DEL, C1 controls (CSI,
#: OSC...), bidi overrides and isolates (which reorder what follows), line and paragraph
#: separators, and lone surrogates (undecodable bytes of a file name).
_OTHER_CONTROLS = "\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff"
_UNSAFE = re.compile("[\x00-\x1f" + _OTHER_CONTROLS + "]")
_UNSAFE_IN_LINES = re.compile("[\x00-\x08\x0b-\x1f" + _OTHER_CONTROLS + "]")  # keeps tab and newline


def _escape_char(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: str, *, lines: bool = False) -> str:
    """*text* (from a project) safe to print on a terminal: every character a terminal would
    act on -- ESC and the other controls, C1 controls, bidi overrides -- written visibly as
    ``\\x1b`` or ``\\u202e``.  With *lines*, newlines and tabs are kept (a report of many
    lines); otherwise they are escaped too, so a name cannot start a line of its own.
    """
    return (_UNSAFE_IN_LINES if lines else _UNSAFE).sub(_escape_char, text)


_FOLDED_SPACE = re.compile(r"[ \t\n]+")


def one_line(text: str) -> str:
    """*text* for one line of a terminal report: runs of spaces, tabs and line feeds become one
    space (a wrapped paragraph reads as a sentence); every other control character, a carriage
    return included, is shown escaped (see :func:`visible`), so nothing can forge a line."""
    return visible(_FOLDED_SPACE.sub(" ", text))
