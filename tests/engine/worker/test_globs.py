"""Path globs of Claude Code's ``paths:`` front matter."""

from __future__ import annotations

import pytest

from ctxviewer.engine.worker.globs import glob_match


@pytest.mark.parametrize(
    ("pattern", "path", "expected"),
    [
        ("src/**/*.py", "src/a.py", True),  # ** matches no folder at all
        ("src/**/*.py", "src/x/y/a.py", True),
        ("src/**/*.py", "lib/src/a.py", False),  # anchored at the start
        ("**/*.test.ts", "b.test.ts", True),
        ("**/*.test.ts", "a/b/c.test.ts", True),
        ("src/*.{ts,tsx}", "src/a.tsx", True),
        ("src/*.{ts,tsx}", "src/a.js", False),
        ("src/{api,web}/**", "src/web/a/b.ts", True),
        ("*.md", "docs/a.md", False),  # * stays in one segment
        ("docs/**", "docs/a/b.md", True),
        ("a/?.py", "a/b.py", True),
        ("a/?.py", "a/bc.py", False),
        ("a/[bc].py", "a/c.py", True),
        ("a/[!bc].py", "a/c.py", False),
        ("./src/*.py", "src/a.py", True),
        ("/src/*.py", "src/a.py", True),
        ("src/a+b(1).py", "src/a+b(1).py", True),  # regex characters are literal
        ("src/{a}.py", "src/{a}.py", True),  # a one-option group is literal text
    ],
)
def test_glob_match(pattern: str, path: str, expected: bool) -> None:
    assert glob_match(pattern, path) is expected
