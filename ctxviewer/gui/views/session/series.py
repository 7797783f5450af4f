"""What the usage plot shows: :class:`PlotValue`, a plain frozen value built from a replay or
a live log's usage, and the sums around it (how high the plot's top is, how a long live
history is thinned).  No Qt: :class:`~ctxviewer.gui.views.session.plot.UsagePlot` paints it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ctxviewer.engine.runs.session import ReplayStep, SessionReplay
from ctxviewer.engine.runtime.eventlog import LiveUsage
from ctxviewer.gui.views.session.ticks import finite

#: A live plot draws at most about this many points, however long the log.
MAX_LIVE_POINTS = 1_500


@dataclass(frozen=True)
class PlotValue:
    """A usage series: ``(x, estimated tokens)`` points against the checkpoint and zone lines.

    ``labels`` and ``details`` (per point, optional) make the hover tooltip; with
    ``resets`` the tracker restarted at 0 after each point in ``checkpoints``.
    """

    points: tuple[tuple[float, int], ...]
    max_tokens: int
    threshold_percent: float
    zones: tuple[tuple[str, float], ...] = ()
    labels: tuple[str, ...] = ()
    details: tuple[str, ...] = ()
    x_title: str = "task"
    title: str = "Estimated tokens"
    integer_x: bool = True
    first_checkpoint: int | None = None
    checkpoints: tuple[int, ...] = ()
    resets: bool = False

    @classmethod
    def from_replay(cls, replay: SessionReplay) -> PlotValue:
        steps = replay.steps
        return cls(
            points=tuple((s.index + 1.0, s.estimated_tokens) for s in steps),
            max_tokens=replay.max_tokens,
            threshold_percent=replay.threshold_percent,
            zones=replay.further_zones,
            labels=tuple(f"Task {s.index + 1} of {len(steps)}: {s.task_id}" for s in steps),
            details=tuple(step_detail(s) for s in steps),
            x_title="tasks run",
            title="Tokens after each task",
            integer_x=True,
            first_checkpoint=replay.first_checkpoint,
            checkpoints=replay.checkpoints,
            resets=replay.reset_on_checkpoint,
        )

    @classmethod
    def from_live(cls, usage: LiveUsage, zones: Sequence[tuple[str, float]] = ()) -> PlotValue:
        points, first = thin_history(usage.history, usage.first_checkpoint)
        return cls(
            points=points,
            max_tokens=usage.max_tokens,
            threshold_percent=usage.threshold_percent,
            zones=tuple(z for z in zones if z[0] != "checkpoint"),
            x_title="minutes",
            title="Tokens over minutes",
            integer_x=False,
            first_checkpoint=first,
            checkpoints=() if first is None else (first,),
        )

    def lines(self) -> tuple[tuple[str, float, int], ...]:
        """``(name, percent, zone index or -1 for the checkpoint)`` of each horizontal line."""
        out = [("checkpoint", finite(self.threshold_percent), -1)]
        out += [(str(n), finite(p), i) for i, (n, p) in enumerate(self.zones)]
        return tuple(out)


def thin_history(
    history: Sequence[tuple[float, int]], first_checkpoint: int | None, limit: int = MAX_LIVE_POINTS
) -> tuple[tuple[tuple[float, int], ...], int | None]:
    """At most about *limit* points of a live history, and the first checkpoint's new index.

    A live tracker only grows (no resets, time never goes back), so the last point of each
    run of ``len // limit`` points is that run's highest; those are kept, with the first
    point, the last and the first checkpoint exactly.
    """
    n = len(history)
    if n <= limit:
        return tuple(history), first_checkpoint
    step = -(-n // limit)
    keep = {0, n - 1, *range(step - 1, n, step)}
    if first_checkpoint is not None and 0 <= first_checkpoint < n:
        keep.add(first_checkpoint)
    order = sorted(keep)
    first = order.index(first_checkpoint) if first_checkpoint in keep else None
    return tuple(history[i] for i in order), first


def step_detail(s: ReplayStep) -> str:
    """One replay step in words: its total, what it added and why (the plot's and table's tooltip)."""
    text = (
        f"{s.estimated_tokens:,} tokens ({s.usage_percent:.1f}%), +{s.added:,}: task {s.task_tokens:,}, "
        f"reads {s.read_tokens:,}, tools {s.tool_tokens:,}, time {s.time_tokens:,}"
    )
    if s.checkpoint:
        text += "\nthe worker checkpoints after this task"
    if s.zones_reached:
        text += "\nreached: " + ", ".join(s.zones_reached)
    return text


def plot_top(value: PlotValue) -> float:
    """The token count the plot's top stands for: room above the highest point and line."""
    highest = max((max(0, finite(t)) for _, t in value.points), default=0.0)
    maximum = max(0.0, finite(value.max_tokens))
    for _, percent, _ in value.lines():
        highest = max(highest, maximum * min(100.0, max(0.0, percent)) / 100)
    return max(1.0, highest * 1.1)
