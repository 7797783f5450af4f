"""The fate vocabulary: what each id means, that non-candidates are never drops, and old traces."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctxviewer.engine.project.loading import load_project
from ctxviewer.engine.registry import PROFILES
from ctxviewer.engine.runs.pipeline import assemble, assemble_task
from ctxviewer.engine.trace.model import (
    CUT_FOR_BUDGET,
    DROPS,
    FATE_LABELS,
    FATES,
    INCLUDED,
    KEPT,
    NOT_CANDIDATE,
    OUTRANKED,
    RULE_FILE,
    SCHEMA_VERSION,
    SPEC_PARAGRAPH,
    TRUNCATED,
    fate_label,
    legacy_fate,
    trace_from_json,
    trace_to_json,
)
from tests.conftest import sample_projects
from tests.factories import make_project

SAMPLES = sample_projects()


def test_the_vocabulary_is_the_contract() -> None:
    assert FATES == ("included", "truncated", "cut_for_budget", "outranked", "not_candidate")
    assert dict(FATE_LABELS) == {
        "included": "included",
        "truncated": "truncated",
        "cut_for_budget": "cut for budget",
        "outranked": "outranked",
        "not_candidate": "not a candidate",
    }
    assert sorted(DROPS) == [CUT_FOR_BUDGET, OUTRANKED]
    assert sorted(KEPT) == [INCLUDED, TRUNCATED]
    assert fate_label("failed") == "failed"  # a section status passes through unchanged
    assert SCHEMA_VERSION == "2.3"


def test_one_task_gets_every_kind_of_fate(tmp_path: Path) -> None:
    # Budget 100: security 30 tokens = 120 characters.  The core block (24-char header line
    # + 69 = 93 chars) fits; the python block (21 + 49 = 70) does not fit the 27 left: cut for
    # budget.  JavaScript and docker match no task file: not candidates.
    # Spec: seven paragraphs; paragraph n holds the first n of seven keywords, so the scores
    # are 1..7; ranks 6 and 7 (paragraphs 2 and 1) are outranked by the top 5; the eighth
    # holds no keyword (score 0): not a candidate.
    words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golfer"]
    paras = [" ".join(words[: n + 1]) for n in range(7)] + ["nothing relevant"]
    task = {"id": "T", "title": " ".join(words), "files": {"create": ["a.py"]}}
    root = make_project(
        tmp_path,
        [task],
        requirements="\n\n".join(paras),
        rules={
            "_core/owasp-2025.md": "## Rule: " + "x" * 60 + "\n",
            "languages/python/CLAUDE.md": "## Rule: " + "y" * 40 + "\n",
        },
    )
    trace = assemble(load_project(root), "feat", "T", {"budget": 100}, exact=False)
    fates = {i.id: i.status for i in trace.items if i.kind == RULE_FILE}
    assert fates["rule:_core/owasp-2025.md"] == INCLUDED
    assert fates["rule:languages/python/CLAUDE.md"] == CUT_FOR_BUDGET
    assert fates["rule:languages/javascript/CLAUDE.md"] == NOT_CANDIDATE
    assert fates["rule:containers/docker/CLAUDE.md"] == NOT_CANDIDATE
    paragraphs = {i.id: i.status for i in trace.items if i.kind == SPEC_PARAGRAPH}
    assert paragraphs["requirements:1"] == OUTRANKED and paragraphs["requirements:2"] == OUTRANKED
    assert paragraphs["requirements:8"] == NOT_CANDIDATE


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("root", SAMPLES, ids=[p.name for p in SAMPLES])
def test_no_non_candidate_is_a_drop_in_the_samples(root: Path, profile: str) -> None:
    """What was never in the running is never called a drop, in any profile."""
    project = load_project(root)
    settings = project.settings.with_overrides({"profile": profile}, "test")
    for feature, task in project.tasks():
        trace = assemble_task(project, feature, task, settings, exact=False)
        for item in trace.items:
            assert item.status in FATES, item
            if item.status not in KEPT:
                assert (item.kept_chars, item.span) == (0, None), item.id
            never = (
                item.reason.startswith(("not matched", "never considered", "score 0", "blank paragraph"))
                or "does not exist" in item.reason
                or "no task keyword occurs" in item.reason
            )
            if never and item.status not in KEPT and "structural expansion" not in item.reason:
                assert item.status == NOT_CANDIDATE, (feature.name, task.id, item.id, item.reason)


@pytest.mark.parametrize("legacy", ["1.0", "1.1"])
@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("root", SAMPLES, ids=[p.name for p in SAMPLES])
def test_an_old_trace_reads_with_the_fates_the_engine_gives_now(root: Path, profile: str, legacy: str) -> None:
    """A 1.x trace said 'dropped' for every left-out item; reading it back gives each its 2.0 fate.

    The mapping works from the reason each item carries; every sample task under every
    profile, downgraded to a 1.x trace, must read back exactly as the engine decides today.
    """
    project = load_project(root)
    settings = project.settings.with_overrides({"profile": profile, "budget": 900}, "test")
    for feature, task in project.tasks():
        trace = assemble_task(project, feature, task, settings, exact=False)
        data = json.loads(json.dumps(trace_to_json(trace)))
        data["schema_version"] = legacy
        for item in data["items"]:
            if item["status"] not in KEPT:
                item["status"] = "dropped"
        back = trace_from_json(data)
        assert back.schema_version == SCHEMA_VERSION
        assert [(i.id, i.status) for i in back.items] == [(i.id, i.status) for i in trace.items]


@pytest.mark.parametrize(
    ("reason", "fate"),
    [
        ("core rules, always considered; block of 93 characters did not fit the 27 left of 120", CUT_FOR_BUDGET),
        ("rank 7, only the top 5 are kept (score 1)", OUTRANKED),
        (
            "rank 2 of 3 kept (score 1), but truncation to the design budget of 10 tokens cut the text before it "
            "(paragraph boundary)",
            CUT_FOR_BUDGET,
        ),
        ("score 0: no task keyword occurs in it", NOT_CANDIDATE),
        ("not matched: no task file is create/modify file ending in .py, .pyx, .pyi", NOT_CANDIDATE),
        ("matched by a.py (.py), but the file does not exist", NOT_CANDIDATE),
        ("would be included (rank 1 of 1 kept (score 1)), but the whole context fell back to empty: x", NOT_CANDIDATE),
        ("rank 3 of 3, score 1: skipped, overlaps paragraph requirements:1 by 100%", OUTRANKED),
        ("near-duplicate of requirements:1: 100% of their word triples are shared", OUTRANKED),
        ("completed, but over the limit: complexity easy keeps 2 prior tasks", OUTRANKED),
        (
            "keyword query: tags a (score 1); rank 1 of 1; a related task: counted, the injection format has no place "
            "for it",
            NOT_CANDIDATE,
        ),
    ],
)
def test_legacy_reasons_map_to_fates(reason: str, fate: str) -> None:
    assert legacy_fate("dropped", reason) == fate
    assert legacy_fate("included", reason) == "included"  # only 'dropped' is remapped
