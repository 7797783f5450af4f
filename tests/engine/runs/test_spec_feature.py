"""The ``spec_feature`` setting: a task's spec from its graph's folder (default) or from the
folder its graph's ``feature`` value names, as upstream's orchestrator passes it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ctxviewer.engine.analysis.findings import findings_of
from ctxviewer.engine.errors import SettingsError
from ctxviewer.engine.project.loading import load_project
from ctxviewer.engine.runs.pipeline import assemble
from ctxviewer.engine.trace.model import NOT_CANDIDATE, SPEC_PARAGRAPH
from tests.factories import write

# Keywords: title "Session expiry" -> session, expiry; description "Expire the session" ->
# expire, session; a.py's stem "a" is too short.  Each spec below is one paragraph holding
# "session": score 1, kept whole under the seed's "## Relevant Requirements" heading.
TASK = {"id": "T1", "title": "Session expiry", "description": "Expire the session", "files": {"create": ["a.py"]}}
FOLDER = "The session in the folder of the graph."
RENAMED = "The session of the renamed feature."
TOP = "The session at the top of the specs folder."


def _project(tmp_path: Path, value: Any, yaml: str | None = None) -> Path:
    root = tmp_path / "p"
    graph: dict[str, Any] = {"tasks": [TASK]}
    if value is not _NONE:
        graph["feature"] = value
    write(root, ".gsd/specs/feat/task-graph.json", json.dumps(graph))
    write(root, ".gsd/specs/feat/requirements.md", FOLDER)
    write(root, ".gsd/specs/old-name/requirements.md", RENAMED)
    write(root, ".gsd/specs/requirements.md", TOP)
    if yaml is not None:
        write(root, "ctxviewer.yaml", yaml)
    return root


_NONE = object()


def _run(root: Path, **overrides: Any) -> Any:
    return assemble(load_project(root), "feat", "T1", {"upstream": "2026-01-30", **overrides}, exact=False)


def test_the_folder_is_read_by_default_and_the_mismatch_says_how_to_read_the_graphs(tmp_path: Path) -> None:
    trace = _run(_project(tmp_path, "old-name"))
    assert trace.context == f"## Relevant Requirements\n\n{FOLDER}"
    assert trace.settings["spec_feature"].value == "folder" and trace.settings["spec_feature"].origin == "default"
    assert not any(w.startswith("spec_feature") for w in trace.warnings)
    (found,) = [f for f in findings_of(trace) if f.code == "feature-mismatch"]
    assert found.message.endswith("(ctxviewer reads the folder 'feat'; setting spec_feature: graph reads the graph's).")


def test_graph_reads_the_folder_the_graph_names_and_says_so(tmp_path: Path) -> None:
    trace = _run(_project(tmp_path, "old-name"), spec_feature="graph")
    assert trace.context == f"## Relevant Requirements\n\n{RENAMED}"
    assert (trace.feature, trace.graph_feature) == ("feat", "old-name")  # the task is still the folder's
    assert trace.settings["spec_feature"].value == "graph" and trace.settings["spec_feature"].origin == "override"
    assert (
        "spec_feature is graph: the spec is read from .gsd/specs/old-name, as the task graph names it "
        "(its feature value 'old-name'), not from the task graph's own folder .gsd/specs/feat"
    ) in trace.warnings
    (item,) = trace.items_of(SPEC_PARAGRAPH)
    assert item.source == ".gsd/specs/old-name/requirements.md"
    (found,) = [f for f in findings_of(trace) if f.code == "feature-mismatch"]
    assert found.message.endswith("(ctxviewer reads it too: setting spec_feature is graph).")


def test_a_graph_without_a_value_reads_the_specs_folder_itself(tmp_path: Path) -> None:
    # Upstream passes task_graph.get("feature", ""): the spec loader's folder is specs/ + "".
    trace = _run(_project(tmp_path, _NONE), spec_feature="graph")
    assert trace.context == f"## Relevant Requirements\n\n{TOP}"
    assert any("no feature value (upstream passes '', the specs folder itself)" in w for w in trace.warnings)
    assert [f for f in findings_of(trace) if f.code == "feature-mismatch"] == []


@pytest.mark.parametrize("profile", ["mahabharatha", "zerg-0.3.2", "drift", "ctxviewer"])
def test_a_value_that_is_not_text_names_no_folder(tmp_path: Path, profile: str) -> None:
    trace = _run(_project(tmp_path, 7), spec_feature="graph", profile=profile)
    assert "Relevant Requirements" not in trace.context and "The session" not in trace.context
    (error,) = [e for e in trace.errors if e.stage == "spec_excerpts"]
    assert error.kind == "pipeline"  # upstream's loader raises and leaves the section out: not bad input
    assert "the task graph's feature value 7 is not text" in error.message
    assert all(i.status == NOT_CANDIDATE for i in trace.items_of(SPEC_PARAGRAPH))


def test_a_value_naming_its_own_folder_changes_nothing(tmp_path: Path) -> None:
    root = _project(tmp_path, "feat")
    folder, graph = _run(root), _run(root, spec_feature="graph")
    assert graph.context == folder.context == f"## Relevant Requirements\n\n{FOLDER}"
    assert graph.warnings == folder.warnings


def test_the_setting_in_ctxviewer_yaml_and_bad_values(tmp_path: Path) -> None:
    root = _project(tmp_path, "old-name", yaml="spec_feature: graph\n")
    trace = _run(root)
    assert trace.context == f"## Relevant Requirements\n\n{RENAMED}"
    assert trace.settings["spec_feature"].origin == "ctxviewer.yaml"
    with pytest.raises(SettingsError, match=r"spec_feature: must be one of folder, graph, not 'tree'"):
        _run(root, spec_feature="tree")
