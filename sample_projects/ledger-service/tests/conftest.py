"""Shared pytest fixtures for ledger-service."""

import os

import pytest

os.environ.setdefault("LEDGER_SECRET_KEY", "test-secret-key-that-is-long-enough-0001")


@pytest.fixture
def settings():
    from ledger.config import Settings

    return Settings()
