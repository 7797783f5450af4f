"""Findings: what in one trace a person should look at, each with a stable code.

:func:`findings_of` reads a finished :class:`~ctxviewer.engine.trace.model.Trace` (nothing
else: no project files, no tokenizer) and returns what deserves attention — a matched
security rule file cut for lack of room, an empty section or context, a context over
its budget, a fit decision the pipeline's estimate made that the exact count would not
have, a keyword that matches most of a spec file deciding fates, ties broken by file
order, a share too small for any candidate.  Each :class:`Finding` has a code from
:data:`CODES` (stable: scripts and ``check --fail-on`` rely on them), a severity and
one plain sentence.  ``docs/findings.md`` documents every code.

Findings are derived, so they are not part of the trace (nor of its JSON schema);
:func:`findings_to_json` gives them a JSON form for the outputs that list them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import chain, groupby, repeat
from operator import attrgetter, contains, countOf, sub
from typing import Any

from ctxviewer.engine.registry import Profile, find
from ctxviewer.engine.tokens.counting import CL100K, HEURISTIC, O200K, TokenCounts
from ctxviewer.engine.trace.model import (
    CUT_FOR_BUDGET,
    DROPS,
    INCLUDED,
    KEPT,
    MEMORY_BLOCK,
    NEWER_SYNTAX,
    OUTRANKED,
    PROMPT_BLOCK,
    REACHED_MEMORY,
    REACHED_NO,
    REACHED_PROMPT,
    REACHED_PROMPT_PART,
    RULE_FILE,
    SECURITY,
    SPEC,
    SPEC_PARAGRAPH,
    TRUNCATED,
    Item,
    Section,
    Trace,
    candidate_words,
)

ERROR = "error"
WARNING = "warning"
INFO = "info"
SEVERITIES = (ERROR, WARNING, INFO)

RULE_CUT = "rule-cut"
CONTEXT_EMPTY = "context-empty"
SECTION_EMPTY = "section-empty"
OVER_BUDGET = "over-budget"
ESTIMATE_FLIP = "estimate-flip"
STOPWORD_KEYWORD = "stopword-keyword"
TIE_BY_ORDER = "tie-by-order"
SHARE_TOO_SMALL = "share-too-small"
FEATURE_MISMATCH = "feature-mismatch"
RULE_UNSEEN = "rule-unseen"
RULE_CUT_LOADED = "rule-cut-loaded"
MEMORY_LARGE = "memory-large"
MEMORY_TWICE = "memory-twice"
SPEC_CUT_UNSEEN = "spec-cut-unseen"
PYTHON_TOO_OLD = "python-too-old"
CONTEXT_NO_RULES = "context-no-rules"

#: Every code: (severity, what it means in a line).  Stable: never renamed or reused.
CODES: Mapping[str, tuple[str, str]] = {
    RULE_CUT: (
        ERROR,
        "a security rule file that matched a task file was cut for budget, and no other path brings it to the worker",
    ),
    RULE_UNSEEN: (ERROR, "a security rule file that matched a task file reaches the worker by no path"),
    CONTEXT_EMPTY: (ERROR, "the whole assembled context is empty"),
    OVER_BUDGET: (ERROR, "the context is over its budget in the unit the profile decides with"),
    SECTION_EMPTY: (WARNING, "a section with a budget ended up empty"),
    ESTIMATE_FLIP: (WARNING, "the estimate and the exact count disagree on whether a candidate fits"),
    STOPWORD_KEYWORD: (WARNING, "a keyword that matches most of a spec file's paragraphs decided a fate"),
    SHARE_TOO_SMALL: (WARNING, "a section's share is too small for any of its candidates"),
    FEATURE_MISMATCH: (WARNING, "the task graph's feature value is not its spec folder's name"),
    MEMORY_LARGE: (WARNING, "the project memory a worker loads takes more than the stated share of the model's window"),
    MEMORY_TWICE: (
        WARNING,
        "a project memory file loads twice in the worker's session (from the worktree and the main checkout)",
    ),
    SPEC_CUT_UNSEEN: (
        WARNING,
        "the spec fallback cut the requirements or design: the worker never sees part of the spec",
    ),
    PYTHON_TOO_OLD: (
        WARNING,
        "the repository map may differ from upstream's: sources use syntax newer than ctxviewer's Python reads",
    ),
    TIE_BY_ORDER: (INFO, "candidates scored the same and their order in the file decided which got in"),
    RULE_CUT_LOADED: (
        INFO,
        "the plugin cut a matched security rule file, but the worker loads it anyway as project memory",
    ),
    CONTEXT_NO_RULES: (
        INFO,
        "a task's design-time context names (or quotes a rule of) none of the security rule files its files match",
    ),
}

#: A keyword in more than this share of a spec file's paragraphs says little about any one.
STOPWORD_SHARE = 0.5
#: ... in a file of at least this many paragraphs (in two or three, "most" means nothing).
STOPWORD_MIN_PARAGRAPHS = 4


@dataclass(frozen=True, slots=True)
class Finding:
    """One thing in a trace worth a person's attention."""

    code: str
    severity: str
    feature: str
    task: str
    #: The trace :class:`~ctxviewer.engine.trace.model.Item` id it is about, or None.
    item: str | None
    #: The section name it is about, or None.
    section: str | None
    #: One sentence in plain words (no internal ids or function names).
    message: str


