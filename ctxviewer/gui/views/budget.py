"""The budget controls: tune a run's settings and watch the task re-assemble.

Every control edits one flat setting (keys as in
:meth:`~ctxviewer.engine.project.settings.Settings.as_table`).  A value is checked by the engine's
own validation (:meth:`Settings.with_overrides`) as it is typed; a value the engine
refuses shows the engine's message under the field and changes nothing, never clamped.
Accepted changes go on an undo stack (consecutive edits of one field merge into one
step, so a slider drag undoes in one go) and, after a short quiet period, the panel
emits :attr:`BudgetPanel.settingsChanged` with the new :class:`Settings`.
"""

from __future__ import annotations

import difflib
import html
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from PySide6.QtCore import QRectF, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QBrush, QColor, QPainter, QPaintEvent, QUndoCommand, QUndoStack
from PySide6.QtWidgets import (
    QComboBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSizePolicy,
    QSlider,
    QVBoxLayout,
    QWidget,
)

from ctxviewer.engine.errors import SettingsError
from ctxviewer.engine.profiles.zerg.profile import IGNORED_BUDGETS, section_shares
from ctxviewer.engine.profiles.zerg.profile import SHARES as NINE_SHARES
from ctxviewer.engine.project.settings import CTXVIEWER_YAML_KEYS, FLAT_KEYS, SWITCH_KEYS, UPSTREAM_VERSIONS, Settings
from ctxviewer.engine.project.tuning import TUNABLE
from ctxviewer.engine.project.upstream import AUTO, VERSION_PROFILES, VERSION_WORDS, picks_version, pinned_version
from ctxviewer.engine.registry import FIXED_SHARES, PROFILES, profile_of
from ctxviewer.engine.runs.pipeline import decision_tokenizer
from ctxviewer.engine.tokens.counting import TOKENIZERS
from ctxviewer.engine.trace.model import SECURITY, SPEC, Trace
from ctxviewer.gui.views.switches import SwitchBox, variable_name
from ctxviewer.gui.widgets.charts import segment_color
from ctxviewer.gui.widgets.labels import WrappedLabel
from ctxviewer.gui.widgets.models import is_dark
from ctxviewer.gui.widgets.plaintext import plain_tip
from ctxviewer.gui.widgets.versions import CHOICE_WORDS, detection_words, running_profile

ORIGIN = "gui"
TOKENIZER_TIP = (
    "Counter the pipeline decides with: heuristic is the real system's estimate, the characters divided by 4; "
    "an exact encoding budgets in real tokens (a what-if). The shaktiman and ctxviewer "
    "profiles always count exactly: with heuristic they decide with cl100k_base"
)
#: Quiet time after an accepted change before the new settings are emitted.
DEBOUNCE_MS = 120
#: A typed value is taken once typing pauses this long (or on Enter / leaving the field);
#: a value that turns invalid before then is never applied.
TYPING_MS = 300
Snapshot = dict[str, Any]


def snapshot(settings: Settings) -> Snapshot:
    """The tunable values of *settings*."""
    return {k: getattr(settings, k) for k in TUNABLE}


def settings_from(base: Settings, values: Mapping[str, Any]) -> Settings:
    """*base* with the values that differ from it applied (origin ``gui``)."""
    changed = {k: v for k, v in values.items() if getattr(base, k, None) != v}
    if "zones" in changed:
        try:
            changed["zones"] = dict(changed["zones"])
        except (TypeError, ValueError):
            message = f"zones: must be a mapping of zone name to percent, not {changed['zones']!r}"
            raise SettingsError(message, ORIGIN) from None
    return base.with_overrides(changed, ORIGIN) if changed else base


# -- parsing typed text --------------------------------------------------------------------

#: Thousands separators only in groups of three (``4,000``, ``4_000``), as the engine's
#: parser takes them: ``1,5k`` or ``4,00`` are typing slips, not 15,000 and 400.
_NUMBER = re.compile(
    r"^\s*(-?(?:(?:[0-9]{1,3}(?:,[0-9]{3})+|[0-9]{1,3}(?:_[0-9]{3})+|[0-9]+)(?:\.[0-9]*)?|\.[0-9]+)"
    r"(?:[eE][+-]?[0-9]+)?)\s*([kKmM]?)\s*$"
)


def parse_number(text: str) -> float:
    """A number as people type it: ``4000``, ``4,000``, ``4_000``, ``4k``, ``1.5M``, ``27.5``."""
    match = _NUMBER.match(text)
    if match is None:
        raise ValueError(f"not a number: {text.strip()!r}" if text.strip() else "empty: type a number")
    value = float(match.group(1).replace(",", "").replace("_", ""))
    return value * {"": 1, "k": 1_000, "m": 1_000_000}[match.group(2).lower()]


def parse_int(text: str) -> int | float:
    value = parse_number(text)
    return int(value) if value.is_integer() else value  # a fraction is left for the engine to refuse


def parse_percent(text: str) -> float:
    return parse_number(text.replace("%", ""))


