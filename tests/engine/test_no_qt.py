"""The engine and the CLI's engine paths must work without Qt installed."""

from __future__ import annotations

import pkgutil
import subprocess
import sys

import ctxviewer.cli
import ctxviewer.engine

#: Every module of the engine and the CLI packages (found, not listed, so a new one is covered too).
ENGINE_MODULES = [
    *(m.name for m in pkgutil.walk_packages(ctxviewer.engine.__path__, "ctxviewer.engine.")),
    "ctxviewer.cli",
    *(m.name for m in pkgutil.walk_packages(ctxviewer.cli.__path__, "ctxviewer.cli.")),
]


def test_the_module_list_is_complete() -> None:
    expected = {
        "ctxviewer.engine.runs.pipeline",
        "ctxviewer.engine.runtime.eventlog",
        "ctxviewer.engine.signals.words",
        "ctxviewer.cli.common",
        "ctxviewer.cli.gui",
    }
    assert expected <= set(ENGINE_MODULES)


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
