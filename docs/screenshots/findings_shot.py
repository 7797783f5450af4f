"""Render docs/gui.md's Rules, Paragraphs and Findings screenshots of the storefront sample.

    QT_QPA_PLATFORM=offscreen python docs/screenshots/findings_shot.py docs/screenshots

Task CHK-L1-001 modifies src/lib/http.ts, so the JavaScript security rule file matches it
and is cut for budget at the default settings: the Rules tab shows that file selected,
the Findings tab the whole feature's findings (the cut in every task) once the
background pass is done, and the Paragraphs tab the best-ranked paragraph explained.
These need a row selected or the pass finished, which ``--screenshot`` does not do.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from PySide6.QtCore import QSettings

from ctxviewer.gui.app import make_app, take_screenshot
from ctxviewer.gui.window import MainWindow

ROOT = Path(__file__).resolve().parents[2]
JS_RULE = "rule:languages/javascript/CLAUDE.md"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("folder", help="where rules.png, paragraphs.png and findings.png go")
    parser.add_argument("--theme", default="light")
    args = parser.parse_args()
    make_app(args.theme)
    out = Path(args.folder)
    errors: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        window = MainWindow(QSettings(str(Path(tmp) / "s.ini"), QSettings.Format.IniFormat))
        window.open_project(ROOT / "sample_projects/storefront-web", "cart-checkout", "CHK-L1-001")
        errors.append(take_screenshot(window, str(out / "paragraphs.png")))  # settles the pass too
        window.tabs.show_tab("paragraphs")
        window.tabs.paragraphs.select(lambda i: i.rank == 1)
        errors.append(take_screenshot(window, str(out / "paragraphs.png")))
        window.tabs.show_tab("rules")
        window.tabs.rules.select(lambda i: i.id == JS_RULE)
        errors.append(take_screenshot(window, str(out / "rules.png")))
        window.findings.show(feature=True)
        window.tabs.findings.table.select(lambda r: r.code == "rule-cut")
        errors.append(take_screenshot(window, str(out / "findings.png")))
        window.close()
    failed = [e for e in errors if e]
    for error in failed:
        sys.stderr.write(f"{error}\n")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
