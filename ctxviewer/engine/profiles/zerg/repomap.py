"""The repository symbol map of zerg-ai 0.3.2, rebuilt: which modules and symbols, and where the cut fell.

Which files are read, the symbols and edges taken from them, the query and the
formatting cut are in docs/profiles.md#zerg-032 (*Repository symbol map*); which Python
parses the sources (:func:`read_symbols`) in docs/profiles.md#python-sources-and-the-grammar;
what is kept between runs, and the query's index, in docs/architecture.md#what-is-parsed-once.
"""

from __future__ import annotations

import bisect
import os
import re
import sys
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any, NamedTuple

from ctxviewer.engine.files.reading import ProjectFS
from ctxviewer.engine.profiles.zerg import newer_python, pysymbols

if TYPE_CHECKING:
    from ctxviewer.engine.profiles.zerg.pysymbols import Symbols

HEADING = "## Repository Symbol Map\n"
SUFFIXES = (".py", ".js", ".jsx", ".ts", ".tsx")
SKIPPED_FOLDERS = frozenset({"node_modules", "__pycache__", "venv", ".venv", "dist", "build"})
KEYWORD_LIMIT = 10


@dataclass(frozen=True)
class Sym:
    """One symbol of a module as the map prints it."""

    name: str
    kind: str
    signature: str
    doc: str | None
    line: int

    @cached_property
    def entry(self) -> str:
        """The symbol's line in the map (made once: a symbol is kept with its file's parse)."""
        text = f"- `{self.signature}`"
        if self.doc:
            text += f" \u2014 {self.doc}"
        return text + "\n"


#: Why a source is not in the graph: ctxviewer could not read it; no Python parses it (upstream
#: skips it too); this Python cannot parse it and no newer one did, though upstream's may.
UNREAD, UNPARSED, NEWER = "unread", "unparsed", "newer"


@dataclass
class RepoGraph:
    """Every module with symbols, the edges between them, and the file each came from."""

    modules: dict[str, list[Sym]] = field(default_factory=dict)
    edges: list[tuple[str, str]] = field(default_factory=list)
    files: dict[str, str] = field(default_factory=dict)
    skipped: list[tuple[str, str, str]] = field(default_factory=list)  # (file, why, UNREAD/UNPARSED/NEWER)
    #: The newer Python that parsed what this one could not, and those files (empty: none did).
    parsed_by: str = ""
    #: Why no newer Python did, where one was needed; whether the setting named one that cannot serve.
    problem: str = ""
    problem_is_setting: bool = False
    #: The query's index of this graph, built on first use (see :class:`MapIndex`).
    index: MapIndex | None = field(default=None, compare=False, repr=False)


# -- finding the sources ---------------------------------------------------------------


def _entries(folder: str) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(folder) as it:
            return list(it)
    except OSError:
        return []


def _suffix(name: str) -> str:
    """``PurePosixPath(name).suffix``."""
    at = name.rfind(".")
    return name[at:] if 0 < at < len(name) - 1 else ""


def source_files(root: Path) -> list[tuple[str, str]]:
    """(lowercased suffix, relative path) of every source file, in upstream's bucket order."""
    # rglob("*") lists the root, then for each folder Path.walk visits (top-down,
    # not following links, children in directory order) the children it found.
    top = str(root)
    listing: list[str] = [""]
    listed: dict[str, list[os.DirEntry[str]]] = {}  # each folder scanned once
    stack: list[str] = [""]
    while stack:
        rel = stack.pop()
        children = []
        entries = listed[rel] = _entries(os.path.join(top, rel) if rel else top)
        for entry in entries:
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                is_dir = False
            if is_dir and not (entry.name in SKIPPED_FOLDERS or entry.name.startswith(".")):
                children.append(f"{rel}/{entry.name}" if rel else entry.name)
        listing.extend(children)
        stack.extend(reversed(children))
    buckets: dict[str, list[str]] = {}
    for rel in listing:
        for entry in listed[rel]:
            try:
                if not entry.is_file():
                    continue
            except OSError:
                continue
            suffix = _suffix(entry.name).lower()
            if suffix in SUFFIXES:
                buckets.setdefault(suffix, []).append(f"{rel}/{entry.name}" if rel else entry.name)
    out: list[tuple[str, str]] = []
    for suffix, files in buckets.items():
        out.extend((suffix, f) for f in sorted(files, key=lambda f: f.split("/")))
    return out


