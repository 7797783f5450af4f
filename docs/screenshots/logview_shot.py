"""Render docs/gui.md's Worker logs screenshot: a generated run's logs under the ledger sample, filtered.

    QT_QPA_PLATFORM=offscreen python docs/screenshots/logview_shot.py docs/screenshots/logview.png

A copy of ``sample_projects/ledger-service`` gets a run written by ``tests/runfactory.py``
(5 workers, feature ``auth-sessions``); the window opens it, shows the Worker logs panel and
filters it to worker 3's task events, with a ``task_failed`` row selected.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

from PySide6.QtCore import QEventLoop, QSettings, QTimer
from PySide6.QtWidgets import QAbstractItemView

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from ctxviewer.engine.runfiles.logstore import ANY_EVENT, LogFilter  # noqa: E402
from ctxviewer.gui.app import make_app, take_screenshot  # noqa: E402
from ctxviewer.gui.window import MainWindow  # noqa: E402
from tests.runfactory import write_run  # noqa: E402


def _wait(ms: int) -> None:
    loop = QEventLoop()
    QTimer.singleShot(ms, loop.quit)
    loop.exec()


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--theme", default="light")
    args = parser.parse_args()
    make_app(args.theme)
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp) / "ledger-service"
        shutil.copytree(ROOT / "sample_projects/ledger-service", project)
        write_run(project, feature="auth-sessions", lines=11_000)
        window = MainWindow(QSettings(str(Path(tmp) / "s.ini"), QSettings.Format.IniFormat))
        window.open_project(project, "auth-sessions", "AUTH-L1-001")
        error = take_screenshot(window, args.out)  # settles the run first
        window.docks.show_logs()
        logs = window.docks.logs
        while logs.is_busy() or "loaded" not in logs.timings:
            _wait(50)
        logs.set_filter(LogFilter(worker="3", event=ANY_EVENT))
        while logs.is_busy():
            _wait(50)
        failed = next(n for n in range(logs.model.rowCount()) if logs.model.row(n).event == "task_failed")
        logs.view.setCurrentIndex(logs.model.index(failed, 0))
        logs.view.scrollTo(logs.model.index(failed, 0), QAbstractItemView.ScrollHint.PositionAtCenter)
        _wait(200)
        error = error or take_screenshot(window, args.out)
        window.close()
    if error:
        sys.stderr.write(f"{error}\n")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
