"""Session replay: a feature's tasks run one after another by one worker.

:func:`replay_session` feeds one real :class:`~ctxviewer.engine.runtime.tracker.ContextTracker`
(its clock advanced by the replay, so nothing sleeps) each task, its read/modify files that
exist, ``tool_calls`` tool calls and ``minutes`` of conversation, and records after each task
the estimate, whether the worker must checkpoint and the zones it entered.  The order is
:func:`replay_order`'s, which never raises on an inconsistent graph: it notes what it decided.
See docs/gui.md (Session).
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ctxviewer.engine.project.loading import Feature, Project, Task
from ctxviewer.engine.project.settings import Settings
from ctxviewer.engine.runs.pipeline import task_reads
from ctxviewer.engine.runtime.tracker import (
    TOKENS_PER_MINUTE,
    TOKENS_PER_TASK,
    TOKENS_PER_TOOL_CALL,
    ContextTracker,
    file_read_tokens,
)
from ctxviewer.engine.trace.model import TrackedFile

__all__ = ["ReplayStep", "SessionReplay", "replay_order", "replay_session"]

#: Upper bounds of the replay parameters (as the settings accept them).
MAX_TOOL_CALLS = 10_000
MAX_MINUTES = 10_000.0


@dataclass(frozen=True, slots=True)
class ReplayStep:
    """One task of the replay and the tracker right after it."""

    index: int
    task_id: str
    title: str
    #: The task's level, or None when it has no usable level (it runs after the others).
    level: int | None
    #: This task's contributions to the estimate.
    task_tokens: int
    read_tokens: int
    tool_tokens: int
    #: Growth of ``int(elapsed_minutes * 100)`` during this task.
    time_tokens: int
    #: The task's files as :func:`task_reads` lists them, uncounted ones with their note.
    files: tuple[TrackedFile, ...]
    #: The tracker's estimate after this task (cumulative within the worker session).
    estimated_tokens: int
    usage_percent: float
    #: Minutes since the worker session started (since the last reset, in reset mode).
    elapsed_minutes: float
    #: ``should_checkpoint()`` after this task.
    checkpoint: bool
    #: Zones (``"checkpoint"`` included) the usage entered for the first time at this step.
    zones_reached: tuple[str, ...]

    @property
    def added(self) -> int:
        """Tokens this task added to the estimate."""
        return self.task_tokens + self.read_tokens + self.tool_tokens + self.time_tokens


@dataclass(frozen=True)
class SessionReplay:
    """A feature's tasks replayed through one worker's tracker."""

    feature: str
    steps: tuple[ReplayStep, ...]
    max_tokens: int
    threshold_percent: float
    #: The checkpoint and the further zones, sorted by percent (``Settings.all_zones``).
    zones: tuple[tuple[str, float], ...]
    tool_calls_per_task: int
    minutes_per_task: float
    #: Whether the tracker was reset after each checkpointing step (a fresh worker went on).
    reset_on_checkpoint: bool
    #: Index of the first step where ``checkpoint`` is True, else None.
    first_checkpoint: int | None
    #: What :func:`replay_order` had to decide about the task graph.
    notes: tuple[str, ...] = ()

    @property
    def checkpoints(self) -> tuple[int, ...]:
        """Indices of every step that checkpoints."""
        return tuple(s.index for s in self.steps if s.checkpoint)

    @property
    def further_zones(self) -> tuple[tuple[str, float], ...]:
        """The zones besides the checkpoint."""
        return tuple(z for z in self.zones if z[0] != "checkpoint")


# -- order -------------------------------------------------------------------------


def _level(task: Task) -> int | None:
    value = task.raw.get("level")
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    return value


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _strongly_connected(nodes: list[int], edges: Mapping[int, Iterable[int]]) -> list[list[int]]:
    """Tarjan's strongly connected components, iteratively (no recursion limit)."""
    index: dict[int, int] = {}
    low: dict[int, int] = {}
    on_stack: set[int] = set()
    stack: list[int] = []
    components: list[list[int]] = []
    counter = 0
    for root in nodes:
        if root in index:
            continue
        work: list[tuple[int, list[int]]] = [(root, list(edges.get(root, ())))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, todo = work[-1]
            if todo:
                nxt = todo.pop()
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, list(edges.get(nxt, ()))))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component: list[int] = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                components.append(sorted(component))
    return components