def module_key(rel: str) -> str:
    path = PurePosixPath(rel)
    return ".".join(path.with_suffix("").parts)


def _decode(data: bytes) -> str:
    text = data.decode("utf-8", errors="replace")
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


# -- Python ------------------------------------------------------------------------------


def python_symbols(source: str, filename: str, module: str) -> tuple[list[Sym], list[tuple[str, str]]] | None:
    """Symbols and edges of one Python file as this Python parses it; None when it does not parse."""
    return _as_syms(pysymbols.symbols(source, filename, module))


def _as_syms(found: Symbols | None) -> tuple[list[Sym], list[tuple[str, str]]] | None:
    if found is None:
        return None
    rows, edges = found
    return [Sym(*row) for row in rows], edges


# -- JavaScript / TypeScript ---------------------------------------------------------------

_M = re.MULTILINE | re.VERBOSE
_JS_FUNCTION = re.compile(r"^ (?:export\s+)? (?:default\s+)? (?:async\s+)? function\s+ (\w+) \s* (\([^)]*\))", _M)
_JS_ARROW = re.compile(
    r"^ (?:export\s+)? (?:const|let|var)\s+ (\w+) \s* (?::\s*[^=]+)? \s* = \s* (?:async\s+)?"
    r" \([^)]*\) \s* (?::\s*[^=]+)? \s* =>",
    _M,
)
_JS_CLASS = re.compile(
    r"^ (?:export\s+)? (?:default\s+)? (?:abstract\s+)? class\s+ (\w+)"
    r" (?:\s+extends\s+ (\w+))? (?:\s+implements\s+[\w,\s]+)?",
    _M,
)
_JS_INTERFACE = re.compile(r"^ (?:export\s+)? interface\s+ (\w+) (?:\s+extends\s+[\w,\s]+)?", _M)
_JS_TYPE = re.compile(r"^ (?:export\s+)? type\s+ (\w+) \s* (?:<[^>]+>)? \s* =", _M)
_JS_IMPORT = re.compile(r"""^import\s+ (?:type\s+)? (?: \{([^}]+)\} | (\w+) ) \s+from\s+ ['"] ([^'"]+) ['"]""", _M)
_JS_EXPORTED = re.compile(r"^export\s+ (?:const|let|var)\s+ (\w+) \s* (?::\s*([^=]+))? \s* =", _M)


def _jsdoc(lines: Sequence[str], index: int) -> str | None:
    """The comment just above 0-based line *index*, as upstream reads it."""
    if index <= 0 or index > len(lines):
        return None
    above = lines[index - 1].strip()
    if above.startswith("/**") and above.endswith("*/"):
        return above[3:-2].strip()
    if above != "*/":
        return None
    for i in range(index - 2, max(index - 10, -1), -1):
        opening = lines[i].strip()
        if not opening.startswith("/**"):
            continue
        rest = opening[3:].strip()
        if rest and rest != "*":
            return rest
        if i + 1 < index:
            following = lines[i + 1].strip().lstrip("* ").strip()
            if following and not following.startswith("@"):
                return following
        return None
    return None


def js_symbols(source: str) -> list[Sym]:
    lines = source.split("\n")
    syms: list[Sym] = []

    def line_of(m: re.Match[str]) -> int:
        return source.count("\n", 0, m.start()) + 1

    for m in _JS_FUNCTION.finditer(source):
        n = line_of(m)
        syms.append(Sym(m[1], "function", f"function {m[1]}{m[2]}", _jsdoc(lines, n - 1), n))
    for m in _JS_ARROW.finditer(source):
        if any(s.name == m[1] and s.kind == "function" for s in syms):
            continue
        syms.append(Sym(m[1], "function", f"const {m[1]} = (...) => ...", None, line_of(m)))
    for m in _JS_CLASS.finditer(source):
        n = line_of(m)
        signature = f"class {m[1]}" + (f" extends {m[2]}" if m[2] else "")
        syms.append(Sym(m[1], "class", signature, _jsdoc(lines, n - 1), n))
    for m in _JS_INTERFACE.finditer(source):
        syms.append(Sym(m[1], "class", f"interface {m[1]}", None, line_of(m)))
    for m in _JS_TYPE.finditer(source):
        syms.append(Sym(m[1], "variable", f"type {m[1]} = ...", None, line_of(m)))
    for m in _JS_IMPORT.finditer(source):
        named, default, origin = m[1], m[2], m[3]
        if named:
            for piece in named.split(","):
                name = piece.strip().split(" as ")[0].strip()
                if name and name != "type":
                    syms.append(Sym(name, "import", f"import {{ {name} }} from '{origin}'", None, line_of(m)))
        elif default:
            syms.append(Sym(default, "import", f"import {default} from '{origin}'", None, line_of(m)))
    for m in _JS_EXPORTED.finditer(source):
        if any(s.name == m[1] for s in syms):
            continue
        signature = f"export const {m[1]}" + (f": {m[2].strip()}" if m[2] else "")
        syms.append(Sym(m[1], "variable", signature, None, line_of(m)))
    return syms


