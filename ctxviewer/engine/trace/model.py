"""The immutable record of one assembly run: what the task got, and why.

A :class:`Trace` is produced once per run and never changed; the CLI prints it, the
GUI reads it, exports serialise it.  Its JSON form is versioned
(:data:`SCHEMA_VERSION`) and documented in ``docs/trace-schema.md``;
:func:`trace_to_json` and :func:`trace_from_json` round-trip it exactly.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from ctxviewer.engine.tokens.counting import HEURISTIC_RULE, ROUNDED, TokenCounts, rounded_estimate

SCHEMA_VERSION = "2.3"
#: Older schemas :func:`trace_from_json` still reads (fields added since get their
#: defaults; their ``dropped`` items get a fate by :func:`legacy_fate`).
READABLE_SCHEMAS = ("1.0", "1.1", "2.0", "2.1", "2.2", SCHEMA_VERSION)

#: Upstream versions whose own token counts are :data:`~ctxviewer.engine.tokens.counting.ROUNDED`.
ROUNDED_VERSIONS = ("zerg-ai-0.3.2", "latest")

# -- fates: what happened to a candidate (an Item's ``status``) -------------------------
INCLUDED = "included"
TRUNCATED = "truncated"
#: It was a candidate (matched, scored) and lost for lack of room.
CUT_FOR_BUDGET = "cut_for_budget"
#: It was a candidate and lost to ranking: a top-k, a count cap, a better overlapping one.
OUTRANKED = "outranked"
#: It was never in the running (no task file matched it, score 0, file missing, the run
#: failed ...); the item's ``reason`` says why.
NOT_CANDIDATE = "not_candidate"
#: Every fate, in the order people read them.
FATES = (INCLUDED, TRUNCATED, CUT_FOR_BUDGET, OUTRANKED, NOT_CANDIDATE)
#: What each fate is called wherever a person reads it.
FATE_LABELS: Mapping[str, str] = {
    INCLUDED: "included",
    TRUNCATED: "truncated",
    CUT_FOR_BUDGET: "cut for budget",
    OUTRANKED: "outranked",
    NOT_CANDIDATE: "not a candidate",
}
#: The fates that are drops: a candidate that was in the running and lost.
DROPS = frozenset({CUT_FOR_BUDGET, OUTRANKED})
#: The fates whose item has text in the context.
KEPT = frozenset({INCLUDED, TRUNCATED})


def fate_label(status: str) -> str:
    """The words for a fate (an unknown id is shown as it is)."""
    return FATE_LABELS.get(status, status)


def candidate_words(
    kind: str,
    item_id: str,
    source: str,
    line_start: int | None,
    line_end: int | None,
    part: str = "",
    summary: str = "",
) -> str:
    """A candidate as people say it, never by its id.

    ``paragraph 12 of requirements.md (lines 40-44)``, ``the heading section at paragraph 4
    of design.md (lines 9-30)``, ``the security rule file languages/python/CLAUDE.md``,
    ``component “RefundService”``.
    """
    if kind == RULE_FILE:
        rule = source.split("/security/", 1)[1] if "/security/" in source else source
        return f"the security rule file {rule}"
    if kind == SPEC_PARAGRAPH:
        lines = ""
        if line_start is not None:
            end = line_end if line_end is not None else line_start
            lines = f" (line {line_start})" if end == line_start else f" (lines {line_start}-{end})"
        number = item_id.rsplit(":", 1)[-1]
        name = source.rsplit("/", 1)[-1]
        if number.startswith("\u00a7"):
            return f"the heading section at paragraph {number[1:]} of {name}{lines}"
        return f"paragraph {number} of {name}{lines}"
    what = part or kind.replace("_", " ")
    if summary:
        return f"{what} \u201c{summary}\u201d"
    return f"{what} {item_id.split(':', 1)[-1]}"


SECURITY = "security_rules"
SPEC = "spec_excerpts"

SPEC_PARAGRAPH = "spec_paragraph"
RULE_FILE = "rule_file"


@dataclass(frozen=True, slots=True)
class Keyword:
    """One task keyword and every place it came from (``title``, ``files.read: src/a.py``).

    ``note`` is set when a profile found the word but does not match with it (the
    ``ctxviewer`` profile's stopwords).
    """

    word: str
    sources: tuple[str, ...]
    note: str = ""


@dataclass(frozen=True, slots=True)
class Item:
    """One candidate for the context: a spec paragraph or a security rule file.

    Every candidate is listed, selected or not, with the reason for its fate.
    ``text`` is the candidate's full text (the paragraph; for a rule file, the block
    of kept lines it would contribute).  ``span`` is where its kept text sits in the
    assembled context (character offsets), when it is there.
    """

    id: str
    kind: str
    section: str
    part: str
    source: str
    line_start: int | None
    line_end: int | None
    score: int | None
    matched_keywords: tuple[str, ...]
    rank: int | None
    status: str
    reason: str
    text: str
    kept_chars: int
    tokens: TokenCounts
    span: tuple[int, int] | None = None
    details: Mapping[str, Any] = field(default_factory=dict)
    #: Whether its text reached the worker's model session, and by which path: one of
    #: REACHED_PATHS ("" when the trace has no worker's window) (2.3).
    reached: str = ""
    reached_how: str = ""


#: :class:`Item`'s fields in order: what :func:`make_item` takes.
ITEM_FIELDS = (
    "id", "kind", "section", "part", "source", "line_start", "line_end", "score", "matched_keywords", "rank",
    "status", "reason", "text", "kept_chars", "tokens", "span", "details", "reached", "reached_how",
)  # fmt: skip

MakeItem = Callable[..., Item]


class _Filling:
    """An :class:`Item` while it is filled: the same slots, in the same order, and no frozen
    ``__setattr__``, so its ``__init__`` stores each field directly; it then becomes an Item
    (``__class__`` assignment, allowed between classes of one layout)."""

    __slots__ = ITEM_FIELDS

    def __init__(
        self, v0: str, v1: str, v2: str, v3: str, v4: str, v5: int | None, v6: int | None, v7: int | None,
        v8: tuple[str, ...], v9: int | None, v10: str, v11: str, v12: str, v13: int, v14: TokenCounts,
        v15: tuple[int, int] | None, v16: Mapping[str, Any], v17: str, v18: str,
    ) -> None:  # fmt: skip
        self.id = v0
        self.kind = v1
        self.section = v2
        self.part = v3
        self.source = v4
        self.line_start = v5
        self.line_end = v6
        self.score = v7
        self.matched_keywords = v8
        self.rank = v9
        self.status = v10
        self.reason = v11
        self.text = v12
        self.kept_chars = v13
        self.tokens = v14
        self.span = v15
        self.details = v16
        self.reached = v17
        self.reached_how = v18
        self.__class__ = Item  # type: ignore[assignment]


def _item_maker() -> MakeItem:
    """``Item(...)`` with every field given in order, at a third of its cost where it is safe.

    A frozen dataclass's ``__init__`` sets each field through ``object.__setattr__``; the
    engine makes hundreds of items a task (and a copy of the shared ones with their paths to
    the worker), so items are filled as :class:`_Filling` and made Items once full.  If :class:`Item`
    ever has other fields, no slots, a ``__post_init__`` or a layout the assignment refuses,
    it is the plain constructor.
    """
    names = tuple(f.name for f in fields(Item))
    if names != ITEM_FIELDS or Item.__slots__ != ITEM_FIELDS or hasattr(Item, "__post_init__"):
        return Item
    try:
        probe: object = _Filling(*(None,) * len(ITEM_FIELDS))  # type: ignore[arg-type]
    except TypeError:  # the layouts differ
        return Item
    if type(probe) is not Item:
        return Item
    return _Filling  # type: ignore[return-value]  # its instances become Items


#: Makes an :class:`Item` from all its fields, in order (see :func:`_item_maker`).
make_item = _item_maker()


def give_paths(entries: list[Any], reach: Callable[[str, str], tuple[str, str]]) -> None:
    """Give each :class:`Item` of *entries* its path to the worker, ``reach(source, text)``, in
    place (other entries are left as they are): an item that already has that path stays, any
    other is replaced by a copy with it (an item may be shared with other runs: never changed)."""
    make = make_item
    for n, i in enumerate(entries):
        if type(i) is not Item and not isinstance(i, Item):
            continue
        path, how = reach(i.source, i.text)
        if path is i.reached and how is i.reached_how:
            continue
        entries[n] = make(
            i.id, i.kind, i.section, i.part, i.source, i.line_start, i.line_end, i.score, i.matched_keywords, i.rank,
            i.status, i.reason, i.text, i.kept_chars, i.tokens, i.span, i.details, path, how,
        )  # fmt: skip


@dataclass(frozen=True, slots=True)
class Section:
    """One section of the assembled context and its budget."""

    name: str
    title: str
    text: str
    budget: int
    tokens: TokenCounts
    status: str
    reason: str
    span: tuple[int, int] | None = None
    sub_budgets: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class TrimStep:
    """One cut, in the order it happened, measured with the decision tokenizer."""

    order: int
    section: str
    action: str
    target: str
    description: str
    tokens_before: int
    tokens_after: int
    chars_before: int
    chars_after: int


#: What each trim step's ``action`` is called where people read it (the id stays in the JSON).
STEP_LABELS: Mapping[str, str] = {
    "select_top_k": "kept the best paragraphs",
    "truncate": "cut to fit",
    "skip_block": "rule file left out",
    "cap_rule_files": "rule-file cap",
    "cap_rule_lines": "rule-line cap",
    "cap_paragraphs": "paragraph cap",
    "cut_paragraph": "paragraph cut",
    "cut_rule_file": "rule file cut",
    "cut_source": "source cut",
    "skip_no_fit": "did not fit",
    "skip_overlap": "overlap left out",
    "expand": "neighbours added",
    "verify_cut": "taken out by the exact check",
    "keep_lines": "rule lines kept",
    "near_duplicate": "near-duplicate left out",
    "drop": "entry cut",
}


def step_label(action: str) -> str:
    """The words for a trim step's action (an unknown one is shown as it is)."""
    return STEP_LABELS.get(action, action.replace("_", " "))


