"""The ``ctxviewer`` profile's refit: its fates at any budget and shares from one run's scored candidates.

:func:`build_refit` makes a :class:`CtxviewerRefit`, or returns the whole-run fallback where
its arithmetic does not hold.  How it counts, what it memoises and when it falls back:
``docs/sensitivity.md`` (how the refits work).
"""

from __future__ import annotations

import heapq
from bisect import bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import accumulate, pairwise

from ctxviewer.engine.profiles.base import ProfileResult
from ctxviewer.engine.profiles.ctxviewer.run import (
    CUT_MARKER,
    MIN_PARTIAL_TOKENS,
    Candidate,
    CtxviewerRun,
    _boundary,
    similarity,
    triples,
    worth,
)
from ctxviewer.engine.profiles.lookup import profile_of_run
from ctxviewer.engine.profiles.mahabharatha import SECURITY_HEADER
from ctxviewer.engine.profiles.refit_contract import SHARE_KEYS, Refit, Sections, SpecSource, WholeRun, budget_range
from ctxviewer.engine.project.loading import Feature, Project, Task
from ctxviewer.engine.project.settings import Settings
from ctxviewer.engine.tokens.counting import (
    _CUT,
    O200K,
    PIECE_CHARS,
    Census,
    TiktokenCounter,
    TokenCounter,
    get_counter,
)
from ctxviewer.engine.trace.model import CUT_FOR_BUDGET, INCLUDED, NOT_CANDIDATE, OUTRANKED, TRUNCATED

SEP = "\n\n"
#: Memoised spec and security states kept at most (then cleared: bounded memory).
MEMO_LIMIT = 100_000
#: How far below the budget where everything fits :meth:`CtxviewerRefit.ceiling` looks for the last change.
CEILING_SCAN = 20_000
_INF = 1 << 62


@dataclass(slots=True)
class _Piece:
    """A placed piece of text: the item it belongs to (-1: a header), its two exact counts, packing order."""

    item: int
    lead: str  # the text's leading blank lines (see split_lead)
    body: str  # the rest
    c: int  # count(body)
    cs: int  # count(body + "\n\n")
    #: count(body + "\n\n" + lead) for the leads of pieces that can follow it.
    joins: dict[str, int] = field(default_factory=dict)
    heading: bool = False
    key: tuple[int, int] = (0, 0)  # (part, paragraph) in document order (spec pieces)


def split_lead(text: str) -> tuple[str, str]:
    """*text*'s lead (its leading spaces, tabs and line breaks up to the last line break among
    them: the pre-token of a separator before it runs on through them) and the rest."""
    end = k = 0
    while k < len(text) and text[k] in " \t\r\n":
        k += 1
        if text[k - 1] in "\r\n":
            end = k
    return text[:end], text[end:]


@dataclass(slots=True)
class _Packing:
    """One lazy-greedy packing: the same for every spec budget in ``lo..hi``."""

    lo: int
    hi: int
    chosen: list[int]
    used: int
    statuses: dict[int, str]
    covered: set[str]
    opened: set[int]
    headed: set[int]
    #: Partial-fill scan: (bound, candidate, extras, value, value per token), best bound first.
    scan: list[tuple[float, int, int, float, float]]


@dataclass(slots=True)
class _Section:
    """A section's pieces before the exact check, and the statuses its decisions gave."""

    pieces: list[_Piece]
    statuses: dict[int, str]
    tokens: int
    #: Spec: each packed item's place in packing order (the partial fill last).
    order: dict[int, int]


