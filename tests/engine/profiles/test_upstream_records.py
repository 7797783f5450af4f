"""Against the real zerg-ai 0.3.2 (the oracle virtualenv of test_upstream_oracle): the token
records ``batch --format tokens`` writes, and the spec folder ``spec_feature: graph`` reads."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

from ctxviewer.engine.exports.tokens import record_of, token_records_json
from ctxviewer.engine.project.loading import load_project
from ctxviewer.engine.runs.pipeline import assemble_task
from tests.engine.profiles.test_upstream_oracle import SAMPLES, oracle, run_oracle  # noqa: F401
from tests.engine.profiles.upstream_oracle.generate import COMBOS, make_project
from tests.factories import write

_STAMP = re.compile(r'"timestamp": "(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00)"')


def _records_both_ways(python: str, root: Path, env: dict[str, str], ids: list[Any] | None = None) -> tuple[str, str]:
    """Every task of *root* built in order by the real plugin (its token file after the last)
    and by ctxviewer (``token_records_json`` of the traces), timestamps blanked in both."""
    project = load_project(root)
    settings = project.settings.with_overrides(
        {"profile": "zerg-0.3.2", **{k.lower(): v for k, v in env.items()}}, "test"
    )
    jobs, records = [], []
    for feature in project.features:
        for task in feature.tasks:
            trace = assemble_task(project, feature, task, settings, exact=False)
            record = record_of(trace, task.raw)
            if record is not None:
                records.append(record)
            job = {"root": str(root), "feature": feature.name, "task": dict(task.raw), "env": env}
            jobs.append({**job, "budget": settings.budget, "security_rule_filtering": settings.security_rule_filtering})
    theirs = run_oracle(python, jobs, "records")[-1]["file"]
    assert theirs is not None
    assert _STAMP.search(theirs)  # upstream's stamps: UTC, microseconds, +00:00
    mine = token_records_json(env.get("WORKER_ID", "unknown"), records, lambda: "2026-02-15T00:00:00.000000+00:00")
    return _STAMP.sub('"timestamp": "T"', mine), _STAMP.sub('"timestamp": "T"', theirs)


def test_generated_projects_record_what_the_real_plugin_records(oracle: str, tmp_path: Path) -> None:  # noqa: F811
    # Seven random projects of 40 tasks, each built with other switches: breakdowns in
    # upstream's order and names, compact mode counted before abbreviation, runs that fall
    # back (files not a mapping, an unreadable rule file) writing no record.
    compared = 0
    for seed in range(7):
        root = tmp_path / f"p{seed}"
        make_project(root, seed, 40)
        env = {k: v for k, v in COMBOS[seed * 37 % len(COMBOS)].items() if v is not None}
        env["WORKER_ID"] = str(seed)
        mine, theirs = _records_both_ways(oracle, root, env)
        assert mine == theirs
        compared += len(json.loads(theirs)["tasks"])
    assert compared > 200


def test_sample_projects_and_repeated_ids_record_the_same(oracle: str, tmp_path: Path) -> None:  # noqa: F811
    for sample in sorted(p for p in SAMPLES.iterdir() if p.is_dir()):
        root = tmp_path / sample.name
        shutil.copytree(sample, root, symlinks=True)
        mine, theirs = _records_both_ways(oracle, root, {"COMPACT_MODE": "1"})
        assert mine == theirs
    # The same id in two features, an id that is a number beside its text, and none at all:
    # upstream keys by id alone, re-reads its file (1 becomes "1") and says "unknown".
    root = tmp_path / "ids"
    tasks_a = [{"id": "T1", "title": "Session store", "files": {"create": ["a.py"]}}, {"title": "No id at all"}]
    tasks_b = [{"id": 1, "title": "Numbered"}, {"id": "1", "title": "Numbered as text"}, {"id": "T1", "title": "Again"}]
    write(root, ".gsd/specs/a/task-graph.json", json.dumps({"feature": "a", "tasks": tasks_a}))
    write(root, ".gsd/specs/b/task-graph.json", json.dumps({"feature": "b", "tasks": tasks_b}))
    write(root, ".gsd/specs/a/requirements.md", "The session store keeps sessions.")
    mine, theirs = _records_both_ways(oracle, root, {"WORKER_ID": "w"})
    assert mine == theirs
    assert list(json.loads(theirs)["tasks"]) == ["T1", "unknown", "1"]


def test_the_graph_feature_setting_reads_what_the_real_plugin_reads(oracle: str, tmp_path: Path) -> None:  # noqa: F811
    # One folder 'feat' whose graph names 'old-name' (a rename), a folder of that name with
    # another spec, a graph with no feature value (upstream passes "": the specs folder
    # itself), and one whose value is a number (upstream's loader raises: no spec section).
    task = {"id": "T1", "title": "Session expiry", "description": "Expire the session", "files": {"create": ["a.py"]}}
    cases = {"old-name": "old-name", "absent": None, "number": 7}
    jobs, mine = [], []
    for name, value in cases.items():
        root = tmp_path / name
        graph: dict[str, Any] = {"tasks": [task]}
        if value is not None:
            graph["feature"] = value
        write(root, ".gsd/specs/feat/task-graph.json", json.dumps(graph))
        write(root, ".gsd/specs/feat/requirements.md", "The session in the folder of the graph.")
        write(root, ".gsd/specs/old-name/requirements.md", "The session of the renamed feature.")
        write(root, ".gsd/specs/requirements.md", "The session at the top of the specs folder.")
        project = load_project(root)
        feature = project.feature("feat")
        settings = project.settings.with_overrides({"profile": "zerg-0.3.2", "spec_feature": "graph"}, "test")
        mine.append(assemble_task(project, feature, feature.tasks[0], settings, exact=False).context)
        jobs.append({"root": str(root), "feature": "" if value is None else value, "task": task, "env": {}})
    theirs = [r["context"] for r in run_oracle(oracle, jobs)]
    assert mine == theirs
    assert "The session of the renamed feature." in mine[0]
    assert "The session at the top of the specs folder." in mine[1]
    assert "## Relevant Requirements" not in mine[2]
