"""Project text made harmless for the window: tooltips shown literally, no resource loaded, safe file names."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QEvent, Qt
from PySide6.QtWidgets import QLabel, QTextBrowser

from ctxviewer.gui.widgets.plaintext import MAX_NAME_CHARS, NoResourceBrowser, plain_tip, safe_file_name
from tests.gui.events import EventCount
from tests.gui.hostile_text import CANARY, OpenWatch, hostile_project, inotify_available, shown

AUTO = Qt.TextFormat.AutoText


@pytest.mark.parametrize(
    "text",
    [
        '<b>x</b>  two  spaces\nline 2 &amp; <img src="a.png">',
        "&lt;x <i>y</i>",  # Qt takes '&lt;' before a tag for rich text too
        "  <a href='https://example.com/'>link</a>\ttab",
        "<!DOCTYPE html><p>x</p>",
        "a < b and c > d",  # '< b ...>' is a tag to Qt: shown as rich text it would read "a  d"
    ],
)
def test_a_tooltip_that_looks_like_markup_is_escaped_and_shows_every_character(text: str) -> None:
    tip = plain_tip(text)
    assert tip != text and tip.startswith('<p style="white-space:pre-wrap">')
    assert shown(tip, AUTO) == text


@pytest.mark.parametrize("text", ["", "plain words", "a <= b, c => d", "first line\n<b>second</b>", "T1: 2 > 1 &amp;"])
def test_a_tooltip_qt_shows_as_plain_text_anyway_is_left_as_it_is(text: str) -> None:
    # Qt reads only the first line for a tag, and '&amp;' alone does not make text rich.
    assert plain_tip(text) == text
    assert shown(text, AUTO) == text


def test_a_label_shows_an_escaped_tooltip_as_the_text(qtbot) -> None:
    label = QLabel()
    qtbot.addWidget(label)
    label.setText(plain_tip("<b>Q1Z</b>\nline"))  # what a tooltip label does with it
    label.adjustSize()
    assert label.textFormat() == AUTO and shown(label.text()) == "<b>Q1Z</b>\nline"


@pytest.mark.skipif(not inotify_available, reason="watching opens needs Linux inotify")
def test_the_detail_pane_loads_nothing_its_html_names(qtbot, tmp_path: Path) -> None:
    _root, canary_dir, _h = hostile_project(tmp_path)
    watch = OpenWatch(canary_dir)
    url = (canary_dir / CANARY).as_uri()
    markup = f'<link rel="stylesheet" type="text/css" href="{url}"><p>x<img src="{url}"></p><table background="{url}">'
    try:
        safe = NoResourceBrowser()
        qtbot.addWidget(safe)
        safe.resize(300, 200)
        safe.show()
        safe.setHtml(markup)
        qtbot.wait(50)
        assert watch.opened() == []
        assert (safe.openLinks(), safe.openExternalLinks()) == (False, False)
        # the same HTML in a plain QTextBrowser reads the file: the watch sees opens
        plain = QTextBrowser()
        qtbot.addWidget(plain)
        plain.resize(300, 200)
        plain.show()
        plain.setHtml(markup)
        qtbot.wait(50)
        assert CANARY in watch.opened()
    finally:
        watch.close()


def _lines(n: int) -> str:
    return "<br>".join(f"line {i} of the budget arithmetic" for i in range(n))


def _short_pane(qtbot) -> NoResourceBrowser:
    """A pane too short for twelve lines, showing them with its scroll bar."""
    pane = NoResourceBrowser()
    qtbot.addWidget(pane)
    pane.resize(300, 80)
    pane.show()
    qtbot.waitExposed(pane)
    pane.replace_html(_lines(12))
    assert pane.verticalScrollBar().isVisible()
    return pane


def test_new_html_that_needs_the_bar_goes_in_without_the_bar_going(qtbot) -> None:
    pane = _short_pane(qtbot)
    bar = pane.verticalScrollBar()
    hides = EventCount(bar, QEvent.Type.Hide)
    pane.replace_html(_lines(13))
    # setHtml empties the document first: the bar goes and comes back (one more layout).
    assert (hides.count, bar.isVisible()) == (0, True)
    assert pane.verticalScrollBarPolicy() == Qt.ScrollBarPolicy.ScrollBarAsNeeded
    assert pane.toPlainText().splitlines()[-1] == "line 12 of the budget arithmetic"
    pane.setHtml(_lines(14))
    assert hides.count == 1  # what replace_html spares


def test_new_html_that_fits_leaves_no_bar(qtbot) -> None:
    pane = _short_pane(qtbot)
    pane.replace_html(_lines(1))
    assert not pane.verticalScrollBar().isVisible()
    assert pane.verticalScrollBarPolicy() == Qt.ScrollBarPolicy.ScrollBarAsNeeded
    pane.replace_html(_lines(12))
    assert pane.verticalScrollBar().isVisible()


@pytest.mark.parametrize(
    ("task_id", "name"),
    [
        ("T1", "T1"),
        ("../../outside/\x1b[2Jx", "____outside__[2Jx"),  # '..' and '/' and ESC each become '_'
        ("..", "_"),
        ("...", "_"),  # '..' -> '_', then the trailing '.' is stripped
        (".hidden", "hidden"),
        ("  ", "context"),
        ("", "context"),
        ("a/b\\c", "a_b_c"),
        ("a\nb\tc\x00", "a_b_c_"),
        ('a<b>:"|?*', "a_b" + "_" * 6),
        ("T1\u202egpj.md", "T1_gpj.md"),  # a right-to-left override would show "T1dm.jpg"
        ("CON", "_CON"),
        ("nul.txt", "_nul.txt"),
        ("x" * 200, "x" * MAX_NAME_CHARS),
        ("Ünïcode-T1", "Ünïcode-T1"),
    ],
)
def test_safe_file_name(task_id: str, name: str) -> None:
    assert safe_file_name(task_id) == name
