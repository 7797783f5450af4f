"""``ctxviewer whatif``: a task under other settings against its baseline."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.helpers import run


def test_whatif_compares_two_settings(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(
        capsys, "whatif", str(project), "--feature", "feat", "--task", "T1",
        "--baseline-set", "top_k=2", "--set", "top_k=1", "--format", "json", "--no-exact",
    )  # fmt: skip
    assert code == 0 and err == ""
    data = json.loads(out)
    assert data["settings"] == [{"key": "top_k", "before": 2, "after": 1}]
    # 'Beta session store.' (requirements paragraph 2, rank 2) leaves with top_k 1.
    left = [c for c in data["items"] if c["change"] == "left"]
    assert [c["item_id"] for c in left] == ["requirements:2"]
    assert "-Beta session store." in data["context_diff"]