# -- the graph ----------------------------------------------------------------------------------

Found = tuple[list[Sym], list[tuple[str, str]]]
_parsed: dict[tuple[str, bytes], Found | None] = {}
#: The last graph per project root and Python setting, with the (file, size, mtime, inode) list it was built from.
_graphs: dict[tuple[Path, str], tuple[tuple[tuple[str, int, int, int], ...], RepoGraph]] = {}
#: A lock per graph key, held while that graph is checked or built (see :func:`_current_graph`).
_building: dict[tuple[Path, str], threading.Lock] = {}
_building_lock = threading.Lock()


def _stat_list(root: Path, files: Sequence[tuple[str, str]]) -> tuple[tuple[str, int, int, int], ...]:
    top = str(root)
    out = []
    for _, rel in files:
        try:
            st = os.stat(os.path.join(top, rel))
        except OSError:
            out.append((rel, -1, -1, -1))
        else:
            out.append((rel, st.st_size, st.st_mtime_ns, st.st_ino))
    return tuple(out)


def build_graph(fs: ProjectFS, python: str = newer_python.AUTO) -> RepoGraph:
    """The symbol graph of the project's sources, as upstream builds it for the map.

    *python* is the ``python_for_sources`` setting (:mod:`.newer_python`).  Rebuilt only when
    the list of sources or one's size, mtime or inode changed, and checked once per pass over
    many tasks (:func:`~ctxviewer.engine.files.reading.one_pass`): a batch lists and reads the
    sources once (upstream keeps its graph for 30 seconds instead).
    """
    return fs.once_per_pass("repo_graph", python, lambda _: _current_graph(fs, python))


def _current_graph(fs: ProjectFS, python: str) -> RepoGraph:
    key = (fs.root, python)
    with _building_lock:
        building = _building.setdefault(key, threading.Lock())
    # One thread builds a project's graph at a time: a run that starts while another builds it
    # (a click during the window's background pass) waits and takes the graph built, instead of
    # parsing every source a second time while sharing the interpreter with the first.
    with building:
        files = source_files(fs.root)
        signature = _stat_list(fs.root, files)
        cached = _graphs.get(key)
        if cached is not None and cached[0] == signature:
            return cached[1]
        graph = _build(fs, files, python)
        if len(_graphs) > 8:
            _graphs.clear()
        _graphs[key] = (signature, graph)
        return graph


def clear_caches() -> None:
    """Forget every parsed source and graph (benchmarks start cold with this)."""
    _parsed.clear()
    _graphs.clear()


def _build(fs: ProjectFS, files: Sequence[tuple[str, str]], python: str) -> RepoGraph:
    graph = RepoGraph()
    sources: list[tuple[str, str, str, bytes]] = []
    for suffix, rel in files:
        data, failed = fs.read_bytes(rel)
        if data is None:
            graph.skipped.append((rel, failed.detail if failed is not None else "not read", UNREAD))
            continue
        sources.append((suffix, rel, module_key(rel), data))
    for (_, rel, module, _), found in zip(sources, read_symbols(fs.root, sources, python, graph), strict=True):
        if found is None:
            continue
        syms, edges = found
        if syms:
            graph.modules[module] = syms
            graph.files[module] = rel
        graph.edges.extend(edges)
    order = {rel: n for n, (_, rel) in enumerate(files)}
    graph.skipped.sort(key=lambda skip: order[skip[0]])
    return graph