#: Where each code's findings go in the list: (its severity's place, its place in CODES).
_PLACE: Mapping[str, tuple[int, int]] = {
    code: (SEVERITIES.index(sev), n) for n, (code, (sev, _)) in enumerate(CODES.items())
}

_RANK = attrgetter("rank")
_SOURCE = attrgetter("source")
_KEYWORDS = attrgetter("matched_keywords")
_TIE_GROUP = attrgetter("kind", "section", "part")


class _View:
    """One trace and its items grouped the ways the checks read them.

    Several checks used to scan every item once per section or per part; each grouping
    here is one pass, made on first use (a run limited to a few codes makes only theirs)
    and dropped with the view when :func:`findings_of` returns, so no trace can see
    another's.
    """

    def __init__(self, trace: Trace) -> None:
        self.trace = trace
        #: The record of the profile that ran (None: a profile this ctxviewer does not know).
        self.profile: Profile | None = find(trace.profile)

    def profile_is(self, fact: Callable[[Profile], bool]) -> bool:
        """Whether the profile that ran has *fact* (False for a profile this ctxviewer does not know)."""
        return self.profile is not None and fact(self.profile)

    @cached_property
    def order(self) -> dict[str, int]:
        """Each item id's place in the trace (the last, should an id repeat)."""
        return {item.id: n for n, item in enumerate(self.trace.items)}

    @cached_property
    def unique_ids(self) -> bool:
        """Whether no two items share an id."""
        return len(self.order) == len(self.trace.items)

    @cached_property
    def sections(self) -> dict[str, int]:
        """Each section name's place in the trace."""
        return {s.name: n for n, s in enumerate(self.trace.sections)}

    @cached_property
    def by_section(self) -> dict[str, list[Item]]:
        """The items of each section, in trace order."""
        out: dict[str, list[Item]] = {}
        for item in self.trace.items:
            mine = out.get(item.section)
            if mine is None:
                out[item.section] = [item]
            else:
                mine.append(item)
        return out

    @cached_property
    def paragraphs(self) -> list[Item]:
        """The spec paragraphs (chunks of one too), in trace order."""
        return [i for i in self.trace.items if i.kind == SPEC_PARAGRAPH]

    @cached_property
    def rule_files(self) -> list[Item]:
        """The security rule files, in trace order."""
        return [i for i in self.trace.items if i.kind == RULE_FILE]

    @cached_property
    def paragraphs_by_file(self) -> dict[str, list[Item]]:
        """The spec paragraphs (not a chunk of one) of each spec file, in trace order."""
        files: dict[str, list[Item]] = {}
        # A trace lists a file's paragraphs together: one run, one dict lookup.
        for source, run in groupby(self.paragraphs, _SOURCE):
            whole = [i for i in run if "chunk" not in i.details]
            if whole:
                files.setdefault(source, []).extend(whole)
        return files