def parse_share(text: str) -> float:
    """A section share as a fraction: ``35%`` and ``35`` are 0.35, and so is ``0.35``.

    ``ctxviewer.yaml`` and ``--set`` write shares as fractions and the panel shows
    percents, so a number below 1 without a ``%`` sign is read as the fraction it
    surely is (nobody means a 0.35 % share); ``0.5%`` is half a percent.
    """
    value = parse_percent(text)
    if "%" not in text and 0 < value < 1:
        return value
    return value / 100


def parse_zones(text: str) -> dict[str, float]:
    """``compaction=75, warn=50`` (or ``compaction 75%``); empty text is no zones."""
    out: dict[str, float] = {}
    for part in filter(None, (p.strip() for p in re.split(r"[,;]", text))):
        match = re.match(r"^([A-Za-z][\w -]*?)\s*(?:=|:|\s)\s*([0-9.]+)\s*%?$", part)
        if match is None:
            raise ValueError(f"write zones as name=percent, e.g. compaction=75 (not {part!r})")
        out[match.group(1).strip()] = float(match.group(2))
    return out


def format_zones(zones: tuple[tuple[str, float], ...]) -> str:
    return ", ".join(f"{name}={percent:g}" for name, percent in zones)


# -- undo ----------------------------------------------------------------------------------


#: Changes that are each their own undo step: a reset, a profile or tokenizer picked from a list.
_NO_MERGE = ("*", "profile", "upstream", "tokenizer", "spec_feature", *SWITCH_KEYS)

#: The values of ``spec_feature`` as the panel offers them: (value, words, tooltip).
SPEC_FEATURE_CHOICES = (
    ("folder", "its folder's name", "Read the spec from the feature's folder (what a user means; the default)"),
    (
        "graph",
        "the task graph's feature",
        "Read the spec from the folder the task graph's own feature value names, as upstream's "
        "orchestrator does; after a rename the two differ (the feature-mismatch finding)",
    ),
)
SPEC_FEATURE_TIP = (
    "Which folder the spec is read from (setting spec_feature): the feature folder's own name, "
    "or the task graph's feature value, which upstream's orchestrator passes to the plugin"
)


class _Change(QUndoCommand):
    """One accepted change: the whole tunable snapshot before and after."""

    def __init__(self, panel: BudgetPanel, before: Snapshot, after: Snapshot, key: str, text: str) -> None:
        super().__init__(text)
        self.panel, self.before, self.after, self.key = panel, before, after, key
        self._first = True

    def id(self) -> int:
        return 1

    def mergeWith(self, other: QUndoCommand) -> bool:
        # Edits of one field in a row are one step (a slider drag); picks from a list are not.
        if not isinstance(other, _Change) or other.key != self.key or self.key in _NO_MERGE:
            return False
        self.after = other.after
        self.setText(other.text())
        return True

    def redo(self) -> None:
        if self._first:  # the panel already shows the new value
            self._first = False
            return
        self.panel._restore(self.after)

    def undo(self) -> None:
        self.panel._restore(self.before)


# -- the buffer bar ------------------------------------------------------------------------


