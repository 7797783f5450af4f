"""Signed opaque tokens used for session cookies and API keys.

Format: ``<payload_b64>.<signature_b64>`` where the signature is an
HMAC-SHA256 over the payload using the service secret key. Tokens are not
JWTs on purpose: the payload is only a session id and an expiry.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time

from ledger.config import get_settings


class InvalidToken(Exception):
    pass


def _sign(payload: bytes, key: bytes) -> bytes:
    return hmac.new(key, payload, hashlib.sha256).digest()


def issue(session_id: str, ttl_seconds: int) -> str:
    key = get_settings().secret_key.encode("utf-8")
    body = json.dumps({"sid": session_id, "exp": int(time.time()) + ttl_seconds}, separators=(",", ":")).encode()
    payload = base64.urlsafe_b64encode(body).rstrip(b"=")
    signature = base64.urlsafe_b64encode(_sign(payload, key)).rstrip(b"=")
    return f"{payload.decode()}.{signature.decode()}"


def verify(token: str) -> str:
    """Return the session id carried by ``token`` or raise InvalidToken."""
    key = get_settings().secret_key.encode("utf-8")
    try:
        payload, signature = token.encode("ascii").split(b".")
    except (UnicodeEncodeError, ValueError) as exc:
        raise InvalidToken("malformed token") from exc
    expected = base64.urlsafe_b64encode(_sign(payload, key)).rstrip(b"=")
    if not hmac.compare_digest(expected, signature):
        raise InvalidToken("bad signature")
    padded = payload + b"=" * (-len(payload) % 4)
    claims = json.loads(base64.urlsafe_b64decode(padded))
    if claims.get("exp", 0) < time.time():
        raise InvalidToken("expired")
    return claims["sid"]
