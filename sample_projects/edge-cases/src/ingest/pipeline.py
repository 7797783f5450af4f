"""Pipeline: read -> validate -> enqueue, and queue -> transform -> sink.

Stages are plain callables so that tests can replace any of them.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Callable, IO

from a import Backoff, chunked
from ingest.queue import InMemoryQueue
from ingest.reader import Envelope, ReadError, read_batch
from ingest.schema import SchemaRegistry

log = logging.getLogger("ingest.pipeline")


@dataclass
class IngestReport:
    accepted: int = 0
    rejected: int = 0
    errors: list[str] = field(default_factory=list)


def ingest_stream(stream: IO[bytes], registry: SchemaRegistry, queue: InMemoryQueue) -> IngestReport:
    report = IngestReport()
    for item in read_batch(stream):
        if isinstance(item, ReadError):
            report.rejected += 1
            report.errors.append(f"line {item.line_no}: {item.reason}")
            continue
        problems = registry.get(item.subject, item.version).validate(item.payload)
        if problems:
            report.rejected += 1
            report.errors.append(f"event {item.id}: {'; '.join(problems)}")
            continue
        queue.put(item)
        report.accepted += 1
    return report


def drain(queue: InMemoryQueue, transform: Callable[[Envelope], dict], sink, batch_size: int = 500) -> int:
    """Lease messages, transform them and write batches to the sink."""
    written = 0
    backoff = Backoff()
    leased = []
    while (msg := queue.lease()) is not None:
        leased.append(msg)
    for batch in chunked(leased, batch_size):
        rows = [transform(m.body) for m in batch]
        try:
            sink.write(rows)
        except Exception:  # noqa: BLE001 - leases expire and the batch is retried
            log.warning("sink write failed; next attempt in %s ms", backoff.next_delay_ms())
            continue
        for m in batch:
            queue.ack(m.receipt)
        written += len(rows)
        backoff.reset()
    return written
