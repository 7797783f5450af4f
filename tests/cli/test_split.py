"""``ctxviewer split``: the preview, and ``--apply`` writing the split files."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.helpers import run
from tests.factories import write


def test_split_preview_and_apply(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "c"
    body = "# Title\n" + "".join(f"## Part {i}\n" + "text\n" * 29 for i in range(11))
    write(root, ".claude/commands/sub/big.md", body)
    write(root, ".claude/commands/small.md", "# small\nline\n")
    write(root, ".gsd/specs/.keep", "")
    code, out, _ = run(capsys, "split", str(root), "--no-exact")
    assert code == 0
    assert "SPLIT .claude/commands/sub/big.md: 332 lines" in out
    assert "keep  .claude/commands/small.md: 3 lines" in out
    assert not (root / ".claude/commands/sub/big.core.md").exists()
    code, out, _ = run(capsys, "split", str(root), "--apply", "--no-exact")
    assert code == 0
    assert (root / ".claude/commands/sub/big.core.md").exists()
    assert (root / ".claude/commands/sub/big.details.md").exists()
