"""Feature sweeps: ranges read like ``--budget``, and cells worked out by hand on the compare project."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from ctxviewer.engine.errors import SettingsError
from ctxviewer.engine.profiles.base import Cancelled
from ctxviewer.engine.project.loading import Project, load_project
from ctxviewer.engine.runs import sweep as sweep_module
from ctxviewer.engine.runs.sweep import (
    SWEEP_CODES,
    check_codes,
    check_sweep_size,
    parse_budget_range,
    parse_share_range,
    run_sweep,
)
from tests.factories import COMPARE_P1 as P1
from tests.factories import COMPARE_P2 as P2
from tests.factories import make_compare_project

SEC_HEADER = "## Security Rules (task-scoped)\n\n"
REQ_HEADER = "## Relevant Requirements\n\n"
MARKER = "\n\n[... truncated for context limits ...]"
BLOCK = "### _core/owasp-2025.md\n## Rule: " + "x" * 1500


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return load_project(make_compare_project(tmp_path))


# -- ranges -------------------------------------------------------------------------------------------


def test_budget_ranges_include_the_end_when_it_lands_on_a_step() -> None:
    assert parse_budget_range("1000:2000:250") == (1000, 1250, 1500, 1750, 2000)
    assert parse_budget_range("1000:2100:250") == (1000, 1250, 1500, 1750, 2000)  # 2,100 is not on a step
    assert parse_budget_range("1k:8k:250") == tuple(range(1000, 8001, 250))
    assert len(parse_budget_range("1000:8000:250")) == 29
    assert parse_budget_range(" 4k ") == (4000,)
    assert parse_budget_range("1,000:1,000:5") == (1000,)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("2k:1k:250", "--budget: the range ends (1,000) before it starts (2,000)"),
        ("1k:2k:0", "--budget step: must be between 1 and 10,000,000, not 0"),
        ("1k:2k", "--budget: write a range as START:STOP:STEP (1000:8000:250) or one value, not '1k:2k'"),
        ("1k::250", "--budget: write a range as START:STOP:STEP (1000:8000:250) or one value, not '1k::250'"),
        ("1:5000:1", "--budget: '1:5000:1' is 5,000 budgets; a sweep takes at most 1,000"),
        ("4kk:5k:1", "--budget start: must be a whole number of tokens (4000, 4,000 or 4k), not '4kk'"),
        ("-1k:5k:1k", "--budget start: must be between 1 and 10,000,000, not -1,000"),
    ],
)
def test_bad_budget_ranges_are_one_line(text: str, message: str) -> None:
    with pytest.raises(SettingsError) as caught:
        parse_budget_range(text)
    assert str(caught.value) == message


def test_share_ranges_step_in_decimals() -> None:
    assert parse_share_range("spec_share=0.3:0.7:0.1") == ("spec_share", (0.3, 0.4, 0.5, 0.6, 0.7))
    assert parse_share_range("security_share=0.25") == ("security_share", (0.25,))
    for text in ("top_k=1:3:1", "spec_share", "spec_share=0.5:0.4:0.1", "spec_share=0.1:0.2:0", "spec_share=x"):
        with pytest.raises(SettingsError):
            parse_share_range(text)
    with pytest.raises(SettingsError, match="between 0 and 1"):
        parse_share_range("spec_share=0.5:1.5:0.5")


def test_finding_codes_are_checked_and_ordered_as_the_catalogue() -> None:
    assert check_codes({"over-budget", "rule-cut"}) == ("rule-cut", "over-budget")
    with pytest.raises(SettingsError, match=r"^--findings: nope is not a finding code"):
        check_codes({"rule-cut", "nope"})
    with pytest.raises(SettingsError, match=r"^--findings: nah, nope are not finding codes; choose from rule-cut, "):
        check_codes({"nah", "nope"})


# -- cells --------------------------------------------------------------------------------------------


def test_cells_at_three_budgets_worked_by_hand(project: Project) -> None:
    sweep = run_sweep(project, (10, 1000, 4000))
    assert [(t.task, t.title) for t in sweep.tasks] == [("T1", "Login session"), ("T2", "Session")]
    assert (sweep.profile, sweep.tokenizer, sweep.budgets, sweep.codes) == (
        "mahabharatha",
        "heuristic",
        (10, 1000, 4000),
        SWEEP_CODES,
    )
    # In the catalogue's order, the keyword and tie checks left out.
    assert SWEEP_CODES == (
        "rule-cut",
        "rule-unseen",
        "context-empty",
        "over-budget",
        "section-empty",
        "estimate-flip",
        "share-too-small",
        "rule-cut-loaded",
    )
    assert [(c.task, c.budget) for c in sweep.cells] == [
        ("T1", 10),
        ("T1", 1000),
        ("T1", 4000),
        ("T2", 10),
        ("T2", 1000),
        ("T2", 4000),
    ]
    low, mid, high = sweep.cells_at()[0]

    # 4,000: security gets int(4000 * 0.3) = 1,200 tokens = 4,800 chars, the 1,533-char rule
    # block fits; requirements get int(4000 * 0.5) // 2 = 1,000 tokens, P1 and P2 (600 each) fit.
    context = f"{SEC_HEADER}{BLOCK}\n\n{REQ_HEADER}{P1}\n\n{P2}"
    assert (high.tokens, high.over_budget, high.included, high.cut) == (len(context) // 4, False, 3, 0)
    assert high.share_of_budget == pytest.approx((len(context) // 4) / 4000)
    assert high.count("rule-cut") == high.count("over-budget") == high.count("section-empty") == 0

    # 1,000: security gets 300 tokens = 1,200 chars, too few for the block (cut for budget, the
    # section empty; the worker loads the rule file as project memory all the same: a
    # rule-cut-loaded); requirements get 250 tokens = 1,000 chars: P1 whole, P2 cut.
    assert (mid.tokens, mid.over_budget, mid.included, mid.cut) == (len(REQ_HEADER + P1 + MARKER) // 4, False, 1, 2)
    assert (mid.count("rule-cut-loaded"), mid.count("section-empty"), mid.count("over-budget")) == (1, 1, 0)
    assert mid.count("rule-cut") == 0

    # 10: requirements get 5 // 2 = 2 tokens, less than the header and the marker: over budget.
    assert low.tokens > 10 and low.over_budget and low.count("over-budget") == 1 and low.count("rule-cut-loaded") == 1

    # T2 ("Session", no files): no security section; only P1 mentions 'session'.
    t2 = sweep.cells_at()[1]
    assert (t2[2].tokens, t2[2].included, t2[2].cut, t2[2].count("rule-cut")) == (len(REQ_HEADER + P1) // 4, 1, 0, 0)
    assert sweep.cell(1, 2) is t2[2] and not any(c.error for c in sweep.cells)
    assert (high.cl100k_base, high.o200k_base) == (None, None)  # not asked for exact counts


def test_a_share_axis_multiplies_the_cells(project: Project) -> None:
    sweep = run_sweep(project, (4000,), share_key="spec_share", shares=(0.1, 0.5), targets=None, feature="feat")
    assert (sweep.share_key, sweep.shares) == ("spec_share", (0.1, 0.5))
    assert [(c.task, c.share, c.budget) for c in sweep.cells] == [
        ("T1", 0.1, 4000),
        ("T1", 0.5, 4000),
        ("T2", 0.1, 4000),
        ("T2", 0.5, 4000),
    ]
    # spec_share 0.1: requirements get int(4000 * 0.1) // 2 = 200 tokens = 800 chars: P1 stays, P2 is cut.
    narrow, wide = sweep.cell(0, 0, 0), sweep.cell(0, 0, 1)
    assert (narrow.included, narrow.cut) == (2, 1)
    assert (wide.included, wide.cut) == (3, 0)


def test_exact_counts_when_asked(project: Project) -> None:
    [cell, *_] = run_sweep(project, (4000,), exact=True).cells
    assert cell.cl100k_base is not None and cell.o200k_base is not None and cell.cl100k_base > 0


def test_bad_settings_raise_before_any_run(project: Project) -> None:
    with pytest.raises(SettingsError, match="section shares add up to 110%"):
        run_sweep(project, (4000,), share_key="spec_share", shares=(0.8,))  # + security_share 0.3
    with pytest.raises(SettingsError, match="shaktiman profile takes a budget of 256-32,768"):
        run_sweep(project, (100, 4000), settings=project.settings.with_overrides({"profile": "shaktiman"}, "t"))
    with pytest.raises(SettingsError, match="needs at least one budget"):
        run_sweep(project, ())


def test_progress_after_each_task_and_cancel_between_tasks(project: Project) -> None:
    seen: list[tuple[str, float]] = []
    run_sweep(project, (1000, 4000), progress=lambda stage, f: seen.append((stage, f)))
    assert seen == [("T1", 0.5), ("T2", 1.0)]

    cancel = threading.Event()

    def stop_after_first(stage: str, fraction: float) -> None:
        seen.append((stage, fraction))
        cancel.set()

    seen.clear()
    with pytest.raises(Cancelled):
        run_sweep(project, (1000, 4000), cancel=cancel, progress=stop_after_first)
    assert seen == [("T1", 0.5)]  # T2 never ran


# -- the ceiling on the whole sweep ----------------------------------------------------------------


def test_the_ceiling_is_on_the_product_of_the_axes_and_the_tasks() -> None:
    assert check_sweep_size(50, 1000) == 50_000  # 1,000 budgets x 50 tasks: just within
    assert check_sweep_size(2, 1000, "spec_share", 25) == 50_000
    assert check_sweep_size(3, 7, "", 99) == 21  # no share axis: its count does not multiply
    with pytest.raises(SettingsError) as caught:
        check_sweep_size(51, 1000)
    assert str(caught.value) == (
        "sweep of 1,000 budgets \u00d7 51 tasks = 51,000 assemblies is over the limit of 50,000; "
        "narrow a range or choose a feature"
    )
    with pytest.raises(SettingsError) as caught:
        check_sweep_size(1, 1, "security_share", 50_001, feature="feat")
    assert str(caught.value) == (
        "sweep of 1 budget \u00d7 50,001 security_share values \u00d7 1 task = 50,001 assemblies is over the "
        "limit of 50,000; narrow a range"
    )


def _counting_assembly(
    monkeypatch: pytest.MonkeyPatch, after: int = -1, cancel: threading.Event | None = None
) -> list[str]:
    """Count the sweep's assemblies (by task id); after *after* of them set *cancel*, and
    with no *cancel* fail at the first one."""
    calls: list[str] = []
    real = sweep_module.assemble_task

    def counted(project: Project, feature: object, task: object, *args: object, **kwargs: object) -> object:
        calls.append(task.id)  # type: ignore[attr-defined]
        if cancel is None:
            raise AssertionError("the sweep assembled a task")
        result = real(project, feature, task, *args, **kwargs)  # type: ignore[arg-type]
        if len(calls) == after:
            cancel.set()
        return result

    monkeypatch.setattr(sweep_module, "assemble_task", counted)
    return calls


def test_a_sweep_over_the_ceiling_is_refused_before_any_assembly(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = _counting_assembly(monkeypatch)
    budgets = tuple(range(1, 1001))  # 1,000 budgets
    shares = tuple(n / 100 for n in range(26))  # 0.00 .. 0.25: 26 values
    # 1,000 x 26 x the compare project's 2 tasks = 52,000 assemblies.
    with pytest.raises(SettingsError) as caught:
        run_sweep(project, budgets, share_key="spec_share", shares=shares)
    assert str(caught.value) == (
        "sweep of 1,000 budgets \u00d7 26 spec_share values \u00d7 2 tasks = 52,000 assemblies is over the limit "
        "of 50,000; narrow a range or choose a feature"
    )
    assert calls == []


def test_a_sweep_at_the_ceiling_runs_and_one_past_it_does_not(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sweep_module, "MAX_ASSEMBLIES", 4)
    assert len(run_sweep(project, (1000, 4000)).cells) == 4  # 2 budgets x 2 tasks
    calls = _counting_assembly(monkeypatch)
    with pytest.raises(SettingsError, match=r"= 6 assemblies is over the limit of 4; narrow a range$"):
        run_sweep(project, (1000, 2000, 4000), feature="feat")  # 3 x 2
    assert calls == []


def test_cancel_stops_a_sweep_between_assemblies(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    cancel = threading.Event()
    calls = _counting_assembly(monkeypatch, after=3, cancel=cancel)
    with pytest.raises(Cancelled):
        run_sweep(project, tuple(range(1000, 11000, 1000)), cancel=cancel)  # 10 budgets of T1, then T2
    assert calls == ["T1", "T1", "T1"]  # the fourth assembly never started


def test_progress_within_a_long_task(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sweep_module, "PROGRESS_EVERY", 2)
    seen: list[tuple[str, float]] = []
    run_sweep(project, (1000, 2000, 3000, 4000, 5000), progress=lambda stage, f: seen.append((stage, f)))
    # 10 assemblies, 5 a task: after every second one, and at each task's end (the fifth).
    assert seen == [("T1", 0.2), ("T1", 0.4), ("T1", 0.5), ("T2", 0.6), ("T2", 0.8), ("T2", 1.0)]
