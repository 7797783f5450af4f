"""Reading a project's YAML and JSON documents, and the files it looks for that cannot be followed.

* YAML is read with libyaml when PyYAML has it and with pure Python otherwise: the data is
  ``yaml.safe_load``'s, and the limits and the error messages are the same either way (every
  YAML test here runs both ways);
* a config file, task graph or feature folder that is there but cannot be followed (a
  symlink out of the project, a loop, not a regular file) is reported, never taken as absent;
* names made up for missing and duplicate task ids never take a real id.
"""

from __future__ import annotations

import datetime
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from ctxviewer.engine.errors import ProjectError, SettingsError
from ctxviewer.engine.files.reading import Problem, ProjectFS
from ctxviewer.engine.project import loading as project_mod
from ctxviewer.engine.project.loading import (
    MAX_YAML_BYTES,
    load_project,
    parse_json,
    parse_task_graph,
    parse_yaml,
    refresh_project,
)
from tests.factories import make_project, write

GRAPH = ".gsd/specs/feat/task-graph.json"
TASK = {"id": "T1", "title": "Login session", "files": {"create": ["src/app.py"]}}
HAS_LIBYAML = bool(getattr(yaml, "__with_libyaml__", False))


@pytest.fixture(params=["libyaml", "python"])
def backend(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Run the test with libyaml (skipped where PyYAML has none) and with pure Python."""
    if request.param == "libyaml":
        if not HAS_LIBYAML:
            pytest.skip("PyYAML is built without libyaml here")
        assert project_mod._CSafeLoader is not None
    else:
        monkeypatch.setattr(project_mod, "_CSafeLoader", None)
    yield request.param


def refusal(text: str) -> str:
    with pytest.raises(ProjectError) as info:
        parse_yaml(text, "doc.yaml")
    return str(info.value)


# -- the data is yaml.safe_load's --------------------------------------------------------------

SAFE_DOCS = {
    "empty": "",
    "comment-only": "# nothing\n",
    "scalars": "a: 1\nb: [1, 2.5, true, no, null, ~, 0x1F, 0o17, 1_000, .inf, -.inf, 1e3]\nc: '7'\nd: \"x\\ty\"\n",
    "merge-keys": "base: &b {x: 1, y: [a, b]}\nmerged:\n  <<: *b\n  y: z\nmany:\n  <<: [*b, {w: 2}]\n",
    "timestamps": "t: 2001-12-14t21:59:43.10-05:00\nday: 2002-12-14\n",
    "binary": "bin: !!binary aGVsbG8=\n",
    "set-omap-pairs": "s: !!set {a, b}\no: !!omap [a: 1, b: 2]\np: !!pairs [a: 1, a: 2]\n",
    "explicit-tags": "s: !!str 123\ni: !!int '42'\nf: !!float '1'\nn: !!null ''\nb: !!bool 'yes'\n",
    "block-scalars": "lit: |\n  two\n  lines\nfolded: >-\n  one\n  line\nplain: a\n  b\n",
    "shared-list": "- &a [1, 2]\n- *a\n- {k: *a}\n",
    "unicode": "name: caf\u00e9 \u2014 \U0001f600\n'quoted key': [\u00e9]\n",
    "bom": "\ufefftasks: []\n",
    "flow-and-block": "tasks:\n  - {id: T1, files: {create: [a.py, b.py]}}\n  - id: T2\n    files:\n"
    "      read:\n        - c.py\n",
    "document-markers": "%YAML 1.1\n---\na: 1\n...\n",
}


@pytest.mark.parametrize("text", list(SAFE_DOCS.values()), ids=list(SAFE_DOCS))
def test_the_data_is_what_yaml_safe_load_gives(backend: str, text: str) -> None:
    assert parse_yaml(text, "doc.yaml") == yaml.safe_load(text)


def test_values_keep_their_types(backend: str) -> None:
    data = parse_yaml(SAFE_DOCS["timestamps"] + SAFE_DOCS["binary"] + "n: 3\ns: '3'\n", "doc.yaml")
    assert isinstance(data["t"], datetime.datetime) and data["day"] == datetime.date(2002, 12, 14)
    assert data["bin"] == b"hello"
    assert (data["n"], data["s"]) == (3, "3")


def test_aliased_collections_are_shared_as_safe_load_shares_them(backend: str) -> None:
    data = parse_yaml(SAFE_DOCS["shared-list"], "doc.yaml")
    assert data[0] is data[1] is data[2]["k"]
    loop = parse_yaml("&a [1, *a]\n", "doc.yaml")  # a list that holds itself, as safe_load builds it
    assert loop[0] == 1 and loop[1] is loop


def test_a_tag_that_safe_load_refuses_is_refused(backend: str) -> None:
    assert refusal("x: !!python/object:os.system {}\n") == (
        "doc.yaml:1: invalid YAML: could not determine a constructor for the tag "
        "'tag:yaml.org,2002:python/object:os.system'"
    )


# -- the same limits and messages with or without libyaml ----------------------------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[" * 101 + "]" * 101, "doc.yaml: invalid YAML: nested deeper than 100 levels (line 1)"),
        # a value inside 100 collections is the 101st level
        ("[" * 100 + "x" + "]" * 100, "doc.yaml: invalid YAML: nested deeper than 100 levels (line 1)"),
        (
            "".join(" " * i + f"k{i}:\n" for i in range(101)),
            "doc.yaml: invalid YAML: nested deeper than 100 levels (line 100)",
        ),
        (
            "a: 1\n" + "b: " + "[" * 100_000 + "]" * 100_000 + "\n",
            "doc.yaml: invalid YAML: nested deeper than 100 levels (line 2)",
        ),
        (
            "z: &z 1\nmore:\n" + "".join("  - *z\n" for _ in range(1001)),
            "doc.yaml: invalid YAML: more than 1000 alias references (line 1003); refusing a possible alias bomb",
        ),
        (
            "top_k: 5\n---\ntop_k: 6\n",
            "doc.yaml:2: invalid YAML: expected a single document in the stream, but found another document",
        ),
        # a second document is the error, however deep it nests
        (
            "a: 1\n---\n" + "[" * 200 + "]" * 200 + "\n",
            "doc.yaml:2: invalid YAML: expected a single document in the stream, but found another document",
        ),
        ("a: *nowhere\n", "doc.yaml:1: invalid YAML: found undefined alias 'nowhere'"),
        ("a: [1, 2\nb: 3\n", "doc.yaml:2: invalid YAML: expected ',' or ']', but got ':'"),
        ("a: 'open\n", "doc.yaml:2: invalid YAML: found unexpected end of stream"),
        ("a: 1\n  b: 2\n", "doc.yaml:2: invalid YAML: mapping values are not allowed here"),
        ("? [a]\n: 1\n", "doc.yaml:1: invalid YAML: found unhashable key"),
        # PyYAML's own text spans two lines; the message is one, with the line
        (
            "a: 1\nb: x\x07y\n",
            "doc.yaml:2: invalid YAML: unacceptable character #x0007: special characters are not allowed",
        ),
        ("a: 1\x00\n", "doc.yaml:1: invalid YAML: unacceptable character #x0000: special characters are not allowed"),
    ],
    ids=[
        "101-levels",
        "value-at-level-101",
        "101-block-levels",
        "100000-levels",
        "1001-aliases",
        "two-documents",
        "a-deep-second-document",
        "undefined-alias",
        "unclosed-flow",
        "unclosed-quote",
        "bad-indent",
        "unhashable-key",
        "control-character",
        "nul",
    ],
)
def test_limits_and_errors_read_the_same_with_or_without_libyaml(backend: str, text: str, message: str) -> None:
    assert refusal(text) == message


def test_100_levels_with_a_value_at_the_bottom_of_99_are_read(backend: str) -> None:
    assert parse_yaml("[" * 99 + "x" + "]" * 99, "doc.yaml") is not None
    assert len(parse_yaml("z: &z x\nmore: [" + ", ".join(["*z"] * 999) + "]\n", "doc.yaml")["more"]) == 999


def test_only_aliases_count_towards_the_expansion_limit(backend: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(project_mod, "MAX_EXPANDED_NODES", 1000)
    assert len(parse_yaml("[" + ", ".join(["x"] * 5000) + "]", "doc.yaml")) == 5000  # written out: no bomb
    laughs = "a: &a [" + ", ".join(["x"] * 40) + "]\nb: [" + ", ".join(["*a"] * 40) + "]\n"  # 1,600 values
    assert refusal(laughs) == (
        "doc.yaml: invalid YAML: expands to more than 1,000 values through aliases; refusing a possible alias bomb"
    )


# -- JSON nests as YAML does: at most 100 levels, the top value being the first ----------------------


def test_json_nests_at_most_100_levels_counting_values_as_yaml_does() -> None:
    assert parse_json("[" * 100 + "]" * 100, "doc.json") is not None
    assert parse_json("[" * 99 + "1" + "]" * 99, "doc.json") is not None
    for text in ("[" * 101 + "]" * 101, "[" * 100 + "1" + "]" * 100):
        with pytest.raises(ProjectError) as info:
            parse_json(text, "doc.json")
        assert str(info.value) == "doc.json: nested deeper than 100 levels"
        with pytest.raises(ProjectError):
            parse_yaml(text, "doc.yaml")


# -- the YAML size limit ---------------------------------------------------------------------


def test_a_yaml_file_over_its_limit_is_refused_before_it_is_read(tmp_path: Path) -> None:
    root = make_project(tmp_path / "p", [TASK])
    os.unlink(root / GRAPH)
    path = root / ".gsd/specs/feat/task-graph.yaml"
    with open(path, "wb") as f:
        f.truncate(MAX_YAML_BYTES + 1)  # sparse: as parsed it would be refused for its NUL bytes
    error = load_project(root).feature("feat").graph_error
    assert str(error) == (
        ".gsd/specs/feat/task-graph.yaml: not read: 4,194,305 bytes is over the 4,194,304-byte limit for YAML files"
    )


def test_the_yaml_limit_is_yaml_only_and_bounds_every_yaml_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(project_mod, "MAX_YAML_BYTES", 40)
    root = make_project(tmp_path / "p", [TASK] + [{"id": f"T{i}"} for i in range(2, 10)])  # JSON over 40 bytes
    write(root, "ctxviewer.yaml", "top_k: 3\n" + "# padding\n" * 3)  # 39 bytes
    project = load_project(root)
    assert len(project.feature("feat").tasks) == 9 and project.settings.top_k == 3
    write(root, "ctxviewer.yaml", "top_k: 3\n" + "# padding\n" * 4)  # 49 bytes
    with pytest.raises(ProjectError) as info:
        load_project(root)
    assert str(info.value) == "ctxviewer.yaml: not read: 49 bytes is over the 40-byte limit for YAML files"


def test_a_yaml_file_that_grows_over_the_limit_while_it_is_read_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(project_mod, "MAX_YAML_BYTES", 40)
    root = make_project(tmp_path / "p", [TASK])
    write(root, "ctxviewer.yaml", "top_k: 3  # caf\u00e9 " + "x" * 40 + "\n")
    monkeypatch.setattr(ProjectFS, "file_size", lambda self, rel: 10)  # what the stat saw, just before
    with pytest.raises(ProjectError) as info:
        load_project(root)
    assert str(info.value) == "ctxviewer.yaml: not read: 59 bytes is over the 40-byte limit for YAML files"


# -- symlinks out of the project name the link ----------------------------------------------


@pytest.fixture
def layout(tmp_path: Path) -> Path:
    base = tmp_path.resolve()
    (base / "outside").mkdir()
    (base / "outside" / "secret.txt").write_text("SECRET")
    root = base / "proj"
    (root / "sub" / "deep").mkdir(parents=True)
    (root / "a.txt").write_text("A")
    os.symlink("../../../outside/secret.txt", root / "sub" / "deep" / "out")
    os.symlink("../outside", root / "rel_out")
    os.symlink("rel_out/secret.txt", root / "via")  # inside, then out through rel_out
    os.symlink("sub/../..", root / "up")
    os.symlink("a.txt", root / "in")
    os.symlink("nothing.txt", root / "dangling")
    os.symlink("self", root / "self")
    return root


@pytest.mark.parametrize(
    ("rel", "why"),
    [
        ("sub/deep/out", "symlink to ../../../outside/secret.txt outside the project"),
        ("rel_out/secret.txt", "symlink to ../outside outside the project"),
        ("via", "symlink to ../outside outside the project"),
        ("up/outside", "symlink to sub/../.. outside the project"),
        ("../outside/secret.txt", "goes above the project root ('..')"),
        ("sub/../../outside", "goes above the project root ('..')"),
        ("self", "symlink loop"),
    ],
)
def test_a_refused_path_says_why(layout: Path, rel: str, why: str) -> None:
    fs = ProjectFS(layout)
    result = fs.read_text(rel)
    assert (result.text, result.detail) == (None, f"not read: {why}")
    refused = fs.refusal(rel)
    assert refused is not None and refused.describe() == f"{rel}: not read: {why}"
    assert refused.problem is (Problem.LOOP if why == "symlink loop" else Problem.OUTSIDE)
    assert fs.present(rel)


@pytest.mark.parametrize(
    ("rel", "present"),
    [("a.txt", True), ("in", True), ("sub", True), ("no.txt", False), ("dangling", False), ("no/x", False)],
)
def test_present_is_false_only_where_nothing_is(layout: Path, rel: str, present: bool) -> None:
    fs = ProjectFS(layout)
    assert fs.refusal(rel) is None
    assert fs.present(rel) is present


# -- files a project looks for, there but not followed ---------------------------------------


def outside_project(tmp_path: Path) -> tuple[Path, Path]:
    base = tmp_path.resolve()
    outside = base / "outside"
    write(outside, "config.yaml", "workers:\n  context_threshold_percent: 12\n")
    write(outside, "feat/task-graph.json", json.dumps({"tasks": [TASK]}))
    return make_project(base / "p", [TASK]), outside


def test_a_system_config_folder_that_leaves_the_project_is_reported(tmp_path: Path) -> None:
    root, outside = outside_project(tmp_path)
    os.symlink(outside, root / ".mahabharatha")
    with pytest.raises(ProjectError) as info:
        load_project(root)
    assert str(info.value) == f".mahabharatha/config.yaml: not read: symlink to {outside} outside the project"


def test_a_ctxviewer_yaml_that_is_a_folder_is_reported(tmp_path: Path) -> None:
    root, _ = outside_project(tmp_path)
    (root / "ctxviewer.yaml").mkdir()
    with pytest.raises(ProjectError) as info:
        load_project(root)
    assert str(info.value) == "ctxviewer.yaml: is not a regular file"


def test_a_dangling_ctxviewer_yaml_inside_is_absent(tmp_path: Path) -> None:
    root, _ = outside_project(tmp_path)
    os.symlink("gone.yaml", root / "ctxviewer.yaml")
    assert load_project(root).ctxviewer_config is None


def test_paths_config_outside_names_where_it_was_set(tmp_path: Path) -> None:
    root, outside = outside_project(tmp_path)
    with pytest.raises(SettingsError) as info:
        load_project(root, {"paths.config": "../outside/config.yaml"})
    assert str(info.value) == "command line: paths.config: ../outside/config.yaml: goes above the project root ('..')"
    with pytest.raises(ProjectError) as missing:
        load_project(root, {"paths.config": "conf/none.yaml"})
    assert str(missing.value) == f"{root}: the system config conf/none.yaml does not exist"
    os.symlink(outside / "config.yaml", root / "linked.yaml")
    with pytest.raises(SettingsError) as linked:  # as paths.specs, rules and commands are
        load_project(root, {"paths.config": "linked.yaml"})
    assert str(linked.value) == (
        f"command line: paths.config: linked.yaml: symlink to {outside}/config.yaml outside the project"
    )


def test_a_default_path_that_leaves_the_project_names_no_origin(tmp_path: Path) -> None:
    root, outside = outside_project(tmp_path)
    (root / ".claude").mkdir(exist_ok=True)
    os.symlink(outside, root / ".claude/commands")
    with pytest.raises(SettingsError) as info:
        load_project(root)
    assert (info.value.path, str(info.value)) == (
        None,
        f"paths.commands: .claude/commands: symlink to {outside} outside the project",
    )


def test_the_first_task_graph_present_is_the_graph_even_unreadable(tmp_path: Path) -> None:
    root, outside = outside_project(tmp_path)
    os.unlink(root / GRAPH)
    os.symlink(outside / "feat/task-graph.json", root / GRAPH)
    write(root, ".gsd/specs/feat/task-graph.yaml", "tasks: [{id: T9}]\n")
    feature = load_project(root).feature("feat")
    assert (feature.graph_path, feature.tasks) == (GRAPH, ())
    assert (
        str(feature.graph_error) == f"{GRAPH}: not read: symlink to {outside}/feat/task-graph.json outside the project"
    )


def test_entries_of_the_specs_folder_that_are_no_feature_stay_silent(tmp_path: Path) -> None:
    root, _ = outside_project(tmp_path)
    write(root, ".gsd/specs/README.md", "notes\n")
    os.symlink("feat", root / ".gsd/specs/alias")  # inside: a feature like any other
    project = load_project(root)
    assert [f.name for f in project.features] == ["alias", "feat"] and project.warnings == ()


def test_refresh_notices_a_feature_link_that_changes_where_it_leads(tmp_path: Path) -> None:
    root, outside = outside_project(tmp_path)
    link = root / ".gsd/specs/away"
    os.symlink(outside / "feat", link)
    project = load_project(root)
    assert project.warnings == (f".gsd/specs/away: not read: symlink to {outside}/feat outside the project",)
    os.unlink(link)
    os.symlink("away", link)
    project, changed = refresh_project(project)
    assert changed == (".gsd/specs (features added or removed)",)
    assert project.warnings == (".gsd/specs/away: not read: symlink loop",)
    os.unlink(link)
    os.symlink("feat", link)
    project, changed = refresh_project(project)
    assert [f.name for f in project.features] == ["away", "feat"] and project.warnings == ()


def test_refresh_notices_a_graph_link_that_changes_where_it_leads(tmp_path: Path) -> None:
    root, outside = outside_project(tmp_path)
    os.unlink(root / GRAPH)
    os.symlink(outside / "feat/task-graph.json", root / GRAPH)
    project = load_project(root)
    os.unlink(root / GRAPH)
    os.symlink("task-graph.json", root / GRAPH)
    project, changed = refresh_project(project)
    assert changed == (GRAPH,)
    assert str(project.feature("feat").graph_error) == f"{GRAPH}: not read: symlink loop"


# -- made-up ids --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tasks", "ids", "notes"),
    [
        ([{"title": "A"}, {"id": "#1"}], ["#1~2", "#1"], ["g: tasks[0] has no id; shown as #1~2"]),
        (
            [{"id": "#2"}, {"id": "#2~2"}, {}],
            ["#2", "#2~2", "#3"],
            ["g: tasks[2] has no id; shown as #3"],
        ),
        (
            [{"id": "#2"}, {}, {"id": "#2~2"}],
            ["#2", "#2~3", "#2~2"],
            ["g: tasks[1] has no id; shown as #2~3"],
        ),
        (
            [{"id": "T"}, {"id": "T"}, {"id": "T~2"}, {"id": "T~3"}, {"id": "T"}],
            ["T", "T~4", "T~2", "T~3", "T~5"],
            [
                "g: duplicate task id 'T' at tasks[1]; shown as T~4",
                "g: duplicate task id 'T' at tasks[4]; shown as T~5",
            ],
        ),
        (
            [{"id": 7}, {"id": "7"}, {"id": "7~2"}],
            ["7", "7~3", "7~2"],
            ["g: duplicate task id '7' at tasks[1]; shown as 7~3"],
        ),
    ],
    ids=[
        "missing-id-number-taken-later",
        "missing-id-free",
        "missing-id-number-and-next-taken",
        "duplicates-around-real-ids",
        "ids-shown-as-json",
    ],
)
def test_made_up_ids_avoid_every_real_id(tasks: list[dict[str, Any]], ids: list[str], notes: list[str]) -> None:
    parsed, warnings = parse_task_graph({"tasks": tasks}, "g")
    assert [t.id for t in parsed] == ids
    assert list(warnings) == notes
    assert len(set(ids)) == len(ids)


@pytest.mark.skipif(not HAS_LIBYAML, reason="PyYAML is built without libyaml here")
def test_libyaml_reads_and_refuses_on_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    """The pure-Python loader is only asked for errors libyaml finds (to word them); never for the limits."""

    def not_here(text: str) -> None:
        raise AssertionError("the pure-Python loader was used")

    monkeypatch.setattr(project_mod, "_LimitedLoader", not_here)
    for text in SAFE_DOCS.values():
        assert parse_yaml(text, "doc.yaml") == yaml.safe_load(text)
    assert refusal("[" * 100_000 + "]" * 100_000).endswith("nested deeper than 100 levels (line 1)")
    assert refusal("z: &z 1\nmore: [" + ", ".join(["*z"] * 1001) + "]\n").endswith("refusing a possible alias bomb")