def _order_group(
    group: list[Task], deps: Mapping[int, set[int]], ids: Mapping[int, str]
) -> tuple[list[Task], list[str]]:
    """Topological order of one level's tasks; cycles run in graph order, with a note.

    *deps* maps a task's position (``Task.index``) to the positions it waits for,
    already restricted to this group.  Ties go to the task earliest in the graph.
    """
    by_pos = {t.index: t for t in group}
    nodes = sorted(by_pos)
    components = _strongly_connected(nodes, deps)
    comp_of = {member: n for n, comp in enumerate(components) for member in comp}
    notes = []
    for comp in sorted(components, key=lambda c: c[0]):
        if len(comp) > 1:
            names = ", ".join(ids[m] for m in comp)
            notes.append(f"dependency cycle among {names}: they run in graph order")
    # Kahn's algorithm over the condensation, smallest graph position first.
    waits_for: dict[int, set[int]] = {n: set() for n in range(len(components))}
    unblocks: dict[int, set[int]] = {n: set() for n in range(len(components))}
    for node in nodes:
        for dep in deps.get(node, ()):
            a, b = comp_of[node], comp_of[dep]
            if a != b:
                waits_for[a].add(b)
                unblocks[b].add(a)
    ready = [(components[n][0], n) for n, w in waits_for.items() if not w]
    heapq.heapify(ready)
    ordered: list[Task] = []
    while ready:
        _, n = heapq.heappop(ready)
        ordered.extend(by_pos[m] for m in components[n])
        for m in unblocks[n]:
            waits_for[m].discard(n)
            if not waits_for[m]:
                heapq.heappush(ready, (components[m][0], m))
    return ordered, notes


def replay_order(feature: Feature) -> tuple[tuple[Task, ...], tuple[str, ...]]:
    """The tasks in the order one worker runs them, and notes on what had to be decided.

    By ``level`` ascending (a missing or non-integer level counts as after the highest
    valid level), then within a level in topological order of ``dependencies``, ties
    in graph order.  Unknown dependency ids, dependencies on later levels and on the
    task itself are ignored with a note; the tasks of a dependency cycle run in graph
    order, with a note.  Raises the feature's ``graph_error`` if it has one.
    """
    if feature.graph_error is not None:
        raise feature.graph_error
    tasks = feature.tasks
    notes: list[str] = []
    levels = {t.index: _level(t) for t in tasks}
    valid = [lv for lv in levels.values() if lv is not None]
    if valid:
        for t in tasks:
            if levels[t.index] is None:
                raw = t.raw.get("level")
                why = "has no level" if raw is None else f"level {_short(raw)} is not a whole number"
                notes.append(f"{t.id}: {why}; runs after level {max(valid)}")
    elif tasks:
        notes.append("no task has a whole-number level: ordered by dependencies, ties in graph order")

    # Group key: valid levels in order, then the unlevelled group last.
    def rank(t: Task) -> tuple[int, int]:
        lv = levels[t.index]
        return (0, lv) if lv is not None else (1, 0)

    first_by_id: dict[str, Task] = {}
    for t in tasks:
        first_by_id.setdefault(t.id, t)
        raw_id = t.raw.get("id")
        if isinstance(raw_id, str):
            first_by_id.setdefault(raw_id, t)
    ids = {t.index: t.id for t in tasks}

    deps: dict[int, set[int]] = {}
    for t in tasks:
        raw_deps = t.raw.get("dependencies")
        if raw_deps is None:
            continue
        if not isinstance(raw_deps, list):
            notes.append(f"{t.id}: dependencies is a {type(raw_deps).__name__}, not a list; ignored")
            continue
        wanted: set[int] = set()
        for dep in raw_deps:
            if not isinstance(dep, str):
                notes.append(f"{t.id}: dependency {_short(dep)} is not a task id; ignored")
                continue
            other = first_by_id.get(dep)
            if other is None:
                notes.append(f"{t.id}: depends on unknown task {dep!r}; ignored")
            elif other.index == t.index:
                notes.append(f"{t.id}: depends on itself; ignored")
            elif rank(other) > rank(t):
                where = f"level {levels[other.index]}" if levels[other.index] is not None else "no level"
                notes.append(
                    f"{t.id} (level {levels[t.index]}): depends on {other.id} ({where}), which runs later; ignored"
                )
            elif rank(other) == rank(t):
                wanted.add(other.index)
            # An earlier level is done by then: nothing to order.
        if wanted:
            deps[t.index] = wanted

    groups: dict[tuple[int, int], list[Task]] = {}
    for t in tasks:
        groups.setdefault(rank(t), []).append(t)
    ordered: list[Task] = []
    for key in sorted(groups):
        group_tasks, group_notes = _order_group(groups[key], deps, ids)
        ordered.extend(group_tasks)
        notes.extend(group_notes)
    return tuple(ordered), tuple(notes)


