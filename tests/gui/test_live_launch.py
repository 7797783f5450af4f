"""The real ``ctxviewer gui`` on a real X display (Xvfb at 1280x800): how the first launch opens,
and that a second launch opens as the first was left.  Skipped where Xvfb is not installed."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

import pytest

from tests.conftest import REPO, SAMPLES

pytestmark = pytest.mark.skipif(shutil.which("Xvfb") is None, reason="Xvfb is not installed")

#: How long a launch may take to place its window on these shared machines.
LAUNCH_S = 90


def _wait_for(
    path: Path, process: subprocess.Popen[bytes], what: str, timeout: float = LAUNCH_S, said: Path | None = None
) -> None:
    """Wait for another process to make *path* (there is no signal across processes to wait on);
    a failure quotes what the process wrote to *said* (a display without Qt's X11 libraries, say)."""
    deadline = time.monotonic() + timeout
    while not path.exists():
        if process.poll() is not None:
            words = said.read_text(encoding="utf-8", errors="replace").strip() if said and said.exists() else ""
            pytest.fail(
                f"{what} exited with {process.returncode} before {path.name} appeared" + (f": {words}" if words else "")
            )
        if time.monotonic() > deadline:
            pytest.fail(f"{what}: no {path.name} after {timeout} s")
        time.sleep(0.1)


@pytest.fixture
def display(tmp_path: Path) -> Iterator[str]:
    """A private Xvfb display of 1280x800, without a window manager."""
    number = next(n for n in range(140, 400) if not Path(f"/tmp/.X{n}-lock").exists())
    server = subprocess.Popen(
        ["Xvfb", f":{number}", "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        _wait_for(Path(f"/tmp/.X11-unix/X{number}"), server, "Xvfb", 30)
        yield f":{number}"
    finally:
        server.terminate()
        server.wait(10)


def launch(display: str, config: Path, report: Path, log: BinaryIO) -> subprocess.Popen[bytes]:
    """``ctxviewer gui`` on the bundled sample, as a user starts it (its messages to *log*)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("QT_")}
    env.update(DISPLAY=display, XDG_CONFIG_HOME=str(config), CTXVIEWER_LAYOUT_REPORT=str(report))
    return subprocess.Popen(
        [sys.executable, "-m", "ctxviewer", "gui", str(SAMPLES / "ledger-service")],
        cwd=REPO,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=log,
    )


def placed(display: str, config: Path, report: Path) -> dict[str, object]:
    """Launch, read where the window was placed, then close it as a logout does (SIGTERM)."""
    with (report.parent / "gui.log").open("ab") as log:
        return _placed(launch(display, config, report, log), report)


def _placed(app: subprocess.Popen[bytes], report: Path) -> dict[str, object]:
    try:
        _wait_for(report, app, "ctxviewer gui", said=report.parent / "gui.log")
        layout = json.loads(report.read_text(encoding="utf-8"))
        app.send_signal(signal.SIGTERM)
        assert app.wait(LAUNCH_S) == 0
    finally:
        if app.poll() is None:
            app.kill()
            app.wait()
    report.unlink()
    assert isinstance(layout, dict)
    return layout


def test_the_first_launch_fills_the_screen_and_the_second_opens_as_it_was_left(display: str, tmp_path: Path) -> None:
    config, report = tmp_path / "config", tmp_path / "layout.json"
    first = placed(display, config, report)
    # The whole 1280x800 screen; the Project pane wide enough for ids and titles.
    assert first["frame"] == [0, 0, 1280, 800]
    assert isinstance(first["project_width"], int) and first["project_width"] >= 240
    assert (config / "ctxviewer" / "ctxviewer.conf").is_file()  # kept on SIGTERM
    second = placed(display, config, report)
    assert second == first
