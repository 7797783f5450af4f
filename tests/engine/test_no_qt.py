"""The engine and the CLI's engine paths must work without Qt installed."""

from __future__ import annotations

import subprocess
import sys

ENGINE_MODULES = [
    "ctxviewer.engine.atomic",
    "ctxviewer.engine.batch",
    "ctxviewer.engine.fsio",
    "ctxviewer.engine.keywords",
    "ctxviewer.engine.mahabharatha",
    "ctxviewer.engine.pipeline",
    "ctxviewer.engine.project",
    "ctxviewer.engine.rules",
    "ctxviewer.engine.settings",
    "ctxviewer.engine.spec",
    "ctxviewer.engine.splitter",
    "ctxviewer.engine.tokens",
    "ctxviewer.engine.trace",
    "ctxviewer.engine.tracker",
    "ctxviewer.cli",
]


def test_engine_imports_without_pyside6() -> None:
    code = (
        "import sys\n"
        "sys.modules['PySide6'] = None\n"  # any 'import PySide6' now raises ImportError
        + "".join(f"import {m}\n" for m in ENGINE_MODULES)
        + "assert not any(k.startswith('PySide6') and sys.modules[k] for k in sys.modules)\n"
        "print('ok')\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"
