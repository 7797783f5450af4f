"""Shared test configuration: offscreen Qt on a 1280x800 screen, and where the sample projects are."""

from __future__ import annotations

import gc
import os
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
REPO = Path(__file__).resolve().parents[1]
#: The offscreen platform on the desktop the window is built for, 1280x800 at 96 dpi (its one
#: screen is 800x800 unless told otherwise).  A test that sets QT_QPA_PLATFORM sets this: the
#: first QApplication of a test process keeps the screen it was made with.
OFFSCREEN = f"offscreen:configfile={REPO / 'tests' / 'offscreen-1280x800.json'}"
if os.environ["QT_QPA_PLATFORM"] == "offscreen":
    os.environ["QT_QPA_PLATFORM"] = OFFSCREEN
SAMPLES = REPO / "sample_projects"


def sample_projects() -> list[Path]:
    """Every bundled sample project (folders with a .gsd/specs folder)."""
    if not SAMPLES.is_dir():
        return []
    return sorted(p for p in SAMPLES.iterdir() if (p / ".gsd" / "specs").is_dir())


@pytest.fixture
def samples_dir() -> Path:
    return SAMPLES


@pytest.fixture(autouse=True)
def _collector_pace() -> object:
    """Every test leaves the garbage collector's pace as it found it (the command line's
    ``main`` sets its own for the process: engine/runs/collector.py)."""
    before = gc.get_threshold()
    yield
    gc.set_threshold(*before)
