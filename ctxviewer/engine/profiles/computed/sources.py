"""The candidates' sources: the project's context map and the dependencies' handoff files.

Both are optional: a missing file is no candidates, not an error.  What is wrong with one
that is there is a problem on record (message, line), and the good parts are used.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ctxviewer.engine.errors import ProjectError
from ctxviewer.engine.files.reading import OutsideRootError
from ctxviewer.engine.profiles.computed.model import NODE_TYPES
from ctxviewer.engine.project.loading import Task, read_document
from ctxviewer.engine.signals.words import normalise

HANDOFF_SUFFIXES = (".yaml", ".yml", ".json")

DEFAULT_CONTEXT_MAP = ".mahabharatha/context-map.yaml"
DEFAULT_HANDOFFS = ".mahabharatha/handoffs"


def one_line(value: Any) -> str:
    """A scalar as one line of text; anything else as empty."""
    if isinstance(value, bool) or value is None or isinstance(value, (Mapping, list)):
        return ""
    return " ".join(str(value).split())


def _tags(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list):
        return ()
    out: dict[str, None] = {}  # an ordered set: linear however many tags a node lists
    for tag in value:
        text = one_line(tag).lower()
        if text:
            out[normalise(text)] = None
    return tuple(out)


@dataclass(frozen=True)
class Node:
    """A knowledge-graph node: a pattern, a gotcha, a decision or a task."""

    index: int
    type: str
    summary: str
    tags: tuple[str, ...]
    file: str = ""
    severity: str = "medium"
    rationale: str = ""
    id: str = ""


@dataclass(frozen=True)
class Component:
    """A context-map entry: a component, where it lives, notes."""

    index: int
    component: str
    location: str
    notes: str


@dataclass(frozen=True)
class ContextMap:
    """The project's context map file, read (or why not)."""

    path: str
    found: bool
    components: tuple[Component, ...] = ()
    nodes: tuple[Node, ...] = ()
    #: What was wrong with it: (message, line or None), the path being :attr:`path`.
    problems: tuple[tuple[str, int | None], ...] = ()


def _entries(data: Mapping[str, Any], key: str, problems: list[tuple[str, int | None]]) -> list[Any]:
    value = data.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        problems.append((f"{key}: is {type(value).__name__}, not a list; ignored", None))
        return []
    return value


def read_context_map(fs: Any, rel: str) -> ContextMap:
    """Read the context map at *rel*; a missing file is no context map, not an error."""
    try:
        if fs.lstat(rel) is None:
            return ContextMap(rel, False)
    except OutsideRootError as exc:
        return ContextMap(rel, False, problems=((exc.why, None),))
    try:
        data = read_document(fs, rel)
    except ProjectError as exc:
        return ContextMap(rel, False, problems=((exc.message, exc.line),))
    if data is None:
        return ContextMap(rel, True)
    if not isinstance(data, Mapping):
        return ContextMap(rel, False, problems=((f"is {type(data).__name__}, not a mapping of lists", None),))
    problems: list[tuple[str, int | None]] = []
    components: list[Component] = []
    for n, entry in enumerate(_entries(data, "components", problems), 1):
        if not isinstance(entry, Mapping):
            problems.append((f"components[{n}]: not a mapping; ignored", None))
            continue
        name, location = one_line(entry.get("component")), one_line(entry.get("location"))
        if not name and not location:
            problems.append((f"components[{n}]: has neither component nor location; ignored", None))
            continue
        components.append(Component(n, name, location, one_line(entry.get("notes"))))
    nodes: list[Node] = []
    for n, entry in enumerate(_entries(data, "knowledge", problems), 1):
        if not isinstance(entry, Mapping):
            problems.append((f"knowledge[{n}]: not a mapping; ignored", None))
            continue
        kind = one_line(entry.get("type")).lower()
        if kind not in NODE_TYPES:
            problems.append(
                (f"knowledge[{n}]: type {kind or 'missing'!r} is not pattern, gotcha, decision or task; ignored", None)
            )
            continue
        summary = one_line(entry.get("summary"))
        node_id = one_line(entry.get("id"))
        if not summary and not (kind == "task" and node_id):
            problems.append((f"knowledge[{n}]: no summary; ignored", None))
            continue
        nodes.append(
            Node(
                index=n,
                type=kind,
                summary=summary or node_id,
                tags=_tags(entry.get("tags")),
                file=one_line(entry.get("file") or entry.get("location")),
                severity=one_line(entry.get("severity")).lower() or "medium",
                rationale=one_line(entry.get("rationale")),
                id=node_id,
            )
        )
    return ContextMap(rel, True, tuple(components), tuple(nodes), tuple(problems))


