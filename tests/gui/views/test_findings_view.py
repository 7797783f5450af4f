"""Findings in the window: the outline's markers, the header's line, the Findings tab, going to an item.

On sample_projects/storefront-web at the default budget the JavaScript security rule file
matches a task file (a .ts or .tsx file) of 15 of the 16 tasks and does not fit the
security budget in any of them.  Every worker loads it as project memory all the same, so
these tests use a copy whose JavaScript rule file loads only for paths no task has: 15
``rule-cut`` errors.  CHK-L1-001 modifies src/lib/http.ts.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from ctxviewer.engine.analysis.findings import CODES, ERROR, INFO, WARNING, Finding
from ctxviewer.gui.views.findings_view import FindingRow, count_phrase, findings_line, severity_icon, worst
from ctxviewer.gui.window import MainWindow
from tests.conftest import SAMPLES
from tests.gui.conftest import open_and_wait

JS_RULE = "rule:languages/javascript/CLAUDE.md"
#: Front matter that makes Claude Code load a rule file only for files under nowhere/.
UNLOADED = '---\npaths: ["nowhere/**"]\n---\n'


@pytest.fixture
def storefront(tmp_path: Path) -> Path:
    """storefront-web whose JavaScript rule file no worker's session loads."""
    root = tmp_path / "storefront-web"
    shutil.copytree(SAMPLES / "storefront-web", root)
    rule = root / ".claude/rules/security/languages/javascript/CLAUDE.md"
    rule.write_text(UNLOADED + rule.read_text(encoding="utf-8"), encoding="utf-8")
    return root


def _finding(code: str, severity: str, task: str = "T-1", item: str | None = None) -> FindingRow:
    return FindingRow(Finding(code, severity, "feat", task, item, None, f"{code} happened."), "")


def test_counts_worst_and_the_header_line() -> None:
    rows = [_finding("tie-by-order", INFO), _finding("rule-cut", ERROR), _finding("rule-cut", ERROR)]
    assert worst(rows) == ERROR and worst([_finding("x", WARNING), _finding("y", INFO)]) == WARNING
    assert worst([]) is None
    assert count_phrase(rows) == "3 findings (2 errors, 1 info)"
    line = findings_line(rows)
    # Worst first, each code once, by its description; a link the window opens the list with.
    assert line.startswith("<a href='findings'") and "<b>3 findings</b>: " in line
    assert f"{CODES['rule-cut'][1]}, {CODES['tie-by-order'][1]}</a>" in line
    assert findings_line([]) == ""


def _rows_of(window: MainWindow) -> list[FindingRow]:
    return list(window.tabs.findings.rows())


def test_a_cut_rule_file_shows_in_the_header_the_tab_and_goes_to_its_row(
    qtbot, window: MainWindow, storefront: Path
) -> None:
    open_and_wait(qtbot, window, storefront, "cart-checkout", "CHK-L1-001")
    cut = [r for r in window.findings.rows if r.code == "rule-cut"]
    assert [(r.item, r.severity, r.task) for r in cut] == [(JS_RULE, ERROR, "CHK-L1-001")]
    assert cut[0].item_label == "languages/javascript/CLAUDE.md"
    # The header's line names it and opens the list.
    assert window.findings_line.isVisible()
    assert CODES["rule-cut"][1] in window.findings_line.text()
    window.findings_line.linkActivated.emit("findings")
    assert window.tabs.current_tab() == "findings" and window.tabs.findings.this_task.isChecked()
    assert any(r.code == "rule-cut" for r in _rows_of(window))
    # Enter on the finding: the rule file, selected in the Rules tab.
    table = window.tabs.findings.table
    assert table.select(lambda r: r.code == "rule-cut")
    table.view.setFocus()
    qtbot.keyClick(table.view, Qt.Key.Key_Return)
    assert window.tabs.current_tab() == "rules"
    assert window.tabs.rules.current_row().id == JS_RULE


