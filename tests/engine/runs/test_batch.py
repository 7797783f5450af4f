"""run_batch: every task in order; bad input raises, or is collected for a background pass."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from ctxviewer.engine.errors import CtxViewerError, ProjectError
from ctxviewer.engine.profiles.base import Cancelled
from ctxviewer.engine.project.loading import load_project
from ctxviewer.engine.runs import batch
from ctxviewer.engine.runs.batch import batch_targets, run_batch, run_targets
from ctxviewer.engine.runs.pipeline import assemble
from tests.factories import make_project, write

TASKS = [{"id": f"T{n}", "title": f"Login session {n}", "files": {"create": ["src/app.py"]}} for n in range(3)]


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = make_project(tmp_path, TASKS, requirements="Login flow.\n\nSession store.", design="Login screen.")
    write(root, ".gsd/specs/broken/task-graph.json", '{"tasks": [')
    return root


def test_every_task_in_order_as_the_engine_assembles_it(root: Path) -> None:
    project = load_project(root)
    seen: list[tuple[int, int]] = []
    rows = list(run_batch(project, "feat", exact=False, on_row=lambda n, total: seen.append((n, total))))
    assert [r.task.id for r in rows] == ["T0", "T1", "T2"] and seen == [(1, 3), (2, 3), (3, 3)]
    for row in rows:
        assert row.error == "" and row.trace == assemble(project, "feat", row.task.id, exact=False)


def test_each_task_reports_its_own_stages_as_a_single_run_does(root: Path) -> None:
    """The progress given reaches every task's run: the window's pass waits in it mid-task."""
    project = load_project(root)
    alone: list[str] = []
    assemble(project, "feat", "T0", exact=False, progress=lambda stage, _f: alone.append(stage))
    assert len(alone) >= 3  # start, the sections, ... (the profile's own stages)
    seen: list[tuple[str, str]] = []
    current = [""]  # the last row handed out when the stage was reported
    rows = run_targets(
        project,
        batch_targets(project, "feat"),
        exact=False,
        progress=lambda stage, _f: seen.append((current[0], stage)),
    )
    for row in rows:
        current[0] = f"after {row.task.id}"
    # Rows come when their task is done: every stage seen before T0's row was T0's, and so on.
    assert [stage for when, stage in seen if when == ""] == alone
    assert [stage for when, stage in seen if when == "after T0"] == alone
    assert [stage for when, stage in seen if when == "after T1"] == alone
    assert len(seen) == 3 * len(alone)


def test_a_broken_feature_raises_before_any_row(root: Path) -> None:
    with pytest.raises(ProjectError, match="invalid JSON"):
        next(run_batch(load_project(root), exact=False))


def test_collecting_errors_skips_broken_features_and_keeps_going(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = batch.assemble_task

    def refuse_t1(project, feature, task, settings=None, **kw):  # type: ignore[no-untyped-def]
        if task.id == "T1":
            raise CtxViewerError("refused for the test", "x.json", 3)
        return real(project, feature, task, settings, **kw)

    monkeypatch.setattr(batch, "assemble_task", refuse_t1)
    rows = list(run_batch(load_project(root), exact=False, collect_errors=True))
    assert [(r.task.id, r.trace is None, r.error) for r in rows] == [
        ("T0", False, ""),
        ("T1", True, "x.json:3: refused for the test"),
        ("T2", False, ""),
    ]
    with pytest.raises(CtxViewerError):
        list(run_batch(load_project(root), "feat", exact=False))


def test_cancelling_stops_even_when_collecting(root: Path) -> None:
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(Cancelled):
        list(run_batch(load_project(root), "feat", exact=False, cancel=cancel, collect_errors=True))


def test_the_batch_pass_cache_stays_inside_the_batch(tmp_path: Path) -> None:
    from ctxviewer.engine.files import reading

    tasks = [{"id": "T1", "title": "Ledger", "files": {"create": ["a.py"]}}, {"id": "T2", "title": "Audit"}]
    project = load_project(make_project(tmp_path, tasks, requirements="Ledger entries.\n\nAudit trail.\n"))
    rows = run_batch(project, exact=False)
    first = next(rows)
    assert first.trace is not None
    # Between rows the consumer runs without the batch's cache: it sees the disk as it is.
    assert reading._PASS.get() is None
    assert [r.task.id for r in rows] == ["T2"]


@pytest.mark.parametrize("total", [0, 1, 5, 7, 12])
@pytest.mark.parametrize("n", [1, 2, 3, 5, 8])
def test_shards_are_contiguous_near_equal_runs_that_join_into_the_whole(total: int, n: int) -> None:
    targets = list(range(total))
    shards = [batch.shard_of(targets, (k, n)) for k in range(1, n + 1)]
    assert [t for shard in shards for t in shard] == targets  # each once, in order
    # Each shard holds total / n tasks, rounded down or up.
    assert {len(s) for s in shards} <= {total // n, -(-total // n)}


def test_seven_tasks_in_three_shards_are_two_two_three() -> None:
    # k-th shard: targets[(k-1)*7//3 : k*7//3] = [0:2], [2:4], [4:7].
    assert [batch.shard_of("abcdefg", (k, 3)) for k in (1, 2, 3)] == [["a", "b"], ["c", "d"], ["e", "f", "g"]]
    with pytest.raises(ValueError):
        batch.shard_of("abc", (4, 3))


def test_a_shard_of_the_batch_is_its_run_of_tasks(root: Path) -> None:
    project = load_project(root)
    with pytest.raises(ProjectError):  # the broken feature fails every shard, not only its own
        batch.batch_targets(project, None, (1, 2))
    ids = [t.id for _, t in batch.batch_targets(project, "feat", (2, 2))]
    assert ids == ["T1", "T2"]  # 3 tasks in 2 shards: [0:1], [1:3]
    assert [r.task.id for r in run_batch(project, "feat", exact=False, shard=(1, 2))] == ["T0"]
