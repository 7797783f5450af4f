"""Liveness and readiness probes."""

from __future__ import annotations

from fastapi import APIRouter, Response

from ledger import __version__, db

router = APIRouter()


@router.get("/healthz")
def healthz() -> dict[str, str]:
    """Liveness: the process is up and the event loop answers."""
    return {"status": "ok", "version": __version__}


@router.get("/readyz")
def readyz(response: Response) -> dict[str, str]:
    """Readiness: the database answers a trivial query."""
    try:
        db.fetch_one("SELECT 1 AS ok")
    except Exception:  # noqa: BLE001 - readiness must never raise
        response.status_code = 503
        return {"status": "unavailable", "database": "down"}
    return {"status": "ok", "database": "up"}
