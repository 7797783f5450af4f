"""The export part alone: the suggested name, the dialog's answer, and writing on its lane."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QFileDialog, QWidget

from ctxviewer.gui.window.export import Exporter, default_export_path, with_suffix
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
    exporter.settings.set_export_dir("/last")
    assert exporter.ask_path("markdown", "T-1") == str(tmp_path / "picked" / "ctx.md")
    assert asked == [("/last/T-1.md", "Markdown (*.md)")]
    assert exporter.settings.export_dir() == str(tmp_path / "picked")

    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *_a: ("", ""))  # cancelled
    assert exporter.ask_path("json", "T-1") == ""
    assert exporter.settings.export_dir() == str(tmp_path / "picked")  # unchanged


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
