"""Stage 1, the task's signals: what the task is about, and how much of each section it may keep.

:func:`read_task` extracts the signals (:mod:`ctxviewer.engine.signals.task`) and sets the
limits: phase 2's and phase 4's, lowered by seed 004's complexity table when the task names a
known complexity.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ctxviewer.engine.profiles.computed.model import (
    CODE_REFS,
    COMPLEXITY_ALIASES,
    COMPLEXITY_LIMITS,
    PHASE_LIMITS,
    Limits,
)
from ctxviewer.engine.profiles.computed.sources import one_line
from ctxviewer.engine.signals.task import extract_signals
from ctxviewer.engine.trace.model import Signals


def complexity_of(raw: Mapping[str, Any]) -> tuple[str | None, str]:
    """The task's complexity level for the limits table, and what to say about it."""
    value = raw.get("complexity")
    if value is None:
        return None, "no complexity field: only the phase limits apply"
    text = one_line(value).lower()
    level = COMPLEXITY_ALIASES.get(text)
    if level is None:
        return None, f"complexity {text or repr(value)!r} is not easy, normal or complex: only the phase limits apply"
    return level, f"complexity {text!r}: the {level} limits"


def limits_for(level: str | None) -> Limits:
    """Each section's limit at complexity *level* (None: the phase limits alone), and who set it.

    A complexity limit replaces a phase limit only where it is lower; prior work has no
    phase limit, so it is limited only with a complexity.
    """
    limits: dict[str, tuple[int, str]] = {}
    for name, limit in PHASE_LIMITS.items():
        phase = "phase 4" if name == CODE_REFS else "phase 2"
        limits[name] = (limit, f"{phase} keeps {limit}")
    if level is not None:
        for name, limit in COMPLEXITY_LIMITS[level].items():
            if name not in limits or limit < limits[name][0]:
                limits[name] = (limit, f"complexity {level} keeps {limit}")
    return limits


@dataclass(frozen=True)
class TaskReading:
    """What stage 1 read from the task."""

    signals: Signals
    #: The complexity level (easy, normal, complex) or None, and what to say about it.
    level: str | None
    level_note: str
    limits: Limits


def read_task(
    raw: Mapping[str, Any], domains: Mapping[str, Sequence[str]] | Sequence[tuple[str, Sequence[str]]] | None
) -> TaskReading:
    """The task's signals (*domains*: the settings' table) and its limits."""
    level, note = complexity_of(raw)
    return TaskReading(extract_signals(raw, domains), level, note, limits_for(level))
