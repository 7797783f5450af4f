"""The what-if tab: a pinned baseline against the current run, read like a user would."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPalette, QTextCharFormat

from ctxviewer.engine.analysis.whatif import TraceDiff, diff_traces
from ctxviewer.engine.project.loading import load_project
from ctxviewer.engine.runs.pipeline import assemble
from ctxviewer.engine.trace.model import Trace
from ctxviewer.gui.views.whatif_view import _DIFF_COLOURS, EXPLANATION, DiffHighlighter, WhatIfTab
from ctxviewer.gui.widgets.fonts import fixed_pitch_font
from tests.gui.conftest import LEDGER


@pytest.fixture(scope="module")
def runs() -> dict[str, Trace]:
    project = load_project(LEDGER)
    return {
        "base": assemble(project, "auth-sessions", "AUTH-L1-001"),
        "low": assemble(project, "auth-sessions", "AUTH-L1-001", {"budget": 1500}),
        "tiny": assemble(project, "auth-sessions", "AUTH-L1-001", {"budget": 600}),
        "other": assemble(project, "reconciliation", "REC-L1-001"),
    }


@pytest.fixture
def tab(qtbot) -> WhatIfTab:
    widget = WhatIfTab()
    qtbot.addWidget(widget)
    widget.resize(900, 560)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def _cell(model, row: int, header: str) -> str:
    headers = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())]
    return str(model.index(row, headers.index(header)).data())


def test_without_a_baseline_the_tab_explains_how_to_pin_one(tab: WhatIfTab) -> None:
    assert tab.header.text() == html.escape(EXPLANATION)
    assert "Pin Baseline, Ctrl+B" in EXPLANATION
    assert tab.splitter.isHidden()
    assert tab.sections_model.rowCount() == 0 and tab.changes.model.rowCount() == 0
    assert tab.diff_view.toPlainText() == ""


def test_set_diff_fills_the_tables(tab: WhatIfTab, runs: dict[str, Trace]) -> None:
    base, low = runs["base"], runs["low"]
    diff = diff_traces(base, low)
    tab.set_diff(diff)
    assert tab.splitter.isVisible()

    # One row per section, then the whole context; numbers from the two traces.
    model = tab.sections_model
    assert model.rowCount() == len(low.sections) + 1
    for row, section in enumerate(low.sections):
        old = base.section(section.name)
        assert old is not None
        assert _cell(model, row, "Section") == section.title
        assert _cell(model, row, "Budget") == f"{old.budget:,} \u2192 {section.budget:,}"
        assert _cell(model, row, "Before") == f"{old.tokens.heuristic:,}"
        assert _cell(model, row, "After") == f"{section.tokens.heuristic:,}"
        delta = section.tokens.heuristic - old.tokens.heuristic
        assert _cell(model, row, "\u0394").replace("\u2212", "-") == f"{delta:+,}"
    whole = len(low.sections)
    assert _cell(model, whole, "Section") == "Whole context"
    assert _cell(model, whole, "Before") == f"{base.context_tokens.heuristic:,}"
    assert _cell(model, whole, "After") == f"{low.context_tokens.heuristic:,}"

    # The candidates that left: the ones in the baseline's context and not in the current one.
    def kept(trace: Trace) -> set[str]:
        return {i.id for i in trace.items if i.status in ("included", "truncated") and i.kept_chars > 0}

    left = kept(base) - kept(low)
    table = tab.changes
    assert table.model.rowCount() == len(left) == 3
    assert {table.model.index(r, 0).data(Qt.ItemDataRole.UserRole + 1).item_id for r in range(3)} == left
    assert {_cell(table.model, r, "Change") for r in range(3)} == {"left"}
    assert _cell(table.model, 0, "Status") == "included \u2192 cut for budget"  # a lower budget: lost for room
    # The first change is selected, so its detail (both reasons) shows at once.
    first = diff.items[0]
    detail = table.detail.toPlainText()
    assert first.reason_before in detail and first.reason_after in detail
    assert "Baseline:" in detail and "Now:" in detail

    # Only the change kinds that occur get a filter button.
    shown = [c for c, b in table.status_buttons.items() if b.isVisible()]
    assert shown == ["left"]
    assert table.status_buttons["left"].text() == "left 3"

    assert tab.diff_view.toPlainText() == "\n".join(diff.context_diff)
    assert "1 line added, 65 lines removed" in tab.diff_caption.text()


def test_header_names_the_baseline_and_the_change(tab: WhatIfTab, runs: dict[str, Trace]) -> None:
    base, low = runs["base"], runs["low"]
    tab.set_diff(diff_traces(base, low), "AUTH-L1-001")
    text = tab.header.text()
    assert "<b>Baseline:</b> AUTH-L1-001, budget 4,000 \u2192 current budget 1,500" in text
    before, after = base.context_tokens.heuristic, low.context_tokens.heuristic
    assert f"context {before:,} \u2192 {after:,} heuristic tokens" in text
    assert f"(\u2212{before - after:,})" in text
    assert tab.header.fontMetrics().horizontalAdvance(html.unescape(_strip_tags(text))) < 880  # one line


def _strip_tags(text: str) -> str:
    return re.sub(r"<[^>]+>", "", text)


def test_header_flags_a_different_task(tab: WhatIfTab, runs: dict[str, Trace]) -> None:
    tab.set_diff(diff_traces(runs["base"], runs["other"]))
    text = tab.header.text()
    assert text.startswith("<b>Different task:</b> the baseline is AUTH-L1-001 (auth-sessions)")
    assert "REC-L1-001 (reconciliation)" in text


def test_an_unchanged_run_says_so(tab: WhatIfTab, runs: dict[str, Trace]) -> None:
    tab.set_diff(diff_traces(runs["base"], runs["base"]))
    assert tab.header.text().endswith("\u2014 no change")
    assert tab.changes.model.rowCount() == 0
    assert tab.diff_view.toPlainText() == ""
    assert "the same as the baseline's" in tab.diff_caption.text()


def test_change_buttons_and_text_filter_the_changes(tab: WhatIfTab, runs: dict[str, Trace]) -> None:
    diff = diff_traces(runs["base"], runs["tiny"])
    tab.set_diff(diff)
    table = tab.changes
    counts = {c: len(diff.changed(c)) for c in ("left", "shrank")}
    assert counts["left"] > 0 and counts["shrank"] > 0
    assert table.shown() == len(diff.items) == sum(counts.values())

    table.status_buttons["left"].setChecked(False)
    assert table.shown() == counts["shrank"]
    assert {table.proxy.index(r, 0).data() for r in range(table.shown())} == {"shrank"}
    assert table.count.text() == f"{counts['shrank']} of {len(diff.items)} changes"
    table.status_buttons["left"].setChecked(True)
    assert table.shown() == len(diff.items)

    table.filter.setText("design.md")
    expected = [c for c in diff.items if "design.md" in c.label.rsplit("/", 1)[-1]]
    assert 0 < table.shown() == len(expected) < len(diff.items)
    table.filter.clear()


def test_double_click_and_enter_emit_the_item_id(qtbot, tab: WhatIfTab, runs: dict[str, Trace]) -> None:
    diff = diff_traces(runs["base"], runs["low"])
    tab.set_diff(diff)
    view = tab.changes.view
    index = view.model().index(1, 1)
    expected = diff.items[1].item_id
    where = view.visualRect(index).center()
    with qtbot.waitSignal(tab.itemActivated, timeout=5000) as blocker:
        qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=where)  # the press a double-click follows
        qtbot.mouseDClick(view.viewport(), Qt.MouseButton.LeftButton, pos=where)
    assert blocker.args == [expected]

    view.setFocus()
    view.setCurrentIndex(view.model().index(2, 0))
    with qtbot.waitSignal(tab.itemActivated, timeout=5000) as blocker:
        qtbot.keyClick(view, Qt.Key.Key_Return)
    assert blocker.args == [diff.items[2].item_id]


def test_diff_lines_are_coloured(tab: WhatIfTab, runs: dict[str, Trace]) -> None:
    diff: TraceDiff = diff_traces(runs["base"], runs["low"])
    tab.set_diff(diff)
    doc = tab.diff_view.document()

    def formats(number: int) -> list[QTextCharFormat]:
        layout = doc.findBlockByNumber(number).layout()
        return [QTextCharFormat(r.format) for r in layout.formats()]

    def background(line: str) -> QColor | None:
        found = formats(diff.context_diff.index(line))
        return found[0].background().color() if found else None

    removed = next(x for x in diff.context_diff if x.startswith("-") and not x.startswith("--- "))
    added = next(x for x in diff.context_diff if x.startswith("+") and not x.startswith("+++ "))
    context = next(x for x in diff.context_diff if x.startswith(" "))
    assert background(removed) == QColor(_DIFF_COLOURS["del"][0])
    assert background(added) == QColor(_DIFF_COLOURS["add"][0])
    assert background(context) is None
    hunk = formats(2)[0]
    assert diff.context_diff[2].startswith("@@")
    assert hunk.foreground().color() == QColor(_DIFF_COLOURS["hunk"][0])
    assert tab.diff_view.isReadOnly()
    assert tab.diff_view.font() == fixed_pitch_font()  # the checked monospace (tests/gui/widgets/test_fonts.py)


def test_a_dark_palette_switches_the_diff_colours(tab: WhatIfTab, runs: dict[str, Trace]) -> None:
    diff = diff_traces(runs["base"], runs["low"])
    tab.set_diff(diff)
    dark = QPalette(tab.palette())
    dark.setColor(QPalette.ColorRole.Window, QColor("#202124"))
    dark.setColor(QPalette.ColorRole.WindowText, QColor("#e8eaed"))
    tab.setPalette(dark)
    number = next(n for n, x in enumerate(diff.context_diff) if x.startswith("-") and not x.startswith("--- "))
    layout = tab.diff_view.document().findBlockByNumber(number).layout()
    found = [QTextCharFormat(r.format) for r in layout.formats()]
    assert found[0].background().color() == QColor(_DIFF_COLOURS["del"][1])


def test_diff_highlighter_kinds() -> None:
    lines = ("--- baseline", "+++ current", "@@ -1 +1 @@", "+a", "-b", " c", "\u2026 3 more lines")
    assert [DiffHighlighter.kind(x) for x in lines] == [
        "meta",
        "meta",
        "hunk",
        "add",
        "del",
        None,
        "more",
    ]


def test_none_again_clears_the_tab(tab: WhatIfTab, runs: dict[str, Trace]) -> None:
    tab.set_diff(diff_traces(runs["base"], runs["low"]))
    tab.set_diff(None)
    assert tab.header.text() == html.escape(EXPLANATION)
    assert tab.splitter.isHidden()
    assert tab.changes.model.rowCount() == 0 and tab.sections_model.rowCount() == 0


def test_the_tab_renders_offscreen(tab: WhatIfTab, runs: dict[str, Trace], tmp_path: Path) -> None:
    tab.set_diff(diff_traces(runs["base"], runs["low"]), "AUTH-L1-001")
    image = tab.grab()
    assert (image.width(), image.height()) == (900, 560)
    assert image.save(str(tmp_path / "whatif.png"))
    # The sections table shows every row without scrolling, and the panes below get the rest.
    sections = tab.sections
    assert sections.verticalScrollBar().maximum() == 0
    assert tab.changes.height() > 250 and tab.diff_view.width() > 200
