"""What would get it in?  The words for a hand-made sensitivity, the view's states, and the
words and suggestion for a real sample task (storefront-web, CHK-L2-003, the Docker rule file)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from ctxviewer.engine.project.loading import load_project
from ctxviewer.engine.runs.pipeline import assemble_task
from ctxviewer.engine.runs.sensitivity import sensitivity
from ctxviewer.engine.trace.model import KEPT
from ctxviewer.gui.views.sensitivity_view import (
    SensitivityView,
    change_words,
    intervals_words,
    suggestion_words,
)
from tests.conftest import SAMPLES
from tests.factories import make_item, small_sensitivity

SENS = small_sensitivity()
BUDGET, SHARE, SWITCH = SENS.axes
DOCKER = "rule:containers/docker/CLAUDE.md"


def test_intervals_in_words() -> None:
    # a: in at 100-249, truncated at 250-399 (a span of its own), in from 400 to the top.
    assert intervals_words(SENS, "a", BUDGET) == "in at budgets 100\u2013249, 250\u2013399 (truncated) and from 400"
    assert intervals_words(SENS, "c", BUDGET) == "in at budgets 400\u2013449"
    # b is in at every section budget the share gives; c at none; a from share 0.2 to the largest.
    assert intervals_words(SENS, "b", SHARE) == "in at every security share"
    assert intervals_words(SENS, "c", SHARE) == "out at every security share"
    assert intervals_words(SENS, "a", SHARE) == "in at security shares from 0.2 (truncated)"
    assert intervals_words(SENS, "c", SWITCH) == "in with security rule filtering false only"
    assert intervals_words(SENS, "a", SWITCH) == "in with every security rule filtering value"


def test_the_smallest_change_in_words() -> None:
    # c is in only at budgets 400-449: 400 is 100 above 300 (+33 %); the switch would be 100 %.
    # At 400 (vector 3) b is cut: it is pushed out; a stays in (included there).
    suggestion = SENS.suggestion("c")
    assert suggestion is not None and (suggestion.key, suggestion.value) == ("budget", 400)
    assert change_words(BUDGET, suggestion) == "budget 400 (+33\u202f%, from 300)"
    assert suggestion_words(SENS, None, suggestion) == (
        "Smallest change: budget 400 (+33\u202f%, from 300) \u2192 included; pushes out: b"
    )


def test_the_view_says_where_it_is_in_and_offers_the_change(qtbot) -> None:  # type: ignore[no-untyped-def]
    view = SensitivityView()
    qtbot.addWidget(view)
    c = make_item(id="c", status="cut_for_budget", reason="block of 900 characters did not fit the 600 left")
    view.set_item(c)
    view.show_computing("budget", 0.4)
    assert view.state == "computing" and view.progress.value() == 40
    assert not view.stop_button.isHidden() and view.start_button.isHidden()
    view.show_result(SENS, None, partial=True)  # type: ignore[arg-type]
    assert view.state == "partial"
    assert view.change.text().endswith("(so far: the budget alone).")
    view.show_result(SENS, None)  # type: ignore[arg-type]
    assert view.state == "done" and view.stop_button.isHidden() and view.progress.isHidden()
    assert view.status.text().startswith(
        "Worked out exactly for every candidate: 0 evaluations in 0.0 s (a fast refit)"
    )
    assert view.change.text() == "Smallest change: budget 400 (+33\u202f%, from 300) \u2192 included; pushes out: b."
    assert view.words.text().startswith("In at budgets 400\u2013449<br>Out at every security share<br>")
    assert "the real system's range, 50\u20132,000" in view.words.text()
    assert [row.key for row in view.strip.rows()] == ["budget", "security_share", "security_rule_filtering"]
    assert not view.apply_button.isHidden() and view.apply_button.isEnabled()
    with qtbot.waitSignal(view.applyRequested) as blocker:
        view.apply_button.click()
    assert blocker.args == [{"budget": 400}, "what would get it in: budget 400 (+33\u202f%, from 300)"]
    # A candidate in the context now: where it stays in, and no change to apply.
    view.set_item(make_item(id="a", status="truncated"))
    assert view.change.text().startswith("In the context now (truncated)")
    assert view.apply_button.isHidden()
    # Stopped: said, and a way to start again.
    view.show_stopped()
    assert view.status.text() == "Stopped before it was worked out." and not view.start_button.isHidden()
    with qtbot.waitSignal(view.startRequested):
        view.start_button.click()


def test_a_candidate_no_single_setting_brings_in_says_why(qtbot) -> None:  # type: ignore[no-untyped-def]
    # Only the share axis: c is cut at every section budget, so nothing brings it in.
    only_share = replace(SENS, axes=(SHARE,))
    view = SensitivityView()
    qtbot.addWidget(view)
    view.set_item(make_item(id="c", status="cut_for_budget", reason="block of 900 characters did not fit the 600 left"))
    # The view asks for two settings together, and says it is working them out.
    with qtbot.waitSignal(view.pairRequested) as asked:
        view.show_result(only_share, None)  # type: ignore[arg-type]
    assert asked.args == ["c"]
    assert view.change.text() == (
        "No single setting brings it in (cut for budget: block of 900 characters did not fit the 600 left); "
        "working out two settings together\u2026"
    )
    assert view.apply_button.isHidden()
    # No two settings do either: said, and still nothing to apply.
    view.show_pair("c", None)
    assert view.change.text() == (
        "No single setting brings it in, nor any two together "
        "(cut for budget: block of 900 characters did not fit the 600 left)."
    )
    assert view.apply_button.isHidden() and view.values() == {}


@pytest.fixture(scope="module")
def docker_at_4000():  # type: ignore[no-untyped-def]
    """storefront-web's CHK-L2-003 at budget 4,000 (the Docker rule file is out there), its budget axis."""
    project = load_project(SAMPLES / "storefront-web")
    feature = project.feature("cart-checkout")
    task = feature.task("CHK-L2-003")
    settings = replace(project.settings, budget=4_000)
    trace = assemble_task(project, feature, task, settings, exact=True)
    return (
        project,
        feature,
        task,
        settings,
        trace,
        sensitivity(project, feature, task, settings, trace, keys=["budget"]),
    )


