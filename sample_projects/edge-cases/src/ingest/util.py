"""Miscellaneous helpers awaiting a better home.

Scheduled to be renamed to ``helpers.py`` (yaml-graph task YG-L1-004).
"""

from __future__ import annotations

import re
from datetime import datetime, timezone

SUBJECT_RE = re.compile(r"^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*$")


def parse_ts(raw: str) -> datetime:
    """Parse an ISO-8601 timestamp; naive values are assumed to be UTC."""
    value = datetime.fromisoformat(raw.replace("Z", "+00:00"))
    return value if value.tzinfo else value.replace(tzinfo=timezone.utc)


def is_valid_subject(subject: str) -> bool:
    return bool(SUBJECT_RE.match(subject)) and len(subject) <= 120


def partition_key(subject: str, ts: datetime) -> str:
    return f"{subject.replace('.', '/')}/dt={ts:%Y-%m-%d}/hr={ts:%H}"


def human_bytes(n: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024:
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} TiB"