#: The consequence of a source file the Python ctxviewer runs on cannot parse, where the error
#: lies on syntax upstream's Python (3.12 or newer) reads: the ``python-too-old`` finding.
NEWER_SYNTAX = "not in the symbol map here; upstream's Python reads it"


@dataclass(frozen=True, slots=True)
class TraceError:
    """A failure during the run.

    ``kind`` is ``pipeline`` for failures the reproduced system itself handles (a
    section left out, the whole context emptied by ``fallback_to_full``) and
    ``input`` for project files ctxviewer found unusable (not UTF-8, unreadable,
    outside the project root).  ``consequence`` says what it did to the context.
    """

    stage: str
    kind: str
    message: str
    consequence: str
    path: str | None = None
    line: int | None = None

    def one_line(self) -> str:
        where = ""
        if self.path:
            where = f"{self.path}:{self.line}: " if self.line else f"{self.path}: "
        return f"{where}{self.message} ({self.consequence})"


@dataclass(frozen=True, slots=True)
class TrackedFile:
    """A task file the tracker counted as read (or why it did not)."""

    path: str
    size: int | None
    tokens: int
    note: str


@dataclass(frozen=True, slots=True)
class TrackerState:
    """The ContextTracker after this task: usage against the checkpoint threshold."""

    estimated_tokens: int
    max_tokens: int
    threshold_percent: float
    usage_percent: float
    is_over_threshold: bool
    files_read: int
    tasks_executed: int
    tool_calls: int
    elapsed_minutes: float
    budget_for_task: int
    files: tuple[TrackedFile, ...] = ()
    zones: Mapping[str, float] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Signal:
    """One task signal (seed 004, phase 1) and the task fields it came from.

    ``kind`` is ``keyword``, ``domain``, ``file``, ``type``, ``phase``, ``complexity``
    or ``stopword`` (a word removed before matching).
    """

    kind: str
    value: str
    sources: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Signals:
    """What the task says about itself: see :mod:`ctxviewer.engine.signals.task`."""

    keywords: tuple[Signal, ...] = ()
    domains: tuple[Signal, ...] = ()
    files: tuple[Signal, ...] = ()
    task: tuple[Signal, ...] = ()
    stopwords: tuple[Signal, ...] = ()

    def values(self, kind: str) -> tuple[str, ...]:
        group = {"keyword": self.keywords, "domain": self.domains, "file": self.files, "stopword": self.stopwords}
        return tuple(s.value for s in group.get(kind, self.task) if s.kind == kind)


