"""The run part alone: the whole feature's findings from the pass, and the background pass itself."""

from __future__ import annotations

import gc
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from PySide6.QtWidgets import QLabel

from ctxviewer.engine.profiles.mahabharatha import excerpts
from ctxviewer.engine.project.loading import Project, load_project
from ctxviewer.engine.runs.pipeline import assemble_task
from ctxviewer.engine.tokens import counting
from ctxviewer.engine.tokens.counting import HEURISTIC, TiktokenCounter
from ctxviewer.engine.upstream.prompt import build_prompt
from ctxviewer.gui.views.outline import TaskTotal
from ctxviewer.gui.widgets.highlighter import display_text, lex_blocks
from ctxviewer.gui.window.runs import (
    BatchPass,
    ComposedPrompt,
    _wait_for,
    assembly_job,
    feature_findings,
    pass_order,
)
from ctxviewer.gui.worker import Lane, RunState, make_pool
from tests.conftest import SAMPLES
from tests.factories import make_project
from tests.gui.conftest import LEDGER, open_and_wait


def task(task_id: str) -> dict[str, object]:
    return {"id": task_id, "title": f"Task {task_id}", "files": {}}


@pytest.fixture
def project(tmp_path: Path) -> Project:
    """Features alpha (A1, A2, A3) and beta (B1)."""
    make_project(tmp_path, [task("A1"), task("A2"), task("A3")], requirements="Alpha.", feature="alpha")
    make_project(tmp_path, [task("B1")], requirements="Beta.", feature="beta")
    return load_project(tmp_path)


def total(feature: str, task_id: str, *findings: str) -> TaskTotal:
    return TaskTotal(feature, task_id, 100, 4000, "heuristic", findings=findings)


def test_the_pass_takes_each_feature_s_first_task_first_and_leaves_broken_features_out(tmp_path: Path) -> None:
    make_project(tmp_path, [task("A1"), task("A2")], requirements="Alpha.", feature="alpha")
    make_project(tmp_path, [task("B1"), task("B2"), task("B3")], requirements="Beta.", feature="beta")
    make_project(tmp_path, [task("C1")], requirements="Gamma.", feature="gamma")
    (tmp_path / ".gsd/specs/gamma/task-graph.json").write_text('{"tasks": [', encoding="utf-8")
    order = [(f.name, t.id) for f, t in pass_order(load_project(tmp_path))]
    assert order == [("alpha", "A1"), ("beta", "B1"), ("alpha", "A2"), ("beta", "B2"), ("beta", "B3")]


def test_a_feature_s_findings_come_in_task_order_with_the_tasks_not_reached_counted(project: Project) -> None:
    totals = {
        ("alpha", "A3"): total("alpha", "A3", "a3-first"),
        ("alpha", "A1"): total("alpha", "A1", "a1-first", "a1-second"),
        ("beta", "B1"): total("beta", "B1", "b1"),  # another feature's: not listed
    }
    # A1's two, then A3's (task order, not the order the pass reached them); A2 not reached yet.
    assert feature_findings(project, "alpha", totals) == (("a1-first", "a1-second", "a3-first"), 1)
    assert feature_findings(project, "beta", totals) == (("b1",), 0)
    assert feature_findings(project, "gamma", totals) == ((), 0)  # no such feature
    assert feature_findings(None, "alpha", totals) == ((), 0)  # no project open


@pytest.fixture
def batch(qtbot) -> Iterator[BatchPass]:
    label = QLabel()
    qtbot.addWidget(label)
    pool = make_pool(1)
    yield BatchPass(Lane(pool, "batch", label), label, label)
    pool.waitForDone(10_000)


def test_a_pass_fills_every_task_s_total_and_tallies_them(qtbot, batch: BatchPass, project: Project) -> None:
    arrived: list[TaskTotal] = []
    batch.totalsArrived.connect(arrived.extend)
    with qtbot.waitSignal(batch.finished, timeout=30_000):
        batch.start(project, project.settings)
        assert batch.label.text() == "batch pass: 0 of 4"
        assert not batch.is_settled()
    keys = [("alpha", "A1"), ("alpha", "A2"), ("alpha", "A3"), ("beta", "B1")]
    assert sorted(batch.totals) == keys
    assert sorted((t.feature, t.task_id) for t in arrived) == keys  # each once
    # Every feature's first task first (it reads the feature's specs), then the rest in order.
    assert [(t.feature, t.task_id) for t in arrived] == [keys[0], keys[3], keys[1], keys[2]]
    # Four tiny tasks against the default 4,000-token budget: none over it.
    assert batch.label.text().startswith("4 tasks, 0 over budget, ")
    assert batch.is_settled()


