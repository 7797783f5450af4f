"""The monospace font: what Qt confirms is fixed pitch, whatever the system's fixed font resolves to."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QFont, QFontDatabase, QFontInfo
from pytestqt.qtbot import QtBot

from ctxviewer.gui.widgets import fonts


def test_a_system_fixed_font_that_is_not_fixed_pitch_is_passed_over(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    proportional = QFont("DejaVu Sans")
    monos = [f for f in fonts._candidates()[1:] if QFontInfo(f).fixedPitch()]
    if QFontInfo(proportional).fixedPitch() or not monos:
        pytest.skip("this machine has no proportional and fixed-pitch pair to choose between")
    monkeypatch.setattr(fonts, "_candidates", lambda: [proportional, monos[0]])
    fonts.fixed_pitch_font.cache_clear()
    try:
        assert fonts.fixed_pitch_font() == monos[0]
    finally:
        fonts.fixed_pitch_font.cache_clear()


def test_with_no_fixed_pitch_font_the_systems_is_used(qtbot: QtBot, monkeypatch: pytest.MonkeyPatch) -> None:
    system = QFontDatabase.systemFont(QFontDatabase.SystemFont.GeneralFont)
    monkeypatch.setattr(fonts, "_candidates", lambda: [system])
    monkeypatch.setattr(fonts, "QFontInfo", lambda font: type("Info", (), {"fixedPitch": lambda self: False})())
    fonts.fixed_pitch_font.cache_clear()
    try:
        assert fonts.fixed_pitch_font() == system
    finally:
        fonts.fixed_pitch_font.cache_clear()


def test_the_font_chosen_is_fixed_pitch_where_the_machine_has_one(qtbot: QtBot) -> None:
    if not any(QFontInfo(f).fixedPitch() for f in fonts._candidates()):
        pytest.skip("no fixed-pitch font installed")
    assert QFontInfo(fonts.fixed_pitch_font()).fixedPitch()
