"""Profile ``computed``: seed 004's computed context, every decision on record.

The context is computed from the task's signals (:mod:`ctxviewer.engine.signals.task`)
rather than from the spec and rule files:

* **Knowledge** (phase 2): the ``knowledge`` list of the project's context map file
  (``paths.context_map``, by default ``.mahabharatha/context-map.yaml``; see
  ``docs/computed-context.md``).  A node's score in a query is the number of its tags
  that are among the query's words (tags compared lowercased, plurals folded).  The
  keyword query keeps the 20 best-scoring nodes with a tag among the keywords, the
  domain query the 10 best with a tag among the domains (ties in file order); the
  two are merged keyword query first, a node found by both keeping its keyword score.
  Sorted by score (stable), patterns keep 5, gotchas 3, decisions 3, related tasks 5.
* **Prior work** (phase 3): each of the task's ``dependencies``, in order.  One missing
  from the task graph, or not completed, is skipped with the reason.  Completion and
  the handoff come from ``<paths.handoffs>/<id>.yaml`` (``.yml``/``.json``), else the
  dependency's ``status`` in the graph.  Summary: the handoff's ``summary``, else the
  dependency's ``context`` (when text), else its ``description``.  Files: the handoff's
  ``dependencies_for_next`` or ``files_created``, else the dependency's
  ``files.create``.  Gotchas of ``low`` severity and questions that are not
  ``blocking`` are left out.
* **Code references** (phase 4): each ``components`` entry of the context map scores
  +2 per keyword in its component name, +1 per keyword in its location, +1 per domain
  in its notes (all lowercased substring tests) and +3 per file mentioned that its
  location contains; entries scoring above 0 are sorted by score (stable) and the best
  10 kept.
* **Limits by complexity**: the task's ``complexity`` (easy/haiku/low/simple,
  normal/sonnet/medium/moderate, complex/opus/high/hard) caps patterns, warnings, code
  references and prior tasks at seed 004's table; without the field only the phase
  limits apply.
* **Injection and budget**: the kept entries are rendered in seed 004's injection
  format.  While the whole counts over the budget (decision tokenizer), entries are cut
  one at a time, least important first: code references from the bottom, then
  decisions, patterns, prior-work blocks (last dependency first), warnings, and
  blocking questions last; each cut is a trim step.

Every knowledge node, context-map entry, dependency and blocking question is an item
of the trace with its score and fate; the "Context Debug" record (seed 004's
``DEBUG_CONTEXT`` output) is :attr:`~ctxviewer.engine.trace.model.Trace.debug`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ctxviewer.engine.errors import ProjectError
from ctxviewer.engine.files.reading import OutsideRootError
from ctxviewer.engine.profiles.base import ItemDraft, ProfileResult, RunBase, fmt, plain_name
from ctxviewer.engine.project.loading import Task, read_document
from ctxviewer.engine.signals.task import extract_signals
from ctxviewer.engine.signals.words import normalise
from ctxviewer.engine.trace.model import (
    CUT_FOR_BUDGET,
    INCLUDED,
    NOT_CANDIDATE,
    OUTRANKED,
    Item,
    Section,
    Signals,
    Trace,
)

# -- kinds and sections ------------------------------------------------------------------

KNOWLEDGE = "knowledge_node"
MAP_ENTRY = "context_map_entry"
DEPENDENCY = "dependency"
QUESTION = "open_question"

PATTERNS = "patterns"
WARNINGS = "warnings"
DECISIONS = "decisions"
PRIOR_WORK = "prior_work"
CODE_REFS = "code_references"
QUESTIONS = "open_questions"
RELATED = "related_tasks"

#: The injection format's sections in order: (name, heading).
SECTIONS: tuple[tuple[str, str], ...] = (
    (PATTERNS, "Patterns to Follow"),
    (WARNINGS, "Warnings"),
    (DECISIONS, "Relevant Decisions"),
    (PRIOR_WORK, "Prior Work"),
    (CODE_REFS, "Code References"),
    (QUESTIONS, "Open Questions (Blocking)"),
)
#: What a section says when it has nothing (None: the heading alone, as seed 004's template).
EMPTY_TEXT: Mapping[str, str | None] = {
    PATTERNS: "No specific patterns identified for this task.",
    WARNINGS: "No known gotchas for this task area.",
    DECISIONS: None,
    PRIOR_WORK: None,
    CODE_REFS: "Explore the codebase as needed. No specific references pre-identified.",
    QUESTIONS: None,
}
HEADER = "## Context (Computed)"
QUESTIONS_LEAD = "\u26a0\ufe0f The following questions need resolution:"
#: Which section is cut first when over budget (first in this list goes first).
CUT_ORDER = (CODE_REFS, DECISIONS, PATTERNS, PRIOR_WORK, WARNINGS, QUESTIONS)

#: Phase 2's limits: the keyword and domain queries, then each category.
KEYWORD_QUERY_LIMIT = 20
DOMAIN_QUERY_LIMIT = 10
PHASE_LIMITS: Mapping[str, int] = {PATTERNS: 5, WARNINGS: 3, DECISIONS: 3, RELATED: 5, CODE_REFS: 10}
#: Seed 004's context limits by complexity.
COMPLEXITY_LIMITS: Mapping[str, Mapping[str, int]] = {
    "easy": {PATTERNS: 3, WARNINGS: 2, CODE_REFS: 5, PRIOR_WORK: 2},
    "normal": {PATTERNS: 5, WARNINGS: 3, CODE_REFS: 10, PRIOR_WORK: 4},
    "complex": {PATTERNS: 10, WARNINGS: 5, CODE_REFS: 20, PRIOR_WORK: 8},
}
COMPLEXITY_ALIASES: Mapping[str, str] = {
    **dict.fromkeys(("easy", "haiku", "low", "simple", "trivial"), "easy"),
    **dict.fromkeys(("normal", "sonnet", "medium", "moderate", "standard"), "normal"),
    **dict.fromkeys(("complex", "opus", "high", "hard"), "complex"),
}
NODE_TYPES = {"pattern": PATTERNS, "gotcha": WARNINGS, "decision": DECISIONS, "task": RELATED}
HANDOFF_SUFFIXES = (".yaml", ".yml", ".json")

DEFAULT_CONTEXT_MAP = ".mahabharatha/context-map.yaml"
DEFAULT_HANDOFFS = ".mahabharatha/handoffs"


# -- reading the optional project files ----------------------------------------------------


def _text(value: Any) -> str:
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
        text = _text(tag).lower()
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
        name, location = _text(entry.get("component")), _text(entry.get("location"))
        if not name and not location:
            problems.append((f"components[{n}]: has neither component nor location; ignored", None))
            continue
        components.append(Component(n, name, location, _text(entry.get("notes"))))
    nodes: list[Node] = []
    for n, entry in enumerate(_entries(data, "knowledge", problems), 1):
        if not isinstance(entry, Mapping):
            problems.append((f"knowledge[{n}]: not a mapping; ignored", None))
            continue
        kind = _text(entry.get("type")).lower()
        if kind not in NODE_TYPES:
            problems.append(
                (f"knowledge[{n}]: type {kind or 'missing'!r} is not pattern, gotcha, decision or task; ignored", None)
            )
            continue
        summary = _text(entry.get("summary"))
        node_id = _text(entry.get("id"))
        if not summary and not (kind == "task" and node_id):
            problems.append((f"knowledge[{n}]: no summary; ignored", None))
            continue
        nodes.append(
            Node(
                index=n,
                type=kind,
                summary=summary or node_id,
                tags=_tags(entry.get("tags")),
                file=_text(entry.get("file") or entry.get("location")),
                severity=_text(entry.get("severity")).lower() or "medium",
                rationale=_text(entry.get("rationale")),
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
            path = _text(entry.get("path") or entry.get("file"))
            if path:
                out.append((path, _text(entry.get("reason") or entry.get("purpose") or entry.get("description"))))
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
    graph_status = _text(raw.get("status")).lower()
    graph_files = raw.get("files", {}).get("create") if isinstance(raw.get("files"), Mapping) else None
    context = raw.get("context")
    fallback_summary = (
        context.strip() if isinstance(context, str) and context.strip() else _text(raw.get("description"))
    )
    if rel is None:
        return Handoff(None, graph_status, _text(fallback_summary), _files_of(graph_files))
    try:
        data = read_document(fs, rel)
    except ProjectError as exc:
        problem: tuple[str, int | None] = (exc.message, exc.line)
        return Handoff(rel, graph_status, _text(fallback_summary), _files_of(graph_files), problems=(problem,))
    except OutsideRootError as exc:
        return Handoff(rel, graph_status, _text(fallback_summary), _files_of(graph_files), problems=((exc.why, None),))
    if not isinstance(data, Mapping):
        problem = (f"is {type(data).__name__}, not a mapping; read from the task graph instead", None)
        return Handoff(rel, graph_status, _text(fallback_summary), _files_of(graph_files), problems=(problem,))
    problems: list[tuple[str, int | None]] = []
    declared = _text(data.get("task_id"))
    if declared and declared != dep.id:
        problems.append((f"task_id {declared!r} is not {dep.id!r}; read all the same", None))
    files_value = data.get("dependencies_for_next", data.get("files_created"))
    files = _files_of(files_value) if files_value is not None else _files_of(graph_files)
    patterns = []
    for entry in data.get("patterns_discovered") or []:
        text = _text(entry.get("pattern") if isinstance(entry, Mapping) else entry)
        if text:
            patterns.append(text)
    gotchas: list[tuple[str, str]] = []
    low = 0
    for entry in data.get("gotchas") or []:
        if isinstance(entry, Mapping):
            severity = _text(entry.get("severity")).lower() or "medium"
            issue = _text(entry.get("issue") or entry.get("summary"))
        else:
            severity, issue = "medium", _text(entry)
        if not issue:
            continue
        if severity == "low":
            low += 1
        else:
            gotchas.append((severity, issue))
    questions: list[tuple[str, str, str]] = []
    nonblocking = 0
    for entry in data.get("open_questions") or []:
        if not isinstance(entry, Mapping) or not _text(entry.get("question")):
            continue
        if entry.get("blocking") is True:
            questions.append(
                (_text(entry["question"]), _text(entry.get("context")), _text(entry.get("recommendation")))
            )
        else:
            nonblocking += 1
    return Handoff(
        rel,
        _text(data.get("status")).lower() or graph_status,
        _text(data.get("summary")) or _text(fallback_summary),
        files,
        tuple(patterns),
        tuple(gotchas),
        low,
        tuple(questions),
        nonblocking,
        tuple(problems),
    )


# -- scoring ---------------------------------------------------------------------------------


def node_score(node: Node, words: Sequence[str]) -> tuple[int, tuple[str, ...]]:
    """How many of the node's tags are among *words*, and which."""
    hit = tuple(t for t in node.tags if t in words)
    return len(hit), hit


