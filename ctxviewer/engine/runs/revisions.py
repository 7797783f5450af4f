"""What changed since yesterday: the same task(s) assembled at two git revisions, and why.

:func:`diff_revisions` reads the project at revision A and at revision B (the working tree
when B is not given; a revision is unpacked into a scratch folder by
:mod:`ctxviewer.engine.files.git`), assembles the chosen tasks on both, and lists every
candidate whose fate changed with its cause (:data:`CAUSES`).  Candidates are paired by their
text first, since an inserted paragraph renumbers the ones after it.  See
docs/revision-diff.md.
"""

from __future__ import annotations

import dataclasses
import math
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ctxviewer.engine.analysis.whatif import (
    ENTERED,
    FATE,
    GONE,
    GREW,
    LEFT,
    NEW,
    SHRANK,
    ItemChange,
    TraceDiff,
    diff_traces,
    item_change,
    setting_text,
)
from ctxviewer.engine.errors import CtxViewerError, ProjectError, UnknownFeatureError, UnknownTaskError
from ctxviewer.engine.files.git import (
    FileDiffs,
    Hunk,
    Repository,
    materialize,
    open_repository,
    resolve,
)
from ctxviewer.engine.files.writing import scratch_folder
from ctxviewer.engine.profiles.base import Cancelled
from ctxviewer.engine.project.ids import match_id, no_match
from ctxviewer.engine.project.loading import Feature, Project, Task, is_project, load_project, require_project
from ctxviewer.engine.runs.pipeline import assemble_task
from ctxviewer.engine.trace.model import RULE_FILE, Item, Trace, candidate_words

ProgressFn = Callable[[str, float], None]

#: What B is when no revision is named: the files on disk now.
WORKING_TREE = "working tree"

#: Every kind of change, in the order a diff lists them.
REVISION_CHANGES: tuple[str, ...] = (ENTERED, LEFT, GREW, SHRANK, NEW, GONE, FATE)
REVISION_MEANINGS: Mapping[str, str] = {
    ENTERED: "not in A's context, in B's",
    LEFT: "in A's context, not in B's",
    GREW: "in both contexts, more of it kept in B",
    SHRANK: "in both contexts, less of it kept in B",
    NEW: "a candidate only B has, in B's context",
    GONE: "a candidate only A had, in A's context",
    FATE: "out of both contexts, for another reason in B",
}

EDIT, TASK, SETTING, DISPLACED, OTHER = "edit", "task", "setting", "displaced", "other"
#: Every kind of cause, and what it means.
CAUSES: Mapping[str, str] = {
    EDIT: "its own lines were edited",
    TASK: "the task changed in its task graph (keywords or files)",
    SETTING: "a setting changed",
    DISPLACED: "moved by another candidate's change",
    OTHER: "no edit of its own, no setting, no other candidate explains it",
}
_CONFIG_SUFFIXES = (".yaml", ".yml", ".json")
_INTO = frozenset({ENTERED, GREW, NEW})
_OUT_OF = frozenset({LEFT, SHRANK, GONE})


@dataclass(frozen=True, slots=True)
class Revision:
    """One side: a revision as named and the commit it is, or the working tree (``sha`` None)."""

    name: str
    sha: str | None

    @property
    def label(self) -> str:
        """``HEAD~1 (3f2a9c1)``, ``3f2a9c1``, or ``working tree``."""
        if self.sha is None:
            return WORKING_TREE
        short = self.sha[:7]
        return short if self.sha.startswith(self.name) else f"{self.name} ({short})"


@dataclass(frozen=True, slots=True)
class Cause:
    """Why a candidate's fate changed (``kind`` one of :data:`CAUSES`), in one line."""

    kind: str
    text: str
    #: The project file the edit is in ('' for none).
    file: str = ""
    #: Line ranges of the edit: in B's file, or A's for lines that were removed.
    lines: tuple[tuple[int, int], ...] = ()
    #: For ``displaced``: the candidate whose change moved this one, as people say it.
    candidate: str = ""

    @property
    def where(self) -> str:
        """``requirements.md:11`` / ``ctxviewer.yaml:2-3,7`` ('' without a file)."""
        if not self.file:
            return ""
        spans = ",".join(f"{a}" if a == b else f"{a}-{b}" for a, b in self.lines)
        return f"{self.file}:{spans}" if spans else self.file


