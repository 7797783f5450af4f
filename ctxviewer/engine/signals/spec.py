"""Spec paragraphs, their scores, and truncation, as the reproduced pipeline does them.

A spec file's text is ``.strip()``-ed and split on ``"\\n\\n"``; a non-blank paragraph's score
is how many task keywords occur in its lowercased text as substrings; :func:`rank` keeps the
scores above 0, stable-sorted highest first, and the pipeline takes the top *k* (5);
:func:`truncate` cuts to a token budget.  Scoring takes time with the text's size, not with
keywords x size (:func:`paragraph_hits`).  What depends only on content is cached by content,
so an edited file misses every cache and nothing is invalidated by hand.
"""

from __future__ import annotations

import re
import threading
from array import array
from bisect import bisect_right
from collections import Counter, OrderedDict, deque
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import accumulate, repeat
from operator import attrgetter
from typing import Any

from ctxviewer.engine.tokens.counting import HEURISTIC, TokenCounter

TRUNCATION_MARKER = "\n\n[... truncated for context limits ...]"


#: The most paragraphs a spec file may split into (docs/security.md, "Limits (hostile input)"),
#: blank ones included.  Every paragraph becomes an item of the trace, so time and memory
#: grow with their number, not with the bytes: a file over the limit is not used, by every
#: profile.  A file at the 64 MiB size limit is within it if its paragraphs average 269 bytes
#: or more.
MAX_PARAGRAPHS = 250_000

#: A cancel check: raises (:class:`~ctxviewer.engine.profiles.base.Cancelled`) to stop.
Check = Callable[[], None]
#: Paragraphs (or keywords, or distinct words) handled between two cancel checks.
CHECK_EVERY = 2048


@dataclass(frozen=True, slots=True)
class Paragraph:
    """One ``"\\n\\n"``-separated paragraph of a spec file."""

    index: int
    text: str
    line_start: int
    line_end: int
    #: Empty or whitespace only: skipped before scoring.
    blank: bool

    @property
    def lower(self) -> str:
        """The lowercased text (what scoring matches; computed, not stored)."""
        return self.text.lower()


@dataclass(frozen=True, slots=True)
class SpecIndex:
    """A spec text split into paragraphs, with their line numbers in the file."""

    text: str
    paragraphs: tuple[Paragraph, ...]


def paragraph_count(stripped: str) -> int:
    """How many paragraphs :func:`build_index` splits *stripped* into, without splitting it."""
    return stripped.count("\n\n") + 1


def paragraph_limit_problem(stripped: str, limit: int | None = None) -> str | None:
    """Why *stripped* is not used (over *limit*, :data:`MAX_PARAGRAPHS`), or None when it may be."""
    limit = MAX_PARAGRAPHS if limit is None else limit
    if len(stripped) < 2 * limit:  # every paragraph but the first costs at least its "\n\n"
        return None
    count = paragraph_count(stripped)
    if count <= limit:
        return None
    return f"not used: {count:,} paragraphs is over the {limit:,}-paragraph limit"


def build_index(stripped: str, first_line: int) -> SpecIndex:
    """Split *stripped* (the file text after ``.strip()``); *first_line* is where it starts."""
    paragraphs: list[Paragraph] = []
    append = paragraphs.append
    line = first_line
    for index, text in enumerate(stripped.split("\n\n")):
        newlines = text.count("\n")
        start = line + (len(text) - len(text.lstrip("\n")) if text[:1] == "\n" else 0)
        append(Paragraph(index, text, start, max(start, line + newlines), not text or text.isspace()))
        line += newlines + 2
    return SpecIndex(stripped, tuple(paragraphs))


def spec_index(stripped: str, first_line: int) -> SpecIndex:
    """:func:`build_index`, cached by content (a small LRU shared by all runs)."""
    found: SpecIndex = _index_cache.get_or_make((stripped, first_line), lambda: build_index(stripped, first_line))
    return found


