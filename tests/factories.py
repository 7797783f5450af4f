"""Builders for small projects on disk, used by engine and CLI tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

RULES = ".claude/rules/security"


def write(root: Path, rel: str, text: str | bytes) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_bytes(text.encode("utf-8"))
    return path


def make_project(
    root: Path,
    tasks: list[dict[str, Any]],
    requirements: str | None = None,
    design: str | None = None,
    rules: dict[str, str] | None = None,
    feature: str = "feat",
    config: str | None = None,
) -> Path:
    """A minimal project: one feature with the given tasks, specs and rule files."""
    spec = f".gsd/specs/{feature}"
    write(root, f"{spec}/task-graph.json", json.dumps({"feature": feature, "tasks": tasks}))
    if requirements is not None:
        write(root, f"{spec}/requirements.md", requirements)
    if design is not None:
        write(root, f"{spec}/design.md", design)
    for rel, text in (rules or {}).items():
        write(root, f"{RULES}/{rel}", text)
    if config is not None:
        write(root, ".mahabharatha/config.yaml", config)
    return root