class _Prefixes:
    """``TiktokenCounter.fits_prefix`` of one text at any token count, the text encoded once.

    ``fits_prefix`` encodes the text, decodes its first *m* tokens to find the characters they
    cover (a character cut inside is not counted) and shrinks that prefix while its own count is
    over *m*.  Here the encoding and each token's end in bytes are kept, so a new *m* costs a
    look-up and the count of the one prefix (cached by content).  Texts the counter cuts into
    pieces (over ``PIECE_CHARS``) are left to the counter.
    """

    def __init__(self, counter: TokenCounter, text: str) -> None:
        self.counter, self.text = counter, text
        self.ends: list[int] | None = None
        self.bytes_at: list[int] = []
        if isinstance(counter, TiktokenCounter) and len(text) <= PIECE_CHARS:
            encoding = counter.encoding
            self.bytes_at = [
                0,
                *accumulate(len(encoding.decode_single_token_bytes(t)) for t in encoding.encode_ordinary(text)),
            ]
            self.ends = list(accumulate(len(ch.encode("utf-8", "surrogatepass")) for ch in text))

    def fits(self, room: int) -> int:
        if self.ends is None:
            return self.counter.fits_prefix(self.text, room)
        if room <= 0:
            return 0
        if len(self.bytes_at) - 1 <= room:
            return len(self.text)
        cut = bisect_right(self.ends, self.bytes_at[room])
        while cut > 0 and self.counter.count(self.text[:cut]) > room:
            cut -= 1
        return cut


