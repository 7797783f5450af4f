"""What the command-line tests share: running ``main`` in-process, and the facts of the test project."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctxviewer.cli import main

SAMPLES = Path(__file__).resolve().parents[2] / "sample_projects"
STOREFRONT = SAMPLES / "storefront-web"
#: ``why`` on the storefront's first cart-checkout task (TEXT follows).
CHK = ["why", str(STOREFRONT), "--feature", "cart-checkout", "--task", "CHK-L1-001"]

TASK = {"id": "T1", "title": "Login session", "files": {"create": ["src/app.py"], "read": []}}
CORE = "## Rule: A\n**Level**: strict\n"
#: T1's context: the core rule, both requirement paragraphs (each holds 'login' or 'session'),
#: the design paragraph ('login') -- test_assemble_markdown_is_exactly_the_context spells it out.
CONTEXT_T1 = (
    "## Security Rules (task-scoped)\n\n### _core/owasp-2025.md\n## Rule: A\n**Level**: strict"
    "\n\n## Relevant Requirements\n\nAlpha login flow.\n\nBeta session store."
    "\n\n## Relevant Design\n\nLogin screen design."
)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def assemble_json(capsys: pytest.CaptureFixture[str], root: Path, feature: str, task: str, *more: str) -> dict:
    code, out, _ = run(capsys, "assemble", str(root), "--feature", feature, "--task", task, "--format", "json", *more)
    assert code == 0
    data: dict = json.loads(out)
    return data
