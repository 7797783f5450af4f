"""``batch --jobs``: ranges and process counts worked by hand, errors that cross processes whole."""

from __future__ import annotations

import pickle

from ctxviewer.engine.errors import ProjectError, SettingsError
from ctxviewer.engine.runs.parallel import effective_jobs, ranges


def test_ranges_keep_features_together_and_bounded() -> None:
    features = ["a"] * 5 + ["b"] * 2 + ["c"]
    # 8 targets, 1 job: ranges of at most ceil(8 / 4) = 2, never across a feature.
    assert ranges(features, 1) == [(0, 2), (2, 4), (4, 5), (5, 7), (7, 8)]
    # 2 jobs: at most ceil(8 / 8) = 1 each.
    assert ranges(features, 2) == [(n, n + 1) for n in range(8)]
    assert ranges([], 4) == []


def test_small_batches_stay_in_one_process() -> None:
    assert effective_jobs(8, 10) == 1
    assert effective_jobs(8, 41) == 2
    assert effective_jobs(2, 10_000) == 2
    assert effective_jobs(1, 10_000) == 1


def test_errors_cross_processes_whole() -> None:
    for error in (ProjectError("task graph is not JSON", "a/b.json", 3), SettingsError("bad budget")):
        back = pickle.loads(pickle.dumps(error))
        assert type(back) is type(error) and str(back) == str(error)
