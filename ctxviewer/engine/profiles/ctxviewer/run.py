"""The ``ctxviewer`` profile's run: exact budgets, word-boundary keywords, worth per token, near-duplicates out.

:meth:`CtxviewerRun.run` is these stages in order: gather (:mod:`..gathering`); the budget split
(:func:`split_budget`); the rule blocks fitted in order (:func:`fit_in_order`); the candidates
scored (:func:`match_counts`, :func:`rarity_weights`, :func:`worth`); packing (:class:`Packer`);
the layout in document order (:func:`document_order`); the exact check (:func:`last_packed`).
The rules, which the tests are written against: ``docs/profiles.md`` (ctxviewer).
"""

from __future__ import annotations

import heapq
import math
import re
from collections import Counter
from collections.abc import Container, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from ctxviewer.engine.profiles.base import ItemDraft, ProfileResult, fmt, plain_name
from ctxviewer.engine.profiles.gathering import (
    PeerRun,
    Placed,
    SectionPlan,
    SpecPart,
    is_heading_only,
    joined,
    keep_prefix,
    keep_whole,
)
from ctxviewer.engine.profiles.mahabharatha import SECURITY_HEADER
from ctxviewer.engine.signals.spec import CHECK_EVERY, LRU, Check, SpecIndex, cut_pieces
from ctxviewer.engine.signals.words import STOPWORDS, forms, normalise, words_of
from ctxviewer.engine.tokens.counting import TokenCounter
from ctxviewer.engine.trace.model import CUT_FOR_BUDGET, NOT_CANDIDATE, OUTRANKED, SECURITY, SPEC, Keyword

_WORD = re.compile(r"[^\W_]+")  # letters and digits of any script

#: Why a heading-only paragraph is not packed by itself.
HEADING_ALONE = "a heading: in the context only above a paragraph it heads"
#: The marker after a paragraph cut to fit.
CUT_MARKER = " [\u2026]"
#: A partial paragraph is only worth adding with at least this many tokens of room.
MIN_PARTIAL_TOKENS = 24
#: A keyword the context already covers counts this much of its weight again.
REPEAT_WEIGHT = 0.25


def extract(task: Mapping[str, object]) -> tuple[Keyword, ...]:
    """The ctxviewer profile's keywords, sorted; stopwords included with a note."""
    found: dict[str, dict[str, None]] = {}  # sources as ordered set keys: linear in the files listed

    def add(word: str, source: str) -> None:
        if len(word) < 3 or word.isdigit():
            return
        found.setdefault(normalise(word), {})[source] = None

    for key in ("title", "description"):
        text = task.get(key)
        if isinstance(text, str):
            for word in words_of(text):
                add(word, key)
    files = task.get("files")
    if isinstance(files, Mapping):
        for key, entries in files.items():
            for entry in entries if isinstance(entries, list) else ():
                if isinstance(entry, str):
                    for word in words_of(PurePosixPath(entry).stem):
                        add(word, f"files.{key}: {entry}")
    return tuple(
        Keyword(w, tuple(found[w]), "stopword: not used for matching" if w in STOPWORDS else "") for w in sorted(found)
    )


_matches = LRU(64)


def match_counts(index: SpecIndex, words: Iterable[str], check: Check | None = None) -> Mapping[int, Mapping[str, int]]:
    """For each paragraph index, how often each keyword occurs in it as a whole word.

    Cached per (index, keywords), as the reference ranking is: a re-budget rescans nothing.
    *check* is called every few thousand paragraphs and may raise to cancel.
    """
    key = (id(index), tuple(sorted(set(words))))
    found = _matches.get(key)
    if found is not None and found[0] is index:
        counts: Mapping[int, Mapping[str, int]] = found[1]
        return counts
    counts = _match_counts(index, key[1], check)
    _matches.put(key, (index, counts))
    return counts