class LRU:
    """A small thread-safe least-recently-used map.

    It holds at most *size* entries; with *weigh* (an entry's value to its rough size in
    bytes), also at most *budget* bytes of them, less the newest entry, which is always held.
    """

    def __init__(self, size: int, weigh: Callable[[Any], int] | None = None, budget: int = 0) -> None:
        self.size = size
        self._data: OrderedDict[Any, Any] = OrderedDict()
        self._lock = threading.Lock()
        self._weigh = weigh
        self._budget = budget
        self._weights: dict[Any, int] = {}
        #: The weights of the entries held.
        self.weight = 0

    def get(self, key: Any) -> Any:
        with self._lock:
            found = self._data.get(key)
            if found is not None:
                self._data.move_to_end(key)
            return found

    def put(self, key: Any, value: Any) -> None:
        weigh = self._weigh
        weight = weigh(value) if weigh is not None else 0
        with self._lock:
            data = self._data
            data[key] = value
            data.move_to_end(key)
            if weigh is None:
                while len(data) > self.size:
                    data.popitem(last=False)
                return
            weights = self._weights
            self.weight += weight - weights.get(key, 0)
            weights[key] = weight
            while len(data) > self.size or (self.weight > self._budget and len(data) > 1):
                old, _ = data.popitem(last=False)
                self.weight -= weights.pop(old)

    def get_or_make(self, key: Any, make: Callable[[], Any]) -> Any:
        """The value held for *key*, else ``make()``, then held (two threads may both make it)."""
        found = self.get(key)
        if found is None:
            found = make()
            self.put(key, found)
        return found

    def clear(self) -> None:
        with self._lock:
            self._data.clear()
            self._weights.clear()
            self.weight = 0

    def __len__(self) -> int:
        with self._lock:
            return len(self._data)

    def held(self) -> list[Any]:
        """The keys held, least recently used first."""
        with self._lock:
            return list(self._data)


_index_cache = LRU(256)
_strip_cache = LRU(256)


def strip_with_offset(text: str) -> tuple[str, int]:
    """``text.strip()`` and the 1-based line on which the stripped text starts.

    Cached by content: the same (cached) file text yields the very same stripped
    string object, whose hash Python keeps, so later cache lookups keyed by it are
    cheap even for a spec of megabytes.
    """
    found: tuple[str, int] | None = _strip_cache.get(text)
    if found is None:
        found = _strip_with_offset(text)
        _strip_cache.put(text, found)
    return found


def _strip_with_offset(text: str) -> tuple[str, int]:
    stripped = text.strip()
    if not stripped:
        return "", 1
    lead = len(text) - len(text.lstrip())
    return stripped, text.count("\n", 0, lead) + 1


@dataclass(frozen=True, slots=True)
class Scored:
    """A paragraph's score against one task's keywords."""

    paragraph: Paragraph
    score: int
    matched: tuple[str, ...]


# -- scoring ---------------------------------------------------------------------------------
#
# A paragraph's score is how many keywords are substrings of its lowercased text.  Testing
# every keyword against the whole text costs keywords x size; so with more than a few
# keywords, scoring goes through the text's words instead.  A keyword without whitespace
# can only occur inside one whitespace-free run (a "word" of ``str.split()``), so a
# paragraph holds it exactly when one of its words does; and a text has far fewer distinct
# words than characters.  Each batch of about a megabyte of paragraphs is split once, its
# distinct words matched against all keywords (by whichever of two exact ways costs less),
# and the paragraphs holding a matching word collect its keywords.  Keywords holding
# whitespace (a file stem with a space) and a few keywords at a time are found by a plain
# scan of the lowercased text, one keyword at a time.

#: Characters of paragraphs split per batch (a paragraph longer than this is cut at
#: whitespace into pieces of about this size).
_BATCH_CHARS = 1 << 20
#: Estimated costs in nanoseconds: scanning one character for one keyword (C); splitting
#: one character into words; handling one paragraph in Python, when splitting it and when
#: testing one keyword in it; looking up one substring of a word; one word per length.
_SCAN_NS, _SPLIT_NS, _PARAGRAPH_NS, _TEST_NS, _SUBSTRING_NS, _RUN_NS = 0.5, 15.0, 1000.0, 50.0, 70.0, 150.0
_SPACE = re.compile(r"\s")