@dataclass(frozen=True, slots=True)
class WindowBlock:
    """One block of the worker's whole context window (seed 003's layout).

    ``tokens`` is the size the layout draws (exact where the engine can count it);
    ``estimate`` is the heuristic (characters / 4) or the tracker's own estimate and
    ``exact`` the cl100k_base count when known.  ``full`` is the unsplit size of a
    command file when the worker loads its core.
    """

    name: str
    title: str
    tokens: int
    estimate: int
    exact: int | None
    source: str
    note: str = ""
    full: int | None = None


@dataclass(frozen=True, slots=True)
class WindowLayout:
    """The task's context placed in the model's whole window, with its thresholds."""

    window: int
    reserve_percent: float
    blocks: tuple[WindowBlock, ...]
    thresholds: tuple[tuple[str, float], ...]

    @property
    def used(self) -> int:
        """Tokens of every block, the response reserve included."""
        return sum(b.tokens for b in self.blocks)

    @property
    def free(self) -> int:
        return self.window - self.used

    @property
    def used_without_reserve(self) -> int:
        """Tokens of the blocks the worker fills (everything but the response reserve)."""
        return sum(b.tokens for b in self.blocks if b.name != "reserve")

    def threshold_tokens(self, percent: float) -> int:
        """Where a threshold of *percent* falls, in tokens of the window."""
        return int(max(0, self.window) * max(0.0, float(percent)) / 100)

    def block(self, name: str) -> WindowBlock | None:
        return next((b for b in self.blocks if b.name == name), None)