@dataclass(frozen=True, slots=True)
class CandidateChange:
    """One candidate whose fate differs between the revisions, with its causes."""

    change: ItemChange
    #: The candidate as people say it (``paragraph 6 of requirements.md (line 11)``).
    words: str
    section: str
    causes: tuple[Cause, ...]


@dataclass(frozen=True)
class TaskRevisionDiff:
    """One task at both revisions (``before``/``after`` None where the task does not exist)."""

    feature: str
    task_id: str
    title: str
    before: Trace | None
    after: Trace | None
    diff: TraceDiff | None
    changes: tuple[CandidateChange, ...]

    @property
    def tokens_before(self) -> int:
        return self.diff.context_tokens_before if self.diff is not None else _tokens(self.before)

    @property
    def tokens_after(self) -> int:
        return self.diff.context_tokens_after if self.diff is not None else _tokens(self.after)

    @property
    def growth_percent(self) -> float | None:
        """How much the context grew, in percent of A's (None: the task is not on both sides;
        infinite when A's context was empty and B's is not)."""
        if self.before is None or self.after is None:
            return None
        before, after = self.tokens_before, self.tokens_after
        if before == 0:
            return 0.0 if after == 0 else math.inf
        return 100 * (after - before) / before

    @property
    def presence(self) -> str:
        return "added" if self.before is None else "removed" if self.after is None else "both"

    @property
    def unchanged(self) -> bool:
        return self.presence == "both" and self.diff is not None and self.diff.unchanged and not self.changes


def _tokens(trace: Trace | None) -> int:
    if trace is None:
        return 0
    value = trace.context_tokens.get(trace.tokenizer)
    return trace.context_tokens.heuristic if value is None else value


@dataclass(frozen=True)
class RevisionDiff:
    """Every chosen task at revisions A and B, with the project files that differ."""

    project: str
    a: Revision
    b: Revision
    tasks: tuple[TaskRevisionDiff, ...]
    changed_files: tuple[str, ...]
    notes: tuple[str, ...] = ()

    def grown_over(self, percent: float) -> tuple[TaskRevisionDiff, ...]:
        """The tasks whose context grew by more than *percent* percent."""
        return tuple(t for t in self.tasks if (g := t.growth_percent) is not None and g > percent)


# -- sides --------------------------------------------------------------------------------------


def resolve_revision(repo: Repository, name: str | None) -> Revision:
    """*name* as a :class:`Revision` (None: the working tree); raises for an unknown one."""
    if name is None:
        return Revision(WORKING_TREE, None)
    return Revision(name.strip(), resolve(repo, name))


def _load_side(
    stack: ExitStack,
    repo: Repository,
    rev: Revision,
    project_path: Path,
    overrides: Mapping[str, Any] | None,
    cancel: threading.Event | None,
    progress: ProgressFn | None = None,
) -> tuple[Project, tuple[str, ...]]:
    notes: tuple[str, ...] = ()
    if rev.sha is None:
        folder = project_path
    else:
        folder = stack.enter_context(scratch_folder("ctxviewer-rev-", project_path.resolve().name or "project"))

        def check(done: int, total: int) -> None:
            if cancel is not None and cancel.is_set():
                raise Cancelled(f"reading {rev.label}")
            if progress is not None:
                progress(f"reading {rev.label}: {done:,} of {total:,} files", done / max(1, total))

        notes = tuple(f"{rev.label}: {n}" for n in materialize(repo, rev.sha, folder, check))
    try:
        return load_project(folder, overrides, "--set"), notes
    except CtxViewerError as exc:
        raise type(exc)(f"at {rev.label}: {exc.message}", exc.path, exc.line) from None


def _targets(
    project: Project, feature: str | None, task: str | None, rev: Revision, notes: list[str]
) -> list[tuple[Feature, Task]]:
    """The chosen (feature, task) pairs of one side; a feature whose task graph is broken there
    is named in *notes* (its tasks then count as added or removed)."""
    features = [f for f in project.features if feature is None or f.name == feature]
    out: list[tuple[Feature, Task]] = []
    for feat in features:
        if feat.graph_error is not None:
            notes.append(f"{rev.label}: feature {feat.name} left out: {feat.graph_error}")
            continue
        out.extend((feat, t) for t in feat.tasks if task is None or t.id == task)
    return out


# -- pairing candidates and naming their changes ----------------------------------------------


