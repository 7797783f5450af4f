"""The reference run's spec-excerpt stages: load, score, budget, truncate, place, chain the steps.

1. :func:`load_spec` -- a spec part's file with the reference's file-name fallbacks (the
   text ``.strip()``-ed, with its first line), or why the spec section fails;
2. scoring -- :func:`~ctxviewer.engine.signals.spec.ranking` of its paragraphs, every one
   an item (:class:`ParagraphItems`, built once and shared by later runs), the top k as a
   :class:`ScoredPart`;
3. :func:`part_budget` -- half the section's budget for requirements, what is left (at
   least a quarter) for design;
4. truncation (:func:`~ctxviewer.engine.signals.spec.truncate`) and
   :func:`place_paragraphs` -- what each top paragraph keeps, and where (its draft's fate
   and reason: :func:`place_drafts`);
5. :func:`spec_chain` -- the steps (top-k selection, truncation) measured on the whole section.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from ctxviewer.engine.files.reading import Problem, ProjectFS
from ctxviewer.engine.profiles.base import ItemDraft, fmt
from ctxviewer.engine.signals.spec import (
    CHECK_EVERY,
    LRU,
    SPEC_CACHE_BYTES,
    Ranking,
    Scored,
    SpecIndex,
    paragraph_limit_problem,
    spec_index,
    strip_with_offset,
)
from ctxviewer.engine.tokens.counting import Census, TokenCounts
from ctxviewer.engine.trace.model import (
    CUT_FOR_BUDGET,
    INCLUDED,
    NOT_CANDIDATE,
    NOWHERE,
    OUTRANKED,
    REACHED_NO,
    SPEC,
    SPEC_PARAGRAPH,
    TRUNCATED,
    Item,
    TraceError,
    make_item,
)

REQUIREMENTS_HEADER = "## Relevant Requirements"
DESIGN_HEADER = "## Relevant Design"
REQUIREMENTS_NAMES = ("requirements.md", "REQUIREMENTS.md")
DESIGN_NAMES = ("design.md", "DESIGN.md", "architecture.md", "ARCHITECTURE.md")
#: The spec parts in the order the section holds them, with the file names each is looked for under.
PART_ORDER = (("requirements", REQUIREMENTS_NAMES), ("design", DESIGN_NAMES))
PART_HEADERS = {"requirements": REQUIREMENTS_HEADER, "design": DESIGN_HEADER}
#: What a spec file with NUL bytes gets.
AS_READ = "read as text all the same, as the real system does"

#: Finished paragraph items per (spec content, keywords, top_k, reason): see
#: :meth:`ParagraphItems.of`.
_base_items = LRU(8)
#: An unscored item's rough size in bytes, its text aside (the text is the index's).
ITEM_BYTES = 400
#: Each spec file's paragraphs as unscored items: see :meth:`ParagraphItems.unscored`.  Held
#: by their rough size, as the spec's tables are.
_unscored = LRU(1024, lambda held: ITEM_BYTES * len(held[1]), SPEC_CACHE_BYTES)


def clear_caches() -> None:
    """Forget the cached paragraph items (benchmarks and tests start cold with this)."""
    _base_items.clear()
    _unscored.clear()


@dataclass(frozen=True)
class SpecFile:
    """One spec part as loaded: its stripped text ("" when missing or empty), file and first line."""

    part: str
    text: str = ""
    rel: str | None = None
    line: int = 1


@dataclass
class SpecLoad:
    """A spec part as :func:`load_spec` found it, with the errors to record, in order."""

    file: SpecFile
    errors: list[TraceError] = field(default_factory=list)
    #: Why the spec section fails (a file that is not UTF-8: the real system's read raises).
    failure: str | None = None


def load_spec(fs: ProjectFS, spec_dir: str, part: str, names: Sequence[str]) -> SpecLoad:
    """The first of *names* in *spec_dir* with text, following the reference's fallbacks.

    A missing, unreadable or over-long file (too many paragraphs) is passed over for the next
    name; one that is not UTF-8 fails the spec section.
    """
    errors: list[TraceError] = []
    for name in names:
        rel = f"{spec_dir}/{name}"
        read = fs.read_text(rel)
        if read.problem is Problem.MISSING:
            continue
        if read.problem is Problem.NOT_UTF8:
            consequence = "the spec section is left out (the real system's read raises)"
            errors.append(TraceError(SPEC, "input", read.detail, consequence, rel, read.line))
            return SpecLoad(SpecFile(part), errors, f"{rel}: {read.detail}")
        if not read.ok:
            errors.append(TraceError(SPEC, "input", read.detail, "treated as an empty spec file", rel, read.line))
            continue
        assert read.text is not None
        if read.has_nul:
            errors.append(TraceError(SPEC, "input", "binary content (NUL bytes) in a spec file", AS_READ, rel))
        stripped, first_line = strip_with_offset(read.text)
        too_many = paragraph_limit_problem(stripped)
        if too_many is not None:
            errors.append(TraceError(SPEC, "input", too_many, "treated as an empty spec file", rel))
            continue
        if stripped:
            return SpecLoad(SpecFile(part, stripped, rel, first_line), errors)
    return SpecLoad(SpecFile(part), errors)


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
        return "\n\n".join(f"{PART_HEADERS[p]}\n\n{b}" for p, b in state.items())

    out: list[tuple[str, str]] = []
    before = section()
    for part, body in changes:
        state[part] = body
        after = section()
        out.append((before, after))
        before = after  # the next step starts where this one ended: joined once
    return out


def scored_item(base: Item, score: int, matched: tuple[str, ...], rank: int | None, status: str, reason: str) -> Item:
    """*base* (an unscored paragraph item) with a score, its matched keywords, rank, status and reason."""
    return make_item(
        base.id,
        base.kind,
        base.section,
        base.part,
        base.source,
        base.line_start,
        base.line_end,
        score,
        matched,
        rank,
        status,
        reason,
        base.text,
        base.kept_chars,
        base.tokens,
        None,
        {},
        REACHED_NO,
        NOWHERE,
    )


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
        make = scored_item
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
            out[n] = make(b, len(matched), matched, position, status, why)
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
                    reached=REACHED_NO,
                    reached_how=NOWHERE,
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


def place_drafts(scored: ScoredPart, kept: int, boundary: str, budget: int, part_offset: int) -> None:
    """Each top paragraph's draft decided once its part is truncated to *kept* characters at a
    *boundary* to fit *budget* tokens; the part starts *part_offset* characters into the section."""
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
