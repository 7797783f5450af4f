"""Warehouse sink.

Rows are written in batches keyed by a batch id derived from the event ids,
so that a retried batch overwrites instead of duplicating.
"""

from __future__ import annotations

from typing import Any, Protocol

from a import stable_hash


class Warehouse(Protocol):
    def merge(self, table: str, batch_id: str, rows: list[dict[str, Any]]) -> None: ...


class WarehouseSink:
    def __init__(self, warehouse: Warehouse, table: str = "events_raw") -> None:
        self.warehouse = warehouse
        self.table = table
        self.batches_written = 0

    def batch_id(self, rows: list[dict[str, Any]]) -> str:
        return stable_hash(sorted(r["event_id"] for r in rows))

    def write(self, rows: list[dict[str, Any]]) -> None:
        if not rows:
            return
        self.warehouse.merge(self.table, self.batch_id(rows), rows)
        self.batches_written += 1


class MemoryWarehouse:
    """Test double that records merges by batch id."""

    def __init__(self) -> None:
        self.tables: dict[str, dict[str, list[dict[str, Any]]]] = {}

    def merge(self, table: str, batch_id: str, rows: list[dict[str, Any]]) -> None:
        self.tables.setdefault(table, {})[batch_id] = list(rows)

    def row_count(self, table: str) -> int:
        return sum(len(rows) for rows in self.tables.get(table, {}).values())
