"""The trace's records: the fast item constructor makes what ``Item(...)`` makes."""

from __future__ import annotations

from dataclasses import FrozenInstanceError, fields

import pytest

from ctxviewer.engine.tokens.counting import TokenCounts
from ctxviewer.engine.trace.model import ITEM_FIELDS, Item, make_item


def test_make_item_fills_every_field_as_the_constructor_does() -> None:
    values = (
        "requirements:3", "spec_paragraph", "spec_excerpts", "requirements", "r.md", 5, 6, 2, ("a", "b"), 1,
        "included", "rank 1", "text", 4, TokenCounts(4, 1, 1, 1), (10, 14), {"k": 1}, "prompt", "how",
    )  # fmt: skip
    made = make_item(*values)
    assert made == Item(*values)
    assert type(made) is Item
    assert tuple(getattr(made, name) for name in ITEM_FIELDS) == values
    with pytest.raises(FrozenInstanceError):  # an Item like any other: frozen
        made.score = 3  # type: ignore[misc]


def test_make_item_is_the_fast_path_while_the_fields_are_those_it_knows() -> None:
    assert tuple(f.name for f in fields(Item)) == ITEM_FIELDS
    assert make_item is not Item
