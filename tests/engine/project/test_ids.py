"""Naming features and tasks: exact, then case ignored when only one id fits; an unknown id is
answered with the closest ids and how many others there are, never the whole list."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxviewer.engine.errors import UnknownFeatureError, UnknownTaskError
from ctxviewer.engine.project.ids import SUGGESTED, match_id, no_match
from ctxviewer.engine.project.loading import load_project
from tests.factories import make_project, write


def test_an_id_matches_itself_first_then_the_one_equal_but_for_case() -> None:
    known = ["TASK-010", "TASK-011"]
    assert match_id("TASK-010", known) == "TASK-010"
    assert match_id("task-010", known) == "TASK-010"
    assert match_id("Task-011", known) == "TASK-011"
    assert match_id("task-01", known) is None  # a prefix is no match, only a suggestion


def test_ids_equal_but_for_case_match_only_when_written_exactly() -> None:
    known = ["TASK-010", "task-010"]
    assert match_id("task-010", known) == "task-010"
    assert match_id("TASK-010", known) == "TASK-010"
    assert match_id("Task-010", known) is None
    assert no_match("Task-010", known, "task", "in feature 'f'") == (
        "task 'Task-010' in feature 'f' could be TASK-010 or task-010: give it in the case it is written"
    )


def test_an_unknown_id_names_the_closest_and_counts_the_rest() -> None:
    # 86 features as in a real project: the one that starts with what was typed, and 85 others.
    known = ["analyze-wiring-verification", *(f"feature-{n:02d}" for n in range(85))]
    line = no_match("analyze-wiring", known, "feature", "in .gsd/specs")
    assert line == (
        "no feature 'analyze-wiring' in .gsd/specs; did you mean analyze-wiring-verification? (85 other features)"
    )
    assert "feature-00" not in line  # never the whole list


def test_suggestions_are_few_prefixes_first_and_case_is_ignored() -> None:
    known = ["AUTH-L1-001", "AUTH-L1-002", "AUTH-L1-003", "AUTH-L1-004", "OTHER"]
    line = no_match("auth-l1-00", known, "task", "in feature 'auth'")
    # Every id starts with what was typed but OTHER; the shortest first, SUGGESTED of them.
    assert SUGGESTED == 3
    assert line == (
        "no task 'auth-l1-00' in feature 'auth'; did you mean AUTH-L1-001, AUTH-L1-002 or AUTH-L1-003? (2 other tasks)"
    )


def test_nothing_close_says_how_many_there_are() -> None:
    assert no_match("zzz", ["alpha", "beta"], "feature", "in s") == (
        "no feature 'zzz' in s; none of the 2 features is close (ctxviewer list names them)"
    )
    assert no_match("zzz", ["alpha"], "feature", "in s") == "no feature 'zzz' in s; the only feature is alpha"
    assert no_match("zzz", [], "task", "in feature 'f'") == "no task 'zzz' in feature 'f'; there are no tasks"


def test_the_project_resolves_feature_and_task_ids_this_way(tmp_path: Path) -> None:
    root = make_project(tmp_path / "p", [{"id": "TASK-010"}, {"id": "TASK-011"}], feature="Auth-Sessions")
    project = load_project(root)
    feature = project.feature("auth-sessions")
    assert feature.name == "Auth-Sessions"
    assert feature.task("task-011").id == "TASK-011"
    with pytest.raises(UnknownFeatureError, match=r"did you mean Auth-Sessions\?$"):
        project.feature("auth")
    with pytest.raises(UnknownTaskError, match=r"did you mean TASK-010 or TASK-011\?$"):
        feature.task("task-01")


def test_two_features_equal_but_for_case_are_ambiguous(tmp_path: Path) -> None:
    root = make_project(tmp_path / "p", [{"id": "T1"}], feature="auth")
    write(root, ".gsd/specs/AUTH/task-graph.json", '{"tasks": [{"id": "T1"}]}')
    project = load_project(root)
    assert project.feature("AUTH").name == "AUTH" and project.feature("auth").name == "auth"
    could_be = r"feature 'Auth' in \.gsd/specs could be (AUTH or auth|auth or AUTH)"
    with pytest.raises(UnknownFeatureError, match=could_be):
        project.feature("Auth")
