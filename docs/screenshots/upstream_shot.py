"""Render docs/gui.md's pictures of the nine-section versions in the window, at 1280x800.

    QT_QPA_PLATFORM=offscreen python docs/screenshots/upstream_shot.py docs/screenshots

Both are of a copy of ledger-service given an engineering rule file under ``.zerg/rules``
(as a project run with zerg-ai 0.3.2 has), so ``upstream: auto`` detects 0.3.2, task
AUTH-L1-002.  ``budget_switches.png``: the Budget panel after *As the launcher* (the
five variables as zerg-ai's worker launcher sets them: compact mode on), the Sections tab
with the efficiency section it builds.  ``upstream_sections.png``: at a 1,500-token
budget with depth ``think`` and TDD on as well, the Computed tab's candidates of the nine
sections with the first engineering rule the 600-character limit left out selected, and
under them where the limits fell and compact mode's replacements.  Both need the
panel's buttons or a row selected, which ``--screenshot`` does not do.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

from PySide6.QtCore import QSettings

from ctxviewer.engine.files.writing import atomic_write
from ctxviewer.gui.app import make_app, take_screenshot
from ctxviewer.gui.window import MainWindow

ROOT = Path(__file__).resolve().parents[2]
ENGINEERING_RULES = """\
name: python-standards
rules:
  - id: PY-001
    title: Type-hint every public function
    description: Public functions and methods carry full type hints; mypy --strict passes.
    priority: critical
    applies_to: ["*.py"]
  - id: PY-002
    title: No bare except
    description: Catch the narrowest exception; never swallow errors silently.
    priority: important
    applies_to: "*.py"
  - id: PY-003
    title: Money is Decimal, never float
    description: Amounts are Decimal with an explicit currency; round only at the edge.
    priority: critical
    applies_to: ["*.py", "*.pyi"]
  - id: PY-004
    title: Docstrings say why, not what
    priority: recommended
    applies_to: "*.py"
  - id: TS-001
    title: Strict TypeScript
    priority: important
    applies_to: ["*.ts", "*.tsx"]
  - id: PY-005
    title: Log with structured fields
    description: Use the service logger with key=value fields, never print(); no secrets in logs.
    priority: recommended
    applies_to: "*.py"
  - id: PY-006
    title: Tests beside the code
    description: Each module has a test module under tests/ covering its error paths and edge cases.
    priority: recommended
    applies_to: ["*.py"]
"""


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("folder", help="where budget_switches.png and upstream_sections.png go")
    parser.add_argument("--theme", default="light")
    args = parser.parse_args()
    make_app(args.theme)
    out = Path(args.folder)
    errors: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "ledger-service"
        shutil.copytree(ROOT / "sample_projects/ledger-service", root)
        (root / ".zerg/rules").mkdir(parents=True)
        atomic_write(root / ".zerg/rules/python.yaml", ENGINEERING_RULES)
        window = MainWindow(QSettings(str(Path(tmp) / "s.ini"), QSettings.Format.IniFormat))
        window.open_project(root, "auth-sessions", "AUTH-L1-002")
        errors.append(take_screenshot(window, str(out / "budget_switches.png")))  # settles the first run
        window.docks.budget.switches.launcher.click()
        window.docks.budget.flush()
        window.tabs.show_tab("sections")
        errors.append(take_screenshot(window, str(out / "budget_switches.png")))
        window.docks.budget.set_values({"budget": 1500, "analysis_depth": "think", "tdd_mode": "1"})
        window.docks.budget.flush()
        errors.append(take_screenshot(window, str(out / "upstream_sections.png")))  # the new run
        window.tabs.show_tab("computed")
        window.tabs.computed.entries.select(lambda i: i.kind == "engineering_rule" and i.status == "cut_for_budget")
        errors.append(take_screenshot(window, str(out / "upstream_sections.png")))
        window.close()
    failed = [e for e in errors if e]
    for error in failed:
        sys.stderr.write(f"{error}\n")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
