"""Every task of every bundled sample project, against the independent oracle."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxviewer.engine.project.loading import load_project
from ctxviewer.engine.runs.pipeline import assemble_task
from ctxviewer.engine.trace.model import FATES, KEPT, SPEC_PARAGRAPH
from tests.conftest import sample_projects
from tests.engine.oracle import oracle_context

SAMPLES = sample_projects()


def test_there_are_at_least_three_samples() -> None:
    assert len(SAMPLES) >= 3


@pytest.mark.parametrize("root", SAMPLES, ids=[p.name for p in SAMPLES])
def test_every_task_matches_the_oracle(root: Path) -> None:
    project = load_project(root)
    pairs = project.tasks()
    assert len(pairs) >= 6
    for feature, task in pairs:
        trace = assemble_task(project, feature, task, exact=False)
        expected = oracle_context(root, feature.name, dict(task.raw), project.settings.budget)
        assert trace.context == expected, f"{feature.name}/{task.id}"
        # Every paragraph of every spec file used is accounted for, with a reason.
        for item in trace.items_of(SPEC_PARAGRAPH):
            assert item.status in FATES and item.reason
            if item.status in KEPT and trace.context:
                assert item.span is not None
                start, end = item.span
                assert trace.context[start:end] == item.text[: item.kept_chars]


@pytest.mark.parametrize("root", SAMPLES, ids=[p.name for p in SAMPLES])
def test_selection_matters_in_samples(root: Path) -> None:
    """Samples are rich enough that paragraphs are both kept and dropped by rank."""
    project = load_project(root)
    reasons = []
    for feature, task in project.tasks():
        trace = assemble_task(project, feature, task, exact=False)
        reasons.extend(i.reason for i in trace.items_of(SPEC_PARAGRAPH))
    assert any(r.startswith("rank ") and "only the top" in r for r in reasons)
    assert any(r.startswith("score 0") for r in reasons)
