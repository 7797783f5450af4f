"""Thin database access layer over psycopg connection pools."""

from __future__ import annotations

import contextlib
from typing import Any, Iterator, Sequence

from psycopg_pool import ConnectionPool

from ledger.config import get_settings

_pool: ConnectionPool | None = None


def pool() -> ConnectionPool:
    global _pool
    if _pool is None:
        _pool = ConnectionPool(get_settings().database_url, min_size=1, max_size=10, open=True)
    return _pool


@contextlib.contextmanager
def transaction() -> Iterator[Any]:
    """Yield a cursor inside a database transaction.

    The transaction commits when the block exits normally and rolls back on
    any exception. Isolation is SERIALIZABLE because ledger postings rely on
    balance checks that must not race.
    """
    with pool().connection() as conn:
        conn.execute("SET TRANSACTION ISOLATION LEVEL SERIALIZABLE")
        with conn.cursor() as cur:
            try:
                yield cur
            except Exception:
                conn.rollback()
                raise
            else:
                conn.commit()


def fetch_one(sql: str, params: Sequence[Any] = ()) -> dict[str, Any] | None:
    with pool().connection() as conn, conn.cursor() as cur:
        cur.execute(sql, params)
        row = cur.fetchone()
        if row is None:
            return None
        columns = [c.name for c in cur.description]
        return dict(zip(columns, row))


def fetch_all(sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
    with pool().connection() as conn, conn.cursor() as cur:
        cur.execute(sql, params)
        columns = [c.name for c in cur.description]
        return [dict(zip(columns, row)) for row in cur.fetchall()]