def component_score(
    entry: Component, keywords: Sequence[str], domains: Sequence[str], files: Sequence[str]
) -> tuple[int, dict[str, list[str]]]:
    """Seed 004's phase 4 score of one context-map entry, with what scored."""
    why: dict[str, list[str]] = {"component": [], "location": [], "notes": [], "file": []}
    score = 0
    component, location, notes = entry.component.lower(), entry.location.lower(), entry.notes.lower()
    for keyword in keywords:
        if keyword in component:
            score += 2
            why["component"].append(keyword)
        if keyword in location:
            score += 1
            why["location"].append(keyword)
    for domain in domains:
        if domain.lower() in notes:
            score += 1
            why["notes"].append(domain)
    for path in files:
        if path in entry.location:
            score += 3
            why["file"].append(path)
    return score, why


def complexity_of(raw: Mapping[str, Any]) -> tuple[str | None, str]:
    """The task's complexity level for the limits table, and what to say about it."""
    value = raw.get("complexity")
    if value is None:
        return None, "no complexity field: only the phase limits apply"
    text = _text(value).lower()
    level = COMPLEXITY_ALIASES.get(text)
    if level is None:
        return None, f"complexity {text or repr(value)!r} is not easy, normal or complex: only the phase limits apply"
    return level, f"complexity {text!r}: the {level} limits"


