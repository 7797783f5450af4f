"""Findings placed in files, for what CI shows on a line: the spec, rule or task-graph file and
line each finding is about, and an identity that survives edits elsewhere (docs/ci.md#sarif).

:class:`Site` is what :mod:`.sarif` and :mod:`.github` write; a :class:`Locator` makes them
from a task's trace and its findings (:meth:`Locator.sites`) or for a whole task
(:meth:`Locator.task_site`), and :func:`revision_sites` from a revision diff.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ctxviewer.engine.analysis.findings import CODES, Finding
from ctxviewer.engine.errors import CtxViewerError
from ctxviewer.engine.project.loading import Feature, Project, Task
from ctxviewer.engine.runs.revisions import CandidateChange, RevisionDiff, TaskRevisionDiff
from ctxviewer.engine.trace.model import Trace

#: Rules beyond the finding codes: (severity, what it means in a line), documented in docs/ci.md.
OVER_LIMIT = "over-limit"
CONTEXT_GREW = "context-grew"
CANDIDATE_MOVED = "candidate-moved"
EXTRA_RULES: Mapping[str, tuple[str, str]] = {
    OVER_LIMIT: ("error", "a task's context is over check's limit (--max-tokens; by default the budget)"),
    CONTEXT_GREW: ("error", "a task's context grew by more than diff's --fail-if-grows allows"),
    CANDIDATE_MOVED: ("info", "a candidate came into or left a task's context between two revisions"),
}
#: Every rule a site may name: the finding codes, then the extra rules.
RULES: Mapping[str, tuple[str, str]] = {**CODES, **EXTRA_RULES}


@dataclass(frozen=True, slots=True)
class Site:
    """One thing to report on a line of a file: a finding, a task over its limit, an edit."""

    rule: str
    #: ``error``, ``warning`` or ``info`` (a finding's severity).
    severity: str
    feature: str
    task: str
    #: One plain sentence.
    message: str
    #: The file, as a path from the folder the command ran in ('' when there is none to name).
    path: str
    #: Its first line (1-based), or None for the whole file.
    line: int | None
    #: What stays the same while the finding does: never a line number or a paragraph's place.
    identity: str
    #: Whether it fails the run (check's --fail-on, diff's --fail-if-grows).
    fails: bool = False


def base_path(project_root: Path, cwd: Path | None = None) -> str:
    """The project folder as CI names files: a path from *cwd* (the folder the command runs in,
    by default the current one) with ``/``, or an absolute path when the project is outside it."""
    here = (cwd or Path.cwd()).resolve()
    root = project_root.resolve()
    try:
        rel = root.relative_to(here)
    except ValueError:
        return root.as_posix()
    return "" if rel == Path(".") else rel.as_posix()


def joined(base: str, rel: str) -> str:
    """*rel* (a project path) as a path from where the command runs."""
    return f"{base}/{rel}" if base else rel


def task_line(text: str, task_id: str) -> int | None:
    """The first line of *text* (a task graph, JSON or YAML) that gives the task its id, or None."""
    value = re.escape(task_id)
    key = re.compile(rf"""(?:^|[\s{{,\-])["']?id["']?\s*:\s*(?:"{value}"|'{value}'|{value}(?=\s*(?:[,}}#]|$)))""")
    for n, line in enumerate(text.splitlines(), start=1):
        if key.search(line):
            return n
    return None


class Locator:
    """Places findings in the files of one project, reading each task graph once."""

    def __init__(self, project: Project, cwd: Path | None = None) -> None:
        self.project = project
        self.base = base_path(project.root, cwd)
        self._graphs: dict[str, str] = {}

    def task_place(self, feature: Feature, task: Task) -> tuple[str, int | None]:
        """The task graph's path (from where the command runs) and the line of *task* in it."""
        if feature.graph_path is None:
            return joined(self.base, feature.spec_dir), None
        text = self._graphs.get(feature.graph_path)
        if text is None:
            read = self.project.fs.read_text(feature.graph_path)
            text = self._graphs[feature.graph_path] = read.text or ""
        return joined(self.base, feature.graph_path), task_line(text, task.id)

    def sites(
        self,
        feature: Feature,
        task: Task,
        trace: Trace,
        findings: Iterable[Finding],
        failing: frozenset[str] = frozenset(),
    ) -> list[Site]:
        """*findings* of *task*'s *trace* placed: an item's own file and first line when it has
        one in the project, else the task's line in its task graph."""
        items = {item.id: item for item in trace.items}
        out: list[Site] = []
        for f in findings:
            item = items.get(f.item) if f.item is not None else None
            if item is not None and item.source and self.project.fs.is_file(item.source):
                path, line = joined(self.base, item.source), item.line_start
                identity = "\0".join((f.code, f.feature, f.task, item.kind, item.source, _words(item.text)))
            else:
                path, line = self.task_place(feature, task)
                about = item.source if item is not None else ""
                identity = "\0".join((f.code, f.feature, f.task, f.section or "", about))
            out.append(Site(f.code, f.severity, f.feature, f.task, f.message, path, line, identity, f.code in failing))
        return out

    def task_site(self, feature: Feature, task: Task, rule: str, message: str, fails: bool) -> Site:
        """A site for a whole task (over a limit, grown), on its line of the task graph."""
        path, line = self.task_place(feature, task)
        identity = "\0".join((rule, feature.name, task.id))
        return Site(rule, RULES[rule][0], feature.name, task.id, message, path, line, identity, fails)


def _words(text: str) -> str:
    """*text* with its spacing made plain: rewrapping a paragraph does not make it another."""
    return " ".join(text.split())


def ordered(sites: Sequence[Site]) -> list[Site]:
    """Failing sites first, then by severity, each group in the order given."""
    rank = {"error": 0, "warning": 1, "info": 2}
    return sorted(sites, key=lambda s: (not s.fails, rank.get(s.severity, 3)))


def revision_sites(diff: RevisionDiff, locator: Locator, fail_if_grows: float | None) -> list[Site]:
    """A revision diff's sites: each task grown past *fail_if_grows* percent (failing), on its
    line of the task graph, and each candidate that moved, at the edit that moved it (else at
    the candidate itself).  Lines are the project's as *locator* reads it (the working tree)."""
    from ctxviewer.engine.runs.revision_report import growth_text

    out: list[Site] = []
    features = {f.name: f for f in locator.project.features}
    if fail_if_grows is not None:
        for task in diff.grown_over(fail_if_grows):
            message = (
                f"the context grew {growth_text(task)} ({task.tokens_before:,} \u2192 {task.tokens_after:,} tokens) "
                f"from {diff.a.label} to {diff.b.label}, more than the {fail_if_grows:g}% allowed"
            )
            feature = features.get(task.feature)
            try:
                owner = feature.task(task.task_id) if feature is not None else None
            except CtxViewerError:
                owner = None
            if feature is not None and owner is not None:
                out.append(locator.task_site(feature, owner, CONTEXT_GREW, message, True))
            else:
                identity = "\0".join((CONTEXT_GREW, task.feature, task.task_id))
                out.append(Site(CONTEXT_GREW, "error", task.feature, task.task_id, message, "", None, identity, True))
    for task in diff.tasks:
        for change in task.changes:
            out.append(_moved_site(diff, task, change, locator.base))
    return out


def _moved_site(diff: RevisionDiff, task: TaskRevisionDiff, change: CandidateChange, base: str) -> Site:
    item_change = change.change
    sides = [t for t in (task.after, task.before) if t is not None]
    item = next((i for t in sides for i in t.items if i.id == item_change.item_id), None)
    cause = next((c for c in change.causes if c.file), None)
    if cause is not None:
        path, line = joined(base, cause.file), (cause.lines[0][0] if cause.lines else None)
    elif item is not None and item.source:
        path, line = joined(base, item.source), item.line_start
    else:
        path, line = "", None
    why = "; ".join(c.text for c in change.causes)
    message = f"{change.words} {item_change.change} from {diff.a.label} to {diff.b.label}" + (f": {why}" if why else "")
    words = _words(item.text) if item is not None else item_change.label
    source = item.source if item is not None else ""
    identity = "\0".join((CANDIDATE_MOVED, task.feature, task.task_id, item_change.change, source, words))
    return Site(CANDIDATE_MOVED, "info", task.feature, task.task_id, message, path, line, identity)
