"""Session replay: task order from levels and dependencies, and the tracker task by task.

Expected token totals are worked out by hand from the files' real sizes on disk,
with the tracker's rules: 500 per task, ``int(size * 0.25) + 100`` per file read,
50 per tool call and ``int(elapsed_minutes * 100)`` for the conversation.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxviewer.engine.errors import ProjectError
from ctxviewer.engine.project.loading import Feature, Project, Task, load_project
from ctxviewer.engine.runs.session import ReplayStep, SessionReplay, replay_order, replay_session
from tests.conftest import SAMPLES
from tests.factories import make_project, write


def task(tid: str, level: Any = 1, deps: Any = None, read: list[str] | None = None, **extra: Any) -> dict[str, Any]:
    raw: dict[str, Any] = {"id": tid, "title": f"Task {tid}", **extra}
    if level is not None:
        raw["level"] = level
    if deps is not None:
        raw["dependencies"] = deps
    if read is not None:
        raw["files"] = {"read": read, "modify": [], "create": []}
    return raw


def feature_of(tasks: list[dict[str, Any]]) -> Feature:
    """A feature straight from raw task dicts (no disk), for order tests."""
    parsed = tuple(Task(id=str(t["id"]), title=str(t.get("title", "")), raw=t, index=i) for i, t in enumerate(tasks))
    return Feature(name="f", spec_dir=".gsd/specs/f", graph_path=".gsd/specs/f/task-graph.json", tasks=parsed)


def ids(feature: Feature) -> list[str]:
    return [t.id for t in replay_order(feature)[0]]


def notes(feature: Feature) -> tuple[str, ...]:
    return replay_order(feature)[1]


def reads(size: int) -> int:
    return int(size * 0.25) + 100


# -- order ---------------------------------------------------------------------------


def test_order_by_level_then_graph_order() -> None:
    f = feature_of([task("C", 3), task("A1", 1), task("B", 2), task("A2", 1)])
    assert ids(f) == ["A1", "A2", "B", "C"]
    assert notes(f) == ()


def test_order_within_a_level_follows_dependencies() -> None:
    f = feature_of(
        [
            task("X", 1, ["Z"]),
            task("Y", 1, []),
            task("Z", 1, ["Y"]),
            task("W", 1),
            task("L2", 2, ["X", "W"]),  # deps on an earlier level: already done
        ]
    )
    # Ready at start: Y (index 1) and W (index 3).  Y runs; Z becomes ready (index 2) and beats W;
    # then X (index 0) is ready and beats W too.
    assert ids(f) == ["Y", "Z", "X", "W", "L2"]
    assert notes(f) == ()


def test_cycle_runs_in_graph_order_with_a_note() -> None:
    f = feature_of(
        [
            task("A", 1, ["C"]),
            task("B", 1, ["A"]),
            task("C", 1, ["B"]),
            task("D", 1, ["B"]),  # downstream of the cycle: still after it
            task("E", 1),
        ]
    )
    order, why = replay_order(f)
    assert [t.id for t in order] == ["A", "B", "C", "D", "E"]
    assert why == ("dependency cycle among A, B, C: they run in graph order",)


def test_cycle_does_not_hold_back_unrelated_tasks() -> None:
    f = feature_of([task("P", 1, ["Q"]), task("Q", 1, ["P"]), task("R", 1)])
    # The cycle {P, Q} is ordered by its first member (index 0), so it runs first.
    assert ids(f) == ["P", "Q", "R"]
    f = feature_of([task("R", 1, ["Q"]), task("P", 1, ["Q"]), task("Q", 1, ["P"])])
    assert ids(f) == ["P", "Q", "R"]
    assert notes(f) == ("dependency cycle among P, Q: they run in graph order",)


def test_unknown_self_and_odd_dependencies_are_noted_and_ignored() -> None:
    f = feature_of(
        [
            task("A", 1, ["nope", "B"]),
            task("B", 1, ["B"]),
            task("C", 1, "B"),
            task("D", 1, [7, None, "A"]),
        ]
    )
    assert ids(f) == ["B", "A", "C", "D"]
    assert notes(f) == (
        "A: depends on unknown task 'nope'; ignored",
        "B: depends on itself; ignored",
        "C: dependencies is a str, not a list; ignored",
        "D: dependency 7 is not a task id; ignored",
        "D: dependency None is not a task id; ignored",
    )


def test_dependency_on_a_later_level_is_noted_and_ignored() -> None:
    f = feature_of([task("A", 1, ["B"]), task("B", 2), task("C", 2, ["A"])])
    assert ids(f) == ["A", "B", "C"]
    assert notes(f) == ("A (level 1): depends on B (level 2), which runs later; ignored",)


def test_missing_or_odd_level_runs_after_the_highest() -> None:
    f = feature_of(
        [
            task("N1", None),
            task("A", 2),
            task("N2", "3", ["N3"]),
            task("B", 1),
            task("N3", 1.5),
            task("N4", True),
            task("C", 2, ["N1"]),
        ]
    )
    assert ids(f) == ["B", "A", "C", "N1", "N3", "N2", "N4"]
    assert notes(f) == (
        "N1: has no level; runs after level 2",
        "N2: level '3' is not a whole number; runs after level 2",
        "N3: level 1.5 is not a whole number; runs after level 2",
        "N4: level True is not a whole number; runs after level 2",
        "C (level 2): depends on N1 (no level), which runs later; ignored",
    )


def test_no_levels_at_all_orders_by_dependencies() -> None:
    f = feature_of([task("A", None, ["B"]), task("B", None)])
    assert ids(f) == ["B", "A"]
    assert notes(f) == ("no task has a whole-number level: ordered by dependencies, ties in graph order",)
    assert replay_order(feature_of([])) == ((), ())


def test_graph_error_is_raised() -> None:
    error = ProjectError("invalid JSON: boom", ".gsd/specs/f/task-graph.json", 3)
    broken = Feature(name="f", spec_dir=".gsd/specs/f", graph_path=error.path, graph_error=error)
    with pytest.raises(ProjectError, match="boom"):
        replay_order(broken)


_ID = st.sampled_from([f"T{i}" for i in range(12)] + ["ghost", ""])
_LEVEL = st.one_of(st.none(), st.integers(-2, 4), st.sampled_from(["1", 2.5, True, [], {}]))
_DEPS = st.one_of(st.none(), st.lists(st.one_of(_ID, st.integers(), st.none()), max_size=5), st.sampled_from(["T1", 3]))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(_LEVEL, _DEPS), max_size=12))
def test_order_is_always_a_permutation_respecting_acyclic_deps(spec: list[tuple[Any, Any]]) -> None:
    raw = [task(f"T{i}", level, deps) for i, (level, deps) in enumerate(spec)]
    f = feature_of(raw)
    order, why = replay_order(f)
    assert sorted(t.index for t in order) == list(range(len(raw)))
    assert all(isinstance(n, str) for n in why)
    position = {t.id: n for n, t in enumerate(order)}
    cyclic = {
        name for note in why if note.startswith("dependency cycle") for name in note[23:].split(":")[0].split(", ")
    }
    for t in order:
        lv = t.raw.get("level")
        deps = t.raw.get("dependencies")
        if isinstance(deps, list) and t.id not in cyclic:
            for dep in deps:
                if isinstance(dep, str) and dep in position and dep != t.id and dep not in cyclic:
                    dep_lv = f.task(dep).raw.get("level")
                    same = (type(lv) is int and lv == dep_lv and type(dep_lv) is int) or (
                        type(lv) is not int and type(dep_lv) is not int
                    )
                    if same:
                        assert position[dep] < position[t.id], (dep, t.id)


# -- replay ----------------------------------------------------------------------------


@pytest.fixture
def project(tmp_path: Path) -> Project:
    """Three tasks over real files of odd sizes; one file does not exist yet."""
    root = tmp_path / "proj"
    write(root, "src/a.py", "x = 1\n" * 67)  # 402 bytes
    write(root, "src/b.py", "# b\n" * 251 + "z")  # 1005 bytes
    write(root, "docs/c.md", "hello world\n")  # 12 bytes
    make_project(
        root,
        [
            task("T3", 2, ["T2"], read=["docs/c.md", "src/a.py"]),
            {**task("T1", 1), "files": {"read": ["src/a.py"], "modify": ["src/b.py", "src/a.py"], "create": []}},
            task("T2", 2, [], read=["src/missing.py", "src/b.py"]),
        ],
    )
    return load_project(root)


def size(project: Project, rel: str) -> int:
    return os.path.getsize(project.root / rel)


def test_replay_tokens_by_hand(project: Project) -> None:
    a, b, c = size(project, "src/a.py"), size(project, "src/b.py"), size(project, "docs/c.md")
    assert (a, b, c) == (402, 1005, 12)
    replay = replay_session(project, project.feature("feat"))  # defaults: 10 tool calls, 5 minutes
    assert isinstance(replay, SessionReplay)
    assert [s.task_id for s in replay.steps] == ["T1", "T2", "T3"]
    assert [s.level for s in replay.steps] == [1, 2, 2]
    assert (replay.tool_calls_per_task, replay.minutes_per_task, replay.reset_on_checkpoint) == (10, 5.0, False)
    assert replay.zones == (("checkpoint", 70.0),) and replay.max_tokens == 200_000

    t1, t2, t3 = replay.steps
    # T1: a.py read, b.py modify (a.py listed twice: counted once).
    assert [f.path for f in t1.files] == ["src/a.py", "src/b.py"]
    assert (t1.task_tokens, t1.read_tokens, t1.tool_tokens, t1.time_tokens) == (
        500,
        (100 + 100) + (251 + 100),
        500,
        500,
    )
    assert t1.added == 500 + 551 + 500 + 500 == 2051
    assert t1.estimated_tokens == 2051
    # T2: missing.py is listed with its note but not counted; b.py again (every read counts).
    assert [(f.path, f.size) for f in t2.files] == [("src/missing.py", None), ("src/b.py", 1005)]
    assert "does not exist" in t2.files[0].note
    assert t2.read_tokens == reads(b) == 351
    assert t2.estimated_tokens == 2051 + 500 + 351 + 500 + 500 == 3902
    # T3: c.md (int(3.0) + 100) and a.py (int(100.5) + 100).
    assert t3.read_tokens == 103 + 200
    assert t3.estimated_tokens == 3902 + 500 + 303 + 500 + 500 == 5705
    assert t3.elapsed_minutes == 15.0
    assert t3.usage_percent == pytest.approx(5705 / 200_000 * 100)
    assert not any(s.checkpoint for s in replay.steps) and replay.first_checkpoint is None
    assert [s.index for s in replay.steps] == [0, 1, 2]
    assert all(isinstance(s, ReplayStep) for s in replay.steps)


def test_tool_calls_and_minutes_override_the_settings(project: Project) -> None:
    replay = replay_session(project, project.feature("feat"), tool_calls=0, minutes=0)
    assert [s.added for s in replay.steps] == [500 + 551, 500 + 351, 500 + 303]
    assert replay.steps[-1].estimated_tokens == 2705 and replay.steps[-1].elapsed_minutes == 0
    # A third of a minute each: int(33.3) = 33, int(66.6) = 66, int(100.0) = 100.
    replay = replay_session(project, project.feature("feat"), tool_calls=3, minutes=1 / 3)
    assert [s.time_tokens for s in replay.steps] == [33, 33, 34]
    assert [s.tool_tokens for s in replay.steps] == [150, 150, 150]
    custom = project.settings.with_overrides({"replay_tool_calls": 2, "replay_minutes": 0.5}, "test")
    replay = replay_session(project, project.feature("feat"), custom)
    assert [(s.tool_tokens, s.time_tokens) for s in replay.steps] == [(100, 50)] * 3
    for bad in ({"tool_calls": -1}, {"tool_calls": 2.5}, {"minutes": float("nan")}, {"minutes": -1.0}):
        with pytest.raises(ValueError):
            replay_session(project, project.feature("feat"), **bad)


def test_first_checkpoint_and_zones_with_a_small_context(project: Project) -> None:
    small = project.settings.with_overrides(
        {"max_context_tokens": 5000, "zones": {"compaction": 75.0, "notice": 40.0}}, "test"
    )
    replay = replay_session(project, project.feature("feat"), small)
    # 2051 = 41.0%, 3902 = 78.0%, 5705 = 114.1%
    assert [round(s.usage_percent, 2) for s in replay.steps] == [41.02, 78.04, 114.1]
    assert [s.checkpoint for s in replay.steps] == [False, True, True]
    assert replay.first_checkpoint == 1
    assert replay.checkpoints == (1, 2)
    assert replay.zones == (("notice", 40.0), ("checkpoint", 70.0), ("compaction", 75.0))
    assert replay.further_zones == (("notice", 40.0), ("compaction", 75.0))
    assert [s.zones_reached for s in replay.steps] == [("notice",), ("checkpoint", "compaction"), ()]


def test_reset_on_checkpoint_starts_a_fresh_worker(project: Project) -> None:
    small = project.settings.with_overrides({"max_context_tokens": 2000, "zones": {"compaction": 90}}, "test")
    replay = replay_session(project, project.feature("feat"), small, reset_on_checkpoint=True)
    assert replay.reset_on_checkpoint
    # Each task alone is over 70% of 2,000 (1,400): every step checkpoints, each in a fresh session.
    assert [s.estimated_tokens for s in replay.steps] == [2051, 1851, 1803]
    assert [s.added for s in replay.steps] == [2051, 1851, 1803]
    assert [s.elapsed_minutes for s in replay.steps] == [5.0, 5.0, 5.0]
    assert replay.checkpoints == (0, 1, 2) and replay.first_checkpoint == 0
    assert [s.zones_reached for s in replay.steps] == [("checkpoint", "compaction")] * 3
    # Without the reset the tracker keeps growing and zones are reached once.
    plain = replay_session(project, project.feature("feat"), small)
    assert [s.estimated_tokens for s in plain.steps] == [2051, 3902, 5705]
    assert [s.zones_reached for s in plain.steps] == [("checkpoint", "compaction"), (), ()]


def test_reset_mode_mid_session(project: Project) -> None:
    mid = project.settings.with_overrides({"max_context_tokens": 5000}, "test")
    replay = replay_session(project, project.feature("feat"), mid, reset_on_checkpoint=True)
    # 2051 (41%), 3902 (78%: checkpoint, reset), then T3 alone: 1803 (36%).
    assert [s.estimated_tokens for s in replay.steps] == [2051, 3902, 1803]
    assert [s.checkpoint for s in replay.steps] == [False, True, False]
    assert replay.steps[2].elapsed_minutes == 5.0


def test_replay_raises_the_graph_error(tmp_path: Path) -> None:
    root = tmp_path / "bad"
    write(root, ".gsd/specs/broken/task-graph.json", "{ not json")
    project = load_project(root)
    with pytest.raises(ProjectError, match="invalid JSON"):
        replay_session(project, project.feature("broken"))


def test_replay_ledger_service_auth_sessions() -> None:
    project = load_project(SAMPLES / "ledger-service")
    feature = project.feature("auth-sessions")
    replay = replay_session(project, feature)
    assert replay.feature == "auth-sessions" and replay.notes == ()
    assert [s.task_id for s in replay.steps] == [
        "AUTH-L1-001",
        "AUTH-L1-002",
        "AUTH-L1-003",
        "AUTH-L2-001",
        "AUTH-L2-002",
        "AUTH-L2-003",
        "AUTH-L3-001",
        "AUTH-L3-002",
    ]
    src = project.root / "src" / "ledger"
    config, passwords = os.path.getsize(src / "config.py"), os.path.getsize(src / "auth" / "passwords.py")
    first = replay.steps[0]
    assert first.read_tokens == reads(config) + reads(passwords)
    assert first.estimated_tokens == 500 + reads(config) + reads(passwords) + 10 * 50 + 500
    total = 0
    for step in replay.steps:
        counted = sum(reads(f.size) for f in step.files if f.size is not None)
        assert step.read_tokens == counted
        total += step.added
        assert step.estimated_tokens == total
    assert replay.steps[-1].elapsed_minutes == 40.0
    assert replay.first_checkpoint is None
    # Lowered so the checkpoint fires mid-feature: 70% of 18,000 is 12,600.
    low = project.settings.with_overrides({"max_context_tokens": 18_000, "zones": {"compaction": 75.0}}, "test")
    replay = replay_session(project, feature, low)
    over = next(s for s in replay.steps if s.estimated_tokens >= 12_600)
    assert replay.first_checkpoint == over.index
    assert replay.steps[over.index].zones_reached[0] == "checkpoint"