#: How a candidate's text reached the worker's session (docs/worker-window.md): whole, because
#: its file loads as Claude Code project memory; all its lines in the prompt; some of them; none.
REACHED_MEMORY, REACHED_PROMPT, REACHED_PROMPT_PART, REACHED_NO = "memory", "prompt", "prompt_part", "no"
REACHED_PATHS = (REACHED_MEMORY, REACHED_PROMPT, REACHED_PROMPT_PART, REACHED_NO)
#: Why a candidate's text did not reach the worker, when none of its lines is anywhere there.
NOWHERE = "not in the worker's memory files or prompt"
#: What each path is called where people read it.
REACHED_LABELS: Mapping[str, str] = {
    REACHED_MEMORY: "yes, as project memory",
    REACHED_PROMPT: "yes, in the prompt",
    REACHED_PROMPT_PART: "partly, in the prompt",
    REACHED_NO: "no",
    "": "",
}
#: The kinds of block a worker's session starts with.
ESTIMATE_BLOCK, MEMORY_BLOCK, PROMPT_BLOCK = "estimate", "memory", "prompt"


@dataclass(frozen=True, slots=True)
class ReceivedBlock:
    """One block of what a worker's model session starts with, in the order it is assembled.

    ``kind`` is ESTIMATE_BLOCK (a part ctxviewer cannot see, stated by a setting),
    MEMORY_BLOCK (a Claude Code memory file; ``load`` says how: always, conditional,
    on_demand, import) or PROMPT_BLOCK (a part of the prompt).  ``text`` is exact (a memory
    file with its framing line); ``stated`` is an estimate block's size.  A memory file
    listed but not loaded for this task has ``loaded`` false and says why in ``note``.
    """

    kind: str
    name: str
    title: str
    source: str
    load: str
    loaded: bool
    tokens: TokenCounts
    note: str = ""
    text: str = ""
    stated: int | None = None

    @property
    def size(self) -> int:
        """Its tokens as the window counts them: stated, else cl100k_base, else the heuristic."""
        if self.stated is not None:
            return self.stated
        return self.tokens.cl100k_base if self.tokens.cl100k_base is not None else self.tokens.heuristic


@dataclass(frozen=True, slots=True)
class WorkerWindow:
    """What the worker's ``claude --print`` session for this task starts with (docs/worker-window.md)."""

    folder: str  # the session's working folder, relative to the project root ("" the root)
    folder_reason: str
    prompt_uses: str  # "task context", "spec context" or "no context"
    prompt_error: str | None
    blocks: tuple[ReceivedBlock, ...]
    notes: tuple[str, ...] = ()

    def loaded(self, kind: str) -> tuple[ReceivedBlock, ...]:
        return tuple(b for b in self.blocks if b.kind == kind and b.loaded)

    def total(self, kind: str | None = None) -> int:
        """Tokens of the loaded blocks (of one *kind*)."""
        return sum(b.size for b in self.blocks if b.loaded and (kind is None or b.kind == kind))

    @property
    def prompt_chars(self) -> int:
        return sum(b.tokens.chars for b in self.loaded(PROMPT_BLOCK)) + max(0, len(self.loaded(PROMPT_BLOCK)) - 1)

    def summary(self) -> str:
        """One sentence: what this task's worker receives."""
        memory = self.loaded(MEMORY_BLOCK)
        if self.prompt_error:
            prompt = f"no prompt: {self.prompt_error}"
        else:
            what = {"task context": "the design-time context", "spec context": "the spec fallback"}.get(
                self.prompt_uses, "no context"
            )
            prompt = f"the prompt with {what}, {self.prompt_chars:,} characters, {self.total(PROMPT_BLOCK):,} tokens"
        return (
            f"the worker gets project memory: {len(memory)} file{'s' if len(memory) != 1 else ''}, "
            f"{self.total(MEMORY_BLOCK):,} tokens; and {prompt}"
        )


@dataclass(frozen=True, slots=True)
class Setting:
    """One effective setting and where its value came from."""

    value: Any
    origin: str


