"""The Computed tab: signals, the computed profile's entries, and its debug record.

The project built here is small enough to work out by hand (see :func:`computed_project`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from PySide6.QtCore import Qt

from ctxviewer.engine.project.loading import load_project
from ctxviewer.engine.runs.pipeline import assemble
from ctxviewer.engine.trace.model import INCLUDED, NOT_CANDIDATE, Signal, Signals, Trace
from ctxviewer.gui.views.computed_view import (
    NO_SIGNALS,
    NO_TRACE,
    NOT_COMPUTED,
    ComputedTab,
    entry_html,
    entry_items,
    signal_rows,
    signals_summary,
)
from tests.factories import make_project, write

CMAP = ".mahabharatha/context-map.yaml"

SIGNALS = Signals(
    keywords=(Signal("keyword", "refund", ("title", "description")), Signal("keyword", "ledger", ("title",))),
    domains=(Signal("domain", "api", ("keyword 'endpoint'",)), Signal("domain", "database", ("keyword 'schema'",))),
    files=(Signal("file", "src/refund.py", ("description",)), Signal("file", "a.md", ("acceptance_criteria[1]",))),
    task=(Signal("type", "feature", ("type",)), Signal("complexity", "normal", ("complexity",))),
    stopwords=(Signal("stopword", "the", ("description",)),),
)


def dump(root: Path, rel: str, data: Any) -> None:
    write(root, rel, yaml.safe_dump(data, sort_keys=False))


def computed_project(root: Path) -> Path:
    """T1 "Refund ledger webhook", easy, depending on D1 (completed, by its handoff) and D2 (pending).

    Keywords: refund, ledger, webhook (title), src, api, endpoint (description); domain
    api (by 'endpoint'); file src/refund.py; stopwords handle, the, for.
    """
    make_project(
        root,
        [
            {
                "id": "T1",
                "title": "Refund ledger webhook",
                "description": "Handle the refund in src/refund.py for the API endpoint",
                "type": "feature",
                "complexity": "easy",
                "dependencies": ["D1", "D2"],
            },
            {"id": "D1", "title": "Ledger tables"},
            {"id": "D2", "title": "Webhook receiver", "status": "pending"},
        ],
    )
    dump(
        root,
        CMAP,
        {
            "components": [
                # refund in the name (+2), refund and src in the location (+1 +1), api in the
                # notes (+1), the file mentioned in the location (+3): 8
                {"component": "RefundService", "location": "src/refund.py:1-80", "notes": "refund flows over the api"},
                {"component": "Other", "location": "src/other.py", "notes": ""},  # src in the location: 1
            ],
            "knowledge": [
                {
                    "type": "pattern",
                    "summary": "Post refunds as reversals",
                    "file": "src/ledger.py",
                    "tags": ["refund", "ledger"],
                },
                {"type": "gotcha", "summary": "Webhooks are retried", "severity": "high", "tags": ["webhook"]},
                {"type": "decision", "summary": "Refunds are synchronous", "rationale": "simpler", "tags": ["refund"]},
                {"type": "pattern", "summary": "Money in minor units", "tags": ["money"]},  # no match
                {"type": "task", "id": "AUTH-1", "tags": ["ledger"]},  # related: counted, never rendered
            ],
        },
    )
    dump(
        root,
        ".mahabharatha/handoffs/D1.yaml",
        {
            "status": "completed",
            "summary": "Ledger tables and helpers.",
            "files_created": [{"path": "src/ledger.py", "reason": "tables"}],
            "open_questions": [{"question": "Partial refunds?", "blocking": True, "recommendation": "Full only."}],
        },
    )
    return root


def run(root: Path, profile: str = "computed") -> Trace:
    return assemble(load_project(root), "feat", "T1", {"profile": profile}, exact=False)


@pytest.fixture
def trace(tmp_path: Path) -> Trace:
    return run(computed_project(tmp_path))


@pytest.fixture
def tab(qtbot) -> ComputedTab:
    widget = ComputedTab()
    qtbot.addWidget(widget)
    widget.resize(820, 640)
    widget.show()
    return widget


def cells(table: Any, columns: int | None = None) -> list[tuple[str, ...]]:
    """The table's rows as shown (through its filter and sort)."""
    proxy = table.proxy
    n = columns if columns is not None else proxy.columnCount()
    return [tuple(proxy.index(r, c).data() for c in range(n)) for r in range(proxy.rowCount())]


