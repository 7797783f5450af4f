"""Tuning the settings in the Budget panel from elsewhere, and saving them to the project's ``ctxviewer.yaml``.

See docs/gui.md (Budget) and docs/ctxviewer-yaml.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QMessageBox, QWidget

from ctxviewer.engine.errors import CtxViewerError
from ctxviewer.engine.project.loading import Project
from ctxviewer.engine.project.settings import Settings
from ctxviewer.engine.project.tuning import SaveResult, plan_save, save_ctxviewer_yaml
from ctxviewer.gui.views.budget import BudgetPanel
from ctxviewer.gui.views.problems import ProblemPanel
from ctxviewer.gui.window.state import Shown
from ctxviewer.gui.window.status import StatusLine


@dataclass(frozen=True)
class SaveOutcome:
    """What a save did: *result* when it wrote; else a *notice* (it could not) or a status
    *message* (there was nothing to write); all empty when the user said no."""

    result: SaveResult | None = None
    notice: str = ""
    message: str = ""


def confirm_save(parent: QWidget, plan: SaveResult) -> bool:
    """Ask before writing *plan*; True when the user chose Save."""
    box = QMessageBox(parent)
    box.setIcon(QMessageBox.Icon.Question)
    box.setWindowTitle("Save settings")
    box.setTextFormat(Qt.TextFormat.PlainText)  # the path and the values are the project's
    box.setText(f"Write {len(plan.changes)} change(s) to {plan.path}?")
    box.setInformativeText(
        "\n".join(c.describe() for c in plan.changes)
        + ("\n\nSome comments in the file cannot be kept." if plan.comments_lost else "")
    )
    box.setDetailedText(plan.text)
    box.setStandardButtons(QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Cancel)
    return bool(box.exec() == QMessageBox.StandardButton.Save)


def save_tuned(parent: QWidget, project: Project, tuned: Settings, confirm: bool = True) -> SaveOutcome:
    """Write *tuned* into *project*'s ctxviewer.yaml (asking first when *confirm*)."""
    try:
        plan = plan_save(project, tuned)
    except CtxViewerError as exc:
        return SaveOutcome(notice=f"settings not saved: {exc}")
    if not plan.changes:
        return SaveOutcome(message="Nothing to save: these are the project's values")
    if confirm and not confirm_save(parent, plan):
        return SaveOutcome()
    try:
        result = save_ctxviewer_yaml(project, tuned, plan)
    except CtxViewerError as exc:
        return SaveOutcome(
            notice=f"settings not saved: {exc} \u2014 your tuned values are kept; save again to write them over it"
        )
    return SaveOutcome(result=result)


class Tuner(QObject):
    """The settings tuned in *budget* (:attr:`tuned`), values set there for the window, and saving them.

    :attr:`retuned` says the settings in force changed while a project is open; :attr:`saved`
    carries what a save wrote (the project is then opened again, and :meth:`take_note` gives
    the Budget panel its note on what was saved).
    """

    retuned = Signal()
    saved = Signal(object)  # SaveResult

    def __init__(
        self, window: QWidget, shown: Shown, budget: BudgetPanel, problems: ProblemPanel, status: StatusLine
    ) -> None:
        super().__init__(window)
        self.window = window
        self.shown = shown
        self.budget = budget
        self.problems = problems
        self.status = status
        #: Settings tuned in the budget panel; None while they are the project's own.
        self.tuned: Settings | None = None
        self._note = ""
        budget.settingsChanged.connect(self._on_changed)
        budget.saveRequested.connect(self.save)

    def settings_for(self, project: Project | None) -> Settings:
        """The settings runs use: the tuned ones, else *project*'s (the panel's with none open)."""
        if project is None:
            return self.budget.settings()
        return self.tuned or project.settings

    def rebase(self, settings: Settings) -> None:
        """The project's own settings changed on disk: the panel keeps what was tuned over them."""
        self.budget.rebase(settings)
        self.tuned = self.budget.settings() if self.budget.is_tuned() else None

    def _on_changed(self, settings: Settings) -> None:
        if self.shown.project is None:  # the panel is disabled then; nothing to run in any case
            return
        self.tuned = settings if self.budget.is_tuned() else None
        self.retuned.emit()

    def set_values(self, values: dict[str, Any], words: str, refused: str) -> bool:
        """Set *values* (*words* name them in the undo stack) as one change and run it at once;
        a refusal is a notice starting *refused*.  True when they were set."""
        refusal = self.budget.set_values(values, words)
        if refusal:
            self.problems.add_notice(f"{refused}: {refusal}")
            return False
        self.budget.flush()
        return True

    def apply(self, values: dict[str, Any], text: str) -> None:
        """Set *values* (a suggested change, *text* in words): one undoable change, run at once."""
        if self.set_values(values, text, "not applied"):
            self.status.say(f"Applied {text}; Undo in the Budget panel takes it back", 6000)

    def apply_command_line(self, tune: dict[str, Any]) -> None:
        """Set the values given with ``--set`` (what the panel refuses is a notice; the rest runs)."""
        refusal = self.budget.set_values(tune, "settings from the command line")
        if refusal:
            self.problems.add_notice(f"--set not applied: {refusal}")
        self.budget.flush()

    def save(self, confirm: bool = True) -> None:
        """Write the tuned settings to the project's ctxviewer.yaml (after asking when *confirm*)."""
        project = self.shown.project
        if project is None:
            return
        self.budget.flush()
        outcome = save_tuned(self.window, project, self.budget.settings(), confirm)
        if outcome.notice:
            self.problems.add_notice(outcome.notice)
        if outcome.message:
            self.status.say(outcome.message, 5000)
        result = outcome.result
        if result is None:
            return
        self._note = result.summary()
        self.status.say(f"Saved {len(result.changes)} setting(s) to {result.path}", 6000)
        self.saved.emit(result)

    def take_note(self) -> str:
        """What the last save wrote, in words, once (for the Budget panel when the project reloads)."""
        note, self._note = self._note, ""
        return note