def test_the_background_pass_marks_every_task_whose_rule_file_is_cut(
    qtbot, window: MainWindow, storefront: Path
) -> None:
    with qtbot.waitSignal(window.batchFinished, timeout=60_000):
        open_and_wait(qtbot, window, storefront, "cart-checkout", "CHK-L1-001")
    cut = {key for key, total in window.batch.totals.items() if any(f.code == "rule-cut" for f in total.findings)}
    assert len(window.batch.totals) == 16 and len(cut) == 15
    outline, model = window.docks.outline, window.docks.outline.model
    for f_row in range(model.rowCount()):
        feature = model.index(f_row, 0)
        for t_row in range(model.rowCount(feature)):
            label = model.index(t_row, 0, feature)
            at = outline.task_at(outline.proxy.mapFromSource(label))
            assert at is not None
            icon = label.data(Qt.ItemDataRole.DecorationRole)
            tip = outline.tooltip(label) or ""
            if at in cut:  # an error marker, and the tooltip lists the finding
                assert icon is not None and not icon.isNull(), at
                assert f"{at[1]}: " in tip and "error" in tip.split("\n\n", 1)[1], at
            elif not window.batch.totals[at].findings:
                assert icon is None and "finding" not in tip, at
    # The feature's list holds every cart-checkout task's cut, in task order.
    window.findings.show(feature=True)
    tasks = [t.id for t in window.project.feature("cart-checkout").tasks]
    listed = [r.task for r in _rows_of(window) if r.code == "rule-cut"]
    assert listed == [t for t in tasks if ("cart-checkout", t) in cut]
    assert "not assessed yet" not in window.tabs.findings.summary.text()


def test_a_finding_of_another_task_selects_that_task_first(qtbot, window: MainWindow, storefront: Path) -> None:
    with qtbot.waitSignal(window.batchFinished, timeout=60_000):
        open_and_wait(qtbot, window, storefront, "cart-checkout", "CHK-L1-001")
    window.findings.show(feature=True)
    other = next(r for r in _rows_of(window) if r.code == "rule-cut" and r.task != "CHK-L1-001")
    with qtbot.waitSignal(window.traceShown, timeout=30_000):
        window.tabs.findings.findingActivated.emit(other)
    assert window.trace is not None and window.trace.task_id == other.task
    assert window.tabs.current_tab() == "rules"
    assert window.tabs.rules.current_row().id == JS_RULE


def test_a_generated_project_marks_only_the_task_whose_matched_rule_is_cut(qtbot, window, tmp_path) -> None:
    from tests.factories import make_project

    # 80 rules of 72 characters (title, level, when lines): ~5,800 characters of kept rule
    # lines, over the 4,800-character security limit of the factory's budget (4,000 tokens,
    # a 30 % security share); 60 of them (4,404 characters) would fit.  T-1 modifies a .ts
    # file (the JavaScript rule file matches it), T-2 a .go file (no rule file matches); the
    # one spec paragraph holds "script", a keyword of both titles, so neither context is empty.
    rule = UNLOADED + "".join(
        f"## Rule: Rule number {n:02d} about scripts\n**Level**: strict\n**When**: always\n" for n in range(80)
    )
    tasks = [
        {
            "id": "T-1",
            "title": "Script",
            "description": "",
            "files": {"create": [], "modify": ["src/app.ts"], "read": []},
        },
        {
            "id": "T-2",
            "title": "Script server",
            "description": "",
            "files": {"create": [], "modify": ["src/app.go"], "read": []},
        },
    ]
    root = make_project(
        tmp_path / "gen", tasks, requirements="Script things.\n", rules={"languages/javascript/CLAUDE.md": rule}
    )
    with qtbot.waitSignal(window.batchFinished, timeout=60_000):
        open_and_wait(qtbot, window, root, "feat", "T-1")
    assert [(r.code, r.item) for r in window.findings.rows if r.code == "rule-cut"] == [("rule-cut", JS_RULE)]
    assert window.findings_line.isVisible()
    cut = {k[1] for k, t in window.batch.totals.items() if any(f.code == "rule-cut" for f in t.findings)}
    assert cut == {"T-1"}
    model = window.docks.outline.model
    feature = model.index(0, 0)
    icons = [model.index(r, 0, feature).data(Qt.ItemDataRole.DecorationRole) for r in range(2)]
    assert icons[0].cacheKey() == severity_icon(ERROR).cacheKey()  # the error marker
    others = window.batch.totals[("feat", "T-2")].findings
    assert worst(others) != ERROR  # T-2 has no error: at most a warning or info marker
    if others:
        assert icons[1].cacheKey() == severity_icon(worst(others)).cacheKey()
    else:
        assert icons[1] is None


