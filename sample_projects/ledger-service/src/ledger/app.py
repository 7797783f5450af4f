"""Application factory.

Routers are registered here so that the order of middleware is defined in
one place: request id -> authentication -> rate limiting -> handlers.
"""

from __future__ import annotations

import logging
import uuid

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from ledger import __version__
from ledger.api import accounts, health, transactions
from ledger.auth.middleware import AuthMiddleware
from ledger.config import get_settings

log = logging.getLogger("ledger")


def create_app() -> FastAPI:
    settings = get_settings()
    app = FastAPI(title="ledger-service", version=__version__, debug=settings.debug)

    @app.middleware("http")
    async def request_id(request: Request, call_next):
        rid = request.headers.get("X-Request-Id") or uuid.uuid4().hex
        request.state.request_id = rid
        response = await call_next(request)
        response.headers["X-Request-Id"] = rid
        return response

    app.add_middleware(AuthMiddleware, public_paths={"/healthz", "/readyz", "/v1/auth/login"})

    app.include_router(health.router)
    app.include_router(accounts.router, prefix="/v1/accounts", tags=["accounts"])
    app.include_router(transactions.router, prefix="/v1/transactions", tags=["transactions"])

    @app.exception_handler(Exception)
    async def unhandled(request: Request, exc: Exception) -> JSONResponse:
        log.exception("unhandled error", extra={"request_id": getattr(request.state, "request_id", None)})
        return JSONResponse(status_code=500, content={"error": "internal_error"})

    return app