class CtxviewerRefit:
    """The ``ctxviewer`` profile's fates at any budget and shares, from one run's scored state."""

    def __init__(self, run: CtxviewerRun, result: ProfileResult) -> None:
        settings = run.settings
        counter = run.counter
        self.counter = counter
        self.budget = settings.budget
        self.shares = {"security_share": settings.security_share, "spec_share": settings.spec_share}
        self.threshold = settings.near_duplicate
        self.bottom, self.top = budget_range(settings)
        self.sep = counter.count(SEP)
        self.marker = counter.count(CUT_MARKER)
        # Items: every id of the run, the constant statuses, and indices for those that vary.
        self.ids: list[str] = [item.id for item in result.items]
        self.index = {item_id: n for n, item_id in enumerate(self.ids)}
        self.base: dict[str, str] = {item.id: item.status for item in result.items}
        self.texts: list[str] = []  # the placeable texts, by piece source
        self.leads: set[str] = set()  # the leads of the pieces that have one
        # Rule blocks, in order.
        usable = [c for c in run.rules if c.block is not None]
        self.rule_items = [self.index[c.draft.id] for c in usable]
        self.rule_texts = [c.draft.text for c in usable]
        rule_counts = counter.count_many(self.rule_texts)
        self.rule_costs = [n + self.sep for n in rule_counts]
        self.rule_pieces = [
            self._piece(self.index[c.draft.id], t) for c, t in zip(usable, self.rule_texts, strict=True)
        ]
        header = SECURITY_HEADER[:-2]
        self.sec_header = self._piece(-1, header)
        self.sec_header_count = counter.count(header)
        # Spec parts, candidates and headings.
        parts = run.parts
        part_of = {part.part: n for n, part in enumerate(parts)}
        self.part_headers = [self._piece(-1, part.header) for part in parts]
        self.header_costs = [counter.count(part.header) + self.sep for part in parts]
        cands: list[Candidate] = run.candidates
        self.cands = cands
        headings: dict[int, int] = {}
        self.heading_pieces: list[_Piece] = []
        self.heading_costs: list[int] = []
        self.cand_heading: list[int] = []
        for c in cands:
            if c.heading is None:
                self.cand_heading.append(-1)
                continue
            h = headings.get(id(c.heading))
            if h is None:
                h = headings[id(c.heading)] = len(self.heading_pieces)
                piece = self._piece(self.index[c.heading.draft.id], c.heading.draft.text)
                piece.heading = True
                self.heading_pieces.append(piece)
                self.heading_costs.append(c.heading.tokens + self.sep)
            self.cand_heading.append(h)
        self.cand_part = [part_of[c.part.part] for c in cands]
        self.cand_items = [self.index[c.draft.id] for c in cands]
        self.cand_pieces = [self._piece(self.index[c.draft.id], c.draft.text) for c in cands]
        for n, (c, piece) in enumerate(zip(cands, self.cand_pieces, strict=True)):
            piece.key = (self.cand_part[n], c.index)
        self.weight = run.weight
        self.leads = {p.lead for p in (*self.rule_pieces, *self.heading_pieces, *self.cand_pieces) if p.lead}
        for piece in self.heading_pieces:  # placed only above a packed paragraph
            self.base[self.ids[piece.item]] = NOT_CANDIDATE
        # Memos.
        self._packings: list[_Packing] = []
        self._los: list[int] = []
        self._sec: dict[int, _Section] = {}
        self._spec: dict[int, _Section] = {}
        self._dup: dict[tuple[int, int], bool] = {}
        self._shingles: dict[int, frozenset[tuple[str, ...]]] = {}
        self._cuts: dict[tuple[int, int], int] = {}
        self._prefix: dict[tuple[int, int], _Piece] = {}
        self._lines: dict[tuple[int, int], int] = {}
        self._prefixes: dict[int, _Prefixes] = {}
        self._ceiling: int | None = None

    def _piece(self, item: int, text: str) -> _Piece:
        self.texts.append(text)
        return self._counted(item, text)

    def _counted(self, item: int, text: str) -> _Piece:
        lead, body = split_lead(text)
        c, cs = self.counter.count_many((body, body + SEP))
        return _Piece(item, lead, body, c, cs)

    def _join(self, piece: _Piece, lead: str) -> int:
        """Exact tokens of *piece* followed by a separator and a piece with *lead*."""
        if not lead:
            return piece.cs
        found = piece.joins.get(lead)
        if found is None:
            found = piece.joins[lead] = self.counter.count(piece.body + SEP + lead)
        return found

    def _tokens(self, pieces: Sequence[_Piece]) -> int:
        """Exact tokens of the pieces joined by separators (docs/sensitivity.md: how the refits work)."""
        if not pieces:
            return 0
        total = self.counter.count(pieces[0].lead) if pieces[0].lead else 0
        if not self.leads:
            return total + sum(p.cs for p in pieces) - pieces[-1].cs + pieces[-1].c
        for before, after in pairwise(pieces):
            total += self._join(before, after.lead)
        return total + pieces[-1].c

    def _most(self, piece: _Piece) -> int:
        """The most *piece* can add to a joined count (its lead counted with the piece before it)."""
        return max(piece.c, piece.cs, *(self._join(piece, lead) for lead in self.leads))

    # -- the protocol --------------------------------------------------------------------------------------

    @property
    def keys(self) -> frozenset[str]:
        return frozenset({"budget", *SHARE_KEYS})

    @property
    def decided(self) -> frozenset[str]:
        """The rule blocks, the spec candidates and their headings: packing places them again."""
        placed = [*self.rule_items, *self.cand_items, *(p.item for p in self.heading_pieces)]
        return frozenset(self.ids[n] for n in placed)

    @property
    def sections(self) -> Sections:
        """The rule blocks: the security section's budget alone decides them (its exact check
        takes out only its own pieces; the whole context's takes from the spec while it has any,
        and the security section alone never counts more than its budget, at most the whole's).
        The spec's candidates also read the room the rules leave and the whole budget: none."""
        need = self._security_need()[0]
        return Sections(
            dict.fromkeys((self.ids[n] for n in self.rule_items), "security_share"), {"security_share": need}
        )

    def _security_need(self) -> tuple[int, int]:
        """The security budget at which every rule block fits whole and the section's own count
        fits it (from there on nothing in it changes), and that count."""
        all_rules = [self.sec_header, *self.rule_pieces] if self.rule_pieces else []
        sec_exact = self._tokens(all_rules)
        return (max(self.sec_header_count + sum(self.rule_costs), sec_exact) if all_rules else 0), sec_exact

    def fates(self, budget: int, shares: Mapping[str, float] | None = None) -> Mapping[str, str]:
        security_share, spec_share = self.shares["security_share"], self.shares["spec_share"]
        if shares:
            security_share = shares.get("security_share", security_share)
            spec_share = shares.get("spec_share", spec_share)
        sec = int(budget * security_share)
        sec_state = self._security(sec)
        spec_budget = int(budget * spec_share) + max(0, sec - sec_state.tokens)
        spec_state = self._spec_section(spec_budget)
        out = dict(self.base)
        ids = self.ids
        for n, status in sec_state.statuses.items():
            out[ids[n]] = status
        for n, status in spec_state.statuses.items():
            out[ids[n]] = status
        s_pieces, p_pieces = sec_state.pieces, spec_state.pieces
        if s_pieces and p_pieces:
            first = p_pieces[0]
            whole = sec_state.tokens - s_pieces[-1].c + self._join(s_pieces[-1], first.lead) + spec_state.tokens
            if first.lead:  # counted twice: with the security section's last piece and at the spec's start
                whole -= self.counter.count(first.lead)
        else:
            whole = sec_state.tokens + spec_state.tokens
        if (s_pieces and sec_state.tokens > sec) or (p_pieces and spec_state.tokens > spec_budget) or whole > budget:
            self._verify(out, [(sec, list(s_pieces)), (spec_budget, list(p_pieces))], spec_state.order, budget)
        return out

    def ceiling(self) -> int:
        if self._ceiling is None:
            everything = self._everything_fits()
            target = self.fates(everything)
            low = everything
            while low > max(self.bottom, everything - CEILING_SCAN) and self.fates(low - 1) == target:
                low -= 1
            self._ceiling = low
        return self._ceiling

    # -- the ceiling ---------------------------------------------------------------------------------------

    def _everything_fits(self) -> int:
        """The smallest budget (with the built shares) at which every rule block fits whole, no
        candidate is ever cut in packing, and no exact check can take anything out: above it,
        nothing depends on the budget.  The range's top when there is none."""
        security_share, spec_share = self.shares["security_share"], self.shares["spec_share"]
        all_rules = [self.sec_header, *self.rule_pieces] if self.rule_pieces else []
        sec_need, sec_exact = self._security_need()
        parts = {self.cand_part[n] for n in range(len(self.cands))}
        heads = {h for h in self.cand_heading if h >= 0}
        spec_arith = (
            sum(c.tokens + self.sep for c in self.cands)
            + sum(self.header_costs[p] for p in parts)
            + sum(self.heading_costs[h] for h in heads)
        )
        spec_pieces = [
            *(self.part_headers[p] for p in parts),
            *(self.heading_pieces[h] for h in heads),
            *self.cand_pieces,
        ]
        spec_exact = sum(self._most(p) for p in spec_pieces)
        spec_need = max(spec_arith, spec_exact)
        whole_need = sum(self._most(p) for p in (*all_rules, *spec_pieces))

        def fits(budget: int) -> bool:
            sec = int(budget * security_share)
            if security_share > 0 and sec < sec_need:
                return False
            unused = max(0, sec - sec_exact) if all_rules else sec
            return int(budget * spec_share) + unused >= spec_need and budget >= whole_need

        if not fits(self.top):
            return self.top
        lo, hi = max(0, self.bottom - 1), self.top  # fits(hi); lo does not or is below the range
        if lo >= self.bottom and fits(lo):
            return lo
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if fits(mid):
                hi = mid
            else:
                lo = mid
        return max(hi, self.bottom)

    # -- security rules ------------------------------------------------------------------------------------

    def _security(self, budget: int) -> _Section:
        """The rule blocks at a security budget, as ``CtxviewerRun._security`` decides them."""
        found = self._sec.get(budget)
        if found is not None:
            return found
        statuses: dict[int, str] = {}
        pieces: list[_Piece] = []
        if self.rule_pieces:
            pieces.append(self.sec_header)
            used = self.sec_header_count
            first_unfit = -1
            for n, cost in enumerate(self.rule_costs):
                if used + cost <= budget:
                    statuses[self.rule_items[n]] = INCLUDED
                    pieces.append(self.rule_pieces[n])
                    used += cost
                else:
                    statuses[self.rule_items[n]] = CUT_FOR_BUDGET
                    if first_unfit < 0:
                        first_unfit = n
            if first_unfit >= 0 and budget - used - self.sep > 0:
                kept = self._kept_lines(first_unfit, budget - used - self.sep)
                if kept:
                    statuses[self.rule_items[first_unfit]] = TRUNCATED
                    pieces.append(self._prefix_piece(-1 - first_unfit, self.rule_items[first_unfit], kept, ""))
            if len(pieces) <= 1:
                pieces = []
        state = _Section(pieces, statuses, self._tokens(pieces), {})
        if len(self._sec) >= MEMO_LIMIT:
            self._sec.clear()
        self._sec[budget] = state
        return state

    def _kept_lines(self, rule: int, room: int) -> int:
        """Characters of the rule block kept line by line within *room* tokens (0: fewer than one rule line)."""
        key = (rule, room)
        found = self._lines.get(key)
        if found is None:
            text = self.rule_texts[rule]
            fits = self._fits(-1 - rule, text, room)
            kept = text[:fits].rsplit("\n", 1)[0] if fits < len(text) else text
            found = self._lines[key] = len(kept) if kept.count("\n") >= 1 else 0
        return found

    def _prefix_piece(self, source: int, item: int, chars: int, marker: str) -> _Piece:
        """The piece of the first *chars* characters of a text (*source*: a candidate, or -1 - a rule) and *marker*."""
        key = (source, chars)
        found = self._prefix.get(key)
        if found is None:
            text = (self.cands[source].draft.text if source >= 0 else self.rule_texts[-1 - source])[:chars] + marker
            found = self._prefix[key] = self._counted(item, text)
        return found

    # -- spec paragraphs -----------------------------------------------------------------------------------

    def _spec_section(self, budget: int) -> _Section:
        """The spec section at a spec budget: packed, filled, laid out (``CtxviewerRun._pack``)."""
        found = self._spec.get(budget)
        if found is not None:
            return found
        packing = self._packing(budget)
        statuses = {self.cand_items[n]: s for n, s in packing.statuses.items()}
        members = [(n, self.cand_pieces[n]) for n in packing.chosen]
        partial = self._partial(packing, budget - packing.used, statuses)
        if partial is not None:
            members.append(partial)
        order = {piece.item: k for k, (_, piece) in enumerate(members)}
        # Document order under part headers and headings (each heading above the first it heads).
        members.sort(key=lambda m: m[1].key)
        pieces: list[_Piece] = []
        part = heading = -1
        for n, piece in members:
            if self.cand_part[n] != part:
                part = self.cand_part[n]
                pieces.append(self.part_headers[part])
            h = self.cand_heading[n]
            if h >= 0 and h != heading:
                heading = h
                pieces.append(self.heading_pieces[h])
                statuses[self.heading_pieces[h].item] = INCLUDED
            pieces.append(piece)
        state = _Section(pieces, statuses, self._tokens(pieces), order)
        if len(self._spec) >= MEMO_LIMIT:
            self._spec.clear()
        self._spec[budget] = state
        return state

    def _packing(self, budget: int) -> _Packing:
        """The packing at *budget*, from the stored interval that holds it or packed anew."""
        at = bisect_right(self._los, budget) - 1
        if at >= 0 and budget <= self._packings[at].hi:
            return self._packings[at]
        packing = self._pack(budget)
        at = bisect_right(self._los, packing.lo)
        self._los.insert(at, packing.lo)
        self._packings.insert(at, packing)
        return packing

    def _cost(self, n: int, opened: set[int], headed: set[int]) -> int:
        extra = 0 if self.cand_part[n] in opened else self.header_costs[self.cand_part[n]]
        h = self.cand_heading[n]
        if h >= 0 and h not in headed:
            extra += self.heading_costs[h]
        return self.cands[n].tokens + self.sep + extra

    def _pack(self, budget: int) -> _Packing:
        """``Packer.pack`` at *budget*, noting the spec budgets for which every fit comparison agrees."""
        cands, weight = self.cands, self.weight
        opened: set[int] = set()
        headed: set[int] = set()
        covered: set[str] = set()
        chosen: list[int] = []
        unfit: list[int] = []
        statuses: dict[int, str] = {}
        used, lo, hi = 0, -_INF, _INF
        heap = [(-c.full / self._cost(n, opened, headed), n, 0) for n, c in enumerate(cands)]
        heapq.heapify(heap)
        while heap:
            key, n, version = heapq.heappop(heap)
            need = self._cost(n, opened, headed)
            if used + need > budget:
                hi = min(hi, used + need - 1)
                statuses[n] = CUT_FOR_BUDGET
                unfit.append(n)
                continue
            lo = max(lo, used + need)
            c = cands[n]
            fresh = key if version == len(chosen) else -worth(weight, c.counts, covered) / need
            if fresh > key + 1e-12:
                heapq.heappush(heap, (fresh, n, len(chosen)))
                continue
            if self._near_duplicate(n, chosen):
                statuses[n] = OUTRANKED
                continue
            used += need
            opened.add(self.cand_part[n])
            if self.cand_heading[n] >= 0:
                headed.add(self.cand_heading[n])
            covered.update(c.counts)
            chosen.append(n)
            statuses[n] = INCLUDED
        scan: list[tuple[float, int, int, float, float]] = []
        for n in sorted(unfit, key=lambda n: -cands[n].full / max(1, cands[n].tokens)):
            c = cands[n]
            extras = self._cost(n, opened, headed) - c.tokens - self.sep
            value = worth(weight, c.counts, covered)
            scan.append((c.full / max(1, c.tokens), n, extras, value, value / max(1, c.tokens)))
        return _Packing(lo, hi, chosen, used, statuses, covered, opened, headed, scan)

    def _near_duplicate(self, n: int, chosen: Sequence[int]) -> bool:
        for other in chosen:
            key = (n, other)
            same = self._dup.get(key)
            if same is None:
                same = self._dup[key] = similarity(self._triples(n), self._triples(other)) >= self.threshold
            if same:
                return True
        return False

    def _triples(self, n: int) -> frozenset[tuple[str, ...]]:
        found = self._shingles.get(n)
        if found is None:
            found = self._shingles[n] = triples(self.cands[n].draft.text)
        return found

    def _partial(self, packing: _Packing, room: int, statuses: dict[int, str]) -> tuple[int, _Piece] | None:
        """``Packer.partial``: the best paragraph that did not fit, cut to the room left (statuses updated)."""
        if room - self.sep - self.marker < MIN_PARTIAL_TOKENS:
            return None
        best: tuple[int, int, float] | None = None
        for bound, n, extras, value, ratio in packing.scan:
            if best is not None and bound <= best[2]:
                break
            space = room - self.sep - self.marker - extras
            if space >= MIN_PARTIAL_TOKENS and value > 0 and (best is None or ratio > best[2]):
                best = (n, space, ratio)
        if best is None:
            return None
        n, space, _ = best
        if self._near_duplicate(n, packing.chosen):
            statuses[self.cand_items[n]] = OUTRANKED
            return None
        cut = self._cut(n, space)
        if cut <= 0:
            return None
        statuses[self.cand_items[n]] = TRUNCATED
        piece = self._prefix_piece(n, self.cand_items[n], cut, CUT_MARKER)
        if piece.key != self.cand_pieces[n].key:
            piece.key = self.cand_pieces[n].key
        return n, piece

    def _cut(self, n: int, space: int) -> int:
        key = (n, space)
        found = self._cuts.get(key)
        if found is None:
            text = self.cands[n].draft.text
            found = self._cuts[key] = _boundary(text, self._fits(n, text, space))
        return found

    def _fits(self, source: int, text: str, room: int) -> int:
        """``counter.fits_prefix(text, room)``, with the text's tokens taken once (*source*: its memo key)."""
        prefixes = self._prefixes.get(source)
        if prefixes is None:
            prefixes = self._prefixes[source] = _Prefixes(self.counter, text)
        return prefixes.fits(room)

    # -- the exact check -----------------------------------------------------------------------------------

    def _verify(
        self, out: dict[str, str], plans: list[tuple[int, list[_Piece]]], order: Mapping[int, int], budget: int
    ) -> None:
        """``CtxviewerRun._verify``: the last packed out until every section and the context fit."""
        ids = self.ids
        while True:
            over = next((pieces for limit, pieces in plans if pieces and self._tokens(pieces) > limit), None)
            whole = self._tokens([p for _, pieces in plans for p in pieces])
            if over is None and whole <= budget:
                return
            pieces = over if over is not None else next(p for _, p in reversed(plans) if p)
            victim = max(
                (k for k, p in enumerate(pieces) if p.item >= 0),
                key=lambda k: (order.get(pieces[k].item, -1), k),
            )
            gone = pieces.pop(victim)
            out[ids[gone.item]] = NOT_CANDIDATE if gone.heading else CUT_FOR_BUDGET
            k = len(pieces) - 1
            while k >= 0:
                piece = pieces[k]
                heads = piece.item < 0 or piece.heading
                if heads and (k + 1 == len(pieces) or pieces[k + 1].item < 0 or pieces[k + 1].heading):
                    del pieces[k]
                    if piece.item >= 0:
                        out[ids[piece.item]] = NOT_CANDIDATE
                k -= 1


