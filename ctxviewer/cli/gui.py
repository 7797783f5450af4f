"""The ``gui`` command (also what ``ctxviewer`` with no command runs): every argument checked before a
window opens, and a one-line answer when there is no display or Qt cannot start -- then the window
(``ctxviewer.gui``, imported only here, so the other commands need no Qt).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping, Sequence
from typing import Any

from ctxviewer.cli.common import (
    EXIT_BAD_INPUT,
    STDOUT,
    Subparsers,
    add_budget,
    add_feature,
    add_profile,
    add_project,
    add_set,
    add_task,
    err,
    exits,
    open_project,
    run_overrides,
)
from ctxviewer.engine.errors import CtxViewerError
from ctxviewer.engine.exports.terminal import one_line

#: The window's tabs (``ctxviewer.gui.window.TABS``; repeated here so the CLI needs no Qt).
GUI_TABS = (
    "sections",
    "paragraphs",
    "rules",
    "computed",
    "trimming",
    "context",
    "whatif",
    "compare",
    "task",
    "findings",
    "prompt",
    "memory",
)


def _check_gui_target(args: argparse.Namespace, tune: Mapping[str, Any]) -> None:
    """Refuse a bad project, feature, task or setting before a window opens (raises CtxViewerError)."""
    from ctxviewer.engine.errors import UnknownTaskError
    from ctxviewer.engine.project.ids import match_id, no_match
    from ctxviewer.engine.project.settings import Settings, apply_flat

    if args.screenshot and not args.project:
        raise CtxViewerError("--screenshot needs a PROJECT folder")
    if args.screenshot == STDOUT:  # -o - means standard output; a picture is not written there
        raise CtxViewerError("--screenshot needs a file name for the PNG (a file named - is ./-)")
    if args.follow and os.path.isdir(args.follow):
        from ctxviewer.engine.runfiles.rundir import discover_run

        discover_run(args.follow)  # a folder without a run's files in it is refused here, not in the window
    if not args.project:  # the window reopens the last project: only the values can be checked here
        if tune:
            apply_flat(Settings(), tune, "command line", check=False)
        return
    project = open_project(args.project, dict(tune))
    # The window is given the ids as the project writes them (--task task-010 opens TASK-010).
    if args.feature:
        feature = project.feature(args.feature)
        args.feature = feature.name
        if args.task and feature.graph_error is None:
            args.task = feature.task(args.task).id
    elif args.task:
        ids = list(dict.fromkeys(t.id for f in project.features for t in f.tasks))
        found = match_id(args.task, ids)
        if found is None:
            where = f"in any feature of {project.name}"
            raise UnknownTaskError(no_match(args.task, ids, "task", where), str(project.root))
        args.task = found


#: The way out when there is no screen: Qt's offscreen platform draws the window into a picture.
_SCREEN_HINT = (
    "or save a picture of the window instead: QT_QPA_PLATFORM=offscreen ctxviewer gui PROJECT --screenshot out.png"
)
#: The system libraries Qt's X11 plugin needs that a bare Linux lacks (as the README lists them).
XCB_PACKAGES = "libegl1 libxkbcommon-x11-0 libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1"


def _qt_platforms() -> list[str]:
    """The platforms ``QT_QPA_PLATFORM`` names, in order (``wayland;xcb``, ``offscreen:fontengine=...``)."""
    value = os.environ.get("QT_QPA_PLATFORM", "")
    return [part.split(":", 1)[0].strip().lower() for part in value.split(";") if part.strip()]


def _no_display() -> str | None:
    """Why Qt surely has no screen for a window here, or None when it may have one (then Qt decides).

    Only the certain case is judged: on an X11/Wayland system, Qt's platform is X11 (named
    or by default) and neither ``DISPLAY`` nor a Wayland session is set.  Any other platform
    (offscreen, minimal, wayland with its default socket, ...) is left to Qt.
    """
    if not sys.platform.startswith(("linux", "freebsd", "openbsd", "netbsd", "dragonfly", "sunos")):
        return None
    platforms = _qt_platforms()
    if any(p != "xcb" for p in platforms) or os.environ.get("DISPLAY", "").strip():
        return None
    wayland = os.environ.get("WAYLAND_DISPLAY", "").strip() or os.environ.get("XDG_SESSION_TYPE", "") == "wayland"
    if not platforms and wayland:
        return None
    return "DISPLAY is not set" + (" and QT_QPA_PLATFORM is xcb" if platforms else "")


#: The system libraries Qt's X11 plugin loads (beyond what Qt's own GUI module already needed).
XCB_LIBRARIES = (
    "libxcb.so.1",
    "libX11.so.6",
    "libX11-xcb.so.1",
    "libxcb-cursor.so.0",
    "libxcb-icccm.so.4",
    "libxcb-image.so.0",
    "libxcb-keysyms.so.1",
    "libxcb-randr.so.0",
    "libxcb-render.so.0",
    "libxcb-render-util.so.0",
    "libxcb-shape.so.0",
    "libxcb-shm.so.0",
    "libxcb-sync.so.1",
    "libxcb-util.so.1",
    "libxcb-xfixes.so.0",
    "libxcb-xkb.so.1",
    "libxkbcommon.so.0",
    "libxkbcommon-x11.so.0",
    "libEGL.so.1",
)


def _missing_libraries(names: Sequence[str] = XCB_LIBRARIES) -> list[str]:
    """The libraries of *names* the dynamic loader cannot find (asked as Qt's plugin would ask it)."""
    import ctypes

    missing = []
    for name in names:
        try:
            ctypes.CDLL(name)
        except OSError:
            missing.append(name)
    return missing


def _debian_package(soname: str) -> str:
    """The Debian/Ubuntu package a library usually comes in (``libxcb-icccm.so.4`` -> ``libxcb-icccm4``)."""
    name, _, version = soname.partition(".so.")
    name = name.lower()
    return name + ("-" if name[-1:].isdigit() else "") + version.split(".")[0]


def _libraries_advice(missing: Sequence[str]) -> str:
    if not missing:
        return f"install the libraries it needs (Debian/Ubuntu: apt-get install {XCB_PACKAGES})"
    packages = " ".join(_debian_package(m) for m in missing)
    return f"it lacks {', '.join(missing)}: install them (Debian/Ubuntu: apt-get install {packages})"


def _no_display_line(why: str) -> str:
    missing = _missing_libraries()
    libraries = f"; Qt's X11 plugin also {_libraries_advice(missing).replace('it lacks', 'lacks')}" if missing else ""
    return f"no display to open the window on ({why}): run it in a desktop session{libraries}, {_SCREEN_HINT}"


def _qt_failure_line(said: Sequence[str]) -> str:
    """One line for the user from what Qt said as it failed to start its platform."""
    import re

    lines = [line.strip() for message in said for line in message.splitlines() if line.strip()]
    for line in lines:
        found = re.search(r"could not connect to display\s*(\S*)", line)
        if found:
            display = found.group(1) or os.environ.get("DISPLAY", "")
            return (
                f"cannot connect to the display {display!r} (DISPLAY): is an X server running there, "
                f"and may this user use it? {_SCREEN_HINT[0].upper()}{_SCREEN_HINT[1:]}"
            )
    if any('platform plugin "xcb"' in line or "xcb-cursor0" in line for line in lines):
        advice = _libraries_advice(_missing_libraries())
        return f"Qt cannot load its X11 (xcb) platform plugin: {advice}, {_SCREEN_HINT}"
    why = next(
        (line for line in lines if "plugin" in line.lower() or "display" in line.lower()), lines[-1] if lines else ""
    )
    return f"Qt cannot start a window ({one_line(why)}): check QT_QPA_PLATFORM and the display, {_SCREEN_HINT}"


def cmd_gui(args: argparse.Namespace) -> int:
    from ctxviewer.engine.runs.compare import parse_sides

    if args.profiles:
        parse_sides(args.profiles)  # a malformed spec is bad input here; values are checked in the tab
    tune = run_overrides(args)
    _check_gui_target(args, tune)  # every bad argument is one line and exit 2, before any window
    for key in ("profile", "budget"):  # the window takes --profile and --budget as more --set
        if key in tune:
            args.set = [*(args.set or []), (key, tune[key])]
    why = _no_display()
    if why is not None:
        if not (args.screenshot and not _qt_platforms()):
            err(_no_display_line(why))
            return EXIT_BAD_INPUT
        os.environ["QT_QPA_PLATFORM"] = "offscreen"  # a screenshot needs no screen
    try:
        from ctxviewer.gui.app import run_gui
        from ctxviewer.gui.startup import create_application
    except ImportError as exc:
        err(f"the GUI is not available ({exc})")
        return EXIT_BAD_INPUT
    create_application(_qt_failure_line)
    return run_gui(args)


def add_parser(sub: Subparsers) -> None:
    """Add the ``gui`` command's parser to *sub*."""
    p = sub.add_parser(
        "gui",
        allow_abbrev=False,
        help="open the inspector window",
        description="Open the window on a project (without one, on the last project opened), showing the "
        "task chosen. Every argument is checked before a window opens; --screenshot saves a picture of the "
        "window instead and prints nothing. "
        + exits()
        + " No display, or a Qt that cannot start, is said in one line and exit 2.",
    )
    add_project(p, optional=True, help="the project folder (default: the last one opened)")
    add_feature(p, required=False, help="the feature to show (case ignored where only one fits)")
    add_task(
        p, required=False, help="the task to show, in --feature or in any feature (case ignored where only one fits)"
    )
    p.add_argument(
        "--tab",
        choices=GUI_TABS,
        help="the tab to show first",
    )
    p.add_argument(
        "--panel",
        choices=("budget", "tracker", "session", "window"),
        help="the right-hand panel to show first (window: the worker's whole context window)",
    )
    add_budget(p)
    add_profile(p)
    add_set(p)
    p.add_argument(
        "--profiles",
        metavar="A,B",
        help="the sides of the Compare tab, e.g. mahabharatha,mahabharatha:budget=1500",
    )
    p.add_argument(
        "--follow",
        metavar="PATH",
        help="show a real run in the Session panel (a project or run folder, a worker-<id>.jsonl log, a state "
        "file); any other file is followed as an event log of ctxviewer's own format",
    )
    p.add_argument(
        "--compare",
        action="store_true",
        help="pin the run with the project's own settings as the what-if baseline (then apply --set)",
    )
    p.add_argument(
        "--theme",
        choices=("system", "light", "dark"),
        default="system",
        help="colour scheme (default: follow the system)",
    )
    p.add_argument(
        "--screenshot",
        metavar="OUT.png",
        help="render the window at 1280x800 once the pipeline is done, save it, and exit",
    )
    p.set_defaults(func=cmd_gui)