class ShareBar(QWidget):
    """Security share, spec share and the buffer as one proportional bar."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.shares: tuple[float, float] = (0.3, 0.5)
        self.setMinimumHeight(14)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)

    def set_shares(self, security: float, spec: float) -> None:
        self.shares = (security, spec)
        self.setToolTip(
            f"security {security * 100:g}% \u00b7 spec {spec * 100:g}% \u00b7 buffer "
            f"{max(0.0, 1 - security - spec) * 100:g}% of the total budget"
        )
        self.update()

    def sizeHint(self) -> QSize:
        return QSize(200, 14)

    def paintEvent(self, event: QPaintEvent) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        rect = QRectF(self.rect()).adjusted(0.5, 0.5, -0.5, -0.5)
        p.setPen(Qt.PenStyle.NoPen)
        buffer_colour = QColor("#5a5a5a" if is_dark(self.palette()) else "#d9d9d9")
        p.setBrush(QBrush(buffer_colour))
        p.drawRoundedRect(rect, 3, 3)
        x = rect.left()
        for index, share in enumerate(self.shares):
            width = rect.width() * max(0.0, min(1.0, share))
            colour = segment_color(index)
            if not self.isEnabled():  # a whole-budget profile: the split does not apply
                colour.setAlphaF(0.3)
            p.setBrush(QBrush(colour))
            p.drawRect(QRectF(x, rect.top(), width, rect.height()))
            x += width
        p.end()


# -- fields --------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Spec:
    """How one setting is edited: its parser, display format and slider mapping."""

    key: str
    label: str
    tip: str
    parse: Callable[[str], Any]
    show: Callable[[Any], str]
    to_slider: Callable[[Any], int] | None = None
    from_slider: Callable[[int], Any] | None = None
    slider_max: int = 100


def _log_slider(lo: float, hi: float) -> tuple[Callable[[Any], int], Callable[[int], Any]]:
    """A 0..1000 slider over [lo, hi] on a log scale, snapping to friendly steps."""

    def to_slider(value: Any) -> int:
        v = min(max(float(value), lo), hi)
        return round(1000 * math.log(v / lo) / math.log(hi / lo))

    def from_slider(position: int) -> int:
        raw = lo * (hi / lo) ** (position / 1000)
        step = 10 ** max(0, int(math.log10(raw)) - 1)  # two significant figures
        return int(round(raw / step) * step)

    return to_slider, from_slider


def _share_spec(key: str, label: str, section: str) -> _Spec:
    """A section share, typed and shown in percent, stored as a fraction."""
    return _Spec(
        key,
        label,
        f"Share of the budget for {section}: a percent (35 or 35%) or a fraction (0.35)",
        parse_share,
        lambda v: f"{v * 100:g}%",
        lambda v: round(float(v) * 100),
        lambda p: p / 100,
    )


_BUDGET_SLIDER = _log_slider(200, 50_000)
_CONTEXT_SLIDER = _log_slider(8_000, 2_000_000)

SPECS: tuple[_Spec, ...] = (
    _Spec(
        "budget",
        "Total budget",
        "task_context_budget_tokens: the whole task context, in decision tokens",
        parse_int,
        lambda v: f"{v:,}",
        *_BUDGET_SLIDER,
        slider_max=1000,
    ),
    _share_spec("security_share", "Security share", "the security rules section"),
    _share_spec("spec_share", "Spec share", "the spec excerpts section"),
    _Spec(
        "top_k",
        "Top-k paragraphs",
        "Spec paragraphs kept per spec file after ranking",
        parse_int,
        lambda v: f"{v:,}",
        lambda v: min(int(v), 30),
        lambda p: max(1, p),
        slider_max=30,
    ),
    _Spec(
        "threshold_percent",
        "Checkpoint at",
        "The tracker's checkpoint threshold (% of the max context)",
        parse_percent,
        lambda v: f"{v:g}%",
        lambda v: round(float(v)),
        lambda p: float(max(1, p)),
    ),
    _Spec(
        "max_context_tokens",
        "Max context",
        "The tracker's maximum context (the model's window), in tokens",
        parse_int,
        lambda v: f"{v:,}",
        *_CONTEXT_SLIDER,
        slider_max=1000,
    ),
    _Spec(
        "zones",
        "Further zones",
        "More tracker zones besides the checkpoint, as name=percent, e.g. compaction=75",
        parse_zones,
        lambda v: format_zones(v),
    ),
)


class _Row:
    """One setting's widgets: label, optional slider, text field and its message line."""

    def __init__(self, panel: BudgetPanel, spec: _Spec, grid: QGridLayout, row: int) -> None:
        self.spec = spec
        self.label = QLabel(spec.label, panel)
        self.label.setToolTip(spec.tip)
        self.field = QLineEdit(panel)
        self.field.setObjectName(f"field-{spec.key}")
        self.field.setToolTip(spec.tip)
        self.slider: QSlider | None = None
        self.message = QLabel("", panel)
        self.message.setTextFormat(Qt.TextFormat.PlainText)  # may quote a value from the project's files
        self.message.setObjectName("fieldMessage")
        self.message.setWordWrap(True)
        self.message.hide()
        grid.addWidget(self.label, row, 0)
        if spec.to_slider is not None:
            self.slider = QSlider(Qt.Orientation.Horizontal, panel)
            self.slider.setRange(0, spec.slider_max)
            self.slider.setToolTip(spec.tip)
            grid.addWidget(self.slider, row, 1)
            self.field.setMaximumWidth(92)
            grid.addWidget(self.field, row, 2)
        else:
            grid.addWidget(self.field, row, 1, 1, 2)
        grid.addWidget(self.message, row + 1, 0, 1, 3)

    def show_value(self, value: Any) -> None:
        text = self.spec.show(value)
        if self.field.text() != text:
            self.field.setText(text)
        self.show_slider(value)

    def show_slider(self, value: Any) -> None:
        if self.slider is not None and self.spec.to_slider is not None:
            self.slider.blockSignals(True)
            self.slider.setValue(self.spec.to_slider(value))
            self.slider.blockSignals(False)

    def set_used(self, why_not: str) -> None:
        """Dim the row when the profile does not use the setting (*why_not* says so)."""
        for widget in (self.label, self.field, self.slider):
            if widget is not None:
                widget.setEnabled(not why_not)
                widget.setToolTip(why_not or self.spec.tip)

    def show_error(self, message: str) -> None:
        self.message.setText(message)
        self.message.setVisible(bool(message))
        self.field.setProperty("invalid", bool(message))
        self.field.style().unpolish(self.field)
        self.field.style().polish(self.field)


