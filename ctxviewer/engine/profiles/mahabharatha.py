"""Profile ``mahabharatha``: the reference context pipeline, decision for decision.

The assembled context is the non-empty sections joined by ``"\\n\\n"``:

1. security rules, budget ``int(budget * 0.30)``:
   ``"## Security Rules (task-scoped)\\n\\n" + summary`` -- only when the task has
   create/modify files, filtering is on, and the summary is not empty;
2. spec excerpts, budget ``int(budget * 0.50)``: ``"## Relevant Requirements"`` +
   truncate(top paragraphs, budget // 2), then ``"## Relevant Design"`` +
   truncate(top paragraphs, max(remaining, budget // 4)), where *remaining* is the
   budget minus the estimate of the parts so far joined by ``"\\n"`` (the design
   header included); parts joined by ``"\\n\\n"``.

Failures behave as in the real system: a failing rule filter leaves the security
section out; a failing spec load (a non-text title, a ``files`` entry that is not a
path, a spec file that is not UTF-8) leaves the spec section out; any other failure
(``files`` not a mapping, a rule file that cannot be read) empties the whole context
when ``fallback_to_full`` is true and is an error otherwise.  Every such failure is in
the trace with its cause.

A run (:meth:`MahabharathaRun.run`) is these stages, each readable and testable alone:

* the task's files (:func:`task_files`);
* security rules: read and summarize each matched rule file (:meth:`MahabharathaRun._read_rules`),
  fit the blocks to the limit in order (:func:`fit_blocks`, limit :func:`rule_limit`), record
  each rule's fate and one step per block left out (:func:`skip_chain`);
* spec excerpts: load the two spec files (:meth:`MahabharathaRun._load_spec_files`), extract
  the keywords, then per part score and take the top k (:meth:`MahabharathaRun._score_part`,
  items by :class:`ParagraphItems`), give it its budget (:func:`part_budget`), truncate, place
  each kept paragraph (:func:`place_paragraphs`), and record the steps (:func:`spec_chain`);
* the fall-back when the whole run failed (:func:`fall_back`);
* the layout: the sections joined in order (:func:`join_sections`) and each one's outcome.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ctxviewer.engine.files.reading import Problem
from ctxviewer.engine.profiles.base import NEVER_CONSIDERED, ItemDraft, ProfileResult, RunBase, draft_of, fmt
from ctxviewer.engine.signals import rules as R
from ctxviewer.engine.signals.keywords import KeywordError, describe_value, extract_keywords
from ctxviewer.engine.signals.spec import (
    CHECK_EVERY,
    LRU,
    Ranking,
    Scored,
    SpecIndex,
    paragraph_limit_problem,
    ranking,
    spec_index,
    strip_with_offset,
    truncate,
)
from ctxviewer.engine.tokens.counting import Census, TokenCounter, TokenCounts
from ctxviewer.engine.trace.model import (
    CUT_FOR_BUDGET,
    INCLUDED,
    NOT_CANDIDATE,
    OUTRANKED,
    RULE_FILE,
    SECURITY,
    SPEC,
    SPEC_PARAGRAPH,
    TRUNCATED,
    Item,
    Section,
)

SECURITY_HEADER = "## Security Rules (task-scoped)\n\n"
REQUIREMENTS_HEADER = "## Relevant Requirements"
DESIGN_HEADER = "## Relevant Design"
REQUIREMENTS_NAMES = ("requirements.md", "REQUIREMENTS.md")
DESIGN_NAMES = ("design.md", "DESIGN.md", "architecture.md", "ARCHITECTURE.md")
SECTION_TITLES = {SECURITY: "Security rules", SPEC: "Spec excerpts"}
#: The spec parts in the order the section holds them, with the header each is under.
PART_ORDER = (("requirements", REQUIREMENTS_NAMES), ("design", DESIGN_NAMES))
_PART_HEADERS = {"requirements": REQUIREMENTS_HEADER, "design": DESIGN_HEADER}

#: Finished paragraph items per (spec content, keywords, top_k, reason): see
#: :meth:`ParagraphItems.of`.
_base_items = LRU(8)
#: Each spec file's paragraphs as unscored items: see :meth:`ParagraphItems.unscored`.
_unscored = LRU(16)


def clear_caches() -> None:
    """Forget the cached paragraph items (benchmarks and tests start cold with this)."""
    _base_items.clear()
    _unscored.clear()


class _SpecFailure(Exception):
    def __init__(self, message: str, path: str | None = None, line: int | None = None) -> None:
        super().__init__(message)
        self.path = path
        self.line = line


# -- stage: the task's files -------------------------------------------------------------------


@dataclass(frozen=True)
class TaskFiles:
    """The task's create/modify entries as the reference reads them (paths or not)."""

    entries: tuple[Any, ...]
    #: Why the whole run fails (``files`` is not a mapping); None: it does not.
    fatal: str | None = None

    def shown(self) -> tuple[str, ...]:
        """The entries as the trace lists them: a path as it is, anything else described."""
        return tuple(str(f) if isinstance(f, str) else describe_value(f) for f in self.entries)


