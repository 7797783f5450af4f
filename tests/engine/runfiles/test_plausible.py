"""The one table of plausible figures: its ends, and messages that stay short for any number."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from ctxviewer.engine.runfiles.plausible import COUNT, DURATION_MS, TIME, USAGE, implausible

Y2000, Y2100 = (datetime(year, 1, 1, tzinfo=UTC).timestamp() for year in (2000, 2100))


@pytest.mark.parametrize(
    ("kind", "inside", "outside"),
    [
        (USAGE, [0, 0.72, 10], [-0.01, 10.001, 1e308, float("nan"), float("inf")]),
        (COUNT, [0, 10**9], [-1, 10**9 + 1, 10**400]),
        (TIME, [Y2000, Y2100], [0, Y2000 - 1, Y2100 + 1]),
        (DURATION_MS, [0, 366 * 86_400_000], [-1, 366 * 86_400_000 + 1]),
    ],
)
def test_the_ends_of_each_range(kind: str, inside: list[float], outside: list[float]) -> None:
    assert [implausible(kind, v) for v in inside] == [None] * len(inside)
    assert all(implausible(kind, v) is not None for v in outside)


def test_messages_name_the_value_briefly() -> None:
    assert implausible(USAGE, 1e308) == "is 1e+308, outside 0 to 10 (1,000 %)"
    assert implausible(COUNT, 10**400) == "is over 1e+308, outside 0 to 1,000,000,000"
    assert implausible(TIME, 0) == "is 1970-01-01T00:00:00Z, outside the years 2000 to 2100"
