"""What the plot shows: a replay's PlotValue, the plot's top, and a thinned live history."""

from __future__ import annotations

import itertools

import pytest

from ctxviewer.engine.runs.session import SessionReplay
from ctxviewer.gui.views.session.series import PlotValue, plot_top, thin_history


def test_plot_value_from_replay(replay: SessionReplay) -> None:
    value = PlotValue.from_replay(replay)
    assert value.points == tuple((i + 1.0, s.estimated_tokens) for i, s in enumerate(replay.steps))
    assert value.first_checkpoint == replay.first_checkpoint == 5
    assert value.zones == (("compaction", 75.0),)
    assert value.lines() == (("checkpoint", 70.0, -1), ("compaction", 75.0, 0))
    assert value.labels[5] == "Task 6 of 8: AUTH-L2-003"
    assert "the worker checkpoints after this task" in value.details[5]
    # The top leaves room above the highest point (21,931) and the highest line (13,500).
    assert plot_top(value) == pytest.approx(21_931 * 1.1)


def test_thin_history_keeps_the_shape_and_the_first_checkpoint() -> None:
    history = [(i / 10, 100 * i) for i in range(10_000)]
    points, first = thin_history(history, 4321, limit=1000)
    assert len(points) <= 1002 and points[0] == history[0] and points[-1] == history[-1]
    assert first is not None and points[first] == history[4321]
    # Every 10th point (the highest of its run of 10) is kept, so no rise is lost by more than a run.
    assert all(b[1] - a[1] <= 1000 for a, b in itertools.pairwise(points))
    short = [(0.0, 1), (1.0, 2)]
    assert thin_history(short, None) == (tuple(short), None)
