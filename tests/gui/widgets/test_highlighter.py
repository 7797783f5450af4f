"""Markdown highlighting: display text, per-block lexing in UTF-16 units, the block cache, styles."""

from __future__ import annotations

import sys

import pytest
from pygments.token import Generic, String, Text
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QPlainTextEdit

import ctxviewer.gui.widgets.highlighter as highlighter
from ctxviewer.gui.widgets.highlighter import (
    MarkdownHighlighter,
    OffsetMap,
    block_texts,
    display_text,
    lex_blocks,
    lex_line,
)

EMOJI = "\U0001f600"  # outside the BMP: one Python character, two UTF-16 units


def utf16(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


# -- display_text ------------------------------------------------------------------------


def test_display_text_shows_carriage_returns_and_paragraph_separators() -> None:
    text = "a\r\nb\rc\u2029d"
    shown = display_text(text)
    assert shown == "a\u240d\nb\u240dc\u00b6d"
    assert len(shown) == len(text)


def test_display_text_leaves_everything_else_alone() -> None:
    text = f"# T\n\ttab {EMOJI} \u2028 line separator\n"
    assert display_text(text) == text


# -- lex_blocks ------------------------------------------------------------------------------

TEXTS = {
    "crlf": display_text("# Title\r\nline one\r\nline two\r\n"),
    "tabs": "\tindented\n\t\t- item\n",
    "emoji": f"{EMOJI} start\nmiddle {EMOJI}{EMOJI} **x**\n{EMOJI}",
    "open fence": "Text\n```python\ndef f():\n    return 1\n",
    "closed fence": "```\nfoo\n```\n",
    "empty": "",
    "only newlines": "\n\n\n",
}


@pytest.mark.parametrize("text", TEXTS.values(), ids=TEXTS.keys())
def test_blocks_joined_by_newlines_reproduce_the_text(text: str) -> None:
    lexed = lex_blocks(text)
    assert lexed.text == text
    assert len(lexed.blocks) == text.count("\n") + 1
    assert "\n".join(block_texts(lexed)) == text


@pytest.mark.parametrize("text", TEXTS.values(), ids=TEXTS.keys())
def test_ranges_tile_each_block_in_utf16_units(text: str) -> None:
    # Pygments' tokens cover the whole text; split per line (the "\n"s dropped) they cover
    # each block from 0 to its UTF-16 length without gaps or overlaps.
    for line, ranges in lex_blocks(text).blocks:
        pos = 0
        for start, length, _ttype in sorted(ranges, key=lambda r: r[0]):
            assert start == pos and length > 0, (line, ranges)
            pos += length
        assert pos == utf16(line), (line, ranges)


def test_a_token_after_two_emoji_starts_two_units_later() -> None:
    # "**x**" starts at Python index 3 (two emoji and a space); in UTF-16 the emoji take
    # 2 units each, so it starts at 5.  Its length stays 5 (all BMP).
    ((line, ranges),) = lex_blocks(f"{EMOJI}{EMOJI} **x**").blocks
    assert line.index("**x**") == 3
    assert (5, 5, Generic.Strong) in ranges


def test_a_token_holding_an_emoji_is_one_unit_longer() -> None:
    # "**a<emoji>b**" is 7 Python characters, 8 UTF-16 units.
    ((_, ranges),) = lex_blocks(f"**a{EMOJI}b**").blocks
    assert ranges == ((0, 8, Generic.Strong),)


def test_a_token_spanning_lines_is_split_per_block() -> None:
    # A plain ``` fence is one Pygments token over three lines and their newlines.
    lexed = lex_blocks("```\nfoo\n```\n")
    assert lexed.blocks == (
        ("```", ((0, 3, String.Backtick),)),
        ("foo", ((0, 3, String.Backtick),)),
        ("```", ((0, 3, String.Backtick),)),
        ("", ()),
    )


# -- OffsetMap --------------------------------------------------------------------------------


def test_offset_map_adds_one_per_emoji_before_the_offset() -> None:
    text = f"a{EMOJI}b{EMOJI}c"  # emoji at 1 and 3
    offsets = OffsetMap.of(text)
    assert offsets.astral == (1, 3)
    # 0 and 1 are before any emoji; 2 and 3 are past one; 4 and 5 past two.
    assert [offsets.to_doc(i) for i in range(len(text) + 1)] == [0, 1, 3, 4, 6, 7]
    assert [offsets.to_doc(i) for i in range(len(text) + 1)] == [utf16(text[:i]) for i in range(len(text) + 1)]


def test_offset_map_of_bmp_text_is_the_identity() -> None:
    text = "plain \u00e9\u4e2d text"
    offsets = OffsetMap.of(text)
    assert offsets.astral == ()
    assert [offsets.to_doc(i) for i in range(len(text) + 1)] == list(range(len(text) + 1))


# -- MarkdownHighlighter ----------------------------------------------------------------------

# One chunk of 10 lines; line n of the chunk is block 10 * chunk + n.
CHUNK = [
    "# Heading {i}",  # 0: Generic.Heading
    "",  # 1
    "Just plain words.",  # 2: plain text, no format
    EMOJI + " **bold {i}** here",  # 3: Generic.Strong at UTF-16 3 (after the emoji and a space)
    "\tTabbed line\r",  # 4: the CR shown as U+240D
    "- item one",  # 5
    "```python",  # 6
    "x = {i}",  # 7: Python inside the fence, only known from the lines around it
    "```",  # 8
    "",  # 9
]


def markdown(lines: int = 3000) -> str:
    out: list[str] = []
    for i in range(lines // len(CHUNK)):
        out.extend(line.replace("{i}", str(i)) for line in CHUNK)
    return display_text("\n".join(out) + "\n")


@pytest.fixture
def editor(qtbot) -> QPlainTextEdit:
    widget = QPlainTextEdit()
    qtbot.addWidget(widget)
    return widget


def formats(editor: QPlainTextEdit, block: int) -> list[tuple[int, int]]:
    layout = editor.document().findBlockByNumber(block).layout()
    return [(r.start, r.length) for r in layout.formats()]


def heading_colour(editor: QPlainTextEdit, block: int = 0) -> str:
    (fmt,) = editor.document().findBlockByNumber(block).layout().formats()
    return fmt.format.foreground().color().name()


Lexed = tuple[QPlainTextEdit, MarkdownHighlighter, list[str]]


@pytest.fixture
def lexed_editor(editor: QPlainTextEdit, monkeypatch: pytest.MonkeyPatch) -> Lexed:
    """A 3,000-line text set the way the context view does it; the list gets every line lexed alone."""
    own: list[str] = []
    monkeypatch.setattr(highlighter, "lex_line", lambda line: own.append(line) or lex_line(line))
    text = markdown()
    hl = MarkdownHighlighter(editor.document())
    hl.set_lexed(lex_blocks(text))
    editor.setPlainText(text)
    return editor, hl, own


def test_the_generated_text_is_3000_lines_of_blocks(lexed_editor: Lexed) -> None:
    editor, _, _ = lexed_editor
    assert editor.toPlainText().count("\n") == 3000
    assert editor.document().blockCount() == 3001  # the last one empty


def test_a_lexed_text_is_highlighted_from_the_cache(lexed_editor: Lexed) -> None:
    editor, hl, own = lexed_editor
    assert own == []  # no block was lexed again
    assert hl.cache_hits >= editor.document().blockCount()


def test_setting_a_lexed_text_counts_no_cache_miss(lexed_editor: Lexed) -> None:
    _, hl, _ = lexed_editor
    assert hl.cache_misses == 0


def test_a_heading_is_formatted_and_plain_words_are_not(lexed_editor: Lexed) -> None:
    editor, _, _ = lexed_editor
    (heading,) = editor.document().findBlockByNumber(10).layout().formats()  # "# Heading 1"
    assert (heading.start, heading.length) == (0, len("# Heading 1"))
    assert heading.format.fontWeight() == QFont.Weight.Bold
    assert formats(editor, 12) == []  # "Just plain words."


def test_formats_are_placed_in_utf16_units(lexed_editor: Lexed) -> None:
    editor, _, _ = lexed_editor
    # Block 3: emoji (2 units), space, then "**bold 0**" (10 units) at 3.
    assert (3, len("**bold 0**")) in formats(editor, 3)


def test_code_in_a_fence_is_highlighted_with_the_context_of_the_whole_text(lexed_editor: Lexed) -> None:
    editor, _, _ = lexed_editor
    assert formats(editor, 7) != []  # "x = 0" lexed as Python (operator, number)
    # Lexed alone, the same line is plain markdown text, which has no format.
    assert all(t in Text for _, _, t in lex_line("x = 0"))


def test_without_a_lexed_text_each_block_is_lexed_on_its_own(editor: QPlainTextEdit) -> None:
    text = markdown(100)
    hl = MarkdownHighlighter(editor.document())
    hl.set_lexed(lex_blocks(text))
    hl.set_lexed(None)
    editor.setPlainText(text)
    assert hl.cache_hits == 0
    # Every non-empty block is lexed alone (empty blocks have nothing to colour).
    assert hl.cache_misses >= sum(1 for line in text.split("\n") if line)
    assert (3, len("**bold 0**")) in formats(editor, 3)  # inline markup still highlighted


def test_without_a_lexed_text_a_heading_is_still_formatted(editor: QPlainTextEdit) -> None:
    hl = MarkdownHighlighter(editor.document())
    hl.set_lexed(None)
    editor.setPlainText("# Heading\n\nText\n")
    assert hl.cache_misses > 0
    assert formats(editor, 0) == [(0, len("# Heading"))]


def dark_heading() -> str:
    from pygments.styles import get_style_by_name
    from pygments.token import Generic

    from ctxviewer.gui.widgets.highlighter import DARK_STYLE

    return "#" + get_style_by_name(DARK_STYLE).style_for_token(Generic.Heading)["color"]


def test_dark_mode_switches_the_heading_colour(lexed_editor: Lexed) -> None:
    editor, hl, own = lexed_editor
    light = heading_colour(editor)
    hl.set_dark(True)
    dark = heading_colour(editor)
    assert light != dark
    # Pygments' "default" heading is navy (#000080); the dark style has its own colour.
    assert (light, dark) == ("#000080", dark_heading())
    hl.set_dark(False)
    assert heading_colour(editor) == light
    assert own == []  # rehighlighting used the cache too


def test_a_highlighter_created_dark_starts_dark(editor: QPlainTextEdit) -> None:
    hl = MarkdownHighlighter(editor.document(), dark=True)
    text = "# Heading\n"
    hl.set_lexed(lex_blocks(text))
    editor.setPlainText(text)
    assert heading_colour(editor) == dark_heading()


def test_no_character_splits_a_block_behind_the_caches_back(editor: QPlainTextEdit) -> None:
    text = display_text("a\ufdd0b\n# Heading\n")
    lexed = lex_blocks(text)
    hl = MarkdownHighlighter(editor.document())
    hl.set_lexed(lexed)
    editor.setPlainText(text)
    assert editor.document().blockCount() == len(lexed.blocks)  # 3: "a\ufdd0b", "# Heading", ""


def test_highlighting_keeps_references_to_none(editor: QPlainTextEdit) -> None:
    # PySide6 6.12.0 drops a reference to None on every Qt call returning void (setFormat
    # here, thousands per pass over a long context); on Python < 3.12, where None is not
    # immortal, the interpreter then aborts with "deallocating None".  The pinned binding
    # must not: a pass over 201 blocks leaves None's count where it was.
    text = markdown(200)
    hl = MarkdownHighlighter(editor.document())
    hl.set_lexed(lex_blocks(text))
    editor.setPlainText(text)
    before = sys.getrefcount(None)
    hl.rehighlight()
    assert hl.cache_hits > 201
    if sys.version_info < (3, 12):
        assert abs(sys.getrefcount(None) - before) < 50
