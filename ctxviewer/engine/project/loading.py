"""Loading a MAHABHARATHA/ZERG project: features, task graphs, configuration.

Loading never runs the pipeline; it reads the task graphs and configs only.  A feature whose
task graph is malformed is still listed, with the error attached, so one bad feature does not
hide the others; asking for its tasks raises that error.  The layout: docs/projects.md.
"""

from __future__ import annotations

import json
import os
import posixpath
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from itertools import pairwise
from pathlib import Path
from typing import Any

import yaml

from ctxviewer.engine.errors import (
    ProjectError,
    SettingsError,
    UnknownFeatureError,
    UnknownTaskError,
)
from ctxviewer.engine.files.reading import OutsideRootError, ProjectFS, ReadResult
from ctxviewer.engine.project.ids import match_id, no_match
from ctxviewer.engine.project.settings import (
    CTXVIEWER_YAML_KEYS,
    DEFAULT,
    Settings,
    apply_flat,
    check_profile_budget,
    flatten_ctxviewer_yaml,
    flatten_system_config,
)

TASK_GRAPH_NAMES = ("task-graph.json", "task-graph.yaml", "task-graph.yml")
SYSTEM_CONFIG_NAMES = (".mahabharatha/config.yaml", ".zerg/config.yaml")
CTXVIEWER_YAML = "ctxviewer.yaml"
#: Nesting deeper than this in a YAML or JSON document is refused.
MAX_DOCUMENT_DEPTH = 100
#: Alias references in one YAML document beyond this are refused.
MAX_YAML_ALIASES = 1_000
#: Nodes a YAML document may expand to once its aliases are followed ("billion laughs").
MAX_EXPANDED_NODES = 2_000_000
#: Largest YAML file read (a JSON file may be as large as any file, 64 MiB): PyYAML is slow,
#: so this keeps a load to seconds (docs/security.md#limits-hostile-input).
MAX_YAML_BYTES = 4 * 1024 * 1024


@dataclass(frozen=True)
class Task:
    """One task of a feature's task graph.

    ``raw`` is the task as loaded from the graph, never modified: the pipeline reads
    it exactly as the real system would, odd types included.
    """

    id: str
    title: str
    raw: Mapping[str, Any]
    index: int


@dataclass(frozen=True)
class Feature:
    """A folder under the specs folder: its spec files and its tasks."""

    name: str
    spec_dir: str
    graph_path: str | None
    tasks: tuple[Task, ...] = ()
    graph_error: ProjectError | None = None
    warnings: tuple[str, ...] = ()
    #: The task graph's own ``feature`` value as text (JSON for a value that is not text);
    #: None when the graph has none.  Upstream's orchestrator passes it to the plugin.
    graph_feature: str | None = None
    #: The spec folder the graph's ``feature`` value names, joined to the specs folder as
    #: upstream joins it (no value: upstream passes ``""``, the specs folder itself); None when
    #: the value is not text (upstream's spec loader raises on it).  Read with ``spec_feature: graph``.
    graph_spec_dir: str | None = None
    #: Why this feature's spec cannot be read at all (set on the copy a run reads, see
    #: :func:`ctxviewer.engine.runs.pipeline.spec_source`); None: read ``spec_dir``.
    spec_error: str | None = None

    @property
    def has_graph(self) -> bool:
        return self.graph_path is not None

    def task(self, task_id: str) -> Task:
        """The task *task_id* names, case ignored when only one id fits (see :mod:`.ids`)."""
        if self.graph_error is not None:
            raise self.graph_error
        ids = [t.id for t in self.tasks]
        found = match_id(task_id, ids)
        if found is None:
            raise UnknownTaskError(no_match(task_id, ids, "task", f"in feature {self.name!r}"), self.graph_path)
        return self.tasks[ids.index(found)]


@dataclass(frozen=True)
class Project:
    """A loaded project: where it is, its settings, its features."""

    root: Path
    fs: ProjectFS
    settings: Settings
    features: tuple[Feature, ...]
    system_config: str | None = None
    ctxviewer_config: str | None = None
    warnings: tuple[str, ...] = field(default_factory=tuple)
    #: What loading read, to tell later whether it changed on disk (see :func:`refresh_project`).
    sources: Mapping[str, Any] = field(default_factory=dict, compare=False)

    @property
    def name(self) -> str:
        return self.root.name

    def feature(self, name: str) -> Feature:
        """The feature *name* names, case ignored when only one name fits (see :mod:`.ids`)."""
        names = [f.name for f in self.features]
        found = match_id(name, names)
        if found is None:
            raise UnknownFeatureError(
                no_match(name, names, "feature", f"in {self.settings.paths.specs}"), str(self.root)
            )
        return self.features[names.index(found)]

    def tasks(self) -> list[tuple[Feature, Task]]:
        """Every (feature, task) of every feature with a readable task graph."""
        return [(f, t) for f in self.features for t in f.tasks]