@dataclass(frozen=True, slots=True)
class Trace:
    """Everything one run decided, for one task of one feature."""

    schema_version: str
    project: str
    feature: str
    task_id: str
    task_title: str
    profile: str
    tokenizer: str
    budget: int
    section_budgets: Mapping[str, int]
    buffer: int
    context: str
    context_tokens: TokenCounts
    sections: tuple[Section, ...]
    items: tuple[Item, ...]
    trim_steps: tuple[TrimStep, ...]
    keywords: tuple[Keyword, ...]
    tracker: TrackerState
    errors: tuple[TraceError, ...]
    settings: Mapping[str, Setting]
    task_files: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    signals: Signals = field(default_factory=Signals)
    window: WindowLayout | None = None
    #: The ``computed`` profile's "Context Debug" record (markdown); empty for other profiles.
    debug: str = ""
    #: The upstream version that ran (``2026-01-30``, ``zerg-ai-0.3.2``, ``latest``; empty for
    #: profiles that are not upstream's) and why: the setting, or what detection found (2.1).
    upstream: str = ""
    upstream_reason: str = ""
    #: The task graph's own ``feature`` value (None: it has none), which upstream's
    #: orchestrator passes to the plugin instead of the folder's name (2.1).
    graph_feature: str | None = None
    #: What the upstream version that ran writes to its per-worker token record for this task
    #: (``tokens-<worker>.json``): each non-empty component, under upstream's name and in its
    #: order, counted by upstream's own estimate before compact mode abbreviates it
    #: (:func:`~ctxviewer.engine.tokens.counting.rounded_estimate`).  None when nothing is
    #: written: versions that keep no records (2026-01-30, the other profiles) and runs that
    #: fail to the fall-back (2.2).
    token_record: Mapping[str, int] | None = None
    #: What the worker's model session starts with: project memory, the prompt and the parts
    #: ctxviewer can only estimate (2.3).  None for a trace read from an older schema.
    worker: WorkerWindow | None = None

    # -- convenience lookups (read-only) ---------------------------------------------

    def section(self, name: str) -> Section | None:
        return next((s for s in self.sections if s.name == name), None)

    def item(self, item_id: str) -> Item | None:
        return next((i for i in self.items if i.id == item_id), None)

    def items_of(self, kind: str) -> tuple[Item, ...]:
        return tuple(i for i in self.items if i.kind == kind)

    def step_target(self, step: TrimStep) -> str:
        """What a trim step cut, in words: a candidate as :func:`candidate_words` says it, a
        spec part by its file's name, several ids one by one; else the target as recorded."""
        if not step.target:
            return ""
        words = []
        for target in step.target.split(", "):
            item = self.item(target)
            if item is not None:
                summary = item.details.get("summary") or item.details.get("component") or ""
                words.append(
                    candidate_words(
                        item.kind, item.id, item.source, item.line_start, item.line_end, item.part, str(summary)
                    )
                )
                continue
            source = next((i.source for i in self.items if i.part == target and i.kind == SPEC_PARAGRAPH), None)
            words.append(source.rsplit("/", 1)[-1] if source else target)
        return ", ".join(words)

    @property
    def own_estimate(self) -> str | None:
        """The estimate the upstream version that ran counts with (``len // 4`` for 2026-01-30,
        ``round(len / 4)`` for the nine-section versions); None for the other profiles."""
        if self.upstream in ROUNDED_VERSIONS:
            return ROUNDED
        return HEURISTIC_RULE if self.upstream else None

    def own_count(self, counts: TokenCounts) -> int | None:
        """*counts*' text by :attr:`own_estimate` (None for the other profiles, and for the
        rounded estimate of an empty text, which upstream never counts)."""
        if self.upstream in ROUNDED_VERSIONS:
            return rounded_estimate(counts.chars) if counts.chars else None
        return counts.heuristic if self.upstream else None

    @property
    def over_budget(self) -> bool:
        used = self.context_tokens.get(self.tokenizer)
        return used is not None and used > self.budget


# -- JSON ------------------------------------------------------------------------------


# A serialiser made for the schema rather than a generic walk over dataclasses: a trace of
# a large feature holds hundreds of items, and looking up each one's fields and testing
# each value against abstract base classes would cost as much as assembling the trace.
# Each function below writes one class's fields in declaration order (the JSON's key
# order); tests/engine/trace/test_trace_json.py checks them against a generic walk on
# every profile's traces and that no field is missed.  Only free-form values (an item's
# ``details``, a setting's value) take the general path, :func:`_free`.


