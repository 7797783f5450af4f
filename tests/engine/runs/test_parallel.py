"""``batch --jobs``: ranges and process counts worked by hand, errors that cross processes whole,
and a batch in worker processes giving what one process gives, up to the row that fails."""

from __future__ import annotations

import json
import os
import pickle
from pathlib import Path
from typing import Any

import pytest

from ctxviewer.engine.errors import ProjectError, SettingsError
from ctxviewer.engine.files.writing import ScratchPart, scratch_folder, take_scratch_part
from ctxviewer.engine.project.loading import load_project
from ctxviewer.engine.runs.parallel import effective_jobs, ranges, run_written
from tests.factories import write


def test_ranges_keep_features_together_and_shrink_towards_the_end() -> None:
    features = ["a"] * 5 + ["b"] * 2 + ["c"]
    # 1 job, 2 ranges per process: at most ceil(8 / 2) = 4 -> (0, 4); then 4 left -> at most
    # max(4, 2) = 4, cut where feature a ends -> (4, 5); b is (5, 7), c (7, 8).
    assert ranges(features, 1) == [(0, 4), (4, 5), (5, 7), (7, 8)]
    # One feature of 40, 2 jobs (4 ranges over what is left): 40 -> 10, 30 -> 8, 22 -> 6,
    # 16 -> 4, then never below 4 tasks.
    assert ranges(["a"] * 40, 2) == [(0, 10), (10, 18), (18, 24), (24, 28), (28, 32), (32, 36), (36, 40)]
    # Short features stay whole, each its own range.
    assert ranges(["a", "b", "b", "c"], 2) == [(0, 1), (1, 3), (3, 4)]
    assert ranges([], 4) == []


def test_small_batches_stay_in_one_process() -> None:
    # One process per 40 tasks, rounded up, where each starts afresh; per 24 where forked.
    assert effective_jobs(8, 10) == 1
    assert effective_jobs(8, 40) == 1
    assert effective_jobs(8, 41) == 2
    assert effective_jobs(8, 24, forked=True) == 1
    assert effective_jobs(8, 25, forked=True) == 2
    assert effective_jobs(8, 49, forked=True) == 3
    assert effective_jobs(2, 10_000) == 2
    assert effective_jobs(1, 10_000) == 1


def test_errors_cross_processes_whole() -> None:
    for error in (ProjectError("task graph is not JSON", "a/b.json", 3), SettingsError("bad budget")):
        back = pickle.loads(pickle.dumps(error))
        assert type(back) is type(error) and str(back) == str(error)


@pytest.mark.parametrize(("forked", "jobs"), [(True, 2), (False, 1)])
def test_a_batch_of_thirty_tasks_gets_two_processes_only_where_they_are_forked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, forked: bool, jobs: int
) -> None:
    from ctxviewer.engine.runs import parallel

    monkeypatch.setattr(parallel, "fork_is_safe", lambda: forked)
    root = many_tasks(tmp_path / "p", features=1, tasks=30)
    planned, targets, spans, _ = parallel._plan(load_project(root), None, None, 8)
    assert (planned, len(targets)) == (jobs, 30)
    # Two processes: ranges of at most ceil(30 / 4) = 8, then ceil(22 / 4) = 6, 4 (the least), 4, 4, 4.
    assert spans == ([(0, 8), (8, 14), (14, 18), (18, 22), (22, 26), (26, 30)] if jobs == 2 else [])


def many_tasks(root: Path, features: int = 3, tasks: int = 40) -> Path:
    """A project of *features* features of *tasks* tasks each (ids ``F<f>-<tt>``)."""
    write(root, ".claude/rules/security/_core/owasp-2025.md", "## Rule: Validate input\n**Level**: strict\n")
    for f in range(features):
        write(root, f".gsd/specs/feat-{f}/requirements.md", f"The ledger flow {f} keeps an audit record.\n")
        graph = {"tasks": [{"id": f"F{f}-{t:02d}", "title": f"Ledger {t}"} for t in range(tasks)]}
        write(root, f".gsd/specs/feat-{f}/task-graph.json", json.dumps(graph))
    return root


#: The task :func:`render_or_refuse` refuses: the 48th of 120, inside a range (8 into feature 1).
REFUSED = "F1-07"


def render_or_refuse(row: Any) -> tuple[str, list[str]]:
    """A row as ``feature/task``, a message for every task whose id ends in 3, and a refusal of
    :data:`REFUSED` (module-level: worker processes import it by name)."""
    if row.task.id == REFUSED:
        raise ProjectError("refused on purpose", row.task.id)
    return f"{row.feature.name}/{row.task.id}\n", [f"note {row.task.id}"] if row.task.id.endswith("3") else []


def _collect(root: Path, jobs: int) -> tuple[str, list[str], str, int]:
    """The batch's text, messages and error, and how many parts came from workers."""
    project = load_project(root)
    text: list[str] = []
    messages: list[str] = []
    error = ""
    parts = 0
    with scratch_folder() as folder:
        try:
            rows = run_written(project, None, render_or_refuse, folder, root=str(root), exact=False, jobs=jobs)
            for chunk, notes in rows:
                messages.extend(notes)
                if isinstance(chunk, ScratchPart):
                    parts += 1
                    text.append(b"".join(take_scratch_part(chunk)).decode("utf-8"))
                else:
                    text.append(chunk)
        except ProjectError as exc:
            error = str(exc)
        # Each part handed out is gone; the workers may have written ranges after the refusal
        # (they are removed with the folder).
        left = sorted(p.name for p in folder.iterdir())
        assert all(name > f"part-{parts - 1:06d}" for name in left)
    return "".join(text), messages, error, parts


