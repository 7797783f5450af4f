"""Safe writes from the GUI: screenshots, exports and saved settings keep the old file.

Rules under test (``ctxviewer.engine.files.writing`` as the GUI uses it): when the write fails
the file already there is byte-identical afterwards, no temporary file is left, and the
window (or ``ctxviewer gui --screenshot``) says why in one line.  The export runs on the
export lane (off the GUI thread) and is followed through ``exportFinished``.  A
``ctxviewer.yaml`` changed on disk since the project was loaded is not overwritten.

Failures are injected into ``os.replace`` for one target path only, so nothing else the
window does (it writes nothing else) can trip over them.
"""

from __future__ import annotations

import errno
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtGui import QImage

from ctxviewer.cli import main
from ctxviewer.engine.exports import report
from ctxviewer.gui.window import MainWindow
from tests.gui.conftest import LEDGER, open_and_wait

FEATURE, TASK = "auth-sessions", "AUTH-L1-001"
ENOSPC = "No space left on device"


def names(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def fail_renames_onto(monkeypatch: pytest.MonkeyPatch, target: Path) -> list[str]:
    """``os.replace`` onto *target* fails with ENOSPC (any thread); returns the attempts."""
    real = os.replace
    attempts: list[str] = []

    def replace(src: Any, dst: Any, *args: Any, **kwargs: Any) -> None:
        if Path(os.fspath(dst)).resolve() == target.resolve():
            attempts.append(os.fspath(src))
            raise OSError(errno.ENOSPC, ENOSPC)
        real(src, dst, *args, **kwargs)

    monkeypatch.setattr(os, "replace", replace)
    return attempts


# -- ctxviewer gui --screenshot -------------------------------------------------------------


def test_a_screenshot_that_cannot_be_written_keeps_the_old_one_and_exits_2(
    qtbot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "shots" / "window.png"
    out.parent.mkdir()
    out.write_bytes(b"\x89PNG yesterday's picture")
    attempts = fail_renames_onto(monkeypatch, out)
    code = main(["gui", str(LEDGER), "--feature", FEATURE, "--task", TASK, "--screenshot", str(out)])
    monkeypatch.undo()
    assert len(attempts) == 1 and Path(attempts[0]).parent == out.parent  # a temp file beside it
    # 2, not 1: the file at OUT is yesterday's, no picture of this run was written.
    assert code == 2
    assert capsys.readouterr().err == f"ctxviewer: {out}: could not be written ({ENOSPC}); the old file is intact\n"
    assert out.read_bytes() == b"\x89PNG yesterday's picture"
    assert names(out.parent) == ["window.png"]


def test_a_screenshot_over_an_old_one_replaces_it_whole(qtbot, tmp_path: Path) -> None:
    out = tmp_path / "window.png"
    out.write_bytes(b"old" * 100_000)  # longer than the new picture: nothing of it may remain
    out.chmod(0o640)
    assert main(["gui", str(LEDGER), "--feature", FEATURE, "--task", TASK, "--screenshot", str(out)]) == 0
    image = QImage(str(out))
    assert (image.width(), image.height()) == (1280, 800)
    assert out.stat().st_mode & 0o777 == 0o640
    assert names(tmp_path) == ["window.png"]


# -- the window's export action (on the export lane) --------------------------------------------


@pytest.mark.parametrize(("fmt", "name"), [("markdown", "ctx.md"), ("json", "trace.json"), ("html", "report.html")])
def test_a_failed_export_from_the_window_keeps_the_old_file(
    qtbot, window: MainWindow, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fmt: str, name: str
) -> None:
    trace = open_and_wait(qtbot, window, LEDGER, FEATURE, TASK)
    # The worker's prompt, which the HTML report carries, is composed a moment after the trace is shown.
    qtbot.waitUntil(lambda: window.tabs.prompt.prompt() is not None, timeout=30_000)
    folder = tmp_path / "out"
    folder.mkdir()
    target = folder / name
    target.write_bytes(b"the previous export\n")
    fail_renames_onto(monkeypatch, target)
    with qtbot.waitSignal(window.exportFinished, timeout=30_000) as blocker:
        window.exporter.export_shown(str(target), fmt)
    monkeypatch.undo()
    message = f"{target}: could not be written ({ENOSPC}); the old file is intact"
    assert blocker.args == [str(target), message]
    assert f"export failed: {message}" in window.problems.messages
    assert target.read_bytes() == b"the previous export\n"
    assert names(folder) == [name]
    # Once the disk has room again the same action writes the export whole.
    with qtbot.waitSignal(window.exportFinished, timeout=30_000) as blocker:
        window.exporter.export_shown(str(target), fmt)
    assert blocker.args == [str(target), ""]
    prompt = window.tabs.prompt.prompt()  # the HTML report carries the Prompt tab's prompt
    assert prompt is not None
    assert target.read_bytes() == report.render(trace, fmt, prompt=prompt.to_json()).encode("utf-8")
    assert names(folder) == [name]


def test_an_export_onto_a_folder_is_refused_and_the_folder_left_alone(
    qtbot, window: MainWindow, tmp_path: Path
) -> None:
    open_and_wait(qtbot, window, LEDGER, FEATURE, TASK)
    target = tmp_path / "taken.md"
    target.mkdir()
    (target / "keep.txt").write_text("old", "utf-8")
    with qtbot.waitSignal(window.exportFinished, timeout=30_000) as blocker:
        window.exporter.export_shown(str(target), "markdown")
    assert blocker.args == [str(target), f"{target}: is a folder, not a file; nothing written"]
    assert names(target) == ["keep.txt"] and (target / "keep.txt").read_text("utf-8") == "old"


# -- saving tuned settings to ctxviewer.yaml ----------------------------------------------------

OURS = "# team settings\ntop_k: 5\n"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    target = tmp_path / "ledger"
    shutil.copytree(LEDGER, target)
    (target / "ctxviewer.yaml").write_text(OURS, encoding="utf-8")
    return target


def _tune_budget(qtbot, window: MainWindow, root: Path) -> None:
    open_and_wait(qtbot, window, root, FEATURE, TASK)
    with qtbot.waitSignal(window.traceShown, timeout=15_000):
        window.docks.budget.set_values({"budget": 2200})
    assert window.docks.budget.is_tuned()


def test_a_failed_settings_save_keeps_ctxviewer_yaml_and_the_tuning(
    qtbot, window: MainWindow, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _tune_budget(qtbot, window, root)
    target = root / "ctxviewer.yaml"
    fail_renames_onto(monkeypatch, target)
    with qtbot.assertNotEmitted(window.settingsSaved):
        window.tuner.save(confirm=False)
    monkeypatch.undo()
    assert target.read_text(encoding="utf-8") == OURS
    assert [n for n in names(root) if n.startswith(".ctxviewer.yaml")] == []
    (notice,) = [m for m in window.problems.messages if "settings not saved" in m]
    assert f"{target}: could not be written ({ENOSPC}); the old file is intact" in notice
    assert window.docks.budget.is_tuned()  # nothing the user chose is lost


def test_a_settings_save_refuses_a_ctxviewer_yaml_edited_since_it_was_loaded(
    qtbot, window: MainWindow, root: Path
) -> None:
    _tune_budget(qtbot, window, root)
    theirs = "# team settings\ntop_k: 6\nbudget:\n  total: 3000\n"
    (root / "ctxviewer.yaml").write_text(theirs, encoding="utf-8")
    # Saved before the window noticed the edit (it has not handled an event since).
    with qtbot.assertNotEmitted(window.settingsSaved):
        window.tuner.save(confirm=False)
    assert (root / "ctxviewer.yaml").read_text(encoding="utf-8") == theirs
    assert any(
        "settings not saved: ctxviewer.yaml: changed on disk since the project was loaded" in m
        for m in window.problems.messages
    )
    # The window then notices the edit and runs with their values.
    qtbot.waitUntil(lambda: window.project is not None and window.project.settings.top_k == 6, timeout=15_000)
    qtbot.waitUntil(lambda: not window.lanes.refresh.is_busy() and not window.lanes.run.is_busy(), timeout=15_000)