def _free(value: Any) -> Any:
    """Free-form data (item details, setting values) as plain JSON-able data."""
    kind = type(value)
    if kind is str or kind is int or kind is float or kind is bool or value is None:
        return value
    if kind is dict:
        return {str(k): _free(v) for k, v in value.items()}
    if kind is tuple or kind is list:
        return [_free(v) for v in value]
    if isinstance(value, TokenCounts):
        return value.to_json()
    if hasattr(value, "__dataclass_fields__"):
        return {f.name: _free(getattr(value, f.name)) for f in fields(value)}
    if isinstance(value, Mapping):
        return {str(k): _free(v) for k, v in value.items()}
    if isinstance(value, (tuple, list)):
        return [_free(v) for v in value]
    return value


def _free_map(value: Mapping[str, Any]) -> dict[str, Any]:
    return {str(k): _free(v) for k, v in value.items()}


def _span_json(span: tuple[int, int] | None) -> list[int] | None:
    return None if span is None else [span[0], span[1]]


def _item_json(i: Item) -> dict[str, Any]:
    return {
        "id": i.id,
        "kind": i.kind,
        "section": i.section,
        "part": i.part,
        "source": i.source,
        "line_start": i.line_start,
        "line_end": i.line_end,
        "score": i.score,
        "matched_keywords": list(i.matched_keywords),
        "rank": i.rank,
        "status": i.status,
        "reason": i.reason,
        "text": i.text,
        "kept_chars": i.kept_chars,
        "tokens": i.tokens.to_json(),
        "span": _span_json(i.span),
        "details": _free_map(i.details) if i.details else {},
        "reached": i.reached,
        "reached_how": i.reached_how,
    }


def _section_json(s: Section) -> dict[str, Any]:
    return {
        "name": s.name,
        "title": s.title,
        "text": s.text,
        "budget": s.budget,
        "tokens": s.tokens.to_json(),
        "status": s.status,
        "reason": s.reason,
        "span": _span_json(s.span),
        "sub_budgets": _free_map(s.sub_budgets),
    }


def _step_json(s: TrimStep) -> dict[str, Any]:
    return {
        "order": s.order,
        "section": s.section,
        "action": s.action,
        "target": s.target,
        "description": s.description,
        "tokens_before": s.tokens_before,
        "tokens_after": s.tokens_after,
        "chars_before": s.chars_before,
        "chars_after": s.chars_after,
    }


def _keyword_json(k: Keyword) -> dict[str, Any]:
    return {"word": k.word, "sources": list(k.sources), "note": k.note}


def _error_json(e: TraceError) -> dict[str, Any]:
    return {
        "stage": e.stage,
        "kind": e.kind,
        "message": e.message,
        "consequence": e.consequence,
        "path": e.path,
        "line": e.line,
    }


def _tracker_json(t: TrackerState) -> dict[str, Any]:
    return {
        "estimated_tokens": t.estimated_tokens,
        "max_tokens": t.max_tokens,
        "threshold_percent": t.threshold_percent,
        "usage_percent": t.usage_percent,
        "is_over_threshold": t.is_over_threshold,
        "files_read": t.files_read,
        "tasks_executed": t.tasks_executed,
        "tool_calls": t.tool_calls,
        "elapsed_minutes": t.elapsed_minutes,
        "budget_for_task": t.budget_for_task,
        "files": [{"path": f.path, "size": f.size, "tokens": f.tokens, "note": f.note} for f in t.files],
        "zones": _free_map(t.zones),
    }


def _signal_list(signals: tuple[Signal, ...]) -> list[dict[str, Any]]:
    return [{"kind": s.kind, "value": s.value, "sources": list(s.sources)} for s in signals]


def _signals_json(s: Signals) -> dict[str, Any]:
    return {
        "keywords": _signal_list(s.keywords),
        "domains": _signal_list(s.domains),
        "files": _signal_list(s.files),
        "task": _signal_list(s.task),
        "stopwords": _signal_list(s.stopwords),
    }


def _block_json(b: WindowBlock) -> dict[str, Any]:
    return {
        "name": b.name,
        "title": b.title,
        "tokens": b.tokens,
        "estimate": b.estimate,
        "exact": b.exact,
        "source": b.source,
        "note": b.note,
        "full": b.full,
    }


def _window_json(w: WindowLayout | None) -> dict[str, Any] | None:
    if w is None:
        return None
    return {
        "window": w.window,
        "reserve_percent": w.reserve_percent,
        "blocks": [_block_json(b) for b in w.blocks],
        "thresholds": [[name, value] for name, value in w.thresholds],
    }


def _items_json(items: tuple[Item, ...]) -> list[dict[str, Any]]:
    return [_item_json(i) for i in items]


