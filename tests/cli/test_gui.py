"""``ctxviewer gui``: bad arguments and a missing display are one line and exit 2, before any window."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ctxviewer.cli import gui as cli_gui
from ctxviewer.cli import main
from tests.conftest import OFFSCREEN
from tests.factories import make_project

REPO = Path(__file__).resolve().parents[2]
LEDGER = REPO / "sample_projects" / "ledger-service"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_project(
        tmp_path / "proj",
        [{"id": "T1", "title": "Login", "files": {}}, {"id": "T2", "title": "Logout", "files": {}}],
        requirements="Login.",
    )


@pytest.fixture
def no_window(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Make opening the window fail the test: bad arguments must be refused before."""
    import ctxviewer.gui.app as app

    opened: list[str] = []
    monkeypatch.setattr(app, "run_gui", lambda args: opened.append(str(args.project)) or 0)
    return opened


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["{root}/nope"], "{root}/nope: no such folder"),
        (["{root}", "--feature", "nope"], "{root}: no feature 'nope' in .gsd/specs; the only feature is feat"),
        (
            ["{root}", "--feature", "feat", "--task", "T9"],
            ".gsd/specs/feat/task-graph.json: no task 'T9' in feature 'feat'; "
            "none of the 2 tasks is close (ctxviewer list names them)",
        ),
        (
            ["{root}", "--task", "T9"],
            "{root}: no task 'T9' in any feature of proj; none of the 2 tasks is close (ctxviewer list names them)",
        ),
        (
            ["{root}/.gsd"],
            "{root}/.gsd: not a project: no specs folder .gsd/specs, where a project keeps its "
            "features (paths.specs in ctxviewer.yaml names another)",
        ),
        (["{root}", "--set", "budget=0"], "command line: budget: must be between 1 and 10,000,000, not 0"),
        (["{root}", "--set", "top_kk=3"], "command line: top_kk: unknown setting; did you mean top_k?"),
        (["{root}", "--budget", "4kk"], "--budget: must be a whole number of tokens (4000, 4,000 or 4k), not '4kk'"),
        (["{root}", "--profile", "drfit"], "--profile: 'drfit' is not a profile; did you mean drift?"),
        (
            ["--set", "budget=lots"],
            "command line: budget: must be a whole number of tokens (4000, 4,000 or 4k), not 'lots'",
        ),
        (["--screenshot", "{root}/out.png"], "--screenshot needs a PROJECT folder"),
        (["{root}", "--screenshot", "-"], "--screenshot needs a file name for the PNG (a file named - is ./-)"),
        (
            ["{root}", "--follow", "{root}/.gsd"],
            "{root}/.gsd: no worker logs (logs/workers/worker-<id>.jsonl), state files (state/<feature>.json) "
            "or token records (state/tokens-<worker>.json) found under .mahabharatha/ or .zerg/",
        ),
    ],
)
def test_bad_gui_arguments_are_one_line_and_exit_2_before_a_window(
    project: Path,
    no_window: list[str],
    capsys: pytest.CaptureFixture[str],
    argv: list[str],
    message: str,
) -> None:
    root = str(project)
    code = main(["gui", *(a.format(root=root) for a in argv)])
    out, err = capsys.readouterr()
    assert (code, out, no_window) == (2, "", [])
    assert err == f"ctxviewer: {message.format(root=root)}\n"