# -- parsing helpers ---------------------------------------------------------------


class _Refused(yaml.YAMLError):
    """A YAML document over one of the limits: said as is, never re-parsed for another message."""


def _too_many_aliases(line: int) -> _Refused:
    return _Refused(f"more than {MAX_YAML_ALIASES} alias references (line {line}); refusing a possible alias bomb")


def _too_deep(line: int) -> _Refused:
    return _Refused(f"nested deeper than {MAX_DOCUMENT_DEPTH} levels (line {line})")


class _LimitedLoader(yaml.SafeLoader):
    """SafeLoader that refuses alias floods and absurd nesting (pure Python: the reference)."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self.aliases = 0
        self._depth = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            self.aliases += 1
            if self.aliases > MAX_YAML_ALIASES:
                mark = self.peek_event().start_mark  # type: ignore[no-untyped-call]  # untyped in types-PyYAML
                raise _too_many_aliases(mark.line + 1)
        self._depth += 1
        try:
            if self._depth > MAX_DOCUMENT_DEPTH:
                mark = self.peek_event().start_mark  # type: ignore[no-untyped-call]  # untyped in types-PyYAML
                raise _too_deep(mark.line + 1)
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


#: libyaml's parser and composer, when PyYAML was built with it (faster than pure Python).
_CSafeLoader: Any = getattr(yaml, "CSafeLoader", None) if getattr(yaml, "__with_libyaml__", False) else None


def _walk_events(parser: Any) -> int | None:
    """Check *parser*'s events against the limits, in the order :class:`_LimitedLoader` does.

    Returns the number of aliases; raises :class:`_Refused` past a limit and
    ``yaml.YAMLError`` on a stream the parser cannot read.
    """
    ev = yaml.events
    depth = aliases = 0
    while True:
        event = parser.get_event()
        kind = type(event)
        if kind is ev.ScalarEvent or kind is ev.AliasEvent:
            if kind is ev.AliasEvent:
                aliases += 1
                if aliases > MAX_YAML_ALIASES:
                    raise _too_many_aliases(event.start_mark.line + 1)
            if depth >= MAX_DOCUMENT_DEPTH:
                raise _too_deep(event.start_mark.line + 1)
        elif kind is ev.SequenceStartEvent or kind is ev.MappingStartEvent:
            depth += 1
            if depth > MAX_DOCUMENT_DEPTH:
                raise _too_deep(event.start_mark.line + 1)
        elif kind is ev.SequenceEndEvent or kind is ev.MappingEndEvent:
            depth -= 1
        elif kind is ev.DocumentEndEvent:
            # a second document is an error (the pure-Python loader words it)
            return aliases if type(parser.peek_event()) is ev.StreamEndEvent else None
        elif kind is ev.StreamEndEvent or event is None:
            return aliases


def _check_events(text: str) -> int | None:
    """Check *text*'s events against the limits with libyaml's parser, before anything is composed.

    libyaml's composer recurses in C without a bound (a document nested 100,000 levels
    deep crashes the process), so the nesting is checked here first, event by event, with
    the pure-Python loader's messages.  Returns the number of aliases, or None when the
    stream is not one well-formed document as libyaml reads it: the caller then lets the
    pure-Python loader say what is wrong, in its words.
    """
    parser = _CSafeLoader(text)
    try:
        return _walk_events(parser)
    except _Refused:
        raise
    except yaml.YAMLError as exc:
        if "nesting depth" not in str(exc):
            return None
    finally:
        parser.dispose()
    # libyaml 0.2.5+ (in PyYAML 6.0.4's wheels) refuses nesting past 1,000 levels in its
    # scanner, before the first event reaches us.  That is past our own limit, so the
    # document is refused either way; the pure-Python parser's events (no composing, so
    # no recursion) find the line where it first went past ours, for the same message.
    slow = yaml.SafeLoader(text)
    try:
        _walk_events(slow)
    finally:
        slow.dispose()
    raise _too_deep(1)  # not reached: the events went past the limit before libyaml's


_STR_TAG = "tag:yaml.org,2002:str"


class _Constructor(yaml.constructor.SafeConstructor):
    """``yaml.safe_load``'s constructor, with a shortcut for strings.

    A string scalar constructs to its value (``SafeConstructor.construct_yaml_str``); taken
    directly, it skips the bookkeeping meant for collections, which a task graph, mostly
    strings, would otherwise pay on every value.
    """

    def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
        if node.__class__ is yaml.ScalarNode and node.tag == _STR_TAG:
            return node.value
        return super().construct_object(node, deep)


def _compose(text: str) -> tuple[yaml.Node | None, int]:
    """The node graph of *text* and its number of aliases, composed within the limits.

    By libyaml when present, else by pure Python.  Whatever libyaml cannot read is
    composed again by the pure-Python loader, so an error is worded the same with or
    without libyaml (and the reference parser has the last word).
    """
    aliases = None if _CSafeLoader is None else _check_events(text)
    if aliases is not None:
        loader = _CSafeLoader(text)
        try:
            node: yaml.Node | None = loader.get_single_node()
            return node, aliases
        except yaml.YAMLError:
            pass
        finally:
            loader.dispose()
    slow = _LimitedLoader(text)
    try:
        return slow.get_single_node(), slow.aliases
    finally:
        slow.dispose()


def _load(text: str) -> Any:
    """``yaml.safe_load`` of *text* within the limits (see :func:`_compose`)."""
    node, aliases = _compose(text)
    data = None if node is None else _Constructor().construct_document(node)
    # Without aliases nothing is shared: the values are the ones written, no bomb.
    if aliases and _expanded_size(data, MAX_EXPANDED_NODES) > MAX_EXPANDED_NODES:
        raise _Refused(
            f"expands to more than {MAX_EXPANDED_NODES:,} values through aliases; refusing a possible alias bomb"
        )
    return data


def _yaml_message(exc: yaml.MarkedYAMLError) -> str:
    """PyYAML's problem in one line, with its context unless that only says where the parser
    was ("while parsing a block mapping"): "expected a single document in the stream, but
    found another document"."""
    problem = exc.problem or ""
    context = exc.context or ""
    if context and problem and not context.startswith("while "):
        return f"{context}, {problem}"
    return problem or context or "invalid YAML"


