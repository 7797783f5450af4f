"""Starting the GUI: the application object, the window, and screenshot mode."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import socket
import sys
import tempfile
from pathlib import Path
from typing import Any

from PySide6.QtCore import (
    QBuffer,
    QEventLoop,
    QIODevice,
    QMessageLogContext,
    QSettings,
    QSocketNotifier,
    Qt,
    QTimer,
    QtMsgType,
    qInstallMessageHandler,
)
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication

from ctxviewer import __version__
from ctxviewer.engine.errors import WriteError
from ctxviewer.engine.files.writing import Signature, atomic_write, file_signature
from ctxviewer.gui.resources import app_icon, style_sheet
from ctxviewer.gui.window import MainWindow

SCREENSHOT_SIZE = (1280, 800)
#: Seconds a thread may hold the interpreter lock while another waits for it.  Python's
#: default had every Python call of the GUI thread (each slot, each cell a view asks for) wait
#: that long while the background pass ran; a shorter one keeps the window responsive and the
#: pass no slower (bench/README.md#figures-behind-the-windows-design).
SWITCH_INTERVAL_S = 0.001
#: How long screenshot mode waits for the pipeline (and the batch pass) at most.
SCREENSHOT_TIMEOUT_MS = 120_000

_SCHEMES = {
    "light": Qt.ColorScheme.Light,
    "dark": Qt.ColorScheme.Dark,
    "system": Qt.ColorScheme.Unknown,
}


def _quiet_offscreen_noise(mode: QtMsgType, context: QMessageLogContext, message: str) -> None:
    # The offscreen platform warns that it cannot propagate size hints; that is expected
    # in screenshot mode and says nothing to the user.  Everything else goes to stderr.
    if "propagateSizeHints" in message:
        return
    sys.stderr.write(message + "\n")


def make_app(theme: str = "system") -> QApplication:
    """The QApplication (created once), styled to follow the system's light/dark scheme."""
    sys.setswitchinterval(SWITCH_INTERVAL_S)
    app = QApplication.instance()
    if not isinstance(app, QApplication):
        app = QApplication(sys.argv[:1])
    app.setApplicationName("ctxviewer")
    app.setOrganizationName("ctxviewer")
    app.setApplicationVersion(__version__)
    app.setWindowIcon(app_icon())
    # Fusion draws the same on every platform and follows the colour scheme hint.
    app.setStyle("Fusion")
    scheme = _SCHEMES.get(theme, Qt.ColorScheme.Unknown)
    app.styleHints().setColorScheme(scheme)
    # Platforms without a colour-scheme service (offscreen, some X11 desktops) ignore the
    # hint, so an explicit choice also sets the matching palette.
    if scheme == Qt.ColorScheme.Dark:
        app.setPalette(dark_palette())
    elif scheme == Qt.ColorScheme.Light:
        app.setPalette(app.style().standardPalette())
    app.setStyleSheet(style_sheet())
    return app


def dark_palette() -> QPalette:
    """A dark palette for Fusion (used when dark is asked for explicitly)."""
    pal = QPalette()
    roles = {
        QPalette.ColorRole.Window: "#202124",
        QPalette.ColorRole.WindowText: "#e8eaed",
        QPalette.ColorRole.Base: "#17181a",
        QPalette.ColorRole.AlternateBase: "#25272a",
        QPalette.ColorRole.ToolTipBase: "#2d2f33",
        QPalette.ColorRole.ToolTipText: "#e8eaed",
        QPalette.ColorRole.PlaceholderText: "#9aa0a6",
        QPalette.ColorRole.Text: "#e8eaed",
        QPalette.ColorRole.Button: "#2b2d30",
        QPalette.ColorRole.ButtonText: "#e8eaed",
        QPalette.ColorRole.BrightText: "#ff8a80",
        QPalette.ColorRole.Light: "#3c4043",
        QPalette.ColorRole.Midlight: "#323438",
        QPalette.ColorRole.Mid: "#5f6368",
        QPalette.ColorRole.Dark: "#111214",
        QPalette.ColorRole.Shadow: "#000000",
        QPalette.ColorRole.Highlight: "#3d6fb6",
        QPalette.ColorRole.HighlightedText: "#ffffff",
        QPalette.ColorRole.Link: "#8ab4f8",
    }
    for role, colour in roles.items():
        pal.setColor(role, QColor(colour))
    for role in (QPalette.ColorRole.Text, QPalette.ColorRole.WindowText, QPalette.ColorRole.ButtonText):
        pal.setColor(QPalette.ColorGroup.Disabled, role, QColor("#80868b"))
    return pal