def task_files(raw: Mapping[str, Any]) -> TaskFiles:
    """``files.create`` then ``files.modify`` (each only when a list); a ``files`` that is not a
    mapping fails the whole run."""
    files = raw.get("files", {})
    if not isinstance(files, Mapping):
        return TaskFiles((), f"task 'files' is {describe_value(files)}, not a mapping")
    entries: list[Any] = []
    for key in ("create", "modify"):
        listed = files.get(key)
        if isinstance(listed, list):
            entries.extend(listed)
    return TaskFiles(tuple(entries))


# -- stages: security rules ----------------------------------------------------------------------


@dataclass(frozen=True)
class RuleLimit:
    """The security summary's limit: characters (4 per token) with the heuristic counter, else tokens."""

    limit: int
    unit: str
    in_characters: bool

    def measure(self, block: str, counter: TokenCounter) -> int:
        return len(block) if self.in_characters else counter.count(block)


def rule_limit(budget: int, counter_name: str) -> RuleLimit:
    """The limit a security budget gives with the counter named *counter_name*."""
    if counter_name == "heuristic":
        return RuleLimit(budget * 4, "characters", True)
    return RuleLimit(budget, f"{counter_name} tokens", False)


@dataclass
class RuleRead:
    """One candidate rule file as read and summarized: a usable block, or why it is not a candidate."""

    rule: str
    details: dict[str, Any]
    #: The reason's head: why the rule was considered ("" when it was not matched).
    why: str = ""
    #: The summary block; "" when the rule is not a candidate (see :attr:`reason`).
    block: str = ""
    reason: str = ""
    #: The file's line count, where the trace shows it.
    lines: int | None = None


@dataclass(frozen=True)
class BlockFit:
    """Whether one usable block fit the summary's limit, and where it went."""

    size: int
    #: What was left of the limit when the block came up.
    left: int
    #: 1-based place among the blocks kept (None: left out).
    rank: int | None
    #: Offset of the block in the section (None: left out).
    offset: int | None

    @property
    def fits(self) -> bool:
        return self.rank is not None


def fit_blocks(sizes: Sequence[tuple[int, int]], limit: int, start: int) -> list[BlockFit]:
    """Each block, given as (length, size), kept whole in order while the sizes fit *limit*.

    A block that does not fit is left out and later ones still try; kept blocks are joined
    by a blank line after *start* characters (the header).
    """
    out: list[BlockFit] = []
    used = kept = 0
    offset = start
    for length, size in sizes:
        left = limit - used
        if used + size <= limit:
            sep = 2 if kept else 0
            kept += 1
            out.append(BlockFit(size, left, kept, offset + sep))
            used += size
            offset += sep + length
        else:
            out.append(BlockFit(size, left, None, None))
    return out


def skip_chain(blocks: Sequence[tuple[str, str, bool]]) -> list[tuple[str, str, str]]:
    """(rule, section before, section after) for each block of (rule, block, kept) that was left out.

    The steps chain: the first starts from the section holding every usable block in order,
    each takes its block out, and the last ends at the section as built (empty when no block
    went in).
    """
    state = {rule: block for rule, block, _ in blocks}
    out: list[tuple[str, str, str]] = []
    for rule, _, kept in blocks:
        if kept:
            continue
        before = SECURITY_HEADER + "\n\n".join(state.values())
        del state[rule]
        after = SECURITY_HEADER + "\n\n".join(state.values()) if state else ""
        out.append((rule, before, after))
    return out


# -- stages: spec excerpts -------------------------------------------------------------------------


