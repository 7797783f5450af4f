"""The repository map's sources: which parse, with which Python, and what a run says of the rest."""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import pytest

from ctxviewer.engine.analysis.findings import PYTHON_TOO_OLD, findings_of
from ctxviewer.engine.files.reading import ProjectFS
from ctxviewer.engine.profiles.zerg import newer_python, repomap
from ctxviewer.engine.project.loading import load_project
from ctxviewer.engine.runs.pipeline import assemble
from ctxviewer.engine.trace.model import NEWER_SYNTAX, Trace
from tests.factories import make_project, write

OLDER_311 = sys.version_info < (3, 12)
#: A generic function (PEP 695) whose name the task's description holds.
GENERIC = 'def loader_first[T](items: list[T]) -> T:\n    """The first."""\n    return items[0]\n'
BROKEN = "def broken(:\n    pass\n"


def _project(root: Path) -> Path:
    task = {"id": "T1", "title": "Loader", "description": "Refactor loader_first", "files": {"create": ["src/x.py"]}}
    make_project(root, [task])
    write(root, "src/gen.py", GENERIC)
    write(root, "src/broken.py", BROKEN)
    write(root, "src/ok.py", "LIMIT = 3\n")
    return root


def _run(root: Path, **settings: str) -> Trace:
    return assemble(load_project(root), "feat", "T1", {"profile": "zerg-0.3.2", **settings}, exact=False)


@pytest.fixture(autouse=True)
def _fresh_detection(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(newer_python, "_auto", [])


@pytest.fixture
def no_newer_python(monkeypatch: pytest.MonkeyPatch) -> None:
    if not OLDER_311:
        pytest.skip("this Python parses 3.12's syntax itself")
    monkeypatch.setattr(newer_python, "candidates", list)


def test_sources_of_3_12_syntax_are_in_the_map_and_a_broken_one_is_a_note(tmp_path: Path) -> None:
    if OLDER_311 and not newer_python.candidates():
        pytest.skip("no Python >= 3.12 on this machine (PATH, ~/.pyenv/versions)")
    trace = _run(_project(tmp_path))
    # "loader_first" (a description word over three letters) is in gen.py's function; the type
    # parameter is not printed, as upstream prints it.
    assert "### src.gen\n- `def loader_first(items: list[T]) -> T` \u2014 The first." in trace.context
    errors = [(e.kind, e.path, e.message, e.consequence) for e in trace.errors]
    assert errors == [
        (
            "pipeline",
            "src/broken.py",
            "does not parse as Python",
            "not in the symbol map, as upstream skips it",
        )
    ]
    notes = [w for w in trace.warnings if "parsed what" in w]
    assert len(notes) == (1 if OLDER_311 else 0)
    assert all(n.endswith("parsed what 3.11 cannot: src/gen.py") for n in notes)
    assert PYTHON_TOO_OLD not in {f.code for f in findings_of(trace)}


def test_without_a_newer_python_the_files_it_would_read_are_a_finding(tmp_path: Path, no_newer_python: None) -> None:
    trace = _run(_project(tmp_path))
    assert "loader_first" not in trace.context
    assert [(e.kind, e.path, e.consequence) for e in trace.errors] == [
        ("pipeline", "src/broken.py", "not in the symbol map, as upstream skips it"),
        ("pipeline", "src/gen.py", NEWER_SYNTAX),
        ("pipeline", None, "what this Python cannot parse is left out"),
    ]
    assert trace.errors[0].message == "does not parse as Python (3.11)"  # the file is its path
    assert trace.errors[1].message == "does not parse as Python 3.11, which lacks syntax it uses (3.12's)"
    assert trace.errors[0].one_line() == (
        "src/broken.py: does not parse as Python (3.11) (not in the symbol map, as upstream skips it)"
    )
    assert trace.errors[2].message.startswith("no Python 3.12 or newer found")
    [finding] = [f for f in findings_of(trace) if f.code == PYTHON_TOO_OLD]
    assert (finding.severity, finding.section) == ("warning", "repo_map")
    assert "src/gen.py uses syntax of Python 3.12 or newer" in finding.message
    assert "src/broken.py" not in finding.message


def test_a_setting_naming_a_python_that_cannot_serve_is_bad_input(tmp_path: Path) -> None:
    if not OLDER_311:
        pytest.skip("this Python parses 3.12's syntax itself: the setting is not used")
    trace = _run(_project(tmp_path), python_for_sources=str(tmp_path / "python3.12"))
    [bad] = [e for e in trace.errors if e.kind == "input"]
    assert bad.message == f"python_for_sources: cannot run {tmp_path / 'python3.12'} (No such file or directory)"
    assert trace.settings["python_for_sources"].value == str(tmp_path / "python3.12")


def test_the_setting_is_in_the_trace_only_where_set(tmp_path: Path) -> None:
    assert "python_for_sources" not in _run(_project(tmp_path)).settings


def test_the_graph_is_kept_per_python_setting(tmp_path: Path, no_newer_python: None) -> None:
    fs = ProjectFS(_project(tmp_path))
    first = repomap.build_graph(fs)
    assert repomap.build_graph(fs) is first
    other = repomap.build_graph(fs, "no-such-python")
    assert other is not first and other.problem_is_setting and not first.problem_is_setting
    assert [(rel, how) for rel, _, how in first.skipped] == [
        ("src/broken.py", repomap.UNPARSED),
        ("src/gen.py", repomap.NEWER),
    ]


def test_a_run_that_starts_while_another_builds_the_graph_takes_that_graph(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two threads asking for one project's graph at once build it once (a click during the
    window's background pass): the second waits for the first's graph."""
    write(tmp_path, "src/app.py", "def handler():\n    return 1\n")
    fs = ProjectFS(tmp_path)
    repomap.clear_caches()
    builds: list[str] = []
    second_built = threading.Event()
    second_asked = threading.Event()
    real_build = repomap._build

    def build(*args: object, **kwargs: object) -> repomap.RepoGraph:
        builds.append(threading.current_thread().name)
        if len(builds) == 1:
            second_asked.wait(5)
            # With the lock the second thread cannot get here while this build runs: waiting for
            # it to build only times out.  Without it, it builds at once and this returns early.
            second_built.wait(2)
        else:
            second_built.set()
        return real_build(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(repomap, "_build", build)
    graphs: dict[str, repomap.RepoGraph] = {}

    def ask(name: str) -> None:
        graphs[name] = repomap.build_graph(fs)

    first = threading.Thread(target=ask, args=("first",), name="first")
    first.start()
    while not builds:  # the first thread is building
        first.join(0.01)
    second = threading.Thread(target=ask, args=("second",), name="second")
    second.start()
    second_asked.set()
    first.join(10)
    second.join(10)
    assert builds == ["first"]
    assert graphs["second"] is graphs["first"] and "src.app" in graphs["first"].modules
