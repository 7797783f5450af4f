"""Opening big projects: the outline over its lean model, totals, filtering, watching, the row hand-off.

The outline lists every feature and task from one label item per task (tooltips and the
tokens cells come when needed), so these tests pin down what it shows against the project
it was given: rows, greyed features and why, totals and their colour, the filter, the
selection and keyboard navigation -- and, in the window, that a project of a thousand tasks
gets every total, and that what is watched is exactly what a full stat of the project says.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
from PySide6.QtCore import QEvent, QModelIndex, Qt
from PySide6.QtGui import QHelpEvent, QPalette
from PySide6.QtWidgets import QApplication, QToolTip

from ctxviewer.engine.project.loading import Project, load_project
from ctxviewer.gui.views.outline import PENDING_TIP, ProjectOutline, TaskTotal, task_label
from ctxviewer.gui.widgets.models import is_dark, status_colour
from ctxviewer.gui.window import MAX_WATCHED, MainWindow, resolve_target
from ctxviewer.gui.worker import Handoff
from tests.gui.conftest import open_and_wait

WORDS = ["ledger", "session", "refund", "export", "tenant", "invoice", "cursor", "replica"]
SPEC = "## Requirements\n\nThe ledger keeps every session and refund in order.\n\nExports are audited.\n"


def make_project(root: Path, features: dict[str, object], rules: int = 0) -> Path:
    """A project: *features* maps a name to a list of (id, title), "broken", "yaml:<list>" or None (no graph)."""
    specs = root / ".gsd/specs"
    for name, graph in features.items():
        folder = specs / name
        folder.mkdir(parents=True)
        (folder / "requirements.md").write_text(SPEC, encoding="utf-8")
        if graph == "broken":
            (folder / "task-graph.json").write_text('{"tasks": [\n  {"id": "T1",}\n]}', encoding="utf-8")
        elif isinstance(graph, tuple) and graph[0] == "yaml":
            lines = ["tasks:"] + [f"  - id: {i}\n    title: {t}" for i, t in graph[1]]
            (folder / "task-graph.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
        elif isinstance(graph, list):
            tasks = [{"id": i, "title": t, "files": {"create": [f"src/{i.lower()}.py"]}} for i, t in graph]
            (folder / "task-graph.json").write_text(json.dumps({"tasks": tasks}), encoding="utf-8")
    for n in range(rules):
        rule = root / f".claude/rules/security/_core/rule-{n}.md"
        rule.parent.mkdir(parents=True, exist_ok=True)
        rule.write_text(f"## Rule: keep the ledger {n}\n**Level**: strict\n\nNever log a session token.\n")
    return root


def tasks_of(prefix: str, count: int) -> list[tuple[str, str]]:
    """*count* (id, title) pairs; the titles mix a few words, so filters match some of them."""
    return [
        (f"{prefix}-{n:03d}", f"{WORDS[n % len(WORDS)]} {WORDS[(n * 3) % len(WORDS)]} step {n}") for n in range(count)
    ]


@pytest.fixture
def outline(qtbot) -> ProjectOutline:
    widget = ProjectOutline()
    qtbot.addWidget(widget)
    widget.resize(400, 600)
    widget.show()
    return widget


@pytest.fixture
def mixed(tmp_path: Path) -> Project:
    root = make_project(
        tmp_path / "mixed",
        {
            "alpha": tasks_of("A", 3),
            "beta": None,
            "gamma": "broken",
            "delta": ("yaml", tasks_of("D", 2)),
        },
    )
    return load_project(root)


def shown(outline: ProjectOutline) -> dict[str, list[str]]:
    """What the tree shows: feature -> task labels, through the filter."""
    proxy = outline.proxy
    out: dict[str, list[str]] = {}
    for r in range(proxy.rowCount()):
        feature = proxy.index(r, 0)
        out[feature.data()] = [proxy.index(c, 0, feature).data() for c in range(proxy.rowCount(feature))]
    return out


def cell(outline: ProjectOutline, feature: str, task: str, column: int) -> QModelIndex:
    """The tree's (proxy) index of a task's cell."""
    proxy = outline.proxy
    for r in range(proxy.rowCount()):
        parent = proxy.index(r, 0)
        if parent.data() != feature:
            continue
        for c in range(proxy.rowCount(parent)):
            if outline.task_at(proxy.index(c, 0, parent)) == (feature, task):
                return proxy.index(c, column, parent)
    raise AssertionError(f"{feature}/{task} not shown")


def test_rows_counts_and_greyed_features_follow_the_project(outline: ProjectOutline, mixed: Project) -> None:
    outline.set_project(mixed)
    model = outline.model
    features = {f.name: f for f in mixed.features}
    assert [model.item(r, 0).text() for r in range(model.rowCount())] == [f.name for f in mixed.features]
    grey = outline.palette().color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text)
    for r, feature in enumerate(mixed.features):
        node, count = model.item(r, 0), model.item(r, 1)
        assert [node.child(c, 0).text() for c in range(node.rowCount())] == [
            task_label(t.id, t.title) for t in feature.tasks
        ]
        greyed = feature.graph_error is not None or not feature.has_graph
        assert (node.foreground().color() == grey) is greyed
        assert count.foreground().color() == grey
        expected_count = (
            "unreadable"
            if feature.graph_error is not None
            else "no graph"
            if not feature.has_graph
            else f"{len(feature.tasks)} tasks"
        )
        assert count.text() == expected_count
    row = {model.item(r, 0).text(): r for r in range(model.rowCount())}
    assert model.item(row["beta"], 0).toolTip() == "beta: no task-graph.json/.yaml, so no tasks to assemble"
    assert model.item(row["gamma"], 0).toolTip() == f"gamma: {features['gamma'].graph_error}"
    assert model.item(row["delta"], 0).toolTip() == f"delta: 2 tasks from {features['delta'].graph_path}"
    # Every feature is expanded, as expandAll() left them.
    assert all(outline.tree.isExpanded(outline.proxy.index(r, 0)) for r in range(outline.proxy.rowCount()))
    assert outline.empty.isHidden()
    outline.set_project(None)
    assert model.rowCount() == 0 and shown(outline) == {}
    # Empty, the pane says why and what fills it.
    assert not outline.empty.isHidden() and "Open Folder" in outline.empty.text()


def test_filter_keeps_matching_tasks_and_their_features(outline: ProjectOutline, tmp_path: Path) -> None:
    project = load_project(
        make_project(tmp_path / "p", {f"feature-{n}": tasks_of(f"F{n}", 40 + n) for n in range(5)} | {"empty": None})
    )
    outline.set_project(project)
    everything = {f.name: [task_label(t.id, t.title) for t in f.tasks] for f in project.features}
    assert shown(outline) == everything
    for text in ("REFUND", "step 1", "F3-00", "feature-2", "no such task"):
        outline.filter.setText(text)
        # A feature whose name matches shows with all its tasks; another, with its matching tasks
        # (and not at all without one).
        expected = {
            name: labels if text.lower() in name.lower() else [x for x in labels if text.lower() in x.lower()]
            for name, labels in everything.items()
        }
        assert shown(outline) == {
            name: labels for name, labels in expected.items() if labels or text.lower() in name.lower()
        }
        if text == "feature-2":
            assert shown(outline) == {"feature-2": everything["feature-2"]}
        assert all(outline.tree.isExpanded(outline.proxy.index(r, 0)) for r in range(outline.proxy.rowCount()))
    outline.filter.clear()
    assert shown(outline) == everything


def test_totals_say_tokens_over_budget_and_errors(outline: ProjectOutline, mixed: Project) -> None:
    outline.set_project(mixed)
    a0, a1, a2 = (t.id for t in mixed.feature("alpha").tasks)
    red = status_colour("failed", is_dark(outline.palette()))
    totals = [
        TaskTotal("alpha", a0, 1_234, 4_000, "cl100k_base"),
        TaskTotal("alpha", a1, 12_345, 4_000, "o200k_base"),
        TaskTotal("alpha", a2, 0, 0, "", "spec unreadable: permission denied"),
    ]
    for total in totals:
        outline.set_total(total)
    outline.set_total(TaskTotal("alpha", "NOPE", 1, 1, "x"))  # no such task: ignored
    outline.set_total(TaskTotal("nope", a0, 1, 1, "x"))
    texts = ["1,234", "12,345 \u26a0", "error"]
    tips = [
        "1,234 cl100k_base tokens in the assembled context; within the 4,000 budget",
        "12,345 o200k_base tokens in the assembled context; over the 4,000 budget by 8,345",
        "spec unreadable: permission denied",
    ]
    for total, text, tip in zip(totals, texts, tips, strict=True):
        index = cell(outline, "alpha", total.task_id, 1)
        assert outline.total_text("alpha", total.task_id) == text == index.data()
        assert outline.tooltip(index) == tip
        brush = index.data(Qt.ItemDataRole.ForegroundRole)
        assert (brush is not None and brush.color() == red) is (text != "1,234")
        right = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
        assert index.data(Qt.ItemDataRole.TextAlignmentRole) == right
    assert outline.total_text("alpha", "NOPE") == "" and outline.total_text("nope", a0) == ""
    # A later pass within budget takes the red away.
    outline.set_total(TaskTotal("alpha", a1, 3_000, 4_000, "o200k_base"))
    index = cell(outline, "alpha", a1, 1)
    assert index.data() == "3,000" and index.data(Qt.ItemDataRole.ForegroundRole) is None
    # The column is wide enough for the widest total.
    metrics = outline.tree.fontMetrics()
    assert outline.tree.header().sectionSize(1) >= metrics.horizontalAdvance("12,345 \u26a0")
    # A reload keeps the totals it is given.
    outline.set_project(mixed, totals)
    assert [outline.total_text("alpha", t.task_id) for t in totals] == texts
    assert cell(outline, "alpha", a1, 1).data(Qt.ItemDataRole.ForegroundRole).color() == red
    assert cell(outline, "delta", mixed.feature("delta").tasks[0].id, 1).data() is None


# Showing a tooltip on the offscreen platform says it cannot raise the tooltip window.
@pytest.mark.qt_log_ignore("This plugin does not support raise")
def test_task_tooltips_are_worked_out_when_asked(qtbot, outline: ProjectOutline, mixed: Project) -> None:
    outline.set_project(mixed)
    task = mixed.feature("alpha").tasks[1]
    label, tokens = cell(outline, "alpha", task.id, 0), cell(outline, "alpha", task.id, 1)
    assert outline.tooltip(label) == f"{task.id}: {task.title}"
    assert outline.tooltip(tokens) == PENDING_TIP
    assert outline.tooltip(outline.proxy.index(0, 0)) is None  # a feature: its item's own tooltip
    # Through the view, as a hovering mouse asks.
    viewport = outline.tree.viewport()
    outline.tree.scrollTo(label)
    centre = outline.tree.visualRect(label).center()
    event = QHelpEvent(QEvent.Type.ToolTip, centre, viewport.mapToGlobal(centre))
    outline.tree.viewportEvent(event)
    qtbot.waitUntil(lambda: QToolTip.text() == f"{task.id}: {task.title}", timeout=5_000)
    QToolTip.hideText()


def test_selection_is_quiet_and_the_keyboard_moves_between_tasks(
    qtbot, outline: ProjectOutline, mixed: Project
) -> None:
    outline.set_project(mixed)
    a0, a1, a2 = (t.id for t in mixed.feature("alpha").tasks)
    d0 = mixed.feature("delta").tasks[0].id
    with qtbot.assertNotEmitted(outline.taskChosen):
        assert outline.select_task("alpha", a1)
    assert outline.task_at(outline.tree.currentIndex()) == ("alpha", a1)
    assert not outline.select_task("alpha", "NOPE")
    outline.tree.setFocus()
    with qtbot.waitSignal(outline.taskChosen) as chosen:
        qtbot.keyClick(outline.tree, Qt.Key.Key_Down)
    assert chosen.args == ["alpha", a2]
    # Features are listed by name: past alpha's last task come beta (no tasks) and delta, then its first task.
    assert [f.name for f in mixed.features] == ["alpha", "beta", "delta", "gamma"]
    for _ in range(2):
        with qtbot.assertNotEmitted(outline.taskChosen):
            qtbot.keyClick(outline.tree, Qt.Key.Key_Down)
    with qtbot.waitSignal(outline.taskChosen) as chosen:
        qtbot.keyClick(outline.tree, Qt.Key.Key_Down)
    assert chosen.args == ["delta", d0]
    # Selecting a task the filter hides clears the filter.
    outline.filter.setText(a0)
    assert shown(outline) == {"alpha": [task_label(a0, mixed.feature("alpha").tasks[0].title)]}
    assert outline.select_task("delta", d0)
    assert outline.filter.text() == "" and outline.task_at(outline.tree.currentIndex()) == ("delta", d0)


def test_resolve_target_is_the_first_match_in_task_order(mixed: Project) -> None:
    pairs = mixed.tasks()

    def reference(feature: str | None, task: str | None) -> tuple[str, str] | None:
        for feat, t in pairs:
            if (feature is None or feat.name == feature) and (task is None or t.id == task):
                return feat.name, t.id
        return None

    names = [None, "alpha", "beta", "gamma", "delta", "nope"]
    ids = [None, *(t.id for _, t in pairs), "nope"]
    for feature in names:
        for task in ids:
            assert resolve_target(mixed, feature, task) == reference(feature, task)


def test_handoff_delivers_everything_in_order_in_bursts(qtbot) -> None:
    bursts: list[list[int]] = []
    handoff = Handoff(bursts.append)
    for n in range(100):  # put before the event loop runs: one burst
        handoff.put(n)
    qtbot.waitUntil(lambda: sum(map(len, bursts)) == 100, timeout=5_000)
    assert bursts == [list(range(100))]
    bursts.clear()
    done = threading.Event()

    def produce() -> None:
        for n in range(5_000):
            handoff.put(n)
        done.set()

    worker = threading.Thread(target=produce)
    worker.start()
    qtbot.waitUntil(lambda: done.is_set() and sum(map(len, bursts)) == 5_000, timeout=10_000)
    worker.join()
    assert [n for burst in bursts for n in burst] == list(range(5_000))
    assert all(bursts)  # no empty call


def test_a_throttled_handoff_waits_between_bursts_unless_flushed(qtbot) -> None:
    bursts: list[list[str]] = []
    handoff = Handoff(bursts.append, interval_ms=60_000)
    handoff.put("a")
    handoff.put("b")
    QApplication.processEvents()  # the queued call runs: it arms the interval, hands nothing over
    QApplication.processEvents()
    assert bursts == []
    handoff.flush()  # as the window does when the batch job reports it is done
    assert bursts == [["a", "b"]]
    handoff.flush()
    assert bursts == [["a", "b"]]  # nothing left: no empty call


def test_a_paused_handoff_keeps_its_items_until_resumed_or_flushed(qtbot) -> None:
    bursts: list[list[str]] = []
    handoff = Handoff(bursts.append)
    handoff.pause()
    handoff.put("a")
    handoff.put("b")
    qtbot.wait(50)  # the queued call has run, the interval (0 ms) has passed: nothing handed over
    assert bursts == []
    handoff.resume()
    qtbot.waitUntil(lambda: bursts == [["a", "b"]], timeout=5_000)
    handoff.pause()
    handoff.put("c")
    qtbot.wait(50)
    assert bursts == [["a", "b"]]
    handoff.flush()  # a flush hands over whatever waits, paused or not
    assert bursts == [["a", "b"], ["c"]]
    handoff.resume()  # nothing waits: no empty call
    qtbot.wait(50)
    assert bursts == [["a", "b"], ["c"]]


def test_a_thousand_tasks_open_and_every_total_arrives(qtbot, window: MainWindow, tmp_path: Path) -> None:
    features = {f"feature-{n:02d}": tasks_of(f"F{n:02d}", 40) for n in range(25)} | {"no-graph": None}
    root = make_project(tmp_path / "big", features)
    with qtbot.waitSignal(window.batchFinished, timeout=120_000):
        trace = open_and_wait(qtbot, window, root)
    project = window.project
    assert project is not None and trace.task_id == "F00-000"
    model = window.docks.outline.model
    assert [model.item(r, 0).text() for r in range(model.rowCount())] == [f.name for f in project.features]
    assert sum(model.item(r, 0).rowCount() for r in range(model.rowCount())) == 1_000
    totals = window.batch.totals
    assert sorted(totals) == sorted((f.name, t.id) for f, t in project.tasks())
    for (feature, task), total in totals.items():
        mark = " \u26a0" if total.over else ""
        assert window.docks.outline.total_text(feature, task) == ("error" if total.error else f"{total.tokens:,}{mark}")
    assert totals[("feature-00", "F00-000")].tokens == trace.context_tokens.get(trace.tokenizer)
    over = sum(1 for t in totals.values() if t.over)
    errors = sum(1 for t in totals.values() if any(f.severity == "error" for f in t.findings))
    assert window.status.batch_label.text() == f"1,000 tasks, {over:,} over budget, {errors:,} with error findings"


def reference_watch(window: MainWindow) -> list[str]:
    """What the window watched before the stat work moved to the loading thread (stat'ing all now)."""
    project = window.project
    assert project is not None and window.current is not None
    fs, paths = project.fs, project.settings.paths
    rels = [".", paths.specs, "ctxviewer.yaml", *(p for p in project.sources if p.endswith(".yaml"))]
    spec_dir = project.feature(window.current[0]).spec_dir
    rels += [spec_dir, *(f"{spec_dir}/{n}" for n in fs.list_dir(spec_dir))]
    rels += [paths.rules, *fs.walk_files(paths.rules, ".md", limit=MAX_WATCHED)]
    return [str(project.root / rel) for rel in dict.fromkeys(rels) if fs.lstat(rel) is not None][:MAX_WATCHED]


def test_what_is_watched_is_what_a_full_stat_finds(qtbot, window: MainWindow, tmp_path: Path) -> None:
    features: dict[str, object] = {f"y{n}": ("yaml", tasks_of(f"Y{n}", 2)) for n in range(4)}
    features |= {"json": tasks_of("J", 2), "none": None}
    root = make_project(tmp_path / "w", features, rules=3)
    (root / "ctxviewer.yaml").write_text("budget:\n  total: 3000\n", encoding="utf-8")
    open_and_wait(qtbot, window, root, "json", "J-000")

    def watched() -> list[str]:
        return sorted(window.opener.disk.watcher.files() + window.opener.disk.watcher.directories())

    assert watched() == sorted(reference_watch(window))
    assert str(root / ".gsd/specs/y2/task-graph.yaml") in watched()
    assert str(root / ".claude/rules/security/_core/rule-1.md") in watched()
    assert str(root / ".gsd/specs/json/requirements.md") in watched()
    # Another feature: its folder is watched instead of the first one's.
    with qtbot.waitSignal(window.traceShown, timeout=30_000):
        window.select_task("y1", "Y1-001")
    assert watched() == sorted(reference_watch(window))
    assert str(root / ".gsd/specs/y1/requirements.md") in watched()
    assert str(root / ".gsd/specs/json/requirements.md") not in watched()
    # A new rule file is watched after the refresh its folder's change brings.
    (root / ".claude/rules/security/_core/rule-9.md").write_text("## Rule: new\n\nText.\n", encoding="utf-8")
    with qtbot.waitSignal(window.projectRefreshed, timeout=15_000):
        window.opening.refresh()
    assert str(root / ".claude/rules/security/_core/rule-9.md") in watched()
    assert watched() == sorted(reference_watch(window))