def build_refit(
    project: Project,
    feature: Feature,
    task: Task,
    settings: Settings,
    *,
    whole: WholeRun,
    source: SpecSource,
) -> Refit:
    """The ``ctxviewer`` profile's refit for *task* (*feature* as ``assemble_task`` receives it).

    *whole* builds the whole-run fallback and *source* is the pipeline's ``spec_source`` (both
    live above the profiles; ``runs.sensitivity`` passes them in).  The fallback is returned
    in the cases ``docs/sensitivity.md`` lists (how the refits work).
    """
    tokenizer = profile_of_run(CtxviewerRun).decides_with(settings.tokenizer)  # as the pipeline decides
    try:
        counter = get_counter(tokenizer)
        run = CtxviewerRun(project, source(feature, settings)[0], task, settings, counter, Census(False, tokenizer))
        result = run.run()
    except Exception:  # the fallback raises the same at every budget
        return whole(project, feature, task, settings)
    if not isinstance(counter, TiktokenCounter):
        return whole(project, feature, task, settings)
    refit = CtxviewerRefit(run, result)
    if not _sums_hold(refit.texts, counter.name) or not _cuts_exact(refit.texts):
        return whole(project, feature, task, settings)
    if dict(refit.fates(settings.budget)) != {item.id: item.status for item in result.items}:
        return whole(project, feature, task, settings)
    return refit


def _sums_hold(texts: Sequence[str], encoding: str) -> bool:
    """Whether every piece's body starts where no pre-token of the separator and lead before it
    can reach: after any spaces and tabs, a character that is not whitespace (and under o200k
    no ``/`` first)."""
    for text in texts:
        body = split_lead(text)[1]
        rest = body.lstrip(" \t")
        if not rest or rest[0].isspace() or (encoding == O200K and body[0] == "/"):
            return False
    return True


def _cuts_exact(texts: Sequence[str]) -> bool:
    """Whether no stretch of a joined context can be long without a place to cut it exactly.

    A conservative bound: the longest stretch inside a piece, and the longest that can run
    across separators (the longest tail, every piece without a cut place, the longest head).
    """
    limit = PIECE_CHARS // 4
    longest = heads = tails = through = 0
    for text in texts:
        places = [m.start() for m in _CUT.finditer(text + SEP)]
        if not places:
            through += len(text) + len(SEP)
            continue
        heads = max(heads, places[0])
        tails = max(tails, len(text) + len(SEP) - places[-1])
        longest = max(longest, *(b - a for a, b in pairwise(places)), 0)
    return longest < limit and heads + tails + through < limit


__all__ = ["CtxviewerRefit", "build_refit"]