def test_generated_projects_call_only_lost_candidates_drops_in_the_window(qtbot, window, tmp_path) -> None:
    """Generated projects (tests/cli/test_generated_findings.py), default profile, their budget in
    ctxviewer.yaml: each task's outline marker is an error exactly where the engine finds a
    rule-cut; in the Rules and Paragraphs tabs the drop chips (cut for budget, outranked)
    alone show exactly the cut and outranked rows, and the not-a-candidate chip alone shows
    rows that read 'not a candidate', muted grey, never the red of a drop."""
    from ctxviewer.engine.analysis.findings import findings_of
    from ctxviewer.engine.project.loading import load_project
    from ctxviewer.engine.runs.pipeline import assemble
    from ctxviewer.engine.trace.model import CUT_FOR_BUDGET, DROPS, NOT_CANDIDATE
    from ctxviewer.gui.widgets.models import RowRole, status_colour
    from tests.cli.test_generated_findings import SEEDS, generate
    from tests.factories import write

    red = status_colour(CUT_FOR_BUDGET).name()
    seen_cut = seen_never = 0
    chosen = [s for s in SEEDS if s % 2 == 0][:6]  # even seeds: the default profile
    for seed in chosen:
        root, budget, profile, matches, _rules = generate(tmp_path, seed)
        assert profile == "mahabharatha"
        write(root, "ctxviewer.yaml", f"budget:\n  total: {budget}\n")
        project = load_project(root)
        expected_cut = {
            task.id
            for _f, task in project.tasks()
            if any(f.code == "rule-cut" for f in findings_of(assemble(project, "feat", task.id, exact=False)))
        }
        first = sorted(matches)[0]
        with qtbot.waitSignal(window.batchFinished, timeout=60_000):
            trace = open_and_wait(qtbot, window, root, "feat", first)
        marked = {k[1] for k, t in window.batch.totals.items() if any(f.code == "rule-cut" for f in t.findings)}
        assert marked == expected_cut, seed
        model = window.docks.outline.model
        feature = model.index(0, 0)
        for r in range(model.rowCount(feature)):
            index = model.index(r, 0, feature)
            task_id = window.docks.outline.task_at(window.docks.outline.proxy.mapFromSource(index))[1]
            icon = index.data(Qt.ItemDataRole.DecorationRole)
            if task_id in expected_cut:
                assert icon.cacheKey() == severity_icon(ERROR).cacheKey(), (seed, task_id)
        for table, kinds in ((window.tabs.rules, "rule_file"), (window.tabs.paragraphs, "spec_paragraph")):
            items = [i for i in trace.items if i.kind == kinds]
            for fate, button in table.status_buttons.items():
                button.setChecked(fate in DROPS)
            rows = [table.proxy.index(n, 0).data(RowRole) for n in range(table.proxy.rowCount())]
            assert sorted(r.id for r in rows) == sorted(i.id for i in items if i.status in DROPS), (seed, kinds)
            seen_cut += sum(1 for r in rows if r.status == CUT_FOR_BUDGET)
            for fate, button in table.status_buttons.items():
                button.setChecked(fate == NOT_CANDIDATE)
            headers = [table.model.headerData(c, Qt.Orientation.Horizontal) for c in range(table.model.columnCount())]
            status_col = headers.index("Status")
            for n in range(table.proxy.rowCount()):
                cell = table.proxy.index(n, status_col)
                assert cell.data(RowRole).status == NOT_CANDIDATE
                assert cell.data(Qt.ItemDataRole.DisplayRole) == "not a candidate"
                assert cell.data(Qt.ItemDataRole.ForegroundRole).color().name() != red
                seen_never += 1
            for button in table.status_buttons.values():
                button.setChecked(True)
    assert seen_cut > 0 and seen_never > 0  # both cases were on screen


def test_the_status_bar_counts_one_task_in_the_singular(qtbot, window, tmp_path) -> None:
    """One task, within budget (a 2-word title against 4,000 tokens), no error: '1 task', not '1 tasks'."""
    from tests.factories import make_project

    root = make_project(tmp_path, [{"id": "T", "title": "Only task", "files": {}}], requirements="Only task.\n")
    with qtbot.waitSignal(window.batchFinished, timeout=60_000):
        open_and_wait(qtbot, window, root, "feat", "T")
    assert window.status.batch_label.text() == "1 task, 0 over budget, 0 with error findings"
