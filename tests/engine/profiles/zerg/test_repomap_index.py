"""The repository map's query through its index against the plain scan, and the graph built once
per pass: the same modules, symbols, keywords and reasons on the samples, on generated projects
and on random graphs.  (Which Python parses the sources: test_repomap.py.)"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path, PurePosixPath
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxviewer.engine.files.reading import ProjectFS, one_pass
from ctxviewer.engine.profiles.zerg import repomap
from ctxviewer.engine.profiles.zerg.repomap import MapIndex, RepoGraph, Sym, _choose_indexed, _choose_scan, query
from ctxviewer.engine.project.loading import load_project
from tests.engine.profiles.upstream_oracle.generate import make_project as random_project

REPO = Path(__file__).resolve().parents[4]
SAMPLES = sorted(p for p in (REPO / "sample_projects").iterdir() if p.is_dir())


def _picked(picks: dict[str, repomap.ModulePick]) -> dict[str, tuple[str, list[tuple[Sym, tuple[str, ...]]]]]:
    return {module: (pick.why, list(pick.symbols)) for module, pick in picks.items()}


def _task_inputs(raw: dict[str, Any]) -> tuple[list[Any], list[str]]:
    files = raw.get("files")
    entries: list[Any] = []
    if isinstance(files, dict):
        for key in ("create", "modify"):
            value = files.get(key)
            if isinstance(value, list):
                entries.extend(value)
    description = raw.get("description", "")
    return entries, repomap.description_keywords(description if isinstance(description, str) else "")


def _assert_same_queries(root: Path) -> int:
    """Every task of *root*: the indexed choice equals the scan's, and so does the whole query."""
    project = load_project(root)
    graph = repomap.build_graph(ProjectFS(root))
    checked = 0
    for _, task in project.tasks():
        entries, keywords = _task_inputs(task.raw)
        files = [e for e in entries if isinstance(e, str)]
        lowered = sorted({k.lower() for k in keywords if k})
        assert _picked(_choose_indexed(graph, files, lowered)) == _picked(_choose_scan(graph, files, lowered))
        for limit in (400, 1600, 100_000):
            indexed = query(graph, files, keywords, limit)
            scanned = _query_by_scan(graph, files, keywords, limit)
            assert indexed == scanned
            assert repomap.render_all_chars(indexed.picks) == len(repomap.render_all(indexed.picks))
            _assert_counts(indexed.picks)
        checked += 1
    return checked


def _assert_counts(picks: Sequence[repomap.ModulePick]) -> None:
    """Each pick's number of symbols and their entries' length, known before its symbols are
    listed, are those of the list."""
    for pick in picks:
        count, chars = pick.count, pick.entry_chars
        assert count == len(pick.symbols)
        assert chars is None or chars == sum(len(sym.entry) for sym, _ in pick.symbols)


def _query_by_scan(graph: RepoGraph, files: Sequence[str], keywords: Sequence[str], limit: int) -> Any:
    """:func:`query` with the index taken away: a task file that is not text sends it to the scan."""

    class NotText:
        """Never matched by the scan's file test (its ``replace`` gives nothing a module path ends with)."""

        def replace(self, *_: str) -> str:
            return "\0"

    return query(graph, [*files, NotText()], keywords, limit)  # type: ignore[list-item]


@pytest.mark.parametrize("root", SAMPLES, ids=lambda p: p.name)
def test_the_index_chooses_as_the_scan_on_every_sample(root: Path) -> None:
    assert _assert_same_queries(root) > 0


@pytest.mark.parametrize("seed", [3, 11, 19, 27])
def test_the_index_chooses_as_the_scan_on_generated_projects(tmp_path: Path, seed: int) -> None:
    random_project(tmp_path / "p", seed, 40)
    assert _assert_same_queries(tmp_path / "p") == 40


def test_the_scan_in_tests_really_scans() -> None:
    """The reference above takes the plain scan: a task file that is not text there raises as upstream's does."""
    graph = RepoGraph(modules={"a": [Sym("f", "function", "def f()", None, 1)]})
    with pytest.raises(AttributeError):
        query(graph, [7], [], 1600)  # type: ignore[list-item]


def _sym(name: str, signature: str, line: int = 1) -> Sym:
    return Sym(name, "function", signature, None, line)