def _lowered(paragraphs: Sequence[Paragraph]) -> list[str]:
    """Each paragraph's lowercased text, as the reference lowercases it: one at a time."""
    return [p.text.lower() for p in paragraphs]


def _joined(lows: Sequence[str]) -> tuple[str, list[int]]:
    """*lows* joined by ``"\\n\\n"``, and each one's offset in the joined text."""
    starts = [0, *accumulate(len(low) + 2 for low in lows)]
    starts.pop()
    return "\n\n".join(lows), starts


def _paragraphs_containing(word: str, lows: Sequence[str], joined: str, starts: Sequence[int]) -> list[int]:
    """Indices of the paragraphs whose lowercased text contains *word*."""
    if "\n" in word or not word:
        # A match could straddle the "\n\n" joining two paragraphs: test one by one.
        return [n for n, low in enumerate(lows) if word in low]
    if joined.count(word) * 4 > len(starts):
        # A common word: testing each paragraph beats walking every occurrence.
        return [n for n, low in enumerate(lows) if word in low]
    found: list[int] = []
    pos = joined.find(word)
    while pos != -1:
        para = bisect_right(starts, pos) - 1
        found.append(para)
        if para + 1 >= len(starts):
            break
        pos = joined.find(word, starts[para + 1])
    return found


def cut_pieces(text: str, size: int, boundary: re.Pattern[str]) -> list[str]:
    """*text* cut just before a *boundary* match about every *size* characters (so a word
    the boundary ends stays whole); the pieces join back to *text*."""
    out: list[str] = []
    begin = 0
    while len(text) - begin > size:
        cut = boundary.search(text, begin + size)
        if cut is None:
            break
        out.append(text[begin : cut.start()])
        begin = cut.start()
    out.append(text[begin:])
    return out


def _pieces(low: str) -> list[str]:
    """*low* cut at whitespace into pieces of about :data:`_BATCH_CHARS` (words stay whole)."""
    return cut_pieces(low, _BATCH_CHARS, _SPACE)


def _words_holding(words: Collection[str], runs: Collection[str], check: Check | None) -> dict[str, list[str]]:
    """For each of *runs* (distinct whitespace-free words) that contains keywords, those keywords.

    *words* are distinct keywords without whitespace.  Either every keyword is looked for
    in the runs joined by newlines (cost: keywords x characters, in C), or every substring
    of every run whose length is a keyword's is looked up among the keywords (cost: those
    substrings, in Python) -- whichever is estimated cheaper.  Both find exactly the
    (run, keyword) pairs where the keyword is a substring of the run.
    """
    by_length: dict[int, set[str]] = {}
    for word in words:
        by_length.setdefault(len(word), set()).add(word)
    lengths = sorted(by_length)
    run_lengths = Counter(map(len, runs))
    substrings = sum(
        count * sum(n - length + 1 for length in lengths if length <= n) for n, count in run_lengths.items()
    )
    long_enough = sum(count for n, count in run_lengths.items() for length in lengths if length <= n)
    chars = sum(n * count for n, count in run_lengths.items()) + len(runs)
    out: dict[str, list[str]] = {}
    listed = sorted(runs, key=len, reverse=True)
    if len(words) * chars * _SCAN_NS <= substrings * _SUBSTRING_NS + long_enough * _RUN_NS:
        joined = "\n".join(listed)
        starts = [0, *accumulate(len(run) + 1 for run in listed)]
        for n, word in enumerate(sorted(words)):
            if check is not None and n % 256 == 0:
                check()
            pos = joined.find(word)
            while pos != -1:
                at = bisect_right(starts, pos) - 1
                out.setdefault(listed[at], []).append(word)
                pos = joined.find(word, starts[at + 1])
        return out
    descending = [-len(run) for run in listed]
    for length in lengths:
        if check is not None:
            check()
        wanted = by_length[length]
        fit = listed[: bisect_right(descending, -length)]  # the runs at least *length* long
        holding = {run for run in fit for i in range(len(run) - length + 1) if run[i : i + length] in wanted}
        for run in holding:
            found = {run[i : i + length] for i in range(len(run) - length + 1)} & wanted
            out.setdefault(run, []).extend(sorted(found))
    return out