def read_symbols(
    root: Path, sources: Sequence[tuple[str, str, str, bytes]], python: str, graph: RepoGraph
) -> list[Found | None]:
    """What the map takes from each (suffix, file, module, bytes) source: its symbols and edges,
    or None for a file it skips, which is recorded in *graph*'s ``skipped`` with why.

    Python is parsed here; below 3.12, the files that fail go to a newer Python in one
    subprocess (:func:`.newer_python.parse_elsewhere`), or, where there is none, those that
    fail on 3.12's syntax are recorded as such.
    """
    out: list[Found | None] = []
    failed: list[int] = []  # Python files that do not parse here
    for suffix, rel, module, data in sources:
        key = (module + "\0" + suffix, data)
        if key not in _parsed:
            if len(_parsed) > 4096:
                _parsed.clear()
            source = _decode(data)
            if suffix == ".py":
                _parsed[key] = python_symbols(source, str(root / rel), module)
            else:
                _parsed[key] = (js_symbols(source), [])
        found = _parsed[key]
        if found is None:
            failed.append(len(out))
        out.append(found)
    if not failed:
        return out
    here = f"{sys.version_info[0]}.{sys.version_info[1]}"
    why: dict[int, tuple[str, str]] = {}
    if newer_python.here_is_new_enough():
        why = dict.fromkeys(failed, ("does not parse as Python", UNPARSED))
    else:
        texts = [(_decode(sources[n][3]), str(root / sources[n][1]), sources[n][2]) for n in failed]
        elsewhere = newer_python.parse_elsewhere(texts, python)
        if elsewhere.python:
            for n, rows in zip(failed, elsewhere.results, strict=True):
                out[n] = _as_syms(rows)
                if rows is None:
                    why[n] = ("does not parse as Python", UNPARSED)
            parsed = [sources[n][1] for n in failed if n not in why]
            if parsed:
                more = f" and {len(parsed) - 3:,} more" if len(parsed) > 3 else ""
                graph.parsed_by = (
                    f"Python {elsewhere.version} ({elsewhere.python}) parsed what {here} cannot: "
                    + ", ".join(parsed[:3])
                    + more
                )
        else:
            graph.problem, graph.problem_is_setting = elsewhere.problem, elsewhere.setting_at_fault
            for n, (source, filename, _) in zip(failed, texts, strict=True):
                if newer_python.uses_newer_syntax(source, filename):
                    why[n] = (f"does not parse as Python {here}, which lacks syntax it uses (3.12's)", NEWER)
                else:
                    why[n] = (f"does not parse as Python ({here})", UNPARSED)
    for n in failed:
        if n in why:
            graph.skipped.append((sources[n][1], *why[n]))
    return out


# -- the query ----------------------------------------------------------------------------------


def description_keywords(description: str) -> list[str]:
    """The words the map matches with: the first ten longer than three characters, case kept."""
    return [w for w in description.split() if len(w) > 3][:KEYWORD_LIMIT]


def _matches_file(module: str, task_file: str) -> bool:
    as_path = module.replace(".", "/")
    normal = task_file.replace("\\", "/")
    stem = normal.rsplit(".", 1)[0] if "." in normal else normal
    return stem == as_path or stem.endswith("/" + as_path)


#: How a pick's symbols are made when first asked for: a function and its arguments.
Pending = tuple[Callable[..., list[tuple["Sym", tuple[str, ...]]]], tuple[Any, ...]]