_SURROGATE = re.compile("[\ud800-\udfff]")
#: An escape of a UTF-16 surrogate: ``\ud800`` (JSON, YAML) or ``\U0000d800`` (YAML).
_SURROGATE_ESCAPE = re.compile(r"\\(?:u|U0000)([dD][89a-fA-F][0-9a-fA-F]{2})")


def _holds_surrogate(value: Any) -> bool:
    """Whether any string of *value* (keys too) holds a lone UTF-16 surrogate, which is not text."""
    stack = [value]
    seen: set[int] = set()
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            if _SURROGATE.search(node):
                return True
        elif isinstance(node, (Mapping, list)):
            if id(node) in seen:  # a YAML alias: its values are checked once
                continue
            seen.add(id(node))
            if isinstance(node, Mapping):
                stack.extend(node.keys())
                stack.extend(node.values())
            else:
                stack.extend(node)
    return False


def _refuse_surrogates(data: Any, text: str, rel: str, kind: str) -> None:
    """Raise :class:`ProjectError` when *data* holds a lone surrogate, naming the escape and its line.

    Such a string cannot be written as UTF-8: every output (JSON, a file, the terminal)
    would fail on it, so it is refused where it is read.  In JSON a high surrogate escape
    followed by a low one is one character (``\ud83d\ude00``); YAML has no such pairs.
    """
    if not _SURROGATE_ESCAPE.search(text) or not _holds_surrogate(data):
        return
    matches = list(_SURROGATE_ESCAPE.finditer(text))
    paired: set[int] = set()
    if kind == "JSON":
        for m, nxt in pairwise(matches):
            if m.group(1)[1] in "89abAB" and nxt.start() == m.end() and nxt.group(1)[1] in "cdefCDEF":
                paired.update((m.start(), nxt.start()))
    lone = next((m for m in matches if m.start() not in paired), None)
    if lone is None:  # the surrogate came another way (an escaped backslash in front): say it without a line
        raise ProjectError(f"invalid {kind}: a string holds half of a UTF-16 surrogate pair, not a character", rel)
    line = text.count("\n", 0, lone.start()) + 1
    column = lone.start() - (text.rfind("\n", 0, lone.start()) + 1) + 1
    raise ProjectError(
        f"invalid {kind}: {lone.group(0)} (column {column}) is half of a UTF-16 surrogate pair, not a character",
        rel,
        line,
    )


