"""Comparing one task under two settings: side specs, the run, and its text/Markdown/JSON forms."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from ctxviewer.engine.analysis.whatif import CHANGES, diff_markdown
from ctxviewer.engine.errors import SettingsError
from ctxviewer.engine.project.loading import Project, load_project
from ctxviewer.engine.project.settings import Settings
from ctxviewer.engine.runs.compare import (
    SIDE_MEANINGS,
    Side,
    compare_markdown,
    compare_task,
    compare_text,
    compare_to_json,
    make_side,
    overshoot,
    parse_assignment,
    parse_settings_text,
    parse_side,
    parse_sides,
    run_summary,
)
from ctxviewer.engine.runs.pipeline import Cancelled
from ctxviewer.engine.trace.model import CUT_FOR_BUDGET, INCLUDED
from tests.factories import COMPARE_P1 as P1
from tests.factories import COMPARE_P2 as P2
from tests.factories import make_compare_project, make_project

TASK = {"id": "T1", "title": "Login session", "files": {"create": ["src/app.py"]}}
MARKER = "\n\n[... truncated for context limits ...]"
SEC_HEADER = "## Security Rules (task-scoped)\n\n"
REQ_HEADER = "## Relevant Requirements\n\n"


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return load_project(make_compare_project(tmp_path))


def _compare(project: Project, a: Settings, b: Settings, **kw: object):  # type: ignore[no-untyped-def]
    feature = project.feature("feat")
    return compare_task(project, feature, feature.task("T1"), a, b, exact=False, **kw)  # type: ignore[arg-type]


def test_budget_4000_against_1000_which_candidates_leave_and_why(project: Project) -> None:
    a = project.settings.with_overrides({"budget": 4000}, "side A")
    b = project.settings.with_overrides({"budget": 1000}, "side B")
    diff = _compare(project, a, b)

    # The project (tests/factories.py): one core rule whose block is 1,533 chars; two
    # requirement paragraphs of 600 chars, P1 scoring 2 and P2 scoring 1.
    # A: security gets int(4000 * 0.3) = 1,200 tokens = 4,800 chars: the 1,533-char block fits.
    # Requirements get int(4000 * 0.5) // 2 = 1,000 tokens = 4,000 chars: P1 + P2 (1,202) fit.
    block = "### _core/owasp-2025.md\n## Rule: " + "x" * 1500
    assert len(block) == 1533
    spec_a = f"{REQ_HEADER}{P1}\n\n{P2}"
    assert diff.baseline.context == f"{SEC_HEADER}{block}\n\n{spec_a}"
    # B: security gets 300 tokens = 1,200 chars, too few for the block: the section is empty.
    # Requirements get 500 // 2 = 250 tokens = 1,000 chars; the cut's last paragraph break
    # is at 600 (> 1,000 // 2), so P1 stays whole and P2 goes.
    assert diff.current.context == f"{REQ_HEADER}{P1}{MARKER}"

    assert [(c.key, c.before, c.after) for c in diff.settings] == [("budget", 4000, 1000)]
    changes = {c.item_id: c for c in diff.items}
    assert set(changes) == {"rule:_core/owasp-2025.md", "requirements:2"}
    rule, para = changes["rule:_core/owasp-2025.md"], changes["requirements:2"]
    assert (rule.change, rule.status_before, rule.status_after) == ("left", INCLUDED, CUT_FOR_BUDGET)
    assert rule.reason_before == "core rules, always considered; block of 1,533 characters fit the 4,800 left of 4,800"
    assert rule.reason_after == (
        "core rules, always considered; block of 1,533 characters did not fit the 1,200 left of 1,200"
    )
    assert (para.change, para.tokens_before, para.tokens_after) == ("left", 600 // 4, 0)
    assert para.reason_before == "rank 2 of 2 kept (score 1)"
    assert para.reason_after == (
        "rank 2 of 2 kept (score 1), but truncation to the requirements budget of 250 tokens cut the text "
        "before it (paragraph boundary)"
    )

    sections = {s.name: s for s in diff.sections}
    security, spec = sections["security_rules"], sections["spec_excerpts"]
    assert (security.budget_before, security.budget_after) == (1200, 300)
    assert (security.tokens_before, security.tokens_after) == (len(SEC_HEADER + block) // 4, 0)
    assert (spec.budget_before, spec.budget_after) == (2000, 500)
    assert (spec.tokens_before, spec.tokens_after) == (len(spec_a) // 4, len(diff.current.context) // 4)
    # The context diff names the sides, not a baseline and a current run.
    assert diff.context_diff[:2] == ("--- A", "+++ B")


def test_progress_covers_both_sides_in_halves_and_cancel_stops(project: Project) -> None:
    seen: list[tuple[str, float]] = []
    settings = project.settings
    _compare(project, settings, settings, progress=lambda stage, f: seen.append((stage, f)))
    a_part = [f for s, f in seen if s.startswith("A: ")]
    b_part = [f for s, f in seen if s.startswith("B: ")]
    assert a_part and b_part and len(a_part) + len(b_part) == len(seen)
    assert max(a_part) <= 0.5 <= min(b_part) and seen[-1] == ("B: done", 1.0)
    assert [f for _s, f in seen] == sorted(f for _s, f in seen)

    cancel = threading.Event()
    cancel.set()
    with pytest.raises(Cancelled):
        _compare(project, settings, settings, cancel=cancel)


def test_two_profiles_names_label_the_diff(project: Project) -> None:
    diff = _compare(project, project.settings, project.settings.with_overrides({"top_k": 1}, "x"), names=("L", "R"))
    assert diff.context_diff[:2] == ("--- L", "+++ R")
    # top_k 1 keeps P1 (rank 1) only: P2 leaves with the top-k reason.
    [change] = diff.items
    assert change.item_id == "requirements:2" and change.reason_after == "rank 2, only the top 1 are kept (score 1)"


# -- side specs ---------------------------------------------------------------------------------


def test_a_side_is_a_profile_with_optional_settings() -> None:
    assert parse_side("drift") == Side("drift")
    side = parse_side("drift:budget=6000,top_k=8")
    assert side == Side("drift", (("budget", 6000), ("top_k", 8)), "budget=6000, top_k=8")
    assert side.label == "drift: budget=6000, top_k=8"
    assert make_side("shaktiman", " budget = 2k ; top_k=3 ").written == "budget=2k, top_k=3"
    # Values are YAML: a mapping with a comma inside braces is one value.
    zones = parse_side("mahabharatha:zones={compaction: 75, warn: 50}")
    assert zones.overrides == (("zones", {"compaction": 75, "warn": 50}),)


def test_two_sides_split_where_a_profile_name_starts() -> None:
    a, b = parse_sides("mahabharatha:budget=6000,top_k=8,drift:budget=6000")
    assert a == Side("mahabharatha", (("budget", 6000), ("top_k", 8)), "budget=6000, top_k=8")
    assert b == Side("drift", (("budget", 6000),), "budget=6000")
    a, b = parse_sides(" mahabharatha , mahabharatha:budget=1500 ")
    assert (a.label, b.label) == ("mahabharatha", "mahabharatha: budget=1500")
    a, b = parse_sides("ctxviewer:drift_priority=[rules, design],drift")
    assert a.overrides == (("drift_priority", ["rules", "design"]),) and b.profile == "drift"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("drift", "--profiles: name exactly two sides, A,B (e.g. mahabharatha,drift:budget=6000,top_k=8); found 1"),
        ("a:x=1,drift", "--profiles A: 'a' is not a profile; choose from"),
        ("drift,drift,drift", "found 3"),
        ("budget=3,drift", "--profiles: 'budget=3' comes before any profile"),
        ("drfit,drift", "--profiles A: 'drfit' is not a profile; did you mean drift?"),
        ("drift,mahabharatha:budget", "--profiles B: 'budget': write KEY=VALUE"),
        ("drift:profile=shaktiman,drift", "--profiles A: profile: the side's profile is chosen by its name"),
        ("drift:top_k=1,top_k=2,drift", "--profiles A: top_k: given twice"),
        (
            ":budget=3,drift",
            "--profiles A: name a profile (mahabharatha, drift, shaktiman, ctxviewer, computed, zerg-0.3.2, "
            "mahabharatha-latest)",
        ),
    ],
)
def test_malformed_sides_are_refused_in_one_line(text: str, message: str) -> None:
    with pytest.raises(SettingsError) as info:
        parse_sides(text)
    assert message in str(info.value) and "\n" not in str(info.value)


def test_values_are_checked_by_the_engine_with_the_sides_name() -> None:
    side = parse_side("mahabharatha:budget=-5")
    with pytest.raises(SettingsError, match=r"^side B: budget: must be between 1 and 10,000,000, not -5$"):
        side.settings(Settings(), "side B")
    with pytest.raises(SettingsError, match=r"budget: the shaktiman profile takes a budget of 256-32,768"):
        parse_side("shaktiman:budget=100").settings(Settings(), "side A")
    with pytest.raises(SettingsError, match=r"budgett: unknown setting; did you mean budget\?"):
        parse_side("drift:budgett=1").settings(Settings(), "side A")
    settings = parse_side("drift:budget=6000").settings(Settings(), "side A")
    assert (settings.profile, settings.budget, settings.origin("budget")) == ("drift", 6000, "side A")


def test_assignments_and_settings_text() -> None:
    assert parse_assignment("budget=1500") == ("budget", 1500)
    assert parse_assignment("zones={compaction: 75}") == ("zones", {"compaction": 75})
    assert parse_assignment("tokenizer=cl100k_base") == ("tokenizer", "cl100k_base")
    assert parse_assignment("budget=") == ("budget", "")
    assert parse_assignment("x=[unclosed") == ("x", "[unclosed")  # YAML cannot read it: kept as text
    assert parse_settings_text("") == ()
    assert parse_settings_text("budget=6000, top_k=8;spec_share=0.4") == (
        ("budget", 6000),
        ("top_k", 8),
        ("spec_share", 0.4),
    )


# -- renderings -------------------------------------------------------------------------------


def test_text_shows_both_runs_sections_changes_and_the_diff(project: Project) -> None:
    a, b = parse_sides("mahabharatha,mahabharatha:budget=1000")
    diff = _compare(project, a.settings(project.settings, "A"), b.settings(project.settings, "B"))
    text = compare_text(diff, a, b)
    lines = text.splitlines()
    used_a, used_b = len(diff.baseline.context) // 4, len(diff.current.context) // 4
    assert lines[0] == "T1 (feat): Login session"
    assert lines[1].split() == ["A", "mahabharatha", *run_summary(diff.baseline).split()]
    assert (
        run_summary(diff.baseline)
        == f"{used_a:,} of 4,000 heuristic tokens ({100 * used_a / 4000:.1f}%), within budget"
    )
    assert lines[2].startswith("B  mahabharatha: budget=1000") and lines[2].endswith(f"{used_b:,} of 1,000 heuristic "
        f"tokens ({100 * used_b / 1000:.1f}%), within budget")  # fmt: skip
    assert lines[3] == "Settings that differ (A \u2192 B): budget 4,000 \u2192 1,000"
    assert "Whole context" in text and f"{used_a:,}" in text
    assert f" left \u2014 {SIDE_MEANINGS['left']} (2)" in text
    assert "          B: core rules, always considered; block of 1,533 characters did not fit the 1,200" in text
    assert "Context diff (A \u2192 B):" in text and "\n-" + P2 + "\n" in text
    assert set(SIDE_MEANINGS) == set(CHANGES)


def test_an_overshoot_is_named_with_its_size(tmp_path: Path) -> None:
    # Budget 10: the requirements get 5 // 2 = 2 tokens = 8 chars, yet the header and the
    # truncation marker alone are longer, so the context overshoots.
    root = make_project(tmp_path, [TASK], requirements=P1, design="", rules={})
    project = load_project(root)
    feature = project.feature("feat")
    small = project.settings.with_overrides({"budget": 10}, "B")
    diff = compare_task(project, feature, feature.task("T1"), project.settings, small, exact=False)
    over = len(diff.current.context) // 4 - 10
    assert over > 0 and overshoot(diff.current) == over and overshoot(diff.baseline) == 0
    assert run_summary(diff.current).endswith(f"over budget by {over:,}")


def test_markdown_and_json_reuse_the_what_if_forms(project: Project) -> None:
    a, b = parse_sides("mahabharatha,mahabharatha:budget=1000")
    diff = _compare(project, a.settings(project.settings, "A"), b.settings(project.settings, "B"))
    md = compare_markdown(diff, a, b)
    assert md.startswith("## Compare T1: A `mahabharatha` vs B `mahabharatha: budget=1000`\n")
    assert "**A** (the baseline, *before*)" in md and "\n\nBaseline T1 (feat)" in md
    assert md.endswith(diff_markdown(diff).split("\n", 1)[1].lstrip("\n"))
    data = compare_to_json(diff, a, b)
    assert data["sides"]["A"] == {
        "label": "mahabharatha",
        "profile": "mahabharatha",
        "settings": "",
        "tokenizer": "heuristic",
        "budget": 4000,
        "context_tokens": len(diff.baseline.context) // 4,
        "overshoot": 0,
    }
    assert data["sides"]["B"]["settings"] == "budget=1000"
    assert [i["item_id"] for i in data["items"]] == [c.item_id for c in diff.items]


def test_both_sides_are_counted_in_bs_decision_tokenizer(project: Project) -> None:
    from ctxviewer.engine.tokens.counting import get_counter

    exact_b = project.settings.with_overrides({"tokenizer": "cl100k_base"}, "B")
    diff = _compare(project, project.settings, exact_b)  # exact=False: A alone would only be estimated
    count = get_counter("cl100k_base").count
    assert diff.tokenizer == "cl100k_base"
    assert diff.context_tokens_before == count(diff.baseline.context)
    assert diff.context_tokens_after == count(diff.current.context)