class ModulePick:
    """One module the query chose, why, and which of its symbols the cut kept.

    ``symbols`` lists the chosen symbols, each with the keywords it contains (in line order
    once the query placed the module).  Most of a big map's modules are cut before their
    first symbol, so the query may give only their number and entries' total length and a
    way to list them (*pending*): the list is made the first time it is asked for.
    """

    __slots__ = ("_pending", "_symbols", "count", "entry_chars", "heading_placed", "module", "offset", "placed", "why")

    def __init__(
        self,
        module: str,
        why: str,
        symbols: list[tuple[Sym, tuple[str, ...]]] | None = None,
        heading_placed: bool = False,
        placed: int = 0,
        offset: int | None = None,
        *,
        entry_chars: int | None = None,
        count: int | None = None,
        pending: Pending | None = None,
    ) -> None:
        if (symbols is None) == (pending is None) or (pending is not None and (count is None or entry_chars is None)):
            raise ValueError("a pick needs its symbols, or a pending list with their number and total length")
        self.module = module
        self.why = why
        self._symbols = symbols
        self._pending = pending
        #: How many symbols it has (``len(symbols)``, known without listing them).
        self.count: int = len(symbols) if symbols is not None else count  # type: ignore[assignment]
        self.heading_placed = heading_placed
        self.placed = placed  # symbols placed, in line order
        self.offset = offset  # of the heading within the map
        #: Its symbols' entries' total length, where the query knew it (None: summed when asked).
        self.entry_chars = entry_chars

    @property
    def symbols(self) -> list[tuple[Sym, tuple[str, ...]]]:
        """(symbol, keywords it contains) for each chosen symbol."""
        if self._symbols is None:
            make, args = self._pending  # type: ignore[misc]
            self._symbols = make(*args)
            self._pending = None
        return self._symbols

    def _key(self) -> tuple[Any, ...]:
        return (self.module, self.why, self.symbols, self.heading_placed, self.placed, self.offset)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ModulePick):
            return NotImplemented
        return self._key() == other._key()

    __hash__ = None  # type: ignore[assignment]  # mutable, as the dataclass it was

    def __repr__(self) -> str:
        return (
            f"ModulePick(module={self.module!r}, why={self.why!r}, symbols={self.symbols!r}, "
            f"heading_placed={self.heading_placed!r}, placed={self.placed!r}, offset={self.offset!r})"
        )


@dataclass
class MapResult:
    text: str
    picks: list[ModulePick]
    limit: int
    unmatched: int  # modules with symbols that the query did not choose
    cut_at: int | None = None  # characters used when the first thing did not fit


@lru_cache(maxsize=1 << 16)
def module_heading(module: str) -> str:
    """A chosen module's heading in the map: one text object per module, in every task's map and
    item (so what is made once per text, such as an item's JSON, is found again)."""
    return f"\n### {module}\n"


def render_all(picks: Sequence[ModulePick]) -> str:
    """The map with every chosen module and symbol, as it would read without the limit."""
    out = [HEADING]
    for pick in picks:
        out.append(module_heading(pick.module))
        out.extend(sym.entry for sym, _ in sorted(pick.symbols, key=lambda pair: pair[0].line))
    return "".join(out) if picks else ""


def render_all_chars(picks: Sequence[ModulePick]) -> int:
    """The length of :func:`render_all`'s text, without writing it."""
    if not picks:
        return 0
    chars = len(HEADING)
    for pick in picks:
        chars += len(module_heading(pick.module))
        if pick.entry_chars is not None:
            chars += pick.entry_chars
        else:
            for sym, _ in pick.symbols:
                chars += len(sym.entry)
    return chars


def _kw_hits(sym: Sym, keywords: Iterable[str]) -> tuple[str, ...]:
    name, signature = sym.name.lower(), sym.signature.lower()
    return tuple(k for k in keywords if k in name or k in signature)


class KeywordHits(NamedTuple):
    """One keyword's symbols in one module: their positions in its list, each with that keyword,
    and their entries' total length."""

    positions: tuple[int, ...]
    pairs: tuple[tuple[Sym, tuple[str, ...]], ...]
    entry_chars: int
    position_set: frozenset[int]


