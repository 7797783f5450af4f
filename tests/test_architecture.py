"""The import contracts in ``pyproject.toml`` hold, and they catch a deliberate violation.

``lint-imports`` (import-linter) builds the import graph of ``ctxviewer`` statically, lazy
imports inside functions included, and checks the contracts: the engine never imports Qt,
the GUI or the CLI; engine packages import only those below them; the GUI never uses the
CLI; widgets never reach up into views or the window; no module of the window imports one
that imports it back.  The violation tests break a copy of the package, so the real tree
is never touched.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sysconfig
import tomllib
from pathlib import Path

import pytest

from tests.conftest import REPO

CONFIG = REPO / "pyproject.toml"
CONTRACTS = {
    c["id"]: c["name"] for c in tomllib.loads(CONFIG.read_text(encoding="utf-8"))["tool"]["importlinter"]["contracts"]
}


def lint_imports(cwd: Path, extra_env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run this interpreter's ``lint-imports`` in *cwd* (where it finds ``pyproject.toml``)."""
    script = Path(sysconfig.get_path("scripts")) / ("lint-imports.exe" if os.name == "nt" else "lint-imports")
    assert script.is_file(), f"{script} is missing: install the test extra (pip install -e '.[test]')"
    env = {**os.environ, **(extra_env or {})}
    return subprocess.run(
        [str(script), "--no-cache", "--no-logo"],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def verdicts(output: str) -> dict[str, str]:
    """Each contract's name -> ``KEPT`` or ``BROKEN``, read from the summary lines."""
    found: dict[str, str] = {}
    for line in output.splitlines():
        for name in CONTRACTS.values():
            if line.startswith(name + " "):
                found[name] = line[len(name) + 1 :].split()[0]
    return found


def test_the_config_names_the_contracts_this_file_relies_on() -> None:
    assert set(CONTRACTS) == {
        "engine-qt-free",
        "engine-layers",
        "front-ends",
        "cli-starts-gui-only",
        "gui-layers",
        "window-acyclic",
    }


def test_every_contract_is_kept() -> None:
    result = lint_imports(REPO)
    assert result.returncode == 0, result.stdout + result.stderr
    assert verdicts(result.stdout) == dict.fromkeys(CONTRACTS.values(), "KEPT")


@pytest.fixture
def broken_copy(tmp_path: Path) -> Path:
    """A copy of the ``ctxviewer`` package and the config, for a test to break."""
    shutil.copytree(REPO / "ctxviewer", tmp_path / "ctxviewer", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(CONFIG, tmp_path / "pyproject.toml")
    return tmp_path


def add_line(module: Path, line: str) -> None:
    assert module.is_file(), module
    with module.open("a", encoding="utf-8") as f:  # a test's scratch copy, not a ctxviewer output
        f.write(f"\n{line}  # deliberate violation (tests/test_architecture.py)\n")


def check_copy(copy: Path) -> subprocess.CompletedProcess[str]:
    # PYTHONPATH and cwd both put the copy first, ahead of the installed ctxviewer.
    return lint_imports(copy, {"PYTHONPATH": str(copy)})


def only_broken(result: subprocess.CompletedProcess[str], *contract_ids: str) -> None:
    """Exactly the contracts *contract_ids* are broken, and the run says so by name."""
    assert result.returncode == 1, result.stdout + result.stderr
    expected = dict.fromkeys(CONTRACTS.values(), "KEPT")
    expected.update(dict.fromkeys((CONTRACTS[c] for c in contract_ids), "BROKEN"))
    assert verdicts(result.stdout) == expected, result.stdout
    assert f"{len(CONTRACTS) - len(contract_ids)} kept, {len(contract_ids)} broken" in result.stdout


def test_the_engine_importing_qt_breaks_the_qt_free_contract(broken_copy: Path) -> None:
    add_line(broken_copy / "ctxviewer" / "engine" / "trace" / "model.py", "import PySide6")
    result = check_copy(broken_copy)
    only_broken(result, "engine-qt-free")
    assert "ctxviewer.engine.trace.model -> PySide6" in result.stdout


def test_a_lazy_qt_import_inside_a_function_is_caught_too(broken_copy: Path) -> None:
    add_line(
        broken_copy / "ctxviewer" / "engine" / "tokens" / "counting.py",
        "def _show() -> None:\n    from PySide6.QtWidgets import QMessageBox",
    )
    result = check_copy(broken_copy)
    only_broken(result, "engine-qt-free")
    assert "ctxviewer.engine.tokens.counting -> PySide6" in result.stdout


def test_a_lower_engine_package_importing_a_higher_one_breaks_the_layers(broken_copy: Path) -> None:
    add_line(broken_copy / "ctxviewer" / "engine" / "files" / "reading.py", "import ctxviewer.engine.runs.pipeline")
    result = check_copy(broken_copy)
    only_broken(result, "engine-layers")
    assert "ctxviewer.engine.files is not allowed to import ctxviewer.engine.runs" in result.stdout
    assert "ctxviewer.engine.files.reading -> ctxviewer.engine.runs.pipeline" in result.stdout


def test_independent_siblings_may_not_import_each_other(broken_copy: Path) -> None:
    # exports and upstream share a layer as independent siblings ("upstream | exports").
    add_line(
        broken_copy / "ctxviewer" / "engine" / "exports" / "report.py", "from ctxviewer.engine.upstream import prompt"
    )
    result = check_copy(broken_copy)
    only_broken(result, "engine-layers")
    assert "ctxviewer.engine.exports.report -> ctxviewer.engine.upstream.prompt" in result.stdout


def test_a_new_engine_package_must_be_given_its_layer(broken_copy: Path) -> None:
    package = broken_copy / "ctxviewer" / "engine" / "readers"
    package.mkdir()
    (package / "__init__.py").write_text('"""Readers of real run files."""\n', encoding="utf-8")
    result = check_copy(broken_copy)
    assert result.returncode == 1, result.stdout + result.stderr
    assert verdicts(result.stdout)[CONTRACTS["engine-layers"]] == "BROKEN"
    assert "ctxviewer.engine.readers" in result.stdout


def test_a_widget_importing_a_view_breaks_the_gui_layers(broken_copy: Path) -> None:
    add_line(broken_copy / "ctxviewer" / "gui" / "widgets" / "charts.py", "from ctxviewer.gui.views import budget")
    result = check_copy(broken_copy)
    only_broken(result, "gui-layers")
    assert "ctxviewer.gui.widgets.charts -> ctxviewer.gui.views.budget" in result.stdout


def test_a_window_part_importing_the_window_breaks_the_acyclic_contract(broken_copy: Path) -> None:
    # Under TYPE_CHECKING too: a type-only import back is still a cycle between the modules.
    menus = broken_copy / "ctxviewer" / "gui" / "window" / "menus.py"
    add_line(menus, "from typing import TYPE_CHECKING")
    add_line(menus, "if TYPE_CHECKING:\n    from ctxviewer.gui.window.main import MainWindow")
    result = check_copy(broken_copy)
    only_broken(result, "window-acyclic")
    assert ".menus -> .main" in result.stdout


def test_the_gui_using_the_cli_breaks_the_front_ends_contract(broken_copy: Path) -> None:
    add_line(broken_copy / "ctxviewer" / "gui" / "widgets" / "tables.py", "from ctxviewer.cli import main")
    result = check_copy(broken_copy)
    # The CLI imports gui.app, which opens the window: through the CLI the widget now
    # reaches the app too, so the GUI's own layers break as well.
    only_broken(result, "front-ends", "gui-layers")
    assert "ctxviewer.gui.widgets.tables -> ctxviewer.cli" in result.stdout


def test_the_cli_reaching_past_the_gui_start_up_breaks_its_contract(broken_copy: Path) -> None:
    cli = broken_copy / "ctxviewer" / "cli.py"
    if not cli.exists():  # the CLI as a package
        cli = broken_copy / "ctxviewer" / "cli" / "__init__.py"
    add_line(cli, "import ctxviewer.gui.window")
    result = check_copy(broken_copy)
    only_broken(result, "cli-starts-gui-only")
    assert "ctxviewer.cli -> ctxviewer.gui.window" in result.stdout
