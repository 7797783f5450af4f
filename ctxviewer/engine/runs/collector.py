"""The garbage collector's pace for a short-lived process that assembles tasks: every command but ``gui``.

Such a process makes millions of short-lived objects and almost no reference cycles, so
:func:`pace_for_batches` makes the young generation larger and full collections (which walk
the whole loaded project) rarer.  See docs/architecture.md#processes.
"""

from __future__ import annotations

import gc

#: Young-generation size, and how many collections of each generation before the next older one.
BATCH_THRESHOLDS = (20_000, 50, 100)


def pace_for_batches() -> None:
    """Set this process's collector to :data:`BATCH_THRESHOLDS` (once per process; idempotent)."""
    gc.set_threshold(*BATCH_THRESHOLDS)