def parse_yaml(text: str, rel: str) -> Any:
    """``yaml.safe_load`` with limits; errors become :class:`ProjectError` with the line."""
    data = _parse_yaml(text, rel)
    _refuse_surrogates(data, text, rel, "YAML")
    return data


def _parse_yaml(text: str, rel: str) -> Any:
    try:
        return _load(text)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else None
        raise ProjectError(f"invalid YAML: {_yaml_message(exc)}", rel, line) from None
    except yaml.reader.ReaderError as exc:  # its str() spans two lines
        line = text.count("\n", 0, exc.position) + 1
        raise ProjectError(
            f"invalid YAML: unacceptable character #x{exc.character:04x}: {exc.reason}", rel, line
        ) from None
    except yaml.YAMLError as exc:
        raise ProjectError(f"invalid YAML: {exc}", rel) from None
    except RecursionError:
        raise ProjectError("invalid YAML: nested too deeply", rel) from None


def _expanded_size(value: Any, limit: int) -> int:
    """Number of values *value* expands to, following shared (aliased) nodes each time.

    Memoized by identity, so the walk is linear in the distinct nodes even when the
    expansion is exponential; it stops counting past *limit*.
    """
    memo: dict[int, int] = {}

    def size(node: Any, depth: int) -> int:
        key = id(node)
        if key in memo:
            return memo[key]
        total = 1
        if depth <= MAX_DOCUMENT_DEPTH:
            children: Any = ()
            if isinstance(node, Mapping):
                children = node.values()
            elif isinstance(node, list):
                children = node
            for child in children:
                total += size(child, depth + 1)
                if total > limit:
                    break
        if isinstance(node, (Mapping, list)):
            memo[key] = total
        return total

    return size(value, 0)


def _depth_ok(value: Any, limit: int) -> bool:
    """Whether *value* nests at most *limit* levels, counting as YAML does: the top value is level 1."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            return False
        if isinstance(node, Mapping):
            stack.extend((v, depth + 1) for v in node.values())
        elif isinstance(node, list):
            stack.extend((v, depth + 1) for v in node)
    return True


def parse_json(text: str, rel: str) -> Any:
    """``json.loads`` with errors as :class:`ProjectError` naming line and column."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ProjectError(f"invalid JSON: {exc.msg} (column {exc.colno})", rel, exc.lineno) from None
    except RecursionError:
        raise ProjectError("invalid JSON: nested too deeply", rel) from None
    if not _depth_ok(data, MAX_DOCUMENT_DEPTH):
        raise ProjectError(f"nested deeper than {MAX_DOCUMENT_DEPTH} levels", rel)
    _refuse_surrogates(data, text, rel, "JSON")
    return data


def read_document(fs: ProjectFS, rel: str) -> Any:
    """Read and parse a JSON or YAML project file, raising :class:`ProjectError`."""
    is_json = rel.endswith(".json")
    size = None if is_json else fs.file_size(rel)
    # Refused before it is read; over every file's limit, the read says so.
    if size is not None and MAX_YAML_BYTES < size <= fs.max_file_bytes:
        raise ProjectError(_yaml_too_large(size), rel)
    result: ReadResult = fs.read_text(rel)
    if result.text is None:
        raise ProjectError(result.detail, rel, result.line)
    if is_json:
        return parse_json(result.text, rel)
    if len(result.text) > MAX_YAML_BYTES:  # grew since (a character is never less than a byte)
        raise ProjectError(_yaml_too_large(len(result.text.encode("utf-8"))), rel)
    return parse_yaml(result.text, rel)


def _yaml_too_large(size: int) -> str:
    return f"not read: {size:,} bytes is over the {MAX_YAML_BYTES:,}-byte limit for YAML files"


# -- task graph --------------------------------------------------------------------


def _display(value: Any) -> str:
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    return json.dumps(value, ensure_ascii=False, default=str)