def _match_counts(index: SpecIndex, words: tuple[str, ...], check: Check | None) -> dict[int, Counter[str]]:
    """Whole-word matches of every keyword's forms in each paragraph.

    A paragraph's words are the maximal runs of letters and digits of its text, each
    lowercased on its own -- exactly how :func:`words_of` makes keywords -- and a match
    is a word equal to a form of a keyword.  Each paragraph's words are looked up in a
    table of all the forms at once, so the cost is the text's length whatever the
    keywords or their characters: a keyword whose lowercase is longer than its letters
    (``İ`` lowercases to ``i`` and a combining dot) is looked up like any other.  A form
    two keywords share counts for the longer keyword.  A keyword that is not one word
    (it holds a space or punctuation) never matches.
    """
    out: dict[int, Counter[str]] = {}
    if not words:
        return out
    owner: dict[str, str] = {}
    for word in sorted(words, key=len, reverse=True):
        for form in forms(word):
            owner.setdefault(form, word)
    keys = owner.keys()
    for para in index.paragraphs:
        if check is not None and not para.index % CHECK_EVERY:
            check()
        if para.blank:
            continue
        text = para.text
        for piece in _pieces(text) if len(text) > _PIECE_CHARS else (text,):
            tokens = _lower_words(piece)
            if keys.isdisjoint(tokens):
                continue
            counts = out.setdefault(para.index, Counter())
            for token in tokens:
                owned = owner.get(token)
                if owned is not None:
                    counts[owned] += 1
    return out


def _lower_words(text: str) -> list[str]:
    """The words of *text* (maximal runs of letters and digits), each lowercased on its own."""
    if text.isascii():  # lowercasing ASCII keeps every character's place and kind: one call
        return _WORD.findall(text.lower())
    return [word.lower() for word in _WORD.findall(text)]


#: A paragraph longer than this is split into words a piece at a time (cut between words).
_PIECE_CHARS = 1 << 20
_NOT_WORD = re.compile(r"[\W_]")


def _pieces(text: str) -> list[str]:
    """*text* cut just before a character that is not a letter or digit, about every megabyte."""
    return cut_pieces(text, _PIECE_CHARS, _NOT_WORD)


def triples(text: str) -> frozenset[tuple[str, ...]]:
    """Word triples of *text* (its words, for texts under three words)."""
    words = _WORD.findall(text.lower())
    if len(words) < 3:
        return frozenset((w,) for w in words)
    return frozenset(zip(words, words[1:], words[2:], strict=False))


def similarity(a: frozenset[tuple[str, ...]], b: frozenset[tuple[str, ...]]) -> float:
    if not a or not b:
        return 0.0
    return len(a & b) / len(a | b)


@dataclass
class Heading:
    """A heading-only paragraph: placed above the packed paragraphs it heads, never alone."""

    draft: ItemDraft
    tokens: int


@dataclass
class Candidate:
    """A scoring paragraph: its draft, its keyword counts and its exact cost."""

    part: SpecPart
    index: int
    draft: ItemDraft
    counts: Mapping[str, int]
    tokens: int
    full: float  # its worth with nothing covered yet
    heading: Heading | None = None  # the heading-only paragraph it stands under
    shingles: frozenset[tuple[str, ...]] = field(default_factory=frozenset)


# -- stages ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Budgets:
    """A run's budget split: each section's share (``int(budget * share)``); the buffer is the rest."""

    total: int
    security: int
    spec: int

    @property
    def buffer(self) -> int:
        return self.total - self.security - self.spec


def split_budget(total: int, security_share: float, spec_share: float) -> Budgets:
    return Budgets(total, int(total * security_share), int(total * spec_share))


def fit_in_order(costs: Sequence[int], used: int, budget: int) -> list[tuple[bool, int]]:
    """(fits, room left when it came up) for each cost in order, each kept whole while it fits
    the room *used* leaves of *budget*; one that does not fit is skipped and later ones still try."""
    out: list[tuple[bool, int]] = []
    for cost in costs:
        left = budget - used
        fits = used + cost <= budget
        out.append((fits, left))
        if fits:
            used += cost
    return out


def rarity_weights(per_part: Iterable[Mapping[int, Mapping[str, int]]], nonblank: int) -> dict[str, float]:
    """Each keyword's weight, ``log(1 + N / df)``: *N* non-blank paragraphs, *df* those it occurs in."""
    df: Counter[str] = Counter()
    for counts in per_part:
        for c in counts.values():
            df.update(c.keys())
    return {w: math.log(1 + nonblank / n) for w, n in df.items()}


def worth(weight: Mapping[str, float], counts: Iterable[str], covered: Container[str]) -> float:
    """A paragraph's worth: its keywords' weights, a keyword already *covered* counting a quarter."""
    return sum(weight[w] * (REPEAT_WEIGHT if w in covered else 1.0) for w in counts)