class BudgetPanel(QWidget):
    """Profile, upstream version, budget, shares, buffer, top-k, decision tokenizer and tracker limits, live.

    The window passes each trace it shows to :meth:`show_trace`: the panel learns from it
    which version ``upstream: auto`` detected (and why), which decides the profile that
    really runs, hence the figures and the settings it uses.
    """

    #: The tuned settings, after a short quiet period following the last change.
    settingsChanged = Signal(object)
    saveRequested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.base = Settings()
        self.note = ""
        #: What ``upstream: auto`` detected in the project, (version, reason), from a trace.
        self.detected: tuple[str, str] | None = None
        self.values: Snapshot = snapshot(self.base)
        self.undo_stack = QUndoStack(self)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(DEBOUNCE_MS)
        self._timer.timeout.connect(self._emit)
        self._pending: tuple[str, Any, str] | None = None
        self._typing = QTimer(self)
        self._typing.setSingleShot(True)
        self._typing.setInterval(TYPING_MS)
        self._typing.timeout.connect(self._take_typed)

        grid = QGridLayout()
        grid.setHorizontalSpacing(6)
        grid.setVerticalSpacing(2)
        grid.setColumnStretch(1, 1)
        self.rows: dict[str, _Row] = {}
        line = self._add_spec_feature(grid, self._add_upstream(grid, self._add_profile(grid)))
        for spec in SPECS:
            if spec.key == "top_k":
                line = self._add_buffer(grid, line)
            row = _Row(self, spec, grid, line)
            self.rows[spec.key] = row
            row.field.textEdited.connect(lambda text, key=spec.key: self._typed(key, text))
            row.field.editingFinished.connect(lambda key=spec.key: self._finished(key))
            if row.slider is not None:
                row.slider.valueChanged.connect(lambda pos, key=spec.key: self._slid(key, pos))
            line += 2
        self.tokenizer = QComboBox(self)
        self.tokenizer.addItems(list(TOKENIZERS))
        self.tokenizer.setToolTip(TOKENIZER_TIP)
        self.tokenizer.currentTextChanged.connect(lambda name: self._set("tokenizer", name, f"tokenizer {name}"))
        self.tokenizer_label = QLabel("Decide with", self)
        grid.addWidget(self.tokenizer_label, line, 0)
        grid.addWidget(self.tokenizer, line, 1, 1, 2)

        self.state = WrappedLabel(self)
        self.state.setTextFormat(Qt.TextFormat.RichText)
        self.state.setObjectName("budgetState")
        self.undo_button = QPushButton("Undo", self)
        self.redo_button = QPushButton("Redo", self)
        self.reset_button = QPushButton("Reset", self)
        self.reset_button.setToolTip("Back to the project's values (undoable)")
        self.save_button = QPushButton("Save\u2026", self)
        self.save_button.setToolTip("Write the tuned values to the project's ctxviewer.yaml")
        self.undo_button.clicked.connect(self.undo_stack.undo)
        self.redo_button.clicked.connect(self.undo_stack.redo)
        self.reset_button.clicked.connect(self.reset)
        self.save_button.clicked.connect(self.saveRequested)
        self.undo_button.setEnabled(False)
        self.redo_button.setEnabled(False)
        self.undo_stack.canUndoChanged.connect(self.undo_button.setEnabled)
        self.undo_stack.canRedoChanged.connect(self.redo_button.setEnabled)
        self.undo_stack.undoTextChanged.connect(
            lambda t: self.undo_button.setToolTip(plain_tip(f"Undo {t}") if t else "")
        )
        self.undo_stack.redoTextChanged.connect(
            lambda t: self.redo_button.setToolTip(plain_tip(f"Redo {t}") if t else "")
        )
        #: The upstream switches (environment variables of the plugin's process), with two presets.
        self.switches = SwitchBox(self)
        self.switches.picked.connect(self._switch_picked)
        self.switches.preset.connect(lambda values, text: self.set_values(values, text))
        buttons = QHBoxLayout()
        for button in (self.undo_button, self.redo_button, self.reset_button, self.save_button):
            buttons.addWidget(button)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addLayout(grid)
        layout.addWidget(self.switches)
        layout.addLayout(buttons)
        layout.addWidget(self.state)
        self.effect = WrappedLabel(self)
        self.effect.setObjectName("budgetEffect")
        self.effect.setTextFormat(Qt.TextFormat.RichText)
        self.effect.setToolTip("What the settings in force do to the selected task and its feature")
        layout.addWidget(self.effect)
        layout.addStretch(1)
        self._show_all()

    def _add_profile(self, grid: QGridLayout) -> int:
        """The profile choice, first: it decides what every other setting means."""
        self.profile = QComboBox(self)
        for index, name in enumerate(PROFILES):
            self.profile.addItem(name)
            self.profile.setItemData(index, f"{name}: {profile_of(name).summary}", Qt.ItemDataRole.ToolTipRole)
        self.profile.currentTextChanged.connect(self._choose_profile)
        self.profile_message = QLabel("", self)
        self.profile_message.setTextFormat(Qt.TextFormat.PlainText)
        self.profile_message.setObjectName("fieldMessage")
        self.profile_message.setWordWrap(True)
        self.profile_message.hide()
        grid.addWidget(QLabel("Profile", self), 0, 0)
        grid.addWidget(self.profile, 0, 1, 1, 2)
        grid.addWidget(self.profile_message, 1, 0, 1, 3)
        return 2

    def _choose_profile(self, name: str) -> None:
        refusal = self._set("profile", name, f"profile {name}")
        self.profile_message.setText(refusal)
        self.profile_message.setVisible(bool(refusal))
        if refusal:  # the choice in force stays shown; the message says why
            self._show_profile()

    def _show_profile(self) -> None:
        name = self.values["profile"]
        self.profile.blockSignals(True)
        self.profile.setCurrentText(name)
        self.profile.blockSignals(False)
        self.profile.setToolTip(f"The assembly strategy: {name}, {profile_of(name).summary}")

    def _add_upstream(self, grid: QGridLayout, line: int) -> int:
        """The upstream version profile mahabharatha runs, with what auto detected and why."""
        self.upstream = QComboBox(self)
        self.upstream.setObjectName("upstreamVersion")
        for index, value in enumerate(UPSTREAM_VERSIONS):
            self.upstream.addItem(CHOICE_WORDS[value], value)
            self.upstream.setItemData(index, _version_tip(value), Qt.ItemDataRole.ToolTipRole)
        # Long entries must not widen the dock: the box is as narrow as the profile's, its list as wide as needed.
        self.upstream.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.upstream.setMinimumContentsLength(12)
        self.upstream.view().setMinimumWidth(self.upstream.view().sizeHintForColumn(0) + 24)
        self.upstream.currentIndexChanged.connect(self._choose_upstream)
        self.upstream_label = QLabel("Upstream", self)
        #: What auto detected and why, or what the choice in force means.
        self.upstream_note = QLabel("", self)
        self.upstream_note.setTextFormat(Qt.TextFormat.PlainText)  # quotes the project's file names
        self.upstream_note.setObjectName("upstreamNote")
        self.upstream_note.setWordWrap(True)
        grid.addWidget(self.upstream_label, line, 0)
        grid.addWidget(self.upstream, line, 1, 1, 2)
        grid.addWidget(self.upstream_note, line + 1, 0, 1, 3)
        return line + 2

    def _add_spec_feature(self, grid: QGridLayout, line: int) -> int:
        """Which folder the spec is read from: the spec folder's own name, or the task graph's
        ``feature`` value, which upstream's orchestrator passes to the plugin (setting ``spec_feature``)."""
        self.spec_feature = QComboBox(self)
        self.spec_feature.setObjectName("specFeature")
        for value, words, tip in SPEC_FEATURE_CHOICES:
            self.spec_feature.addItem(words, value)
            self.spec_feature.setItemData(self.spec_feature.count() - 1, tip, Qt.ItemDataRole.ToolTipRole)
        self.spec_feature.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.spec_feature.setMinimumContentsLength(12)
        self.spec_feature.setToolTip(SPEC_FEATURE_TIP)
        self.spec_feature.currentIndexChanged.connect(self._choose_spec_feature)
        label = QLabel("Spec from", self)
        label.setToolTip(SPEC_FEATURE_TIP)
        grid.addWidget(label, line, 0)
        grid.addWidget(self.spec_feature, line, 1, 1, 2)
        return line + 1

    def _choose_spec_feature(self, index: int) -> None:
        value = self.spec_feature.itemData(index)
        if value is not None:
            self._set("spec_feature", value, f"spec from the {'task graph' if value == 'graph' else 'folder'}")

    def _choose_upstream(self, index: int) -> None:
        value = self.upstream.itemData(index)
        if isinstance(value, str):
            self._set("upstream", value, f"upstream {value}")

    def _show_upstream(self) -> None:
        chosen, profile = self.values["upstream"], self.values["profile"]
        detected = self.detected
        auto = CHOICE_WORDS[AUTO]
        if detected is not None:
            auto = f"auto: detected {detected[0]}"  # the setting's own value: short, the dock is narrow
        self.upstream.blockSignals(True)
        self.upstream.setItemText(0, auto)
        self.upstream.setCurrentIndex(max(0, self.upstream.findData(chosen)))
        self.upstream.blockSignals(False)
        pinned = pinned_version(profile)
        used = picks_version(profile)
        for widget in (self.upstream_label, self.upstream):
            widget.setEnabled(used)
        if pinned is not None:
            why = f"profile {profile} runs {pinned} whatever upstream says"
        elif not used:
            why = f"not used by {profile}: it is not upstream's pipeline"
        else:
            why = ""
        self.upstream.setToolTip(why or "The upstream version profile mahabharatha reproduces (setting upstream)")
        self.upstream_label.setToolTip(self.upstream.toolTip())
        self.upstream_note.setText(why.capitalize() if why else _detection_note(chosen, detected))
        full = detected[1] if detected is not None and used else ""
        self.upstream_note.setToolTip(plain_tip(full[:1].upper() + full[1:]) if full else "")
        self.upstream_note.setEnabled(used)

    def show_trace(self, trace: Trace) -> None:
        """Learn from a shown *trace* what ``upstream: auto`` detected, and show the figures that follow."""
        chosen = trace.settings.get("upstream")
        profile = trace.settings.get("profile")
        picker = profile is not None and picks_version(profile.value)
        if trace.upstream and chosen is not None and chosen.value == AUTO and picker:
            self.detected = (trace.upstream, trace.upstream_reason)
        self._show_upstream()
        self._show_state()

    def running_profile(self) -> str:
        """The profile that runs with the settings in force (``mahabharatha`` resolved to its version)."""
        detected = self.detected[0] if self.detected is not None else None
        return running_profile(self.values["profile"], self.values["upstream"], detected)

    def _add_buffer(self, grid: QGridLayout, line: int) -> int:
        self.share_bar = ShareBar(self)
        self.buffer_label = QLabel("", self)
        self.buffer_label.setTextFormat(Qt.TextFormat.PlainText)
        self.buffer_label.setObjectName("bufferLabel")
        self.buffer_label.setToolTip("What the shares leave unassigned: budget - security - spec")
        grid.addWidget(QLabel("Buffer", self), line, 0)
        grid.addWidget(self.share_bar, line, 1)
        grid.addWidget(self.buffer_label, line, 2)
        return line + 1

    # -- public ------------------------------------------------------------------------------

    def set_base(self, settings: Settings, note: str = "") -> None:
        """Start from the project's *settings*: fields, undo history and tuned state reset.

        *note* is shown under the figures until the next change (e.g. what a save wrote).
        """
        self._drop_typing()
        self.note = note
        self.base = settings
        self.detected = None  # another project, or its config changed: the next trace says
        self.values = snapshot(settings)
        self.undo_stack.clear()
        self._show_all()

    def show_effect(self, lines: list[str]) -> None:
        """Show what the settings in force do (lines of rich text; the window fills them in)."""
        self.effect.setText("<br>".join(lines))

    def rebase(self, settings: Settings) -> None:
        """The project's settings changed on disk: keep the values tuned here, on top of them.

        Values that were not tuned follow the new project values; the undo history goes
        (its snapshots refer to the old values).
        """
        self._drop_typing()
        tuned = {k: v for k, v in self.values.items() if v != getattr(self.base, k)}
        self.base = settings
        self.values = snapshot(settings)
        try:
            self.values = snapshot(settings_from(settings, {**self.values, **tuned}))
        except SettingsError as exc:
            self.note = f"tuned values dropped, they no longer fit the project's settings: {exc.message}"
        self.undo_stack.clear()
        self._show_all()

    def settings(self) -> Settings:
        """The tuned settings (the project's, with the panel's changes)."""
        return settings_from(self.base, self.values)

    def is_tuned(self) -> bool:
        return self.values != snapshot(self.base)

    def set_values(self, values: Mapping[str, Any], text: str = "") -> str:
        """Apply *values* as one undoable change; returns the refusal ('' when accepted).

        Keys are the tunable settings (:data:`~ctxviewer.engine.project.tuning.TUNABLE`); a zones
        value may also be text as typed in the panel (``compaction=75``).
        """
        unknown = [k for k in values if k not in TUNABLE]
        if unknown:
            parts = []
            for key in unknown:
                if key in CTXVIEWER_YAML_KEYS.values():
                    parts.append(f"{key} is not tuned here (set it in ctxviewer.yaml)")
                elif key in FLAT_KEYS:
                    parts.append(f"{key} is not tuned here (it comes from the system's config)")
                else:
                    close = difflib.get_close_matches(key.lower(), TUNABLE, n=1, cutoff=0.6)
                    parts.append(f"{key} is not a setting" + (f"; did you mean {close[0]}?" if close else ""))
            message = "; ".join(parts)
            self.state.setText(f"Not applied: {html.escape(message)}")
            return message
        self._drop_typing()
        return self._commit("*", dict(values), text or ", ".join(values))

    def reset(self) -> None:
        self._drop_typing()
        if self.is_tuned():
            self._commit("*", snapshot(self.base), "reset to the project's values")

    def stop(self) -> None:
        """Drop anything pending (the window is closing)."""
        self._timer.stop()
        self._drop_typing()

    def is_pending(self) -> bool:
        """Whether a typed value or an accepted change is still waiting to be emitted."""
        return self._timer.isActive() or self._typing.isActive()

    def flush(self) -> None:
        """Apply typed text and emit a pending change now instead of after the quiet periods."""
        self._take_typed()
        if self._timer.isActive():
            self._timer.stop()
            self._emit()

    # -- editing -----------------------------------------------------------------------------

    def _typed(self, key: str, text: str) -> None:
        spec = self.rows[key].spec
        try:
            value = spec.parse(text)
            error = self._refusal({key: value})
        except ValueError as exc:
            error = str(exc)
        self.rows[key].show_error(error)
        if error:
            if self._pending is not None and self._pending[0] == key:
                self._pending = None
                self._typing.stop()
            self.state.setText(f"Not applied: {html.escape(error)}")
            return
        self._pending = (key, value, f"{spec.label.lower()} {text.strip()}")
        self._typing.start()
        self._show_state()

    def _take_typed(self) -> None:
        self._typing.stop()
        pending, self._pending = self._pending, None
        if pending is not None:
            self._set(*pending)

    def _finished(self, key: str) -> None:
        self._take_typed()
        row = self.rows[key]
        if not row.message.isVisible():
            row.show_value(self.values[key])  # tidies the typed text ("4000" -> "4,000")

    def _slid(self, key: str, position: int) -> None:
        spec = self.rows[key].spec
        assert spec.from_slider is not None
        value = spec.from_slider(position)
        if self._set(key, value, f"{spec.label.lower()} {spec.show(value)}") == "":
            self.rows[key].field.setText(spec.show(value))
        else:  # refused: the slider goes back to the value in force, the message stays
            self.rows[key].show_value(self.values[key])

    def _switch_picked(self, key: str, value: str | None) -> None:
        shown = "unset" if value is None else repr(value)
        refusal = self._set(key, value, f"{variable_name(key, self.running_profile())} {shown}")
        if refusal:  # the value in force stays shown; the state line says why
            self.switches.show_values(self.values, self.running_profile())

    def _set(self, key: str, value: Any, text: str) -> str:
        return self._commit(key, {key: value}, text)

    def _candidate(self, changes: Mapping[str, Any]) -> Settings:
        values = dict(self.values)
        values.update(changes)
        if "zones" in changes:
            zones = values["zones"]
            try:
                if isinstance(zones, str):
                    zones = parse_zones(zones)
                if not isinstance(zones, (Mapping, tuple, list)):
                    raise ValueError(f"must be a mapping of zone name to percent, not {zones!r}")
                values["zones"] = _zones_tuple(zones)
            except (ValueError, TypeError) as exc:
                raise SettingsError(f"zones: {exc}", ORIGIN) from None
        return settings_from(self.base, values)

    def _refusal(self, changes: Mapping[str, Any]) -> str:
        """The engine's message refusing *changes*, or '' when they are valid."""
        try:
            self._candidate(changes)
        except SettingsError as exc:
            return exc.message
        return ""

    def _commit(self, key: str, changes: Mapping[str, Any], text: str) -> str:
        try:
            settings = self._candidate(changes)
        except SettingsError as exc:
            if key in self.rows:
                self.rows[key].show_error(exc.message)
            self.state.setText(f"Not applied: {html.escape(exc.message)}")
            return exc.message
        new_values = snapshot(settings)
        if key in self.rows:
            self.rows[key].show_error("")
        if new_values == self.values:
            return ""
        before = self.values
        self.values = new_values
        self.undo_stack.push(_Change(self, before, new_values, key, text))
        self._show_all(skip=key)
        self._timer.start()
        return ""

    def _restore(self, values: Snapshot) -> None:
        # Undo/redo/reset win over a value still being typed: it is dropped, not applied
        # afterwards (leaving the field would otherwise commit it in the middle of undo).
        self._drop_typing()
        self.values = dict(values)
        self._show_all()
        self._timer.start()

    def _drop_typing(self) -> None:
        self._typing.stop()
        self._pending = None

    def _emit(self) -> None:
        self.settingsChanged.emit(self.settings())

    # -- display -----------------------------------------------------------------------------

    def _show_all(self, skip: str = "") -> None:
        for key, row in self.rows.items():
            if key == skip:  # being typed in: leave the text alone
                row.show_slider(self.values[key])
                continue
            row.show_value(self.values[key])
            row.show_error("")
        self.tokenizer.blockSignals(True)
        self.tokenizer.setCurrentText(self.values["tokenizer"])
        self.tokenizer.blockSignals(False)
        self._show_profile()
        self.profile_message.hide()
        self._show_upstream()
        self.spec_feature.blockSignals(True)
        self.spec_feature.setCurrentIndex(max(0, self.spec_feature.findData(self.values["spec_feature"])))
        self.spec_feature.blockSignals(False)
        self._show_state()

    def _show_state(self) -> None:
        settings = self.settings()
        running = self.running_profile()  # mahabharatha may run a later version: its settings count
        facts = profile_of(running)
        unused = facts.unused
        for key, row in self.rows.items():
            row.set_used(unused.get(key, ""))
        self.switches.show_values(self.values, running)
        tokenizer_unused = unused.get("tokenizer", "")
        for widget in (self.tokenizer, self.tokenizer_label):
            widget.setEnabled(not tokenizer_unused)
            widget.setToolTip(tokenizer_unused or TOKENIZER_TIP)
        fixed = facts.budgeting == FIXED_SHARES  # the nine sections' shares
        whole = facts.whole_budget or fixed
        self.share_bar.setEnabled(not whole)
        self.buffer_label.setEnabled(not whole)
        if fixed:
            buffer = settings.budget - sum(section_shares(settings.budget).values())
            self.share_bar.set_shares(NINE_SHARES[SECURITY], NINE_SHARES[SPEC])
            self.share_bar.setToolTip(f"{running}'s shares are fixed: 10 % for each section, 20 % for the spec")
            self.buffer_label.setText(f"{buffer / settings.budget * 100:.0f}% \u00b7 {buffer:,}")
        else:
            buffer_share = max(0.0, 1 - settings.security_share - settings.spec_share)
            self.share_bar.set_shares(settings.security_share, settings.spec_share)
            self.buffer_label.setText(f"{buffer_share * 100:.0f}% \u00b7 {settings.buffer:,}")
        changed = [k for k in TUNABLE if self.values[k] != getattr(self.base, k)]
        lines = [budget_line(settings, running)]
        if changed:
            self.note = ""
            lines.append(f"Tuned, not saved: {', '.join(changed)}")
        elif self.note:
            lines.append(html.escape(self.note).replace("\n", "<br>"))
        else:
            lines.append("The project's values.")
        self.state.setText("<br>".join(lines))
        self.save_button.setEnabled(bool(changed))
        self.reset_button.setEnabled(bool(changed))