def parse_task_graph(data: Any, rel: str) -> tuple[tuple[Task, ...], tuple[str, ...]]:
    """Tasks of a task graph document, with warnings for entries that were skipped."""
    if not isinstance(data, Mapping):
        raise ProjectError("a task graph must be a mapping with a 'tasks' list", rel)
    raw_tasks = data.get("tasks")
    if raw_tasks is None:
        raise ProjectError("the task graph has no 'tasks' list", rel)
    if not isinstance(raw_tasks, list):
        raise ProjectError(f"'tasks' must be a list, not {type(raw_tasks).__name__}", rel)
    tasks: list[Task] = []
    warnings: list[str] = []
    # Every real id first: a name made up for a missing or duplicate id must not take one,
    # wherever in the graph the task that has it stands.
    real = {_display(raw.get("id")) for raw in raw_tasks if isinstance(raw, Mapping) and not _no_id(raw.get("id"))}
    taken: set[str] = set()

    def made_up(base: str) -> str:
        n = 2
        while f"{base}~{n}" in real or f"{base}~{n}" in taken:
            n += 1
        return f"{base}~{n}"

    for index, raw in enumerate(raw_tasks):
        if not isinstance(raw, Mapping):
            warnings.append(f"{rel}: tasks[{index}] is a {type(raw).__name__}, not a task; skipped")
            continue
        raw_id = raw.get("id")
        if _no_id(raw_id):
            task_id = f"#{index + 1}"
            if task_id in real or task_id in taken:
                task_id = made_up(task_id)
            warnings.append(f"{rel}: tasks[{index}] has no id; shown as {task_id}")
        else:
            task_id = _display(raw_id)
            if task_id in taken:
                shown = made_up(task_id)
                warnings.append(f"{rel}: duplicate task id {task_id!r} at tasks[{index}]; shown as {shown}")
                task_id = shown
        taken.add(task_id)
        tasks.append(Task(id=task_id, title=_display(raw.get("title")), raw=raw, index=index))
    return tuple(tasks), tuple(warnings)


def _no_id(raw_id: Any) -> bool:
    return raw_id is None or raw_id == ""


def is_text(name: str) -> bool:
    """Whether a file name is text: not undecodable bytes (kept by the OS as lone surrogates)."""
    return _SURROGATE.search(name) is None


def shown_name(name: str) -> str:
    """A file name as text, its undecodable bytes written ``\\xff``."""
    return os.fsencode(name).decode("utf-8", "backslashreplace") if not is_text(name) else name


def _undecodable_feature(specs_rel: str, name: str) -> Feature:
    """A feature folder whose name is not UTF-8: listed, with the error, never read."""
    shown = shown_name(name)
    error = ProjectError("the folder name is not valid UTF-8; rename it to read this feature", f"{specs_rel}/{shown}")
    return Feature(name=shown, spec_dir=f"{specs_rel}/{name}", graph_path=None, graph_error=error)


def _load_feature(fs: ProjectFS, specs_rel: str, name: str) -> Feature:
    spec_dir = f"{specs_rel}/{name}"
    # The first name present is the graph, even when it cannot be read (a symlink out of the
    # project, a loop, a named pipe, a folder): its error is shown, not skipped for the next name.
    graph_rel = next((f"{spec_dir}/{g}" for g in TASK_GRAPH_NAMES if fs.present(f"{spec_dir}/{g}")), None)
    if graph_rel is None:
        return Feature(name=name, spec_dir=spec_dir, graph_path=None)
    try:
        data = read_document(fs, graph_rel)
        tasks, warnings = parse_task_graph(data, graph_rel)
    except ProjectError as exc:
        return Feature(name=name, spec_dir=spec_dir, graph_path=graph_rel, graph_error=exc)
    value = data.get("feature", _ABSENT)
    shown = None if value is _ABSENT else value if isinstance(value, str) else json.dumps(value, default=str)
    named = "" if value is _ABSENT else value
    graph_dir = (posixpath.join(specs_rel, named).rstrip("/") or "/") if isinstance(named, str) else None
    return Feature(
        name=name,
        spec_dir=spec_dir,
        graph_path=graph_rel,
        tasks=tasks,
        warnings=warnings,
        graph_feature=shown,
        graph_spec_dir=graph_dir,
    )


_ABSENT = object()


# -- project -----------------------------------------------------------------------


