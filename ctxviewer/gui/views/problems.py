"""The problems banner: the run's errors and warnings above the tabs, one line each.

It takes a whole :class:`~ctxviewer.engine.trace.model.Trace` (or ``None``) and only reads it.
"""

from __future__ import annotations

import html
from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QPushButton,
    QToolButton,
    QWidget,
)

from ctxviewer.gui.widgets.labels import WrappedLabel


class ProblemPanel(QFrame):
    """A non-modal banner for engine errors, input problems and warnings."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("problemPanel")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.label = WrappedLabel(self)
        self.label.setTextFormat(Qt.TextFormat.RichText)  # our markup; every message is escaped
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        #: A one-click answer to a notice (e.g. open a project that was not reopened); hidden otherwise.
        self.action_button = QPushButton(self)
        self.action_button.hide()
        self._action: Callable[[], object] | None = None
        self.action_button.clicked.connect(self._run_action)
        self.close_button = QToolButton(self)
        self.close_button.setText("\u2715")
        self.close_button.setToolTip("Hide this panel (it comes back with the next problem)")
        self.close_button.clicked.connect(self.dismiss)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 4, 4, 4)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.action_button, 0, Qt.AlignmentFlag.AlignTop)
        layout.addWidget(self.close_button, 0, Qt.AlignmentFlag.AlignTop)
        self.messages: list[str] = []
        #: Messages about something the user did (a refused save, a task not found) that
        #: stay until dismissed, while the run's own errors and notes come and go.
        self.notices: list[str] = []
        self._shown: tuple[list[str], list[str]] = ([], [])
        self.hide()

    def add_notice(self, message: str) -> None:
        """Show *message* until the panel is dismissed, whatever runs come after."""
        self.notices.append(message)
        self.show_messages(*self._shown)

    def offer(self, text: str, action: Callable[[], object]) -> None:
        """Show a button labelled *text* that runs *action* (and dismisses the panel)."""
        self._action = action
        self.action_button.setText(text)
        self.action_button.show()

    def _run_action(self) -> None:
        action = self._action
        self.dismiss()
        if action is not None:
            action()

    def dismiss(self) -> None:
        self.notices.clear()
        self._action = None
        self.action_button.hide()
        self.hide()

    def show_messages(self, errors: list[str], warnings: list[str]) -> None:
        self._shown = (list(errors), list(warnings))
        self.messages = [*self.notices, *errors, *warnings]
        if not self.messages:
            self.label.clear()
            self.hide()
            return
        lines = [f"<b>Error:</b> {html.escape(e)}" for e in [*self.notices, *errors]]
        lines += [f"<b>Note:</b> {html.escape(w)}" for w in warnings]
        self.label.setText("<br>".join(lines))
        severity = "error" if errors or self.notices else "warning"
        if self.property("severity") != severity:  # the style sheet's colours follow it
            self.setProperty("severity", severity)
            self.style().unpolish(self)
            self.style().polish(self)
        self.show()
