"""The Session panel in the window: the replay follows the task's feature and the tuned
settings, its parameters are settings, and a worker log can be attached."""

from __future__ import annotations

from pathlib import Path

from ctxviewer.engine.project.loading import load_project
from ctxviewer.engine.runs.session import SessionReplay, replay_session
from ctxviewer.gui.window import MainWindow
from tests.gui.conftest import LEDGER, open_and_wait


def _open(qtbot, window: MainWindow, feature: str, task: str) -> SessionReplay:
    with qtbot.waitSignal(window.replayShown, timeout=20_000) as shown:
        open_and_wait(qtbot, window, LEDGER, feature, task)
    replay = shown.args[0]
    assert isinstance(replay, SessionReplay)
    return replay


def test_the_replay_is_the_engines_for_the_tasks_feature(qtbot, window: MainWindow) -> None:
    replay = _open(qtbot, window, "auth-sessions", "AUTH-L1-001")
    project = load_project(LEDGER)
    expected = replay_session(project, project.feature("auth-sessions"))
    assert replay.steps == expected.steps
    assert window.docks.session.replay() is replay
    # Another task of another feature replays that feature.
    with qtbot.waitSignal(window.replayShown, timeout=20_000) as shown:
        window.select_task("reconciliation", "REC-L1-001")
    assert shown.args[0].feature == "reconciliation"


def test_tuned_limits_replay_again(qtbot, window: MainWindow) -> None:
    _open(qtbot, window, "auth-sessions", "AUTH-L1-001")
    with qtbot.waitSignal(window.replayShown, timeout=20_000) as shown:
        window.docks.budget.set_values({"max_context_tokens": 18_000, "zones": {"compaction": 75}})
        window.docks.budget.flush()
    replay = shown.args[0]
    project = load_project(LEDGER)
    settings = project.settings.with_overrides({"max_context_tokens": 18_000, "zones": {"compaction": 75}}, "t")
    expected = replay_session(project, project.feature("auth-sessions"), settings)
    assert replay.steps == expected.steps and replay.first_checkpoint == expected.first_checkpoint
    assert expected.first_checkpoint is not None  # a checkpoint fires inside this feature at 18k
    assert ("compaction", 75.0) in replay.zones


def test_replay_parameters_become_settings(qtbot, window: MainWindow) -> None:
    _open(qtbot, window, "auth-sessions", "AUTH-L1-001")
    with qtbot.waitSignal(window.replayShown, timeout=20_000) as shown:
        window.docks.session.parametersChanged.emit(2, 1.5, True)
    replay = shown.args[0]
    assert (replay.tool_calls_per_task, replay.minutes_per_task, replay.reset_on_checkpoint) == (2, 1.5, True)
    assert window.docks.budget.settings().replay_tool_calls == 2
    # Saved with the other tuned values, so they round-trip through ctxviewer.yaml.
    assert window.docks.budget.is_tuned()
    first = replay.steps[0]
    assert first.tool_tokens == 2 * 50 and first.time_tokens == int(1.5 * 100)


def test_activating_a_replayed_task_selects_it(qtbot, window: MainWindow) -> None:
    _open(qtbot, window, "auth-sessions", "AUTH-L1-001")
    with qtbot.waitSignal(window.traceShown, timeout=20_000) as shown:
        window.docks.session.taskActivated.emit("AUTH-L2-001")
    assert shown.args[0].task_id == "AUTH-L2-001"
    assert window.current == ("auth-sessions", "AUTH-L2-001")


def test_attaching_to_a_worker_log(qtbot, window: MainWindow, tmp_path: Path) -> None:
    _open(qtbot, window, "auth-sessions", "AUTH-L1-001")
    log = tmp_path / "worker.jsonl"
    log.write_text('{"ts": 0, "event": "task_executed", "id": "AUTH-L1-001"}\n{"ts": 60, "ev', encoding="utf-8")
    with qtbot.waitSignal(window.docks.session.liveUpdated, timeout=10_000) as live:
        window.following.follow_log(log)
    assert live.args[0].estimated_tokens == 500  # the torn second line is not counted yet
    assert window.menus["file.detach"].isEnabled()
    with (
        qtbot.waitSignal(window.docks.session.liveUpdated, timeout=10_000) as live,
        log.open("a", encoding="utf-8") as f,
    ):
        f.write('ent": "tool_call", "count": 2}\n')
    # 500 + 2 tool calls * 50 + int(1 minute * 100)
    assert live.args[0].estimated_tokens == 500 + 100 + 100
    window.following.stop()
    assert window.docks.session.following is None and not window.menus["file.detach"].isEnabled()


def test_a_budget_change_does_not_restart_the_replay(qtbot, window: MainWindow) -> None:
    _open(qtbot, window, "auth-sessions", "AUTH-L1-001")
    window.docks.session.player.step()
    with qtbot.assertNotEmitted(window.replayShown, wait=300), qtbot.waitSignal(window.traceShown, timeout=20_000):
        window.docks.budget.set_values({"budget": 1500, "spec_share": 0.4})
    assert window.docks.session.player.position == 0


def _settled_then_another_feature(qtbot, window: MainWindow) -> int:  # type: ignore[no-untyped-def]
    """auth-sessions' first task shown and everything settled, then reconciliation's first task
    shown; the replay lane's generation before it."""
    _open(qtbot, window, "auth-sessions", "AUTH-L1-001")
    qtbot.waitUntil(window.is_settled, timeout=20_000)
    replayed: int = window.lanes.replay.generation
    with qtbot.waitSignal(window.traceShown, timeout=20_000):
        window.select_task("reconciliation", "REC-L1-001")
    return replayed


def test_a_new_feature_s_replay_waits_for_its_trace_and_the_paint(qtbot, window: MainWindow) -> None:
    # Nothing is replayed while the run is in flight, nor as its trace is shown: after the paint.
    replayed = _settled_then_another_feature(qtbot, window)
    assert window.lanes.replay.generation == replayed and not window.is_settled()
    with qtbot.waitSignal(window.replayShown, timeout=20_000) as shown:
        pass
    assert shown.args[0].feature == "reconciliation" and window.lanes.replay.generation == replayed + 1
    qtbot.waitUntil(window.is_settled, timeout=20_000)


def test_a_feature_only_passed_through_is_not_replayed(qtbot, window: MainWindow) -> None:
    replayed = _settled_then_another_feature(qtbot, window)
    # Another task of the first feature asked for at once, before the replay's time.
    with qtbot.assertNotEmitted(window.replayShown, wait=500), qtbot.waitSignal(window.traceShown, timeout=20_000):
        window.select_task("auth-sessions", "AUTH-L1-002")
    assert window.lanes.replay.generation == replayed and window.docks.session.replay().feature == "auth-sessions"
    qtbot.waitUntil(window.is_settled, timeout=20_000)