def _apply_yaml(settings: Settings, values: Mapping[str, Any]) -> Settings:
    """:func:`apply_flat` for ctxviewer.yaml values, with errors naming the key as the file writes it."""
    try:
        return apply_flat(settings, values, CTXVIEWER_YAML, check=False)
    except SettingsError as exc:
        key, sep, rest = exc.message.partition(": ")
        if sep and key in _YAML_NAMES:
            raise SettingsError(f"{_YAML_NAMES[key]}: {rest}", exc.path, exc.line) from None
        raise


#: Flat setting -> its dotted name in ctxviewer.yaml (``spec_share`` -> ``budget.shares.spec_excerpts``).
_YAML_NAMES = {flat: ".".join(path) for path, flat in CTXVIEWER_YAML_KEYS.items()}


def load_project(
    path: str | os.PathLike[str],
    overrides: Mapping[str, Any] | None = None,
    override_origin: str = "command line",
) -> Project:
    """Load the project at *path*; raises :class:`ProjectError` for unusable input."""
    root = Path(path)
    if not root.exists():
        raise ProjectError("no such folder", str(path))
    if not root.is_dir():
        raise ProjectError("not a folder", str(path))
    fs = ProjectFS(root)
    settings = Settings()
    # Present but unreadable (a symlink out of the project, a loop, not a file) is an error,
    # not an absent file: the project would silently run on other settings than it says.
    ctx_cfg: str | None = CTXVIEWER_YAML if fs.present(CTXVIEWER_YAML) else None
    ctx_values: dict[str, Any] = {}
    if ctx_cfg:
        ctx_values = flatten_ctxviewer_yaml(read_document(fs, ctx_cfg), ctx_cfg)
    # Paths first: they say where the system config lives.
    path_values = {k: v for k, v in ctx_values.items() if k.startswith("paths.")}
    if path_values:
        settings = _apply_yaml(settings, path_values)
    if overrides:
        path_over = {k: v for k, v in overrides.items() if k.startswith("paths.")}
        if path_over:
            settings = apply_flat(settings, path_over, override_origin, check=False)

    sys_cfg: str | None
    if settings.paths.config is not None:
        _check_contained(fs, settings, "config")
        sys_cfg = settings.paths.config if fs.present(settings.paths.config) else None
        if sys_cfg is None:
            raise ProjectError(f"the system config {settings.paths.config} does not exist", str(root))
    else:
        sys_cfg = next((c for c in SYSTEM_CONFIG_NAMES if fs.present(c)), None)
    if sys_cfg:
        settings = apply_flat(
            settings, flatten_system_config(read_document(fs, sys_cfg), sys_cfg), sys_cfg, check=False
        )
    rest = {k: v for k, v in ctx_values.items() if not k.startswith("paths.")}
    if rest:
        settings = _apply_yaml(settings, rest)
    if overrides:
        rest_over = {k: v for k, v in overrides.items() if not k.startswith("paths.")}
        if rest_over:
            settings = apply_flat(settings, rest_over, override_origin, check=False)
    # The profile/budget combination once every layer is in (a later one may fix an earlier).
    check_profile_budget(settings, settings.origin("budget"))

    for key in ("specs", "rules", "commands"):
        _check_contained(fs, settings, key)

    warnings: list[str] = []
    specs_rel = settings.paths.specs
    if not fs.is_dir(specs_rel):
        warnings.append(f"{specs_rel}: no specs folder; the project has no features")
    for key in ("rules", "commands"):
        rel = getattr(settings.paths, key)
        if settings.origin(f"paths.{key}") != "default" and not fs.is_dir(rel):
            warnings.append(
                f"paths.{key} is {rel} ({settings.origin(f'paths.{key}')}), which is not a folder in the project"
            )
    features: list[Feature] = []
    for name in fs.list_dir(specs_rel):
        rel = f"{specs_rel}/{name}"
        if fs.is_dir(rel) and not is_text(name):
            features.append(_undecodable_feature(specs_rel, name))
        elif fs.is_dir(rel):
            features.append(_load_feature(fs, specs_rel, name))
        elif (refused := fs.refusal(rel)) is not None:
            # A feature folder that leaves the project (or loops) is named, not dropped unseen.
            warnings.append(refused.describe())
    for feature in features:
        warnings.extend(feature.warnings)
    return Project(
        root=fs.root,
        fs=fs,
        settings=settings,
        features=tuple(features),
        system_config=sys_cfg,
        ctxviewer_config=ctx_cfg,
        warnings=tuple(warnings),
        sources=_sources(fs, settings),
    )


