"""A fleet snapshot as text for a terminal: the header, a line per worker, the gauge."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxviewer.engine.exports.fleet_text import ago, gauge, render_fleet_text, worker_line
from ctxviewer.engine.runfiles.fleet import RunWatcher
from ctxviewer.engine.runfiles.rundir import discover_run
from tests.engine.runfiles.fleet_project import at, write_fleet_project

pytestmark = pytest.mark.usefixtures("utc_local_time")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return write_fleet_project(tmp_path)


def test_the_text(project: Path) -> None:
    snapshot = RunWatcher(discover_run(project)).poll(now=at(12, 40))
    text = render_fleet_text(snapshot)
    first, w1, w2, w3, w4, end = text.split("\n")
    assert first == f"run {project.resolve()}: 4 workers, threshold 80% (.zerg/config.yaml), 12 log lines, 0 problems"
    # 0.78 of 20 cells: 16 filled; the threshold's | at cell 16 of 0-19.
    assert w1 == (
        "W1   checkpointing  [################|...]  78.0% / 80%  compaction  yellow  -               3 done"
        "  est   2.0%  log 10m ago   hb -"
    )
    # 0.9 of 20 cells: 18 filled, the 17th of them the threshold's |.
    assert w2.startswith("W2   running        [################|#..]  90.0% / 80%  checkpoint  red     T5  ")
    assert w3.startswith("W3   crashed        [                |   ]    n/a / 80%  -           -       -   ")
    assert w4.startswith("W4   (log only)") and end == ""
    coloured = worker_line(snapshot.workers[1], snapshot.taken_at, color=True)
    assert "\x1b[31m[################|#..]\x1b[0m" in coloured


def test_gauge_and_ago() -> None:
    assert gauge(0.5, 70, cells=10) == "[#####..|..]"
    assert gauge(1.4, 70, cells=10) == "[#######|##]"
    assert gauge(None, 100, cells=4) == "[   |]"
    assert gauge(1e308, 50, cells=4) == "[##|#]"  # recorded far past 1: a full gauge, no overflow
    assert [ago(None, 100), ago(95, 100), ago(100 - 180, 100), ago(100 - 7200, 100), ago(200, 100)] == [
        "-",
        "5s ago",
        "3m ago",
        "2h ago",
        "in 1m",
    ]