# -- signals -------------------------------------------------------------------------------


def test_signal_rows_go_keywords_domains_files_task_then_stopwords() -> None:
    assert [(s.kind, s.value) for s in signal_rows(SIGNALS)] == [
        ("keyword", "refund"),
        ("keyword", "ledger"),
        ("domain", "api"),
        ("domain", "database"),
        ("file", "src/refund.py"),
        ("file", "a.md"),
        ("type", "feature"),
        ("complexity", "normal"),
        ("stopword", "the"),
    ]


def test_signals_summary_counts_and_names() -> None:
    assert signals_summary(SIGNALS) == (
        "2 keywords \u00b7 domains: api, database \u00b7 2 files mentioned \u00b7 type feature"
        " \u00b7 complexity normal \u00b7 1 stopword removed"
    )
    one = Signals(keywords=(Signal("keyword", "x", ("title",)),))
    assert signals_summary(one) == "1 keyword \u00b7 no domain \u00b7 no file mentioned"
    assert signals_summary(Signals()) == NO_SIGNALS


def test_the_signals_table_shows_kind_value_and_sources(tab: ComputedTab, trace: Trace) -> None:
    tab.set_trace(trace)
    assert cells(tab.signals) == [
        ("keyword", "refund", "title; description"),
        ("keyword", "ledger", "title"),
        ("keyword", "webhook", "title"),
        ("keyword", "src", "description"),
        ("keyword", "api", "description"),
        ("keyword", "endpoint", "description"),
        ("domain", "api", "keyword 'endpoint'"),
        ("file", "src/refund.py", "description"),
        ("type", "feature", "type"),
        ("complexity", "easy", "complexity"),
        ("stopword", "handle", "description"),
        ("stopword", "the", "description"),
        ("stopword", "for", "description"),
    ]
    assert tab.signals_summary.text() == (
        "6 keywords \u00b7 domains: api \u00b7 1 file mentioned \u00b7 type feature \u00b7 complexity easy"
        " \u00b7 3 stopwords removed"
    )


# -- entries -------------------------------------------------------------------------------


EXPECTED_ENTRIES = [
    ("Patterns", "Post refunds as reversals", "2", "1", INCLUDED),
    ("Patterns", "Money in minor units", "0", "", "not a candidate"),
    ("Warnings", "Webhooks are retried", "1", "1", INCLUDED),
    ("Decisions", "Refunds are synchronous", "1", "1", INCLUDED),
    ("Prior work", "D1 \u2014 Ledger tables", "", "1", INCLUDED),
    ("Prior work", "D2", "", "2", "not a candidate"),  # pending, not completed
    ("Code refs", "RefundService", "8", "1", INCLUDED),
    ("Code refs", "Other", "1", "2", INCLUDED),
    ("Questions", "Partial refunds?", "", "1", INCLUDED),
    ("Related", "AUTH-1", "1", "1", "not a candidate"),  # the format has no place for it
]


def test_the_entries_table_lists_every_candidate_by_section_then_rank(tab: ComputedTab, trace: Trace) -> None:
    tab.set_trace(trace)
    assert cells(tab.entries, 5) == EXPECTED_ENTRIES
    assert tab.entries.count.text() == "10 entries"
    assert tab.entries_message.text() == (
        "7 of 10 entries included \u00b7 Patterns to Follow 1 \u00b7 Warnings 1 \u00b7 Relevant Decisions 1"
        " \u00b7 Prior Work 1 \u00b7 Code References 2 \u00b7 Open Questions (Blocking) 1"
    )
    reasons = [row[6] for row in cells(tab.entries)]
    assert reasons[1] == "no tag among the task's keywords or domains"
    assert reasons[5] == "status 'pending' in the task graph (no handoff file), not 'completed': skipped"
    assert tab.debug.toPlainText() == trace.debug and tab.debug.isReadOnly()


def test_the_status_buttons_filter_the_entries(tab: ComputedTab, trace: Trace) -> None:
    tab.set_trace(trace)
    tab.entries.status_buttons[INCLUDED].setChecked(False)
    assert [row[1] for row in cells(tab.entries)] == ["Money in minor units", "D2", "AUTH-1"]
    assert tab.entries.count.text() == "3 of 10 entries"
    tab.entries.status_buttons[NOT_CANDIDATE].setChecked(False)
    assert tab.entries.count.text() == "0 of 10 entries"
    tab.entries.status_buttons[INCLUDED].setChecked(True)
    assert tab.entries.count.text() == "7 of 10 entries"


