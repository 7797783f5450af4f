"""Render the Feature Sweep window at 1280x800: storefront-web, every feature, budgets 500-6,000.

    QT_QPA_PLATFORM=offscreen python docs/screenshots/sweep_shot.py docs/screenshots

The sweep runs on its lane as in the window (Run > Feature Sweep); the picture is taken once
the heatmap is shown, with one cell marked as a click marks it (CHK-L2-003 at 2,000).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from PySide6.QtCore import QBuffer, QEventLoop, QIODevice, QTimer
from PySide6.QtWidgets import QApplication, QWidget

from ctxviewer.engine.files.writing import atomic_write
from ctxviewer.engine.project.loading import load_project
from ctxviewer.gui.app import make_app
from ctxviewer.gui.views.sweep_view import SweepDialog
from ctxviewer.gui.worker import Lane, make_pool

ROOT = Path(__file__).resolve().parents[2]


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
    parser.add_argument("folder", help="where sweep.png goes")
    parser.add_argument("--theme", default="light")
    args = parser.parse_args()
    make_app(args.theme)
    pool = make_pool(1)
    lane = Lane(pool, "sweep")
    dialog = SweepDialog(lane)
    dialog.resize(1280, 800)
    dialog.show()
    view = dialog.view
    project = load_project(ROOT / "sample_projects/storefront-web")
    view.set_target(project, None, project.settings)
    view.budgets.setText("500:6000:250")
    loop = QEventLoop()
    view.sweepShown.connect(loop.quit)
    QTimer.singleShot(60_000, loop.quit)
    view.run()
    loop.exec()
    sweep = view.sweep
    if sweep is None:
        raise SystemExit("the sweep did not finish")
    row = next(n for n, t in enumerate(sweep.tasks) if t.task == "CHK-L2-003")
    view.heatmap.mark((row, sweep.budgets.index(2000)))
    _save(dialog, Path(args.folder) / "sweep.png")
    pool.waitForDone(10_000)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