class MapIndex:
    """A graph's symbols by the keywords they contain, its modules by path and its edges' modules,
    built once per graph.

    Every symbol's lowercased name and signature are laid end to end in one text, each piece
    after a newline; a keyword (never holding a newline) is found in that text once and its
    symbols kept for the graph's life, so a query looks up each keyword instead of matching it
    against every symbol.  :func:`query` gives the same result either way.
    """

    #: Keywords whose symbols are kept at most, per graph (then forgotten all at once).
    KEPT = 50_000

    def __init__(self, graph: RepoGraph) -> None:
        self.symbols: list[tuple[str, int]] = []  # (module, position in its list), in graph order
        self.by_path: dict[str, list[str]] = {}  # a module's dotted key as a path -> the modules
        pieces: list[str] = []
        self._starts: list[int] = []
        at = 0
        for module, syms in graph.modules.items():
            self.by_path.setdefault(module.replace(".", "/"), []).append(module)
            for n, sym in enumerate(syms):
                piece = sym.name.lower() + "\n" + sym.signature.lower()
                self.symbols.append((module, n))
                self._starts.append(at)
                pieces.append(piece)
                at += len(piece) + 1
        self._text = "\n".join(pieces)
        self._modules = graph.modules
        self._found: dict[str, dict[str, KeywordHits]] = {}
        #: Each module's symbols' entries' lengths, in its list's order, and their total.
        self.entry_lengths = {module: [len(sym.entry) for sym in syms] for module, syms in graph.modules.items()}
        self.entry_chars = {module: sum(lengths) for module, lengths in self.entry_lengths.items()}
        #: Each edge as (its source's module, its target's module, the words for a module it links).
        self.links: list[tuple[str, str, str]] = [
            (
                source.rsplit(".", 1)[0] if "." in source else source,
                target.rsplit(".", 1)[0] if "." in target else target,
                f"linked: {source} \u2192 {target}",
            )
            for source, target in graph.edges
        ]

    def containing(self, keyword: str) -> dict[str, KeywordHits]:
        """Per module (in graph order), its symbols whose lowercased name or signature contains
        *keyword* (lowercased, not empty, no newline)."""
        found = self._found.get(keyword)
        if found is None:
            at_module: dict[str, list[int]] = {}
            starts, text = self._starts, self._text
            at = text.find(keyword)
            while at >= 0:
                n = bisect.bisect_right(starts, at) - 1
                module, position = self.symbols[n]
                at_module.setdefault(module, []).append(position)
                at = text.find(keyword, starts[n + 1]) if n + 1 < len(starts) else -1
            found = {}
            for module, positions in at_module.items():
                syms, lengths = self._modules[module], self.entry_lengths[module]
                found[module] = KeywordHits(
                    tuple(positions),
                    tuple((syms[p], (keyword,)) for p in positions),
                    sum(lengths[p] for p in positions),
                    frozenset(positions),
                )
            if len(self._found) >= self.KEPT:
                self._found = {}
            self._found[keyword] = found
        return found

    def task_file_modules(self, task_files: Sequence[str]) -> dict[str, str]:
        """Each module a task file names (see :func:`_matches_file`), with the first such file."""
        out: dict[str, str] = {}
        for task_file in task_files:
            normal = task_file.replace("\\", "/")
            stem = normal.rsplit(".", 1)[0] if "." in normal else normal
            at = -1
            while True:
                for module in self.by_path.get(stem[at + 1 :], ()):
                    out.setdefault(module, task_file)
                at = stem.find("/", at + 1)
                if at < 0:
                    break
        return out


def index_of(graph: RepoGraph) -> MapIndex:
    """*graph*'s :class:`MapIndex`, built on first use."""
    if graph.index is None:
        graph.index = MapIndex(graph)
    return graph.index


def _choose_scan(graph: RepoGraph, task_files: Sequence[str], lowered: Sequence[str]) -> dict[str, ModulePick]:
    """The modules the query takes by task file or keyword, every keyword matched against every symbol."""
    picks: dict[str, ModulePick] = {}
    for module, syms in graph.modules.items():
        hit = next((f for f in task_files if _matches_file(module, f)), None)
        if hit is not None:
            picks[module] = ModulePick(module, f"it is task file {hit}", [(s, _kw_hits(s, lowered)) for s in syms])
            continue
        if lowered:
            chosen = [(s, h) for s in syms if (h := _kw_hits(s, lowered))]
            if chosen:
                words = sorted({k for _, h in chosen for k in h})
                picks[module] = ModulePick(module, "symbols contain " + ", ".join(repr(w) for w in words), chosen)
    return picks


