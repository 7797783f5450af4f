"""A feature or task as the user names it: the id meant, and a short answer when none is.

An id matches itself, else the one id equal to it when case is ignored (``task-010`` names
``TASK-010``); two ids equal but for case make that ambiguous, and the answer names both.
An unknown id is answered with the closest ids and how many others there are, never the
whole list.  Every command and the window resolve ids here: docs/cli.md#feature-and-task-ids.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence

from ctxviewer.engine.wording import plural

#: How many close ids an answer suggests at most.
SUGGESTED = 3


def match_id(wanted: str, known: Sequence[str]) -> str | None:
    """The id of *known* that *wanted* names: itself, else the only one equal to it ignoring case."""
    if wanted in known:
        return wanted
    same = _same_but_case(wanted, known)
    return same[0] if len(same) == 1 else None


def no_match(wanted: str, known: Sequence[str], what: str, where: str) -> str:
    """Why *wanted* names none of *known* (the *what*, ``feature`` or ``task``, *where* in the project).

    ``no feature 'analyze-wiring' in .gsd/specs; did you mean analyze-wiring-verification?
    (85 other features)``, or for ids that differ only in case, the ones it could be.
    """
    same = _same_but_case(wanted, known)
    if len(same) > 1:
        return f"{what} {wanted!r} {where} could be {_either(same)}: give it in the case it is written"
    head = f"no {what} {wanted!r} {where}"
    if not known:
        return f"{head}; there are no {what}s"
    close = _closest(wanted, known)
    if not close:
        if len(known) == 1:
            return f"{head}; the only {what} is {known[0]}"
        return f"{head}; none of the {plural(len(known), what)} is close (ctxviewer list names them)"
    rest = len(known) - len(close)
    others = f" ({plural(rest, f'other {what}')})" if rest else ""
    return f"{head}; did you mean {_either(close)}?{others}"


def _same_but_case(wanted: str, known: Sequence[str]) -> list[str]:
    folded = wanted.casefold()
    return [k for k in known if k.casefold() == folded]


def _closest(wanted: str, known: Sequence[str]) -> list[str]:
    """Up to :data:`SUGGESTED` ids of *known* closest to *wanted*, the closest first.

    Ids that begin with what was typed come first (``analyze-wiring`` for
    ``analyze-wiring-verification``), then those difflib finds alike, case ignored.
    """
    folded = wanted.casefold()
    by_fold: dict[str, str] = {}
    for k in known:
        by_fold.setdefault(k.casefold(), k)
    starts = [k for f, k in by_fold.items() if folded and f.startswith(folded)]
    alike = difflib.get_close_matches(folded, list(by_fold), n=SUGGESTED, cutoff=0.6)
    out = sorted(starts, key=len)[:SUGGESTED]
    out += [by_fold[f] for f in alike if by_fold[f] not in out]
    return out[:SUGGESTED]


def _either(ids: Sequence[str]) -> str:
    return ids[0] if len(ids) == 1 else f"{', '.join(ids[:-1])} or {ids[-1]}"
