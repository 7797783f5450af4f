"""Exact token counts: shipped encodings, their official hashes, no network."""

from __future__ import annotations

import socket
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxviewer.engine.errors import EncodingUnavailableError
from ctxviewer.engine.tokens import counting as tokens
from ctxviewer.engine.tokens.counting import (
    CL100K,
    EXACT_ENCODINGS,
    O200K,
    TiktokenCounter,
    load_encoding,
    noting_estimates,
)


@pytest.mark.parametrize("name", tokens.EXACT_ENCODINGS)
def test_spec_matches_installed_tiktoken(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """Our split pattern, special tokens and hash equal tiktoken's published ones."""
    import tiktoken_ext.openai_public as public

    seen: dict[str, Any] = {}

    def fake_load(url: str, expected_hash: str | None = None) -> dict[bytes, int]:
        seen["url"], seen["hash"] = url, expected_hash
        return {b"a": 0}

    monkeypatch.setattr(public, "load_tiktoken_bpe", fake_load)
    official = public.ENCODING_CONSTRUCTORS[name]()
    spec = tokens.ENCODING_SPECS[name]
    assert official["pat_str"] == spec.pat_str
    assert official["special_tokens"] == spec.special_tokens
    assert seen["hash"] == spec.sha256
    assert seen["url"].endswith(f"/{name}.tiktoken")


def test_known_token_ids_offline(monkeypatch: pytest.MonkeyPatch) -> None:
    """Loading and encoding never opens a network connection."""

    def no_network(*args: object, **kwargs: object) -> None:
        raise AssertionError("network access attempted")

    monkeypatch.setattr(socket, "create_connection", no_network)
    monkeypatch.setattr(socket.socket, "connect", no_network)
    # Published reference ids for "hello world".
    assert tokens.load_encoding("cl100k_base").encode_ordinary("hello world") == [15339, 1917]
    assert tokens.load_encoding("o200k_base").encode_ordinary("hello world") == [24912, 2375]


def test_special_token_text_is_counted_as_text() -> None:
    counter = tokens.get_counter("cl100k_base")
    # As plain text '<|endoftext|>' is several tokens, not the single special token.
    assert counter.count("<|endoftext|>") > 1


def test_heuristic_is_four_chars_per_token() -> None:
    counter = tokens.get_counter("heuristic")
    assert [counter.count("x" * n) for n in (0, 3, 4, 7, 8)] == [0, 0, 1, 1, 2]


def test_tampered_file_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tokens, "_encodings", {})
    monkeypatch.setattr(tokens, "resource_bytes", lambda *parts: b"YQ== 0\n")
    with pytest.raises(EncodingUnavailableError, match="official sha256"):
        tokens.load_encoding("cl100k_base")


def test_missing_file_is_an_error_not_zero(monkeypatch: pytest.MonkeyPatch) -> None:
    def missing(*parts: str) -> bytes:
        raise FileNotFoundError("gone")

    monkeypatch.setattr(tokens, "_encodings", {})
    monkeypatch.setattr(tokens, "resource_bytes", missing)
    with pytest.raises(EncodingUnavailableError, match="missing"):
        tokens.load_encoding("o200k_base")


def test_fits_prefix_stays_within_budget() -> None:
    counter = tokens.get_counter("o200k_base")
    text = "The quick brown fox jumps over the lazy dog. " * 20
    for budget in (1, 5, 17, 60):
        cut = counter.fits_prefix(text, budget)
        assert counter.count(text[:cut]) <= budget
        assert counter.count(text[: cut + 1]) > budget or cut == len(text)


def test_census_counts_each_text() -> None:
    census = tokens.Census(exact=True)
    a, b = census.measure_many(["hello world", "hello world"])
    assert a == b == tokens.TokenCounts(11, 2, 2, 2)


