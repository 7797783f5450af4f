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
from itertools import chain
from typing import Any

from ctxviewer.engine.project.settings import WHOLE_BUDGET_PROFILES
from ctxviewer.engine.tokens.counting import CL100K, HEURISTIC, O200K, TokenCounts
from ctxviewer.engine.trace.model import (
    CUT_FOR_BUDGET,
    DROPS,
    INCLUDED,
    KEPT,
    OUTRANKED,
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

#: Every code: (severity, what it means in a line).  Stable: never renamed or reused.
CODES: Mapping[str, tuple[str, str]] = {
    RULE_CUT: (ERROR, "a security rule file that matched a task file was cut for budget"),
    CONTEXT_EMPTY: (ERROR, "the whole assembled context is empty"),
    OVER_BUDGET: (ERROR, "the context is over its budget in the unit the profile decides with"),
    SECTION_EMPTY: (WARNING, "a section with a budget ended up empty"),
    ESTIMATE_FLIP: (WARNING, "the estimate and the exact count disagree on whether a candidate fits"),
    STOPWORD_KEYWORD: (WARNING, "a keyword that matches most of a spec file's paragraphs decided a fate"),
    SHARE_TOO_SMALL: (WARNING, "a section's share is too small for any of its candidates"),
    FEATURE_MISMATCH: (WARNING, "the task graph's feature value is not its spec folder's name"),
    TIE_BY_ORDER: (INFO, "candidates scored the same and their order in the file decided which got in"),
}

#: A keyword in more than this share of a spec file's paragraphs says little about any one.
STOPWORD_SHARE = 0.5
#: ... in a file of at least this many paragraphs (in two or three, "most" means nothing).
STOPWORD_MIN_PARAGRAPHS = 4
#: Profiles whose ranks order equal scores by their place in the file.
_ORDER_BREAKS_TIES = ("mahabharatha", "drift", "computed")


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


def findings_of(trace: Trace, codes: Collection[str] | None = None) -> tuple[Finding, ...]:
    """Every finding of *trace*: errors first, then warnings, then infos; within a
    severity by code (in :data:`CODES` order), then in the trace's order.

    With *codes*, only the checks for those codes run (a sweep counts a few codes over
    thousands of traces; the keyword check alone is most of the cost of all of them).
    """
    found: list[tuple[int, Finding]] = []
    order = {item.id: n for n, item in enumerate(trace.items)}
    sections = {s.name: n for n, s in enumerate(trace.sections)}

    def add(code: str, message: str, item: Item | None = None, section: str | None = None) -> None:
        where = order.get(item.id, 0) if item is not None else -1000 + sections.get(section or "", 0)
        severity = CODES[code][0]
        found.append(
            (
                where,
                Finding(code, severity, trace.feature, trace.task_id, item.id if item else None, section, message),
            )
        )

    checks: tuple[tuple[str, Callable[[Trace, _Add], None]], ...] = (
        (CONTEXT_EMPTY, _context_empty),
        (OVER_BUDGET, _over_budget),
        (RULE_CUT, _rule_cuts),
        (SECTION_EMPTY, _empty_sections),
        (ESTIMATE_FLIP, _estimate_flips),
        (STOPWORD_KEYWORD, _stopwords),
        (SHARE_TOO_SMALL, _small_shares),
        (TIE_BY_ORDER, _ties),
        (FEATURE_MISMATCH, _feature_mismatch),
    )
    for code, check in checks:
        if codes is None or code in codes:
            check(trace, add)
    codes = list(CODES)
    found.sort(key=lambda p: (SEVERITIES.index(p[1].severity), codes.index(p[1].code), p[0]))
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


def _context_empty(trace: Trace, add: _Add) -> None:
    if trace.context.strip():
        return
    why = "; ".join(e.one_line() for e in trace.errors[:2])
    add(
        CONTEXT_EMPTY,
        "The task's context is empty: the worker gets no security rules and no spec excerpts"
        + (f" ({why})." if why else "."),
    )


def _feature_mismatch(trace: Trace, add: _Add) -> None:
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


def _over_budget(trace: Trace, add: _Add) -> None:
    used = trace.context_tokens.get(trace.tokenizer)
    if used is None or used <= trace.budget:
        return
    unit = "estimated tokens" if trace.tokenizer == HEURISTIC else f"{trace.tokenizer} tokens"
    add(
        OVER_BUDGET,
        f"The context is {_n(used)} {unit}, {_n(used - trace.budget)} over its budget of {_n(trace.budget)}.",
    )


def _rule_cuts(trace: Trace, add: _Add) -> None:
    for item in trace.items:
        if item.kind != RULE_FILE or item.status != CUT_FOR_BUDGET:
            continue
        matched = item.details.get("matched_by") or []
        files = [str(e.get("file")) for e in matched if isinstance(e, Mapping) and e.get("file")]
        if files:
            others = len(files) - 1
            more = f" and {others:,} more task file{'s' if others > 1 else ''}" if others else ""
            by = f"matched {files[0]}{more}"
        else:
            by = "is always considered"
        needed, left = item.details.get("needed"), item.details.get("left")
        unit = item.details.get("unit")
        if isinstance(needed, int) and isinstance(left, int) and unit:
            room = f": it needs {_n(needed)} {unit} and only {_n(max(0, left))} were left"
        else:
            room = " for lack of room"
        add(
            RULE_CUT,
            f"The security rule file {_rule_name(item)} {by} but was left out of the context{room}, "
            "so the worker does not see these rules.",
            item,
            item.section,
        )


def _empty_sections(trace: Trace, add: _Add) -> None:
    for section in trace.sections:
        if section.budget <= 0:
            continue
        mine = [i for i in trace.items if i.section == section.name]
        if section.text.strip() and any(i.status in KEPT and i.kept_chars for i in mine):
            continue
        if section.text.strip() and trace.profile == "computed" and not mine:
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


def _small_shares(trace: Trace, add: _Add) -> None:
    for section in trace.sections:
        mine = _candidates(i for i in trace.items if i.section == section.name)
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


def _estimate_flips(trace: Trace, add: _Add) -> None:
    if trace.tokenizer != HEURISTIC:
        return  # decided with an exact count: nothing estimated
    if trace.profile == "mahabharatha":
        security = trace.section(SECURITY)
        if security is not None:
            _rule_flips(trace, security, add)
        spec = trace.section(SPEC)
        if spec is not None:
            _spec_flips(trace, spec, add)
    if trace.profile in WHOLE_BUDGET_PROFILES:
        exact = _exact(trace.context_tokens)
        estimate = trace.context_tokens.heuristic
        if exact is not None and estimate <= trace.budget < exact:
            add(
                ESTIMATE_FLIP,
                f"The estimate puts the context at {_n(estimate)} tokens, within the budget of {_n(trace.budget)}, "
                f"but it is {_n(exact)} {_exact_name(trace.context_tokens)} tokens: counted exactly, more would "
                "have been cut.",
            )


def _rule_flips(trace: Trace, security: Section, add: _Add) -> None:
    """Rule blocks go in while the estimate (characters) fits; would the exact count agree?"""
    rules = [i for i in trace.items if i.kind == RULE_FILE and i.status in (INCLUDED, CUT_FOR_BUDGET)]
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


def _spec_flips(trace: Trace, spec: Section, add: _Add) -> None:
    """Top paragraphs are cut to each part's token budget by an estimate; would the exact count agree?"""
    top_k = _setting(trace, "top_k", 5)
    for part, budget in spec.sub_budgets.items():
        top = sorted(
            (i for i in trace.items if i.kind == SPEC_PARAGRAPH and i.part == part and i.rank and i.rank <= top_k),
            key=lambda i: i.rank or 0,
        )
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


def _paragraphs_by_file(trace: Trace) -> dict[str, list[Item]]:
    files: dict[str, list[Item]] = {}
    for item in trace.items:
        if item.kind == SPEC_PARAGRAPH and "chunk" not in item.details:
            files.setdefault(item.source, []).append(item)
    return files


def _stopwords(trace: Trace, add: _Add) -> None:
    top_k = _setting(trace, "top_k", 5)
    for source, paragraphs in _paragraphs_by_file(trace).items():
        nonblank = [p for p in paragraphs if p.text.strip()]
        if len(nonblank) < STOPWORD_MIN_PARAGRAPHS:
            continue
        counts = Counter(chain.from_iterable(p.matched_keywords for p in nonblank))
        common = [w for w, c in counts.items() if c / len(nonblank) > STOPWORD_SHARE]
        if not common:
            continue
        ranking = _Ranking(trace, paragraphs, top_k)
        for word in sorted(common):
            share = f"{_n(counts[word])} of the {_n(len(nonblank))} paragraphs of {_file_name(source)}"
            for item, how in ranking.decided_by(word):
                add(
                    STOPWORD_KEYWORD,
                    f"The keyword \u201c{word}\u201d occurs in {share}, so it says little about any one of them, "
                    f"yet it {how} {describe(item)}.",
                    item,
                    item.section,
                )


class _Ranking:
    """One file's paragraphs, ranked once, asked for each common word which fates it decided.

    With the reference pipeline's top-k (``mahabharatha``) the ranking is redone without
    the word: a paragraph kept now but not in the top k without it was put in by it, one
    outranked now but in the top k without it was pushed out by it.  In every profile a
    paragraph in the context whose only matched keyword is the word is there by it alone.

    Redoing the ranking need not sort: taking a word away lowers by the same amount the
    score of every paragraph that has it, so each of the two groups (with and without the
    word) keeps its order, and the new top k is the best of the first k of each.
    """

    def __init__(self, trace: Trace, paragraphs: Sequence[Item], top_k: int) -> None:
        self.paragraphs = paragraphs
        self.top_k = top_k
        self.reference = trace.profile == "mahabharatha"
        # *paragraphs* are in file order, the order the pipeline's stable sort keeps for equal scores.
        ranked = [p for p in paragraphs if p.rank is not None and p.matched_keywords]
        self.ranked = ranked
        self.place = {p.id: (n, p) for n, p in enumerate(ranked)}
        self.now = {p.id for p in sorted(ranked, key=lambda p: p.rank or 0)[:top_k]}
        #: (score, place in file order, paragraph), best first: the ranking with every keyword.
        self.order = sorted(
            ((len(p.matched_keywords), n, p) for n, p in enumerate(ranked)), key=lambda t: (-t[0], t[1])
        )

    def decided_by(self, word: str) -> list[tuple[Item, str]]:
        """The paragraphs whose fate *word* decided, and how (in words)."""
        out: list[tuple[Item, str]] = []
        if self.reference and self.ranked:
            then = self._top_without(word)
            # Only a paragraph in one top k and not the other can have changed fate.
            for _, p in sorted(self.place[i] for i in self.now ^ then):
                if p.id in self.now and p.id not in then and p.status in KEPT:
                    out.append((p, "put in the context"))
                elif p.id in then and p.id not in self.now and p.status == OUTRANKED:
                    out.append((p, "pushed out of the top " + _n(self.top_k) + " by lifting others above"))
            return out
        for p in self.paragraphs:
            if p.status in KEPT and p.matched_keywords == (word,):
                out.append((p, "alone put in the context"))
        return out

    def _top_without(self, word: str) -> set[str]:
        k = self.top_k
        if k <= 0:
            return set()
        without: list[tuple[int, int, Item]] = []
        having: list[tuple[int, int, Item]] = []
        for score, n, p in self.order:
            hits = p.matched_keywords.count(word)
            if not hits:
                if len(without) < k:
                    without.append((score, n, p))
            elif len(having) < k and score - hits > 0:
                having.append((score - hits, n, p))
            if len(without) >= k and len(having) >= k:
                break
        best = sorted([t for t in without if t[0] > 0] + having, key=lambda t: (-t[0], t[1]))[:k]
        return {p.id for _, _, p in best}


# -- ties -----------------------------------------------------------------------------------------------


def _ties(trace: Trace, add: _Add) -> None:
    if trace.profile not in _ORDER_BREAKS_TIES:
        return
    groups: dict[tuple[str, str, str], list[Item]] = {}
    for item in trace.items:
        if item.rank is not None and item.score is not None and item.score > 0 and "chunk" not in item.details:
            groups.setdefault((item.kind, item.section, item.part), []).append(item)
    for items in groups.values():
        items.sort(key=lambda i: i.rank or 0)
        kept_scores = {i.score: i for i in items if i.status in KEPT}
        seen: set[int] = set()
        for item in items:
            score = item.score or 0
            if item.status not in DROPS or score in seen or score not in kept_scores:
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
