"""zerg-ai 0.3.2's compact formatter: thirteen case-sensitive substring replacements.

Applied, when compact mode is ``1`` or ``true``, to the whole joined context, one
replacement after the other in this order (``configuration`` -> ``cfg`` first, so
``misconfiguration`` becomes ``miscfg``).  No pattern holds a newline, so no match can
straddle the ``"\\n\\n"`` between sections: abbreviating each section on its own gives
the same text, which is how the profile applies it (and keeps every item's place).
"""

from __future__ import annotations

from dataclasses import dataclass

ABBREVIATIONS: tuple[tuple[str, str], ...] = (
    ("configuration", "cfg"),
    ("implementation", "impl"),
    ("architecture", "arch"),
    ("performance", "perf"),
    ("operations", "ops"),
    ("environment", "env"),
    ("requirements", "req"),
    ("dependencies", "deps"),
    ("validation", "val"),
    ("documentation", "docs"),
    ("standards", "std"),
    ("security", "sec"),
    ("optimization", "opt"),
)


@dataclass(frozen=True)
class Replacement:
    """One pattern that changed a section: how often, and the text before and after."""

    full: str
    short: str
    count: int
    before: str
    after: str


def abbreviate(text: str) -> tuple[str, list[Replacement], list[int]]:
    """The abbreviated text, each replacement that changed it, and where every old offset went.

    ``where[i]`` is the new offset of old offset *i* (``len(text) + 1`` entries); an
    offset inside a replaced word maps to the start of its abbreviation.
    """
    where = list(range(len(text) + 1))
    steps: list[Replacement] = []
    for full, short in ABBREVIATIONS:
        count = text.count(full)
        if not count:
            continue
        pieces: list[str] = []
        moved: list[int] = []
        pos = out = 0
        while (hit := text.find(full, pos)) >= 0:
            moved.extend(range(out, out + hit - pos))
            out += hit - pos
            moved.extend([out] * len(full))
            pieces += (text[pos:hit], short)
            out += len(short)
            pos = hit + len(full)
        pieces.append(text[pos:])
        moved.extend(range(out, out + len(text) - pos + 1))
        new = "".join(pieces)
        steps.append(Replacement(full, short, count, text, new))
        where = [moved[w] for w in where]
        text = new
    return text, steps, where
