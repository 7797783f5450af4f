"""Which commit changed what a worker sees: one task followed commit by commit through a range.

:func:`bisect_task` walks ``A..B`` along B's first parents (merges included, diffed against
their first parent), assembles the task at A's end of the range, and then at each commit that
changed a file the last assembly read (:mod:`ctxviewer.engine.files.readlog`): a commit that
touches none of them cannot change the result, so it is not assembled.  Each commit whose
context (or worker prompt, or worker window) differs from the one before is listed with the
files it touched that the task reads and what :mod:`.revisions` says moved and why.  Revisions
are read as the revision diff reads them.  See docs/bisect.md.
"""

from __future__ import annotations

import bisect
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ctxviewer.engine.errors import CtxViewerError, UnknownFeatureError, UnknownTaskError
from ctxviewer.engine.files.git import (
    FileDiffs,
    RangeCommit,
    Repository,
    UnknownRevisionError,
    first_parent_range,
    materialize,
    open_repository,
    project_files,
)
from ctxviewer.engine.files.readlog import PROJECT, RUN, WINDOW, Reads, reading_as, recording
from ctxviewer.engine.files.writing import scratch_folder
from ctxviewer.engine.profiles.base import Cancelled
from ctxviewer.engine.project.ids import match_id, no_match
from ctxviewer.engine.project.loading import Feature, Project, Task, load_project
from ctxviewer.engine.runs.pipeline import assemble_task
from ctxviewer.engine.runs.revisions import Revision, TaskRevisionDiff, diff_task, resolve_revision
from ctxviewer.engine.trace.model import PROMPT_BLOCK, ReceivedBlock, Trace

ProgressFn = Callable[[str, float], None]

#: What a bisection follows: the assembled context, the worker's prompt, its whole window.
CONTEXT, PROMPT, WINDOW_WHAT = "context", "prompt", "window"
WHATS: tuple[str, ...] = (CONTEXT, PROMPT, WINDOW_WHAT)
#: The parts of a run whose reads are each one's inputs (:mod:`~ctxviewer.engine.files.readlog`).
_INPUT_PARTS: Mapping[str, tuple[str, ...]] = {
    CONTEXT: (PROJECT, RUN),
    PROMPT: (PROJECT, WINDOW),
    WINDOW_WHAT: (PROJECT, RUN, WINDOW),
}
#: How a block of the prompt or the window changed.
ADDED, REMOVED, CHANGED, LOADED, UNLOADED = "added", "removed", "changed", "loaded", "not loaded"
#: The project folder's path in the texts of a run, where a scratch copy's path stood.
PROJECT_MARK = "<project>"


@dataclass(frozen=True)
class _Side:
    """The task at one commit: its trace (None: not there, or it could not be assembled, *error*)
    and what the assembly read."""

    trace: Trace | None
    reads: Reads
    error: str = ""
    root: str = ""
    found: tuple[Feature, Task] | None = None

    def blocks(self, what: str) -> tuple[tuple[Any, ...], ...]:
        """The prompt's or the window's blocks as compared (the scratch copy's path made neutral)."""
        if self.trace is None or self.trace.worker is None:
            return ()
        return tuple(
            _block_key(b, self.root) for b in self.trace.worker.blocks if what == WINDOW_WHAT or b.kind == PROMPT_BLOCK
        )

    def prompt_error(self) -> str | None:
        return None if self.trace is None or self.trace.worker is None else self.trace.worker.prompt_error


def _block_key(b: ReceivedBlock, root: str) -> tuple[Any, ...]:
    """What the worker gets of a block: a block listed but not loaded is compared without its text."""
    text = (b.text.replace(root, PROJECT_MARK) if root else b.text) if b.loaded else ""
    return (b.kind, b.name, b.title, b.source, b.load, b.loaded, b.stated, text)


@dataclass(frozen=True, slots=True)
class BlockChange:
    """A block of the worker's prompt or window that differs from the commit before."""

    change: str
    title: str
    source: str
    tokens_before: int
    tokens_after: int
    #: Where the commit edited the block's own file (``file, lines 3-5``), or ''.
    edit: str = ""


@dataclass(frozen=True)
class CommitChange:
    """One commit that changed what the task's worker sees."""

    commit: RangeCommit
    #: The project files the commit changed that the task's last assembly read.
    inputs: tuple[str, ...]
    #: The task before and after the commit, diffed and attributed as ``diff`` does.
    task: TaskRevisionDiff
    #: For ``prompt`` and ``window``: the blocks that differ.
    blocks: tuple[BlockChange, ...] = ()
    #: Why the task could not be assembled before / after the commit ('' when it could).
    error_before: str = ""
    error_after: str = ""


