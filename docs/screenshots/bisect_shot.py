"""Render docs/bisect.md's Find the Commit screenshot: storefront-web in a throwaway git repository.

    QT_QPA_PLATFORM=offscreen python docs/screenshots/bisect_shot.py docs/screenshots

The sample is copied into a temporary folder and committed, then six more commits follow:
a README edit (touches nothing task CHK-L1-001 reads), a rewrite of requirement
CART-REQ-070 (it enters the context and pushes the lowest-ranked paragraph out), an
acceptance step reworded that stays outranked (an input touched, the context the same),
the JavaScript security rule file cut to its first 40 lines (it now fits), a second README edit, and the
rewrite undone.  Find the Commit then searches the whole range for CHK-L1-001.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from PySide6.QtCore import QSettings
from revision_shot import JS, NEW_070, REQ, git

from ctxviewer.gui.app import make_app
from ctxviewer.gui.window import MainWindow

ROOT = Path(__file__).resolve().parents[2]


def _edit(root: Path, rel: str, line: int, text: str) -> None:
    lines = (root / rel).read_text(encoding="utf-8").split("\n")
    lines[line] = text
    (root / rel).write_text("\n".join(lines), encoding="utf-8")


def make_repo(root: Path) -> None:
    import shutil

    shutil.copytree(ROOT / "sample_projects/storefront-web", root)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "Storefront cart and checkout specs")
    (root / "README.md").write_text("# Storefront\n\nThe web shop's cart and checkout.\n", encoding="utf-8")
    git(root, "add", "README.md")
    git(root, "commit", "-q", "-m", "A README for the storefront")
    original = (root / REQ).read_text(encoding="utf-8").split("\n")[87]
    _edit(root, REQ, 87, NEW_070)
    git(root, "commit", "-q", "-a", "-m", "CART-REQ-070 is about the HTTP client")
    lines = (root / REQ).read_text(encoding="utf-8").split("\n")
    assert lines[95].startswith("1. Add three products")  # outranked for CHK-L1-001
    _edit(root, REQ, 95, lines[95] + " Checked by hand.")
    git(root, "commit", "-q", "-a", "-m", "Acceptance: checked by hand")
    rule = (root / JS).read_text(encoding="utf-8").split("\n")
    (root / JS).write_text("\n".join(rule[:40]) + "\n", encoding="utf-8")
    git(root, "commit", "-q", "-a", "-m", "Shorter JavaScript rules")
    with (root / "README.md").open("a", encoding="utf-8") as f:
        f.write("\nRun the checks before a release.\n")
    git(root, "commit", "-q", "-a", "-m", "README: releases")
    _edit(root, REQ, 87, original)
    git(root, "commit", "-q", "-a", "-m", "Back to the original CART-REQ-070")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("folder", help="where bisect.png goes")
    parser.add_argument("--theme", default="light")
    args = parser.parse_args()
    app = make_app(args.theme)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "storefront-web"
        make_repo(root)
        window = MainWindow(QSettings(str(Path(tmp) / "s.ini"), QSettings.Format.IniFormat))
        window.resize(1280, 800)
        seen: list[object] = []
        window.traceShown.connect(seen.append)
        window.open_project(root, "cart-checkout", "CHK-L1-001")
        while not seen:
            app.processEvents()
        window.revisions.show_bisect()
        dialog = window.revisions.bisect_dialog
        assert dialog is not None
        while dialog.rev_a.count() < 7:
            app.processEvents()
        done: list[object] = []
        dialog.bisectionShown.connect(done.append)
        dialog.start()
        while not done:
            app.processEvents()
        dialog.resize(1180, 560)
        dialog.table.view.setCurrentIndex(dialog.table.proxy.index(0, 0))
        for _ in range(20):
            app.processEvents()
        ok = dialog.grab().save(str(Path(args.folder) / "bisect.png"))
        dialog.close()
        window.close()
        window.lanes.pool.waitForDone(10_000)
    if not ok:
        sys.stderr.write("could not save the screenshot\n")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