def test_a_pass_is_asked_for_after_a_quiet_time_or_once_the_first_task_is_shown(qtbot, batch: BatchPass) -> None:
    with qtbot.waitSignal(batch.due, timeout=5_000):
        batch.schedule()
        assert not batch.is_settled()  # waiting for its time
    assert batch.is_settled()

    with qtbot.assertNotEmitted(batch.due):
        batch.start_deferred()  # nothing deferred: nothing to start
    batch.defer_until_shown()
    assert not batch.is_settled()
    with qtbot.waitSignal(batch.due, timeout=5_000):
        batch.start_deferred()
    assert batch.is_settled()
    with qtbot.assertNotEmitted(batch.due, wait=300):
        batch.start_deferred()  # once only


def test_the_pass_keeps_its_totals_out_of_the_collector_s_sight(qtbot, batch: BatchPass, project: Project) -> None:
    with qtbot.waitSignal(batch.finished, timeout=30_000):
        batch.start(project, project.settings)
    kept = batch.totals[("alpha", "A1")]
    # Frozen: a full collection no longer walks them (it is still tracked, only set aside).
    assert gc.is_tracked(kept) and not any(obj is kept for obj in gc.get_objects())


def test_waiting_for_the_selected_run_ends_when_it_is_shown_cancelled_or_too_long() -> None:
    go, cancel = threading.Event(), threading.Event()
    go.set()
    start = time.perf_counter()
    _wait_for(go, cancel, 5.0)  # nothing in flight: no wait
    go.clear()
    cancel.set()
    _wait_for(go, cancel, 5.0)  # the pass was cancelled: no wait either
    assert time.perf_counter() - start < 1.0
    cancel.clear()
    start = time.perf_counter()
    _wait_for(go, cancel, 0.1)  # never released: it goes on after the limit
    assert 0.1 <= time.perf_counter() - start < 1.0


def test_a_task_asked_for_holds_the_pass_at_once_and_a_moment_only_if_no_run_follows(qtbot, batch: BatchPass) -> None:  # type: ignore[no-untyped-def]
    assert not batch.is_holding()
    batch.hold_now()  # as the window does when a task is selected, before its run is submitted
    assert batch.is_holding()
    start = time.perf_counter()
    qtbot.waitUntil(lambda: not batch.is_holding(), timeout=5_000)  # no run came: the pass goes on
    assert time.perf_counter() - start >= 0.09  # HOLD_AFTER_MS


def test_the_pass_gives_way_while_the_selected_task_runs(qtbot, project: Project) -> None:  # type: ignore[no-untyped-def]
    label = QLabel()
    qtbot.addWidget(label)
    pool = make_pool(2)
    run_lane = Lane(pool, "assemble", label)
    batch = BatchPass(Lane(pool, "batch", label), label, label)
    batch.give_way_to(run_lane)
    release = threading.Event()

    def job(_cancel: threading.Event, _progress: Callable[[str, float], None]) -> bool:
        return release.wait(10)  # the selected task's run, in flight until released

    try:
        with qtbot.waitSignal(run_lane.stateChanged, check_params_cb=lambda s: s is RunState.RUNNING):
            run_lane.submit(job)
        assert batch.is_holding()
        batch.start(project, project.settings)
        # The selected run holds the pass at the end of its first task's first stage: no task is
        # done (4 in all, far below the limit).
        with qtbot.assertNotEmitted(batch.totalsArrived, wait=400):
            pass
        assert not batch.totals and batch.is_holding()
        with qtbot.waitSignal(batch.finished, timeout=30_000):
            release.set()  # the run is done: a moment later the pass goes on
        assert not batch.is_holding() and len(batch.totals) == 4
    finally:
        release.set()
        pool.waitForDone(10_000)


