"""Budgets as people write them: 4000, 4,000, 4k -- on the command line, in --set and in ctxviewer.yaml."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxviewer.engine.errors import SettingsError
from ctxviewer.engine.project.loading import load_project
from ctxviewer.engine.project.settings import parse_budget
from tests.factories import make_project, write

FORMS = "must be a whole number of tokens (4000, 4,000 or 4k)"


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("4000", 4000),
        ("4,000", 4000),
        ("4_000", 4000),
        ("4k", 4000),
        ("4K", 4000),
        (" 4k ", 4000),
        ("+4k", 4000),
        ("1.5k", 1500),  # k is 1,000, not 1,024
        ("0.25k", 250),
        ("4000.0", 4000),
        ("1,000,000", 1_000_000),
        ("10,000k", 10_000_000),  # the top of the range
        ("1", 1),  # the bottom
    ],
)
def test_budgets_people_write_are_read(text: str, tokens: int) -> None:
    assert parse_budget(text) == tokens


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("4kk", f"budget: {FORMS}, not '4kk'"),
        ("4 k", f"budget: {FORMS}, not '4 k'"),
        ("nan", f"budget: {FORMS}, not 'nan'"),
        ("inf", f"budget: {FORMS}, not 'inf'"),
        ("", f"budget: {FORMS}, not ''"),
        ("1e3", f"budget: {FORMS}, not '1e3'"),
        ("40,00", f"budget: {FORMS}, not '40,00'"),  # commas group thousands, so this is a typo
        ("1,5k", f"budget: {FORMS}, not '1,5k'"),  # a decimal comma would be read as 15k: refused
        ("4m", f"budget: {FORMS}, not '4m'"),
        ("-4k", "budget: must be between 1 and 10,000,000, not -4,000"),
        ("0", "budget: must be between 1 and 10,000,000, not 0"),
        ("0k", "budget: must be between 1 and 10,000,000, not 0"),
        ("10,001k", "budget: must be between 1 and 10,000,000, not 10,001,000"),
        ("1.2345k", "budget: '1.2345k' is 1,234.5 tokens, not a whole number"),
        ("0.5", "budget: '0.5' is 0.5 tokens, not a whole number"),
        ("9" * 100, f"budget: {FORMS}, not '{'9' * 100}'"),
    ],
)
def test_bad_budgets_are_refused_in_one_line(text: str, message: str) -> None:
    with pytest.raises(SettingsError) as info:
        parse_budget(text)
    assert str(info.value) == message


def test_the_key_is_named_as_the_user_gave_it() -> None:
    with pytest.raises(SettingsError) as info:
        parse_budget("4kk", "--budget")
    assert str(info.value) == f"--budget: {FORMS}, not '4kk'"


def _project(tmp_path: Path) -> Path:
    return make_project(tmp_path / "p", [{"id": "T1", "title": "Login", "files": {}}], requirements="Login.")


@pytest.mark.parametrize(("value", "tokens"), [("4k", 4000), ("4,000", 4000), ("1.5k", 1500), ("2500", 2500)])
def test_set_budget_takes_the_same_forms(tmp_path: Path, value: str, tokens: int) -> None:
    # --set values are read as YAML first: "4k" and "4,000" are strings there, 2500 a number.
    from ctxviewer.engine.runs.compare import parse_assignment

    key, parsed = parse_assignment(f"budget={value}")
    settings = load_project(_project(tmp_path), {key: parsed}).settings
    assert settings.budget == tokens
    # shares are int(budget * share): 30 % and 50 %
    assert settings.section_budgets == {"security_rules": int(tokens * 0.3), "spec_excerpts": int(tokens * 0.5)}


def test_ctxviewer_yaml_takes_4k_and_window_sizes_too(tmp_path: Path) -> None:
    root = _project(tmp_path)
    write(root, "ctxviewer.yaml", "budget:\n  total: 2.5k\nmax_context_tokens: 128k\n")
    settings = load_project(root).settings
    assert (settings.budget, settings.max_context_tokens) == (2500, 128_000)


def test_ctxviewer_yaml_bad_budget_names_the_key_as_written(tmp_path: Path) -> None:
    root = _project(tmp_path)
    write(root, "ctxviewer.yaml", "budget:\n  total: 4kk\n")
    with pytest.raises(SettingsError) as info:
        load_project(root)
    assert str(info.value) == f"ctxviewer.yaml: budget.total: {FORMS}, not '4kk'"


def test_the_systems_own_config_still_takes_only_numbers(tmp_path: Path) -> None:
    # .mahabharatha/config.yaml is read by the real system, whose config model wants an integer.
    root = _project(tmp_path)
    write(root, ".mahabharatha/config.yaml", "plugins:\n  context_engineering:\n    task_context_budget_tokens: 4k\n")
    with pytest.raises(SettingsError) as info:
        load_project(root)
    assert "task_context_budget_tokens: must be a whole number, not '4k'" in str(info.value)