def test_the_view_on_a_real_task(qtbot, docker_at_4000) -> None:  # type: ignore[no-untyped-def]
    project, feature, task, settings, trace, sens = docker_at_4000
    item = trace.item(DOCKER)
    assert item is not None and item.status == "cut_for_budget"
    view = SensitivityView()
    qtbot.addWidget(view)
    view.set_item(item)
    view.show_result(sens, trace)
    # The intervals (sampled every 25 tokens there; exact here): in at 670-1,443,
    # 2,114-2,159, 2,830-3,603 and for good from 4,274.
    assert view.words.text().startswith(
        "In at budgets 670\u20131,443, 2,114\u20132,159, 2,830\u20133,603 and from 4,274<br>"
    )
    # 4,000 lies between 3,603 (397 below) and 4,274 (274 above): the nearer is 4,274, +6.85 %.
    assert view.values() == {"budget": 4_274}
    assert view.change.text().startswith("Smallest change: budget 4,274 (+6.")
    assert "\u2192 included" in view.change.text()
    # What it says it pushes out is in the context at 4,000 and out at 4,274, checked by running it.
    at_4274 = assemble_task(project, feature, task, replace(settings, budget=4_274), exact=True)
    docker = at_4274.item(DOCKER)
    assert docker is not None and docker.status in KEPT
    pushed = view.suggestion.pushes_out if view.suggestion else ()
    for item_id in pushed:
        before, after = trace.item(item_id), at_4274.item(item_id)
        assert before is not None and before.status in KEPT
        assert after is None or after.status not in KEPT
    assert ("pushes out:" in view.change.text()) == bool(pushed)
