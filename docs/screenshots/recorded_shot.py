"""Render docs/gui.md's Recorded screenshot: a run of the real zerg-ai 0.3.2 code beside its reproduction.

    QT_QPA_PLATFORM=offscreen python docs/screenshots/recorded_shot.py docs/screenshots [--theme dark]

A copy of ``sample_projects/ledger-service`` has its ``auth-sessions`` tasks run by three workers
through the real plugin (``tests/gui/window/recorded_run_driver.py`` in the oracle virtualenv
``~/.cache/ctxviewer-tests/zerg-ai-0.3.2``, which writes the logs, the state file and the token
records); then, after the records, a requirement on password hashing is edited.  ``recorded.png``
shows the Recorded tab, the first task that differs chosen.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from PySide6.QtCore import QSettings

from ctxviewer.engine.project.loading import load_project
from ctxviewer.gui.app import make_app, take_screenshot
from ctxviewer.gui.window import MainWindow

ROOT = Path(__file__).resolve().parents[2]
CACHE = Path(os.environ.get("CTXVIEWER_TEST_CACHE") or Path.home() / ".cache" / "ctxviewer-tests")
PYTHON = CACHE / "zerg-ai-0.3.2" / "bin" / "python"
DRIVER = ROOT / "tests/gui/window/recorded_run_driver.py"
FEATURE = "auth-sessions"


def write_run(root: Path) -> None:
    """The feature's tasks run by three workers in turn, through the real zerg-ai 0.3.2 code."""
    project = load_project(root, {"profile": "zerg-0.3.2"})
    tasks = [dict(task.raw) for feature, task in project.tasks() if feature.name == FEATURE]
    workers = {str(n + 1): tasks[n::3] for n in range(3)}
    job = {
        "root": str(root),
        "feature": FEATURE,
        "workers": workers,
        "budget": project.settings.budget,
        "security_rule_filtering": project.settings.security_rule_filtering,
    }
    done = subprocess.run(
        [str(PYTHON), str(DRIVER)], input=json.dumps(job), capture_output=True, text=True, timeout=300, check=False
    )
    if done.returncode:
        raise SystemExit(done.stderr[-2000:])


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("out", help="the folder to write recorded.png in")
    parser.add_argument("--theme", default="light")
    args = parser.parse_args()
    if not PYTHON.exists():
        sys.stderr.write(f"no zerg-ai 0.3.2 virtualenv at {PYTHON.parents[1]}\n")
        return 1
    make_app(args.theme)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "ledger-service"
        shutil.copytree(ROOT / "sample_projects/ledger-service", root, symlinks=True)
        write_run(root)
        spec = root / ".gsd/specs" / FEATURE / "requirements.md"
        text = spec.read_text()
        edited = text.replace(
            "Passwords shall be hashed with", "Passwords shall be hashed (and rehashed on login) with"
        )
        if edited == text:
            raise SystemExit(f"{spec}: the requirement to edit is not there")
        spec.write_text(edited)
        later = time.time() + 60
        os.utime(spec, (later, later))
        window = MainWindow(QSettings(str(Path(tmp) / "s.ini"), QSettings.Format.IniFormat))
        window.open_project(root, FEATURE, "AUTH-L1-001")
        window.tabs.show_tab("sections")
        window.resize(1280, 800)
        window.following.follow_run(root)
        session = window.docks.session
        session.pages.setCurrentWidget(session.recorded)
        error = take_screenshot(window, str(Path(args.out) / "recorded.png"))
        window.close()
    if error:
        sys.stderr.write(f"{error}\n")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
