"""Counts and lists in words, the same in every command, export and view.

:func:`plural` puts a noun after a count in the number it takes (``1 candidate``, ``2
candidates``); :func:`folded` shows a long list as its count and its first few, with the
whole list when asked.  The rules for long output: docs/cli.md#long-lists.
"""

from __future__ import annotations

from collections.abc import Sequence

#: How many entries a folded list shows before it says how many more there are.
FOLD_SHOWN = 10


def plural(n: int, one: str, many: str | None = None) -> str:
    """*n* (with thousands separators) and the noun in the number it takes: ``1 task``, ``2 tasks``.

    *many* is the plural where adding an ``s`` is wrong (``1 candidate matches`` is not a
    case for it; ``1 entry``, ``2 entries`` is).
    """
    return f"{n:,} {one if n == 1 else (many or one + 's')}"


def folded(items: Sequence[str], *, every: bool = False, shown: int = FOLD_SHOWN, more: str = "") -> str:
    """*items* joined by ``, ``; past *shown* (unless *every*), the first *shown* and how many more.

    ``a, b, c, ... and 680 more`` -- *more* is added after that (what shows them all, say
    ``(-v for all)``).  A list only one longer than *shown* is shown whole: "and 1 more"
    would take about as much room as the item itself.
    """
    if every or len(items) <= shown + 1:
        return ", ".join(items)
    rest = len(items) - shown
    tail = f" {more}" if more else ""
    return f"{', '.join(items[:shown])}, ... and {rest:,} more{tail}"
