"""Creating the QApplication so that a platform Qt cannot start is one line and exit 2.

Qt aborts the process (exit 134, several lines about plugins) when its platform plugin
cannot start: no X server at ``DISPLAY``, system libraries the xcb plugin needs are
missing, a Wayland compositor is not there.  :func:`create_application` listens to Qt's
messages while the application object is made; on Qt's fatal message it writes the one
line *explain* makes of what Qt said and ends the process with exit code 2, before Qt
would abort.  Anything Qt only warned about is passed on to stderr as Qt would have.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence

from PySide6.QtCore import QMessageLogContext, QtMsgType, qInstallMessageHandler
from PySide6.QtWidgets import QApplication

#: The exit code for a platform Qt cannot start (bad input: the environment).
EXIT_NO_PLATFORM = 2


def create_application(explain: Callable[[Sequence[str]], str]) -> QApplication:
    """The QApplication (made once); exits 2 with ``ctxviewer: <explain(messages)>`` if Qt cannot start."""
    existing = QApplication.instance()
    if isinstance(existing, QApplication):
        return existing
    said: list[str] = []

    def listen(mode: QtMsgType, _context: QMessageLogContext, message: str) -> None:
        said.append(message)
        if mode == QtMsgType.QtFatalMsg:
            sys.stderr.write(f"ctxviewer: {explain(said)}\n")
            sys.stderr.flush()
            os._exit(EXIT_NO_PLATFORM)  # Qt aborts as soon as this returns

    previous = qInstallMessageHandler(listen)
    try:
        app = QApplication(sys.argv[:1])
    finally:
        qInstallMessageHandler(previous)
    for message in said:  # warnings of a platform that did start (a fallback in a list)
        sys.stderr.write(message + "\n")
    return app