def test_containing_finds_a_keyword_in_a_name_or_a_signature_never_across_them() -> None:
    graph = RepoGraph(
        modules={
            "src.a": [_sym("LoadUser", "def LoadUser(id)"), _sym("save", "def save(user_id)")],
            "src.b": [_sym("ab", "cd"), _sym("x", "def x(a,\nb)")],
        }
    )
    index = MapIndex(graph)
    assert index.symbols == [("src.a", 0), ("src.a", 1), ("src.b", 0), ("src.b", 1)]

    def positions(keyword: str) -> dict[str, tuple[int, ...]]:
        return {module: hits.positions for module, hits in index.containing(keyword).items()}

    assert positions("user") == {"src.a": (0, 1)}  # the name of the first (lowercased), the signature of the second
    assert positions("bc") == {}  # "ab" + "cd" would hold it; name and signature are apart
    assert positions("a,") == {"src.b": (1,)}  # within a signature's line
    assert positions("load") == {"src.a": (0,)}
    assert positions("zzz") == {}
    save = graph.modules["src.a"][1]
    assert index.containing("user")["src.a"].pairs[1] == (save, ("user",))


def test_task_files_name_modules_by_their_path_or_a_slash_suffix_of_it() -> None:
    graph = RepoGraph(modules={m: [_sym("f", "def f()")] for m in ("ledger.db", "src.ledger.db", "db", "b")})
    index = MapIndex(graph)
    found = index.task_file_modules(["src/ledger/db.py", "other/db.ts", "ab.py"])
    # "ab" ends with "b" but not at a slash; "db" is a slash suffix of both paths, the first one named
    assert found == {"src.ledger.db": "src/ledger/db.py", "ledger.db": "src/ledger/db.py", "db": "src/ledger/db.py"}
    assert index.task_file_modules(["src\\ledger\\db"]) == dict.fromkeys(found, "src\\ledger\\db")  # no suffix


_TEXT = st.text(alphabet="abAB_/.\\ \n\u0130\u0131()", max_size=8)


@st.composite
def _graphs(draw: st.DrawFn) -> RepoGraph:
    modules: dict[str, list[Sym]] = {}
    for name in draw(st.lists(st.text(alphabet="ab./_", min_size=1, max_size=5), max_size=6, unique=True)):
        modules[name] = [
            Sym(draw(_TEXT), "function", draw(_TEXT), None, n)
            for n in range(draw(st.integers(min_value=1, max_value=4)))
        ]
    # An edge's target is a symbol of another module (which the map then takes by the link) or any text.
    targets = st.one_of(_TEXT, st.sampled_from(list(modules)).map(lambda m: m + ".x")) if modules else _TEXT
    edges = (
        [(draw(st.sampled_from(list(modules))), draw(targets)) for _ in range(draw(st.integers(0, 3)))]
        if modules
        else []
    )
    return RepoGraph(modules=modules, edges=edges)


@settings(max_examples=300, deadline=None)
@given(
    graph=_graphs(),
    files=st.lists(st.text(alphabet="ab./\\_", max_size=8), max_size=4),
    keywords=st.lists(st.text(alphabet="abAB_/.()\u0130\u0131", min_size=0, max_size=3), max_size=6),
    limit=st.integers(min_value=0, max_value=400),
)
def test_the_index_queries_as_the_scan_on_random_graphs(
    graph: RepoGraph, files: list[str], keywords: list[str], limit: int
) -> None:
    lowered = sorted({k.lower() for k in keywords if k})
    assert _picked(_choose_indexed(graph, files, lowered)) == _picked(_choose_scan(graph, files, lowered))
    indexed = query(graph, files, keywords, limit)
    scanned = _query_by_scan(graph, files, keywords, limit)
    assert indexed == scanned
    # The cut step's length before the cut, summed with and without what the index knew.
    for result in (indexed, scanned):
        _assert_counts(result.picks)
        assert repomap.render_all_chars(result.picks) == len(repomap.render_all(result.picks))


# -- the graph, once per pass ------------------------------------------------------------------------


def test_the_graph_is_checked_once_per_pass_and_each_time_outside_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "a.py").write_text("def first():\n    pass\n")
    fs = ProjectFS(tmp_path)
    listed: list[Path] = []
    real = repomap.source_files
    monkeypatch.setattr(repomap, "source_files", lambda root: listed.append(root) or real(root))
    ctx = one_pass()
    graphs = [ctx.run(repomap.build_graph, fs) for _ in range(3)]
    assert len(listed) == 1 and graphs[0] is graphs[1] is graphs[2]
    assert [s.name for s in graphs[0].modules["a"]] == ["first"]
    (tmp_path / "a.py").write_text("def second_one():\n    pass\n")  # a new size: outside a pass it is seen
    os.utime(tmp_path / "a.py", ns=(1, 1))
    assert [s.name for s in repomap.build_graph(fs).modules["a"]] == ["second_one"]
    assert [s.name for s in ctx.run(repomap.build_graph, fs).modules["a"]] == ["first"]  # the pass saw it before


@given(st.text(alphabet="a.Pé_ ", min_size=1, max_size=6).filter(lambda n: n not in (".", "..")))
def test_a_file_name_suffix_is_pathlib_s(name: str) -> None:
    assert repomap._suffix(name) == PurePosixPath(name).suffix
