"""Axis maths for the usage plot: token labels, nice tick steps and the number guards they use.

Pure functions, no Qt: whatever a replay or a live log holds (NaN, infinities, zero
spans), they return something drawable.
"""

from __future__ import annotations

import math
from typing import Any


def is_number(value: float) -> bool:
    """True for a finite int or float (not a bool)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def finite(value: Any) -> float:
    """*value* as a float, or 0.0 when it is not a finite number."""
    try:
        v = float(value)
    except (TypeError, ValueError, OverflowError):
        return 0.0
    return v if math.isfinite(v) else 0.0


def tokens_k(value: float) -> str:
    """A token count for an axis: ``0``, ``750``, ``12k``, ``2.5k``, ``1.2M``."""
    v = float(value) if is_number(value) else 0.0
    sign, v = ("-" if v < 0 else ""), abs(v)
    if v >= 1_000_000:
        text = f"{v / 1_000_000:.2f}".rstrip("0").rstrip(".") + "M"
    elif v >= 1000:
        text = f"{v / 1000:.1f}".rstrip("0").rstrip(".") + "k"
    else:
        text = f"{v:.0f}"
    return sign + text


def nice_step(span: float, max_ticks: int) -> float:
    """The smallest of 1, 2, 2.5, 5 x 10^k that divides *span* into at most *max_ticks* parts."""
    span = span if is_number(span) and span > 0 else 1.0
    max_ticks = max(1, max_ticks)
    raw = span / max_ticks
    magnitude = 10.0 ** math.floor(math.log10(raw))
    for factor in (1.0, 2.0, 2.5, 5.0, 10.0):
        if factor * magnitude >= raw - 1e-12:
            return factor * magnitude
    return 10 * magnitude  # pragma: no cover - the loop always returns


def nice_ticks(top: float, max_ticks: int) -> tuple[float, ...]:
    """Ticks ``0, step, 2 step, ...`` up to the first one at or above *top*."""
    step = nice_step(top, max_ticks)
    count = max(1, math.ceil((top if is_number(top) and top > 0 else 1.0) / step - 1e-9))
    return tuple(step * i for i in range(count + 1))
