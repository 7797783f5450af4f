"""Small shared helpers used across the ingest package.

The module name is deliberately short; several task graphs refer to it by
line range (see the yaml-graph feature).
"""

from __future__ import annotations

import hashlib
import json
import time
from typing import Any, Iterable, Iterator, TypeVar

T = TypeVar("T")


def chunked(items: Iterable[T], size: int) -> Iterator[list[T]]:
    """Yield lists of at most ``size`` items."""
    if size <= 0:
        raise ValueError("size must be positive")
    batch: list[T] = []
    for item in items:
        batch.append(item)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


def stable_hash(payload: Any) -> str:
    """SHA-256 of the canonical JSON form of ``payload``."""
    canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def monotonic_ms() -> int:
    return int(time.monotonic() * 1000)


class Backoff:
    """Exponential backoff with a ceiling; deterministic (no jitter) for tests."""

    def __init__(self, base_ms: int = 100, factor: float = 2.0, ceiling_ms: int = 30_000) -> None:
        self.base_ms = base_ms
        self.factor = factor
        self.ceiling_ms = ceiling_ms
        self.attempt = 0

    def next_delay_ms(self) -> int:
        delay = min(self.ceiling_ms, int(self.base_ms * (self.factor**self.attempt)))
        self.attempt += 1
        return delay

    def reset(self) -> None:
        self.attempt = 0