def test_a_component_detail_shows_its_score_term_by_term(trace: Trace) -> None:
    item = next(i for i in entry_items(trace) if i.id == "component:1")
    text = entry_html(item)
    for part in (
        "<b>RefundService</b>",
        "Code References \u00b7 component \u00b7 score <b>8</b> \u00b7 rank <b>1</b>",
        "Location: src/refund.py:1-80",
        "Notes: refund flows over the api",
        "+2 = 1 \u00d7 2 (keyword in the component name: refund)",
        "+2 = 2 \u00d7 1 (keyword in the location: refund, src)",
        "+1 = 1 \u00d7 1 (domain in the notes: api)",
        "+3 = 1 \u00d7 3 (file mentioned, in the location: src/refund.py)",
        "Source: .mahabharatha/context-map.yaml components[1]",
    ):
        assert part in text, part


def test_a_knowledge_detail_shows_tags_matched_and_its_text(trace: Trace) -> None:
    item = next(i for i in entry_items(trace) if i.id == "knowledge:1")
    text = entry_html(item)
    assert "Tags (matched in bold): <b>refund</b>, <b>ledger</b>" in text
    assert "File: src/ledger.py" in text
    assert "**Post refunds as reversals** (see: src/ledger.py)" in text
    gotcha = entry_html(next(i for i in entry_items(trace) if i.id == "knowledge:2"))
    assert "Severity: high" in gotcha


def test_selecting_an_entry_fills_the_detail_pane(tab: ComputedTab, trace: Trace) -> None:
    tab.set_trace(trace)
    assert tab.select_item("dependency:D1")
    assert "Ledger tables and helpers." in tab.entries.detail.toPlainText()
    assert not tab.select_item("knowledge:99")


def test_activating_an_entry_emits_its_item(qtbot, tab: ComputedTab, trace: Trace) -> None:
    tab.set_trace(trace)
    assert tab.select_item("component:1")
    tab.entries.view.setFocus()
    with qtbot.waitSignal(tab.itemActivated, timeout=2000) as blocker:
        qtbot.keyClick(tab.entries.view, Qt.Key.Key_Return)
    item = blocker.args[0]
    assert item.id == "component:1" and item.span is not None
    row = "| `src/refund.py:1-80` | RefundService | refund flows over the api |"
    assert trace.context[item.span[0] : item.span[1]] == row


# -- other profiles and no trace ------------------------------------------------------------


def test_another_profile_explains_the_empty_entries_and_keeps_the_signals(tab: ComputedTab, tmp_path: Path) -> None:
    trace = run(computed_project(tmp_path), "mahabharatha")
    assert trace.debug == ""
    tab.set_trace(trace)
    assert tab.entries_message.text() == NOT_COMPUTED
    assert tab.entries.model.rowCount() == 0 and not tab.entries.detail.isVisible()
    assert NOT_COMPUTED in tab.debug.toPlainText() and "mahabharatha profile" in tab.debug.toPlainText()
    assert tab.signals.model.rowCount() == 13  # the signals are every profile's
    # back to a computed trace: the entries and their detail pane return
    tab.set_trace(run(tmp_path))
    assert tab.entries.model.rowCount() == 10 and tab.entries.detail.isVisible()


def test_no_trace_says_so_everywhere(tab: ComputedTab, trace: Trace) -> None:
    tab.set_trace(trace)
    tab.set_trace(None)
    assert tab.signals_summary.text() == NO_TRACE
    assert tab.entries_message.text() == NO_TRACE
    assert tab.debug.toPlainText() == NO_TRACE
    assert tab.signals.model.rowCount() == 0 and tab.entries.model.rowCount() == 0


def test_the_tab_reads_at_an_800_px_central_area(tab: ComputedTab, trace: Trace) -> None:
    tab.resize(800, 600)
    tab.set_trace(trace)
    left, right = tab.splitter.sizes()
    assert 0.28 < left / (left + right) < 0.42
    # Section, Entry, Score, Rank and Status fit the entries pane without scrolling
    view = tab.entries.view
    assert sum(view.columnWidth(c) for c in range(5)) <= view.viewport().width()