def trace_to_json(trace: Trace, items_json: Callable[[tuple[Item, ...]], Any] = _items_json) -> dict[str, Any]:
    """The trace as plain JSON-able data (see docs/trace-schema.md).

    *items_json* writes the items (``jsonline`` passes its own: data for orjson, or the
    list's JSON made for it).
    """
    return {
        "schema_version": trace.schema_version,
        "project": trace.project,
        "feature": trace.feature,
        "task_id": trace.task_id,
        "task_title": trace.task_title,
        "profile": trace.profile,
        "tokenizer": trace.tokenizer,
        "budget": trace.budget,
        "section_budgets": _free_map(trace.section_budgets),
        "buffer": trace.buffer,
        "context": trace.context,
        "context_tokens": trace.context_tokens.to_json(),
        "sections": [_section_json(s) for s in trace.sections],
        "items": items_json(trace.items),
        "trim_steps": [_step_json(s) for s in trace.trim_steps],
        "keywords": [_keyword_json(k) for k in trace.keywords],
        "tracker": _tracker_json(trace.tracker),
        "errors": [_error_json(e) for e in trace.errors],
        "settings": {str(k): {"value": _free(s.value), "origin": s.origin} for k, s in trace.settings.items()},
        "task_files": list(trace.task_files),
        "warnings": list(trace.warnings),
        "signals": _signals_json(trace.signals),
        "window": _window_json(trace.window),
        "debug": trace.debug,
        "upstream": trace.upstream,
        "upstream_reason": trace.upstream_reason,
        "graph_feature": trace.graph_feature,
        "token_record": None if trace.token_record is None else dict(trace.token_record),
        "worker": _worker_json(trace.worker),
    }


def received_json(b: ReceivedBlock) -> dict[str, Any]:
    """One block of the worker's window as plain data (the trace JSON's and ``ctxviewer window``'s)."""
    return {
        "kind": b.kind,
        "name": b.name,
        "title": b.title,
        "source": b.source,
        "load": b.load,
        "loaded": b.loaded,
        "tokens": b.tokens.to_json(),
        "note": b.note,
        "text": b.text,
        "stated": b.stated,
    }


def _worker_json(w: WorkerWindow | None) -> dict[str, Any] | None:
    if w is None:
        return None
    return {
        "folder": w.folder,
        "folder_reason": w.folder_reason,
        "prompt_uses": w.prompt_uses,
        "prompt_error": w.prompt_error,
        "blocks": [received_json(b) for b in w.blocks],
        "notes": list(w.notes),
    }


def _counts(d: Mapping[str, Any]) -> TokenCounts:
    return TokenCounts(d["chars"], d["heuristic"], d.get("cl100k_base"), d.get("o200k_base"))


def _span(v: Any) -> tuple[int, int] | None:
    return None if v is None else (int(v[0]), int(v[1]))


#: Schema 1.x's one word for every candidate not in the context.
LEGACY_DROPPED = "dropped"

#: Words of a 1.x reason that say a candidate lost for lack of room (checked first).
_LEGACY_ROOM = (
    "did not fit",
    "cut by trim step",
    "cut to fit the budget",
    "taken out again",
    "cut the text before it",
    "hard cap of 0 rule lines",
)
#: Words of a 1.x reason that say a candidate lost to ranking or a count cap.
_LEGACY_RANK = (
    "only the top",
    "left out by the hard cap of",
    "skipped, overlaps",
    "near-duplicate of",
    ": cut, ",
    "already had its limit",
    "completed, but over the limit",
)
#: Words of a 1.x reason that say the candidate never ran at all (checked before the rest).
_LEGACY_NEVER = (
    "would be included",
    "would be truncated",
    "a related task",
    ": over the limit, ",
    "the spec section is left out",
)


def legacy_fate(status: str, reason: str) -> str:
    """The fate a schema 1.x item gets: ``dropped`` becomes one of the 2.0 ids by its reason.

    1.x called every candidate not in the context ``dropped``; its reason says which
    kind of loss it was (see docs/trace-schema.md for the table).  Other statuses are
    unchanged.
    """
    if status != LEGACY_DROPPED:
        return status
    if any(w in reason for w in _LEGACY_NEVER):
        return NOT_CANDIDATE
    if any(w in reason for w in _LEGACY_ROOM):
        return CUT_FOR_BUDGET
    if any(w in reason for w in _LEGACY_RANK):
        return OUTRANKED
    return NOT_CANDIDATE