def findings_of(trace: Trace, codes: Collection[str] | None = None) -> tuple[Finding, ...]:
    """Every finding of *trace*: errors first, then warnings, then infos; within a
    severity by code (in :data:`CODES` order), then in the trace's order.

    With *codes*, only the checks for those codes run (a sweep counts a few codes over
    thousands of traces; the keyword check alone is most of the cost of all of them).
    """
    found: list[tuple[int, Finding]] = []
    view = _View(trace)

    def add(code: str, message: str, item: Item | None = None, section: str | None = None) -> None:
        where = view.order.get(item.id, 0) if item is not None else -1000 + view.sections.get(section or "", 0)
        severity = CODES[code][0]
        found.append(
            (
                where,
                Finding(code, severity, trace.feature, trace.task_id, item.id if item else None, section, message),
            )
        )

    checks: tuple[tuple[str, Callable[[_View, _Add], None]], ...] = (
        (CONTEXT_EMPTY, _context_empty),
        (OVER_BUDGET, _over_budget),
        (RULE_CUT, _rule_cuts),
        (SECTION_EMPTY, _empty_sections),
        (ESTIMATE_FLIP, _estimate_flips),
        (STOPWORD_KEYWORD, _stopwords),
        (SHARE_TOO_SMALL, _small_shares),
        (TIE_BY_ORDER, _ties),
        (FEATURE_MISMATCH, _feature_mismatch),
        (RULE_UNSEEN, _rules_unseen),
        (RULE_CUT_LOADED, _rule_cuts_loaded),
        (MEMORY_LARGE, _memory_large),
        (MEMORY_TWICE, _memory_twice),
        (SPEC_CUT_UNSEEN, _spec_cut_unseen),
        (PYTHON_TOO_OLD, _python_too_old),
        (CONTEXT_NO_RULES, _context_no_rules),
    )
    for code, check in checks:
        if codes is None or code in codes:
            check(view, add)
    found.sort(key=lambda p: (_PLACE[p[1].code], p[0]))
    return tuple(f for _, f in found)


def findings_to_json(findings: Iterable[Finding]) -> list[dict[str, Any]]:
    """Findings as plain JSON-able objects (the :class:`Finding` fields by name)."""
    return [
        {
            "code": f.code,
            "severity": f.severity,
            "feature": f.feature,
            "task": f.task,
            "item": f.item,
            "section": f.section,
            "message": f.message,
        }
        for f in findings
    ]


# -- naming things in plain words ---------------------------------------------------------


def _file_name(path: str) -> str:
    return path.rsplit("/", 1)[-1]


def _rule_name(item: Item) -> str:
    source = item.source
    return source.split("/security/", 1)[1] if "/security/" in source else source


def describe(item: Item) -> str:
    """An item as people say it: ``paragraph 12 of requirements.md (lines 40-44)``,
    ``the security rule file languages/python/CLAUDE.md``, ``component “RefundService”``."""
    summary = item.details.get("summary") or item.details.get("component") or ""
    return candidate_words(item.kind, item.id, item.source, item.line_start, item.line_end, item.part, str(summary))


def _section_title(trace: Trace, name: str | None) -> str:
    section = trace.section(name) if name else None
    return section.title if section is not None else (name or "").replace("_", " ")


def _n(value: int) -> str:
    return f"{value:,}"


def _count(value: int, one: str, many: str) -> str:
    return f"{value:,} {one if value == 1 else many}"


def _exact(counts: TokenCounts) -> int | None:
    return counts.cl100k_base if counts.cl100k_base is not None else counts.o200k_base


def _exact_name(counts: TokenCounts) -> str:
    return CL100K if counts.cl100k_base is not None else O200K


def _candidates(items: Iterable[Item]) -> list[Item]:
    """Items that were in the running: in the context, or lost to room or rank."""
    return [i for i in items if i.status in KEPT or i.status in DROPS]


def _setting(trace: Trace, key: str, default: int) -> int:
    setting = trace.settings.get(key)
    value = setting.value if setting is not None else default
    return value if isinstance(value, int) and not isinstance(value, bool) else default


# -- the codes --------------------------------------------------------------------------------

#: The findings_of closure: add(code, message, item=None, section=None).
_Add = Callable[..., None]


def _context_empty(view: _View, add: _Add) -> None:
    trace = view.trace
    if trace.context.strip():
        return
    why = "; ".join(e.one_line() for e in trace.errors[:2])
    add(
        CONTEXT_EMPTY,
        "The task's context is empty: the plugin assembled no security rules and no spec excerpts"
        + (f" ({why})." if why else "."),
    )


def _feature_mismatch(view: _View, add: _Add) -> None:
    trace = view.trace
    value = trace.graph_feature
    if value is None or value == trace.feature:
        return
    setting = trace.settings.get("spec_feature")
    read = (
        "ctxviewer reads it too: setting spec_feature is graph"
        if setting is not None and setting.value == "graph"
        else f"ctxviewer reads the folder {trace.feature!r}; setting spec_feature: graph reads the graph's"
    )
    add(
        FEATURE_MISMATCH,
        f"The task graph says feature {value!r}, but its spec folder is {trace.feature!r}: upstream's "
        f"orchestrator passes the graph's value to the context plugin, which reads the spec folder of that name "
        f"({read}).",
    )


