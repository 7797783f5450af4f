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
    assert "TDD enforcement \u00b7 ZERG_TDD_MODE:\n  - Do NOT write implementation code" in debug
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


def test_sections_arithmetic_uses_the_fixed_shares_and_names_the_variables(tmp_path: Path) -> None:
    from ctxviewer.gui.views.sections_tab import budget_arithmetic

    trace = zerg_trace(tmp_path, analysis_depth="think")
    text = budget_arithmetic(trace)
    # budget 4,000: 10 % is 400 for engineering and security, 20 % is 800 for the spec
    assert "Engineering rules (10%) = 400, Security rules (10%) = 400, Spec excerpts (20%) = 800" in text
    assert "Token efficiency (no budget)" in text
    assert "(30%)" not in text and "(50%)" not in text  # the seed's shares do not apply
    assert "Analysis depth: ZERG_ANALYSIS_DEPTH is &#x27;think&#x27;: builds this section" in text
    assert "TDD enforcement: ZERG_TDD_MODE is unset; the section needs exactly &#x27;1&#x27;" in text


def test_a_paragraph_of_a_nine_section_version_shows_the_top_k_cut(tmp_path: Path) -> None:
    from ctxviewer.gui.widgets.details import paragraph_html

    trace = zerg_trace(tmp_path)
    paragraph = next(i for i in trace.items if i.kind == "spec_paragraph" and i.rank == 1)
    assert "<i>Top-k cut:</i> 1 requirements paragraphs scored above 0; the top 5 were kept" in paragraph_html(
        trace, paragraph
    )
