"""The search panel's summary counts its matches with the noun and verb in the number they take."""

from __future__ import annotations

from pathlib import Path

from ctxviewer.engine.project.loading import load_project
from ctxviewer.engine.runs.pipeline import assemble
from ctxviewer.gui.views.search_panel import SearchPanel
from tests.factories import make_project


def test_one_match_is_one_candidate_that_contains_it(qtbot, tmp_path: Path) -> None:
    root = make_project(
        tmp_path / "p",
        [{"id": "T1", "title": "Login session", "files": {}}],
        requirements="Alpha login flow.\n\nBeta session store.",
    )
    panel = SearchPanel()
    qtbot.addWidget(panel)
    panel.set_trace(assemble(load_project(root), "feat", "T1"))
    panel.field.setText("alpha")  # in the first requirement paragraph only
    assert panel.summary.text().startswith("1 candidate contains \u201calpha\u201d")
    panel.field.setText("a")  # in both paragraphs (and maybe more): the plural
    assert len(panel.matches()) > 1
    assert panel.summary.text().startswith(f"{len(panel.matches())} candidates contain \u201ca\u201d")