@dataclass(frozen=True)
class Bisection:
    """A task followed through ``A..B``: the commits that changed it, and how many were assembled."""

    project: str
    feature: str
    task_id: str
    what: str
    a: Revision
    b: Revision
    #: Every commit of the range, oldest first.
    commits: tuple[RangeCommit, ...]
    #: How many of them were assembled (A's end of the range, assembled first, is not counted).
    assembled: int
    changes: tuple[CommitChange, ...]
    notes: tuple[str, ...] = field(default_factory=tuple)


def parse_range(text: str) -> tuple[str, str]:
    """``A..B`` as its two names; :class:`UnknownRevisionError` for anything else."""
    spec = text.strip()
    if "..." in spec:
        raise UnknownRevisionError(f"{spec!r}: write the range A..B (two dots), the commits after A up to B")
    a, sep, b = spec.partition("..")
    if not sep or not a.strip() or not b.strip():
        raise UnknownRevisionError(f"{spec!r}: write the range A..B, the commits after A up to B (HEAD~20..HEAD)")
    return a.strip(), b.strip()


# -- the files at each commit -------------------------------------------------------------------


class _Tree:
    """The project's file paths at one commit, sorted, to tell a file, a folder and nothing apart."""

    def __init__(self, paths: Iterable[str]) -> None:
        self.paths = sorted(paths)

    def kind(self, path: str) -> str:
        """``file``, ``folder`` or ``none`` (``""`` is the project folder)."""
        if not path:
            return "folder"
        at = bisect.bisect_left(self.paths, path)
        if at < len(self.paths) and self.paths[at] == path:
            return "file"
        below = bisect.bisect_left(self.paths, path + "/")
        return "folder" if below < len(self.paths) and self.paths[below].startswith(path + "/") else "none"

    def after(self, changes: Sequence[tuple[str, str]]) -> _Tree:
        gone = {p for s, p in changes if s == "D"}
        added = {p for s, p in changes if s == "A"}
        tree = _Tree(())
        tree.paths = sorted({p for p in self.paths if p not in gone} | added)
        return tree


def _ancestors(path: str) -> list[str]:
    """The folders above *path*, the project folder (``""``) first."""
    parts = path.split("/")[:-1]
    return ["", *("/".join(parts[: n + 1]) for n in range(len(parts)))]


def inputs_touched(commit: RangeCommit, reads: Reads, before: _Tree, after: _Tree) -> tuple[str, ...]:
    """The files *commit* changed that may change a run that read *reads*: a file it read (or a
    link it followed), a file a scan covers, or one added or removed where that changes what a
    listed folder holds or whether a path looked at is a file, a folder or nothing."""
    out = []
    for _status, path in commit.changes:
        hit = path in reads.touched or any(s.covers(path) for s in reads.scans)
        if not hit:
            for folder in _ancestors(path):
                if folder in reads.touched and before.kind(folder) != after.kind(folder):
                    hit = True
                    break
                if folder in reads.listed:
                    child = path[len(folder) + 1 :].split("/")[0] if folder else path.split("/")[0]
                    entry = f"{folder}/{child}" if folder else child
                    if before.kind(entry) != after.kind(entry):
                        hit = True
                        break
        if hit:
            out.append(path)
    return tuple(dict.fromkeys(out))


# -- one side -----------------------------------------------------------------------------------


def _load(
    stack: ExitStack, repo: Repository, sha: str | None, name: str, overrides: Mapping[str, Any] | None
) -> tuple[Project | None, str, Reads, str]:
    """The project at *sha* (None: before the first commit, an empty folder) with what loading
    read, the folder it is in, and the error that stopped it ('' when none)."""
    folder = stack.enter_context(scratch_folder("ctxviewer-bisect-", name))
    if sha is not None:
        materialize(repo, sha, folder)
    with recording() as log:
        try:
            project = load_project(folder, overrides, "--set")
        except CtxViewerError as exc:
            return None, str(folder), log.of(PROJECT), exc.message
    return project, str(folder), log.of(PROJECT), ""


