"""Counts and lists in words: the noun's number follows the count; long lists fold."""

from __future__ import annotations

from ctxviewer.engine.wording import FOLD_SHOWN, folded, plural


def test_plural_follows_the_count() -> None:
    assert plural(0, "candidate") == "0 candidates"
    assert plural(1, "candidate") == "1 candidate"
    assert plural(2, "candidate") == "2 candidates"
    assert plural(1_200, "task") == "1,200 tasks"
    assert plural(1, "entry", "entries") == "1 entry"
    assert plural(3, "entry", "entries") == "3 entries"


def test_a_long_list_shows_its_first_few_and_how_many_more() -> None:
    items = [f"f/T{n}" for n in range(683)]
    text = folded(items, more="(-v for all)")
    assert text == ", ".join(items[:FOLD_SHOWN]) + f", ... and {683 - FOLD_SHOWN} more (-v for all)"
    assert folded(items, every=True) == ", ".join(items)


def test_a_list_one_past_the_limit_is_shown_whole() -> None:
    items = [str(n) for n in range(FOLD_SHOWN + 1)]
    assert folded(items) == ", ".join(items)
    assert folded([*items, "x"]).endswith(", ... and 2 more")