def _wait(window: MainWindow, timeout_ms: int) -> str:
    """Spin the event loop until the pipeline finished (or failed); returns an error or ''."""
    loop = QEventLoop()
    outcome = {"error": ""}

    def fail(message: str) -> None:
        outcome["error"] = message
        loop.quit()

    def check() -> None:
        if window.is_settled():
            loop.quit()

    # Several lanes and debounce timers finish in any order: look after each event that
    # may be the last, and on a short tick as a backstop.
    window.traceShown.connect(lambda _t: check())
    window.batchFinished.connect(check)
    window.replayShown.connect(lambda _r: check())
    ticker = QTimer(window)
    ticker.setInterval(50)
    ticker.timeout.connect(check)
    ticker.start()
    window.lanes.load.errored.connect(lambda m: fail(f"could not open the project: {m}"))
    window.lanes.run.errored.connect(fail)
    window.lanes.batch.errored.connect(lambda _m: check())

    def loaded(project: Any) -> None:
        if any(f.tasks for f in project.features):
            return
        # Say why, as the window's banner does (the first feature that could not be read).
        why = next((f"{f.name}: {f.graph_error}" for f in project.features if f.graph_error is not None), "")
        fail("the project has no task to show" + (f": {why}" if why else ""))

    window.projectLoaded.connect(loaded)
    QTimer.singleShot(timeout_ms, lambda: fail(f"timed out after {timeout_ms // 1000} s"))
    loop.exec()
    ticker.stop()
    return outcome["error"]


def take_screenshot(window: MainWindow, out: str, timeout_ms: int = SCREENSHOT_TIMEOUT_MS) -> str:
    """Wait for the run, render the window at 1280x800 and save it; returns an error or ''.

    The PNG is encoded in memory and written with :func:`atomic_write`, so a failed
    write leaves an older screenshot at *out* as it was.
    """
    window.resize(*SCREENSHOT_SIZE)
    window.show()
    error = _wait(window, timeout_ms)
    if error and window.trace is None and not window.problems.messages:
        return error
    QApplication.processEvents()
    image = window.grab().toImage()
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    # The stub says bytes for the format; PySide6 6.11 wants str at run time.
    if not image.save(buffer, "PNG"):  # type: ignore[call-overload]
        return "could not encode the screenshot as PNG"
    try:
        atomic_write(out, bytes(buffer.data().data()))
    except WriteError as exc:
        return str(exc)
    return error


def _show_tabs(window: MainWindow, args: argparse.Namespace) -> None:
    """The first tab (``--tab``; the Compare tab when only ``--profiles`` is given) and the compared sides."""
    profiles = getattr(args, "profiles", None)
    if profiles:
        window.tabs.compare.set_spec(profiles)
    tab = args.tab or ("compare" if profiles else None)
    if tab:
        window.tabs.show_tab(tab)
    panel = getattr(args, "panel", None)
    if panel:
        window.docks.show_panel(panel)


def _tune(args: argparse.Namespace) -> dict[str, Any]:
    return dict(getattr(args, "set", None) or [])


#: Set to a file path, a launch writes there where it placed the window (docs/gui.md).
LAYOUT_REPORT_ENV = "CTXVIEWER_LAYOUT_REPORT"
REPORT_DELAY_MS = 500


