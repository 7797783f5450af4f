"""Loading a MAHABHARATHA/ZERG project: features, task graphs, configuration.

A project is a folder laid out as the real system expects::

    .gsd/specs/<feature>/requirements.md | REQUIREMENTS.md
    .gsd/specs/<feature>/design.md | DESIGN.md | architecture.md | ARCHITECTURE.md
    .gsd/specs/<feature>/task-graph.json | task-graph.yaml | task-graph.yml
    .claude/rules/security/...        security rule files
    .claude/commands/**/*.md          command files
    .mahabharatha/config.yaml | .zerg/config.yaml
    ctxviewer.yaml                    optional ctxviewer overrides

Loading never runs the pipeline; it reads the task graphs and configs only.  A
feature whose task graph is malformed is still listed, with the error attached, so
one bad feature does not hide the others; asking for its tasks raises that error.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

from ctxviewer.engine.errors import (
    ProjectError,
    SettingsError,
    UnknownFeatureError,
    UnknownTaskError,
)
from ctxviewer.engine.fsio import ProjectFS, ReadResult
from ctxviewer.engine.settings import (
    CTXVIEWER_YAML_KEYS,
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

    @property
    def has_graph(self) -> bool:
        return self.graph_path is not None

    def task(self, task_id: str) -> Task:
        if self.graph_error is not None:
            raise self.graph_error
        for task in self.tasks:
            if task.id == task_id:
                return task
        known = ", ".join(t.id for t in self.tasks) or "none"
        raise UnknownTaskError(
            f"no task {task_id!r} in feature {self.name!r}; tasks: {known}",
            self.graph_path,
        )


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
        for feature in self.features:
            if feature.name == name:
                return feature
        known = ", ".join(f.name for f in self.features) or "none"
        raise UnknownFeatureError(
            f"no feature {name!r} in {self.settings.paths.specs}; features: {known}", str(self.root)
        )

    def tasks(self) -> list[tuple[Feature, Task]]:
        """Every (feature, task) of every feature with a readable task graph."""
        return [(f, t) for f in self.features for t in f.tasks]


# -- parsing helpers ---------------------------------------------------------------


class _LimitedLoader(yaml.SafeLoader):
    """SafeLoader that refuses alias floods and absurd nesting."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._aliases = 0
        self._depth = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            self._aliases += 1
            if self._aliases > MAX_YAML_ALIASES:
                mark = self.peek_event().start_mark  # type: ignore[no-untyped-call]  # untyped in types-PyYAML
                raise yaml.YAMLError(
                    f"more than {MAX_YAML_ALIASES} alias references (line {mark.line + 1}); "
                    "refusing a possible alias bomb"
                )
        self._depth += 1
        try:
            if self._depth > MAX_DOCUMENT_DEPTH:
                mark = self.peek_event().start_mark  # type: ignore[no-untyped-call]  # untyped in types-PyYAML
                raise yaml.YAMLError(f"nested deeper than {MAX_DOCUMENT_DEPTH} levels (line {mark.line + 1})")
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


def parse_yaml(text: str, rel: str) -> Any:
    """``yaml.safe_load`` with limits; errors become :class:`ProjectError` with the line."""
    loader = _LimitedLoader(text)
    try:
        data = loader.get_single_data()
        if _expanded_size(data, MAX_EXPANDED_NODES) > MAX_EXPANDED_NODES:
            raise ProjectError(
                f"invalid YAML: expands to more than {MAX_EXPANDED_NODES:,} values through "
                "aliases; refusing a possible alias bomb",
                rel,
            )
        return data
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else None
        problem = exc.problem or exc.context or "invalid YAML"
        raise ProjectError(f"invalid YAML: {problem}", rel, line) from None
    except yaml.YAMLError as exc:
        raise ProjectError(f"invalid YAML: {exc}", rel) from None
    except RecursionError:
        raise ProjectError("invalid YAML: nested too deeply", rel) from None
    finally:
        loader.dispose()


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
    stack: list[tuple[Any, int]] = [(value, 0)]
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
    return data