@dataclass(frozen=True)
class SpecFile:
    """One spec part as loaded: its stripped text ("" when missing or empty), file and first line."""

    part: str
    text: str = ""
    rel: str | None = None
    line: int = 1


def part_budget(part: str, max_tokens: int, so_far: Sequence[str], count: Callable[[str], int]) -> int:
    """A spec part's token budget: requirements get half the section's; design gets what the
    parts *so_far* (its own header last), joined by a line break, leave, but at least a quarter."""
    if part == "requirements":
        return max_tokens // 2
    return max(max_tokens - count("\n".join(so_far)), max_tokens // 4)


@dataclass(frozen=True)
class Placement:
    """What a truncation left of one top paragraph: *keep* characters from *start* in its part."""

    keep: int
    start: int
    length: int

    @property
    def status(self) -> str:
        if self.keep == self.length:
            return INCLUDED
        return TRUNCATED if self.keep > 0 else CUT_FOR_BUDGET


def place_paragraphs(lengths: Sequence[int], kept: int) -> list[Placement]:
    """Where paragraphs of *lengths*, joined by blank lines, stand when the first *kept* characters stay."""
    out: list[Placement] = []
    start = 0
    for length in lengths:
        out.append(Placement(max(0, min(length, kept - start)), start, length))
        start += length + 2
    return out


def spec_chain(bodies: Mapping[str, str], changes: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    """(section before, section after) of each change (part, its new body), measured on the whole section.

    The section holds each part of *bodies* under its header; each change replaces its
    part's body, so the steps chain from the first state to the section as built.
    """
    state = dict(bodies)

    def section() -> str:
        return "\n\n".join(f"{_PART_HEADERS[p]}\n\n{b}" for p, b in state.items())

    out: list[tuple[str, str]] = []
    for part, body in changes:
        before = section()
        state[part] = body
        out.append((before, section()))
    return out


@dataclass
class ParagraphItems:
    """Every paragraph of a spec file as a finished item, built once and shared by later runs.

    The paragraphs a run keeps are few; the rest are left out for reasons that do not
    depend on budgets.  So the full list is built once per (file content, keywords, top_k,
    reason) and shared; the run then replaces just the top-k entries with drafts.  This is
    what makes a re-budget of a task whose spec has tens of thousands of paragraphs cost a
    list copy instead of an item apiece.
    """

    census: Census
    top_k: int
    #: Raises :class:`~ctxviewer.engine.profiles.base.Cancelled` once the run is cancelled.
    poll: Callable[[], None]
    #: Counts texts, polling between chunks.
    measure: Callable[[Sequence[str]], list[TokenCounts]]

    def of(
        self, part: str, text: str, rel: str | None, first_line: int, ranked: Ranking | None, reason: str | None
    ) -> tuple[Item, ...]:
        """The items of one spec file: *reason* for all when given, else by their *ranked* place."""
        if not text or rel is None:
            return ()
        index = spec_index(text, first_line)
        top_k = self.top_k
        key = (
            id(index),
            part,
            rel,
            None if ranked is None else id(ranked),
            top_k,
            reason,
            self.census.encodings,
        )
        cached = _base_items.get(key)
        if cached is not None and cached[0] is index and cached[1] is ranked:
            items: tuple[Item, ...] = cached[2]
        else:
            items = self.build(part, rel, index, ranked, reason)
            _base_items.put(key, (index, ranked, items))
        return items

    def build(
        self, part: str, rel: str, index: SpecIndex, ranked: Ranking | None, reason: str | None
    ) -> tuple[Item, ...]:
        """The items of one run: the index's unscored items (shared by every run, see
        :meth:`unscored`) with those of the paragraphs that score replaced."""
        top_k = self.top_k
        zero = None if ranked is None else 0
        base = self.unscored(part, rel, index, reason, zero)
        if ranked is None or not ranked.hits:
            return base
        out = list(base)
        positions = ranked.positions
        for count, (n, matched) in enumerate(ranked.hits.items()):
            if not count % CHECK_EVERY:
                self.poll()
            position = positions.get(n)
            b = base[n]
            status = b.status
            if reason is not None:
                why = reason
            elif position is None:  # not reached: every paragraph with a hit is ranked
                why = "score 0: no task keyword occurs in it"
            elif position > top_k:
                why = f"rank {position}, only the top {top_k} are kept (score {len(matched)})"
                status = OUTRANKED
            else:
                why = f"rank {position} of the top {top_k} (placed by the run)"
            out[n] = Item(  # as dataclasses.replace would, at a fifth of its cost
                b.id,
                b.kind,
                b.section,
                b.part,
                b.source,
                b.line_start,
                b.line_end,
                len(matched),
                matched,
                position,
                status,
                why,
                b.text,
                b.kept_chars,
                b.tokens,
            )
        return tuple(out)

    def unscored(self, part: str, rel: str, index: SpecIndex, reason: str | None, zero: int | None) -> tuple[Item, ...]:
        """Every paragraph of *index* as an item no keyword matched (not a candidate), counted once.

        These do not depend on the task: a batch or the window's background pass builds
        them once per spec file and each task replaces only the paragraphs that score.
        """
        key = (id(index), part, rel, reason, zero, self.census.encodings)
        cached = _unscored.get(key)
        if cached is not None and cached[0] is index:
            return cached[1]  # type: ignore[no-any-return]
        paragraphs = index.paragraphs
        counts = self.measure([p.text for p in paragraphs])
        out: list[Item] = []
        append = out.append
        for para, tokens in zip(paragraphs, counts, strict=True):
            n = para.index
            if not n % CHECK_EVERY:
                self.poll()
            if reason is not None:
                why = reason
            elif para.blank:
                why = "blank paragraph: skipped before scoring"
            else:
                why = "score 0: no task keyword occurs in it"
            append(
                Item(
                    id=f"{part}:{n + 1}",
                    kind=SPEC_PARAGRAPH,
                    section=SPEC,
                    part=part,
                    source=rel,
                    line_start=para.line_start,
                    line_end=para.line_end,
                    score=zero,
                    matched_keywords=(),
                    rank=None,
                    status=NOT_CANDIDATE,
                    reason=why,
                    text=para.text,
                    kept_chars=0,
                    tokens=tokens,
                )
            )
        items = tuple(out)
        _unscored.put(key, (index, items))
        return items


@dataclass
class ScoredPart:
    """One spec part scored: its top paragraphs (each with its draft) and the text they make."""

    file: SpecFile
    ranking: Ranking
    top: tuple[Scored, ...]
    drafts: dict[int, ItemDraft] = field(default_factory=dict)

    @property
    def relevant(self) -> str:
        return "\n\n".join(s.paragraph.text for s in self.top)

    @property
    def name(self) -> str:
        return (self.file.rel or self.file.part).rsplit("/", 1)[-1]


# -- stages: fall-back and layout ------------------------------------------------------------------


def fall_back(
    items: Sequence[ItemDraft | Item], fatal: str, fallback_to_full: bool, fate: str = NOT_CANDIDATE
) -> None:
    """Every kept draft out again (as *fate*), saying it would have been kept but the whole context failed."""
    for draft in items:
        if isinstance(draft, ItemDraft) and draft.status in (INCLUDED, TRUNCATED):
            draft.reason = (
                f"would be {draft.status} ({draft.reason}), but the whole context "
                f"{'fell back to empty' if fallback_to_full else 'failed'}: {fatal}"
            )
            draft.status, draft.kept_chars, draft.offset = fate, 0, None


def join_sections(order: Sequence[str], texts: Mapping[str, str]) -> tuple[str, dict[str, tuple[int, int]]]:
    """The context (the non-empty texts in *order*, joined by a blank line) and each one's span in it."""
    chunks: list[str] = []
    spans: dict[str, tuple[int, int]] = {}
    pos = 0
    for name in order:
        text = texts[name]
        if not text:
            continue
        if chunks:
            pos += 2
        spans[name] = (pos, pos + len(text))
        chunks.append(text)
        pos += len(text)
    return "\n\n".join(chunks), spans


class MahabharathaRun(RunBase):
    """One run of the reference pipeline over one task."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.left_out: dict[str, str] = {}  # section -> why it was left out by a failure
        self.spec_sub_budgets: dict[str, int] = {}

    # -- the run ----------------------------------------------------------------------

    def run(self) -> ProfileResult:
        self._check("start", 0.0)
        budgets = self.settings.section_budgets
        files = self._task_files()
        security_text, fatal = "", files.fatal
        if fatal is None:
            security_text, fatal = self._security(files.entries, budgets[SECURITY])
        else:
            self._security_not_run(fatal)
        self._check("security rules", 0.4)
        spec_text = self._spec(budgets[SPEC])
        self._check("spec excerpts", 0.8)
        texts = {SECURITY: security_text, SPEC: spec_text}
        if fatal is not None:
            texts = {SECURITY: "", SPEC: ""}
            fall_back(self.items, fatal, self.settings.fallback_to_full)
        context, sections = self._sections(texts, budgets, fatal)
        return self._result(context, sections, files)

    def _task_files(self) -> TaskFiles:
        """The task's files; a ``files`` that is not a mapping is recorded as the run's failure."""
        files = task_files(self.raw)
        if files.fatal is not None:
            self._error("task", "pipeline", files.fatal, self._fatal_consequence(), self.feature.graph_path)
        return files

    def _result(self, context: str, sections: tuple[Section, ...], files: TaskFiles, **more: Any) -> ProfileResult:
        """The run's result: its items finished against *sections*, its steps, keywords and errors."""
        return ProfileResult(
            context=context,
            sections=sections,
            items=self.finish_items(sections),
            trim_steps=tuple(self.steps),
            keywords=self.keywords,
            errors=tuple(self.errors),
            task_files=files.shown(),
            **more,
        )

    def _fatal_consequence(self) -> str:
        if self.settings.fallback_to_full:
            return "the whole context falls back to empty (fallback_to_full is true)"
        return "the real system raises this error to the caller (fallback_to_full is false)"

    # -- security rules -----------------------------------------------------------------

    def _rule_item(
        self,
        rule: str,
        status: str,
        reason: str,
        text: str = "",
        rank_: int | None = None,
        offset: int | None = None,
        details: Mapping[str, Any] | None = None,
        lines: int | None = None,
    ) -> None:
        self.items.append(
            ItemDraft(
                id=f"rule:{rule}",
                kind=RULE_FILE,
                section=SECURITY,
                part="rules",
                source=self._rule_rel(rule),
                line_start=1 if lines else None,
                line_end=lines,
                score=None,
                matched=(),
                rank=rank_,
                status=status,
                reason=reason,
                text=text,
                kept_chars=len(text) if status == INCLUDED else 0,
                offset=offset,
                details=details or {},
            )
        )

    def _no_rule_candidates(self, reason: str) -> None:
        for rule in R.CANDIDATES:
            self._rule_item(rule, NOT_CANDIDATE, reason, details={"trigger": R.TRIGGER_TEXT[rule]})
        self._list_unconsidered()

    def _list_unconsidered(self) -> None:
        for rule in self.other_rule_files():
            self._rule_item(rule, NOT_CANDIDATE, NEVER_CONSIDERED)

    def _security_not_run(self, fatal: str) -> None:
        self._no_rule_candidates(f"not reached: the run failed first ({fatal})")

    def _security(self, task_files: Sequence[Any], budget: int) -> tuple[str, str | None]:
        """The security section's text, and why the whole run fails (a rule file that cannot be read)."""
        if not self.settings.security_rule_filtering:
            self._no_rule_candidates("security_rule_filtering is off in the configuration")
            return "", None
        if not task_files:
            self._no_rule_candidates("the task has no create/modify files, so no security section is built")
            return "", None
        try:
            matches = R.match_rules(task_files)
        except R.RuleFilterError as exc:
            message = f"rule filtering failed: {exc}"
            self.left_out[SECURITY] = message
            self._error(SECURITY, "pipeline", message, "the security section is left out", self.feature.graph_path)
            self._no_rule_candidates(f"the security section is left out: {message}")
            return "", None
        reads, failure = self._read_rules(matches)
        limit = rule_limit(budget, self.counter.name)
        usable = [r for r in reads if r.block]
        sizes = [(len(r.block), limit.measure(r.block, self.counter)) for r in usable]
        fits = dict(zip((r.rule for r in usable), fit_blocks(sizes, limit.limit, len(SECURITY_HEADER)), strict=True))
        self._record_rules(reads, fits, limit)
        if failure is None:
            self._list_unconsidered()
        for rule, before, after in skip_chain([(r.rule, r.block, fits[r.rule].fits) for r in usable]):
            fit = fits[rule]
            description = f"left out {rule}: {fmt(fit.size)} {limit.unit} did not fit the {fmt(fit.left)} left of "
            self._step(SECURITY, "skip_block", f"rule:{rule}", description + fmt(limit.limit), before, after)
        kept = [r.block for r in usable if fits[r.rule].fits]
        if failure is not None:
            return "", failure
        return (SECURITY_HEADER + "\n\n".join(kept) if kept else ""), None

    def _read_rules(self, matches: Mapping[str, R.RuleMatch]) -> tuple[list[RuleRead], str | None]:
        """Each candidate rule file in order, read and summarized, up to one that cannot be read
        (its message is the run's failure)."""
        out: list[RuleRead] = []
        for rule in R.CANDIDATES:
            match = matches[rule]
            rel = self._rule_rel(rule)
            details: dict[str, Any] = {
                "trigger": R.TRIGGER_TEXT[rule],
                "matched_by": [{"file": f, "by": why} for f, why in match.matched_by],
            }
            if not match.matched:
                out.append(RuleRead(rule, details, reason=f"not matched: no task file is {R.TRIGGER_TEXT[rule][2:]}"))
                continue
            why = (
                "core rules, always considered"
                if rule == R.CORE
                else "matched by "
                + ", ".join(f"{f} ({by})" for f, by in match.matched_by[:3])
                + (f" and {len(match.matched_by) - 3:,} more" if len(match.matched_by) > 3 else "")
            )
            read = self.fs.read_text(rel)
            if read.problem in (Problem.MISSING, Problem.OUTSIDE, Problem.LOOP):
                if read.problem is not Problem.MISSING:
                    self._error(SECURITY, "input", read.detail, "treated as absent: not read", rel)
                out.append(RuleRead(rule, details, why, reason=f"{why}, but the file does not exist"))
                continue
            if not read.ok:
                message = f"reading rule file failed: {read.detail}"
                self._error(SECURITY, "input", message, self._fatal_consequence(), rel, read.line)
                out.append(RuleRead(rule, details, why, reason=f"{why}, but {message}"))
                return out, message
            if read.has_nul:
                self._error(
                    SECURITY,
                    "input",
                    "binary content (NUL bytes) in a rule file",
                    "read as text all the same, as the real system does",
                    rel,
                )
            assert read.text is not None
            block = R.summarize_file(rule, read.text)
            details["kept_lines"] = list(block.kept_lines)
            no_block = f"{why}; no '## Rule:', '### Rule:', '**Level**' or '**When**' lines outside code fences"
            out.append(RuleRead(rule, details, why, block.block, "" if block.block else no_block, block.total_lines))
        return out, None

    def _record_rules(self, reads: Sequence[RuleRead], fits: Mapping[str, BlockFit], limit: RuleLimit) -> None:
        """One item per rule file read, in order: kept or cut for the limit, or why not a candidate."""
        for r in reads:
            fit = fits.get(r.rule)
            if fit is None:
                self._rule_item(r.rule, NOT_CANDIDATE, r.reason, details=r.details, lines=r.lines)
                continue
            r.details.update({"needed": fit.size, "left": fit.left, "limit": limit.limit, "unit": limit.unit})
            verb = "fit" if fit.fits else "did not fit"
            self._rule_item(
                r.rule,
                INCLUDED if fit.fits else CUT_FOR_BUDGET,
                f"{r.why}; block of {fmt(fit.size)} {limit.unit} {verb} the {fmt(fit.left)} left of {fmt(limit.limit)}",
                text=r.block,
                rank_=fit.rank,
                offset=fit.offset,
                details=r.details,
                lines=r.lines,
            )

    # -- spec excerpts --------------------------------------------------------------------

    def _load_spec(self, names: Sequence[str]) -> tuple[str, str | None, int]:
        """(stripped text, file used, first line), following the reference's fallbacks."""
        for name in names:
            rel = f"{self.feature.spec_dir}/{name}"
            read = self.fs.read_text(rel)
            if read.problem is Problem.MISSING:
                continue
            if read.problem is Problem.NOT_UTF8:
                self._error(
                    SPEC,
                    "input",
                    read.detail,
                    "the spec section is left out (the real system's read raises)",
                    rel,
                    read.line,
                )
                raise _SpecFailure(f"{rel}: {read.detail}", rel, read.line)
            if not read.ok:
                self._error(SPEC, "input", read.detail, "treated as an empty spec file", rel, read.line)
                continue
            assert read.text is not None
            if read.has_nul:
                self._error(
                    SPEC,
                    "input",
                    "binary content (NUL bytes) in a spec file",
                    "read as text all the same, as the real system does",
                    rel,
                )
            stripped, first_line = strip_with_offset(read.text)
            too_many = paragraph_limit_problem(stripped)
            if too_many is not None:
                self._error(SPEC, "input", too_many, "treated as an empty spec file", rel)
                continue
            if stripped:
                return stripped, rel, first_line
        return "", None, 1

    def _load_spec_files(self) -> tuple[tuple[SpecFile, SpecFile], str | None]:
        """The requirements and design files (empty when missing), and why the spec section fails."""
        loaded: dict[str, SpecFile] = {}
        failure: str | None = None
        for part, names in PART_ORDER:
            try:
                loaded[part] = SpecFile(part, *self._load_spec(names))
            except _SpecFailure as exc:
                failure = f"spec loading failed: {exc}"
                break
        return (loaded.get("requirements", SpecFile("requirements")), loaded.get("design", SpecFile("design"))), failure

    def _extract_keywords(self, failure: str | None) -> str | None:
        """The task's keywords; a task they cannot be taken from fails the spec section (if nothing did)."""
        try:
            self.keywords = extract_keywords(self.raw)
        except KeywordError as exc:
            if failure is not None:
                self.keywords = ()
                return failure
            failure = f"spec loading failed: {exc}"
            self._error(SPEC, "pipeline", failure, "the spec section is left out", self.feature.graph_path)
        return failure

    def _paragraph_items(self, file: SpecFile, ranked: Ranking | None, reason: str | None) -> None:
        """Every paragraph of one spec file as a finished item not in the context, appended to the run."""
        stage = ParagraphItems(
            self.census,
            self.settings.top_k,
            lambda: self._poll("spec excerpts"),
            lambda texts: self.measure_many(texts, "spec excerpts"),
        )
        self.items.extend(stage.of(file.part, file.text, file.rel, file.line, ranked, reason))

    def _spec(self, max_tokens: int) -> str:
        files, failure = self._load_spec_files()
        failure = self._extract_keywords(failure)
        if failure is not None:
            self.left_out[SPEC] = failure
            for file in files:
                self._paragraph_items(file, None, f"the spec section is left out: {failure}")
            return ""
        if not any(file.text for file in files):
            return ""
        words = [k.word for k in self.keywords]
        if not words:
            reason = (
                "the task has no keywords (no title/description word over 3 characters, "
                "no file stem part over 2), so no spec section is built"
            )
            for file in files:
                self._paragraph_items(file, None, reason)
            return ""
        return self._excerpts(files, words, max_tokens)

    def _score_part(self, file: SpecFile, words: Sequence[str]) -> ScoredPart:
        """Rank one part's paragraphs, record them all, and make drafts of the top k."""
        index = spec_index(file.text, file.line)
        ranked = ranking(index, words, lambda: self._poll("spec excerpts"))
        base = len(self.items)
        self._paragraph_items(file, ranked, None)
        scored = ScoredPart(file, ranked, ranked.ranked[: self.settings.top_k])
        for s in scored.top:
            slot = base + s.paragraph.index
            scored.drafts[s.paragraph.index] = draft = draft_of(self.items[slot])
            self.items[slot] = draft
        return scored

    def _excerpts(self, files: Sequence[SpecFile], words: Sequence[str], max_tokens: int) -> str:
        """The spec section: each part's top paragraphs under its header, truncated to its budget."""
        parts: list[str] = []
        # Each part's text in the section as each step leaves it (header excluded), and the
        # steps to record once every part's starting text is known: see spec_chain.
        bodies: dict[str, str] = {}
        steps: list[tuple[str, str, str, str]] = []
        for file in files:
            if not file.text:
                continue
            scored = self._score_part(file, words)
            relevant, top, part, name = scored.relevant, scored.top, file.part, scored.name
            if not relevant:
                continue
            bodies[part] = scored.ranking.ranked_text
            if len(scored.ranking.ranked) > len(top):
                chose = f"{name}: kept the {len(top)} best of its {len(scored.ranking.ranked)} scoring paragraphs"
                steps.append(("select_top_k", part, chose, relevant))
            parts.append(_PART_HEADERS[part])
            t = self.spec_sub_budgets[part] = part_budget(part, max_tokens, parts, self.counter.count)
            cut = truncate(relevant, t, self.counter)
            if cut.cut:
                how = (
                    f"{name}: cut at a {cut.boundary} boundary to fit {fmt(t)} tokens "
                    f"({fmt(cut.kept_chars)} of {fmt(cut.original_chars)} characters kept)"
                )
                steps.append(("truncate", part, how, cut.text))
            parts.append(cut.text)
            part_offset = sum(len(p) for p in parts[:-1]) + 2 * (len(parts) - 1)
            self._place_paragraphs(scored, cut.kept_chars, cut.boundary, t, part_offset)
        chain = spec_chain(bodies, [(part, body) for _, part, _, body in steps])
        for (action, part, description, _), (before, after) in zip(steps, chain, strict=True):
            self._step(SPEC, action, part, description, before, after)
        return "\n\n".join(parts)

    def _place_paragraphs(self, scored: ScoredPart, kept: int, boundary: str, budget: int, part_offset: int) -> None:
        """Each top paragraph's fate once its part is truncated to *kept* characters."""
        top, part = scored.top, scored.file.part
        placements = place_paragraphs([len(s.paragraph.text) for s in top], kept)
        for position, (s, placed) in enumerate(zip(top, placements, strict=True), start=1):
            d = scored.drafts[s.paragraph.index]
            what = f"rank {position} of {len(top)} kept (score {s.score})"
            d.status = placed.status
            if d.status == INCLUDED:
                d.reason = what
            elif d.status == TRUNCATED:
                d.reason = (
                    f"{what}; cut at a {boundary} boundary: {fmt(placed.keep)} of {fmt(placed.length)} characters "
                    f"kept (the {part} budget is {fmt(budget)} tokens)"
                )
            else:
                d.reason = (
                    f"{what}, but truncation to the {part} budget of {fmt(budget)} tokens "
                    f"cut the text before it ({boundary} boundary)"
                )
            d.kept_chars = placed.keep
            d.offset = part_offset + placed.start if placed.keep else None

    # -- assembly ---------------------------------------------------------------------------

    def _section_outcome(
        self, name: str, text: str, fatal: str | None, built: str, empty: Callable[[str], str]
    ) -> tuple[str, str]:
        """A section's status and reason: the whole context failed, it was *built*, its
        builder failed, or it is empty (``empty(name)`` says why)."""
        if fatal is not None:
            outcome = "fell back to empty" if self.settings.fallback_to_full else "failed"
            return "failed", f"the whole context {outcome}: {fatal}"
        if text:
            return "included", built
        if name in self.left_out:
            return "failed", self.left_out[name]
        return "empty", empty(name)

    def _sections(
        self, texts: Mapping[str, str], budgets: Mapping[str, int], fatal: str | None
    ) -> tuple[str, tuple[Section, ...]]:
        context, spans = join_sections((SECURITY, SPEC), texts)
        sections = []
        for name in (SECURITY, SPEC):
            text = texts[name]
            status, reason = self._section_outcome(
                name, text, fatal, "built and within the pipeline's rules", self._empty_reason
            )
            sub = (
                dict(self.spec_sub_budgets)
                if name == SPEC
                else {"summary_limit": rule_limit(budgets[name], self.counter.name).limit}
            )
            sections.append(
                Section(
                    name=name,
                    title=SECTION_TITLES[name],
                    text=text,
                    budget=budgets[name],
                    tokens=self.census.measure(text),
                    status=status,
                    reason=reason,
                    span=spans.get(name),
                    sub_budgets=sub,
                )
            )
        return context, tuple(sections)

    def _empty_reason(self, name: str) -> str:
        drafts = [d for d in self.items if d.section == name]
        if name == SECURITY:
            if not self.settings.security_rule_filtering:
                return "security_rule_filtering is off"
            if drafts and all("no create/modify files" in d.reason for d in drafts[:4]):
                return "the task has no create/modify files"
            return "no matched rule file exists or has kept lines within the budget"
        if not drafts:
            return "no spec text: requirements and design files are missing or empty"
        if not self.keywords:
            return "the task has no keywords"
        return "no paragraph scored above 0"