class Packer:
    """Packing scored paragraphs into a token budget: by worth per token, whole, near-duplicates
    left out (:meth:`pack`); then the room left filled with the best paragraph that did not fit,
    cut at a boundary (:meth:`partial`).

    Each paragraph costs its tokens and a separator, plus its part's header and its heading when
    it is the first placed under them.  Decided drafts get their status and reason; the packed
    paragraphs are :attr:`chosen` in the order they were packed.
    """

    def __init__(
        self,
        counter: TokenCounter,
        weight: Mapping[str, float],
        headers: Mapping[str, int],
        near_duplicate: float,
    ) -> None:
        self.counter = counter
        self.weight = weight
        self.sep = counter.count("\n\n")
        #: Each part's header cost (with its separator).
        self.headers = headers
        self.threshold = near_duplicate
        self.covered: set[str] = set()
        self.opened: set[str] = set()  # parts whose header is placed
        self.headed: set[int] = set()  # id() of the headings already placed
        self.chosen: list[Candidate] = []
        self.unfit: list[Candidate] = []
        self.used = 0
        #: Near-duplicates left out, each with its step's description.
        self.duplicates: list[tuple[Candidate, str]] = []
        #: The paragraph cut to fill the room, with its step's description.
        self.partly: tuple[Candidate, str] | None = None

    def extras(self, c: Candidate) -> int:
        """What packing *c* costs beyond its own text: its part's header and its heading, if not yet placed."""
        extra = 0 if c.part.part in self.opened else self.headers[c.part.part]
        if c.heading is not None and id(c.heading) not in self.headed:
            extra += c.heading.tokens + self.sep
        return extra

    def cost(self, c: Candidate) -> int:
        return c.tokens + self.sep + self.extras(c)

    def pack(self, candidates: Sequence[Candidate], budget: int) -> None:
        """Pack whole paragraphs, the best worth per token first, while they fit *budget*."""
        chosen, covered = self.chosen, self.covered
        # Lazy greedy: an entry's key is its worth per token when queued, at coverage
        # *version* (the number of paragraphs packed then); only packing changes worth
        # or cost, so an entry queued at the current version needs no recomputing.
        heap = [(-c.full / self.cost(c), n, 0, c) for n, c in enumerate(candidates)]
        heapq.heapify(heap)
        while heap:
            key, n, version, c = heapq.heappop(heap)
            need = self.cost(c)
            if self.used + need > budget:  # room only shrinks: it will never fit, whatever its worth
                c.draft.status = CUT_FOR_BUDGET
                c.draft.reason = f"{fmt(need)} tokens did not fit the {fmt(budget - self.used)} left"
                self.unfit.append(c)
                continue
            fresh = key if version == len(chosen) else -worth(self.weight, c.counts, covered) / need
            if fresh > key + 1e-12:  # worth less than when queued: re-queue at its new place
                heapq.heappush(heap, (fresh, n, len(chosen), c))
                continue
            if self.near_duplicate(c, chosen):
                continue
            self.used += need
            self.opened.add(c.part.part)
            if c.heading is not None:
                self.headed.add(id(c.heading))
            covered.update(c.counts)
            chosen.append(c)
            c.draft.reason = (
                f"packed {len(chosen)}: worth {-fresh * need:.2f} for {fmt(need)} tokens "
                f"({-fresh:.4f} per token), keywords {', '.join(sorted(c.counts))}"
            )

    def near_duplicate(self, c: Candidate, chosen: Sequence[Candidate]) -> bool:
        """Whether *c* shares enough word triples with a chosen paragraph to be left out (it then is)."""
        if not c.shingles:
            c.shingles = triples(c.draft.text)
        for other in chosen:
            same = similarity(c.shingles, other.shingles)
            if same >= self.threshold:
                c.draft.status = OUTRANKED
                c.draft.reason = (
                    f"near-duplicate of {plain_name(other.draft)}: {same:.0%} of their word triples are shared"
                )
                self.duplicates.append(
                    (
                        c,
                        f"left out {plain_name(c.draft)}, a near-duplicate of {plain_name(other.draft)} "
                        f"({same:.0%} similar)",
                    )
                )
                return True
        return False

    def partial(self, room: int) -> tuple[Candidate, Placed] | None:
        """The best paragraph that did not fit, cut to the *room* left (None: not worth it)."""
        marker = self.counter.count(CUT_MARKER)
        if room - self.sep - marker < MIN_PARTIAL_TOKENS:
            return None
        best: tuple[Candidate, int, float] | None = None
        # Worth only falls as coverage grows, so a candidate's full worth per token bounds
        # what it can offer: look at the best bounds first and stop when none can win.
        for c in sorted(self.unfit, key=lambda c: -c.full / max(1, c.tokens)):
            if best is not None and c.full / max(1, c.tokens) <= best[2]:
                break
            space = room - self.sep - marker - self.extras(c)
            value = worth(self.weight, c.counts, self.covered)
            if space >= MIN_PARTIAL_TOKENS and value > 0 and (best is None or value / max(1, c.tokens) > best[2]):
                best = (c, space, value / max(1, c.tokens))
        if best is None or self.near_duplicate(best[0], self.chosen):
            return None
        c, space, _ = best
        text = c.draft.text
        fits = self.counter.fits_prefix(text, space)
        cut = _boundary(text, fits)
        if cut <= 0:
            return None
        kept = f"kept {fmt(cut)} of {fmt(len(text))} characters to fill the {fmt(room)} tokens left"
        self.partly = (c, f"{plain_name(c.draft)}: {kept}")
        return c, keep_prefix(c.draft, cut, CUT_MARKER, f"{c.draft.reason}; partly: {kept}", None)


