"""Markdown highlighting with Pygments, lexed once per text and cached per block.

Re-lexing the document inside ``highlightBlock`` would be quadratic, so :func:`lex_blocks`
lexes the text once (on the worker thread, with the assembly) into per-block ranges that
:class:`MarkdownHighlighter` looks up; a block that does not match the cache is lexed alone.
Qt counts UTF-16 code units and breaks blocks at ``\r``, ``\r\n`` and U+2029:
:func:`display_text` makes those visible (one character each), so a context's offsets map
one-to-one onto the document but for characters outside the BMP (:class:`OffsetMap`).
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from PySide6.QtGui import QColor, QFont, QSyntaxHighlighter, QTextCharFormat, QTextCursor, QTextDocument, QTextFormat
from PySide6.QtWidgets import QTextEdit

#: Characters Qt would treat as block breaks, shown as visible symbols instead.
_VISIBLE = str.maketrans({"\r": "\u240d", "\u2029": "\u00b6", "\ufdd0": "\ufffd", "\ufdd1": "\ufffd"})

#: (start, length, token type) in UTF-16 units within one block.
Ranges = tuple[tuple[int, int, Any], ...]


def display_text(text: str) -> str:
    """*text* with CR shown as ␍ and U+2029 as ¶: same length, no hidden block breaks."""
    return text.translate(_VISIBLE)


def _utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


@dataclass(frozen=True)
class OffsetMap:
    """Maps character offsets of a text to UTF-16 document positions."""

    astral: tuple[int, ...]  # offsets of characters outside the BMP, ascending

    @classmethod
    def of(cls, text: str) -> OffsetMap:
        if text.isascii():
            return cls(())
        return cls(tuple(i for i, ch in enumerate(text) if ord(ch) > 0xFFFF))

    def to_doc(self, offset: int) -> int:
        return offset + bisect.bisect_left(self.astral, offset)


@dataclass(frozen=True)
class LexedText:
    """A text lexed into per-block token ranges."""

    text: str
    blocks: tuple[tuple[str, Ranges], ...]  # (block text, ranges) per line


def _lexer() -> Any:
    from pygments.lexers.markup import MarkdownLexer

    return MarkdownLexer(stripnl=False, stripall=False, ensurenl=False)  # type: ignore[no-untyped-call]


def lex_blocks(text: str) -> LexedText:
    """Lex *text* (already passed through :func:`display_text`) once, split per line."""
    lines = text.split("\n")
    starts = [0]
    for line in lines[:-1]:
        starts.append(starts[-1] + len(line) + 1)
    per_block: list[list[tuple[int, int, Any]]] = [[] for _ in lines]
    for index, ttype, value in _lexer().get_tokens_unprocessed(text):
        _spread(per_block, lines, starts, index, len(value), ttype)
    blocks = tuple(
        (line, tuple(_to_utf16(line, r) for r in ranges) if not line.isascii() else tuple(ranges))
        for line, ranges in zip(lines, per_block, strict=True)
    )
    return LexedText(text, blocks)


def _spread(
    per_block: list[list[tuple[int, int, Any]]],
    lines: Sequence[str],
    starts: Sequence[int],
    index: int,
    length: int,
    ttype: Any,
) -> None:
    """Add one token, which may span lines, to the blocks it covers."""
    end = index + length
    first = bisect.bisect_right(starts, index) - 1
    for n in range(first, len(lines)):
        bstart = starts[n]
        bend = bstart + len(lines[n])
        if bstart >= end:
            break
        lo, hi = max(index, bstart), min(end, bend)
        if hi > lo:
            per_block[n].append((lo - bstart, hi - lo, ttype))


def _to_utf16(line: str, r: tuple[int, int, Any]) -> tuple[int, int, Any]:
    start, length, ttype = r
    return _utf16_len(line[:start]), _utf16_len(line[start : start + length]), ttype


def lex_line(line: str) -> Ranges:
    """Ranges for one line lexed on its own (the fallback for an uncached block).

    The line is lexed with its newline, which Markdown's block rules (headings, list
    items) need to match; ranges past the line are dropped.
    """
    return lex_blocks(line + "\n").blocks[0][1]


@lru_cache(maxsize=4)
def _style_formats(style_name: str) -> dict[Any, QTextCharFormat]:
    from pygments.styles import get_style_by_name

    style = get_style_by_name(style_name)
    formats: dict[Any, QTextCharFormat] = {}
    for ttype, spec in style:
        fmt = QTextCharFormat()
        if spec["color"]:
            fmt.setForeground(QColor("#" + spec["color"]))
        if spec["bold"]:
            fmt.setFontWeight(QFont.Weight.Bold)
        if spec["italic"]:
            fmt.setFontItalic(True)
        if spec["underline"]:
            fmt.setFontUnderline(True)
        formats[ttype] = fmt
    return formats


LIGHT_STYLE = "default"
DARK_STYLE = "github-dark"


class MarkdownHighlighter(QSyntaxHighlighter):
    """Applies cached per-block Pygments ranges; lexes a block alone only on a miss."""

    def __init__(self, document: QTextDocument, dark: bool = False) -> None:
        super().__init__(document)
        self._formats = _style_formats(DARK_STYLE if dark else LIGHT_STYLE)
        self._resolved: dict[Any, QTextCharFormat | None] = {}
        self._blocks: tuple[tuple[str, Ranges], ...] = ()
        self.cache_hits = 0
        self.cache_misses = 0

    def set_dark(self, dark: bool) -> None:
        self._formats = _style_formats(DARK_STYLE if dark else LIGHT_STYLE)
        self._resolved = {}
        self.rehighlight()

    def set_lexed(self, lexed: LexedText | None) -> None:
        """Use *lexed* for the next highlighting pass (call before setting the text)."""
        self._blocks = lexed.blocks if lexed is not None else ()
        self.cache_hits = self.cache_misses = 0

    def _format(self, ttype: Any) -> QTextCharFormat | None:
        """The format of *ttype* or its nearest styled parent (resolved once per type)."""
        if ttype in self._resolved:
            return self._resolved[ttype]
        found: QTextCharFormat | None = None
        t = ttype
        while t is not None:
            fmt = self._formats.get(t)
            if fmt is not None and fmt.properties() != {}:
                found = fmt
                break
            t = t.parent
        self._resolved[ttype] = found
        return found

    def highlightBlock(self, text: str) -> None:
        n = self.currentBlock().blockNumber()
        if 0 <= n < len(self._blocks) and self._blocks[n][0] == text:
            ranges = self._blocks[n][1]
            self.cache_hits += 1
        elif text:
            ranges = lex_line(text)
            self.cache_misses += 1
        else:
            ranges = ()  # an empty block has nothing to colour; not a miss
        for start, length, ttype in ranges:
            fmt = self._format(ttype)
            if fmt is not None:
                self.setFormat(start, length, fmt)


def block_texts(lexed: LexedText) -> Iterable[str]:
    return (b[0] for b in lexed.blocks)


#: Alternating background tints for the parts of a text (light, dark): sections of the
#: context, parts of the worker's prompt.
PART_TINTS = (("#eef4ff", "#1d2633"), ("#f1f9ee", "#1e2a1f"), ("#fbf3ea", "#2d2519"), ("#f6eefb", "#29202e"))


def span_cursor(document: QTextDocument, offsets: OffsetMap, start: int, end: int) -> QTextCursor:
    """A cursor selecting the characters *start*..*end* of the shown text (offsets in characters)."""
    cursor = QTextCursor(document)
    limit = document.characterCount() - 1
    cursor.setPosition(min(offsets.to_doc(start), limit))
    cursor.setPosition(min(offsets.to_doc(end), limit), QTextCursor.MoveMode.KeepAnchor)
    return cursor


def part_tints(
    document: QTextDocument,
    offsets: OffsetMap,
    spans: Sequence[tuple[int, int]],
    dark: bool,
    tips: Sequence[str] | None = None,
) -> list[QTextEdit.ExtraSelection]:
    """Whole-line tints for consecutive parts of a text, one :data:`PART_TINTS` colour each in turn."""
    out: list[QTextEdit.ExtraSelection] = []
    for n, span in enumerate(spans):
        sel = QTextEdit.ExtraSelection()
        fmt = QTextCharFormat()
        fmt.setBackground(QColor(PART_TINTS[n % len(PART_TINTS)][1 if dark else 0]))
        fmt.setProperty(QTextFormat.Property.FullWidthSelection, True)
        if tips is not None:
            fmt.setToolTip(tips[n])
        sel.format = fmt
        sel.cursor = span_cursor(document, offsets, *span)
        out.append(sel)
    return out