def close_on_signals(window: MainWindow) -> None:
    """SIGTERM and SIGINT (Ctrl+C in its terminal) close the window as File > Quit does: its
    layout is kept and its workers stop.  (Python sees a signal only when it runs; the signal's
    byte on a socket wakes Qt's event loop for it.)"""
    reader, writer = socket.socketpair()
    reader.setblocking(False)
    writer.setblocking(False)
    try:
        signal.set_wakeup_fd(writer.fileno())
        for number in (signal.SIGTERM, signal.SIGINT):
            signal.signal(number, lambda _number, _frame: None)
    except (ValueError, OSError):  # not the main thread, or a platform without it
        reader.close()
        writer.close()
        return
    notifier = QSocketNotifier(reader.fileno(), QSocketNotifier.Type.Read, window)

    def on_signal() -> None:
        with contextlib.suppress(OSError):
            reader.recv(64)
        window.close()

    notifier.activated.connect(on_signal)

    def release() -> None:
        signal.set_wakeup_fd(-1)
        reader.close()
        writer.close()

    window.destroyed.connect(release)


def run_gui(args: argparse.Namespace) -> int:
    """``ctxviewer gui``: open the window (or take a screenshot and exit)."""
    app = make_app(getattr(args, "theme", None) or "system")
    if args.screenshot:
        previous = qInstallMessageHandler(_quiet_offscreen_noise)
        try:
            return _screenshot(args)
        finally:
            qInstallMessageHandler(previous)
    window = MainWindow()
    close_on_signals(window)
    report = os.environ.get(LAYOUT_REPORT_ENV)
    if report:  # once a window manager has framed it
        window.placement.placed.connect(
            lambda: QTimer.singleShot(REPORT_DELAY_MS, lambda: _report_layout(window, report))
        )
    window.show()
    _show_tabs(window, args)
    if args.project and Path(args.project).is_dir():
        window.open_project(args.project, args.feature, args.task, tune=_tune(args), compare=args.compare)
    elif args.project:
        window.problems.show_messages([f"{args.project}: not a folder"], [])
    else:
        # The last project, unless its last open never finished (it may crash the window again).
        window.opening.reopen_last(args.feature, args.task, tune=_tune(args), compare=args.compare)
    if getattr(args, "follow", None):
        window.following.follow_log(args.follow)
    return int(app.exec())


def _report_layout(window: MainWindow, path: str) -> None:
    """Write where the window was placed, as JSON, for checking a live launch from outside."""
    frame, docks = window.frameGeometry(), window.docks
    layout = {
        "frame": [frame.x(), frame.y(), frame.width(), frame.height()],
        "maximised": window.isMaximized(),
        "project_width": docks.outline_dock.width() if docks.outline_dock.isVisible() else 0,
        "panels_width": docks.budget_dock.width() if docks.budget_dock.isVisible() else 0,
    }
    try:
        atomic_write(path, json.dumps(layout).encode())
    except WriteError as exc:
        sys.stderr.write(f"ctxviewer: {exc}\n")


def _screenshot(args: argparse.Namespace) -> int:
    if not args.project:
        sys.stderr.write("ctxviewer: --screenshot needs a PROJECT folder\n")
        return 2
    before = _signature(args.screenshot)
    # Screenshots must not depend on (or change) the user's saved window state.
    with tempfile.TemporaryDirectory(prefix="ctxviewer-shot-") as tmp:
        settings = QSettings(str(Path(tmp) / "settings.ini"), QSettings.Format.IniFormat)
        window = MainWindow(settings)
        _show_tabs(window, args)
        window.open_project(args.project, args.feature, args.task, tune=_tune(args), compare=args.compare)
        if getattr(args, "follow", None):
            window.following.follow_log(args.follow)
        error = take_screenshot(window, args.screenshot)
        window.close()
        settings.sync()
    if error:
        from ctxviewer.engine.exports.terminal import (
            visible,  # the line may quote project names: no raw control characters
        )

        sys.stderr.write(f"ctxviewer: {visible(error)}\n")
        # 1: the picture was taken (of a run that reported an error); 2: none was written
        # -- an older file at the same path, left as it was, does not count.
        after = _signature(args.screenshot)
        return 1 if after is not None and after != before else 2
    return 0


def _signature(path: str) -> Signature | None:
    try:
        return file_signature(path)
    except WriteError:
        return None