# -- the debug record -------------------------------------------------------------------------


def listing(values: Sequence[str]) -> str:
    return "[" + ", ".join(values) + "]"


def signals_debug(s: Signals) -> list[str]:
    """The "Context Debug" record's first part: the signals extracted (every profile has them)."""
    return [
        "## Context Debug",
        "",
        "### Signals Extracted",
        f"- Keywords: {listing(s.values('keyword'))}",
        f"- Domains: {listing(s.values('domain'))}",
        f"- Files Mentioned: {listing(s.values('file'))}",
        f"- Task: {listing([f'{t.kind} {t.value}' for t in s.task])}",
    ]


def debug_text(trace: Trace) -> str:
    """The trace's "Context Debug" record; for other profiles than ``computed``, its signals part."""
    if trace.debug:
        return trace.debug
    lines = [
        *signals_debug(trace.signals),
        "",
        f"(the {trace.profile} profile computes no knowledge, prior work or code references: "
        "those parts of the record are the computed profile's)",
    ]
    return "\n".join(lines) + "\n"


# -- the run --------------------------------------------------------------------------------


@dataclass
class Entry:
    """A candidate for one section of the injection: its draft and its rendered lines."""

    section: str
    draft: ItemDraft
    text: str
    kept: bool = True
    #: Cut by :meth:`ComputedRun._fit` to meet the budget (not by a limit).
    cut_for_budget: bool = False


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