def is_project(project: Project) -> bool:
    """Whether *project*'s folder is a project: it has its specs folder (``paths.specs``)."""
    return project.fs.is_dir(project.settings.paths.specs)


def require_project(project: Project, when: str = "") -> Project:
    """*project*, or :class:`ProjectError` when its folder is not a project (see :func:`is_project`).

    Every command refuses such a folder with this one line (docs/cli.md#exit-codes); *when*
    adds where it was looked at (`` at HEAD``).
    """
    if not is_project(project):
        specs = project.settings.paths.specs
        raise ProjectError(
            f"not a project{when}: no specs folder {specs}, where a project keeps its features "
            f"(paths.specs in ctxviewer.yaml names another)",
            str(project.root),
        )
    return project


def _check_contained(fs: ProjectFS, settings: Settings, key: str) -> None:
    """Raise :class:`SettingsError` when ``paths.<key>`` leaves the project, naming where it was set."""
    rel = getattr(settings.paths, key)
    try:
        fs.resolve(rel)
    except (OutsideRootError, OSError) as exc:
        origin = settings.origin(f"paths.{key}")
        # A default's origin is no file: the message then names only the setting.
        raise SettingsError(f"paths.{key}: {exc}", None if origin == DEFAULT else origin) from None


# -- noticing changes on disk ------------------------------------------------------


def _signature(fs: ProjectFS, rel: str) -> tuple[int, int, int] | str | None:
    st = fs.lstat(rel)
    if st is None:  # absent, or refused: then why (a symlink retargeted changes it)
        refused = fs.refusal(rel)
        return None if refused is None else refused.detail
    return (st.st_ino, st.st_size, st.st_mtime_ns)


def _config_names(settings: Settings) -> tuple[str, ...]:
    return (CTXVIEWER_YAML, *((settings.paths.config,) if settings.paths.config else SYSTEM_CONFIG_NAMES))


def _sources(fs: ProjectFS, settings: Settings) -> dict[str, Any]:
    """Signatures of what loading depends on: the configs, the feature list, each task graph."""
    specs = settings.paths.specs
    entries = fs.list_dir(specs)
    names = tuple(n for n in entries if fs.is_dir(f"{specs}/{n}"))
    out: dict[str, Any] = {rel: _signature(fs, rel) for rel in _config_names(settings)}
    # Feature folders, and the entries refused as feature folders (their warning may change).
    refused = tuple((n, r.detail) for n in entries if n not in names and (r := fs.refusal(f"{specs}/{n}")) is not None)
    out["features"] = (names, refused)
    for name in names:
        for graph in TASK_GRAPH_NAMES:
            rel = f"{specs}/{name}/{graph}"
            out[rel] = _signature(fs, rel)
    return out


def refresh_project(project: Project) -> tuple[Project, tuple[str, ...]]:
    """*project* brought up to date with the disk, redoing only what changed.

    Returns the project (the same object when nothing changed) and what changed.  A
    changed config or a feature folder added or removed reloads the whole project (the
    settings or the feature list depend on it); a changed task graph re-reads just that
    feature.  Spec and rule files need nothing here: runs read them through the
    project's file cache, which re-reads a file whose signature changed.
    """
    fs, settings = project.fs, project.settings
    now = _sources(fs, settings)
    old = project.sources
    if now == old:
        return project, ()
    configs = [rel for rel in _config_names(settings) if now.get(rel) != old.get(rel)]
    if configs or now.get("features") != old.get("features"):
        what = tuple(configs) or (f"{settings.paths.specs} (features added or removed)",)
        return load_project(project.root), what
    changed_graphs = {
        rel for rel in now if rel not in ("features", *_config_names(settings)) and now[rel] != old.get(rel)
    }
    features = []
    touched: list[str] = []
    for feature in project.features:
        folder = f"{settings.paths.specs}/{feature.name}/"
        if any(rel.startswith(folder) for rel in changed_graphs):
            features.append(_load_feature(fs, settings.paths.specs, feature.name))
            touched.append(feature.graph_path or f"{folder}task graph")
        else:
            features.append(feature)
    warnings = [w for w in project.warnings if not any(w in f.warnings for f in project.features)]
    for feature in features:
        warnings.extend(feature.warnings)
    return replace(project, features=tuple(features), warnings=tuple(warnings), sources=now), tuple(sorted(touched))
