"""The fates the upstream profiles give their items, in one place.

The trace's vocabulary is changing: ``dropped`` is being split into "cut for the
budget", "outranked" and "not a candidate".  Every module of this package names a
fate through the aliases below, so switching to the new constants is one line each.
"""

from __future__ import annotations

from ctxviewer.engine.trace import DROPPED, INCLUDED, TRUNCATED

#: In the context whole.
KEPT = INCLUDED
#: In the context, cut short.
CUT_SHORT = TRUNCATED
#: A candidate that did not fit what was left of a character budget.
CUT_FOR_BUDGET = DROPPED
#: A candidate that lost to better-ranked ones (the spec's top five, the MCP cost cut).
OUTRANKED = DROPPED
#: Looked at, but never a candidate (no glob matched, disabled, no keyword hit, ...).
NOT_CANDIDATE = DROPPED
#: Would have been in, but its section (or the whole context) failed as upstream fails.
LOST_TO_FAILURE = DROPPED

__all__ = ["CUT_FOR_BUDGET", "CUT_SHORT", "KEPT", "LOST_TO_FAILURE", "NOT_CANDIDATE", "OUTRANKED"]
