"""Exact token counts: shipped encodings, their official hashes, no network."""

from __future__ import annotations

import socket
from typing import Any

import pytest

from ctxviewer.engine import tokens
from ctxviewer.engine.errors import EncodingUnavailableError


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