def _assemble(
    repo: Repository,
    sha: str | None,
    name: str,
    feature: str,
    task: str,
    what: str,
    overrides: Mapping[str, Any] | None,
    cancel: threading.Event | None,
) -> _Side:
    with ExitStack() as stack:
        project, _folder, reads, error = _load(stack, repo, sha, name, overrides)
        if project is None:
            return _Side(None, reads, error)
        root = str(project.root)
        _drop_other_features(reads, project, feature)
        with recording() as log:
            found = _find(project, feature, task)
            if found is None:
                reads.update(log.of(*_INPUT_PARTS[what]))
                return _Side(None, reads, root=root)
            with reading_as(RUN):
                try:
                    trace = assemble_task(project, found[0], found[1], exact=False, cancel=cancel)
                except Cancelled:
                    raise
                except CtxViewerError as exc:
                    reads.update(log.of(PROJECT, RUN, WINDOW))
                    return _Side(None, reads, exc.message, root, found)
        reads.update(log.of(*_INPUT_PARTS[what]))
        return _Side(trace, reads, root=root, found=found)


def _drop_other_features(reads: Reads, project: Project, feature: str) -> None:
    """Forget what loading read inside other features' folders (their task graphs): a run of
    one task never reads another feature's graph, and what its run reads is noted apart."""
    others = tuple(f"{f.spec_dir}/" for f in project.features if f.name != feature)
    if others:
        reads.touched = {p for p in reads.touched if not p.startswith(others)}
        reads.listed = {p for p in reads.listed if not p.startswith(others)}


def _find(project: Project, feature: str, task: str) -> tuple[Feature, Task] | None:
    """The feature and task named exactly, or None where the commit does not have them."""
    feat = next((f for f in project.features if f.name == feature), None)
    if feat is None or feat.graph_error is not None:
        return None
    tsk = next((t for t in feat.tasks if t.id == task), None)
    return None if tsk is None else (feat, tsk)


def _resolve_ids(projects: Sequence[Project], feature: str, task: str, where: str, path: str) -> tuple[str, str]:
    """*feature* and *task* as the newest side that has them names them (case ignored where one fits)."""
    names = list(dict.fromkeys(f.name for p in projects for f in p.features))
    found = match_id(feature, names)
    if found is None:
        raise UnknownFeatureError(no_match(feature, names, "feature", where), path)
    ids = list(
        dict.fromkeys(
            t.id for p in projects for f in p.features if f.name == found and f.graph_error is None for t in f.tasks
        )
    )
    tid = match_id(task, ids)
    if tid is None:
        raise UnknownTaskError(no_match(task, ids, "task", f"in feature {found!r} {where}"), path)
    return found, tid


# -- comparing two sides --------------------------------------------------------------------------


def _context_changed(t: TaskRevisionDiff) -> bool:
    if t.presence != "both":
        return True
    d = t.diff
    assert d is not None
    if t.changes or d.baseline.context != d.current.context:
        return True
    return any(s.delta or s.budget_before != s.budget_after or s.status_before != s.status_after for s in d.sections)


def _block_changes(before: _Side, after: _Side, what: str, edits: FileDiffs) -> tuple[BlockChange, ...]:
    def index(side: _Side) -> dict[tuple[str, str], tuple[ReceivedBlock, tuple[Any, ...]]]:
        if side.trace is None or side.trace.worker is None:
            return {}
        out: dict[tuple[str, str], tuple[ReceivedBlock, tuple[Any, ...]]] = {}
        for b in side.trace.worker.blocks:
            if what == WINDOW_WHAT or b.kind == PROMPT_BLOCK:
                out.setdefault((b.kind, b.title), (b, _block_key(b, side.root)))
        return out

    old, new = index(before), index(after)
    out = []
    for key in dict.fromkeys([*new, *old]):
        a, b = old.get(key), new.get(key)
        if a is not None and b is not None and a[1] == b[1]:
            continue
        block = (b or a)[0]  # type: ignore[index]
        if a is None:
            change = ADDED
        elif b is None:
            change = REMOVED
        elif a[0].loaded != b[0].loaded:
            change = LOADED if b[0].loaded else UNLOADED
        else:
            change = CHANGED
        edit = ""
        source = block.source
        if source and not source.startswith("/") and edits.hunks(source):
            hunks = edits.hunks(source)
            spans = ", ".join(
                f"line {s}" if s == e else f"lines {s}-{e}"
                for h in hunks
                if (span := h.new_lines or h.old_lines) is not None
                for s, e in [span]
            )
            edit = f"{source}, {spans}" if spans else source
        out.append(
            BlockChange(
                change,
                block.title,
                source,
                a[0].size if a is not None and a[0].loaded else 0,
                b[0].size if b is not None and b[0].loaded else 0,
                edit,
            )
        )
    return tuple(out)