def read_document(fs: ProjectFS, rel: str) -> Any:
    """Read and parse a JSON or YAML project file, raising :class:`ProjectError`."""
    result: ReadResult = fs.read_text(rel)
    if result.text is None:
        raise ProjectError(result.detail, rel, result.line)
    if rel.endswith(".json"):
        return parse_json(result.text, rel)
    return parse_yaml(result.text, rel)


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
    seen: set[str] = set()
    for index, raw in enumerate(raw_tasks):
        if not isinstance(raw, Mapping):
            warnings.append(f"{rel}: tasks[{index}] is a {type(raw).__name__}, not a task; skipped")
            continue
        raw_id = raw.get("id")
        if raw_id is None or raw_id == "":
            task_id = f"#{index + 1}"
            warnings.append(f"{rel}: tasks[{index}] has no id; shown as {task_id}")
        else:
            task_id = _display(raw_id)
        if task_id in seen:
            n = 2
            while f"{task_id}~{n}" in seen:
                n += 1
            warnings.append(f"{rel}: duplicate task id {task_id!r} at tasks[{index}]; shown as {task_id}~{n}")
            task_id = f"{task_id}~{n}"
        seen.add(task_id)
        tasks.append(Task(id=task_id, title=_display(raw.get("title")), raw=raw, index=index))
    return tuple(tasks), tuple(warnings)


def _load_feature(fs: ProjectFS, specs_rel: str, name: str) -> Feature:
    spec_dir = f"{specs_rel}/{name}"
    graph_rel = next((f"{spec_dir}/{g}" for g in TASK_GRAPH_NAMES if fs.is_file(f"{spec_dir}/{g}")), None)
    if graph_rel is None:
        return Feature(name=name, spec_dir=spec_dir, graph_path=None)
    try:
        tasks, warnings = parse_task_graph(read_document(fs, graph_rel), graph_rel)
    except ProjectError as exc:
        return Feature(name=name, spec_dir=spec_dir, graph_path=graph_rel, graph_error=exc)
    return Feature(name=name, spec_dir=spec_dir, graph_path=graph_rel, tasks=tasks, warnings=warnings)


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
    ctx_cfg: str | None = None
    if fs.is_file(CTXVIEWER_YAML):
        ctx_cfg = CTXVIEWER_YAML
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
        sys_cfg = settings.paths.config if fs.is_file(settings.paths.config) else None
        if sys_cfg is None:
            raise ProjectError(f"the system config {settings.paths.config} does not exist", str(root))
    else:
        sys_cfg = next((c for c in SYSTEM_CONFIG_NAMES if fs.is_file(c)), None)
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
        rel = getattr(settings.paths, key)
        try:
            fs.resolve(rel)
        except Exception as exc:
            raise SettingsError(f"paths.{key}: {exc}", settings.origin(f"paths.{key}")) from None

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
    features = tuple(
        _load_feature(fs, specs_rel, name) for name in fs.list_dir(specs_rel) if fs.is_dir(f"{specs_rel}/{name}")
    )
    for feature in features:
        warnings.extend(feature.warnings)
    return Project(
        root=fs.root,
        fs=fs,
        settings=settings,
        features=features,
        system_config=sys_cfg,
        ctxviewer_config=ctx_cfg,
        warnings=tuple(warnings),
        sources=_sources(fs, settings),
    )


# -- noticing changes on disk ------------------------------------------------------


def _signature(fs: ProjectFS, rel: str) -> tuple[int, int, int] | None:
    st = fs.lstat(rel)
    return None if st is None else (st.st_ino, st.st_size, st.st_mtime_ns)


def _config_names(settings: Settings) -> tuple[str, ...]:
    return (CTXVIEWER_YAML, *((settings.paths.config,) if settings.paths.config else SYSTEM_CONFIG_NAMES))


def _sources(fs: ProjectFS, settings: Settings) -> dict[str, Any]:
    """Signatures of what loading depends on: the configs, the feature list, each task graph."""
    specs = settings.paths.specs
    names = tuple(n for n in fs.list_dir(specs) if fs.is_dir(f"{specs}/{n}"))
    out: dict[str, Any] = {rel: _signature(fs, rel) for rel in _config_names(settings)}
    out["features"] = names
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
