"""The projects the command-line tests run on."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.helpers import CORE, TASK
from tests.factories import make_project, write


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """Feature ``feat``: T1 (whose context is CONTEXT_T1) and T2 ("Other work": an empty context)."""
    return make_project(
        tmp_path / "proj",
        [TASK, {"id": "T2", "title": "Other work", "files": {}}],
        requirements="Alpha login flow.\n\nBeta session store.",
        design="Login screen design.",
        rules={"_core/owasp-2025.md": CORE},
    )


@pytest.fixture
def three_features(project: Path) -> Path:
    """*project* and a second feature, ``billing`` (B-001), and a folder with a spec but no task graph."""
    write(
        project,
        ".gsd/specs/billing/task-graph.json",
        json.dumps({"feature": "billing", "tasks": [{"id": "B-001", "title": "Invoice totals", "files": {}}]}),
    )
    write(project, ".gsd/specs/billing/requirements.md", "Invoice totals are integers.")
    write(project, ".gsd/specs/notes/requirements.md", "Nothing to do yet.")
    return project