def document_order(
    parts: Sequence[SpecPart], chosen: Sequence[Candidate], pieces_by: Mapping[int, Placed]
) -> list[Placed]:
    """The packed paragraphs (pieces by id() of their candidate) in document order, under their
    part's header and their headings (each heading placed once, above the first it heads)."""
    pieces: list[Placed] = []
    for part in parts:
        mine = sorted((c for c in chosen if c.part is part), key=lambda c: c.index)
        if mine:
            pieces.append(Placed(part.header))
        for c in mine:
            if c.heading is not None and c.heading.draft.status == NOT_CANDIDATE:
                why = f"the heading of {plain_name(c.draft)}, placed above it ({fmt(c.heading.tokens)} tokens)"
                pieces.append(keep_whole(c.heading.draft, why))
            pieces.append(pieces_by[id(c)])
    return pieces


def last_packed(pieces: Sequence[Placed], order: Mapping[int, int]) -> Placed:
    """The piece to take out first: the last packed (*order*: packing place by id() of a draft),
    else the last of the pieces that hold a draft."""
    return max(
        (p for p in pieces if p.draft is not None),
        key=lambda p: (order.get(id(p.draft), -1), pieces.index(p)),
    )


class CtxviewerRun(PeerRun):
    """One run of the ctxviewer profile over one task."""

    #: The spec paragraphs packed, in the order they were (the partial fill last).
    packed: list[Candidate]
    #: Every scoring paragraph, in document order (what a refit re-packs at other budgets).
    candidates: list[Candidate]

    def extract_keywords(self) -> tuple[Keyword, ...]:
        return extract(self.clean_task())

    def run(self) -> ProfileResult:
        self.gather()
        self.sep = self.counter.count("\n\n")
        budgets = split_budget(self.settings.budget, self.settings.security_share, self.settings.spec_share)
        security = self._security(budgets.security)
        self._check("security rules", 0.6)
        unused = max(0, budgets.security - self._tokens(security))
        spec_budget = budgets.spec + unused
        spec = self._pack(self._candidates(), spec_budget)
        self._check("packing", 0.85)
        plans = [
            SectionPlan(
                SECURITY,
                budgets.security,
                security,
                f"within its share of {fmt(budgets.security)} tokens (exact {self.counter.name}); "
                f"the {fmt(unused)} it did not use went to the spec excerpts",
                {"share": budgets.security, "passed to spec excerpts": unused},
            ),
            SectionPlan(
                SPEC,
                spec_budget,
                spec,
                f"within its budget of {fmt(spec_budget)} tokens: its share {fmt(budgets.spec)} plus {fmt(unused)} "
                "the security rules left unused",
                {"share": budgets.spec, "unused by security rules": unused},
            ),
        ]
        self._verify(plans)
        return self.result(plans, tokenizer=self.counter.name, buffer=budgets.buffer)

    def _tokens(self, pieces: list[Placed]) -> int:
        return self.counter.count(joined(pieces)) if pieces else 0

    # -- security rules -----------------------------------------------------------------------------

    def _security(self, budget: int) -> list[Placed]:
        """Rule blocks whole in the reference order while they fit; then the first that did not, line by line."""
        usable = [c for c in self.rules if c.block is not None]
        if not usable:
            return []
        header = Placed(SECURITY_HEADER[:-2])
        pieces = [header]
        costs = [self.counter.count(c.draft.text) + self.sep for c in usable]
        used = self.counter.count(header.text)
        unfit = []
        fitted = fit_in_order(costs, used, budget)
        for n, (c, cost, (fits, left)) in enumerate(zip(usable, costs, fitted, strict=True), start=1):
            if fits:
                pieces.append(keep_whole(c.draft, f"{c.why}; {fmt(cost)} tokens fit the {fmt(left)} left", n))
                used += cost
            else:
                c.draft.status = CUT_FOR_BUDGET
                c.draft.reason = f"{c.why}; {fmt(cost)} tokens did not fit the {fmt(left)} left of {fmt(budget)}"
                unfit.append(c)
        if unfit:
            pieces += self._partial_rule(unfit[0].draft, budget - used, pieces)
        return pieces if len(pieces) > 1 else []

    def _partial_rule(self, draft: ItemDraft, room: int, pieces: list[Placed]) -> list[Placed]:
        lines = draft.text.split("\n")
        if room - self.sep <= 0:
            return []
        fits = self.counter.fits_prefix(draft.text, room - self.sep)
        kept = draft.text[:fits].rsplit("\n", 1)[0] if fits < len(draft.text) else draft.text
        count = kept.count("\n")
        if count < 1:
            return []
        draft.reason = f"{draft.reason}; kept its first {count} of {len(lines) - 1} rule lines, as many as fit"
        # Measured on the section: with the whole block after those that fit, then with its kept lines.
        self._step(
            SECURITY,
            "keep_lines",
            draft.id,
            f"{plain_name(draft)}: kept {count} of its {len(lines) - 1} rule lines",
            joined([*pieces, Placed(draft.text)]),
            joined([*pieces, Placed(kept)]),
        )
        return [keep_prefix(draft, len(kept), "", draft.reason)]

    # -- spec paragraphs ------------------------------------------------------------------------------

    def _candidates(self) -> list[Candidate]:
        """Every paragraph recorded; those a keyword occurs in (as a word) as candidates, with their worth."""
        self.headings: set[int] = set()  # id() of the heading-only paragraphs' drafts
        words = [k.word for k in self.keywords if not k.note]
        per_part = [(part, match_counts(part.index, words, lambda: self._poll("packing"))) for part in self.parts]
        nonblank = sum(1 for part in self.parts for p in part.index.paragraphs if not p.blank) or 1
        self.weight = rarity_weights((counts for _, counts in per_part), nonblank)
        out: list[Candidate] = []
        for part, counts in per_part:
            scoring = [p for p in part.index.paragraphs if not p.blank and p.index in counts]
            tokens = dict(
                zip((p.index for p in scoring), self.counter.count_many(p.text for p in scoring), strict=True)
            )
            heading: Heading | None = None
            for para in part.index.paragraphs:
                if para.blank:
                    self.paragraph_draft(part, para, "blank paragraph")
                    continue
                if is_heading_only(para):
                    draft = self.paragraph_draft(part, para, HEADING_ALONE)
                    heading = Heading(draft, self.counter.count(para.text))
                    self.headings.add(id(draft))
                    continue
                found = counts.get(para.index)
                if found is None:
                    self.paragraph_draft(part, para, "no task keyword occurs in it as a word")
                    continue
                draft = self.paragraph_draft(part, para, "")
                draft.score, draft.matched = len(found), tuple(sorted(found))
                full = worth(self.weight, found, set())
                draft.details = {"matches": dict(sorted(found.items())), "worth": round(full, 3)}
                out.append(Candidate(part, para.index, draft, found, tokens[para.index], full, heading))
        self.candidates = out
        return out

    def _pack(self, candidates: list[Candidate], budget: int) -> list[Placed]:
        """The spec section's pieces: packed whole by worth per token, the room left filled with part
        of one more, laid out in document order; packing's steps recorded."""
        headers = {part.part: self.counter.count(part.header) + self.sep for part in self.parts}
        packer = Packer(self.counter, self.weight, headers, self.settings.near_duplicate)
        packer.pack(candidates, budget)
        chosen = self.packed = packer.chosen
        pieces_by = {id(c): keep_whole(c.draft, c.draft.reason, n) for n, c in enumerate(chosen, start=1)}
        partial = packer.partial(budget - packer.used)
        if partial is not None:
            c, piece = partial
            chosen.append(c)
            packer.opened.add(c.part.part)
            pieces_by[id(c)] = piece
        pieces = document_order(self.parts, chosen, pieces_by)
        self._pack_steps(pieces, packer.duplicates, packer.partly)
        return pieces

    def _pack_steps(
        self, pieces: list[Placed], duplicates: Sequence[tuple[Candidate, str]], partly: tuple[Candidate, str] | None
    ) -> None:
        """Packing's steps, measured on the spec section so that they chain.

        The section starts as laid out with every near-duplicate added at its end and the
        partly kept paragraph whole; each near-duplicate step takes one out, the truncation
        cuts that paragraph, and the last step leaves the section as laid out.
        """
        whole = [
            Placed(p.draft.text, p.draft) if partly is not None and p.draft is partly[0].draft else p for p in pieces
        ]
        extra = [c.draft.text for c, _ in duplicates]

        def state(laid: list[Placed], rest: list[str]) -> str:
            return "\n\n".join(t for t in (joined(laid), *rest) if t)

        for n, (c, description) in enumerate(duplicates):
            self._step(
                SPEC, "near_duplicate", c.draft.id, description, state(whole, extra[n:]), state(whole, extra[n + 1 :])
            )
        if partly is not None:
            self._step(SPEC, "truncate", partly[0].draft.id, partly[1], joined(whole), joined(pieces))

    def _drop_orphans(self, pieces: list[Placed]) -> None:
        """Take out part headers and headings that nothing they head follows any more."""

        def heads(piece: Placed) -> bool:
            return piece.draft is None or id(piece.draft) in self.headings

        n = len(pieces) - 1
        while n >= 0:  # from the end: taking out a heading can orphan the header above it
            piece = pieces[n]
            if heads(piece) and (n + 1 == len(pieces) or heads(pieces[n + 1])):
                del pieces[n]
                if piece.draft is not None:
                    piece.draft.status, piece.draft.kept_chars = NOT_CANDIDATE, 0
                    piece.draft.reason = f"{HEADING_ALONE}; the paragraph under it was taken out again"
            n -= 1

    # -- the exact check --------------------------------------------------------------------------------

    def _verify(self, plans: list[SectionPlan]) -> None:
        """Take the last-packed items out until every section and the whole context fit exactly."""
        budget = self.settings.budget
        while True:
            over = next((p for p in plans if p.pieces and self._tokens(p.pieces) > p.budget), None)
            whole = "\n\n".join(t for t in (joined(p.pieces) for p in plans) if t)
            if over is None and self.counter.count(whole) <= budget:
                return
            plan = over or next(p for p in reversed(plans) if p.pieces)
            # The last packed goes first: pieces are in document order, packing was by worth.
            victim = last_packed(plan.pieces, {id(c.draft): n for n, c in enumerate(self.packed)})
            before = joined(plan.pieces)
            plan.pieces.remove(victim)
            self._drop_orphans(plan.pieces)
            assert victim.draft is not None
            heading = id(victim.draft) in self.headings
            victim.draft.status, victim.draft.kept_chars = (NOT_CANDIDATE if heading else CUT_FOR_BUDGET), 0
            victim.draft.reason += "; taken out again by the exact check of the joined section"
            self._step(
                plan.name,
                "verify_cut",
                victim.draft.id,
                f"exact check: took out {plain_name(victim.draft)}",
                before,
                joined(plan.pieces),
            )


def _boundary(text: str, limit: int) -> int:
    """The best cut at or before *limit*: after a sentence in the latter half, else at a word."""
    if limit >= len(text):
        return len(text)
    head = text[:limit]
    sentence = max(head.rfind(". "), head.rfind(".\n"))
    if sentence > limit // 2:
        return sentence + 1
    space = max(head.rfind(" "), head.rfind("\n"))
    return space if space > 0 else limit
