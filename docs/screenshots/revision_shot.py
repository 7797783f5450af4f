"""Render docs/gui.md's revision diff screenshot: storefront-web in a throwaway git repository.

    QT_QPA_PLATFORM=offscreen python docs/screenshots/revision_shot.py docs/screenshots

The sample is copied into a temporary folder and committed; a second commit rewrites
requirement CART-REQ-070 (line 88) to be about the HTTP client's idempotency header and
cuts the JavaScript security rule file to its first 40 lines.  The Compare Revisions
dialog then diffs task CHK-L1-001 between the two commits: the rewritten requirement
enters and pushes the lowest-ranked one out; the shorter rule file now fits.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from PySide6.QtCore import QSettings

from ctxviewer.gui.app import make_app
from ctxviewer.gui.window import MainWindow

ROOT = Path(__file__).resolve().parents[2]
REQ = ".gsd/specs/cart-checkout/requirements.md"
JS = ".claude/rules/security/languages/javascript/CLAUDE.md"
NEW_070 = (
    "CART-REQ-070: The HTTP client sends an idempotency header with every payment-action request "
    "and surfaces a typed error when the provider asks for another step."
)


def git(root: Path, *args: str) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull)
    who = ["-c", "user.name=Docs", "-c", "user.email=docs@example.com"]
    subprocess.run(["git", "-C", str(root), *who, *args], env=env, check=True, capture_output=True)


def make_repo(root: Path) -> None:
    shutil.copytree(ROOT / "sample_projects/storefront-web", root)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "Storefront cart and checkout specs")
    lines = (root / REQ).read_text(encoding="utf-8").split("\n")
    assert lines[87].startswith("CART-REQ-070")
    lines[87] = NEW_070
    (root / REQ).write_text("\n".join(lines), encoding="utf-8")
    rule = (root / JS).read_text(encoding="utf-8").split("\n")
    (root / JS).write_text("\n".join(rule[:40]) + "\n", encoding="utf-8")
    git(root, "commit", "-q", "-a", "-m", "CART-REQ-070 is about the HTTP client; shorter JavaScript rules")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("folder", help="where revision-diff.png goes")
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
        window.revisions.show()
        dialog = window.revisions.dialog
        assert dialog is not None
        while dialog.rev_a.count() < 2:
            app.processEvents()
        dialog.rev_a.setCurrentIndex(1)  # the first commit
        dialog.rev_b.setCurrentIndex(1)  # the second
        done: list[object] = []
        dialog.diffShown.connect(done.append)
        dialog.compare()
        while not done:
            app.processEvents()
        dialog.resize(1180, 520)
        dialog.table.view.setCurrentIndex(dialog.table.proxy.index(0, 0))
        for _ in range(20):
            app.processEvents()
        ok = dialog.grab().save(str(Path(args.folder) / "revision-diff.png"))
        dialog.close()
        window.close()
        window.lanes.pool.waitForDone(10_000)
    if not ok:
        sys.stderr.write("could not save the screenshot\n")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
