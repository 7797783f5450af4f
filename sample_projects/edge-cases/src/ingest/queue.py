"""Durable work queue abstraction.

Messages are leased with a visibility timeout. A consumer must ack a message
before its lease expires, otherwise it becomes visible again and another
consumer may receive it. Delivery is therefore at-least-once.
"""

from __future__ import annotations

import heapq
import itertools
import time
from dataclasses import dataclass, field
from typing import Any


@dataclass(order=True)
class Message:
    visible_at: float
    seq: int
    body: Any = field(compare=False)
    attempts: int = field(default=0, compare=False)
    receipt: str | None = field(default=None, compare=False)


class InMemoryQueue:
    """Reference implementation used in tests and local runs."""

    def __init__(self, visibility_timeout: float = 30.0, max_depth: int = 10_000) -> None:
        self.visibility_timeout = visibility_timeout
        self.max_depth = max_depth
        self._heap: list[Message] = []
        self._leased: dict[str, Message] = {}
        self._seq = itertools.count()

    def depth(self) -> int:
        return len(self._heap) + len(self._leased)

    def put(self, body: Any) -> None:
        if self.depth() >= self.max_depth:
            raise OverflowError("queue full")
        heapq.heappush(self._heap, Message(time.monotonic(), next(self._seq), body))

    def lease(self, now: float | None = None) -> Message | None:
        now = time.monotonic() if now is None else now
        self._requeue_expired(now)
        if not self._heap or self._heap[0].visible_at > now:
            return None
        msg = heapq.heappop(self._heap)
        msg.attempts += 1
        msg.receipt = f"r{msg.seq}-{msg.attempts}"
        msg.visible_at = now + self.visibility_timeout
        self._leased[msg.receipt] = msg
        return msg

    def ack(self, receipt: str) -> bool:
        return self._leased.pop(receipt, None) is not None

    def _requeue_expired(self, now: float) -> None:
        for receipt, msg in list(self._leased.items()):
            if msg.visible_at <= now:
                del self._leased[receipt]
                heapq.heappush(self._heap, msg)
