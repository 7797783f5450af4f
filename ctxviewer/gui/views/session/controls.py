"""The replay's controls: Play, Step, Reset and the speed, and the replay parameters (tool
calls and minutes per task, reset after each checkpoint) with their checks.

:class:`ReplayControls` neither plays nor replays: the panel wires its buttons to the
player, ``speedChanged`` to the player's speed, and passes ``parametersChanged`` on to the
window, which answers with a new replay.
"""

from __future__ import annotations

import html
import math

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from ctxviewer.engine.runs.session import MAX_MINUTES, MAX_TOOL_CALLS
from ctxviewer.gui.views.session.player import BASE_INTERVAL_MS, SPEEDS
from ctxviewer.gui.widgets.models import is_dark, status_colour
from ctxviewer.gui.widgets.plaintext import plain_tip


def parse_tool_calls(text: str) -> tuple[int | None, str]:
    """The tool calls per task in *text*, or None and what is wrong with it."""
    t = text.strip()
    if not t:
        return None, "enter a whole number"
    try:
        value = int(t)
    except ValueError:
        return None, "not a whole number"
    if not 0 <= value <= MAX_TOOL_CALLS:
        return None, f"0 to {MAX_TOOL_CALLS:,}"
    return value, ""


def parse_minutes(text: str) -> tuple[float | None, str]:
    """The minutes per task in *text*, or None and what is wrong with it."""
    t = text.strip()
    if not t:
        return None, "enter a number"
    try:
        value = float(t)
    except ValueError:
        return None, "not a number"
    if not math.isfinite(value) or not 0 <= value <= MAX_MINUTES:
        return None, f"0 to {MAX_MINUTES:g}"
    return value, ""


class ReplayControls(QWidget):
    """The playback buttons and speed over the replay parameter fields."""

    speedChanged = Signal(float)
    parametersChanged = Signal(int, float, bool)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._emitted: tuple[int, float, bool] | None = None

        # Playback controls.
        self.play_button = QPushButton("Play", self)
        self.play_button.setToolTip("Play the replay task by task, or pause it")
        self.step_button = QPushButton("Step", self)
        self.step_button.setToolTip("Run the next task")
        self.reset_button = QPushButton("Reset", self)
        self.reset_button.setToolTip("Back to before the first task")
        self.speed = QComboBox(self)
        for s in SPEEDS:
            self.speed.addItem(f"{s:g}\u00d7", s)
        self.speed.setCurrentIndex(SPEEDS.index(1.0))
        self.speed.setToolTip(f"Playback speed (1\u00d7 is {BASE_INTERVAL_MS} ms a task)")
        self.speed.currentIndexChanged.connect(self._on_speed)
        controls = QHBoxLayout()
        controls.setSpacing(4)
        for w in (self.play_button, self.step_button, self.reset_button):
            w.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
            controls.addWidget(w)
        controls.addWidget(self.speed)

        # Replay parameters.
        self.tool_calls = QLineEdit("10", self)
        self.tool_calls.setToolTip(f"Tool calls each task makes (50 tokens each); 0 to {MAX_TOOL_CALLS:,}")
        self.minutes = QLineEdit("5", self)
        self.minutes.setToolTip(f"Minutes each task takes (100 tokens a minute); 0 to {MAX_MINUTES:g}")
        self.tool_calls_error = QLabel(self)
        self.minutes_error = QLabel(self)
        for field, error in ((self.tool_calls, self.tool_calls_error), (self.minutes, self.minutes_error)):
            field.setMaximumWidth(72)
            field.editingFinished.connect(self.apply_parameters)
            field.textChanged.connect(self._validate)
            error.setTextFormat(Qt.TextFormat.RichText)  # our colour around an escaped message
            error.setObjectName("fieldMessage")  # the house style sheet colours it
            error.setWordWrap(True)
        self.reset_after = QCheckBox("Reset the tracker after each checkpoint", self)
        self.reset_after.setToolTip("A fresh worker continues after each checkpoint, so the estimate starts over")
        self.reset_after.toggled.connect(lambda _on: self.apply_parameters())
        params = QGridLayout()
        params.setHorizontalSpacing(6)
        params.setVerticalSpacing(2)
        params.addWidget(QLabel("Tool calls / task", self), 0, 0)
        params.addWidget(self.tool_calls, 0, 1)
        params.addWidget(self.tool_calls_error, 0, 2)
        params.addWidget(QLabel("Minutes / task", self), 1, 0)
        params.addWidget(self.minutes, 1, 1)
        params.addWidget(self.minutes_error, 1, 2)
        params.addWidget(self.reset_after, 2, 0, 1, 3)
        params.setColumnStretch(2, 1)
        rc = QVBoxLayout(self)
        rc.setContentsMargins(0, 0, 0, 0)
        rc.setSpacing(4)
        rc.addLayout(controls)
        rc.addLayout(params)

    # -- playback ----------------------------------------------------------------------------

    def set_playable(self, playable: bool) -> None:
        """Enable Play, Step and Reset (a replay with steps) or not."""
        for w in (self.play_button, self.step_button, self.reset_button):
            w.setEnabled(playable)

    def set_playing(self, playing: bool) -> None:
        self.play_button.setText("Pause" if playing else "Play")

    def _on_speed(self, index: int) -> None:
        speed = self.speed.itemData(index)
        if isinstance(speed, (int, float)):
            self.speedChanged.emit(float(speed))

    # -- parameters --------------------------------------------------------------------------

    def show_values(self, tool_calls: int, minutes: float, reset: bool) -> None:
        """Show a replay's parameters (without emitting: they are the replay's already)."""
        for field, text in ((self.tool_calls, str(tool_calls)), (self.minutes, f"{minutes:g}")):
            field.blockSignals(True)
            field.setText(text)
            field.blockSignals(False)
        self.reset_after.blockSignals(True)
        self.reset_after.setChecked(reset)
        self.reset_after.blockSignals(False)
        self._emitted = (tool_calls, minutes, reset)
        self._validate()

    def _validate(self, *_args: object) -> tuple[int, float, bool] | None:
        calls, calls_msg = parse_tool_calls(self.tool_calls.text())
        mins, mins_msg = parse_minutes(self.minutes.text())
        colour = status_colour("failed", is_dark(self.palette())).name()
        for field, label, msg in (
            (self.tool_calls, self.tool_calls_error, calls_msg),
            (self.minutes, self.minutes_error, mins_msg),
        ):
            label.setText(f"<span style='color:{colour}'>{html.escape(msg, quote=False)}</span>" if msg else "")
            label.setToolTip(plain_tip(msg))
            if field.property("invalid") != bool(msg):
                field.setProperty("invalid", bool(msg))  # a red border, by the house style sheet
                field.style().unpolish(field)
                field.style().polish(field)
        if calls is None or mins is None:
            return None
        return calls, mins, self.reset_after.isChecked()

    def parameters(self) -> tuple[int, float, bool] | None:
        """The replay parameters as entered, or None when a field is invalid."""
        return self._validate()

    def apply_parameters(self) -> bool:
        """Emit ``parametersChanged`` if the fields are valid and differ from the replay's."""
        values = self._validate()
        if values is None:
            return False
        if values != self._emitted:
            self._emitted = values
            self.parametersChanged.emit(*values)
        return True
