"""What ProjectFS notes inside ``recording()``: paths resolved (each component), folders listed, walks."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ctxviewer.engine.files import readlog
from ctxviewer.engine.files.reading import ProjectFS
from ctxviewer.engine.files.readlog import PROJECT, RUN, Scan, reading_as, recording
from tests.factories import write


def test_nothing_is_noted_outside_recording(tmp_path: Path) -> None:
    write(tmp_path, "a/b.md", "x")
    ProjectFS(tmp_path).read_text("a/b.md")
    assert readlog.current() is None


def test_a_read_notes_every_component_and_a_listing_its_folder(tmp_path: Path) -> None:
    write(tmp_path, "specs/f/req.md", "x")
    fs = ProjectFS(tmp_path)
    with recording() as log:
        fs.read_text("specs/f/req.md")
        fs.present("specs/g/graph.json")  # specs/g is missing: the walk stops there
        with reading_as(RUN):
            fs.list_dir("specs")
    assert log.of(PROJECT).touched == {"specs", "specs/f", "specs/f/req.md", "specs/g"}
    assert log.of(RUN).listed == {"specs"} and log.of(PROJECT).listed == set()


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symlinks")
def test_a_link_notes_itself_and_where_it_leads(tmp_path: Path) -> None:
    write(tmp_path, "real/req.md", "x")
    os.symlink("real", tmp_path / "alias")
    fs = ProjectFS(tmp_path)
    with recording() as log:
        fs.read_text("alias/req.md")
    assert {"alias", "real", "real/req.md"} <= log.of(PROJECT).touched


def test_a_walk_is_a_scan_of_its_folder(tmp_path: Path) -> None:
    write(tmp_path, ".claude/rules/a.md", "x")
    fs = ProjectFS(tmp_path)
    with recording() as log:
        fs.walk_files(".claude/rules", ".md")
    assert log.of(PROJECT).scans == {Scan(".claude/rules", (".md",))}


def test_a_scan_covers_files_of_its_suffixes_below_its_folder_outside_skipped_ones() -> None:
    scan = Scan("src", (".py",), frozenset({"build"}), skip_dot=True)
    assert scan.covers("src/a.py") and scan.covers("src/pkg/B.PY")
    assert not scan.covers("src/a.txt") and not scan.covers("lib/a.py") and not scan.covers("srcx/a.py")
    assert not scan.covers("src/build/a.py") and not scan.covers("src/.venv/a.py")
    assert Scan("", (".py",)).covers("a.py")
