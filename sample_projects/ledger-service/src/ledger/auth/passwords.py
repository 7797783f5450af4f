"""Password hashing.

Current scheme: PBKDF2-HMAC-SHA256 with a per-user random salt. Stored
format is ``pbkdf2_sha256$<iterations>$<salt_b64>$<hash_b64>`` so the
iteration count can be raised without invalidating old hashes.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

from ledger.config import get_settings

ALGORITHM = "pbkdf2_sha256"
MIN_PASSWORD_LENGTH = 12


class WeakPassword(ValueError):
    pass


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def hash_password(password: str, *, iterations: int | None = None) -> str:
    if len(password) < MIN_PASSWORD_LENGTH:
        raise WeakPassword(f"password must be at least {MIN_PASSWORD_LENGTH} characters")
    iterations = iterations or get_settings().password_hash_iterations
    salt = secrets.token_bytes(16)
    digest = hashlib.pbkdf2_hmac("sha256", password.encode("utf-8"), salt, iterations)
    return f"{ALGORITHM}${iterations}${_b64(salt)}${_b64(digest)}"


def verify_password(password: str, stored: str) -> bool:
    try:
        algorithm, iterations, salt_b64, hash_b64 = stored.split("$")
    except ValueError:
        return False
    if algorithm != ALGORITHM:
        return False
    salt = base64.b64decode(salt_b64)
    expected = base64.b64decode(hash_b64)
    actual = hashlib.pbkdf2_hmac("sha256", password.encode("utf-8"), salt, int(iterations))
    return hmac.compare_digest(actual, expected)


def needs_rehash(stored: str) -> bool:
    try:
        algorithm, iterations, _, _ = stored.split("$")
    except ValueError:
        return True
    return algorithm != ALGORITHM or int(iterations) < get_settings().password_hash_iterations
