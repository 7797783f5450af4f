"""The plot's axis maths: token labels and nice tick steps, whatever the numbers."""

from __future__ import annotations

from ctxviewer.gui.views.session.ticks import nice_step, nice_ticks, tokens_k


def test_axis_helpers() -> None:
    assert [tokens_k(v) for v in (0, 750, 1000, 2500, 12_000, 12_345, 1_250_000, -3000)] == [
        "0",
        "750",
        "1k",
        "2.5k",
        "12k",
        "12.3k",
        "1.25M",
        "-3k",
    ]
    assert tokens_k(float("nan")) == "0"
    assert nice_step(24_124, 3) == 10_000
    assert nice_step(24_124, 5) == 5_000
    assert nice_step(24_124, 10) == 2_500
    assert nice_step(7, 7) == 1 and nice_step(0, 4) == 0.25
    assert nice_ticks(24_124, 5) == (0, 5_000, 10_000, 15_000, 20_000, 25_000)
    assert nice_ticks(20_000, 4) == (0, 5_000, 10_000, 15_000, 20_000)
    assert nice_ticks(float("inf"), 3)[0] == 0