def _choose_indexed(graph: RepoGraph, task_files: Sequence[str], lowered: Sequence[str]) -> dict[str, ModulePick]:
    """:func:`_choose_scan`'s modules and symbols, looked up in the graph's :class:`MapIndex`."""
    index = index_of(graph)
    hits_of = {keyword: index.containing(keyword) for keyword in lowered}
    per_module: dict[str, list[str]] = {}  # each module's keywords, sorted (as *lowered* is)
    get = per_module.get
    for keyword, by_module in hits_of.items():
        for module in by_module:
            words = get(module)
            if words is None:
                per_module[module] = [keyword]
            else:
                words.append(keyword)
    picks: dict[str, ModulePick] = {}
    for module, hit in index.task_file_modules(task_files).items():
        found = _merged((k, hits_of[k][module]) for k in per_module.get(module, ()))
        symbols = [(s, found.get(n, ())) for n, s in enumerate(graph.modules[module])]
        picks[module] = ModulePick(module, f"it is task file {hit}", symbols, entry_chars=index.entry_chars[module])
    quoted = {keyword: repr(keyword) for keyword in lowered}
    for module, keywords in per_module.items():
        if module in picks:
            continue
        if len(keywords) == 1:
            keyword = keywords[0]
            hits = hits_of[keyword][module]
            picks[module] = ModulePick(
                module, "symbols contain " + quoted[keyword], list(hits.pairs), entry_chars=hits.entry_chars
            )
            continue
        if len(keywords) == 2:
            first, second = keywords
            chosen = hits_of[first][module].position_set | hits_of[second][module].position_set
        else:
            chosen = frozenset().union(*[hits_of[keyword][module].position_set for keyword in keywords])
        picks[module] = ModulePick(
            module,
            "symbols contain " + ", ".join(map(quoted.__getitem__, keywords)),
            count=len(chosen),
            entry_chars=sum(map(index.entry_lengths[module].__getitem__, chosen)),
            pending=(_keyword_symbols, (graph.modules[module], keywords, hits_of, module)),
        )
    return picks


def _keyword_symbols(
    syms: Sequence[Sym], keywords: Sequence[str], hits_of: Mapping[str, Mapping[str, KeywordHits]], module: str
) -> list[tuple[Sym, tuple[str, ...]]]:
    """The symbols of *module* (its list *syms*) that *keywords* hit (*hits_of*: each keyword's
    hits by module), in list order, each with the keywords (in *keywords*' order) it contains."""
    found = _merged((keyword, hits_of[keyword][module]) for keyword in keywords)
    return [(syms[n], found[n]) for n in sorted(found)]


def _whole_module(syms: Sequence[Sym]) -> list[tuple[Sym, tuple[str, ...]]]:
    """Every symbol of a module, none with a keyword (a module taken for a link)."""
    return [(s, ()) for s in syms]


def _merged(by_keyword: Iterable[tuple[str, KeywordHits]]) -> dict[int, tuple[str, ...]]:
    """Each symbol position with the keywords (in the order given) it contains."""
    found: dict[int, list[str]] = {}
    for keyword, hits in by_keyword:
        for n in hits.positions:
            found.setdefault(n, []).append(keyword)
    return {n: tuple(words) for n, words in found.items()}


def query(graph: RepoGraph, task_files: Sequence[str], keywords: Sequence[str], max_chars: int) -> MapResult:
    """The map's text and, per chosen module, why it was chosen and what the cut kept.

    Modules are chosen through the graph's :class:`MapIndex`; task files that are not text, or
    keywords holding a newline, take the plain scan, which fails or matches as upstream's does.
    """
    lowered = sorted({k.lower() for k in keywords if k})
    plain = any(not isinstance(f, str) for f in task_files) or any("\n" in k for k in lowered)
    picks = (_choose_scan if plain else _choose_indexed)(graph, task_files, lowered)
    linked: dict[str, str] = {}
    for src, tgt, why in index_of(graph).links:
        if src in picks:
            linked.setdefault(tgt, why)
        if tgt in picks:
            linked.setdefault(src, why)
    for module, why in linked.items():
        if module in graph.modules and module not in picks:
            syms = graph.modules[module]
            picks[module] = ModulePick(
                module,
                why,
                count=len(syms),
                entry_chars=index_of(graph).entry_chars[module],
                pending=(_whole_module, (syms,)),
            )
    result = MapResult("", [picks[k] for k in sorted(picks)], max_chars, len(graph.modules) - len(picks))
    if not picks:
        return result
    out = [HEADING]
    used = len(HEADING)
    for pick in result.picks:
        heading = module_heading(pick.module)
        if used + len(heading) > max_chars:
            result.cut_at = used if result.cut_at is None else result.cut_at
            break
        pick.offset = used
        pick.heading_placed = True
        out.append(heading)
        used += len(heading)
        pick.symbols.sort(key=lambda pair: pair[0].line)
        for sym, _ in pick.symbols:
            entry = sym.entry
            if used + len(entry) > max_chars:
                result.cut_at = used if result.cut_at is None else result.cut_at
                break
            out.append(entry)
            used += len(entry)
            pick.placed += 1
    result.text = "".join(out)
    return result