def pair_items(before: Sequence[Item], after: Sequence[Item]) -> list[tuple[Item | None, Item | None]]:
    """The candidates of two runs paired: same file, kind and text first, then same file and id."""
    pairs: list[tuple[Item | None, Item | None]] = []
    left_a = list(before)
    left_b: list[Item] = []
    by_text: dict[tuple[str, str, str], list[Item]] = {}
    for item in left_a:
        by_text.setdefault((item.source, item.kind, item.text), []).append(item)
    used: set[int] = set()
    for item in after:
        same = by_text.get((item.source, item.kind, item.text))
        if same:
            match = same.pop(0)
            used.add(id(match))
            pairs.append((match, item))
        else:
            left_b.append(item)
    rest_a = [i for i in left_a if id(i) not in used]
    by_id = {(i.source, i.id): i for i in rest_a}
    for item in left_b:
        pairs.append((by_id.pop((item.source, item.id), None), item))
    taken = {id(b) for b, _a in pairs if b is not None}
    pairs += [(i, None) for i in rest_a if id(i) not in taken]
    return pairs


def item_words(item: Item) -> str:
    return candidate_words(item.kind, item.id, item.source, item.line_start, item.line_end, item.part)


# -- causes -----------------------------------------------------------------------------------


def _overlaps(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[0] <= b[1] and b[0] <= a[1]


def _span(item: Item | None) -> tuple[int, int] | None:
    if item is None or item.line_start is None or item.kind == RULE_FILE:
        return None
    return item.line_start, item.line_end if item.line_end is not None else item.line_start


def touching(hunks: Iterable[Hunk], before: Item | None, after: Item | None) -> list[Hunk]:
    """The hunks that change *before*'s lines (at A) or *after*'s (at B); every hunk for a
    candidate without lines (a rule file, whose block is made of the whole file)."""
    a, b = _span(before), _span(after)
    whole = (before is not None or after is not None) and a is None and b is None
    out = []
    for h in hunks:
        hit = whole
        if a is not None:
            old = h.old_lines
            hit = hit or (old is not None and _overlaps(a, old)) or (old is None and a[0] <= h.old_start < a[1])
        if b is not None:
            new = h.new_lines
            hit = hit or (new is not None and _overlaps(b, new)) or (new is None and b[0] <= h.new_start < b[1])
        if hit:
            out.append(h)
    return out


def hunk_ranges(hunks: Iterable[Hunk]) -> tuple[tuple[int, int], ...]:
    """Each hunk's lines in B, or in A where it only removed lines."""
    out = []
    for h in hunks:
        span = h.new_lines or h.old_lines
        if span is not None:
            out.append(span)
    return tuple(out)


def _hunk_words(h: Hunk) -> str:
    """``line 11`` / ``lines 3-5`` (B's), or ``lines 41-101 removed`` (A's) for a hunk that only removed."""
    a, b = h.new_lines or h.old_lines or (h.new_start, h.new_start)
    lines = f"line {a}" if a == b else f"lines {a}-{b}"
    return lines if h.new_count else f"{lines} removed"


def _edit_cause(edits: FileDiffs, before: Item | None, after: Item | None) -> Cause | None:
    sources = dict.fromkeys(i.source for i in (before, after) if i is not None and i.source)
    for source in sources:
        hit = touching(edits.hunks(source), before, after)
        if hit:
            ranges = hunk_ranges(hit)
            spans = ", ".join(_hunk_words(h) for h in hit)
            verb = "added" if before is None else "removed" if after is None else "edited"
            return Cause(EDIT, f"its own text was {verb}: {source}, {spans}", source, ranges)
    if before is not None and after is not None and before.text != after.text:
        return Cause(EDIT, f"its own text changed in {after.source}", after.source)
    return None


def _keyword_words(trace: Trace) -> set[str]:
    return {k.word for k in trace.keywords}


def _task_cause(
    edits: FileDiffs, feature: Feature, a: Trace, b: Trace, before: Item | None, after: Item | None
) -> Cause | None:
    words_a, words_b = _keyword_words(a), _keyword_words(b)
    files_a, files_b = set(a.task_files), set(b.task_files)
    if words_a == words_b and files_a == files_b:
        return None
    if before is not None and after is not None:
        moved = (
            before.score != after.score
            or before.matched_keywords != after.matched_keywords
            or (before.kind == RULE_FILE and files_a != files_b)
        )
        if not moved:
            return None
    parts = []
    if words_a != words_b:
        parts.append("keywords " + _plus_minus(words_b - words_a, words_a - words_b))
    if files_a != files_b:
        parts.append("files " + _plus_minus(files_b - files_a, files_a - files_b))
    graph = feature.graph_path or ""
    ranges = hunk_ranges(edits.hunks(graph)) if graph else ()
    where = f" ({graph})" if graph else ""
    return Cause(TASK, f"the task changed{where}: {'; '.join(parts)}", graph, ranges)


def _plus_minus(added: set[str], removed: set[str]) -> str:
    return ", ".join([*(f"+{w}" for w in sorted(added)), *(f"\u2212{w}" for w in sorted(removed))])


def _setting_causes(edits: FileDiffs, diff: TraceDiff) -> tuple[Cause, ...]:
    out = []
    for change in diff.settings:
        sides = (diff.current.settings.get(change.key), diff.baseline.settings.get(change.key))
        file = next((s.origin for s in sides if s is not None and s.origin.endswith(_CONFIG_SUFFIXES)), "")
        ranges = hunk_ranges(edits.hunks(file)) if file else ()
        text = f"setting {change.key}: {setting_text(change.before)} \u2192 {setting_text(change.after)}"
        out.append(Cause(SETTING, text + (f" (set in {file})" if file else ""), file, ranges))
    return tuple(out)


def _attribute(
    edits: FileDiffs,
    feature: Feature,
    diff: TraceDiff,
    pairs: list[tuple[Item | None, Item | None, ItemChange]],
    changed_files: Sequence[str],
) -> tuple[CandidateChange, ...]:
    settings = _setting_causes(edits, diff)
    direct: list[list[Cause]] = []
    for before, after, _change in pairs:
        causes: list[Cause] = []
        edit = _edit_cause(edits, before, after)
        if edit is not None:
            causes.append(edit)
        task = _task_cause(edits, feature, diff.baseline, diff.current, before, after)
        if task is not None:
            causes.append(task)
        direct.append(causes)
    out = []
    for n, (before, after, change) in enumerate(pairs):
        some = after or before
        assert some is not None
        causes = list(direct[n])
        if not causes:
            causes.extend(settings)
            causes.extend(_displaced(n, pairs, direct))
        if not causes:
            files = ", ".join(changed_files[:5]) + (" \u2026" if len(changed_files) > 5 else "")
            causes.append(Cause(OTHER, f"no edit to its own lines; files changed: {files or 'none'}"))
        out.append(CandidateChange(change, item_words(some), some.section, tuple(causes)))
    order = {name: n for n, name in enumerate(REVISION_CHANGES)}
    return tuple(sorted(out, key=lambda c: order[c.change.change]))


def _displaced(
    n: int, pairs: list[tuple[Item | None, Item | None, ItemChange]], direct: list[list[Cause]]
) -> list[Cause]:
    before, after, change = pairs[n]
    some = after or before
    assert some is not None
    kind = change.change
    wanted = _INTO if kind in _OUT_OF else _OUT_OF if kind in _INTO else _INTO | _OUT_OF
    found: list[Cause] = []
    for same_section in (True, False):
        for m, (b, a, other) in enumerate(pairs):
            them = a or b
            assert them is not None
            if m == n or not direct[m] or other.change not in wanted:
                continue
            if (them.section == some.section) != same_section:
                continue
            cause = direct[m][0]
            verb = {ENTERED: "entered", NEW: "entered", GREW: "grew", LEFT: "left", GONE: "left", SHRANK: "shrank"}
            why = f"{cause.kind}: {cause.where}" if cause.where else cause.text
            text = f"moved by {item_words(them)}, which {verb.get(other.change, 'changed fate')} ({why})"
            found.append(Cause(DISPLACED, text, cause.file, cause.lines, item_words(them)))
        if found:
            break
    return found


# -- the run ------------------------------------------------------------------------------------


def diff_task(
    edits: FileDiffs,
    feature: Feature,
    task: Task,
    before: Trace | None,
    after: Trace | None,
    changed_files: Sequence[str],
) -> TaskRevisionDiff:
    """*task* of *feature* before and after, diffed and each changed candidate's causes found in *edits*."""
    if before is None or after is None:
        return TaskRevisionDiff(feature.name, task.id, task.title, before, after, None, ())
    diff = diff_traces(before, after)
    pairs = []
    for b, a in pair_items(before.items, after.items):
        change = item_change(b, a, after.tokenizer, fates=True)
        if change is not None:
            pairs.append((b, a, change))
    diff = dataclasses.replace(diff, items=tuple(c for _b, _a, c in pairs))
    changes = _attribute(edits, feature, diff, pairs, changed_files)
    return TaskRevisionDiff(feature.name, task.id, task.title, before, after, diff, changes)


def diff_revisions(
    project: str | Path,
    rev_a: str,
    rev_b: str | None = None,
    *,
    feature: str | None = None,
    task: str | None = None,
    overrides: Mapping[str, Any] | None = None,
    exact: bool = True,
    cancel: threading.Event | None = None,
    progress: ProgressFn | None = None,
) -> RevisionDiff:
    """The chosen tasks (a feature's, one task's, or every one) at *rev_a* and at *rev_b* (the
    working tree when None), diffed and attributed.  Raises a
    :class:`~ctxviewer.engine.files.git.GitError` for git missing, no repository or an unknown
    revision, and the engine's errors for a project either side cannot load."""
    path = Path(project)
    repo = open_repository(path)
    a, b = resolve_revision(repo, rev_a), resolve_revision(repo, rev_b)

    def report(stage: str, fraction: float) -> None:
        if cancel is not None and cancel.is_set():
            raise Cancelled(stage)
        if progress is not None:
            progress(stage, fraction)

    with ExitStack() as stack:
        report(f"reading {a.label}", 0.0)
        proj_a, notes_a = _load_side(stack, repo, a, path, overrides, cancel, lambda s, f: report(s, 0.2 * f))
        report(f"reading {b.label}", 0.2)
        proj_b, notes_b = _load_side(stack, repo, b, path, overrides, cancel, lambda s, f: report(s, 0.2 + 0.2 * f))
        notes = [*notes_a, *notes_b]
        both = f"at {a.label} or at {b.label}"
        if not (is_project(proj_a) or is_project(proj_b)):
            try:
                require_project(proj_b, f" {both}")
            except ProjectError as exc:  # named by the folder given, not the scratch copy
                raise ProjectError(exc.message, str(path)) from None
        if feature is not None:  # named as at either side, case ignored where that is unambiguous
            names = list(dict.fromkeys(f.name for f in (*proj_a.features, *proj_b.features)))
            found = match_id(feature, names)
            if found is None:
                where = f"in {proj_b.settings.paths.specs} {both}"
                raise UnknownFeatureError(no_match(feature, names, "feature", where), str(path))
            feature = found
        if task is not None:
            ids = list(
                dict.fromkeys(
                    t.id for _, t in (*_targets(proj_a, feature, None, a, []), *_targets(proj_b, feature, None, b, []))
                )
            )
            found = match_id(task, ids)
            if found is None:
                where = f"{f'in feature {feature!r} ' if feature else ''}{both}"
                raise UnknownTaskError(no_match(task, ids, "task", where), str(path))
            task = found
        targets_a = _targets(proj_a, feature, task, a, notes)
        targets_b = _targets(proj_b, feature, task, b, notes)
        keys_b = {(f.name, t.id) for f, t in targets_b}
        old = {(f.name, t.id): (f, t) for f, t in targets_a}
        order = [(f, t, old.get((f.name, t.id))) for f, t in targets_b]
        order += [(f, t, (f, t)) for f, t in targets_a if (f.name, t.id) not in keys_b]
        diffs = FileDiffs(repo, a.sha or "", b.sha) if a.sha else None
        if diffs is None:
            raise CtxViewerError("revision A must be a commit; the working tree can only be B")
        changed = diffs.changed_files()
        out = []
        total = max(1, len(order))
        for n, (feat, tsk, was) in enumerate(order):
            report(f"{feat.name}/{tsk.id}", 0.4 + 0.6 * n / total)
            in_b = (feat.name, tsk.id) in keys_b
            after = assemble_task(proj_b, feat, tsk, exact=exact, cancel=cancel) if in_b else None
            before = None
            if was is not None:
                before = assemble_task(proj_a, was[0], was[1], exact=exact, cancel=cancel)
                if after is not None and before.context_tokens.get(after.tokenizer) is None:
                    before = assemble_task(proj_a, was[0], was[1], exact=True, cancel=cancel)
            out.append(diff_task(diffs, feat, tsk, before, after, changed))
        report("done", 1.0)
        return RevisionDiff(str(project), a, b, tuple(out), changed, tuple(notes))
