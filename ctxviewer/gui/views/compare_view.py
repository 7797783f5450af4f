"""The Compare tab: the current task assembled two ways, side A against side B.

Each side is a profile (a combo box whose entries explain themselves) and optional
settings typed as ``budget=6000, top_k=8``.  Both runs go through one worker
:class:`~ctxviewer.gui.worker.Lane` (a newer comparison cancels the older) via
:func:`ctxviewer.engine.runs.compare.compare_task`.  The tab shows each side's section token
shares under its controls (a :class:`~ctxviewer.gui.widgets.charts.ShareChart` each: the whole
context against the total budget, every section against its own, overshoot in the error
colour), the candidates whose fate differs with the reason on each side (the what-if's
:class:`~ctxviewer.gui.views.whatif_view.ChangeTable`) and the two contexts as a coloured unified
diff (its :class:`~ctxviewer.gui.views.whatif_view.DiffPane`).  A side the engine refuses is
explained in the tab, never raised.
"""

from __future__ import annotations

import html
import threading
from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QComboBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from ctxviewer.engine.analysis.whatif import TraceDiff, setting_text, signed
from ctxviewer.engine.errors import SettingsError
from ctxviewer.engine.project.loading import Feature, Project, Task
from ctxviewer.engine.project.settings import Settings
from ctxviewer.engine.registry import PROFILES, counterpart, find, profile_of
from ctxviewer.engine.runs.compare import SIDE_MEANINGS, Side, compare_task, make_side, overshoot, parse_sides
from ctxviewer.gui.views.whatif_view import ChangeTable, DiffPane, RunNames, diff_caption
from ctxviewer.gui.widgets.charts import ShareChart, ShareValue
from ctxviewer.gui.widgets.models import is_dark, status_colour
from ctxviewer.gui.widgets.splitters import is_user_sized
from ctxviewer.gui.worker import Lane, RunState

#: How the change table and its detail pane call the two sides.
SIDE_NAMES = RunNames(
    before="A",
    after="B",
    before_run="run A",
    after_run="run B",
    reason_header="Reason in B",
    meanings=SIDE_MEANINGS,
)
SETTINGS_HINT = "e.g. budget=6000"
IDLE_TEXT = "Choose a profile (and settings) for each side, then Compare."


@dataclass(frozen=True)
class Target:
    """What the tab compares: a task, and the settings both sides start from."""

    project: Project
    feature: Feature
    task: Task
    base: Settings