def budget_line(settings: Settings, running: str | None = None) -> str:
    """What the budget buys under the profile that runs, in the unit it decides with.

    *running* is that profile (:meth:`BudgetPanel.running_profile`): ``mahabharatha``
    runs the upstream version chosen or detected, whose sections, shares and unit
    differ from the seed's.  None: *settings*' profile as named (right for every
    profile but ``mahabharatha`` on a project of a later version).
    """
    profile = running or settings.profile
    facts = profile_of(profile)
    unit = decision_tokenizer(replace(settings, profile=profile))
    if facts.budgeting == FIXED_SHARES:
        return nine_section_line(settings.budget)
    if facts.whole_budget:
        return f"whole context <b>{settings.budget:,}</b> {unit} tokens; no per-section budgets"
    budgets = settings.section_budgets
    spec = f"spec <b>{budgets['spec_excerpts']:,}</b>"
    if facts.spec_gets_rest:
        spec += " + what security leaves"
    return (
        f"security <b>{budgets['security_rules']:,}</b> \u00b7 {spec} "
        f"\u00b7 buffer <b>{settings.buffer:,}</b> {unit} tokens"
    )


def nine_section_line(budget: int) -> str:
    """The nine-section pipeline's fixed shares of *budget*, in its unit (heuristic: characters / 4)."""
    shares = {name: tokens for name, tokens in section_shares(budget).items() if name in NINE_SHARES}
    used = [f"{_NINE_WORDS[n]} <b>{b:,}</b>" for n, b in shares.items() if n not in IGNORED_BUDGETS]
    ignored = [n for n in shares if n in IGNORED_BUDGETS]
    amounts = sorted({shares[n] for n in ignored})
    passed = f"{', '.join(_NINE_WORDS[n] for n in ignored)} " + (
        f"{amounts[0]:,} each" if len(amounts) == 1 else ", ".join(f"{shares[n]:,}" for n in ignored)
    )
    buffer = budget - sum(shares.values())
    dot = " \u00b7 "
    return f"{dot.join(used)}{dot}buffer <b>{buffer:,}</b> heuristic tokens; {passed} passed and ignored"


