"""The header part alone: the task header, the findings line and the Budget panel's summary."""

from __future__ import annotations

from dataclasses import replace

import pytest

from ctxviewer.engine.project.loading import load_project
from ctxviewer.engine.runs.session import SessionReplay, replay_session
from ctxviewer.engine.tokens.counting import TokenCounts
from ctxviewer.engine.trace.model import RULE_FILE, SPEC_PARAGRAPH, Trace
from ctxviewer.gui.views.findings_view import finding_rows
from ctxviewer.gui.window.header import FindingsLine, TaskHeader, effect_lines, header_html, header_tooltip
from tests.factories import make_item
from tests.gui.conftest import LEDGER, engine_trace

OVER = ' <span style="color:#d32f2f"><b>over budget</b></span>'


@pytest.fixture(scope="module")
def base() -> Trace:
    return engine_trace(LEDGER, "auth-sessions", "AUTH-L1-001")


def named(base: Trace, **fields: object) -> Trace:
    """*base* as task ``T<1>`` "Fix & ship" of feature auth, 4,000 heuristic tokens of budget."""
    start: dict[str, object] = {
        "task_id": "T<1>",
        "task_title": "Fix & ship",
        "feature": "auth",
        "profile": "mahabharatha",
        "tokenizer": "heuristic",
        "budget": 4000,
    }
    return replace(base, **{**start, **fields})  # type: ignore[arg-type]


def test_the_header_names_the_task_and_its_size_with_names_as_text(base: Trace) -> None:
    over = named(base, context_tokens=TokenCounts(chars=10, heuristic=4321, cl100k_base=3900), upstream="", worker=None)
    assert header_html(over) == (
        "<span style='font-size:13pt'><b>T&lt;1&gt;</b> Fix &amp; ship</span><br>"
        "feature <b>auth</b> \u00b7 profile mahabharatha \u00b7 plugin context <b>4,321</b> of 4,000 heuristic tokens"
        f"{OVER} \u00b7 exact: cl100k_base 3,900"
    )
    within = named(base, context_tokens=TokenCounts(chars=10, heuristic=1836), upstream="", worker=None)
    assert header_html(within).endswith("context <b>1,836</b> of 4,000 heuristic tokens \u00b7 exact: n/a")
    # Deciding with an encoding that was not counted: no size, so not over budget either.
    uncounted = named(
        base, tokenizer="cl100k_base", context_tokens=TokenCounts(chars=10, heuristic=9999), upstream="", worker=None
    )
    assert header_html(uncounted).endswith("context <b>n/a</b> of 4,000 cl100k_base tokens \u00b7 exact: n/a")


def test_the_header_says_what_the_worker_receives(base: Trace) -> None:
    assert base.worker is not None
    line = header_html(base).rsplit("<br>", 1)[1]
    memory = base.worker.total("memory")
    assert line.startswith(f"The worker gets project memory: {len(base.worker.loaded('memory'))} file")
    assert f"{memory:,} tokens; and the prompt with " in line and line.endswith("(the Window panel shows each block).")


def test_an_upstream_run_says_which_version_it_reproduces_and_why(base: Trace) -> None:
    seed = named(
        base,
        context_tokens=TokenCounts(chars=10, heuristic=1836),
        upstream="2026-01-30",
        upstream_reason="detected 2026-01-30: no engineering rule files, token records or config keys",
        worker=None,
    )
    first, rest = header_html(seed).split(" \u00b7 exact: n/a")
    assert first.endswith("context <b>1,836</b> of 4,000 heuristic tokens")
    # The version in words on the header; why that one (short, then the whole reason) in its tooltip.
    assert rest == "<br>Reproduces the context plugin as of 2026-01-30"
    tip = header_tooltip(seed)
    assert tip.endswith(
        "Why this version: detected: nothing of zerg-ai 0.3.2 or later in the project.\n"
        "detected 2026-01-30: no engineering rule files, token records or config keys"
    )


def test_the_header_before_any_task_and_for_a_project_without_one(qtbot) -> None:
    header = TaskHeader()
    qtbot.addWidget(header)
    assert header.objectName() == "taskHeader"
    assert header.text() == "Open a project folder (Ctrl+O) or drop one here."
    header.show_no_task("a<b")
    assert header.text() == "<b>a&lt;b</b>: no task to show \u2014 no feature has a readable task graph."


def test_the_findings_line_shows_only_with_findings(qtbot, base: Trace) -> None:
    line = FindingsLine()
    qtbot.addWidget(line)
    assert line.objectName() == "taskFindings" and line.isHidden()
    rows = finding_rows(base)
    assert rows  # the sample task has findings (ties in its paragraph order)
    line.set_rows(rows, dark=False)
    assert not line.isHidden() and "finding" in line.text()
    line.set_rows((), dark=False)
    assert line.isHidden() and line.text() == ""


def effect_trace(base: Trace) -> Trace:
    """1,000 of 4,000 tokens; paragraphs included, truncated, outranked; rules included and dropped."""
    items = (
        make_item(id="p1", status="included"),
        make_item(id="p2", status="truncated"),
        make_item(id="p3", status="outranked"),
        make_item(id="r1", kind=RULE_FILE, status="included"),
        make_item(id="r2", kind=RULE_FILE, status="dropped"),
    )
    assert [i.id for i in items if i.kind == SPEC_PARAGRAPH] == ["p1", "p2", "p3"]
    tracker = replace(base.tracker, usage_percent=12.34, max_tokens=200_000, threshold_percent=70.0)
    return named(
        base, context_tokens=TokenCounts(chars=10, heuristic=1000), items=items, trim_steps=(), tracker=tracker
    )


TASK_LINE = (
    "<b>T&lt;1&gt;</b>: context <b>1,000</b> of 4,000 heuristic tokens (25%); "
    "2 spec paragraph(s) and 1 rule file(s) in, 0 trim step(s)."
)
TRACKER_LINE = (
    "Tracker after this task alone: 12.3% of 200,000 (checkpoint at 70%; the task and its reads only, "
    "no tool calls or minutes \u2014 the replay adds those)."
)


def three_steps(feature: str, usages: tuple[float, float, float], checkpoint: int | None) -> SessionReplay:
    project = load_project(LEDGER)
    real = replay_session(project, project.feature("auth-sessions"), project.settings)
    steps = tuple(replace(real.steps[0], index=i, task_id=f"T<{i + 1}>", usage_percent=u) for i, u in enumerate(usages))
    return replace(real, feature=feature, steps=steps, first_checkpoint=checkpoint)


def test_the_budget_summary_says_what_went_in_and_where_the_worker_checkpoints(base: Trace) -> None:
    trace = effect_trace(base)
    assert effect_lines(None, None) == []
    assert effect_lines(trace, None) == [TASK_LINE, TRACKER_LINE]
    steady = three_steps("auth", (10.0, 25.5, 41.26), None)
    assert effect_lines(trace, steady)[2] == "Replaying <b>auth</b>: no checkpoint in 3 task(s), ending at 41.3%."
    checkpoint = three_steps("auth", (30.0, 71.04, 20.0), 1)
    assert effect_lines(trace, checkpoint)[2] == (
        "Replaying <b>auth</b>: the worker must checkpoint after task 2 of 3 (T&lt;2&gt;, 71.0%)."
    )
    # A replay of another feature (still running for the last one) says nothing about this task.
    assert effect_lines(trace, three_steps("billing", (1.0, 2.0, 3.0), None)) == [TASK_LINE, TRACKER_LINE]
    # No budget: no share.
    assert "(n/a)" in effect_lines(replace(trace, budget=0), None)[0]
