"""The published JSON Schemas (draft 2020-12) of every JSON output, shipped as
``<name>.schema.json`` beside this file, and the ``schema_version`` each output carries.

``ctxviewer schema`` lists them and prints one; ``docs/schemas/`` holds the same files
(docs/ci.md#json-schemas).  A change to an output's shape is a change to its schema and its
version here.
"""

from __future__ import annotations

import importlib.resources
import json
from collections.abc import Mapping
from typing import Any

from ctxviewer.engine.errors import CtxViewerError
from ctxviewer.engine.trace.model import SCHEMA_VERSION as TRACE_SCHEMA_VERSION

#: Each output's schema version, by the name of its schema.  The trace's is the trace model's
#: (a batch row is a trace with its findings); the others count on their own.
SCHEMA_VERSIONS: Mapping[str, str] = {
    "trace": TRACE_SCHEMA_VERSION,
    "batch-row": TRACE_SCHEMA_VERSION,
    "check": "1.0",
    "why": "1.1",
    "list": "1.0",
    "sweep": "1.0",
    "diff": "1.0",
    "compare": "1.0",
    "whatif": "1.0",
    "prompt": "1.0",
    "window": "1.0",
    "verify": "1.0",
    "follow": "1.1",
    "follow-change": "1.1",
    "follow-events": "1.0",
    "bisect": "1.0",
}

#: What each schema describes, for ``ctxviewer schema``.
SCHEMA_SUMMARIES: Mapping[str, str] = {
    "trace": "assemble --format json: one task's trace",
    "batch-row": "batch --format jsonl: a line, a task's trace and its findings",
    "check": "check --format json",
    "why": "why --format json",
    "list": "list --format json",
    "sweep": "sweep --format json",
    "diff": "diff --format json",
    "compare": "compare --format json",
    "whatif": "whatif --format json",
    "prompt": "prompt --format json",
    "window": "window --format json",
    "verify": "verify --format json",
    "follow": "follow RUN --once --format json: a real run's fleet",
    "follow-change": "follow RUN --format jsonl: a line, one change to the fleet",
    "follow-events": "follow EVENT-LOG --format json or jsonl: a line, the tracker after a poll",
    "bisect": "bisect --format json: the commits of a range that changed one task",
}


def schema_text(name: str) -> str:
    """The schema *name* as shipped (JSON text); an unknown name is bad input."""
    if name not in SCHEMA_VERSIONS:
        raise CtxViewerError(f"no schema {name!r}; schemas: {', '.join(SCHEMA_VERSIONS)}")
    return importlib.resources.files(__name__).joinpath(f"{name}.schema.json").read_text(encoding="utf-8")


def schema(name: str) -> dict[str, Any]:
    """The schema *name* as data."""
    data: dict[str, Any] = json.loads(schema_text(name))
    return data


def versioned(name: str, data: Mapping[str, Any]) -> dict[str, Any]:
    """*data* with ``schema_version`` first: the version of the output schema *name* describes."""
    return {"schema_version": SCHEMA_VERSIONS[name], **data}
