"""Saving tuned settings to ctxviewer.yaml, alone: nothing to save, a write, a refusal, the question."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from PySide6.QtWidgets import QMessageBox, QWidget

from ctxviewer.engine.project.loading import Project, load_project
from ctxviewer.gui.window.tuning import SaveOutcome, save_tuned
from tests.factories import make_project, write


@pytest.fixture
def project(tmp_path: Path) -> Project:
    make_project(tmp_path, [{"id": "T1", "title": "Login", "files": {}}], requirements="Login.")
    return load_project(tmp_path)


@pytest.fixture
def parent(qtbot) -> QWidget:
    widget = QWidget()
    qtbot.addWidget(widget)
    return widget


def test_the_project_s_own_values_are_not_written(parent: QWidget, project: Project) -> None:
    outcome = save_tuned(parent, project, project.settings, confirm=False)
    assert outcome == SaveOutcome(message="Nothing to save: these are the project's values")
    assert not (project.root / "ctxviewer.yaml").exists()


def test_a_tuned_budget_is_written_and_reads_back(parent: QWidget, project: Project) -> None:
    tuned = replace(project.settings, budget=project.settings.budget - 1000)
    outcome = save_tuned(parent, project, tuned, confirm=False)
    assert outcome.result is not None and not outcome.notice and not outcome.message
    assert [c.key for c in outcome.result.changes] == ["budget"]
    assert outcome.result.path.endswith("ctxviewer.yaml")
    assert load_project(project.root).settings.budget == project.settings.budget - 1000


def test_a_file_the_loader_would_refuse_is_not_written_over(parent: QWidget, project: Project) -> None:
    write(project.root, "ctxviewer.yaml", "budget: [")  # broken since the project was loaded
    outcome = save_tuned(parent, project, replace(project.settings, budget=123), confirm=False)
    assert outcome.result is None and outcome.notice.startswith("settings not saved: ")
    assert (project.root / "ctxviewer.yaml").read_text(encoding="utf-8") == "budget: ["


def test_the_user_is_asked_first_and_no_means_nothing_is_written(
    parent: QWidget, project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[str] = []

    def answer(box: QMessageBox) -> QMessageBox.StandardButton:
        asked.append(box.text())
        return QMessageBox.StandardButton.Cancel

    monkeypatch.setattr(QMessageBox, "exec", answer)
    tuned = replace(project.settings, budget=2500)
    assert save_tuned(parent, project, tuned) == SaveOutcome()
    assert asked == [f"Write 1 change(s) to {project.root / 'ctxviewer.yaml'}?"]
    assert not (project.root / "ctxviewer.yaml").exists()
    monkeypatch.setattr(QMessageBox, "exec", lambda _box: QMessageBox.StandardButton.Save)
    assert save_tuned(parent, project, tuned).result is not None
    assert load_project(project.root).settings.budget == 2500