def _over_budget(view: _View, add: _Add) -> None:
    trace = view.trace
    used = trace.context_tokens.get(trace.tokenizer)
    if used is None or used <= trace.budget:
        return
    unit = "estimated tokens" if trace.tokenizer == HEURISTIC else f"{trace.tokenizer} tokens"
    add(
        OVER_BUDGET,
        f"The context is {_n(used)} {unit}, {_n(used - trace.budget)} over its budget of {_n(trace.budget)}.",
    )


def _matched_by(item: Item) -> str:
    """How a rule file came to be considered, in words."""
    matched = item.details.get("matched_by") or []
    files = [str(e.get("file")) for e in matched if isinstance(e, Mapping) and e.get("file")]
    if files:
        others = len(files) - 1
        more = f" and {others:,} more task file{'s' if others > 1 else ''}" if others else ""
        return f"matched {files[0]}{more}"
    return "is always considered"


def _reaches_otherwise(item: Item) -> bool:
    """Whether the worker gets the item's text by a path other than the plugin's context."""
    return item.reached in (REACHED_MEMORY, REACHED_PROMPT)


def _rule_cuts(view: _View, add: _Add) -> None:
    for item in view.rule_files:
        if item.status != CUT_FOR_BUDGET or _reaches_otherwise(item):
            continue
        by = _matched_by(item)
        needed, left = item.details.get("needed"), item.details.get("left")
        unit = item.details.get("unit")
        if isinstance(needed, int) and isinstance(left, int) and unit:
            room = f": it needs {_n(needed)} {unit} and only {_n(max(0, left))} were left"
        else:
            room = " for lack of room"
        add(
            RULE_CUT,
            f"The security rule file {_rule_name(item)} {by} but was left out of the context{room}, "
            + (
                "so the worker does not see these rules."
                if item.reached
                else "so a worker given this context does not see these rules."
            ),
            item,
            item.section,
        )


def _rule_cuts_loaded(view: _View, add: _Add) -> None:
    for item in view.rule_files:
        if item.status == CUT_FOR_BUDGET and _reaches_otherwise(item):
            add(
                RULE_CUT_LOADED,
                f"The plugin cut the security rule file {_rule_name(item)} ({_matched_by(item)}) for lack of room, "
                f"but the worker gets it anyway: {item.reached_how}. The plugin's budget does not decide "
                "whether the worker sees it.",
                item,
                item.section,
            )


def _rules_unseen(view: _View, add: _Add) -> None:
    for item in view.rule_files:
        if item.reached != REACHED_NO or item.status == CUT_FOR_BUDGET:
            continue
        if item.status not in KEPT and item.status not in DROPS:
            continue  # the filter did not choose it: never in the running
        fate = "is in the plugin's context" if item.status in KEPT else "was left out of the plugin's context"
        add(
            RULE_UNSEEN,
            f"The security rule file {_rule_name(item)} {_matched_by(item)} and {fate}, but it reaches the worker "
            f"by no path: {item.reached_how}. The plugin's context reaches the worker only through a task's "
            "design-time context.",
            item,
            item.section,
        )


def _memory_large(view: _View, add: _Add) -> None:
    worker = view.trace.worker
    if worker is None:
        return
    window = _setting(view.trace, "max_context_tokens", 200_000)
    share = view.trace.settings.get("memory_share_percent")
    percent = float(share.value) if share is not None and isinstance(share.value, (int, float)) else 10.0
    memory = worker.total(MEMORY_BLOCK)
    if window > 0 and memory > window * percent / 100:
        files = worker.loaded(MEMORY_BLOCK)
        biggest = max(files, key=lambda b: b.size)
        add(
            MEMORY_LARGE,
            f"The worker loads {_count(len(files), 'project memory file', 'project memory files')} of "
            f"{_n(memory)} tokens, {100 * memory / window:.1f}% of the {_n(window)}-token window (more than "
            f"worker.memory_share_percent, {percent:g}%), before its prompt; the largest is {biggest.name} "
            f"({_n(biggest.size)} tokens).",
        )


