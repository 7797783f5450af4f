"""Sites: a finding's file and line (its item's own, else the task's line in the task graph), and
an identity that a line number or a paragraph's place never enters."""

from __future__ import annotations

import json
from pathlib import Path

from ctxviewer.engine.analysis.findings import findings_of
from ctxviewer.engine.exports.sites import Locator, base_path, task_line
from ctxviewer.engine.project.loading import load_project
from ctxviewer.engine.runs.batch import run_batch
from tests.factories import make_project

TASKS = [
    {"id": "T1", "title": "Login session", "files": {"create": ["src/app.py"]}},
    {"id": "T2", "title": "Other work", "files": {}},
]


def test_task_line_is_the_line_that_gives_the_task_its_id() -> None:
    graph = json.dumps({"feature": "f", "tasks": [{"id": "A"}, {"id": "B", "title": "id: A"}]}, indent=2)
    # indent=2: line 1 "{", 2 feature, 3 "tasks": [, 4 "{", 5 "id": "A", 6 "},", 7 "{", 8 "id": "B"
    assert (task_line(graph, "A"), task_line(graph, "B"), task_line(graph, "C")) == (5, 8, None)
    yaml_graph = "feature: f\ntasks:\n  - id: A\n    title: x\n  - id: 'B'\n"
    assert (task_line(yaml_graph, "A"), task_line(yaml_graph, "B")) == (3, 5)


def test_base_path_is_the_project_from_where_the_command_runs(tmp_path: Path) -> None:
    (tmp_path / "repo" / "proj").mkdir(parents=True)
    assert base_path(tmp_path / "repo" / "proj", tmp_path / "repo") == "proj"
    assert base_path(tmp_path / "repo", tmp_path / "repo") == ""
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    assert base_path(outside, tmp_path / "repo") == outside.resolve().as_posix()


def test_a_finding_sits_on_its_item_or_on_the_task_in_the_graph(tmp_path: Path) -> None:
    root = make_project(tmp_path / "proj", TASKS, requirements="Alpha login flow.\n\nBeta session store.")
    project = load_project(root)
    locator = Locator(project, cwd=tmp_path)
    rows = {row.task.id: row for row in run_batch(project, exact=False)}
    t2 = rows["T2"]
    assert t2.trace is not None
    findings = [f for f in findings_of(t2.trace) if f.code == "context-empty"]
    (site,) = locator.sites(t2.feature, t2.task, t2.trace, findings, frozenset({"context-empty"}))
    graph = (root / ".gsd/specs/feat/task-graph.json").read_text()
    # The graph is one line of JSON (make_project writes json.dumps without indent).
    assert (site.path, site.line, site.fails) == ("proj/.gsd/specs/feat/task-graph.json", 1, True)
    assert '"id": "T2"' in graph
    over = locator.task_site(t2.feature, t2.task, "over-limit", "too big", True)
    assert (over.path, over.line, over.severity) == ("proj/.gsd/specs/feat/task-graph.json", 1, "error")


def test_an_item_finding_names_the_spec_file_and_line_and_its_identity_ignores_the_line(tmp_path: Path) -> None:
    # tests/engine/analysis/test_findings.py works this tie by hand: at budget 120 both
    # paragraphs score 1 and only the first fits; the second (line 3) is the tie-by-order.
    first, second = "alpha " + "a" * 100, "alpha " + "b" * 100
    root = make_project(
        tmp_path / "proj", [{"id": "T", "title": "alpha", "files": {}}], requirements=f"{first}\n\n{second}"
    )
    project = load_project(root, {"budget": 120})
    (row,) = run_batch(project, exact=False)
    assert row.trace is not None
    ties = [f for f in findings_of(row.trace) if f.code == "tie-by-order"]
    (site,) = Locator(project, cwd=tmp_path).sites(row.feature, row.task, row.trace, ties)
    assert (site.path, site.line, site.fails) == ("proj/.gsd/specs/feat/requirements.md", 3, False)
    assert site.identity.split("\0") == [
        "tie-by-order",
        "feat",
        "T",
        "spec_paragraph",
        ".gsd/specs/feat/requirements.md",
        second,
    ]
