"""Imported before ``batch --jobs`` starts its workers, never by a one-process batch: builds both
exact tiktoken encodings once, in the process the workers are forked from (the batch itself, or
the forkserver), so no worker builds them again.

A rank file that is damaged or missing is left alone here: each worker then fails on it when it
first counts, with the message one process gives.
"""

from __future__ import annotations

import contextlib

from ctxviewer.engine.errors import CtxViewerError
from ctxviewer.engine.tokens.counting import EXACT_ENCODINGS, load_encoding

for _name in EXACT_ENCODINGS:
    with contextlib.suppress(CtxViewerError):
        load_encoding(_name)