def _memory_twice(view: _View, add: _Add) -> None:
    worker = view.trace.worker
    if worker is None:
        return
    seen: dict[str, str] = {}
    for block in worker.loaded(MEMORY_BLOCK):
        first = seen.setdefault(block.source, block.name)
        if first != block.name:
            add(
                MEMORY_TWICE,
                f"The worker's session loads {block.source} twice, as {first} and as {block.name} "
                f"({_n(block.size)} tokens more): worker.memory_duplicates is twice.",
            )


def _spec_cut_unseen(view: _View, add: _Add) -> None:
    trace = view.trace
    worker = trace.worker
    if worker is None or worker.prompt_uses != "spec context":
        return
    cut = [
        b for b in worker.loaded(PROMPT_BLOCK) if b.name in ("spec_requirements", "spec_design") and "cut to" in b.note
    ]
    if not cut:
        return
    missed = [i for i in view.paragraphs if i.reached in (REACHED_NO, REACHED_PROMPT_PART) and "chunk" not in i.details]
    first = missed[0] if missed else None
    which = " and ".join("the requirements" if b.name == "spec_requirements" else "the design" for b in cut)
    tail = f"; the first paragraph it never saw whole is {describe(first)}" if first is not None else ""
    add(
        SPEC_CUT_UNSEEN,
        f"The task has no design-time context, so its worker gets the spec fallback, which cut {which} "
        f"to fit upstream's 2,000-token spec context{tail}.",
        first,
        None if first is not None else SPEC,
    )


def _python_too_old(view: _View, add: _Add) -> None:
    errors = [e for e in view.trace.errors if e.consequence == NEWER_SYNTAX and e.path]
    if not errors:
        return
    many = len(errors) > 1
    named = ", ".join(e.path or "" for e in errors[:3]) + (
        f" and {_n(len(errors) - 3)} more" if len(errors) > 3 else ""
    )
    add(
        PYTHON_TOO_OLD,
        f"The repository map may differ from upstream's: {named} {'use' if many else 'uses'} syntax of Python 3.12 "
        f"or newer, which the Python ctxviewer runs on cannot parse, and no newer Python parsed "
        f"{'them' if many else 'it'}: install one, or name it with --set python_for_sources=PATH.",
        None,
        errors[0].stage,
    )


def _context_no_rules(view: _View, add: _Add) -> None:
    worker = view.trace.worker
    if worker is None or worker.prompt_uses != "task context":
        return
    context = next((b.text for b in worker.loaded(PROMPT_BLOCK) if b.name == "task_context"), "")
    matched = [i for i in view.rule_files if i.details.get("matched_by")]
    if not matched or not context:
        return
    lowered = context.lower()
    if any(_rule_name(i).lower() in lowered or i.source.lower() in lowered for i in matched):
        return
    lines = {line.strip() for line in context.splitlines()}
    if any(line.strip() in lines for i in matched for line in i.text.splitlines()[1:] if len(line.strip()) >= 8):
        return  # it quotes a rule of one of them
    if any(i.reached == REACHED_PROMPT for i in matched):
        return
    names = ", ".join(_rule_name(i) for i in matched[:3]) + (
        f" and {len(matched) - 3:,} more" if len(matched) > 3 else ""
    )
    loaded = [i for i in matched if i.reached == REACHED_MEMORY]
    where = (
        "they reach the worker only as project memory"
        if len(loaded) == len(matched)
        else "some reach the worker by no path"
    )
    add(
        CONTEXT_NO_RULES,
        f"The task's design-time context names none of the security rule files its files match ({names}): {where}.",
    )


def _empty_sections(view: _View, add: _Add) -> None:
    trace = view.trace
    for section in trace.sections:
        if section.budget <= 0:
            continue
        mine = view.by_section.get(section.name, [])
        if section.text.strip() and any(i.status in KEPT and i.kept_chars for i in mine):
            continue
        if section.text.strip() and view.profile_is(lambda p: p.every_heading) and not mine:
            # The injection format writes every heading, "None" under an empty one: a section
            # nothing was ever chosen for is the format working, not a finding.
            continue
        candidates = _candidates(mine)
        title = section.title
        if candidates:
            lost = sum(1 for i in candidates if i.status in DROPS)
            message = f"The section \u201c{title}\u201d is empty: " + (
                "its one candidate was not kept." if lost == 1 else f"none of its {_n(lost)} candidates was kept."
            )
        else:
            why = f" ({section.reason})" if section.reason else ""
            message = f"The section \u201c{title}\u201d is empty: it had no candidates{why}."
        add(SECTION_EMPTY, message, None, section.name)


