"""The export part alone: the suggested name, the dialog's answer, and writing on its lane."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QFileDialog, QWidget

from ctxviewer.engine.project.loading import load_project
from ctxviewer.engine.upstream.prompt import build_prompt
from ctxviewer.engine.worker.prompt import WorkerPrompt
from ctxviewer.gui.window.export import Exporter, ShownRun, default_export_path, with_suffix
from ctxviewer.gui.window.persistence import WindowSettings
from ctxviewer.gui.worker import Lane, make_pool
from tests.gui.conftest import LEDGER, engine_trace


def test_the_suggested_name_is_the_task_id_with_the_format_s_suffix() -> None:
    assert default_export_path("/out", "AUTH-L1-001", "markdown") == "/out/AUTH-L1-001.md"
    assert default_export_path("/out", "AUTH-L1-001", "json") == "/out/AUTH-L1-001.json"
    assert default_export_path("/out", "AUTH-L1-001", "html") == "/out/AUTH-L1-001.html"
    assert default_export_path("/out", "AUTH-L1-001", "whatif-md") == "/out/AUTH-L1-001.whatif.md"
    # A task id is the project's: each '/' becomes '_', then each '..' left, so it stays one name
    # in the folder ("../../etc/x" -> ".._.._etc_x" -> "____etc_x").
    assert default_export_path("/out", "../../etc/x", "json") == "/out/____etc_x.json"


def test_a_chosen_path_without_a_suffix_gets_the_format_s() -> None:
    assert with_suffix("/out/report", "html") == "/out/report.html"
    assert with_suffix("/out/report.htm", "html") == "/out/report.htm"  # the user's own suffix stays
    assert with_suffix("/out/notes", "whatif-md") == "/out/notes.whatif.md"


@pytest.fixture
def exporter(qtbot, tmp_path: Path) -> Iterator[Exporter]:
    parent = QWidget()
    qtbot.addWidget(parent)
    pool = make_pool(1)
    store = WindowSettings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    yield Exporter(Lane(pool, "export", parent), store, parent)
    pool.waitForDone(10_000)


def test_the_dialog_starts_in_the_last_export_folder_and_remembers_the_new_one(
    exporter: Exporter, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[tuple[str, str]] = []

    def dialog(_parent, _title, default, filters):
        asked.append((default, filters))
        return str(tmp_path / "picked" / "ctx"), filters

    monkeypatch.setattr(QFileDialog, "getSaveFileName", dialog)
    # Before any export: the shown task's project folder.
    trace = engine_trace(LEDGER, "auth-sessions", "AUTH-L1-001")
    exporter.shown = lambda: ShownRun(trace)
    exporter.ask_path("markdown", "T-1")
    assert asked.pop() == (f"{trace.project}/T-1.md", "Markdown (*.md)")
    exporter.settings.set_export_dir("/last")
    assert exporter.ask_path("markdown", "T-1") == str(tmp_path / "picked" / "ctx.md")
    assert asked == [("/last/T-1.md", "Markdown (*.md)")]
    assert exporter.settings.export_dir("") == str(tmp_path / "picked")

    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *_a: ("", ""))  # cancelled
    assert exporter.ask_path("json", "T-1") == ""
    assert exporter.settings.export_dir("") == str(tmp_path / "picked")  # unchanged


def test_nothing_to_export_is_refused_at_once(qtbot, exporter: Exporter, tmp_path: Path) -> None:
    trace = engine_trace(LEDGER, "auth-sessions", "AUTH-L1-001")
    with qtbot.assertNotEmitted(exporter.wrote), qtbot.assertNotEmitted(exporter.failed):
        with qtbot.waitSignal(exporter.finished) as none:
            exporter.export(str(tmp_path / "a.md"), "markdown", None, None)
        with qtbot.waitSignal(exporter.finished) as no_diff:
            exporter.export(str(tmp_path / "b.whatif.md"), "whatif-md", trace, None)
    assert none.args == [str(tmp_path / "a.md"), "nothing to export yet"]
    assert no_diff.args == [str(tmp_path / "b.whatif.md"), "no baseline is pinned: nothing to compare"]
    assert not exporter.lane.is_busy()
    assert not (tmp_path / "a.md").exists() and not (tmp_path / "b.whatif.md").exists()


def record(exporter: Exporter) -> list[tuple[str, ...]]:
    """What *exporter* says, in order."""
    said: list[tuple[str, ...]] = []
    exporter.wrote.connect(lambda path: said.append(("wrote", path)))
    exporter.failed.connect(lambda message: said.append(("failed", message)))
    exporter.finished.connect(lambda path, error: said.append(("finished", path, error)))
    return said


def test_an_export_is_written_then_reported(qtbot, exporter: Exporter, tmp_path: Path) -> None:
    trace = engine_trace(LEDGER, "auth-sessions", "AUTH-L1-001")
    out = tmp_path / "ctx.md"
    said = record(exporter)
    with qtbot.waitSignal(exporter.finished, timeout=10_000):
        exporter.export(str(out), "markdown", trace, None)
    assert said == [("wrote", str(out)), ("finished", str(out), "")]
    assert out.read_text(encoding="utf-8") == trace.context  # the Markdown export is the context itself


def test_a_failed_write_says_why_with_its_path(qtbot, exporter: Exporter, tmp_path: Path) -> None:
    trace = engine_trace(LEDGER, "auth-sessions", "AUTH-L1-001")
    out = tmp_path / "missing-folder" / "ctx.md"
    said = record(exporter)
    with qtbot.waitSignal(exporter.finished, timeout=10_000):
        exporter.export(str(out), "markdown", trace, None)
    (failed, message), finished = said
    assert failed == "failed" and "missing-folder" in message
    assert finished == ("finished", str(out), message)
    assert not out.exists()


def test_the_html_report_gets_the_prompt_only_when_it_is_the_shown_task_s() -> None:
    trace = engine_trace(LEDGER, "auth-sessions", "AUTH-L1-001")
    ledger = load_project(LEDGER)
    feature = ledger.feature("auth-sessions")

    def prompt(task_id: str) -> WorkerPrompt:
        return build_prompt(ledger, feature, feature.task(task_id), ledger.settings, exact=True)

    own = prompt("AUTH-L1-001")
    assert ShownRun(trace, None, own).prompt_json() == own.to_json()
    assert ShownRun(trace, None, prompt("AUTH-L1-002")).prompt_json() is None  # the task before's, still shown
    assert ShownRun(trace).prompt_json() is None  # not composed yet
    assert ShownRun(None, None, own).prompt_json() is None


def test_the_shown_run_is_what_is_exported_and_copied(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    parent = QWidget()
    qtbot.addWidget(parent)
    pool = make_pool(1)
    store = WindowSettings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    shown = ShownRun(None)
    exporter = Exporter(Lane(pool, "export", parent), store, parent, lambda: shown)
    with qtbot.assertNotEmitted(exporter.message):
        exporter.copy_context()  # nothing shown: nothing copied
    shown = ShownRun(engine_trace(LEDGER, "auth-sessions", "AUTH-L1-001"))
    assert shown.trace is not None
    with qtbot.waitSignal(exporter.message) as said:
        exporter.copy_context()
    assert QGuiApplication.clipboard().text() == shown.trace.context
    assert said.args == [f"Copied {len(shown.trace.context):,} characters", 4000]
    out = tmp_path / "ctx.md"
    with qtbot.waitSignal(exporter.finished, timeout=10_000) as done:
        exporter.export_shown(str(out), "markdown")
    assert done.args == [str(out), ""] and out.read_text(encoding="utf-8") == shown.trace.context
    pool.waitForDone(10_000)