def _word_hits(
    paragraphs: Sequence[Paragraph], words: Collection[str], check: Check | None
) -> dict[int, tuple[str, ...]]:
    """Keywords (without whitespace, sorted) found in each non-blank paragraph, through its words."""
    found: dict[int, tuple[str, ...]] = {}
    batch: list[tuple[int, list[str]]] = []
    size = 0
    # The sorted keywords of a set of matching words: paragraphs often share one.
    memo: dict[frozenset[str], tuple[str, ...]] = {}

    def flush() -> None:
        if check is not None:
            check()
        holding = _words_holding(words, set().union(*(runs for _, runs in batch)), check)
        if holding:
            keys = frozenset(holding)
            for n, runs in batch:
                if keys.isdisjoint(runs):
                    continue
                hit = keys.intersection(runs)
                matched = memo.get(hit)
                if matched is None:
                    matched = memo[hit] = tuple(sorted({w for run in hit for w in holding[run]}))
                if n in found:  # the next piece of a paragraph cut into pieces
                    matched = tuple(sorted({*found[n], *matched}))
                found[n] = matched
        batch.clear()

    for para in paragraphs:
        if check is not None and not para.index % CHECK_EVERY:
            check()
        if para.blank:
            continue
        low = para.text.lower()
        for piece in _pieces(low) if len(low) > _BATCH_CHARS else (low,):
            batch.append((para.index, piece.split()))
            size += len(piece)
            if size >= _BATCH_CHARS or len(batch) >= _BATCH_CHARS // 8:
                flush()
                memo.clear()
                size = 0
    if batch:
        flush()
    return found


def paragraph_hits(
    paragraphs: Sequence[Paragraph], keywords: Iterable[str], check: Check | None = None
) -> dict[int, tuple[str, ...]]:
    """The keywords (sorted) occurring in each non-blank paragraph that holds any, by index.

    Exactly "``keyword in paragraph.text.lower()``" for every keyword and paragraph, in
    time that grows with the text rather than with keywords x text.  *check* is called
    every so often (every few thousand paragraphs, keywords or words) and may raise to
    cancel.
    """
    words = sorted(set(keywords))
    plain: list[str] = []
    others: list[str] = []
    for word in words:
        (plain if word.split() == [word] else others).append(word)
    size = sum(len(p.text) for p in paragraphs)
    # The cost of one keyword's plain scan vs. going through the words once, for all.
    per_keyword = size * _SCAN_NS + len(paragraphs) * _TEST_NS
    through_words = size * _SPLIT_NS + len(paragraphs) * _PARAGRAPH_NS
    found: dict[int, tuple[str, ...]] = {}
    scan = words
    if len(plain) * per_keyword > through_words:
        found = _word_hits(paragraphs, plain, check)
        scan = others
    if not scan:
        return found
    more: dict[int, list[str]] = {}
    lows = _lowered(paragraphs)
    joined, starts = _joined(lows)
    for word in scan:
        if check is not None:
            check()
        for para in _paragraphs_containing(word, lows, joined, starts):
            if not paragraphs[para].blank:
                more.setdefault(para, []).append(word)
    for para, extra in more.items():
        found[para] = tuple(sorted({*found.get(para, ()), *extra}))
    return dict(sorted(found.items()))


def score_paragraphs(index: SpecIndex, keywords: Iterable[str], check: Check | None = None) -> list[Scored]:
    """Score every non-blank paragraph (blank ones get score 0 and no matches).

    The score is the number of keywords that occur in the lowercased paragraph.
    """
    hits = paragraph_hits(index.paragraphs, keywords, check)
    out: list[Scored] = []
    for para in index.paragraphs:
        matched = hits.get(para.index, ())
        out.append(Scored(para, len(matched), matched))
    return out


def rank(scored: list[Scored]) -> list[Scored]:
    """Paragraphs with a score above 0, stable-sorted by score, highest first."""
    kept = [s for s in scored if s.score > 0 and not s.paragraph.blank]
    kept.sort(key=lambda s: s.score, reverse=True)
    return kept


