"""What would get it in?  The selected candidate's exact sensitivity, beside its detail pane.

One :class:`SensitivityView` sits in the detail area of each candidate table.  The window
works out the task's :class:`~ctxviewer.engine.runs.sensitivity.Sensitivity` on a worker, for
every candidate at once, and hands each state (computing, first result, whole result, stopped,
failed) to every view; for a candidate no single setting brings in, the view asks for the smallest
change of two settings together, worked out on the worker too.  **Apply** asks the window to set
the value (or both values) through the Budget panel as one change, so one Undo reverts it.  The
words are plain functions, tested without a window.  See docs/sensitivity.md.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QPushButton, QScrollArea, QVBoxLayout, QWidget

from ctxviewer.engine.analysis.findings import describe
from ctxviewer.engine.project.settings import show_setting
from ctxviewer.engine.runs.pairs import PairSuggestion
from ctxviewer.engine.runs.sensitivity import BUDGET, CHOICE, COUNT, SHARE, TOKENS, Axis, Sensitivity, Span, Suggestion
from ctxviewer.engine.trace.model import KEPT, TRUNCATED, Item, Trace, fate_label
from ctxviewer.gui.widgets.sensitivity_strip import SensitivityStrip, axis_label, strip_rows

#: At most this many candidates are named in "pushes out" / "brings in"; the rest are counted.
NAMED = 4
#: What each stage of the computation is called while it runs.
STAGES = {
    "budget": "every budget",
    "security_share": "every security share",
    "spec_share": "every spec share",
    "top_k": "every top-k",
    "done": "the last of it",
}

TITLE = "What would get it in?"


# -- words ---------------------------------------------------------------------------------


def _plural_noun(axis: Axis) -> str:
    if axis.kind == TOKENS:
        return "budgets"
    if axis.kind == SHARE:
        return f"{axis_label(axis.key)}s"
    return axis_label(axis.key)


def _span_words(axis: Axis, span: Span, last: bool) -> str:
    """One interval of *axis* in words: ``670\u20131,443``, ``from 4,274``, ``0.067 to under 0.1444``."""
    if axis.kind == SHARE:
        if last and span.hi >= axis.max_share:
            text = f"from {show_setting(span.lo)}" if span.lo > 0 else f"up to {show_setting(span.hi)}"
        else:
            text = f"{show_setting(span.lo)} to under {show_setting(span.hi)}"
    elif last and span.hi >= axis.hi and span.lo > axis.lo:
        text = f"from {span.lo:,}"
    elif span.lo == span.hi:
        text = f"{span.lo:,}"
    else:
        text = f"{span.lo:,}\u2013{span.hi:,}"
    return f"{text} (truncated)" if span.status == TRUNCATED else text


def capitalised(text: str) -> str:
    return text[:1].upper() + text[1:]


def _and(parts: Sequence[str]) -> str:
    if len(parts) <= 1:
        return "".join(parts)
    return ", ".join(parts[:-1]) + " and " + parts[-1]


def intervals_words(sens: Sensitivity, item_id: str, axis: Axis) -> str:
    """Where along *axis* the candidate is in, in words.

    ``in at budgets 670\u20131,443, 2,114\u20132,159 and from 4,274`` (en dashes); ``in at every
    top-k``; ``out at every spec share``; ``in with security rule filtering true``.
    """
    spans = sens.including(item_id, axis.key)
    every = sens.strip(item_id, axis.key)
    if axis.kind == CHOICE:
        name = axis_label(axis.key)
        if not spans:
            return f"out with every {name} value"
        if len(spans) == len(every):
            return f"in with every {name} value"
        values = ["unset" if s.lo is None else show_setting(s.lo) for s in spans]
        return f"in with {name} {_and(values)} only"
    noun = _plural_noun(axis)
    if not spans:
        return f"out at every {noun[:-1] if noun.endswith('s') else noun}"
    if len(spans) == 1 and len(every) == 1:
        return f"in at every {noun[:-1] if noun.endswith('s') else noun}"
    last_in = every[-1].in_context
    words = [_span_words(axis, s, last_in and n == len(spans) - 1) for n, s in enumerate(spans)]
    return f"in at {noun} {_and(words)}"


def change_words(axis: Axis | None, suggestion: Suggestion) -> str:
    """The change itself: ``budget 3,604 (+20 %)``, ``security rule filtering false``."""
    name = axis_label(suggestion.key)
    if axis is None or axis.kind == CHOICE:
        value = "unset" if suggestion.value is None else show_setting(suggestion.value)
        return f"{name} {value}"
    pct = suggestion.size * 100
    sign = "+" if float(suggestion.value) >= float(axis.current) else "\u2212"
    amount = f"{pct:.0f}" if pct >= 10 else f"{pct:.1f}"
    value = f"{int(suggestion.value):,}" if axis.kind in (TOKENS, COUNT) else show_setting(suggestion.value)
    return f"{name} {value} ({sign}{amount}\u202f%, from {show_setting(axis.current)})"


def _names(trace: Trace | None, ids: Sequence[str]) -> str:
    names = []
    for item_id in ids[:NAMED]:
        item = trace.item(item_id) if trace is not None else None
        names.append(describe(item) if item is not None else item_id)
    if len(ids) > NAMED:
        names.append(f"{len(ids) - NAMED} more")
    return _and(names)


def suggestion_words(sens: Sensitivity, trace: Trace | None, suggestion: Suggestion) -> str:
    """``Smallest change: budget 3,604 (+20 %) → included; pushes out: …; brings in: …``."""
    text = (
        f"Smallest change: {change_words(sens.axis(suggestion.key), suggestion)} \u2192 {fate_label(suggestion.status)}"
    )
    return text + _effect_words(trace, suggestion.pushes_out, suggestion.brings_in)


def pair_change_words(sens: Sensitivity, pair: PairSuggestion) -> str:
    """Both changes: ``budget 2,636 (+120 %, from 1,200) and top-k 13 (+160 %, from 5)``."""
    return " and ".join(change_words(sens.axis(c.key), c) for c in pair.changes)


def pair_words(sens: Sensitivity, trace: Trace | None, pair: PairSuggestion) -> str:
    """``Smallest change of two settings: budget … and top-k … → included; pushes nothing out``."""
    text = f"Smallest change of two settings: {pair_change_words(sens, pair)} \u2192 {fate_label(pair.status)}"
    if pair.outside_range:
        text += " (a budget outside the real system's range: a what-if only)"
    return text + _effect_words(trace, pair.pushes_out, pair.brings_in)


def _effect_words(trace: Trace | None, pushes_out: Sequence[str], brings_in: Sequence[str]) -> str:
    text = f"; pushes out: {_names(trace, pushes_out)}" if pushes_out else "; pushes nothing out"
    if brings_in:
        text += f"; brings in: {_names(trace, brings_in)}"
    return text


# -- the view ------------------------------------------------------------------------------


class SensitivityView(QWidget):
    """The strips, intervals and smallest change of the selected candidate.

    ``applyRequested`` carries ``({key: value, ...}, words)`` for the Budget panel;
    ``startRequested`` asks for the computation (the view was shown, or **Work it out**
    after a stop); ``stopRequested`` asks to stop it; ``pairRequested`` asks for the smallest
    change of two settings for a candidate (its id) no single setting brings in.
    """

    applyRequested = Signal(object, str)
    startRequested = Signal()
    stopRequested = Signal()
    pairRequested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.item: Item | None = None
        self.trace: Trace | None = None
        self.sensitivity: Sensitivity | None = None
        #: True while more axes are still being worked out after the first result.
        self.partial = False
        self.suggestion: Suggestion | None = None
        #: The two-setting change shown (when no single setting brings the candidate in), and the
        #: answers known for the result shown (None: no two settings bring it in).
        self.pair: PairSuggestion | None = None
        self.pairs: dict[str, PairSuggestion | None] = {}
        self.state = "idle"  # idle, computing, partial, done, stopped, error
        self._error = ""

        self.status = QLabel("", self)
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.status.setWordWrap(True)
        self.progress = QProgressBar(self)
        self.progress.setRange(0, 100)
        self.progress.setMaximumWidth(160)
        self.progress.setMaximumHeight(12)
        self.progress.setTextVisible(False)
        self.progress.hide()
        self.stop_button = QPushButton("Stop", self)
        self.stop_button.setToolTip("Stop working it out (Work It Out starts again)")
        self.stop_button.clicked.connect(self.stopRequested)
        self.stop_button.hide()
        self.start_button = QPushButton("Work It Out", self)
        self.start_button.setToolTip("Work out every candidate's fate at every value of each setting")
        self.start_button.clicked.connect(self.startRequested)
        self.start_button.hide()
        head = QHBoxLayout()
        head.setContentsMargins(0, 0, 0, 0)
        head.addWidget(self.status, 1)
        head.addWidget(self.progress)
        head.addWidget(self.stop_button)
        head.addWidget(self.start_button)

        self.strip = SensitivityStrip(self)
        self.strip.setToolTip("")
        self.words = QLabel("", self)
        self.words.setTextFormat(Qt.TextFormat.RichText)
        self.words.setWordWrap(True)
        self.words.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.change = QLabel("", self)
        self.change.setTextFormat(Qt.TextFormat.PlainText)
        self.change.setWordWrap(True)
        self.change.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.apply_button = QPushButton("Apply", self)
        self.apply_button.setToolTip("Set this value in the Budget panel (Undo takes it back)")
        self.apply_button.clicked.connect(self._apply)
        self.apply_button.setEnabled(False)
        change_row = QHBoxLayout()
        change_row.setContentsMargins(0, 0, 0, 0)
        change_row.addWidget(self.change, 1)
        change_row.addWidget(self.apply_button, 0, Qt.AlignmentFlag.AlignTop)

        body = QWidget(self)
        inner = QVBoxLayout(body)
        inner.setContentsMargins(4, 2, 4, 4)
        inner.setSpacing(3)
        inner.addLayout(head)
        inner.addWidget(self.strip)
        inner.addLayout(change_row)
        inner.addWidget(self.words)
        inner.addStretch(1)
        scroll = QScrollArea(self)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        scroll.setWidget(body)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(scroll)
        self._show()

    # -- what the window tells it ---------------------------------------------------------

    def set_item(self, item: Item | None) -> None:
        """The candidate selected in the table beside it."""
        self.item = item
        self._show()

    def clear(self) -> None:
        """No result (a new trace is coming)."""
        self.sensitivity, self.trace, self.partial = None, None, False
        self.pairs = {}
        self.state = "idle"
        self._show()

    def show_computing(self, stage: str, fraction: float) -> None:
        if self.state not in ("partial",):
            self.state = "computing"
        self.progress.setValue(int(fraction * 100))
        self.progress.setToolTip(f"Working out {STAGES.get(stage, stage.replace('_', ' '))}")
        self._show_state()

    def show_result(self, sens: Sensitivity, trace: Trace, partial: bool = False) -> None:
        """*sens* worked out for *trace*; *partial*: only some axes so far, the rest coming."""
        self.sensitivity, self.trace, self.partial = sens, trace, partial
        self.state = "partial" if partial else "done"
        if partial:
            self.progress.setValue(0)
        self._show()

    def show_pair(self, item_id: str, pair: PairSuggestion | None) -> None:
        """The smallest two-setting change for *item_id* (None: no two settings bring it in)."""
        self.pairs[item_id] = pair
        if self.item is not None and self.item.id == item_id:
            self._show()

    def show_stopped(self) -> None:
        self.state = "stopped"
        self.partial = False
        self._show()

    def show_error(self, message: str) -> None:
        self.state = "error"
        self.partial = False
        self._error = message
        self._show()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self.state == "idle":
            self.startRequested.emit()

    # -- display ---------------------------------------------------------------------------

    def _show_state(self) -> None:
        busy = self.state in ("computing", "partial")
        self.progress.setVisible(busy)
        self.stop_button.setVisible(busy)
        self.start_button.setVisible(self.state in ("stopped", "error"))
        if self.state == "computing":
            stage = self.progress.toolTip().removeprefix("Working out ") or "every budget"
            self.status.setText(f"Working out where each candidate is in at {stage}\u2026")
        elif self.state == "partial":
            self.status.setText("The budget so far; the shares, top-k and switches are still being worked out\u2026")
        elif self.state == "stopped":
            self.status.setText("Stopped before it was worked out.")
        elif self.state == "error":
            self.status.setText(f"Could not be worked out: {self._error}")
        elif self.state == "idle":
            self.status.setText("Worked out once the task's run is shown.")
        elif self.state == "done" and self.sensitivity is not None:
            sens = self.sensitivity
            how = "a fast refit" if sens.method == "fast" else "whole runs"
            self.status.setText(
                f"Worked out exactly for every candidate: {sens.evaluations:,} evaluations in "
                f"{sens.seconds:.1f} s ({how}). Hover a strip for its exact intervals."
            )
        else:
            self.status.setText("")
        self.status.setVisible(bool(self.status.text()))

    def _show(self) -> None:
        self._show_state()
        sens, item = self.sensitivity, self.item
        if item is None:
            self._blank("Select a candidate to see at which settings it is in the context.")
            return
        if sens is None:
            self._blank("")
            return
        if item.id not in sens.item_ids:
            self._blank("This candidate is not in the run that was worked out.")
            return
        self.strip.set_rows(strip_rows(sens, item.id))
        self.strip.setVisible(bool(sens.axes))
        lines = [html.escape(capitalised(intervals_words(sens, item.id, a))) for a in sens.axes]
        budget = sens.axis(BUDGET)
        if budget is not None and (budget.suggest_lo, budget.suggest_hi) != (budget.lo, budget.hi):
            lines.append(
                f"The bracket under the budget: the real system's range, {budget.suggest_lo:,}\u2013"
                f"{budget.suggest_hi:,} (a suggested change stays inside it)."
            )
        self.words.setText("<br>".join(lines))
        self.words.setVisible(bool(lines))
        status = sens.status(item.id)
        self.suggestion = sens.suggestion(item.id)
        self.pair = None
        so_far = " (so far: the budget alone)" if self.partial else ""
        if status in KEPT:
            self.change.setText(
                f"In the context now ({fate_label(status)}): it stays in where its strips are green "
                f"(blue: in part){so_far}."
            )
        elif self.suggestion is not None:
            self.change.setText(suggestion_words(sens, self.trace, self.suggestion) + so_far + ".")
        else:
            reason = f"{fate_label(status)}: {item.reason.rstrip('.')}"
            if self.partial:
                self.change.setText(f"No budget brings it in so far ({reason}).")
            elif item.id not in self.pairs:
                self.change.setText(
                    f"No single setting brings it in ({reason}); working out two settings together\u2026"
                )
                self.pairRequested.emit(item.id)
            elif self.pairs[item.id] is None:
                self.change.setText(f"No single setting brings it in, nor any two together ({reason}).")
            else:
                self.pair = self.pairs[item.id]
                assert self.pair is not None
                self.change.setText(
                    f"No single setting brings it in ({reason}). " + pair_words(sens, self.trace, self.pair) + "."
                )
        self.change.setVisible(True)
        settable = [self.suggestion] if self.suggestion is not None else list(self.pair.changes) if self.pair else []
        self.apply_button.setVisible(bool(settable))
        self.apply_button.setEnabled(bool(settable))
        if len(settable) == 1:
            self.apply_button.setToolTip(f"Set {settable[0].set_text} in the Budget panel (Undo takes it back)")
        elif settable:
            what = " and ".join(c.set_text for c in settable)
            self.apply_button.setToolTip(f"Set {what} in the Budget panel as one change (one Undo takes both back)")

    def _blank(self, message: str) -> None:
        self.suggestion = self.pair = None
        self.strip.set_rows(())
        self.strip.hide()
        self.words.setText("")
        self.words.hide()
        self.change.setText(message)
        self.change.setVisible(bool(message))
        self.apply_button.hide()

    def _apply(self) -> None:
        suggestion, pair, sens = self.suggestion, self.pair, self.sensitivity
        if suggestion is not None:
            words = change_words(sens.axis(suggestion.key) if sens else None, suggestion)
            self.applyRequested.emit({suggestion.key: suggestion.value}, f"what would get it in: {words}")
        elif pair is not None and sens is not None:
            self.applyRequested.emit(pair.values, f"what would get it in: {pair_change_words(sens, pair)}")

    def values(self) -> dict[str, Any]:
        """The change Apply would make ({} when none): one setting, or two together."""
        if self.suggestion is not None:
            return {self.suggestion.key: self.suggestion.value}
        return {} if self.pair is None else self.pair.values