def trace_from_json(data: Mapping[str, Any]) -> Trace:
    """Rebuild a :class:`Trace` from :func:`trace_to_json` output (schema 2.0, or 1.x upgraded)."""
    version = data.get("schema_version")
    if version not in READABLE_SCHEMAS:
        raise ValueError(f"trace schema {version!r} is not one of the supported {', '.join(READABLE_SCHEMAS)}")
    legacy = version != SCHEMA_VERSION
    t = data["tracker"]
    return Trace(
        schema_version=SCHEMA_VERSION if legacy else data["schema_version"],
        project=data["project"],
        feature=data["feature"],
        task_id=data["task_id"],
        task_title=data["task_title"],
        profile=data["profile"],
        tokenizer=data["tokenizer"],
        budget=data["budget"],
        section_budgets=dict(data["section_budgets"]),
        buffer=data["buffer"],
        context=data["context"],
        context_tokens=_counts(data["context_tokens"]),
        sections=tuple(
            Section(
                name=s["name"],
                title=s["title"],
                text=s["text"],
                budget=s["budget"],
                tokens=_counts(s["tokens"]),
                status=s["status"],
                reason=s["reason"],
                span=_span(s["span"]),
                sub_budgets=dict(s["sub_budgets"]),
            )
            for s in data["sections"]
        ),
        items=tuple(
            Item(
                id=i["id"],
                kind=i["kind"],
                section=i["section"],
                part=i["part"],
                source=i["source"],
                line_start=i["line_start"],
                line_end=i["line_end"],
                score=i["score"],
                matched_keywords=tuple(i["matched_keywords"]),
                rank=i["rank"],
                status=legacy_fate(i["status"], i["reason"]) if legacy else i["status"],
                reason=i["reason"],
                text=i["text"],
                kept_chars=i["kept_chars"],
                tokens=_counts(i["tokens"]),
                span=_span(i["span"]),
                details=dict(i["details"]),
                reached=i.get("reached", ""),
                reached_how=i.get("reached_how", ""),
            )
            for i in data["items"]
        ),
        trim_steps=tuple(TrimStep(**s) for s in data["trim_steps"]),
        keywords=tuple(Keyword(k["word"], tuple(k["sources"]), k.get("note", "")) for k in data["keywords"]),
        tracker=TrackerState(
            **{k: v for k, v in t.items() if k not in ("files", "zones")},
            files=tuple(TrackedFile(**f) for f in t["files"]),
            zones=dict(t["zones"]),
        ),
        errors=tuple(TraceError(**e) for e in data["errors"]),
        settings={
            k: Setting(tuple(v["value"]) if isinstance(v["value"], list) else v["value"], v["origin"])
            for k, v in data["settings"].items()
        },
        task_files=tuple(data.get("task_files", ())),
        warnings=tuple(data.get("warnings", ())),
        signals=_signals(data.get("signals")),
        window=_window(data.get("window")),
        debug=data.get("debug", ""),
        upstream=data.get("upstream", ""),
        upstream_reason=data.get("upstream_reason", ""),
        graph_feature=data.get("graph_feature"),
        token_record=None if data.get("token_record") is None else dict(data["token_record"]),
        worker=_worker(data.get("worker")),
    )


def _worker(data: Mapping[str, Any] | None) -> WorkerWindow | None:
    if not data:
        return None
    return WorkerWindow(
        folder=data["folder"],
        folder_reason=data["folder_reason"],
        prompt_uses=data["prompt_uses"],
        prompt_error=data["prompt_error"],
        blocks=tuple(
            ReceivedBlock(
                kind=b["kind"],
                name=b["name"],
                title=b["title"],
                source=b["source"],
                load=b["load"],
                loaded=b["loaded"],
                tokens=_counts(b["tokens"]),
                note=b["note"],
                text=b["text"],
                stated=b["stated"],
            )
            for b in data["blocks"]
        ),
        notes=tuple(data.get("notes", ())),
    )


def _signal_group(items: Any) -> tuple[Signal, ...]:
    return tuple(Signal(s["kind"], s["value"], tuple(s["sources"])) for s in items or ())


def _signals(data: Mapping[str, Any] | None) -> Signals:
    if not data:
        return Signals()
    return Signals(**{k: _signal_group(data.get(k)) for k in ("keywords", "domains", "files", "task", "stopwords")})


def _window(data: Mapping[str, Any] | None) -> WindowLayout | None:
    if not data:
        return None
    return WindowLayout(
        window=data["window"],
        reserve_percent=data["reserve_percent"],
        blocks=tuple(WindowBlock(**b) for b in data["blocks"]),
        thresholds=tuple((str(n), float(p)) for n, p in data["thresholds"]),
    )