@dataclass(frozen=True)
class Ranking:
    """One spec index scored against one keyword set: what every run of a task needs.

    Only the paragraphs that score are held (``hits``); :meth:`score` and
    :meth:`matched` answer for any paragraph.  The ranked paragraphs are held as their
    numbers (``order``); their :class:`Scored` (``ranked``) and joined text
    (``ranked_text``) are built on first use, since a run of the reference profile needs
    only the top few of them as objects (:meth:`top`).
    """

    index: SpecIndex
    #: The keywords each scoring paragraph holds, by paragraph index.
    hits: Mapping[int, tuple[str, ...]]
    #: The scoring paragraphs' numbers, highest score first (a stable sort: ties in
    #: document order).
    order: tuple[int, ...]
    #: Position (1-based) of each ranked paragraph, by paragraph index.
    positions: dict[int, int]

    def matched(self, index: int) -> tuple[str, ...]:
        """The keywords paragraph *index* holds (none for a blank paragraph)."""
        return self.hits.get(index, ())

    def score(self, index: int) -> int:
        return len(self.hits.get(index, ()))

    def top(self, k: int) -> tuple[Scored, ...]:
        """The first *k* ranked paragraphs as :class:`Scored` (all of ``ranked`` is not built)."""
        paragraphs, hits = self.index.paragraphs, self.hits
        return tuple(Scored(paragraphs[n], len(hits[n]), hits[n]) for n in self.order[: max(k, 0)])

    @cached_property
    def ranked(self) -> tuple[Scored, ...]:
        """Every paragraph with a score above 0, highest first (see :func:`rank`)."""
        return self.top(len(self.order))

    @cached_property
    def ranked_text(self) -> str:
        """The ranked paragraphs joined by ``"\\n\\n"`` (the text top-k selection starts from)."""
        return "\n\n".join(map(_TEXT, map(self.index.paragraphs.__getitem__, self.order)))

    @property
    def scored(self) -> tuple[Scored, ...]:
        """Every paragraph with its score, in document order (built on each access)."""
        return tuple(Scored(p, self.score(p.index), self.matched(p.index)) for p in self.index.paragraphs)


_TEXT = attrgetter("text")
#: What the caches of a spec's derived tables may hold in all, roughly, in bytes: every
#: spec of a project of tens of features, so a click in the window or a batch moving from
#: feature to feature does not build them again (a count of entries held too few there,
#: or a great many for a project whose specs are large).
SPEC_CACHE_BYTES = 96 << 20
_ranking_cache = LRU(64)
#: Each spec index's word postings and keyword table (see :func:`indexed_hits`), and the
#: indexes scored once.
_postings_cache = LRU(1024, lambda table: table.weight, SPEC_CACHE_BYTES)
_scored_once = LRU(256)
#: The most paragraph numbers one index's keyword table holds before it starts afresh
#: (a flood of keywords cannot make it grow without bound).
KEYWORD_TABLE_LIMIT = 8_000_000
#: :func:`indexed_hits` gives every paragraph a list up front once the hits are at least
#: this many times the paragraphs (then the list it makes per paragraph costs less than
#: the Python loop it saves per hit); below, only the paragraphs hit get one.
DENSE_HITS = 1


