"""The Budget panel's upstream switches: the five settings that stand for environment variables.

zerg-ai 0.3.2 and the repository's main read ``*_ANALYSIS_DEPTH``, ``*_BEHAVIORAL_MODE``,
``*_TDD_MODE``, ``*_COMPACT_MODE`` and ``*_WORKER_ID`` from the process that runs the plugin
(``ZERG_*`` in 0.3.2, ``MAHABHARATHA_*`` on main).  :class:`SwitchBox` shows one editable
choice per variable, labelled with the variable's name for the version that runs, ``unset``
by default as in the orchestrator's process, and two one-click presets: what upstream's
worker launcher sets (:data:`LAUNCHER_PRESET`) and unset all.  It only says what was
picked (:attr:`SwitchBox.picked`, :attr:`SwitchBox.preset`); the panel checks, applies and
undoes, as for its other controls.  Profiles that do not read the variables see the box
greyed out with the reason.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QComboBox, QGridLayout, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from ctxviewer.engine.profiles.zerg.profile import VERSIONS
from ctxviewer.engine.project.settings import SWITCH_KEYS
from ctxviewer.engine.project.upstream import PROFILE_VERSIONS
from ctxviewer.engine.registry import DEFAULT_PROFILE, find

#: How an unset variable is shown (and typed: empty text is unset too).
UNSET = "unset"
#: The variable's name without its version's prefix, per setting.
VARIABLES: Mapping[str, str] = {key: key.upper() for key in SWITCH_KEYS}
#: The values offered in each list (any other text can be typed: the variable is free text).
CHOICES: Mapping[str, tuple[str, ...]] = {
    "analysis_depth": ("quick", "think", "think_hard", "ultrathink", "standard"),
    "behavioral_mode": ("speed", "exploration", "refactor", "debug", "precision"),
    "tdd_mode": ("1", "0"),
    "compact_mode": ("1", "true", "0"),
    "worker_id": ("0", "1", "2"),
}
#: What each value does to the context, for the tooltips.
EFFECTS: Mapping[str, str] = {
    "analysis_depth": "builds the Analysis Depth section unless empty or 'standard' (quick, think, think_hard and "
    "ultrathink have their own budget and hint; anything else gets 2000 and a standard hint); think, "
    "think-hard and ultrathink also ask the MCP router for servers",
    "behavioral_mode": "builds the Behavioral Mode section for speed, exploration, refactor or debug; "
    "anything else builds nothing",
    "tdd_mode": "exactly 1 builds the TDD Enforcement section",
    "compact_mode": "exactly 1 builds the Token Efficiency section; 1 or true also abbreviates the whole context",
    "worker_id": "names the token record upstream writes (tokens-<id>.json); never changes the text",
}
#: What zerg-ai 0.3.2's worker launcher puts in a worker's environment by default
#: (``capability_resolver.ResolvedCapabilities.to_env_vars``, no command-line flags, default
#: config): depth ``standard`` (it takes the deepest any task asks for), mode ``precision``,
#: TDD ``0``, compact ``1``, and the worker's number.  Of these only compact mode changes the
#: context: the efficiency section and the abbreviations.
LAUNCHER_PRESET: Mapping[str, str] = {
    "analysis_depth": "standard",
    "behavioral_mode": "precision",
    "tdd_mode": "0",
    "compact_mode": "1",
    "worker_id": "0",
}
LAUNCHER_TIP = (
    "Set the five variables as upstream's worker launcher does by default: depth standard (it takes the "
    "deepest any task asks for), mode precision, TDD 0, compact mode 1, worker 0. Only compact mode changes "
    "the context: the Token Efficiency section and the abbreviations"
)
UNSET_TIP = "Unset the five variables, as in the orchestrator's own process, where the plugin runs for ctxviewer"


def variable_name(key: str, running: str) -> str:
    """The environment variable *key* stands for under the profile *running* (``ZERG_*`` unless main)."""
    version = VERSIONS.get(PROFILE_VERSIONS.get(running, ""))
    return (version.env_prefix if version is not None else "ZERG_") + VARIABLES[key]


def unused_reason(running: str) -> str:
    """Why the switches do nothing under *running* ('' when it reads them)."""
    profile = find(running)
    if profile is not None and profile.reads_switches:
        return ""
    return (
        f"not used by {running}: only zerg-ai 0.3.2 and today's nine-section pipeline read these environment variables"
    )


def parse_switch(text: str) -> str | None:
    """A typed or picked value: ``unset`` or empty text is unset (None), anything else the variable's text."""
    stripped = text.strip()
    return None if stripped in ("", UNSET) else stripped