@dataclass(frozen=True)
class Handoff:
    """What a completed task handed over (a handoff file, or the task graph alone)."""

    path: str | None
    status: str
    summary: str = ""
    files: tuple[tuple[str, str], ...] = ()
    patterns: tuple[str, ...] = ()
    gotchas: tuple[tuple[str, str], ...] = ()  # (severity, issue), low ones left out
    low_gotchas: int = 0
    questions: tuple[tuple[str, str, str], ...] = ()  # (question, context, recommendation)
    nonblocking: int = 0
    problems: tuple[tuple[str, int | None], ...] = ()  # (message, line) in :attr:`path`


def _files_of(value: Any) -> tuple[tuple[str, str], ...]:
    out: list[tuple[str, str]] = []
    for entry in value if isinstance(value, list) else ():
        if isinstance(entry, str) and entry.strip():
            out.append((entry.strip(), ""))
        elif isinstance(entry, Mapping):
            path = one_line(entry.get("path") or entry.get("file"))
            if path:
                out.append((path, one_line(entry.get("reason") or entry.get("purpose") or entry.get("description"))))
    return tuple(out)


def find_handoff(fs: Any, folder: str, task_id: str) -> str | None:
    """The handoff file of *task_id* under *folder*, if there is one.

    A name that is present but not followed -- a symlink out of the project, a loop -- is
    returned too: reading it reports why, instead of the handoff being dropped unseen.
    """
    for suffix in HANDOFF_SUFFIXES:
        rel = f"{folder}/{task_id}{suffix}"
        try:
            if fs.present(rel):
                return rel
        except OutsideRootError:
            return rel  # reading it reports why
    return None


def read_handoff(fs: Any, rel: str | None, dep: Task) -> Handoff:
    """The handoff of dependency *dep*: from its file when there is one, else the graph."""
    raw = dep.raw
    graph_status = one_line(raw.get("status")).lower()
    graph_files = raw.get("files", {}).get("create") if isinstance(raw.get("files"), Mapping) else None
    context = raw.get("context")
    fallback_summary = (
        context.strip() if isinstance(context, str) and context.strip() else one_line(raw.get("description"))
    )
    if rel is None:
        return Handoff(None, graph_status, one_line(fallback_summary), _files_of(graph_files))
    try:
        data = read_document(fs, rel)
    except ProjectError as exc:
        problem: tuple[str, int | None] = (exc.message, exc.line)
        return Handoff(rel, graph_status, one_line(fallback_summary), _files_of(graph_files), problems=(problem,))
    except OutsideRootError as exc:
        return Handoff(
            rel, graph_status, one_line(fallback_summary), _files_of(graph_files), problems=((exc.why, None),)
        )
    if not isinstance(data, Mapping):
        problem = (f"is {type(data).__name__}, not a mapping; read from the task graph instead", None)
        return Handoff(rel, graph_status, one_line(fallback_summary), _files_of(graph_files), problems=(problem,))
    problems: list[tuple[str, int | None]] = []
    declared = one_line(data.get("task_id"))
    if declared and declared != dep.id:
        problems.append((f"task_id {declared!r} is not {dep.id!r}; read all the same", None))
    files_value = data.get("dependencies_for_next", data.get("files_created"))
    files = _files_of(files_value) if files_value is not None else _files_of(graph_files)
    patterns = []
    for entry in data.get("patterns_discovered") or []:
        text = one_line(entry.get("pattern") if isinstance(entry, Mapping) else entry)
        if text:
            patterns.append(text)
    gotchas: list[tuple[str, str]] = []
    low = 0
    for entry in data.get("gotchas") or []:
        if isinstance(entry, Mapping):
            severity = one_line(entry.get("severity")).lower() or "medium"
            issue = one_line(entry.get("issue") or entry.get("summary"))
        else:
            severity, issue = "medium", one_line(entry)
        if not issue:
            continue
        if severity == "low":
            low += 1
        else:
            gotchas.append((severity, issue))
    questions: list[tuple[str, str, str]] = []
    nonblocking = 0
    for entry in data.get("open_questions") or []:
        if not isinstance(entry, Mapping) or not one_line(entry.get("question")):
            continue
        if entry.get("blocking") is True:
            questions.append(
                (one_line(entry["question"]), one_line(entry.get("context")), one_line(entry.get("recommendation")))
            )
        else:
            nonblocking += 1
    return Handoff(
        rel,
        one_line(data.get("status")).lower() or graph_status,
        one_line(data.get("summary")) or one_line(fallback_summary),
        files,
        tuple(patterns),
        tuple(gotchas),
        low,
        tuple(questions),
        nonblocking,
        tuple(problems),
    )
