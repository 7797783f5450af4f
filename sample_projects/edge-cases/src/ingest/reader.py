"""Read newline-delimited JSON event batches.

Each line is one envelope: ``{"subject", "version", "id", "ts", "payload"}``.
Blank lines are skipped. Lines longer than MAX_LINE_BYTES are rejected
without being parsed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import IO, Any, Iterator

MAX_LINE_BYTES = 256 * 1024
ENVELOPE_KEYS = ("subject", "version", "id", "ts", "payload")


@dataclass(frozen=True)
class Envelope:
    subject: str
    version: int
    id: str
    ts: str
    payload: dict[str, Any]


@dataclass(frozen=True)
class ReadError:
    line_no: int
    reason: str


def read_batch(stream: IO[bytes]) -> Iterator[Envelope | ReadError]:
    for line_no, raw in enumerate(stream, start=1):
        if len(raw) > MAX_LINE_BYTES:
            yield ReadError(line_no, "line too long")
            continue
        text = raw.strip()
        if not text:
            continue
        try:
            doc = json.loads(text)
        except json.JSONDecodeError as exc:
            yield ReadError(line_no, f"invalid json: {exc.msg}")
            continue
        missing = [k for k in ENVELOPE_KEYS if k not in doc]
        if missing:
            yield ReadError(line_no, f"missing envelope keys: {missing}")
            continue
        if not isinstance(doc["payload"], dict):
            yield ReadError(line_no, "payload must be an object")
            continue
        yield Envelope(str(doc["subject"]), int(doc["version"]), str(doc["id"]), str(doc["ts"]), doc["payload"])