def test_good_gui_arguments_reach_the_window(
    project: Path, no_window: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("QT_QPA_PLATFORM", OFFSCREEN)
    assert main(["gui", str(project), "--task", "T2", "--budget", "2k"]) == 0
    assert no_window == [str(project)]


def test_gui_ids_are_matched_as_every_command_matches_them(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import ctxviewer.gui.app as app

    monkeypatch.setenv("QT_QPA_PLATFORM", OFFSCREEN)
    given: list[tuple[str | None, str | None]] = []
    monkeypatch.setattr(app, "run_gui", lambda args: given.append((args.feature, args.task)) or 0)
    assert main(["gui", str(project), "--feature", "FEAT", "--task", "t2"]) == 0
    assert main(["gui", str(project), "--task", "t1"]) == 0
    # The window is given the ids as the task graph writes them.
    assert given == [("feat", "T2"), (None, "T1")]


# -- is there a screen? -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("env", "why"),
    [
        ({}, "DISPLAY is not set"),
        ({"DISPLAY": "  "}, "DISPLAY is not set"),
        ({"QT_QPA_PLATFORM": "xcb"}, "DISPLAY is not set and QT_QPA_PLATFORM is xcb"),
        ({"QT_QPA_PLATFORM": "xcb", "WAYLAND_DISPLAY": "wayland-0"}, "DISPLAY is not set and QT_QPA_PLATFORM is xcb"),
        # the cases where there may be a screen: Qt decides (and a failure is caught then)
        ({"DISPLAY": ":0"}, None),
        ({"DISPLAY": ":99", "QT_QPA_PLATFORM": "xcb"}, None),
        ({"WAYLAND_DISPLAY": "wayland-0"}, None),
        ({"XDG_SESSION_TYPE": "wayland"}, None),
        ({"QT_QPA_PLATFORM": "wayland"}, None),  # Qt's Wayland client has a default socket
        ({"QT_QPA_PLATFORM": "wayland;xcb"}, None),
        ({"QT_QPA_PLATFORM": "offscreen"}, None),
        ({"QT_QPA_PLATFORM": "minimal"}, None),
        ({"QT_QPA_PLATFORM": "vnc:size=1280x800"}, None),
        ({"QT_QPA_PLATFORM": "xcb;offscreen"}, None),
    ],
)
def test_no_display_only_when_it_is_certain(
    monkeypatch: pytest.MonkeyPatch, env: dict[str, str], why: str | None
) -> None:
    monkeypatch.setattr(sys, "platform", "linux")
    for name in ("QT_QPA_PLATFORM", "DISPLAY", "WAYLAND_DISPLAY", "XDG_SESSION_TYPE"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert cli_gui._no_display() == why


@pytest.mark.parametrize("platform", ["darwin", "win32"])
def test_other_systems_are_left_to_qt(monkeypatch: pytest.MonkeyPatch, platform: str) -> None:
    monkeypatch.setattr(sys, "platform", platform)
    for name in ("QT_QPA_PLATFORM", "DISPLAY", "WAYLAND_DISPLAY", "XDG_SESSION_TYPE"):
        monkeypatch.delenv(name, raising=False)
    assert cli_gui._no_display() is None


@pytest.mark.parametrize(
    ("soname", "package"),
    [
        ("libxcb-icccm.so.4", "libxcb-icccm4"),
        ("libxcb-cursor.so.0", "libxcb-cursor0"),
        ("libxkbcommon-x11.so.0", "libxkbcommon-x11-0"),
        ("libEGL.so.1", "libegl1"),
        ("libX11.so.6", "libx11-6"),
        ("libxcb-render-util.so.0", "libxcb-render-util0"),
    ],
)
def test_debian_package_of_a_library(soname: str, package: str) -> None:
    assert cli_gui._debian_package(soname) == package


#: What Qt 6.11 says when DISPLAY names no X server (the xcb-cursor0 line is always added).
QT_NO_SERVER = [
    "could not connect to display :99",
    "From 6.5.0, xcb-cursor0 or libxcb-cursor0 is needed to load the Qt xcb platform plugin.",
    'Could not load the Qt platform plugin "xcb" in "" even though it was found.',
    "This application failed to start because no Qt platform plugin could be initialized. "
    "Reinstalling the application may fix this problem.\n\nAvailable platform plugins are: minimal, offscreen, xcb.",
]


def test_qt_failure_without_an_x_server_names_the_display() -> None:
    assert cli_gui._qt_failure_line(QT_NO_SERVER) == (
        "cannot connect to the display ':99' (DISPLAY): is an X server running there, and may this user use it? "
        "Or save a picture of the window instead: QT_QPA_PLATFORM=offscreen ctxviewer gui PROJECT --screenshot out.png"
    )


def test_qt_failure_of_the_xcb_plugin_names_the_missing_libraries(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cli_gui, "_missing_libraries", lambda: ["libxcb-icccm.so.4", "libxcb-keysyms.so.1"])
    assert cli_gui._qt_failure_line(QT_NO_SERVER[1:]) == (
        "Qt cannot load its X11 (xcb) platform plugin: it lacks libxcb-icccm.so.4, libxcb-keysyms.so.1: install them "
        "(Debian/Ubuntu: apt-get install libxcb-icccm4 libxcb-keysyms1), or save a picture of the window instead: "
        "QT_QPA_PLATFORM=offscreen ctxviewer gui PROJECT --screenshot out.png"
    )
    # nothing the loader can name: the README's list
    monkeypatch.setattr(cli_gui, "_missing_libraries", lambda: [])
    assert cli_gui._qt_failure_line(QT_NO_SERVER[1:]).startswith(
        "Qt cannot load its X11 (xcb) platform plugin: install the libraries it needs (Debian/Ubuntu: apt-get "
        "install libegl1 libxkbcommon-x11-0 libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1), or save a picture"
    )


def test_qt_failure_of_another_platform_quotes_qt() -> None:
    said = ['Could not load the Qt platform plugin "wayland" in "" even though it was found.', "failed to start"]
    assert cli_gui._qt_failure_line(said) == (
        'Qt cannot start a window (Could not load the Qt platform plugin "wayland" in "" even though it was found.): '
        "check QT_QPA_PLATFORM and the display, or save a picture of the window instead: "
        "QT_QPA_PLATFORM=offscreen ctxviewer gui PROJECT --screenshot out.png"
    )


def test_missing_libraries_asks_the_loader() -> None:
    assert cli_gui._missing_libraries(["libc.so.6", "libctxviewer-surely-not-there.so.7"]) == [
        "libctxviewer-surely-not-there.so.7"
    ]


# -- the real thing, in a stripped environment --------------------------------------------------------


def stripped(tmp_path: Path, **env: str) -> dict[str, str]:
    """An environment with no display, no Qt settings and a fresh home: what a bare machine has."""
    base = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(tmp_path), "LANG": "C.UTF-8"}
    return {**base, **env}


def gui(tmp_path: Path, *argv: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ctxviewer", "gui", *argv],
        env=stripped(tmp_path, **env),
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="X11/Wayland display detection")
def test_readme_first_command_without_a_display_is_one_line_and_exit_2(tmp_path: Path) -> None:
    done = gui(tmp_path, str(LEDGER))
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith("ctxviewer: no display to open the window on (DISPLAY is not set): ")
    assert done.stderr.endswith("QT_QPA_PLATFORM=offscreen ctxviewer gui PROJECT --screenshot out.png\n")
    assert done.stderr.count("\n") == 1


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="X11 display")
def test_a_display_without_an_x_server_is_one_line_and_exit_2(tmp_path: Path) -> None:
    # No X server listens on display 7319 (no socket /tmp/.X11-unix/X7319); on a machine without
    # Qt's xcb libraries the plugin fails to load first, which is said instead.
    assert not Path("/tmp/.X11-unix/X7319").exists()
    done = gui(tmp_path, str(LEDGER), DISPLAY=":7319")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith(
        ("ctxviewer: cannot connect to the display ':7319'", "ctxviewer: Qt cannot load its X11 (xcb) platform plugin")
    )
    assert done.stderr.count("\n") == 1 and "Aborted" not in done.stderr


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Wayland")
def test_wayland_without_a_compositor_is_one_line_and_exit_2(tmp_path: Path) -> None:
    done = gui(
        tmp_path,
        str(LEDGER),
        QT_QPA_PLATFORM="wayland",
        WAYLAND_DISPLAY="ctxviewer-none",
        XDG_RUNTIME_DIR=str(tmp_path),
    )
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith("ctxviewer: ") and done.stderr.count("\n") == 1


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="X11/Wayland display detection")
def test_a_screenshot_needs_no_display(tmp_path: Path) -> None:
    out = tmp_path / "shot.png"
    done = gui(tmp_path, str(LEDGER), "--screenshot", str(out))
    assert done.returncode == 0, done.stderr
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("platform", ["offscreen", "minimal"])
def test_platforms_without_a_display_still_start(tmp_path: Path, platform: str) -> None:
    out = tmp_path / "shot.png"
    done = gui(tmp_path, str(LEDGER), "--screenshot", str(out), QT_QPA_PLATFORM=platform)
    assert done.returncode == 0, done.stderr
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
