"""Token counters: the pipeline's own estimate and exact tiktoken counts, offline.

``heuristic`` is the reproduced pipeline's ``len(text) // 4``; the exact counters use
tiktoken's ``cl100k_base`` and ``o200k_base``, built from the rank files shipped in
``ctxviewer.resources/tiktoken/`` and checked against their official sha256 (never
downloaded; a damaged or missing file raises :class:`EncodingUnavailableError`).  Counts are
cached by content.  A text over :data:`PIECE_CHARS` is counted a piece at a time, cut where
tiktoken's pre-tokenizer splits, so the sum stays exact; a cut forced inside a long run makes
the count an estimate (:func:`noting_estimates`).  See docs/security.md#limits-hostile-input.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import hashlib
import re
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from ctxviewer.engine.errors import EncodingUnavailableError
from ctxviewer.engine.files.resources import resource_bytes

if TYPE_CHECKING:
    import tiktoken

HEURISTIC = "heuristic"
CL100K = "cl100k_base"
O200K = "o200k_base"
#: The pipelines' own estimates, as their formulas: the seed's (``heuristic``), and the one the
#: nine-section upstream versions record their token counts with (:func:`rounded_estimate`).
HEURISTIC_RULE = "len // 4"
ROUNDED = "round(len / 4)"
#: Tokenizers a user can choose, in the order they are shown.
TOKENIZERS: tuple[str, ...] = (HEURISTIC, CL100K, O200K)
#: The exact encodings reported beside every estimate.
EXACT_ENCODINGS: tuple[str, ...] = (CL100K, O200K)

_ENDOFTEXT = "<|endoftext|>"
_ENDOFPROMPT = "<|endofprompt|>"


def rounded_estimate(chars: int) -> int:
    """Upstream's ``TokenCounter`` estimate of a text of *chars* characters (zerg-ai 0.3.2 onward):
    ``max(1, round(chars / 4))``, halves rounded to even (10 -> 2, 14 -> 4, 7 -> 2), never 0."""
    return max(1, round(chars / 4.0))


@dataclass(frozen=True)
class EncodingSpec:
    """What tiktoken needs to build one encoding, and the official hash of its ranks."""

    name: str
    sha256: str
    pat_str: str
    special_tokens: dict[str, int]
    #: Whether line *n* of the rank file holds rank *n* (then its numbers need not be read).
    ranks_in_order: bool = False


# Official sha256 of the rank files and the encodings' split patterns / special tokens,
# as published with tiktoken (tiktoken_ext/openai_public.py).  A test checks them
# against the installed tiktoken.
ENCODING_SPECS: dict[str, EncodingSpec] = {
    CL100K: EncodingSpec(
        name=CL100K,
        sha256="223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
        pat_str=(
            r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
            r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
        ),
        special_tokens={
            _ENDOFTEXT: 100257,
            "<|fim_prefix|>": 100258,
            "<|fim_middle|>": 100259,
            "<|fim_suffix|>": 100260,
            _ENDOFPROMPT: 100276,
        },
        ranks_in_order=True,
    ),
    O200K: EncodingSpec(
        name=O200K,
        sha256="446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
        pat_str="|".join(
            [
                r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
                r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
                r"""\p{N}{1,3}""",
                r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
                r"""\s*[\r\n]+""",
                r"""\s+(?!\S)""",
                r"""\s+""",
            ]
        ),
        special_tokens={_ENDOFTEXT: 199999, _ENDOFPROMPT: 200018},
        ranks_in_order=True,
    ),
}

_encodings: dict[str, tiktoken.Encoding] = {}
_encodings_lock = threading.Lock()


def parse_ranks(data: bytes, source: str, in_order: bool = False) -> dict[bytes, int]:
    """Parse a ``.tiktoken`` rank file: one ``base64-token rank`` pair per line.

    The shipped files are hash-checked first, so the fast path (split once, decode in C)
    is the one taken; a file it cannot pair up is parsed again line by line to say where.
    With *in_order* the caller vouches that line *n*'s rank is *n* (true of both official
    files, whose content the hash pins: a test checks it), and the ranks are not read.
    """
    parts = data.split()
    if len(parts) % 2 == 0:
        try:
            tokens = map(binascii.a2b_base64, parts[0::2])
            numbers: Iterable[int] = range(len(parts) // 2) if in_order else map(int, parts[1::2])
            ranks = dict(zip(tokens, numbers, strict=True))
        except (ValueError, binascii.Error):
            pass
        else:
            lines = data.count(b"\n") + (not data.endswith(b"\n"))  # a blank line takes the slow path
            if len(ranks) == lines:
                return ranks
    return _parse_rank_lines(data, source, in_order)


def _parse_rank_lines(data: bytes, source: str, in_order: bool = False) -> dict[bytes, int]:
    ranks: dict[bytes, int] = {}
    for number, line in enumerate(data.splitlines(), start=1):
        if not line:
            continue
        try:
            token, rank = line.split()
            ranks[base64.b64decode(token)] = len(ranks) if in_order else int(rank)
        except ValueError as exc:
            raise EncodingUnavailableError(f"malformed rank line: {exc}", source, number) from exc
    return ranks


def load_encoding(name: str) -> tiktoken.Encoding:
    """The tiktoken encoding *name*, built from the shipped, hash-checked rank file."""
    if name in _encodings:
        return _encodings[name]
    with _encodings_lock:
        if name in _encodings:
            return _encodings[name]
        spec = ENCODING_SPECS.get(name)
        if spec is None:
            raise EncodingUnavailableError(f"unknown encoding {name!r}; choose one of {', '.join(EXACT_ENCODINGS)}")
        import tiktoken

        source = f"ctxviewer/resources/tiktoken/{name}.tiktoken"
        try:
            data = resource_bytes("tiktoken", f"{name}.tiktoken")
        except OSError as exc:
            raise EncodingUnavailableError(
                f"the shipped encoding file is missing ({exc}); reinstall ctxviewer", source
            ) from exc
        if hashlib.sha256(data).hexdigest() != spec.sha256:
            raise EncodingUnavailableError(
                f"does not match the official sha256 {spec.sha256}; reinstall ctxviewer", source
            )
        encoding = tiktoken.Encoding(
            name=name,
            pat_str=spec.pat_str,
            mergeable_ranks=parse_ranks(data, source, in_order=spec.ranks_in_order),
            special_tokens=dict(spec.special_tokens),
        )
        _encodings[name] = encoding
        return encoding


class TokenCounter(Protocol):
    """Counts tokens of text the way one tokenizer does."""

    name: str

    def count(self, text: str) -> int: ...

    def count_many(self, texts: Iterable[str]) -> list[int]:
        """Counts of many texts (in one batch where the tokenizer can)."""
        ...

    def fits_prefix(self, text: str, max_tokens: int) -> int:
        """Length in characters of the longest prefix of *text* within *max_tokens*."""
        ...


class HeuristicCounter:
    """The reproduced pipeline's estimate: four characters per token, rounded down."""

    name = HEURISTIC

    def count(self, text: str) -> int:
        return len(text) // 4

    @staticmethod
    def count_chars(chars: int) -> int:
        """The count of any text of *chars* characters."""
        return chars // 4

    def count_many(self, texts: Iterable[str]) -> list[int]:
        return [len(t) // 4 for t in texts]

    def fits_prefix(self, text: str, max_tokens: int) -> int:
        # The pipeline's own truncation allows max_tokens * 4 characters.
        return min(len(text), max(0, max_tokens) * 4)


#: Texts at least this long are tokenized in tiktoken's threaded batch call, shorter ones in a loop.
BATCH_MIN_CHARS = 4096
#: Texts longer than this are counted a piece at a time (pieces of half to all of it): tiktoken
#: holds every token of the text it is given, and merges a run without whitespace in time that
#: grows faster than its length.
PIECE_CHARS = 1 << 16
#: Just before here, both encodings' pre-tokenizers split: whitespace after a letter or
#: digit (no pre-token runs from a letter or digit into whitespace), or a space or tab
#: after anything but whitespace (punctuation takes only newlines -- and o200k's ``/``
#: -- along).
_CUT = re.compile(r"(?<=[^\W_])\s|(?<=\S)[^\S\r\n]")

#: The texts counted with an estimated cut (hash: length), while :func:`noting_estimates` collects them.
_estimates: ContextVar[dict[int, int] | None] = ContextVar("ctxviewer_token_estimates", default=None)


@contextlib.contextmanager
def noting_estimates() -> Iterator[dict[int, int]]:
    """Collect, in this thread, each distinct text whose exact count is an estimate (hash: length).

    A text is an estimate when it was cut inside a run of more than ``PIECE_CHARS // 2``
    characters without a place to cut exactly (see the module docstring).  Cached
    counts are noted too.
    """
    found: dict[int, int] = {}
    token = _estimates.set(found)
    try:
        yield found
    finally:
        _estimates.reset(token)


def _note_estimate(text: str) -> None:
    found = _estimates.get()
    if found is not None:
        found[hash(text)] = len(text)


def pieces(text: str) -> tuple[list[tuple[int, int]], bool]:
    """*text* as ``(start, end)`` pieces of at most :data:`PIECE_CHARS`, and whether any cut was
    an estimate (made inside a run with no exact place to cut)."""
    out: list[tuple[int, int]] = []
    estimated = False
    begin, size, half = 0, len(text), PIECE_CHARS // 2
    while size - begin > PIECE_CHARS:
        found = _CUT.search(text, begin + half, begin + PIECE_CHARS)
        if found is None:
            end, estimated = begin + PIECE_CHARS, True
        else:
            end = found.start()
        out.append((begin, end))
        begin = end
    out.append((begin, size))
    return out, estimated


class TiktokenCounter:
    """Exact counts with one tiktoken encoding, cached by content.

    Special-token strings in project text (``<|endoftext|>``) are counted as the
    plain text they are, as a model would see them in a prompt.
    """

    #: Beyond this many cached texts the cache is cleared (bounded memory).
    CACHE_LIMIT = 400_000

    def __init__(self, name: str) -> None:
        self.name = name
        self._encoding = load_encoding(name)
        self._cache: dict[str, int] = {}
        self._estimated: set[str] = set()  # cached texts whose count is an estimate
        self._lock = threading.Lock()

    @property
    def encoding(self) -> tiktoken.Encoding:
        return self._encoding

    def count(self, text: str) -> int:
        cached = self._cache.get(text)
        if cached is not None:
            if len(text) > PIECE_CHARS and text in self._estimated:
                _note_estimate(text)
            return cached
        if len(text) <= PIECE_CHARS:
            value = len(self._encoding.encode_ordinary(text))
        else:
            spans, estimated = pieces(text)
            value = sum(len(self._encoding.encode_ordinary(text[a:b])) for a, b in spans)
            if estimated:
                _note_estimate(text)
                with self._lock:
                    self._estimated.add(text)
        self._remember({text: value})
        return value

    def count_many(self, texts: Iterable[str]) -> list[int]:
        """Counts of many texts; the uncached ones are tokenized in one batch call."""
        items = list(texts)
        missing = {t for t in items if t not in self._cache}
        if missing:
            # tiktoken's batch call pays a thread-pool task per text: short texts go
            # through a plain loop; the batch wins only on long ones.
            short = [t for t in missing if len(t) < BATCH_MIN_CHARS]
            long = sorted(t for t in missing if BATCH_MIN_CHARS <= len(t) <= PIECE_CHARS)
            found = {t: len(self._encoding.encode_ordinary(t)) for t in short}
            found.update({t: self.count(t) for t in missing if len(t) > PIECE_CHARS})
            if long:
                encoded = self._encoding.encode_ordinary_batch(long, num_threads=2)
                found.update({t: len(ids) for t, ids in zip(long, encoded, strict=True)})
            self._remember(found)
        return [self._cache[t] if t in self._cache else self.count(t) for t in items]

    def fits_prefix(self, text: str, max_tokens: int) -> int:
        if max_tokens <= 0:
            return 0
        if len(text) > PIECE_CHARS:
            # Only the piece where the budget runs out is tokenized whole.
            spans, _ = pieces(text)
            used = 0
            for a, b in spans:
                piece = self.count(text[a:b])
                if used + piece > max_tokens:
                    return a + self._fits_prefix(text[a:b], max_tokens - used)
                used += piece
            return len(text)
        return self._fits_prefix(text, max_tokens)

    def _fits_prefix(self, text: str, max_tokens: int) -> int:
        if max_tokens <= 0:
            return 0
        ids = self._encoding.encode_ordinary(text)
        if len(ids) <= max_tokens:
            return len(text)
        prefix_bytes = b"".join(self._encoding.decode_single_token_bytes(t) for t in ids[:max_tokens])
        cut = len(prefix_bytes.decode("utf-8", errors="ignore"))
        # Re-tokenizing a prefix can merge differently; shrink until it fits.
        while cut > 0 and self.count(text[:cut]) > max_tokens:
            cut -= 1
        return cut

    def _remember(self, values: dict[str, int]) -> None:
        with self._lock:
            if len(self._cache) + len(values) > self.CACHE_LIMIT:
                self._cache.clear()
                self._estimated.clear()
            self._cache.update(values)


_counters: dict[str, TokenCounter] = {}
_counters_lock = threading.Lock()


def get_counter(name: str) -> TokenCounter:
    """The shared counter for tokenizer *name* (``heuristic`` or an exact encoding)."""
    counter = _counters.get(name)
    if counter is not None:
        return counter
    with _counters_lock:
        counter = _counters.get(name)
        if counter is None:
            if name == HEURISTIC:
                counter = HeuristicCounter()
            elif name in ENCODING_SPECS:
                counter = TiktokenCounter(name)
            else:
                raise EncodingUnavailableError(f"unknown tokenizer {name!r}; choose one of {', '.join(TOKENIZERS)}")
            _counters[name] = counter
        return counter


@dataclass(frozen=True, slots=True)
class TokenCounts:
    """One text's size: characters, the pipeline's estimate, and exact counts."""

    chars: int
    heuristic: int
    cl100k_base: int | None = None
    o200k_base: int | None = None

    def get(self, tokenizer: str) -> int | None:
        if tokenizer == HEURISTIC:
            return self.heuristic
        value: int | None = getattr(self, tokenizer, None)
        return value

    def to_json(self) -> dict[str, Any]:
        return {
            "chars": self.chars,
            "heuristic": self.heuristic,
            "cl100k_base": self.cl100k_base,
            "o200k_base": self.o200k_base,
        }


class Census:
    """Counts texts with the heuristic and, when asked, every exact encoding.

    Without *exact* it still counts the run's decision tokenizer when that is an exact
    encoding, so a profile that decides with cl100k_base always reports its own counts.
    """

    def __init__(self, exact: bool, decision: str | None = None) -> None:
        """*decision*: a run's decision tokenizer, counted even when *exact* is false."""
        self.exact = exact
        self._exact: list[TiktokenCounter] = []
        names = EXACT_ENCODINGS if exact else tuple(n for n in EXACT_ENCODINGS if n == decision)
        if names:
            for name in names:
                counter = get_counter(name)
                assert isinstance(counter, TiktokenCounter)
                self._exact.append(counter)
        self._shared = _shared_counts.setdefault(tuple(self._exact), {})

    @property
    def encodings(self) -> tuple[str, ...]:
        """The exact encodings this census counts."""
        return tuple(c.name for c in self._exact)

    def measure(self, text: str) -> TokenCounts:
        found = self._shared.get(text)
        if found is not None:
            return found
        values = {c.name: c.count(text) for c in self._exact}
        counts = TokenCounts(len(text), len(text) // 4, values.get(CL100K), values.get(O200K))
        self._share(text, counts)
        return counts

    def measure_many(self, texts: Sequence[str]) -> list[TokenCounts]:
        get = self._shared.get
        found = [get(text) for text in texts]
        missing = [n for n, counts in enumerate(found) if counts is None]
        if missing:
            todo = [texts[n] for n in missing]
            per_encoding = {c.name: c.count_many(todo) for c in self._exact}
            cl100k, o200k = per_encoding.get(CL100K), per_encoding.get(O200K)
            for k, (n, text) in enumerate(zip(missing, todo, strict=True)):
                counts = TokenCounts(
                    len(text),
                    len(text) // 4,
                    None if cl100k is None else cl100k[k],
                    None if o200k is None else o200k[k],
                )
                found[n] = counts
                self._share(text, counts)
        return found  # type: ignore[return-value]  # every None was filled

    def _share(self, text: str, counts: TokenCounts) -> None:
        """Keep *text*'s counts for every census of the same encodings (one object for one text,
        so writers can key their work by it); a long text is counted again, so that its count,
        when estimated, is noted each time (:func:`noting_estimates`)."""
        if len(text) > PIECE_CHARS:
            return
        shared = self._shared
        if len(shared) >= SHARED_LIMIT:
            shared.clear()
        shared[text] = counts


#: Each text's counts (up to :data:`PIECE_CHARS` characters) by the counters a census counts
#: with, shared by every census of them: a batch counts its feature's paragraphs and the
#: repository map's entries again in every task.  Cleared whole at :data:`SHARED_LIMIT` texts.
_shared_counts: dict[tuple[TiktokenCounter, ...], dict[str, TokenCounts]] = {}
SHARED_LIMIT = 400_000