def test_every_census_of_the_same_encodings_shares_a_short_text_s_counts() -> None:
    text = "counts shared by every task of a batch"
    first = tokens.Census(exact=True).measure_many([text])[0]
    again = tokens.Census(exact=True).measure(text)
    assert again is first  # one object: what is made once per counts object is found again
    exact = {name: len(load_encoding(name).encode_ordinary(text)) for name in EXACT_ENCODINGS}
    assert first == tokens.TokenCounts(len(text), len(text) // 4, exact[CL100K], exact[O200K])
    # Without exact counts a census counts no encoding: its own counts, never the exact ones.
    assert tokens.Census(exact=False).measure(text) == tokens.TokenCounts(len(text), len(text) // 4)


def test_a_long_text_s_counts_are_not_shared_so_its_estimate_is_noted_every_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(tokens, "PIECE_CHARS", 16)
    run = "qz" * 40  # one pre-token of 80 letters: cut inside it, an estimate
    for _ in range(2):
        with noting_estimates() as noted:
            counts = tokens.Census(exact=True).measure(run)
        assert noted == {hash(run): len(run)}
    assert counts.chars == len(run)


# -- long texts: counted a piece at a time (issue 15) ---------------------------------------------

RICH = [
    *"abcXYZ019'\u2019.,;:!?-_/\\\"()[]<>@#$%*+=|~` \t\r\n",
    *"\u00a0\u3000\u00e9\u0301\u65e5\u0627\u0130\u00df\u00bd",
    "'s",
    "'ll",
    "\r\n",
    "://",
]


@pytest.mark.parametrize("name", EXACT_ENCODINGS)
@settings(max_examples=300, deadline=None)
@given(text=st.lists(st.sampled_from(RICH), min_size=1, max_size=60).map("".join), size=st.sampled_from([4, 6, 10]))
def test_pieces_cut_where_the_pre_tokenizer_does(name: str, text: str, size: int) -> None:
    # Cut exactly (no estimate), the pieces' counts add up to the whole text's count.
    with pytest.MonkeyPatch.context() as m:
        m.setattr(tokens, "PIECE_CHARS", size)
        spans, estimated = tokens.pieces(text)
    assert "".join(text[a:b] for a, b in spans) == text
    assert all(b - a <= size for a, b in spans)
    encoding = load_encoding(name)
    if not estimated:
        assert sum(len(encoding.encode_ordinary(text[a:b])) for a, b in spans) == len(encoding.encode_ordinary(text))


class Spy:
    """Wraps an encoding: records the length of every text it is given."""

    def __init__(self, encoding: Any) -> None:
        self.encoding = encoding
        self.lengths: list[int] = []

    def encode_ordinary(self, text: str) -> list[int]:
        self.lengths.append(len(text))
        ids: list[int] = self.encoding.encode_ordinary(text)
        return ids

    def decode_single_token_bytes(self, token: int) -> bytes:
        out: bytes = self.encoding.decode_single_token_bytes(token)
        return out


def test_a_megabyte_run_without_whitespace_is_tokenized_in_bounded_pieces_and_noted() -> None:
    counter = TiktokenCounter(CL100K)
    spy = Spy(counter.encoding)
    counter._encoding = spy  # type: ignore[assignment]
    run = "ab" * (1 << 19)  # 1 MiB of letters: one pre-token to tiktoken
    with noting_estimates() as noted:
        total = counter.count(run)
        counter.count(run)  # cached: noted again, tokenized no more
    assert max(spy.lengths) <= tokens.PIECE_CHARS
    assert sum(spy.lengths) == len(run)  # 16 pieces of 65,536, no cut found: each tokenized once
    assert noted == {hash(run): len(run)}
    # "ab" repeated is one token per 2 letters in cl100k_base within each piece.
    assert total == sum(len(counter.encoding.encode_ordinary(run[i : i + 65536])) for i in range(0, len(run), 65536))


def test_a_long_text_with_spaces_is_exact_and_not_noted() -> None:
    counter = TiktokenCounter(O200K)
    spy = Spy(counter.encoding)
    counter._encoding = spy  # type: ignore[assignment]
    text = "Login session store keeps tokens.\n" * 10_000  # 340,000 characters
    with noting_estimates() as noted:
        total = counter.count(text)
    assert noted == {} and max(spy.lengths) <= tokens.PIECE_CHARS
    assert total == len(spy.encoding.encode_ordinary(text))
    # fits_prefix tokenizes only the piece where the budget runs out.
    spy.lengths.clear()
    cut = counter.fits_prefix(text, 100)
    assert max(spy.lengths) <= tokens.PIECE_CHARS
    assert cut == TiktokenCounter(O200K).fits_prefix(text[:60_000], 100)


# -- rank files ------------------------------------------------------------------------------------


def test_rank_parsing_fast_path_agrees_with_line_by_line_on_the_shipped_files() -> None:
    from ctxviewer.engine.files.resources import resource_bytes

    for name in tokens.EXACT_ENCODINGS:
        data = resource_bytes("tiktoken", f"{name}.tiktoken")
        by_lines = tokens._parse_rank_lines(data, name)
        assert tokens.parse_ranks(data, name) == by_lines
        # The official files (pinned by their hash) hold rank n on line n, as their specs say:
        # read without their numbers, they give the same ranks.
        assert tokens.ENCODING_SPECS[name].ranks_in_order
        assert tokens.parse_ranks(data, name, in_order=True) == by_lines


def test_ranks_read_in_order_are_the_line_numbers() -> None:
    # Line n's rank, whatever the file says: the caller vouched for the order.
    assert tokens.parse_ranks(b"YQ== 0\nYg== 7\n", "t", in_order=True) == {b"a": 0, b"b": 1}
    # Line by line too (a blank line takes that path): the n-th pair's rank is n.
    assert tokens.parse_ranks(b"YQ== 0\n\nYg== 7\n", "t", in_order=True) == {b"a": 0, b"b": 1}
    assert tokens.parse_ranks(b"YQ== 0\nYg== 7\n", "t") == {b"a": 0, b"b": 7}


def test_rank_file_pairs_worked_by_hand() -> None:
    # "YQ==" is b"a", "Yg==" is b"b", "YWI=" is b"ab".
    assert tokens.parse_ranks(b"YQ== 0\nYg== 1\nYWI= 2\n", "t") == {b"a": 0, b"b": 1, b"ab": 2}
    assert tokens.parse_ranks(b"YQ== 0\n\nYg== 1", "t") == {b"a": 0, b"b": 1}  # a blank line, no final newline


@pytest.mark.parametrize(
    ("data", "line"), [(b"YQ== 0\nYg==\n", 2), (b"YQ== 0\nYg== 1 YWI=\nYWI= 2\n", 2), (b"YQ== x\n", 1)]
)
def test_a_malformed_rank_line_is_named(data: bytes, line: int) -> None:
    with pytest.raises(EncodingUnavailableError) as info:
        tokens.parse_ranks(data, "ranks.tiktoken")
    assert info.value.line == line