class KeywordTable:
    """One spec index's word postings, and the paragraphs holding each keyword asked so far.

    A batch or the window's background pass scores every task of a feature against the
    same spec files, and the tasks share most of their keywords; so a keyword's
    paragraphs are worked out once per index (through the postings) and every later task
    that has it reads them back.
    """

    __slots__ = ("held", "index", "paragraphs_of", "postings")

    def __init__(self, index: SpecIndex, postings: dict[str, array[int]]) -> None:
        self.index = index
        self.postings = postings
        #: For each keyword (without whitespace) asked so far, the non-blank paragraphs
        #: whose lowercased text contains it, in order.
        self.paragraphs_of: dict[str, array[int]] = {}
        #: How many paragraph numbers ``paragraphs_of`` holds.
        self.held = 0

    @property
    def weight(self) -> int:
        """Its rough size in bytes, for the cache: a dict entry, a string and an array per word,
        and room for each paragraph number twice (the postings and the keywords learnt)."""
        return 160 * len(self.postings) + 8 * sum(map(len, self.postings.values()))

    def learn(self, words: Sequence[str], check: Check | None) -> None:
        """Work out the paragraphs of each of *words* not known yet (keywords without whitespace)."""
        new = [w for w in words if w not in self.paragraphs_of]
        if not new:
            return
        if self.held > KEYWORD_TABLE_LIMIT:
            self.paragraphs_of.clear()
            self.held = 0
            new = list(words)
        runs_of: dict[str, list[str]] = {}
        for run, found in _words_holding(new, self.postings.keys(), check).items():
            for word in found:
                runs_of.setdefault(word, []).append(run)
        postings = self.postings
        for n, word in enumerate(new):
            if check is not None and not n % 256:
                check()
            runs = runs_of.get(word, ())
            if len(runs) == 1:
                paras = postings[runs[0]]
            else:
                paras = array("i", sorted(set().union(*(postings[run] for run in runs))))
            self.paragraphs_of[word] = paras
            self.held += len(paras)


def word_postings(index: SpecIndex, check: Check | None = None) -> dict[str, array[int]]:
    """Each distinct whitespace-free word of the lowercased paragraphs, and the (non-blank)
    paragraphs holding it, in order; built once per index and cached.

    A keyword without whitespace occurs in a lowercased paragraph exactly when it occurs
    in one of its words, so scoring against the postings gives the plain definition's
    answer while touching each paragraph's text only once per index, not once per task.
    """
    return keyword_table(index, check).postings


def keyword_table(index: SpecIndex, check: Check | None = None) -> KeywordTable:
    """*index*'s :class:`KeywordTable`, its postings built on first use and cached."""
    key = id(index)
    cached: KeywordTable | None = _postings_cache.get(key)
    if cached is not None and cached.index is index:
        return cached
    postings: dict[str, array[int]] = {}
    for para in index.paragraphs:
        if check is not None and not para.index % CHECK_EVERY:
            check()
        if para.blank:
            continue
        n = para.index
        for word in set(para.text.lower().split()):
            found = postings.get(word)
            if found is None:
                postings[word] = array("i", (n,))
            else:
                found.append(n)
    table = KeywordTable(index, postings)
    _postings_cache.put(key, table)
    return table


def indexed_hits(index: SpecIndex, keywords: Iterable[str], check: Check | None = None) -> dict[int, tuple[str, ...]]:
    """:func:`paragraph_hits` for *index*, through its cached :func:`keyword_table`.

    Each keyword's paragraphs come from the table (worked out the first time any task
    asks for the keyword), and each paragraph collects its keywords by walking them in
    sorted order, so its tuple comes out sorted: the work is one step per (keyword,
    paragraph) hit, none per paragraph that holds no keyword.  When the hits outnumber
    the paragraphs (the usual case: a task's keywords are its feature's vocabulary),
    every paragraph gets a list up front and the steps run in C rather than in a Python
    loop.  Keywords holding whitespace are scanned as :func:`paragraph_hits` scans them.
    """
    words = sorted(set(keywords))
    plain = [w for w in words if w.split() == [w]]
    table = keyword_table(index, check)
    table.learn(plain, check)
    paragraphs_of = table.paragraphs_of
    lists: dict[int, list[str]] = {}
    postings = [paragraphs_of[word] for word in plain]
    steps = sum(map(len, postings))
    if steps >= DENSE_HITS * len(index.paragraphs):
        # Dense (most paragraphs hold several keywords): one list per paragraph, filled
        # keyword by keyword in C (map/deque), then the empty ones dropped.
        slots: list[list[str]] = [[] for _ in index.paragraphs]
        pick = slots.__getitem__
        done = 0
        for word, paras in zip(plain, postings, strict=True):
            deque(map(list.append, map(pick, paras), repeat(word)), maxlen=0)
            done += len(paras) + 1
            if check is not None and done > CHECK_EVERY * 32:
                check()
                done = 0
        if len(plain) == len(words):  # in paragraph order already
            return {para: tuple(found) for para, found in enumerate(slots) if found}
        lists = {para: found for para, found in enumerate(slots) if found}
    else:
        get = lists.get
        done = 0
        for word, paras in zip(plain, postings, strict=True):
            done += len(paras) + 1
            if check is not None and done > CHECK_EVERY * 32:
                check()
                done = 0
            for para in paras:
                known = get(para)
                if known is None:
                    lists[para] = [word]
                else:
                    known.append(word)
    if len(plain) < len(words):
        others = [w for w in words if w.split() != [w]]
        for para, extra in paragraph_hits(index.paragraphs, others, check).items():
            known = lists.get(para)
            lists[para] = list(extra) if known is None else sorted({*known, *extra})
    return {para: tuple(lists[para]) for para in sorted(lists)}