def test_workers_give_the_rows_before_a_refused_task_then_its_error(tmp_path: Path) -> None:
    root = many_tasks(tmp_path / "p")
    assert effective_jobs(2, 120) == 2
    one_text, one_messages, one_error, _ = _collect(root, 1)
    two_text, two_messages, two_error, parts = _collect(root, 2)
    # Feature 0's 40 rows, then feature 1's F1-00 .. F1-06; then the refusal.
    expected = [f"feat-0/F0-{t:02d}" for t in range(40)] + [f"feat-1/F1-{t:02d}" for t in range(7)]
    assert one_text.splitlines() == expected
    assert one_messages == ["note F0-03", "note F0-13", "note F0-23", "note F0-33", "note F1-03"]
    assert one_error == "F1-07: refused on purpose"
    assert (two_text, two_messages, two_error) == (one_text, one_messages, one_error)
    assert parts >= 2  # the rows really came from worker processes, in more than one range


def render_with_pid(row: Any) -> tuple[str, list[str]]:
    """A row as ``feature/task pid`` (module-level: worker processes import it by name)."""
    return f"{row.feature.name}/{row.task.id} {os.getpid()}\n", []


def _rows_and_pids(root: Path, project: Any) -> tuple[list[str], set[str]]:
    lines: list[str] = []
    with scratch_folder() as folder:
        for chunk, _ in run_written(project, None, render_with_pid, folder, root=str(root), exact=False, jobs=2):
            assert isinstance(chunk, ScratchPart)
            lines.extend(b"".join(take_scratch_part(chunk)).decode("utf-8").splitlines())
    return [line.split()[0] for line in lines], {line.split()[1] for line in lines}


#: Run in a fresh interpreter (pytest's own process has threads of its own, a hang watchdog
#: among them): a batch from a single-threaded caller, whose workers must not load the project.
FORKED = """
import json, os, sys
from pathlib import Path
from ctxviewer.engine.project.loading import load_project
from ctxviewer.engine.runs import parallel
from tests.engine.runs.test_parallel import _rows_and_pids, many_tasks

root = many_tasks(Path(sys.argv[1]))
project = load_project(root)
safe = parallel.fork_is_safe()

def refuse(*_):  # a forked worker has the caller's project: it never loads one
    raise AssertionError("a forked worker loaded the project again")

parallel.load_project = refuse
rows, pids = _rows_and_pids(root, project)
print(json.dumps({"safe": safe, "rows": rows, "pids": sorted(pids), "me": str(os.getpid()), "left": parallel._worker}))
"""


def test_a_single_threaded_caller_forks_workers_that_keep_its_project(tmp_path: Path) -> None:
    import subprocess
    import sys

    from tests.conftest import REPO

    if not sys.platform.startswith("linux"):
        pytest.skip("workers are forked only on Linux")
    done = subprocess.run(
        [sys.executable, "-c", FORKED, str(tmp_path / "p")], cwd=REPO, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert seen["safe"] is True
    assert seen["rows"] == [f"feat-{f}/F{f}-{t:02d}" for f in range(3) for t in range(40)]
    # Workers did every row; whether both got a range depends on how soon the second started.
    assert 1 <= len(seen["pids"]) <= 2 and seen["me"] not in seen["pids"]
    assert seen["left"] == {}  # the caller keeps nothing of the batch


def test_a_caller_with_threads_starts_workers_in_a_server_and_they_load_the_project(tmp_path: Path) -> None:
    import threading

    from ctxviewer.engine.runs import parallel

    root = many_tasks(tmp_path / "p")
    project = load_project(root)
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)  # a thread (as in the window) could hold a lock
    other.start()
    try:
        assert not parallel.fork_is_safe()
        rows, pids = _rows_and_pids(root, project)
    finally:
        stop.set()
        other.join()
    assert rows == [f"feat-{f}/F{f}-{t:02d}" for f in range(3) for t in range(40)]
    # Workers did every row (a server's second worker can start after the first has taken
    # every range: on a slow host it did).
    assert 1 <= len(pids) <= 2 and str(os.getpid()) not in pids


UNKNOWN_THREAD = """
import _thread, json, threading
from ctxviewer.engine.runs import parallel

before = parallel.fork_is_safe()
hold = _thread.allocate_lock()
hold.acquire()
started = _thread.allocate_lock()
started.acquire()

def wait():  # as a library's own thread: the threading module never hears of it
    started.release()
    with hold:
        pass

_thread.start_new_thread(wait, ())
started.acquire()
print(json.dumps([before, threading.active_count(), parallel.fork_is_safe()]))
hold.release()
"""


def test_a_thread_the_threading_module_does_not_know_of_also_rules_out_forking() -> None:
    import subprocess
    import sys

    from tests.conftest import REPO

    if not sys.platform.startswith("linux"):
        pytest.skip("the kernel's thread count is read on Linux")
    done = subprocess.run([sys.executable, "-c", UNKNOWN_THREAD], cwd=REPO, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    # Safe before the thread starts; with it, one thread as far as threading knows, yet not safe.
    assert json.loads(done.stdout) == [True, 1, False]