def _small_shares(view: _View, add: _Add) -> None:
    trace = view.trace
    for section in trace.sections:
        mine = _candidates(view.by_section.get(section.name, ()))
        if not mine or any(i.status == INCLUDED for i in mine):
            continue
        sizes = [(i.tokens.get(trace.tokenizer), i) for i in mine]
        known = [(s, i) for s, i in sizes if s is not None]
        if len(known) != len(sizes):
            continue
        smallest, item = min(known, key=lambda p: p[0])
        if smallest <= section.budget:
            continue
        unit = "estimated tokens" if trace.tokenizer == HEURISTIC else f"{trace.tokenizer} tokens"
        add(
            SHARE_TOO_SMALL,
            f"The section \u201c{section.title}\u201d may use {_n(section.budget)} {unit}, but the smallest of its "
            f"{_n(len(mine))} candidates ({describe(item)}) needs {_n(smallest)}: none can fit.",
            None,
            section.name,
        )


# -- estimate against exact ---------------------------------------------------------------------


def _estimate_flips(view: _View, add: _Add) -> None:
    trace = view.trace
    if trace.tokenizer != HEURISTIC:
        return  # decided with an exact count: nothing estimated
    if view.profile_is(lambda p: p.reference):
        security = trace.section(SECURITY)
        if security is not None:
            _rule_flips(view, security, add)
        spec = trace.section(SPEC)
        if spec is not None:
            _spec_flips(view, spec, add)
    if view.profile_is(lambda p: p.whole_budget):
        exact = _exact(trace.context_tokens)
        estimate = trace.context_tokens.heuristic
        if exact is not None and estimate <= trace.budget < exact:
            add(
                ESTIMATE_FLIP,
                f"The estimate puts the context at {_n(estimate)} tokens, within the budget of {_n(trace.budget)}, "
                f"but it is {_n(exact)} {_exact_name(trace.context_tokens)} tokens: counted exactly, more would "
                "have been cut.",
            )


def _rule_flips(view: _View, security: Section, add: _Add) -> None:
    """Rule blocks go in while the estimate (characters) fits; would the exact count agree?"""
    rules = [i for i in view.rule_files if i.status in (INCLUDED, CUT_FOR_BUDGET)]
    used = 0
    kept = 0
    for item in rules:
        size = _exact(item.tokens)
        if size is None:
            return
        need = size + (1 if kept else 0)  # a blank line between blocks
        fits_exactly = used + need <= security.budget
        fitted = item.status == INCLUDED
        if fits_exactly != fitted:
            left = max(0, security.budget - used)
            name = _exact_name(item.tokens)
            verdict = "would have fit" if fits_exactly else "would not have fit"
            decided = "kept it" if fitted else "left it out"
            add(
                ESTIMATE_FLIP,
                f"The estimate {decided}, but counted exactly {_rule_name(item)} ({_n(size)} {name} tokens) "
                f"{verdict} the {_n(left)} tokens left of the security share of {_n(security.budget)}.",
                item,
                security.name,
            )
        if fitted:
            used += need
            kept += 1


def _spec_flips(view: _View, spec: Section, add: _Add) -> None:
    """Top paragraphs are cut to each part's token budget by an estimate; would the exact count agree?"""
    top_k = _setting(view.trace, "top_k", 5)
    # One pass for every part: a part's list is then a filter of a few, not of every item.
    tops = [i for i in view.paragraphs if i.rank and i.rank <= top_k]
    for part, budget in spec.sub_budgets.items():
        top = sorted((i for i in tops if i.part == part), key=_RANK)
        total = 0
        for n, item in enumerate(top):
            size = _exact(item.tokens)
            if size is None:
                return
            total += size + (1 if n else 0)
            whole_exactly = total <= budget
            whole = item.status == INCLUDED
            if whole_exactly == whole or item.status not in (INCLUDED, TRUNCATED, CUT_FOR_BUDGET):
                continue
            name = _exact_name(item.tokens)
            if whole:
                verdict = f"kept it whole, but counted exactly the paragraphs up to it take {_n(total)} {name} tokens"
            else:
                decided = "cut it short" if item.status == TRUNCATED else "left it out"
                verdict = f"{decided}, but counted exactly the paragraphs up to it take only {_n(total)} {name} tokens"
            add(
                ESTIMATE_FLIP,
                f"For {describe(item)} the estimate {verdict}, against the {part} budget of {_n(budget)}.",
                item,
                spec.name,
            )