def ranking(index: SpecIndex, keywords: Iterable[str], check: Check | None = None) -> Ranking:
    """Scores and :func:`rank` for *index*, cached per (index, keywords).

    *check* is called while scoring, every few thousand paragraphs; it may raise to
    cancel (nothing is cached then).
    """
    words = tuple(keywords)
    key = (id(index), words)
    found: Ranking | None = _ranking_cache.get(key)
    if found is not None and found.index is index:
        return found
    # A spec scored a second time with other keywords (the next task of a feature, in a
    # batch or the window) is scored through its word postings from then on.
    if _scored_once.get(id(index)) is index:
        hits = indexed_hits(index, words, check)
    else:
        hits = paragraph_hits(index.paragraphs, words, check)
        _scored_once.put(id(index), index)
    # A stable sort, highest score first (reverse keeps ties in order), keyed in C.
    scores = dict(zip(hits, map(len, hits.values()), strict=True))
    order = tuple(sorted(hits, key=scores.__getitem__, reverse=True))
    built = Ranking(
        index=index, hits=hits, order=order, positions=dict(zip(order, range(1, len(order) + 1), strict=True))
    )
    _ranking_cache.put(key, built)
    return built


def clear_caches() -> None:
    """Forget every cached strip, index and ranking (benchmarks start cold with this)."""
    _strip_cache.clear()
    _ranking_cache.clear()
    _postings_cache.clear()
    _scored_once.clear()
    _index_cache.clear()


@dataclass(frozen=True, slots=True)
class Truncation:
    """The result of truncating one text to a token budget."""

    text: str
    kept_chars: int
    original_chars: int
    max_chars: int
    boundary: str  # "none" (fits), "paragraph", "sentence" or "hard"

    @property
    def cut(self) -> bool:
        return self.boundary != "none"


def truncate(text: str, max_tokens: int, counter: TokenCounter) -> Truncation:
    """Truncate *text* to *max_tokens* exactly as the pipeline does.

    Unchanged when it fits in ``max_chars = max_tokens * 4``; else cut at the last
    ``"\\n\\n"`` if past ``max_chars // 2``, else just after the last ``". "``/``".\\n"`` if
    past half, else hard; then :data:`TRUNCATION_MARKER`.  With the ``heuristic`` counter
    this is the reference to the character; with an exact tokenizer ``max_chars`` is the
    longest prefix within *max_tokens* tokens, and the same boundary rules apply.
    """
    if counter.name == HEURISTIC:
        max_chars = max_tokens * 4
        if len(text) <= max_chars:
            return Truncation(text, len(text), len(text), max_chars, "none")
    else:
        if counter.count(text) <= max_tokens:
            return Truncation(text, len(text), len(text), len(text), "none")
        max_chars = counter.fits_prefix(text, max_tokens)
    cut = text[:max_chars]
    boundary = "hard"
    last_para = cut.rfind("\n\n")
    if last_para > max_chars // 2:
        cut = cut[:last_para]
        boundary = "paragraph"
    else:
        last_sentence = max(cut.rfind(". "), cut.rfind(".\n"))
        if last_sentence > max_chars // 2:
            cut = cut[: last_sentence + 1]
            boundary = "sentence"
    return Truncation(cut + TRUNCATION_MARKER, len(cut), len(text), max_chars, boundary)
