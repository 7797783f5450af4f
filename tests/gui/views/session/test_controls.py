"""The replay controls: the parameter fields' checks, and the controls on their own."""

from __future__ import annotations

from ctxviewer.gui.views.session.controls import ReplayControls, parse_minutes, parse_tool_calls


def test_parameter_parsing() -> None:
    assert parse_tool_calls(" 12 ") == (12, "")
    assert parse_tool_calls("0") == (0, "")
    assert parse_tool_calls("abc") == (None, "not a whole number")
    assert parse_tool_calls("2.5")[0] is None
    assert parse_tool_calls("-1") == (None, "0 to 10,000")
    assert parse_tool_calls("")[0] is None
    assert parse_minutes("0.5") == (0.5, "")
    assert parse_minutes("nan") == (None, "0 to 10000")
    assert parse_minutes("x") == (None, "not a number")
    assert parse_minutes("-2")[0] is None


def test_controls_show_a_replays_values_without_emitting(qtbot) -> None:  # type: ignore[no-untyped-def]
    controls = ReplayControls()
    qtbot.addWidget(controls)
    emitted: list[tuple[int, float, bool]] = []
    controls.parametersChanged.connect(lambda *args: emitted.append(args))
    controls.show_values(12, 2.5, True)
    assert (controls.tool_calls.text(), controls.minutes.text(), controls.reset_after.isChecked()) == (
        "12",
        "2.5",
        True,
    )
    assert emitted == [] and controls.parameters() == (12, 2.5, True)
    assert controls.apply_parameters() is True and emitted == []  # the replay's own values: nothing to ask
    controls.minutes.setText("3")
    assert controls.apply_parameters() is True and emitted == [(12, 3.0, True)]
    controls.tool_calls.setText("")
    assert controls.apply_parameters() is False and "enter a whole number" in controls.tool_calls_error.text()
    assert controls.tool_calls.property("invalid") is True and len(emitted) == 1


def test_controls_speed_and_playback_buttons(qtbot) -> None:  # type: ignore[no-untyped-def]
    controls = ReplayControls()
    qtbot.addWidget(controls)
    with qtbot.waitSignal(controls.speedChanged, timeout=1000) as blocker:
        controls.speed.setCurrentIndex(controls.speed.findText("4\u00d7"))
    assert blocker.args == [4.0]
    controls.set_playable(False)
    assert not any(b.isEnabled() for b in (controls.play_button, controls.step_button, controls.reset_button))
    controls.set_playable(True)
    assert all(b.isEnabled() for b in (controls.play_button, controls.step_button, controls.reset_button))
    controls.set_playing(True)
    assert controls.play_button.text() == "Pause"
    controls.set_playing(False)
    assert controls.play_button.text() == "Play"
