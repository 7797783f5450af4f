"""The Worker prompt view, alone: parts, spans, counts, the design-time comparison, copy and export.

The project is tiny and every expected value is counted by hand from its files (see
``T1_PARTS``); the view takes the composed prompt as a plain value, so no window runs.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QGuiApplication, QTextCharFormat
from PySide6.QtTest import QAbstractItemModelTester

from ctxviewer.engine.project.loading import load_project
from ctxviewer.engine.tokens.counting import get_counter
from ctxviewer.engine.upstream.prompt import build_prompt
from ctxviewer.engine.worker.prompt import WorkerPrompt
from ctxviewer.gui.app import dark_palette
from ctxviewer.gui.views.prompt_view import PromptView, design_diff, design_lines, export_prompt
from tests.factories import make_project

TASKS = [
    {
        "id": "T1",
        "title": "Add login",
        "description": "Write it.",
        "files": {"create": ["a.py"], "read": ["b.py"]},
        "verification": {"command": "pytest"},
    },
    {"id": "T2", "title": "Scoped", "context": "Only this."},
    {"id": "T3", "title": "Broken", "files": "a.py"},  # upstream calls files.get on a str: raises
]
INSTRUCTIONS = (
    "## Instructions\nImplement the task as specified. Make all necessary changes.\n"
    "Do NOT commit - the orchestrator handles commits."
)
#: T1's parts, counted by hand: (name, text, span, upstream estimate).  Parts are joined by
#: one "\n", so each starts one past the previous end.  The estimate is round(len / 4) with
#: half to even: 18 / 4 = 4.5 -> 4, 38 / 4 = 9.5 -> 10, 34 / 4 = 8.5 -> 8, 126 / 4 = 31.5 -> 32.
T1_PARTS = [
    ("spec_header", "# Feature Context: feat\n", (0, 24), 6),  # 23 + 1 characters
    ("spec_requirements", "## Requirements Summary\nUsers log in.\n", (25, 63), 10),  # 23 + 1 + 13 + 1
    ("spec_separator", "---\n", (64, 68), 1),
    ("header", "# Task: Add login\n", (69, 87), 4),  # 17 + 1
    ("description", "## Description\nWrite it.\n", (88, 113), 6),  # 14 + 1 + 9 + 1 = 25
    ("files", "## Files\nCreate: a.py\nReference: b.py\n", (114, 152), 10),  # 8 + 1 + 12 + 1 + 15 + 1
    ("verification", "## Verification\nCommand: `pytest`\n", (153, 187), 8),  # 15 + 1 + 17 + 1
    ("instructions", INSTRUCTIONS, (188, 314), 32),  # 15 + 1 + 60 + 1 + 49
]


@pytest.fixture(scope="module")
def prompts(tmp_path_factory: pytest.TempPathFactory) -> dict[str, WorkerPrompt]:
    root = make_project(tmp_path_factory.mktemp("prompt") / "proj", TASKS, requirements="Users log in.")
    project = load_project(root)
    feature = project.feature("feat")
    return {t["id"]: build_prompt(project, feature, feature.task(t["id"])) for t in TASKS}


@pytest.fixture
def view(qtbot) -> PromptView:  # type: ignore[no-untyped-def]
    widget = PromptView()
    qtbot.addWidget(widget)
    widget.resize(900, 700)
    widget.show()
    return widget


def test_the_parts_table_lists_each_part_with_its_source_span_and_counts(
    view: PromptView, prompts: dict[str, WorkerPrompt]
) -> None:
    QAbstractItemModelTester(view.model, QAbstractItemModelTester.FailureReportingMode.Fatal)
    prompt = prompts["T1"]
    view.show_prompt(prompt)
    assert prompt.text == "\n".join(text for _, text, _, _ in T1_PARTS)
    assert len(prompt.text) == 314
    rows = [(p.name, p.text, p.span, p.estimate) for p in view.model.rows()]
    assert rows == T1_PARTS
    model = view.model
    cells = [[model.index(r, c).data() for c in range(4)] for r in range(model.rowCount())]
    assert cells[0] == ["Spec: heading", "the worker's feature (feat)", "24", "6"]
    assert cells[1][:2] == ["Spec: requirements", ".gsd/specs/feat/requirements.md"]
    assert cells[5] == ["Files", ".gsd/specs/feat/task-graph.json: tasks[0].files (create, modify, read)", "38", "10"]
    assert cells[7] == ["Instructions", "fixed text", "126", "32"]
    # 314 / 4 = 78.5: half to even gives 78 (the seed's len // 4 would give 78 too, 315 would not)
    assert view.summary.text().startswith("feat / T1: uses the spec context; 314 characters · upstream estimate 78 · ")
    assert "cl100k_base" in view.summary.text() and "o200k_base" in view.summary.text()
    assert view.editor.toPlainText() == prompt.text
    assert not view.pages.isTabVisible(view.design_index)  # no design-time context: no comparison


def test_exact_counts_are_shown_beside_the_estimate(view: PromptView, prompts: dict[str, WorkerPrompt]) -> None:
    view.show_prompt(prompts["T1"])
    for row, (_, text, _, estimate) in enumerate(T1_PARTS):
        # each part's text counted on its own with the bundled encodings
        exact = [f"{get_counter(n).count(text):,}" for n in ("cl100k_base", "o200k_base")]
        assert [view.model.index(row, c).data() for c in (2, 3, 4, 5)] == [f"{len(text):,}", str(estimate), *exact]


def test_a_click_on_a_part_marks_exactly_its_text(qtbot, view: PromptView, prompts: dict[str, WorkerPrompt]) -> None:  # type: ignore[no-untyped-def]
    view.show_prompt(prompts["T1"])
    row = 5  # files
    rect = view.table.visualRect(view.model.index(row, 0))
    with qtbot.waitSignal(view.partShown) as blocker:
        qtbot.mouseClick(view.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert blocker.args == ["files"]
    # Qt gives a selection's line breaks as U+2029
    assert view.marked_text() == "## Files\nCreate: a.py\nReference: b.py\n".replace("\n", "\u2029")
    assert view.part_label.text().startswith(
        "Files: from .gsd/specs/feat/task-graph.json: tasks[0].files (create, modify, read); "
        "characters 114\u2013152; 38 characters · upstream estimate 10 · cl100k_base "
    )
    assert view.editor.textCursor().position() == 114


def test_show_part_selects_the_row_and_refuses_a_part_the_prompt_lacks(
    view: PromptView, prompts: dict[str, WorkerPrompt]
) -> None:
    view.show_prompt(prompts["T2"])
    assert view.show_part("header")
    assert view.table.selectionModel().selectedRows()[0].row() == 1  # task context, then the header
    assert view.marked_text() == "# Task: Scoped\u2029"
    assert not view.show_part("description")  # T2 has none


def test_a_design_time_context_is_shown_beside_the_plugins(view: PromptView, prompts: dict[str, WorkerPrompt]) -> None:
    prompt = prompts["T2"]
    view.show_prompt(prompt)
    assert [p.name for p in prompt.parts] == ["task_context", "header", "instructions"]
    assert prompt.text.startswith("# Task Context (Scoped)\nOnly this.\n# Task: Scoped\n\n## Instructions")
    assert view.pages.isTabVisible(view.design_index)
    lines = design_lines(prompt)
    # "Only this." is 10 characters: estimate round(2.5) = 2 (half to even)
    assert lines[0].startswith("Stored in the task graph at design time: 10 characters · upstream estimate 2 · ")
    # The plugin assembles the spec for T2 now ("Users log in." has no keyword of "Scoped", yet the spec
    # section is the feature's paragraphs): whatever it is, it is not the stored text.
    assert "(differs: the worker gets the stored one)." in lines[1]
    assert lines[2] == "The design step's guidance for a task's context: about 4,000 tokens (~16,000 characters)."
    diff = design_diff(prompt)
    assert diff.startswith("--- stored context (task graph)\n+++ ")
    assert "\n-Only this." in diff
    assert view.diff.toPlainText() == diff


def test_a_prompt_upstream_cannot_compose_says_why_and_shows_no_text(
    view: PromptView, prompts: dict[str, WorkerPrompt], tmp_path: Path
) -> None:
    prompt = prompts["T3"]
    view.show_prompt(prompt)
    assert prompt.error == "AttributeError: 'str' object has no attribute 'get' (files)"
    assert view.summary.text() == (
        f"feat / T3: upstream raises while composing this prompt ({prompt.error}); the worker's task fails."
    )
    assert view.model.rowCount() == 0
    assert view.editor.toPlainText() == ""
    assert not view.copy_button.isEnabled()
    target = tmp_path / "t3.txt"
    assert "no text to write" in view.export_to(str(target))
    assert not target.exists()
    assert view.export_to(str(tmp_path / "t3.json")) == ""  # the JSON says why
    assert json.loads((tmp_path / "t3.json").read_text(encoding="utf-8"))["error"] == prompt.error


def test_ctrl_c_copies_the_selected_parts_rows(qtbot, view: PromptView, prompts: dict[str, WorkerPrompt]) -> None:  # type: ignore[no-untyped-def]
    view.show_prompt(prompts["T1"])
    assert view.show_part("spec_separator")
    view.table.setFocus()
    QGuiApplication.clipboard().clear()
    qtbot.keyClick(view.table, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    header, row = QGuiApplication.clipboard().text().splitlines()
    assert header == "Part\tSource\tChars\tEstimate\tcl100k\to200k"
    assert row.startswith("Spec: separator\tfixed text\t4\t1\t")


def test_copy_puts_exactly_the_prompt_on_the_clipboard(view: PromptView, prompts: dict[str, WorkerPrompt]) -> None:
    QGuiApplication.clipboard().clear()
    view.show_prompt(prompts["T1"])
    view.copy_button.click()
    assert QGuiApplication.clipboard().text() == prompts["T1"].text


def test_export_writes_the_text_byte_for_byte_and_the_json_with_the_parts(
    qtbot,
    view: PromptView,
    prompts: dict[str, WorkerPrompt],
    tmp_path: Path,  # type: ignore[no-untyped-def]
) -> None:
    view.show_prompt(prompts["T1"])
    text_path = tmp_path / "t1.txt"
    with qtbot.waitSignal(view.exportFinished) as blocker:
        view.export_to(str(text_path))
    assert blocker.args == [str(text_path), ""]
    assert text_path.read_bytes() == prompts["T1"].text.encode("utf-8")
    json_path = tmp_path / "t1.json"
    assert view.export_to(str(json_path)) == ""
    data = json.loads(json_path.read_text(encoding="utf-8"))
    assert data["prompt"] == prompts["T1"].text
    assert [(p["name"], p["span"], p["tokens"]["upstream_estimate"]) for p in data["parts"]] == [
        (name, list(span), estimate) for name, _, span, estimate in T1_PARTS
    ]


def test_export_refuses_an_unknown_suffix_and_reports_a_failed_write(
    view: PromptView, prompts: dict[str, WorkerPrompt], tmp_path: Path
) -> None:
    with pytest.raises(ValueError, match=r"name a \.txt .* or \.json"):
        export_prompt(prompts["T1"], str(tmp_path / "t1.md"))
    view.show_prompt(prompts["T1"])
    error = view.export_to(str(tmp_path / "missing-folder" / "t1.txt"))
    assert error and "t1.txt" in error
    assert view.export_to(str(tmp_path / "t1.txt"), "json") == ""  # a format named wins over the suffix
    assert json.loads((tmp_path / "t1.txt").read_text(encoding="utf-8"))["task"] == "T1"


def test_project_text_is_shown_as_text(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    tasks = [{"id": "<b>X</b>", "title": '<img src="/etc/passwd">', "description": "a <i>b</i>"}]
    project = load_project(make_project(tmp_path / "p", tasks, requirements="R."))
    feature = project.feature("feat")
    prompt = build_prompt(project, feature, feature.task("<b>X</b>"))
    widget = PromptView()
    qtbot.addWidget(widget)
    widget.show_prompt(prompt)
    assert widget.summary.textFormat() == Qt.TextFormat.PlainText
    assert widget.summary.text().startswith("feat / <b>X</b>: uses the spec context")
    assert '# Task: <img src="/etc/passwd">' in widget.editor.toPlainText()


def test_nothing_shown_before_a_prompt(view: PromptView) -> None:
    assert view.prompt() is None
    assert view.model.rowCount() == 0
    assert not view.copy_button.isEnabled() and not view.export_button.isEnabled()
    assert view.export_to("/nonexistent/x.txt") == "nothing to export yet"


def test_a_dark_palette_keeps_the_marked_part_in_the_dark_colour(
    view: PromptView, prompts: dict[str, WorkerPrompt]
) -> None:
    view.show_prompt(prompts["T1"])
    view.show_part("files")
    marks = view.editor.extraSelections()
    assert QTextCharFormat(marks[-1].format).background().color() == QColor("#ffe8a3")
    view.setPalette(dark_palette())
    marks = view.editor.extraSelections()
    assert QTextCharFormat(marks[-1].format).background().color() == QColor("#5a4a14")
    assert view.marked_text() == "## Files\nCreate: a.py\nReference: b.py\n".replace("\n", "\u2029")
    assert len(marks) == len(T1_PARTS) + 1  # every part tinted, and the mark