class SideEditor(QWidget):
    """One side's controls: a profile combo box and a settings line edit; Enter asks to compare."""

    submitted = Signal()

    def __init__(self, name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.name = name
        label = QLabel(f"<b>{html.escape(name)}</b>", self)
        label.setTextFormat(Qt.TextFormat.RichText)
        label.setToolTip(f"Side {name}" + (": the baseline of the diff" if name == "A" else ": compared with A"))
        self.profile = QComboBox(self)
        for index, profile in enumerate(PROFILES):
            self.profile.addItem(profile)
            self.profile.setItemData(index, f"{profile}: {profile_of(profile).summary}", Qt.ItemDataRole.ToolTipRole)
        self.profile.currentTextChanged.connect(self._explain_profile)
        self.settings = QLineEdit(self)
        self.settings.setPlaceholderText(SETTINGS_HINT)
        self.settings.setClearButtonEnabled(True)
        self.settings.setToolTip(
            f"Settings of side {name} on top of the settings in force, as KEY=VALUE separated by commas "
            "(the keys of --set: budget, top_k, spec_share, tokenizer, ...)"
        )
        self.settings.returnPressed.connect(self.submitted)
        self.settings.textEdited.connect(lambda _text: self.show_invalid(False))
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(label)
        row.addWidget(self.profile)
        row.addWidget(self.settings, 1)
        self._explain_profile(self.profile.currentText())

    def _explain_profile(self, profile: str) -> None:
        found = find(profile)
        summary = found.summary if found is not None else ""
        self.profile.setToolTip(f"Profile of side {self.name}: {profile}, {summary}")

    def side(self) -> Side:
        """The side as chosen; a :class:`SettingsError` when the settings text is malformed."""
        return make_side(self.profile.currentText(), self.settings.text(), f"side {self.name}")

    def set_side(self, side: Side) -> None:
        self.profile.setCurrentText(side.profile)
        self.settings.setText(side.written)
        self.show_invalid(False)

    def show_invalid(self, invalid: bool) -> None:
        self.settings.setProperty("invalid", invalid)
        self.settings.style().unpolish(self.settings)
        self.settings.style().polish(self.settings)


class SidePane(QWidget):
    """A side's controls above its section token shares."""

    def __init__(self, name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.editor = SideEditor(name, self)
        self.chart = ShareChart(self, compact=True)
        self.chart.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # a summary; keyboard focus goes to the controls
        box = QVBoxLayout(self)
        box.setContentsMargins(0, 0, 0, 0)
        box.setSpacing(2)
        box.addWidget(self.editor)
        box.addWidget(self.chart, 1)


class CompareTab(QWidget):
    """Side A against side B on the current task; ``compared`` carries each diff shown."""

    compared = Signal(object)  # TraceDiff

    def __init__(self, lane: Lane, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.lane = lane
        self._target: Target | None = None
        self._stale = False
        self._diff: TraceDiff | None = None
        self._sides: tuple[Side, Side] | None = None
        self.a, self.b = SidePane("A", self), SidePane("B", self)
        for pane in (self.a, self.b):
            pane.editor.submitted.connect(self.compare)
        #: The sides as last set by default: until they are changed, A follows the profile in
        #: force and B is another profile.
        self._defaults = self._state()
        self.button = QPushButton("Compare", self)
        self.button.setToolTip("Assemble the current task with both sides and compare them")
        self.button.clicked.connect(self.compare)
        self.header = QLabel(IDLE_TEXT, self)
        self.header.setWordWrap(True)
        self.header.setTextFormat(Qt.TextFormat.RichText)
        self.header.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.message = QLabel("", self)
        self.message.setTextFormat(Qt.TextFormat.PlainText)  # the engine's words about the sides typed
        self.message.setObjectName("fieldMessage")
        self.message.setWordWrap(True)
        self.message.hide()
        self.changes = ChangeTable(self, SIDE_NAMES)
        self.diff_pane = DiffPane(self, "The two contexts are the same.")
        self._build_layout()
        self.lane.finished.connect(self._on_finished)
        self.lane.errored.connect(self._on_error)
        self.lane.stateChanged.connect(self._on_state)
        self.show_diff(None)

    def _build_layout(self) -> None:
        top = QGridLayout()
        top.setContentsMargins(0, 0, 0, 0)
        top.addWidget(self.header, 0, 0)
        top.addWidget(self.button, 0, 1, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignTop)
        top.addWidget(self.message, 1, 0, 1, 2)
        top.setColumnStretch(0, 1)
        sides = QWidget(self)
        row = QHBoxLayout(sides)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(12)
        row.addWidget(self.a, 1)
        row.addWidget(self.b, 1)
        self.panes = QSplitter(Qt.Orientation.Horizontal, self)
        self.panes.addWidget(self.changes)
        self.panes.addWidget(self.diff_pane)
        self.splitter = QSplitter(Qt.Orientation.Vertical, self)
        self.splitter.addWidget(sides)
        self.splitter.addWidget(self.panes)
        self.splitter.setStretchFactor(0, 0)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setChildrenCollapsible(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(top)
        layout.addWidget(self.splitter, 1)

    # -- what to compare ---------------------------------------------------------------------

    def set_target(self, project: Project, feature: Feature, task: Task, base: Settings) -> None:
        """The task to compare and the settings in force; re-run now if shown, else when shown."""
        self._target = Target(project, feature, task, base)
        if self._state() == self._defaults:  # sides not chosen: the profile in force against another
            other = counterpart(base.profile)
            self.a.editor.set_side(make_side(base.profile, "", "side A"))
            self.b.editor.set_side(make_side(other, "", "side B"))
            self._defaults = self._state()
        self._stale = True
        if self.isVisible():
            self.compare()

    def clear(self) -> None:
        """Forget the task and the comparison shown (another project is opening)."""
        self.lane.cancel()
        self._target, self._stale, self._sides = None, False, None
        self.show_message("")
        self.show_diff(None)

    def set_spec(self, text: str) -> bool:
        """Set both sides from ``A,B`` (as ``--profiles`` takes it); False (and a message) when malformed."""
        try:
            a, b = parse_sides(text, "--profiles")
        except SettingsError as exc:
            self.show_message(str(exc))
            return False
        self.set_sides(a, b)
        return True

    def _state(self) -> tuple[str, ...]:
        return tuple(x for p in (self.a, self.b) for x in (p.editor.profile.currentText(), p.editor.settings.text()))

    def set_sides(self, a: Side, b: Side) -> None:
        self.a.editor.set_side(a)
        self.b.editor.set_side(b)
        self._stale = self._target is not None

    def sides(self) -> tuple[Side, Side]:
        """Both sides as chosen (a :class:`SettingsError` names the malformed one)."""
        return self.a.editor.side(), self.b.editor.side()

    # -- running -----------------------------------------------------------------------------

    def compare(self) -> None:
        """Assemble the current task with both sides on the worker (cancelling a comparison in flight)."""
        self._stale = False
        target = self._target
        if target is None:
            self.show_message("Open a project and select a task to compare.")
            return
        try:
            (a, settings_a), (b, settings_b) = (self._checked(pane.editor, target.base) for pane in (self.a, self.b))
        except SettingsError as exc:
            self.lane.cancel()  # an older comparison would show results for other sides
            self.show_message(str(exc))
            return
        self.show_message("")
        self._sides = (a, b)

        def job(cancel: threading.Event, progress: Callable[[str, float], None]) -> TraceDiff:
            feature, task = target.feature, target.task
            return compare_task(target.project, feature, task, settings_a, settings_b, cancel=cancel, progress=progress)

        self.lane.submit(job)

    @staticmethod
    def _checked(editor: SideEditor, base: Settings) -> tuple[Side, Settings]:
        """A side and its settings on top of *base*, checked by the engine; a refused side's field is marked."""
        try:
            side = editor.side()
            settings = side.settings(base, f"side {editor.name}")
        except SettingsError:
            editor.show_invalid(True)
            raise
        editor.show_invalid(False)
        return side, settings

    def is_settled(self) -> bool:
        """Whether the comparison asked for is shown (or refused): nothing running or waiting to run."""
        return not self.lane.is_busy() and not (self._stale and self.isVisible())

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self._stale:
            self.compare()

    def _on_finished(self, diff: TraceDiff) -> None:
        self.show_diff(diff)
        self.compared.emit(diff)

    def _on_error(self, message: str) -> None:
        self.show_message(message)

    def _on_state(self, state: RunState) -> None:
        self.button.setText("Comparing\u2026" if state in (RunState.PENDING, RunState.RUNNING) else "Compare")

    # -- showing -----------------------------------------------------------------------------

    def diff(self) -> TraceDiff | None:
        return self._diff

    def show_message(self, text: str) -> None:
        self.message.setText(text)
        self.message.setVisible(bool(text))

    def show_diff(self, diff: TraceDiff | None) -> None:
        """Show *diff* (None: nothing compared yet)."""
        self._diff = diff
        self._update_header()
        self.a.chart.setValue(ShareValue.from_trace(diff.baseline) if diff else None)
        self.b.chart.setValue(ShareValue.from_trace(diff.current) if diff else None)
        self.changes.set_changes(diff.items if diff else (), diff.tokenizer if diff else "heuristic")
        if diff is not None and diff.items:  # show the first change's reasons right away
            self.changes.select(lambda _row: True)
        caption = diff_caption(diff, "A \u2192 B", "A's") if diff else ""
        self.diff_pane.set_lines(diff.context_diff if diff else (), caption)
        self.diff_pane.view.setPlaceholderText("The two contexts are the same." if diff else "")
        self._fit_sides()

    def _fit_sides(self) -> None:
        """Give the side panes the height their charts ask for; the rest goes to the panes below."""
        charts = max(self.a.chart.sizeHint().height(), self.b.chart.sizeHint().height())
        height = self.a.editor.sizeHint().height() + 2 + charts
        total = max(self.splitter.height(), height + 200)
        if not is_user_sized(self.splitter):
            self.splitter.setSizes([height, total - height])

    def _update_header(self) -> None:
        diff, sides = self._diff, self._sides
        if diff is None or sides is None:
            self.header.setText(html.escape(IDLE_TEXT))
            return
        self.header.setText(header_html(diff, sides, is_dark(self.palette())))

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.PaletteChange:  # diff and header colours follow a theme switch
            self.diff_pane.follow_palette(self.palette())
            self._update_header()
        super().changeEvent(event)


def _side_html(name: str, side: Side, overshoot_by: int, dark: bool) -> str:
    text = f"{name} <b>{html.escape(side.label)}</b>"
    if overshoot_by:
        colour = status_colour("failed", dark).name()
        text += f' <span style="color:{colour}">(over budget by {overshoot_by:,})</span>'
    return text


def header_html(diff: TraceDiff, sides: tuple[Side, Side], dark: bool = False) -> str:
    """What was compared: the task, both sides, the settings that differ, the context's size on each side."""
    e = html.escape
    a = _side_html("A", sides[0], overshoot(diff.baseline), dark)
    b = _side_html("B", sides[1], overshoot(diff.current), dark)
    text = f"<b>{e(diff.current.task_id)}</b>: {a} vs {b}"
    changed = [f"{s.key} {setting_text(s.before)} \u2192 {setting_text(s.after)}" for s in diff.settings[:3]]
    if len(diff.settings) > 3:
        changed.append(f"{len(diff.settings) - 3} more")
    text += " \u00b7 " + e(", ".join(changed) if changed else "same settings")
    context = f"{diff.context_tokens_before:,} \u2192 {diff.context_tokens_after:,} {diff.tokenizer} tokens"
    text += f" \u00b7 context {e(context)} ({e(signed(diff.context_delta))})"
    if diff.unchanged:
        text += " \u2014 no difference"
    return text
