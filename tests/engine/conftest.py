"""Fixtures shared by the engine tests of a real run's files and what is made of them."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest


@pytest.fixture
def utc_local_time(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """State times are local: make local time UTC so they read as written."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()
