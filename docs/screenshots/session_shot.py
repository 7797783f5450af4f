"""Render docs/gui.md's Session screenshot: a replay paused mid-run (step 6 of 8).

    QT_QPA_PLATFORM=offscreen python docs/screenshots/session_shot.py docs/screenshots/session.png [--theme dark]

The other screenshots are made with ``ctxviewer gui ... --screenshot``; this one needs
the replay stepped, which the command line does not do.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from PySide6.QtCore import QEventLoop, QSettings, QTimer

from ctxviewer.gui.app import make_app, take_screenshot
from ctxviewer.gui.window import MainWindow

ROOT = Path(__file__).resolve().parents[2]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--theme", default="light")
    parser.add_argument("--step", type=int, default=6)
    args = parser.parse_args()
    make_app(args.theme)
    with tempfile.TemporaryDirectory() as tmp:
        window = MainWindow(QSettings(str(Path(tmp) / "s.ini"), QSettings.Format.IniFormat))
        window.open_project(
            ROOT / "sample_projects/ledger-service",
            "auth-sessions",
            "AUTH-L2-003",
            tune={"max_context_tokens": 18_000, "zones": {"compaction": 75}},
        )
        window.tabs.show_tab("sections")
        window.docks.session_dock.raise_()
        error = take_screenshot(window, args.out)  # settles everything first
        for _ in range(args.step):
            window.docks.session.player.step()
        loop = QEventLoop()
        QTimer.singleShot(400, loop.quit)  # let the gauge's 250 ms animation finish
        loop.exec()
        error = error or take_screenshot(window, args.out)
        window.close()
    if error:
        sys.stderr.write(f"{error}\n")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
