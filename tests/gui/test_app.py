"""Starting the GUI from the command line: screenshot mode, resources."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from PySide6.QtGui import QImage

from ctxviewer.cli import main
from ctxviewer.gui.app import SWITCH_INTERVAL_S, make_app
from ctxviewer.gui.resources import app_icon, icon_pixmaps, style_sheet
from tests.gui.conftest import EDGE, LEDGER


@pytest.mark.parametrize("tab", ["sections", "context"])
def test_screenshot_mode_saves_a_1280x800_png_and_exits_0(qtbot, tmp_path: Path, tab: str) -> None:
    out = tmp_path / f"{tab}.png"
    code = main(
        [
            "gui",
            str(LEDGER),
            "--feature",
            "auth-sessions",
            "--task",
            "AUTH-L1-002",
            "--tab",
            tab,
            "--screenshot",
            str(out),
        ]
    )
    assert code == 0
    image = QImage(str(out))
    assert (image.width(), image.height()) == (1280, 800)
    # Not a blank canvas: the window drew text and charts (many distinct colours).
    colours = {image.pixel(x, y) for x in range(0, 1280, 16) for y in range(0, 800, 16)}
    assert len(colours) > 20


def test_screenshot_without_feature_or_task_uses_the_first_task(qtbot, tmp_path: Path) -> None:
    out = tmp_path / "first.png"
    assert main(["gui", str(EDGE), "--screenshot", str(out)]) == 0
    assert QImage(str(out)).width() == 1280


def test_screenshot_of_a_missing_project_fails_with_a_message(qtbot, tmp_path: Path, capsys) -> None:
    out = tmp_path / "none.png"
    code = main(["gui", str(tmp_path / "nowhere"), "--screenshot", str(out)])
    # refused before a window is made, as every bad argument to gui
    assert code == 2 and not out.exists()
    assert capsys.readouterr().err == f"ctxviewer: {tmp_path / 'nowhere'}: no such folder\n"


def test_screenshot_into_a_missing_folder_says_why(qtbot, tmp_path: Path, capsys) -> None:
    code = main(["gui", str(LEDGER), "--screenshot", str(tmp_path / "no" / "dir" / "x.png")])
    assert code == 2
    assert "could not be written" in capsys.readouterr().err


def test_screenshot_of_a_project_without_a_readable_task_says_why(qtbot, tmp_path: Path, capsys) -> None:
    """A task graph holding a lone surrogate (\\ud800) leaves no task: the picture shows the banner
    (exit 1, as for any run that reported an error) and the one line on stderr names the reason
    the banner gives, not only "no task to show" -- with the feature folder's ESC shown escaped.

    The backslash of ``\\ud800`` is the 40th character of the graph's one line."""
    from tests.factories import write

    graph = '{"feature": "feat", "tasks": [{"id": "T\\ud800", "title": "x", "files": {}}]}'
    assert graph.index("\\") + 1 == 40
    write(tmp_path / "p", ".gsd/specs/f\x1b[2J/task-graph.json", graph)
    out = tmp_path / "shot.png"
    code = main(["gui", str(tmp_path / "p"), "--screenshot", str(out)])
    assert code == 1 and out.is_file()
    assert capsys.readouterr().err == (
        "ctxviewer: the project has no task to show: f\\x1b[2J: .gsd/specs/f\\x1b[2J/task-graph.json:1: "
        "invalid JSON: \\ud800 (column 40) is half of a UTF-16 surrogate pair, not a character\n"
    )


def test_icon_and_style_sheet_load_from_the_package(qapp) -> None:
    assert len(icon_pixmaps()) == 6
    assert not app_icon().isNull()
    assert "problemPanel" in style_sheet()


def test_screenshot_with_profiles_waits_for_the_comparison(qtbot, tmp_path: Path, monkeypatch) -> None:
    from ctxviewer.gui import app

    seen: dict[str, object] = {}
    real = app.take_screenshot

    def spy(window, out, timeout_ms=app.SCREENSHOT_TIMEOUT_MS):  # type: ignore[no-untyped-def]
        error = real(window, out, timeout_ms)
        seen.update(tab=window.tabs.current_tab(), diff=window.tabs.compare.diff())
        return error

    monkeypatch.setattr(app, "take_screenshot", spy)
    out = tmp_path / "compare.png"
    argv = ["gui", str(LEDGER), "--feature", "auth-sessions", "--task", "AUTH-L1-002"]
    assert main([*argv, "--profiles", "mahabharatha,mahabharatha:budget=1500", "--screenshot", str(out)]) == 0
    # --profiles alone opens the Compare tab, and the picture is taken once it shows the comparison.
    diff = seen["diff"]
    assert seen["tab"] == "compare" and diff is not None
    assert (diff.current.task_id, diff.baseline.budget, diff.current.budget) == ("AUTH-L1-002", 4000, 1500)  # type: ignore[attr-defined]
    assert QImage(str(out)).width() == 1280


def test_screenshot_with_a_profile_runs_the_task_with_it(qtbot, tmp_path: Path, monkeypatch) -> None:
    from ctxviewer.gui import app

    seen: dict[str, object] = {}
    real = app.take_screenshot

    def spy(window, out, timeout_ms=app.SCREENSHOT_TIMEOUT_MS):  # type: ignore[no-untyped-def]
        error = real(window, out, timeout_ms)
        seen.update(trace=window.trace)
        return error

    monkeypatch.setattr(app, "take_screenshot", spy)
    out = tmp_path / "drift.png"
    assert main(["gui", str(LEDGER), "--profile", "drift", "--screenshot", str(out)]) == 0
    trace = seen["trace"]
    assert trace is not None and trace.profile == "drift"  # type: ignore[attr-defined]
    assert trace.settings["profile"].origin == "gui"  # type: ignore[attr-defined]


def test_the_app_hands_the_interpreter_lock_round_in_a_millisecond(qapp, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    seen: list[float] = []
    monkeypatch.setattr(sys, "setswitchinterval", seen.append)  # what make_app asks for, nothing changed
    make_app("light")
    assert seen == [0.001] == [SWITCH_INTERVAL_S]