class ComputedRun(RunBase):
    """One run of seed 004's computed context over one task."""

    def run(self) -> ProfileResult:
        settings = self.settings
        self.signals: Signals = extract_signals(self.raw, settings.domains)
        self._check("signals", 0.1)
        self.level, self.level_note = complexity_of(self.raw)
        self.limits: dict[str, tuple[int, str]] = {}
        for name, limit in PHASE_LIMITS.items():
            phase = "phase 4" if name == CODE_REFS else "phase 2"
            self.limits[name] = (limit, f"{phase} keeps {limit}")
        if self.level is not None:
            for name, limit in COMPLEXITY_LIMITS[self.level].items():
                if name not in self.limits or limit < self.limits[name][0]:
                    self.limits[name] = (limit, f"complexity {self.level} keeps {limit}")
        self.cmap = read_context_map(self.fs, settings.paths.context_map)
        for message, line in self.cmap.problems:
            self._error("context map", "input", message, "left out of the computed context", self.cmap.path, line)
        self.entries: dict[str, list[Entry]] = {name: [] for name, _ in SECTIONS}
        self.debug_counts: dict[str, Any] = {}
        self._knowledge()
        self._check("knowledge", 0.3)
        self._dependencies()
        self._check("dependencies", 0.5)
        self._context_map()
        self._check("context map", 0.7)
        context, sections = self._fit()
        self._check("budget", 0.9)
        drafts: list[ItemDraft | Item] = [e.draft for entries in self.entries.values() for e in entries]
        self.items = [*drafts, *self.extra_items]
        items = self.finish_items(sections)
        notes: list[str] = []
        if not self.cmap.found and not self.cmap.problems:
            notes.append(f"no context map at {self.cmap.path}: no patterns, gotchas, decisions or code references")
        used = self.counter.count(context)
        if used > settings.budget:
            notes.append(
                f"the empty injection format alone counts {fmt(used)} tokens, over the budget of {fmt(settings.budget)}"
            )
        return ProfileResult(
            context=context,
            sections=sections,
            items=items,
            trim_steps=tuple(self.steps),
            keywords=(),
            errors=tuple(self.errors),
            task_files=(),
            section_budgets={name: settings.budget for name, _ in SECTIONS},
            buffer=0,
            notes=tuple(notes),
            debug=self.debug_record(used),
            signals=self.signals,
        )

    # -- phase 2 --------------------------------------------------------------------------

    def _query(self, words: Sequence[str], limit: int) -> tuple[list[tuple[Node, int, tuple[str, ...]]], list[Node]]:
        scored = []
        for node in self.cmap.nodes:
            score, hit = node_score(node, words)
            if score:
                scored.append((node, score, hit))
        scored.sort(key=lambda t: -t[1])
        return scored[:limit], [n for n, _, _ in scored[limit:]]

    def _knowledge(self) -> None:
        keywords = self.signals.values("keyword")
        domains = self.signals.values("domain")
        by_keyword, keyword_over = self._query(keywords, KEYWORD_QUERY_LIMIT)
        by_domain, domain_over = self._query(domains, DOMAIN_QUERY_LIMIT)
        found: dict[int, tuple[Node, int, tuple[str, ...], str]] = {}
        for node, score, hit in by_keyword:
            found[node.index] = (node, score, hit, "keyword")
        for node, score, hit in by_domain:
            found.setdefault(node.index, (node, score, hit, "domain"))
        over = {n.index for n in keyword_over} | {n.index for n in domain_over}
        categories: dict[str, list[tuple[Node, int, tuple[str, ...], str]]] = {}
        for entry in found.values():
            categories.setdefault(NODE_TYPES[entry[0].type], []).append(entry)
        self.extra_items: list[ItemDraft] = []
        kept_by_category: dict[str, int] = {}
        placed: set[int] = set()
        for category, entries in categories.items():
            entries.sort(key=lambda e: -e[1])
            limit, why = self.limits[category]
            for rank, (node, score, hit, query) in enumerate(entries, 1):
                placed.add(node.index)
                reason = f"{query} query: tags {', '.join(hit)} (score {score}); rank {rank} of {len(entries)}"
                if category == RELATED:
                    status, reason = (
                        NOT_CANDIDATE,
                        reason + "; a related task: counted, the injection format has no place for it",
                    )
                    if rank > limit:
                        reason = f"{query} query: score {score}; rank {rank}: over the limit, {why}"
                    self.extra_items.append(self._node_draft(node, RELATED, score, hit, rank, status, reason, ""))
                    continue
                draft = self._node_draft(node, category, score, hit, rank, INCLUDED, reason, self._node_text(node))
                candidate = Entry(category, draft, draft.text)
                if rank > limit:
                    candidate.kept = False
                    draft.status = OUTRANKED
                    draft.reason = f"{query} query: score {score}; rank {rank} of {len(entries)}: cut, {why}"
                else:
                    kept_by_category[category] = kept_by_category.get(category, 0) + 1
                self.entries[category].append(candidate)
        for node in self.cmap.nodes:
            if node.index in placed:
                continue
            category = NODE_TYPES[node.type]
            fate = NOT_CANDIDATE
            if node.index in over:
                reason = "tags match, but the query already had its limit of better-scoring nodes"
                fate = OUTRANKED
            elif not node.tags:
                reason = "no tags: no query can find it"
            else:
                reason = "no tag among the task's keywords or domains"
            self.extra_items.append(self._node_draft(node, category, 0, (), None, fate, reason, self._node_text(node)))
        self.debug_counts["nodes"] = len(found)

    def _node_draft(
        self,
        node: Node,
        section: str,
        score: int,
        hit: tuple[str, ...],
        rank: int | None,
        status: str,
        reason: str,
        text: str,
    ) -> ItemDraft:
        details: dict[str, Any] = {"type": node.type, "summary": node.summary, "tags": list(node.tags)}
        if node.id:
            details["id"] = node.id
        if node.file:
            details["file"] = node.file
        if node.type == "gotcha":
            details["severity"] = node.severity
        if node.rationale:
            details["rationale"] = node.rationale
        return ItemDraft(
            id=f"knowledge:{node.index}",
            kind=KNOWLEDGE,
            section=section,
            part=node.type,
            source=f"{self.cmap.path} knowledge[{node.index}]",
            line_start=None,
            line_end=None,
            score=score,
            matched=hit,
            rank=rank,
            status=status,
            reason=reason,
            text=text,
            kept_chars=0,
            details=details,
        )

    @staticmethod
    def _node_text(node: Node) -> str:
        if node.type == "pattern":
            return f"- **{node.summary}**" + (f" (see: {node.file})" if node.file else "")
        if node.type == "gotcha":
            return f"- \u26a0\ufe0f **{node.severity}**: {node.summary}"
        return f"- {node.summary}"

    # -- phase 3 --------------------------------------------------------------------------

    def _dependencies(self) -> None:
        deps = self.raw.get("dependencies")
        by_id = {t.id: t for t in self.feature.tasks}
        limit, why = self.limits.get(PRIOR_WORK, (len(deps) if isinstance(deps, list) else 0, ""))
        kept = 0
        self.inherited_ids: list[str] = []
        self.inherited_patterns = 0
        self.inherited_warnings = 0
        if deps is None:
            return
        if not isinstance(deps, list):
            self._error(
                "dependencies",
                "input",
                f"dependencies is {type(deps).__name__}, not a list",
                "no prior work",
            )
            return
        for n, dep_id in enumerate(deps, 1):
            shown = dep_id if isinstance(dep_id, str) else repr(dep_id)
            draft = ItemDraft(
                id=f"dependency:{shown}",
                kind=DEPENDENCY,
                section=PRIOR_WORK,
                part="dependency",
                source=f"dependencies[{n}]",
                line_start=None,
                line_end=None,
                score=None,
                matched=(),
                rank=n,
                status=NOT_CANDIDATE,
                reason="",
                text="",
                kept_chars=0,
            )
            dep = by_id.get(dep_id) if isinstance(dep_id, str) else None
            if dep is None:
                draft.reason = "not in the task graph: skipped"
                self.extra_items.append(draft)
                continue
            handoff = read_handoff(self.fs, find_handoff(self.fs, self.settings.paths.handoffs, dep.id), dep)
            for message, line in handoff.problems:
                self._error("handoff", "input", message, "the rest of the dependency is used", handoff.path, line)
            draft.source = handoff.path or f"{self.feature.graph_path or 'task graph'} ({dep.id})"
            draft.details = {
                "status": handoff.status or "unknown",
                "files": [f for f, _ in handoff.files],
                "patterns": list(handoff.patterns),
                "gotchas_left_out_as_low": handoff.low_gotchas,
                "questions_not_blocking": handoff.nonblocking,
            }
            if handoff.status != "completed":
                where = "its handoff file" if handoff.path else "the task graph (no handoff file)"
                draft.reason = f"status {handoff.status or 'unknown'!r} in {where}, not 'completed': skipped"
                self.extra_items.append(draft)
                continue
            self.inherited_ids.append(dep.id)
            kept += 1
            if kept > limit:
                draft.status = OUTRANKED
                draft.reason = f"completed, but over the limit: {why} prior tasks"
                self.extra_items.append(draft)
                continue
            self.inherited_patterns += len(handoff.patterns)
            self.inherited_warnings += len(handoff.gotchas)
            draft.status = INCLUDED
            draft.reason = f"completed ({'handoff file' if handoff.path else 'task graph status'})"
            draft.text = self._prior_text(dep, handoff)
            self.entries[PRIOR_WORK].append(Entry(PRIOR_WORK, draft, draft.text))
            for q, (question, context, recommendation) in enumerate(handoff.questions, 1):
                lines = [f"- **{question}**"]
                if context:
                    lines.append(f"  - Context: {context}")
                if recommendation:
                    lines.append(f"  - Recommendation: {recommendation}")
                qdraft = ItemDraft(
                    id=f"question:{dep.id}:{q}",
                    kind=QUESTION,
                    section=QUESTIONS,
                    part="blocking question",
                    source=handoff.path or dep.id,
                    line_start=None,
                    line_end=None,
                    score=None,
                    matched=(),
                    rank=q,
                    status=INCLUDED,
                    reason=f"blocking question handed over by {dep.id}",
                    text="\n".join(lines),
                    kept_chars=0,
                )
                self.entries[QUESTIONS].append(Entry(QUESTIONS, qdraft, qdraft.text))

    @staticmethod
    def _prior_text(dep: Task, handoff: Handoff) -> str:
        lines = [f"#### {dep.title or dep.id}"]
        if handoff.summary:
            lines.append(handoff.summary)
        if handoff.files:
            lines += ["", "**Files Created:**"]
            lines += [f"- `{path}`: {reason}" if reason else f"- `{path}`" for path, reason in handoff.files]
        if handoff.gotchas:
            lines += ["", "**Warnings:**"]
            lines += [f"- \u26a0\ufe0f **{severity}**: {issue}" for severity, issue in handoff.gotchas]
        return "\n".join(lines)

    # -- phase 4 --------------------------------------------------------------------------

    def _context_map(self) -> None:
        keywords = self.signals.values("keyword")
        domains = self.signals.values("domain")
        files = self.signals.values("file")
        scored: list[tuple[Component, int, dict[str, list[str]]]] = []
        for entry in self.cmap.components:
            score, why = component_score(entry, keywords, domains, files)
            scored.append((entry, score, why))
        ranked = sorted((s for s in scored if s[1] > 0), key=lambda s: -s[1])
        rank_of = {s[0].index: r for r, s in enumerate(ranked, 1)}
        limit, why_limit = self.limits[CODE_REFS]
        self.debug_counts["map_total"] = len(self.cmap.components)
        self.debug_counts["map_kept"] = min(len(ranked), limit)
        self.debug_counts["top_score"] = ranked[0][1] if ranked else 0
        for entry, score, why in sorted(scored, key=lambda s: rank_of.get(s[0].index, len(scored) + s[0].index)):
            rank = rank_of.get(entry.index)
            matched = tuple(dict.fromkeys(w for words in why.values() for w in words))
            parts = [f"{k}: {', '.join(v)}" for k, v in why.items() if v]
            text = f"| `{_cell(entry.location)}` | {_cell(entry.component)} | {_cell(entry.notes)} |"
            draft = ItemDraft(
                id=f"component:{entry.index}",
                kind=MAP_ENTRY,
                section=CODE_REFS,
                part="component",
                source=f"{self.cmap.path} components[{entry.index}]",
                line_start=None,
                line_end=None,
                score=score,
                matched=matched,
                rank=rank,
                status=INCLUDED,
                reason="",
                text=text,
                kept_chars=0,
                details={
                    "component": entry.component,
                    "location": entry.location,
                    "notes": entry.notes,
                    "score_breakdown": why,
                },
            )
            if rank is None:
                draft.status = NOT_CANDIDATE
                draft.reason = (
                    "score 0: no keyword in its component or location, no domain in its notes, no file mentioned"
                )
                self.extra_items.append(draft)
                continue
            draft.reason = f"score {score} ({'; '.join(parts)}); rank {rank} of {len(ranked)}"
            item = Entry(CODE_REFS, draft, text)
            if rank > limit:
                item.kept = False
                draft.status = OUTRANKED
                draft.reason += f": cut, {why_limit}"
            self.entries[CODE_REFS].append(item)

    # -- injection and budget ---------------------------------------------------------------

    def _render(self) -> tuple[str, list[Section]]:
        parts = [HEADER]
        sections: list[Section] = []
        offset = len(HEADER)
        empty = self.census.measure("")
        for name, title in SECTIONS:
            kept = [e for e in self.entries[name] if e.kept]
            heading = f"### {title}"
            if kept:
                body_parts = [e.text for e in kept]
                if name == CODE_REFS:
                    body = "| Location | Component | Notes |\n|----------|-----------|-------|\n" + "\n".join(
                        body_parts
                    )
                    joiner = "\n"
                    lead = len("| Location | Component | Notes |\n|----------|-----------|-------|\n")
                elif name == PRIOR_WORK:
                    body = "\n\n".join(body_parts)
                    joiner, lead = "\n\n", 0
                elif name == QUESTIONS:
                    body = QUESTIONS_LEAD + "\n" + "\n".join(body_parts)
                    joiner, lead = "\n", len(QUESTIONS_LEAD) + 1
                else:
                    body = "\n".join(body_parts)
                    joiner, lead = "\n", 0
                pos = len(heading) + 1 + lead
                for e in kept:
                    e.draft.offset = pos
                    e.draft.kept_chars = len(e.text)
                    pos += len(e.text) + len(joiner)
                text = f"{heading}\n{body}"
            else:
                text = heading if EMPTY_TEXT[name] is None else f"{heading}\n{EMPTY_TEXT[name]}"
            start = offset + 2
            parts.append(text)
            offset = start + len(text)
            cut = sum(1 for e in self.entries[name] if e.cut_for_budget)
            sections.append(
                Section(
                    name=name,
                    title=title,
                    text=text,
                    budget=self.settings.budget,
                    tokens=empty,
                    status=INCLUDED,
                    reason=f"{len(kept)} kept" + (f", {cut} cut for the budget" if cut else ""),
                    span=(start, start + len(text)),
                )
            )
        for e in (e for entries in self.entries.values() for e in entries if not e.kept):
            e.draft.offset = None
            e.draft.kept_chars = 0
        return "\n\n".join(parts), sections

    def _fit(self) -> tuple[str, tuple[Section, ...]]:
        budget = self.settings.budget
        context, sections = self._render()
        tokens = self.counter.count(context)
        order = [e for name in CUT_ORDER for e in reversed(self.entries[name]) if e.kept]
        for entry in order:
            if tokens <= budget:
                break
            entry.kept = False
            entry.cut_for_budget = True
            before = (tokens, len(context))
            context, sections = self._render()
            tokens = self.counter.count(context)
            entry.draft.status = CUT_FOR_BUDGET
            entry.draft.reason += f"; cut to fit the budget of {fmt(budget)}"
            label = entry.draft.id
            self._step_counted(
                entry.section,
                "drop",
                label,
                f"cut {plain_name(entry.draft)} from {dict(SECTIONS)[entry.section]} "
                f"(the whole context was over {fmt(budget)})",
                before,
                (tokens, len(context)),
            )
        counts = self.census.measure_many([s.text for s in sections])
        finished = tuple(
            Section(s.name, s.title, s.text, s.budget, c, s.status, s.reason, s.span)
            for s, c in zip(sections, counts, strict=True)
        )
        return context, finished

    # -- debug ----------------------------------------------------------------------------

    def debug_record(self, context_tokens: int) -> str:
        """Seed 004's "Context Debug" output for this run, with the limits that cut."""
        kept = {name: sum(1 for e in self.entries[name] if e.kept) for name, _ in SECTIONS}
        found = {name: len(self.entries[name]) for name, _ in SECTIONS}
        lines = [
            *signals_debug(self.signals),
            "",
            "### Knowledge Graph Query",
            f"- Source: {self.cmap.path}" + ("" if self.cmap.found else " (not found)"),
            f"- Nodes matched: {self.debug_counts.get('nodes', 0)}",
            f"- Patterns found: {found[PATTERNS]} (kept {kept[PATTERNS]})",
            f"- Gotchas found: {found[WARNINGS]} (kept {kept[WARNINGS]})",
            f"- Decisions found: {found[DECISIONS]} (kept {kept[DECISIONS]})",
            "",
            "### Dependencies Processed",
            f"- Task IDs: {listing(self.inherited_ids)}",
            f"- Patterns inherited: {self.inherited_patterns}",
            f"- Warnings inherited: {self.inherited_warnings}",
            f"- Blocking questions: {kept[QUESTIONS]}",
            "",
            "### Context Map Filtering",
            f"- Total entries: {self.debug_counts.get('map_total', 0)}",
            f"- Entries after filter: {self.debug_counts.get('map_kept', 0)}",
            f"- Top relevance score: {self.debug_counts.get('top_score', 0)}",
            "",
            "### Limits",
            f"- {self.level_note}",
        ]
        for name, (limit, why) in self.limits.items():
            lines.append(f"- {name.replace('_', ' ')}: {limit} ({why})")
        lines += [
            "",
            "### Budget",
            f"- Context: {fmt(context_tokens)} of {fmt(self.settings.budget)} tokens ({self.counter.name})",
            f"- Entries cut to fit: {len(self.steps)}",
        ]
        return "\n".join(lines) + "\n"
