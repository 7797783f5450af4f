"""Render the Worker prompt view and the Budget panel's upstream version control, alone.

    QT_QPA_PLATFORM=offscreen python docs/screenshots/prompt_shot.py docs/screenshots

``prompt_view.png`` (900x700): the prompt upstream's worker receives for ledger-service's
AUTH-L1-003 (no design-time context, so the feature's spec stands in), its files part
marked.  ``budget_version.png`` (360x640, the dock's width): the Budget panel on a
copy of storefront-web given an engineering rule file under ``.zerg/rules``, as a
project run with zerg-ai 0.3.2 has, so ``upstream: auto`` detects 0.3.2 and the figures
are its nine sections'.  Both views take plain values, so no window is opened.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
from pathlib import Path

from PySide6.QtCore import QBuffer, QIODevice
from PySide6.QtWidgets import QApplication, QWidget

from ctxviewer.engine.files.writing import atomic_write
from ctxviewer.engine.project.loading import load_project
from ctxviewer.engine.runs.pipeline import assemble
from ctxviewer.engine.upstream.prompt import build_prompt
from ctxviewer.gui.app import make_app
from ctxviewer.gui.views.budget import BudgetPanel
from ctxviewer.gui.views.prompt_view import PromptView

ROOT = Path(__file__).resolve().parents[2]
ENGINEERING_RULES = """\
rules:
  - id: typed-errors
    title: Return typed errors from API handlers
    priority: critical
    applies_to: ["*.ts"]
  - id: small-modules
    title: Keep modules under 300 lines
    priority: recommended
"""


def _save(widget: QWidget, path: Path) -> None:
    """The widget as a PNG, encoded in memory and written atomically (as ``--screenshot`` writes)."""
    QApplication.processEvents()
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    if not widget.grab().toImage().save(buffer, "PNG"):  # type: ignore[call-overload]
        raise SystemExit(f"could not encode {path.name}")
    atomic_write(path, bytes(buffer.data().data()))


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("folder", help="where prompt_view.png and budget_version.png go")
    parser.add_argument("--theme", default="light")
    args = parser.parse_args()
    make_app(args.theme)
    out = Path(args.folder)

    project = load_project(ROOT / "sample_projects/ledger-service")
    feature = project.feature("auth-sessions")
    view = PromptView()
    view.resize(900, 700)
    view.show()
    view.show_prompt(build_prompt(project, feature, feature.task("AUTH-L1-003")))
    view.show_part("files")
    _save(view, out / "prompt_view.png")

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "storefront-web"
        shutil.copytree(ROOT / "sample_projects/storefront-web", root)
        (root / ".zerg/rules").mkdir(parents=True)
        atomic_write(root / ".zerg/rules/quality.yaml", ENGINEERING_RULES)
        shop = load_project(root)
        panel = BudgetPanel()
        panel.resize(360, 640)
        panel.show()
        panel.set_base(shop.settings)
        panel.show_trace(assemble(shop, "cart-checkout", "CHK-L1-001"))
        _save(panel, out / "budget_version.png")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
