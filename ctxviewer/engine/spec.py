"""Spec paragraphs, their scores, and truncation, as the reproduced pipeline does them.

* A spec file's text is its content ``.strip()``-ed, split on ``"\\n\\n"``.
* Blank paragraphs are skipped; a paragraph's score is how many task keywords occur
  in its lowercased text as substrings; only scores above 0 are kept; a stable sort
  by score, highest first, and the top *k* (5) joined by ``"\\n\\n"``.
* Truncation to *t* tokens: ``max_chars = t * 4``; unchanged when it fits; else cut
  at the last ``"\\n\\n"`` if past ``max_chars // 2``, else just after the last
  ``". "``/``".\\n"`` if past half, else hard; then the truncation marker.

Everything here that depends only on content is cached by content, so a re-run with
other budgets or shares redoes none of it: stripping a file's text
(:func:`strip_with_offset`), splitting it (:func:`spec_index`), and scoring and ranking
its paragraphs against one set of keywords (:func:`ranking`).  A file edited on disk
has new content and so misses every cache; nothing has to be invalidated by hand.
"""

from __future__ import annotations

import threading
from bisect import bisect_right
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ctxviewer.engine.tokens import HEURISTIC, TokenCounter

TRUNCATION_MARKER = "\n\n[... truncated for context limits ...]"


@dataclass(frozen=True, slots=True)
class Paragraph:
    """One ``"\\n\\n"``-separated paragraph of a spec file."""

    index: int
    text: str
    lower: str
    line_start: int
    line_end: int

    @property
    def blank(self) -> bool:
        return not self.text.strip()


@dataclass(frozen=True, slots=True)
class SpecIndex:
    """A spec text split into paragraphs, with their line numbers in the file.

    ``lower`` is the paragraphs' lowercased texts joined by ``"\n\n"`` and ``starts``
    their offsets in it, so a keyword is found in every paragraph with one C-level
    scan of the whole text instead of one test per paragraph.
    """

    text: str
    paragraphs: tuple[Paragraph, ...]
    lower: str = ""
    starts: tuple[int, ...] = ()


def build_index(stripped: str, first_line: int) -> SpecIndex:
    """Split *stripped* (the file text after ``.strip()``); *first_line* is where it starts."""
    paragraphs: list[Paragraph] = []
    line = first_line
    for index, text in enumerate(stripped.split("\n\n")):
        lead = len(text) - len(text.lstrip("\n"))
        start = line + lead
        end = max(start, line + text.count("\n"))
        paragraphs.append(Paragraph(index, text, text.lower(), start, end))
        line += text.count("\n") + 2
    starts: list[int] = []
    offset = 0
    for para in paragraphs:
        starts.append(offset)
        offset += len(para.lower) + 2
    return SpecIndex(stripped, tuple(paragraphs), "\n\n".join(p.lower for p in paragraphs), tuple(starts))


_index_cache: OrderedDict[tuple[str, int], SpecIndex] = OrderedDict()
_index_lock = threading.Lock()
_INDEX_CACHE_SIZE = 256


def spec_index(stripped: str, first_line: int) -> SpecIndex:
    """:func:`build_index`, cached by content (a small LRU shared by all runs)."""
    key = (stripped, first_line)
    with _index_lock:
        found = _index_cache.get(key)
        if found is not None:
            _index_cache.move_to_end(key)
            return found
    built = build_index(stripped, first_line)
    with _index_lock:
        _index_cache[key] = built
        while len(_index_cache) > _INDEX_CACHE_SIZE:
            _index_cache.popitem(last=False)
    return built


class LRU:
    """A small thread-safe least-recently-used map."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._data: OrderedDict[Any, Any] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Any) -> Any:
        with self._lock:
            found = self._data.get(key)
            if found is not None:
                self._data.move_to_end(key)
            return found

    def put(self, key: Any, value: Any) -> None:
        with self._lock:
            self._data[key] = value
            while len(self._data) > self.size:
                self._data.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._data.clear()


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


def _paragraphs_containing(index: SpecIndex, word: str) -> list[int]:
    """Indices of the paragraphs whose lowercased text contains *word*."""
    if "\n" in word or not word:
        # A match could straddle the "\n\n" joining two paragraphs: test one by one.
        return [p.index for p in index.paragraphs if word in p.lower]
    text, starts = index.lower, index.starts
    if text.count(word) * 4 > len(starts):
        # A common word: testing each paragraph beats walking every occurrence.
        return [i for i, p in enumerate(index.paragraphs) if word in p.lower]
    found: list[int] = []
    pos = text.find(word)
    while pos != -1:
        para = bisect_right(starts, pos) - 1
        found.append(para)
        if para + 1 >= len(starts):
            break
        pos = text.find(word, starts[para + 1])
    return found


def score_paragraphs(index: SpecIndex, keywords: Iterable[str]) -> list[Scored]:
    """Score every non-blank paragraph (blank ones get score 0 and no matches).

    The score is the number of keywords that occur in the lowercased paragraph.
    """
    hits: dict[int, list[str]] = {}
    for word in sorted(set(keywords)):
        for number in _paragraphs_containing(index, word):
            hits.setdefault(number, []).append(word)
    out: list[Scored] = []
    for para in index.paragraphs:
        matched = () if para.blank else tuple(hits.get(para.index, ()))
        out.append(Scored(para, len(matched), matched))
    return out


def rank(scored: list[Scored]) -> list[Scored]:
    """Paragraphs with a score above 0, stable-sorted by score, highest first."""
    kept = [s for s in scored if s.score > 0 and not s.paragraph.blank]
    kept.sort(key=lambda s: s.score, reverse=True)
    return kept


@dataclass(frozen=True, slots=True)
class Ranking:
    """One spec index scored against one keyword set: what every run of a task needs."""

    index: SpecIndex
    scored: tuple[Scored, ...]
    ranked: tuple[Scored, ...]
    #: Position (1-based) of each ranked paragraph, by paragraph index.
    positions: dict[int, int]
    #: The ranked paragraphs joined by ``"\n\n"`` (the text top-k selection starts from).
    ranked_text: str


_ranking_cache = LRU(64)


def ranking(index: SpecIndex, keywords: Iterable[str]) -> Ranking:
    """:func:`score_paragraphs` and :func:`rank` for *index*, cached per (index, keywords)."""
    words = tuple(keywords)
    key = (id(index), words)
    found: Ranking | None = _ranking_cache.get(key)
    if found is not None and found.index is index:
        return found
    scored = score_paragraphs(index, words)
    ranked = rank(scored)
    built = Ranking(
        index=index,
        scored=tuple(scored),
        ranked=tuple(ranked),
        positions={s.paragraph.index: n for n, s in enumerate(ranked, start=1)},
        ranked_text="\n\n".join(s.paragraph.text for s in ranked),
    )
    _ranking_cache.put(key, built)
    return built


def clear_caches() -> None:
    """Forget every cached strip, index and ranking (benchmarks start cold with this)."""
    _strip_cache.clear()
    _ranking_cache.clear()
    with _index_lock:
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

    With the ``heuristic`` counter this is the reference to the character; with an
    exact tokenizer the character limit is the longest prefix within *max_tokens*
    tokens, and the same boundary rules apply.
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
