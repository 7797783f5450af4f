"""Authentication middleware.

Reads the ``ledger_session`` cookie or an ``Authorization: Bearer`` header,
verifies the token and attaches the user to ``request.state.user``.
Requests to public paths pass through untouched.
"""

from __future__ import annotations

import logging

from starlette.middleware.base import BaseHTTPMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse

from ledger.auth import tokens
from ledger.models import user as user_model

log = logging.getLogger("ledger.auth")

COOKIE_NAME = "ledger_session"


class AuthMiddleware(BaseHTTPMiddleware):
    def __init__(self, app, public_paths: set[str] | None = None) -> None:
        super().__init__(app)
        self.public_paths = public_paths or set()

    def _extract_token(self, request: Request) -> str | None:
        header = request.headers.get("Authorization", "")
        if header.startswith("Bearer "):
            return header[len("Bearer "):]
        return request.cookies.get(COOKIE_NAME)

    async def dispatch(self, request: Request, call_next):
        if request.url.path in self.public_paths:
            return await call_next(request)
        token = self._extract_token(request)
        if not token:
            return JSONResponse(status_code=401, content={"error": "authentication_required"})
        try:
            session_id = tokens.verify(token)
        except tokens.InvalidToken:
            log.info("rejected token", extra={"path": request.url.path})
            return JSONResponse(status_code=401, content={"error": "invalid_session"})
        # TODO(auth-sessions): look the session up in the session store and
        # enforce idle timeout; for now the session id doubles as the user id.
        user = user_model.find_by_id(session_id)
        if user is None or user.disabled:
            return JSONResponse(status_code=401, content={"error": "invalid_session"})
        request.state.user = user
        return await call_next(request)
