"""The Computed tab for a nine-section version: its candidates, their detail, its cuts and compact mode."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt

from ctxviewer.engine.project.loading import load_project
from ctxviewer.engine.runs.pipeline import assemble
from ctxviewer.gui.views.computed_view import ComputedTab, entry_html, nine_debug_text
from tests.engine.analysis.test_upstream_items import zerg_trace
from tests.factories import make_project


def test_the_candidates_replace_the_computed_entries(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    trace = zerg_trace(tmp_path, tdd_mode="1", compact_mode="1")
    tab = ComputedTab()
    qtbot.addWidget(tab)
    tab.resize(700, 600)
    tab.show()
    tab.set_trace(trace)
    assert tab.entries_heading.text() == "<b>Sections&#x27; candidates</b>"
    assert tab.debug_heading.text() == "<b>Compact mode and cuts</b>"
    assert not tab.left.isVisible()  # the signals pane gives its room
    rows = tab.entries.model.rows()
    assert [r.kind for r in rows[:2]] == ["engineering_rule", "engineering_rule"]
    assert tab.entries.model.headerData(1, Qt.Orientation.Horizontal) == "Entry"
    # the first candidate is explained from the start: the rule, its glob and priority
    assert (
        "Applies to (globs): [&#x27;*.py&#x27;]" in tab.entries.detail.toHtml()
        or "*.py" in tab.entries.detail.toPlainText()
    )
    assert "Priority: critical" in tab.entries.detail.toPlainText()
    # the switch is found by its id, as the window's jump does
    assert tab.select_item("switch:tdd_mode")
    debug = tab.debug.toPlainText()
    assert "Compact mode (compact_mode = '1'):" in debug
    assert "TDD enforcement: 'implementation' \u2192 'impl', 1 time(s)" in debug
    # a seed trace afterwards: the computed profile's words come back, the signals too
    plain = tmp_path / "seed"
    make_project(plain, [{"id": "T1", "title": "Login", "files": {"create": ["src/app.py"]}}], requirements="Login.")
    tab.set_trace(assemble(load_project(plain), "feat", "T1"))
    assert tab.entries_heading.text() == "<b>Entries</b>"
    assert tab.left.isVisible()


def test_detail_escapes_the_projects_text(tmp_path: Path) -> None:
    trace = zerg_trace(tmp_path, compact_mode="1")
    item = next(i for i in trace.items if i.kind == "repo_symbol")
    page = entry_html(item)
    assert "<b>def login(user: str) -&gt; bool</b>" in page
    assert "-> bool" not in page
    assert "Character limits:\n  none was reached" in nine_debug_text(trace)
