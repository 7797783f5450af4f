"""Saving the settings tuned in the Budget panel to the project's ``ctxviewer.yaml``.

:func:`save_tuned` plans the write, asks first when told to (:func:`confirm_save`: the
changes listed, the new file in the details), and writes through the engine
(``ctxviewer.engine.project.tuning``, atomically).  It returns a :class:`SaveOutcome` for
the window to show: what was written, or why nothing was.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox, QWidget

from ctxviewer.engine.errors import CtxViewerError
from ctxviewer.engine.project.loading import Project
from ctxviewer.engine.project.settings import Settings
from ctxviewer.engine.project.tuning import SaveResult, plan_save, save_ctxviewer_yaml


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
