"""The window's keys in QSettings, alone: recent projects, the open in progress, the last task, export folder."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QMainWindow

from ctxviewer.gui.window.persistence import LAST_TASK_DELAY_MS, MAX_RECENT, OPENING_KEY, WindowSettings


def store_at(path: Path) -> WindowSettings:
    return WindowSettings(QSettings(str(path), QSettings.Format.IniFormat))


def test_recent_projects_keep_the_latest_ten_first_without_repeats(tmp_path: Path) -> None:
    store = store_at(tmp_path / "s.ini")
    assert store.recent_projects() == [] and store.last_project() == ""
    for n in range(12):
        store.remember_project(f"/p{n}")
    # Twelve opened: the last ten, newest first (p11 ... p2); p0 and p1 fell off.
    assert MAX_RECENT == 10
    assert store.recent_projects() == [f"/p{n}" for n in range(11, 1, -1)]
    assert store.last_project() == "/p11"
    # Opened again, p5 moves to the front; nothing is listed twice and nothing else falls off.
    store.remember_project("/p5")
    assert store.recent_projects() == ["/p5", "/p11", "/p10", "/p9", "/p8", "/p7", "/p6", "/p4", "/p3", "/p2"]
    assert store.last_project() == "/p5"


def test_one_recent_project_reads_back_from_the_file_as_a_list(tmp_path: Path) -> None:
    first = store_at(tmp_path / "s.ini")
    first.remember_project("/only")
    first.store.sync()
    # An INI file holds a one-item list as a plain string; it still reads back as one project.
    assert store_at(tmp_path / "s.ini").recent_projects() == ["/only"]


def test_an_open_in_progress_is_on_disk_until_it_finishes(tmp_path: Path) -> None:
    store = store_at(tmp_path / "s.ini")
    assert store.unfinished_open() == ""
    store.begin_open("/crashy")
    # Written through at once: a second reader of the file (the next start) sees it.
    assert store_at(tmp_path / "s.ini").unfinished_open() == "/crashy"
    assert OPENING_KEY in (tmp_path / "s.ini").read_text(encoding="utf-8")
    store.finish_open()
    assert store.unfinished_open() == ""
    assert store_at(tmp_path / "s.ini").unfinished_open() == ""
    store.finish_open()  # nothing in progress: nothing to do, no error


def test_the_last_task_is_kept_per_project(tmp_path: Path) -> None:
    store = store_at(tmp_path / "s.ini")
    store.set_last_task("/a", "auth", "AUTH-1")
    store.set_last_task("/b", "billing", "BIL-2")
    assert store.last_task("/a") == ("auth", "AUTH-1")
    assert store.last_task(Path("/b")) == ("billing", "BIL-2")  # a Path names the same key
    assert store.last_task("/c") is None
    # A value without the feature/task separator (written by hand, say) names no task.
    store.store.setValue("last-task//c", "just-a-task")
    assert store.last_task("/c") is None


def test_the_last_task_is_written_a_moment_after_it_changes_or_at_a_flush(qtbot, tmp_path: Path) -> None:
    store = store_at(tmp_path / "s.ini")
    for task in ("A-1", "A-2", "A-3"):  # arrowing through a feature
        store.set_last_task("/a", "auth", task)
    # Read back at once, but not in the settings yet: each write is the whole file, flushed.
    assert store.last_task("/a") == ("auth", "A-3")
    assert store.store.value("last-task//a") is None
    with qtbot.waitSignal(store._write_timer.timeout, timeout=LAST_TASK_DELAY_MS + 2_000):
        pass
    assert store.store.value("last-task//a") == "auth\nA-3"  # the last one only
    store.set_last_task("/a", "auth", "A-4")
    store.flush()  # the window closing
    assert store.store.value("last-task//a") == "auth\nA-4"
    assert not store._write_timer.isActive()
    store.store.sync()
    assert store_at(tmp_path / "s.ini").last_task("/a") == ("auth", "A-4")


def test_the_export_folder_is_the_one_given_then_follows_the_last_export(tmp_path: Path) -> None:
    store = store_at(tmp_path / "s.ini")
    assert store.export_dir("/the/project") == "/the/project"
    store.set_export_dir(str(tmp_path / "out"))
    assert store.export_dir("/the/project") == str(tmp_path / "out")


def test_the_window_size_and_docks_come_back(qtbot, tmp_path: Path) -> None:
    store = store_at(tmp_path / "s.ini")
    closed = QMainWindow()
    qtbot.addWidget(closed)
    closed.resize(700, 500)
    store.save_window(closed)
    opened = QMainWindow()
    qtbot.addWidget(opened)
    assert opened.size().toTuple() != (700, 500)
    store.restore_window(opened)
    assert opened.size().toTuple() == (700, 500)
    # Nothing saved yet: the window keeps its own size.
    fresh = QMainWindow()
    qtbot.addWidget(fresh)
    fresh.resize(640, 480)
    store_at(tmp_path / "empty.ini").restore_window(fresh)
    assert fresh.size().toTuple() == (640, 480)