def _compare(
    repo: Repository,
    commit: RangeCommit,
    inputs: tuple[str, ...],
    before: _Side,
    after: _Side,
    feature: str,
    task: str,
    what: str,
) -> CommitChange | None:
    edits = FileDiffs(repo, commit.parent, commit.sha) if commit.parent else None
    changed_files = tuple(p for _s, p in commit.changes)
    tdiff = _task_diff(edits, before, after, feature, task, changed_files)
    if what == CONTEXT:
        differs = _context_changed(tdiff) if (before.trace or after.trace) else False
    else:
        differs = before.blocks(what) != after.blocks(what) or before.prompt_error() != after.prompt_error()
    differs = differs or before.error != after.error
    if not differs:
        return None
    blocks = _block_changes(before, after, what, edits) if what != CONTEXT and edits is not None else ()
    return CommitChange(commit, inputs, tdiff, blocks, before.error, after.error)


def _task_diff(
    edits: FileDiffs | None, before: _Side, after: _Side, feature: str, task: str, changed: Sequence[str]
) -> TaskRevisionDiff:
    some = after.trace or before.trace
    found = after.found or before.found
    if edits is None or found is None:
        title = some.task_title if some is not None else ""
        return TaskRevisionDiff(feature, task, title, before.trace, after.trace, None, ())
    return diff_task(edits, found[0], found[1], before.trace, after.trace, changed)


# -- the walk -------------------------------------------------------------------------------------


def bisect_task(
    project: str | Path,
    rev_range: str,
    *,
    feature: str,
    task: str,
    what: str = CONTEXT,
    overrides: Mapping[str, Any] | None = None,
    cancel: threading.Event | None = None,
    progress: ProgressFn | None = None,
) -> Bisection:
    """Every commit of *rev_range* (``A..B``) that changed *task*'s context, prompt or window
    (*what*), each with its inputs touched and its changes.  Raises a
    :class:`~ctxviewer.engine.files.git.GitError` for git missing, no repository, an unknown
    revision or an empty range, and the id errors for a feature or task neither end has."""
    if what not in WHATS:
        raise CtxViewerError(f"--what {what!r}: one of {', '.join(WHATS)}")
    path = Path(project)
    name_a, name_b = parse_range(rev_range)
    repo = open_repository(path)
    a, b = resolve_revision(repo, name_a), resolve_revision(repo, name_b)
    assert a.sha is not None and b.sha is not None
    commits = first_parent_range(repo, a.sha, b.sha)
    if not commits:
        if a.sha == b.sha:
            raise UnknownRevisionError(
                f"{rev_range.strip()}: {a.label} and {b.label} are the same commit; no commit is in the range"
            )
        raise UnknownRevisionError(
            f"{rev_range.strip()}: no commit is in the range: {b.label} is older than {a.label} "
            f"(reversed? write {name_b}..{name_a})"
        )

    def report(stage: str, fraction: float) -> None:
        if cancel is not None and cancel.is_set():
            raise Cancelled(stage)
        if progress is not None:
            progress(stage, fraction)

    folder_name = path.resolve().name or "project"
    base = commits[0].parent
    notes: list[str] = []
    if base != a.sha:
        shown = base[:7] if base else "an empty project"
        notes.append(f"{a.label} is not on {b.label}'s first-parent line: the first commit is compared with {shown}")
    report(f"reading {a.label}", 0.0)
    with ExitStack() as stack:  # the ids, as the newest end that has them names them
        loaded, errors = [], []
        for sha, label in ((b.sha, b.label), (base, a.label)):
            project_at, _root, _reads, error = _load(stack, repo, sha, folder_name, overrides)
            if project_at is not None:
                loaded.append(project_at)
            else:
                errors.append(f"at {label}: {error}")
        if not loaded:
            raise CtxViewerError(errors[0], str(path))
        where = f"at {b.label} or at {a.label}"
        feature, task = _resolve_ids(loaded, feature, task, where, str(path))
    side = _assemble(repo, base, folder_name, feature, task, what, overrides, cancel)
    tree = _Tree(project_files(repo, base) if base else ())
    changes: list[CommitChange] = []
    assembled = 0
    total = len(commits)
    for n, commit in enumerate(commits):
        report(f"{commit.sha[:7]} ({n + 1:,} of {total:,})", n / total)
        after_tree = tree.after(commit.changes)
        inputs = inputs_touched(commit, side.reads, tree, after_tree)
        tree = after_tree
        if not inputs:
            continue
        assembled += 1
        now = _assemble(repo, commit.sha, folder_name, feature, task, what, overrides, cancel)
        found = _compare(repo, commit, inputs, side, now, feature, task, what)
        if found is not None:
            changes.append(found)
        side = now
    report("done", 1.0)
    return Bisection(str(project), feature, task, what, a, b, commits, assembled, tuple(changes), tuple(notes))
