"""Locate files shipped in ``resources/`` (installed as the ``ctxviewer.resources`` package).

In an installed wheel or an editable install the folder is the package
``ctxviewer.resources``; in a bare checkout (``python -m ctxviewer`` from the
repository without installing) it is the top-level ``resources/`` folder beside the
package.  Both are found without touching the network.
"""

from __future__ import annotations

import importlib.resources
from pathlib import Path
from typing import Any


def _root() -> Any:
    try:
        return importlib.resources.files("ctxviewer.resources")
    except ModuleNotFoundError:
        return checkout_resources()


def checkout_resources() -> Path:
    """The ``resources/`` folder beside the ``ctxviewer`` package folder (a bare checkout)."""
    here = Path(__file__).resolve()
    package = next(p for p in here.parents if p.name == "ctxviewer")
    return package.parent / "resources"


def resource_path(*parts: str) -> Any:
    """A traversable for a shipped resource (may live inside a zip)."""
    node = _root()
    for part in parts:
        node = node / part
    return node


def resource_bytes(*parts: str) -> bytes:
    """The bytes of a shipped resource; raises OSError when it is not there."""
    node = resource_path(*parts)
    data: bytes = node.read_bytes()
    return data