_NINE_WORDS = {
    "engineering_rules": "engineering",
    "security_rules": "security",
    "spec_excerpts": "spec",
    "mcp_hints": "MCP",
    "depth_guidance": "depth",
    "behavioral_mode": "mode",
    "tdd_enforcement": "TDD",
    "repo_map": "repo map",
}


def _version_tip(value: str) -> str:
    if value == AUTO:
        return (
            "Detected from the project: engineering rule files, token records or later config keys "
            "under .zerg/ or .mahabharatha/"
        )
    profile = VERSION_PROFILES[value]
    return f"{VERSION_WORDS[value]}, run as profile {profile}: {profile_of(profile).summary}"


def _detection_note(chosen: str, detected: tuple[str, str] | None) -> str:
    """What the version in force means: auto's detection and its reason, or the choice beside it."""
    if chosen == AUTO:
        if detected is None:
            return "Detected from the project when the task runs."
        return f"Detected {detected[0]}: {detection_words(*detected)}."
    note = f"Chosen: {VERSION_WORDS[chosen]}, run as profile {VERSION_PROFILES[chosen]}."
    if detected is not None:
        note += f" Auto would detect {VERSION_WORDS.get(detected[0], detected[0])}."
    return note


def _zones_tuple(value: Any) -> Any:
    if isinstance(value, Mapping):
        return tuple(sorted(((str(k), v) for k, v in value.items()), key=lambda z: (z[1], z[0])))
    return value