# -- replay ------------------------------------------------------------------------


def _check_parameters(tool_calls: int, minutes: float) -> None:
    if isinstance(tool_calls, bool) or not isinstance(tool_calls, int) or not 0 <= tool_calls <= MAX_TOOL_CALLS:
        raise ValueError(f"tool calls per task must be a whole number from 0 to {MAX_TOOL_CALLS:,}, not {tool_calls!r}")
    if (
        isinstance(minutes, bool)
        or not isinstance(minutes, (int, float))
        or not math.isfinite(minutes)
        or not 0 <= minutes <= MAX_MINUTES
    ):
        raise ValueError(f"minutes per task must be a number from 0 to {MAX_MINUTES:g}, not {minutes!r}")


class _Clock:
    """Seconds, moved by the replay."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def replay_session(
    project: Project,
    feature: Feature,
    settings: Settings | None = None,
    *,
    tool_calls: int | None = None,
    minutes: float | None = None,
    reset_on_checkpoint: bool = False,
) -> SessionReplay:
    """Replay *feature*'s tasks through one ContextTracker, in :func:`replay_order`.

    *tool_calls* and *minutes* per task default to the settings' ``replay_tool_calls``
    and ``replay_minutes``.  With *reset_on_checkpoint*, the tracker is reset after each
    step that checkpoints (a fresh worker continues), so zones can be reached again.
    Raises the feature's ``graph_error``, and ValueError for parameters out of range.
    """
    settings = settings or project.settings
    calls = settings.replay_tool_calls if tool_calls is None else tool_calls
    mins = settings.replay_minutes if minutes is None else minutes
    _check_parameters(calls, mins)
    order, notes = replay_order(feature)
    zones = settings.all_zones
    clock = _Clock()
    tracker = ContextTracker(settings.threshold_percent, settings.max_context_tokens, clock=clock)
    reached: set[str] = set()
    steps: list[ReplayStep] = []
    first_checkpoint: int | None = None
    for n, task in enumerate(order):
        time_before = int(tracker.elapsed_minutes() * TOKENS_PER_MINUTE)
        tracker.track_task_execution(task.id)
        files = task_reads(project.fs, task)
        read_tokens = 0
        for f in files:
            if f.size is not None:
                tracker.track_file_read(f.path, f.size)
                read_tokens += file_read_tokens(f.size)
        tracker.track_tool_call(calls)
        clock.now += mins * 60
        time_tokens = int(tracker.elapsed_minutes() * TOKENS_PER_MINUTE) - time_before
        usage = tracker.get_usage()
        checkpoint = usage.is_over_threshold
        new_zones = tuple(name for name, pct in zones if usage.usage_percent >= pct and name not in reached)
        reached.update(new_zones)
        steps.append(
            ReplayStep(
                index=n,
                task_id=task.id,
                title=task.title,
                level=_level(task),
                task_tokens=TOKENS_PER_TASK,
                read_tokens=read_tokens,
                tool_tokens=calls * TOKENS_PER_TOOL_CALL,
                time_tokens=time_tokens,
                files=files,
                estimated_tokens=usage.estimated_tokens,
                usage_percent=usage.usage_percent,
                elapsed_minutes=usage.elapsed_minutes,
                checkpoint=checkpoint,
                zones_reached=new_zones,
            )
        )
        if checkpoint and first_checkpoint is None:
            first_checkpoint = n
        if checkpoint and reset_on_checkpoint:
            tracker.reset()
            reached.clear()
    return SessionReplay(
        feature=feature.name,
        steps=tuple(steps),
        max_tokens=settings.max_context_tokens,
        threshold_percent=settings.threshold_percent,
        zones=zones,
        tool_calls_per_task=calls,
        minutes_per_task=float(mins),
        reset_on_checkpoint=reset_on_checkpoint,
        first_checkpoint=first_checkpoint,
        notes=notes,
    )
