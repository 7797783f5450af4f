"""The fates the upstream profiles give the candidates they leave out, in one place.

The trace's vocabulary is changing: ``dropped`` is being split into ``cut_for_budget``,
``outranked`` and ``not_candidate`` (branch ``fates``).  Every module of this package
names a left-out fate through the aliases below, so switching is one line each:
``from ctxviewer.engine.trace import CUT_FOR_BUDGET, NOT_CANDIDATE, OUTRANKED`` and
``LOST_TO_FAILURE = NOT_CANDIDATE`` (what that branch gives a candidate whose context
failed).  Kept candidates use ``INCLUDED`` / ``TRUNCATED`` from the trace directly.
"""

from __future__ import annotations

from ctxviewer.engine.trace import DROPPED

#: A candidate that did not fit what was left of a character budget.
CUT_FOR_BUDGET = DROPPED
#: A candidate that lost to better-ranked ones (the MCP cost cut).
OUTRANKED = DROPPED
#: Looked at, but never a candidate (no glob matched, disabled, no capability shared, ...).
NOT_CANDIDATE = DROPPED
#: Would have been in, but its section (or the whole context) failed as upstream fails.
LOST_TO_FAILURE = DROPPED

__all__ = ["CUT_FOR_BUDGET", "LOST_TO_FAILURE", "NOT_CANDIDATE", "OUTRANKED"]