def test_the_worker_prompt_follows_the_trace_on_its_own_lane(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    with qtbot.waitSignal(window.lanes.prompt.finished, timeout=30_000) as blocker:
        trace = open_and_wait(qtbot, window, LEDGER, "auth-sessions", "AUTH-L1-003")
    composed = blocker.args[0]
    assert isinstance(composed, ComposedPrompt) and composed.prompt is not None
    # The prompt of the task shown, as the engine composes it on its own, in the Prompt tab.
    ledger = load_project(LEDGER)
    feature = ledger.feature("auth-sessions")
    expected = build_prompt(ledger, feature, feature.task("AUTH-L1-003"), ledger.settings, exact=True)
    assert trace.task_id == "AUTH-L1-003" and composed.prompt == expected and expected.error is None
    assert composed.lexed is not None and composed.lexed.text == display_text(composed.prompt.text)
    assert window.tabs.prompt.editor.toPlainText() == display_text(composed.prompt.text)
    qtbot.waitUntil(window.is_settled, timeout=30_000)


def test_a_prompt_never_shows_under_another_task_s_trace(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    open_and_wait(qtbot, window, LEDGER, "auth-sessions", "AUTH-L1-001")
    shown: list[tuple[str, str | None]] = []  # (the task shown, the prompt's task) at each prompt
    window.runs.composed.connect(
        lambda composed: shown.append(
            (window.trace.task_id, composed.prompt.task_id if composed.prompt is not None else None)
        )
    )
    # The first task's prompt is still being composed when the next task is asked for and shown.
    ledger = load_project(LEDGER)
    feature = ledger.feature("auth-sessions")
    first = build_prompt(ledger, feature, feature.task("AUTH-L1-001"), ledger.settings, exact=True)
    release = threading.Event()

    def slow(_cancel: threading.Event, _progress: Callable[[str, float], None]) -> ComposedPrompt:
        release.wait(10)
        return ComposedPrompt(first)

    window.lanes.prompt.submit(slow)
    with qtbot.waitSignal(window.traceShown, timeout=30_000):
        window.select_task("auth-sessions", "AUTH-L1-002")
    release.set()
    assert window.tabs.prompt.prompt() is None  # not the task before's while its own is composed
    qtbot.waitUntil(lambda: window.tabs.prompt.prompt() is not None, timeout=30_000)
    qtbot.waitUntil(window.is_settled, timeout=30_000)
    assert window.tabs.prompt.prompt().task_id == "AUTH-L1-002"
    assert shown and all(task == prompt for task, prompt in shown)


def test_with_the_prompt_tab_in_sight_the_prompt_is_composed_at_once(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    open_and_wait(qtbot, window, LEDGER, "auth-sessions", "AUTH-L1-001")
    qtbot.waitUntil(window.is_settled, timeout=30_000)
    window.tabs.show_tab("prompt")
    composed: list[ComposedPrompt] = []
    window.runs.composed.connect(composed.append)
    submitted = window.lanes.prompt.generation
    with qtbot.waitSignal(window.traceShown, timeout=30_000):
        window.select_task("auth-sessions", "AUTH-L1-003")
    # Submitted with the trace, not after the wait the other tabs give the paint.
    assert not window.runs._prompt_timer.isActive() and window.lanes.prompt.generation == submitted + 1
    qtbot.waitUntil(lambda: bool(composed), timeout=30_000)
    assert [c.prompt.task_id for c in composed if c.prompt is not None] == ["AUTH-L1-003"]
    assert window.tabs.prompt.prompt().task_id == "AUTH-L1-003"


def test_the_context_is_lexed_in_the_run_only_with_its_tab_in_sight(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    import ctxviewer.gui.views.context_view as context_view

    open_and_wait(qtbot, window, LEDGER, "auth-sessions", "AUTH-L1-001")
    qtbot.waitUntil(window.is_settled, timeout=30_000)
    assert window.tabs.current_tab() == "sections"
    with qtbot.waitSignal(window.runs.assembled, timeout=30_000) as ran:
        window.select_task("auth-sessions", "AUTH-L1-003")
    assert ran.args[0].lexed is None  # left for after the paint, with the prompt
    with qtbot.waitSignal(window.runs.composed, timeout=30_000) as composed:
        pass
    trace = window.trace
    lexed = composed.args[0].context
    assert trace.task_id == "AUTH-L1-003" and lexed is not None and lexed.text == display_text(trace.context)
    # The Plugin context tab shown now takes that lexing: the GUI thread lexes nothing.
    lexed_here: list[str] = []
    real = context_view.lex_blocks
    context_view.lex_blocks = lambda text: lexed_here.append(text) or real(text)  # type: ignore[assignment]
    try:
        window.tabs.show_tab("context")
    finally:
        context_view.lex_blocks = real
    assert lexed_here == [] and window.tabs.context.editor.toPlainText() == display_text(trace.context)
    # With that tab in sight, the run lexes the context itself and the prompt leaves it alone.
    with qtbot.waitSignal(window.runs.assembled, timeout=30_000) as ran:
        window.select_task("auth-sessions", "AUTH-L1-002")
    assert ran.args[0].lexed is not None and ran.args[0].lexed.text == display_text(ran.args[0].trace.context)
    with qtbot.waitSignal(window.runs.composed, timeout=30_000) as composed:
        pass
    assert composed.args[0].context is None
    qtbot.waitUntil(window.is_settled, timeout=30_000)


def test_a_context_lexed_for_an_earlier_trace_is_not_used_for_a_newer_one(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    first = open_and_wait(qtbot, window, LEDGER, "auth-sessions", "AUTH-L1-001")
    qtbot.waitUntil(window.is_settled, timeout=30_000)
    with qtbot.waitSignal(window.traceShown, timeout=30_000):
        window.select_task("auth-sessions", "AUTH-L1-003")
    # The first trace's context lexing, arriving late, is handed in under the second trace.
    window.tabs.keep_lexed_context(lex_blocks(display_text(first.context)))
    window.tabs.show_tab("context")
    shown = window.trace
    assert shown.task_id == "AUTH-L1-003" and first.context != shown.context
    assert window.tabs.context.editor.toPlainText() == display_text(shown.context)
    assert window.tabs.context.highlighter._blocks == lex_blocks(display_text(shown.context)).blocks
    qtbot.waitUntil(window.is_settled, timeout=30_000)


def test_a_click_s_job_resolves_each_path_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The job runs as one pass over the files: a path its run asks about again is not walked again."""
    from ctxviewer.engine.files import reading
    from ctxviewer.gui.window.runs import assembly_job

    project = load_project(LEDGER)
    feature = project.feature("auth-sessions")
    walked: list[str] = []
    resolve = reading.ProjectFS._resolve
    monkeypatch.setattr(reading.ProjectFS, "_resolve", lambda fs, rel: walked.append(rel) or resolve(fs, rel))
    result = assembly_job(project, feature, feature.task("AUTH-L1-001"), project.settings, None)(
        threading.Event(), lambda _stage, _fraction: None
    )
    assert walked and sorted(walked) == sorted(set(walked))
    # the same trace as a run outside a pass
    monkeypatch.undo()
    assert result.trace == assemble_task(project, feature, feature.task("AUTH-L1-001"), project.settings, exact=True)


def test_a_click_s_job_leaves_what_it_made_out_of_the_collector_s_sight(project: Project) -> None:
    """The run makes thousands of objects and no garbage cycle: it runs without collections,
    and its trace (alive until the next click's replaces it) is frozen, so no collection
    during the next click walks it."""
    feat = project.feature("alpha")
    job = assembly_job(project, feat, feat.task("A1"), project.settings, None, lex=False)
    gc.collect()
    made = job(threading.Event(), lambda *_: None)
    assert gc.isenabled() and gc.get_count()[0] < 100
    assert gc.is_tracked(made.trace) and not any(obj is made.trace for obj in gc.get_objects())


@pytest.mark.parametrize("profile", ["zerg-0.3.2", "mahabharatha-latest"])
def test_after_the_pass_a_click_counts_nothing_and_builds_no_spec_items(
    qtbot, batch: BatchPass, profile: str, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    """The pass runs as a click's run does, with exact counts, though both profiles decide with
    the estimate: a click's run then finds every text counted and each spec file's paragraph
    items made."""
    monkeypatch.setattr(counting, "_shared_counts", {})  # cold: nothing counted by another test
    for name in counting.EXACT_ENCODINGS:
        monkeypatch.setattr(counting.get_counter(name), "_cache", {})
    excerpts.clear_caches()
    project = load_project(SAMPLES / "storefront-web")
    settings = project.settings.with_overrides({"profile": profile}, "test")
    assert settings.tokenizer == HEURISTIC
    with qtbot.waitSignal(batch.finished, timeout=60_000):
        batch.start(project, settings)
    counted: list[str] = []
    remember = TiktokenCounter._remember
    monkeypatch.setattr(
        TiktokenCounter, "_remember", lambda self, found: (counted.extend(found), remember(self, found))
    )
    built: list[object] = []
    put = excerpts._unscored.put
    monkeypatch.setattr(excerpts._unscored, "put", lambda key, value: (built.append(key), put(key, value)))
    for feat in project.features:
        for task_ in feat.tasks:
            assert assemble_task(project, feat, task_, settings, exact=True).context_tokens.cl100k_base is not None
    assert (counted, built) == ([], [])