# -- keywords that match nearly everything -----------------------------------------------------------


def _stopwords(view: _View, add: _Add) -> None:
    trace = view.trace
    top_k = _setting(trace, "top_k", 5)
    reference = view.profile_is(lambda p: p.reference)
    for source, paragraphs in view.paragraphs_by_file.items():
        nonblank = [p for p in paragraphs if p.text and not p.text.isspace()]  # strip() would copy each
        if len(nonblank) < STOPWORD_MIN_PARAGRAPHS:
            continue
        counts = Counter(chain.from_iterable(map(_KEYWORDS, nonblank)))
        common = [w for w, c in counts.items() if c / len(nonblank) > STOPWORD_SHARE]
        if not common:
            continue
        ranking = _Ranking(paragraphs, top_k, reference, view.unique_ids)
        described: dict[int, str] = {}  # by id(item): the trace holds every item while this runs
        for word in sorted(common):
            share = f"{_n(counts[word])} of the {_n(len(nonblank))} paragraphs of {_file_name(source)}"
            for item, how in ranking.decided_by(word):
                said = described.get(id(item))
                if said is None:
                    said = described[id(item)] = describe(item)
                add(
                    STOPWORD_KEYWORD,
                    f"The keyword \u201c{word}\u201d occurs in {share}, so it says little about any one of them, "
                    f"yet it {how} {said}.",
                    item,
                    item.section,
                )


class _Ranking:
    """One file's paragraphs, ranked once, asked for each common word which fates it decided.

    With the reference pipeline's top-k (``mahabharatha``) the ranking is redone without
    the word: a paragraph kept now but not in the top k without it was put in by it, one
    outranked now but in the top k without it was pushed out by it.  In every profile a
    paragraph in the context whose only matched keyword is the word is there by it alone.

    Redoing the ranking need not look past its head.  A paragraph's score is its number
    of keywords; if none holds a keyword twice, taking a word away costs a paragraph at
    most one point, so the first k keep at least the k-th score less one, and a paragraph
    scoring less than that cannot get past all k of them.  The head is every paragraph
    scoring at least the k-th score less one -- usually a few more than k, where the file
    has hundreds -- and the new top k is the best k of the head by the new scores.

    Where a head paragraph does hold a keyword twice, the whole ranking is the head and
    the top k is redone as the reference does it: taking a word away lowers every
    paragraph that has it by the same amount only if they all hold it once, so the best
    k of each group (with and without the word) are taken in the old order, then sorted.

    Paragraphs are named by their place among the ranked ones (file order, the order the
    pipeline's stable sort keeps for equal scores and the order findings list them in);
    should an id repeat, every place of it stands for the last, as a set of ids would.
    """

    def __init__(self, paragraphs: Sequence[Item], top_k: int, reference: bool, unique_ids: bool) -> None:
        self.top_k = top_k
        ranked = [p for p in paragraphs if p.rank is not None and p.matched_keywords] if reference else []
        #: Whether the top k is redone without each word (else: which paragraph is in by one word alone).
        self.reference = bool(ranked)
        self.ranked = ranked
        #: The paragraphs in the context by a single keyword (asked when not redoing the top k).
        self.single: list[Item] = []
        #: place -> the place that stands for its id (None: every id is one paragraph's).
        self.canon: list[int] | None = None
        #: The places in the top k now (ranked by the pipeline's ranks).
        self.now: set[int] = set()
        #: The head's scores, places and keywords (as sets where none repeats), best first.
        self.head_scores: list[int] = []
        self.head_places: list[int] = []
        self.head_sets: list[frozenset[str]] | None = None
        self.head_keywords: list[Sequence[str]] = []
        if ranked:
            self._rank(ranked, top_k, unique_ids)
        else:
            self.single = [p for p in paragraphs if p.status in KEPT and len(p.matched_keywords) == 1]

    def _rank(self, ranked: list[Item], top_k: int, unique_ids: bool) -> None:
        if not unique_ids:
            ids = [p.id for p in ranked]
            if len(set(ids)) != len(ids):
                last = {i: n for n, i in enumerate(ids)}
                self.canon = [last[i] for i in ids]
        ranks = [p.rank or 0 for p in ranked]
        # A stable sort of the places by rank: the pipeline's top k, ties in file order.
        self.now = self._places(sorted(range(len(ranked)), key=ranks.__getitem__)[:top_k])
        keywords = [p.matched_keywords for p in ranked]
        scores = [len(k) for k in keywords]
        floor = 0
        if 0 < top_k < len(scores):
            floor = sorted(scores, reverse=True)[top_k - 1] - 1
        head = sorted((-s, n) for n, s in enumerate(scores) if s >= floor)
        sets = [frozenset(keywords[n]) for _, n in head]
        if all(len(k) == len(keywords[n]) for k, (_, n) in zip(sets, head, strict=True)):
            self.head_sets = sets
        elif floor > 0:
            head = sorted((-s, n) for n, s in enumerate(scores))  # the bound does not hold
        self.head_scores = [-s for s, _ in head]
        self.head_places = [n for _, n in head]
        self.head_keywords = [keywords[n] for n in self.head_places]

    def _places(self, places: Iterable[int]) -> set[int]:
        canon = self.canon
        return set(places) if canon is None else {canon[n] for n in places}

    def decided_by(self, word: str) -> list[tuple[Item, str]]:
        """The paragraphs whose fate *word* decided, and how (in words)."""
        out: list[tuple[Item, str]] = []
        if self.reference:
            now = self.now
            then = self._top_without(word)
            # Only a paragraph in one top k and not the other can have changed fate.
            for n in sorted(now ^ then):
                p = self.ranked[n]
                if n in now and p.status in KEPT:
                    out.append((p, "put in the context"))
                elif n in then and p.status == OUTRANKED:
                    out.append((p, "pushed out of the top " + _n(self.top_k) + " by lifting others above"))
            return out
        for p in self.single:
            if p.matched_keywords == (word,):
                out.append((p, "alone put in the context"))
        return out

    def _top_without(self, word: str) -> set[int]:
        """The places in the top k with *word* taken from every paragraph's keywords."""
        k = self.top_k
        if k <= 0:
            return set()
        if self.head_sets is not None:
            # Each paragraph loses one point or none: the best k by (minus the new score, place).
            lost = map(contains, self.head_sets, repeat(word))
            best = sorted(zip(map(sub, lost, self.head_scores), self.head_places, strict=True))[:k]
            return self._places(n for s, n in best if s < 0)
        hits = map(countOf, self.head_keywords, repeat(word))
        without: list[tuple[int, int]] = []
        having: list[tuple[int, int]] = []
        for score, n, h in zip(self.head_scores, self.head_places, hits, strict=True):
            if not h:
                if len(without) < k:
                    without.append((-score, n))
                    if len(without) == k and len(having) >= k:
                        break
            elif len(having) < k and score - h > 0:
                having.append((h - score, n))
                if len(having) == k and len(without) >= k:
                    break
        without = [t for t in without if t[0] < 0]
        return self._places(n for _, n in sorted(without + having)[:k])


