"""Render docs/gui.md's sensitivity picture: the Docker rule file of storefront-web's CHK-L2-003.

    QT_QPA_PLATFORM=offscreen python docs/screenshots/sensitivity_shot.py docs/screenshots/sensitivity.png

Task CHK-L2-003 (a Docker dev proxy) matches the Docker security rule file, which is in the
context at some budgets and out at others: in at 670-1,443, out, in at 2,114-2,159, out,
in at 2,830-3,603, out, and in for good from 4,274.  At a budget of 4,000 it is out, so the
page names the smallest change (4,274) with its Apply button.  The Rules tab shows it
selected with its "What would get it in?" page once every axis is worked out (whole runs
for this profile today: seconds), which ``--screenshot`` does not wait for.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication

from ctxviewer.gui.app import make_app, take_screenshot
from ctxviewer.gui.window import MainWindow

ROOT = Path(__file__).resolve().parents[2]
DOCKER_RULE = "rule:containers/docker/CLAUDE.md"
#: How long the sensitivity may take before the picture is given up on.
TIMEOUT_S = 300


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("out", help="the PNG to write")
    parser.add_argument("--theme", default="light")
    args = parser.parse_args()
    make_app(args.theme)
    errors: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        window = MainWindow(QSettings(str(Path(tmp) / "s.ini"), QSettings.Format.IniFormat))
        window.open_project(
            ROOT / "sample_projects/storefront-web", "cart-checkout", "CHK-L2-003", tune={"budget": 4_000}
        )
        errors.append(take_screenshot(window, args.out))  # settles the run and the background pass
        window.tabs.show_tab("rules")
        pages = window.tabs.rules.detail_pages
        assert pages is not None
        pages.setCurrentWidget(window.tabs.sensitivity_views["rules"])
        height = window.tabs.rules.splitter.height()
        window.tabs.rules.splitter.setSizes([height * 40 // 100, height - height * 40 // 100])
        QApplication.processEvents()
        window.tabs.rules.select(lambda i: i.id == DOCKER_RULE)
        deadline = time.monotonic() + TIMEOUT_S
        while not window.sensitivity.is_done() and time.monotonic() < deadline:
            QApplication.processEvents()
            time.sleep(0.02)
        if not window.sensitivity.is_done():
            errors.append("the sensitivity was not worked out in time")
        errors.append(take_screenshot(window, args.out))
        window.close()
    failed = [e for e in errors if e]
    for error in failed:
        sys.stderr.write(f"{error}\n")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
