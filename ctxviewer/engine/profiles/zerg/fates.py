"""The fates the upstream profiles give the candidates they leave out, in one place.

The trace's vocabulary (``docs/trace-schema.md``) has three fates for a candidate left
out: cut for budget, outranked, and not a candidate.  Upstream also fails whole sections
(a bad rule file, a source it cannot parse); a candidate lost that way was never in the
running, so it is *not a candidate*, with the failure as its reason.  Kept candidates use
``INCLUDED`` / ``TRUNCATED`` from the trace directly.
"""

from __future__ import annotations

from ctxviewer.engine.trace.model import CUT_FOR_BUDGET, NOT_CANDIDATE, OUTRANKED

#: Would have been in, but its section (or the whole context) failed as upstream fails.
LOST_TO_FAILURE = NOT_CANDIDATE

__all__ = ["CUT_FOR_BUDGET", "LOST_TO_FAILURE", "NOT_CANDIDATE", "OUTRANKED"]