def show_switch(value: Any) -> str:
    return UNSET if value is None else str(value)


class SwitchBox(QWidget):
    """Five variables, each an editable list, and the two presets."""

    #: (setting key, value or None): a value picked or typed.
    picked = Signal(str, object)
    #: (values by setting key, undo text): a preset clicked.
    preset = Signal(object, str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.running = ""
        self.title = QLabel("<b>Switches</b>", self)
        self.title.setTextFormat(Qt.TextFormat.RichText)
        self.launcher = QPushButton("As the launcher", self)
        self.launcher.setObjectName("switchesLauncher")
        self.launcher.setToolTip(LAUNCHER_TIP)
        self.unset_all = QPushButton("Unset all", self)
        self.unset_all.setObjectName("switchesUnset")
        self.unset_all.setToolTip(UNSET_TIP)
        self.launcher.clicked.connect(
            lambda: self.preset.emit(dict(LAUNCHER_PRESET), "switches as upstream's worker launcher sets them")
        )
        self.unset_all.clicked.connect(lambda: self.preset.emit(dict.fromkeys(SWITCH_KEYS), "unset all switches"))
        head = QHBoxLayout()
        head.setContentsMargins(0, 0, 0, 0)
        head.addWidget(self.title)
        head.addStretch(1)
        head.addWidget(self.launcher)
        head.addWidget(self.unset_all)

        grid = QGridLayout()
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setHorizontalSpacing(6)
        grid.setVerticalSpacing(2)
        grid.setColumnStretch(1, 1)
        self.labels: dict[str, QLabel] = {}
        self.boxes: dict[str, QComboBox] = {}
        for row, key in enumerate(SWITCH_KEYS):
            label = QLabel(variable_name(key, ""), self)
            label.setTextFormat(Qt.TextFormat.PlainText)
            box = QComboBox(self)
            box.setObjectName(f"switch-{key}")
            box.setEditable(True)
            box.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
            box.addItem(UNSET)
            box.addItems(list(CHOICES[key]))
            box.setMinimumContentsLength(7)
            box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            box.activated.connect(lambda _index, key=key: self._edited(key))
            line = box.lineEdit()
            assert line is not None
            line.editingFinished.connect(lambda key=key: self._edited(key))
            label.setBuddy(box)
            grid.addWidget(label, row, 0)
            grid.addWidget(box, row, 1)
            self.labels[key], self.boxes[key] = label, box
        self.reason = QLabel("", self)
        self.reason.setObjectName("switchesReason")
        self.reason.setTextFormat(Qt.TextFormat.PlainText)
        self.reason.setWordWrap(True)
        self.reason.hide()

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 0)
        layout.setSpacing(2)
        layout.addLayout(head)
        layout.addLayout(grid)
        layout.addWidget(self.reason)
        self.show_values(dict.fromkeys(SWITCH_KEYS), DEFAULT_PROFILE)

    def _edited(self, key: str) -> None:
        self.picked.emit(key, parse_switch(self.boxes[key].currentText()))

    def show_values(self, values: Mapping[str, Any], running: str) -> None:
        """Show *values* (the settings in force), named and enabled for the profile *running*."""
        self.running = running
        why_not = unused_reason(running)
        for key in SWITCH_KEYS:
            box, label = self.boxes[key], self.labels[key]
            text = show_switch(values.get(key))
            if box.currentText() != text:
                box.blockSignals(True)
                index = box.findText(text, Qt.MatchFlag.MatchFixedString | Qt.MatchFlag.MatchCaseSensitive)
                if index >= 0:
                    box.setCurrentIndex(index)
                else:
                    box.setEditText(text)
                box.blockSignals(False)
            variable = variable_name(key, running)
            label.setText(variable)
            tip = why_not or f"{variable} (setting {key}): {EFFECTS[key]}; unset, as in the orchestrator, by default"
            for widget in (label, box):
                widget.setEnabled(not why_not)
                widget.setToolTip(tip)
        for button in (self.launcher, self.unset_all):
            button.setEnabled(not why_not)
        self.title.setEnabled(not why_not)
        self.reason.setText(why_not[:1].upper() + why_not[1:] if why_not else "")
        self.reason.setVisible(bool(why_not))
