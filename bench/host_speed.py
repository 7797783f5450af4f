"""How fast this host runs plain Python right now, printed beside a benchmark's figures.

The shared machines' speed moves from day to day and within minutes, and interpreted code
does not move with native code (tiktoken's encoder): a ratio of the two moves too.  A figure
from one day is compared with another day's only beside this one.
"""

from __future__ import annotations

import statistics
import time


def python_step_ns(steps: int = 2_000_000, repeat: int = 5) -> float:
    """The median nanoseconds one step of a plain ``for`` loop adding integers takes."""
    times = []
    for _ in range(repeat):
        total = 0
        start = time.perf_counter()
        for n in range(steps):
            total += n
        times.append(time.perf_counter() - start)
    return statistics.median(times) / steps * 1e9


def describe() -> str:
    """One line for a benchmark's header."""
    return f"plain Python: {python_step_ns():.0f} ns a loop step (median of 5 runs of 2 million)"


if __name__ == "__main__":
    print(describe())