# -- ties -----------------------------------------------------------------------------------------------


def _ties(view: _View, add: _Add) -> None:
    trace = view.trace
    if not view.profile_is(lambda p: p.ties_by_order):
        return
    groups: dict[tuple[str, str, str], list[Item]] = {}
    # A trace lists a group's items together: one run, one dict lookup.
    for key, run in groupby(trace.items, _TIE_GROUP):
        mine = [
            i for i in run if i.rank is not None and i.score is not None and i.score > 0 and "chunk" not in i.details
        ]
        if mine:
            groups.setdefault(key, []).extend(mine)
    for items in groups.values():
        items.sort(key=_RANK)  # every rank here is an int
        kept_scores = {i.score: i for i in items if i.status in KEPT}
        if not kept_scores:
            continue
        seen: set[int] = set()
        # Only a paragraph left out with a score a kept one has can have lost a tie.
        for item in [i for i in items if i.score in kept_scores and i.status in DROPS]:
            score = item.score or 0
            if score in seen:
                continue
            winner = kept_scores[score]
            if (winner.rank or 0) > (item.rank or 0):
                continue
            seen.add(score)
            more = sum(1 for i in items if i is not item and i.score == score and i.status in DROPS)
            also = f"; {_count(more, 'more with that score was', 'more with that score were')} left out the same way"
            also = also if more else ""
            add(
                TIE_BY_ORDER,
                f"{describe(item)[0].upper()}{describe(item)[1:]} scored {_n(score)}, the same as "
                f"{describe(winner)}, which comes before it and got in{also}.",
                item,
                item.section,
            )
