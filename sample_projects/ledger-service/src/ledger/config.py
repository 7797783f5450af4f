"""Runtime settings loaded from environment variables.

Every setting has a safe default for local development. Production
deployments must set LEDGER_ENV=production, which turns on the stricter
validation in :func:`Settings.validate`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field


def _env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    return raw.strip().lower() in {"1", "true", "yes", "on"}


def _env_int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    return int(raw) if raw else default


@dataclass(frozen=True)
class Settings:
    env: str = field(default_factory=lambda: os.environ.get("LEDGER_ENV", "development"))
    database_url: str = field(
        default_factory=lambda: os.environ.get("DATABASE_URL", "postgresql://ledger@localhost:5432/ledger")
    )
    redis_url: str = field(default_factory=lambda: os.environ.get("REDIS_URL", "redis://localhost:6379/0"))
    secret_key: str = field(default_factory=lambda: os.environ.get("LEDGER_SECRET_KEY", ""))
    session_ttl_seconds: int = field(default_factory=lambda: _env_int("SESSION_TTL_SECONDS", 3600))
    session_idle_seconds: int = field(default_factory=lambda: _env_int("SESSION_IDLE_SECONDS", 900))
    password_hash_iterations: int = field(default_factory=lambda: _env_int("PASSWORD_HASH_ITERATIONS", 390_000))
    login_max_attempts: int = field(default_factory=lambda: _env_int("LOGIN_MAX_ATTEMPTS", 5))
    page_size_default: int = field(default_factory=lambda: _env_int("PAGE_SIZE_DEFAULT", 50))
    page_size_max: int = field(default_factory=lambda: _env_int("PAGE_SIZE_MAX", 500))
    debug: bool = field(default_factory=lambda: _env_bool("LEDGER_DEBUG", False))

    @property
    def is_production(self) -> bool:
        return self.env == "production"

    def validate(self) -> None:
        """Raise ValueError when the settings are unsafe for the current env."""
        if self.is_production:
            if len(self.secret_key) < 32:
                raise ValueError("LEDGER_SECRET_KEY must be at least 32 characters in production")
            if self.debug:
                raise ValueError("LEDGER_DEBUG must be off in production")
        if self.page_size_default > self.page_size_max:
            raise ValueError("PAGE_SIZE_DEFAULT cannot exceed PAGE_SIZE_MAX")


_settings: Settings | None = None


def get_settings() -> Settings:
    global _settings
    if _settings is None:
        _settings = Settings()
        _settings.validate()
    return _settings
