"""Builders for small projects on disk and for trace items, used by engine, CLI and GUI tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ctxviewer.engine.tokens.counting import TokenCounts
from ctxviewer.engine.trace.model import Item

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


# -- a project whose budgets are worked by hand (tests/engine/runs/test_compare.py) ------------------

#: One core rule whose block is "### _core/owasp-2025.md\n" (24 chars) + the rule line
#: "## Rule: " + 1,500 x's (1,509 chars; its trailing newline is not kept) = 1,533 chars.
COMPARE_CORE = "## Rule: " + "x" * 1500 + "\n"
#: Two requirement paragraphs of 600 chars: P1 holds 'login' and 'session' (score 2 for a
#: task titled "Login session"), P2 only 'login' (score 1).  The filler holds no keyword.
COMPARE_P1 = "Login session " + "z" * 586
COMPARE_P2 = "Login " + "z" * 594
COMPARE_TASKS = [
    {"id": "T1", "title": "Login session", "files": {"create": ["src/app.py"]}},
    {"id": "T2", "title": "Session", "files": {}},
]


def make_compare_project(root: Path) -> Path:
    """Feature ``feat``: T1 (hand-worked in tests/engine/runs/test_compare.py) and T2 (no files:
    no security section; only P1 mentions 'session')."""
    return make_project(
        root,
        COMPARE_TASKS,
        requirements=f"{COMPARE_P1}\n\n{COMPARE_P2}",
        design="",
        rules={"_core/owasp-2025.md": COMPARE_CORE},
    )


def make_item(**fields: Any) -> Item:
    """A one-character included spec paragraph (id ``p``, line 1 of requirements.md);
    *fields* override any of its fields."""
    base: dict[str, Any] = {
        "id": "p",
        "kind": "spec_paragraph",
        "section": "spec_excerpts",
        "part": "requirements",
        "source": ".gsd/specs/f/requirements.md",
        "line_start": 1,
        "line_end": 1,
        "score": 1,
        "matched_keywords": (),
        "rank": 1,
        "status": "included",
        "reason": "",
        "text": "x",
        "kept_chars": 1,
        "tokens": TokenCounts(chars=1, heuristic=0),
    }
    return Item(**{**base, **fields})
