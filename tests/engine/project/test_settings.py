"""Settings layering and validation, through load_project on small tmp projects.

Layers, later winning: defaults; ``.mahabharatha/config.yaml`` or ``.zerg/config.yaml``
(``workers.context_threshold_percent`` and ``plugins.context_engineering.*``);
``ctxviewer.yaml``; command-line/GUI overrides.  Every value is validated where it
enters and a bad value raises :class:`SettingsError` naming the file and the key; the
origin of each value is recorded; ``section_budgets`` are ``int(budget * share)``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxviewer.engine.errors import ProjectError, SettingsError
from ctxviewer.engine.project.loading import load_project
from ctxviewer.engine.project.settings import Settings

MAHA = ".mahabharatha/config.yaml"
ZERG = ".zerg/config.yaml"
CTX = "ctxviewer.yaml"


def system_budget(tokens: object) -> str:
    return f"plugins:\n  context_engineering:\n    task_context_budget_tokens: {tokens}\n"


def project(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


SYSTEM_CONFIG = """\
workers:
  context_threshold_percent: 55
  count: 8            # not read by the context pipeline
plugins:
  context_engineering:
    task_context_budget_tokens: 6000
    fallback_to_full: false
    security_rule_filtering: false
    command_splitting: false
    enabled: false
"""


# -- defaults ------------------------------------------------------------------------


def test_defaults_without_any_config(tmp_path: Path) -> None:
    p = load_project(project(tmp_path, {}))
    s = p.settings
    assert (s.budget, s.security_share, s.spec_share, s.top_k) == (4000, 0.30, 0.50, 5)
    assert (s.threshold_percent, s.max_context_tokens, s.tokenizer) == (70.0, 200_000, "heuristic")
    assert (s.fallback_to_full, s.security_rule_filtering, s.command_splitting, s.enabled) == (
        True,
        True,
        True,
        True,
    )
    assert (s.paths.specs, s.paths.rules, s.paths.commands) == (
        ".gsd/specs",
        ".claude/rules/security",
        ".claude/commands",
    )
    assert (p.system_config, p.ctxviewer_config) == (None, None)
    assert s.origin("budget") == "default"


# -- the system's config -------------------------------------------------------------------


@pytest.mark.parametrize("where", [MAHA, ZERG])
def test_system_config_keys(tmp_path: Path, where: str) -> None:
    p = load_project(project(tmp_path, {where: SYSTEM_CONFIG}))
    s = p.settings
    assert p.system_config == where
    assert (s.threshold_percent, s.budget) == (55.0, 6000)
    assert (s.fallback_to_full, s.security_rule_filtering, s.command_splitting, s.enabled) == (
        False,
        False,
        False,
        False,
    )
    for key in (
        "threshold_percent",
        "budget",
        "fallback_to_full",
        "security_rule_filtering",
        "command_splitting",
        "enabled",
    ):
        assert s.origin(key) == where, key
    assert s.origin("top_k") == "default"


def test_mahabharatha_config_wins_over_zerg(tmp_path: Path) -> None:
    root = project(
        tmp_path,
        {
            MAHA: system_budget(700),
            ZERG: system_budget(900),
        },
    )
    p = load_project(root)
    assert (p.system_config, p.settings.budget) == (MAHA, 700)


@pytest.mark.parametrize("budget", [500, 20_000])
def test_system_budget_range_bounds_are_accepted(tmp_path: Path, budget: int) -> None:
    text = system_budget(budget)
    assert load_project(project(tmp_path, {MAHA: text})).settings.budget == budget


@pytest.mark.parametrize("budget", ["499", "20001", "0", "-5", "1.5", "true", "lots"])
def test_system_budget_outside_the_systems_range_is_an_error(tmp_path: Path, budget: str) -> None:
    text = system_budget(budget)
    with pytest.raises(SettingsError) as info:
        load_project(project(tmp_path, {MAHA: text}))
    assert info.value.path == MAHA
    assert "plugins.context_engineering.task_context_budget_tokens" in info.value.message


@pytest.mark.parametrize("key", ["fallback_to_full", "security_rule_filtering", "command_splitting", "enabled"])
def test_system_flags_must_be_booleans(tmp_path: Path, key: str) -> None:
    text = f"plugins:\n  context_engineering:\n    {key}: sometimes\n"
    with pytest.raises(SettingsError) as info:
        load_project(project(tmp_path, {ZERG: text}))
    assert info.value.path == ZERG
    assert f"plugins.context_engineering.{key}" in info.value.message


@pytest.mark.parametrize("value", ["0", "-1", "100.5", "high"])
def test_system_threshold_must_be_above_zero_and_at_most_100(tmp_path: Path, value: str) -> None:
    with pytest.raises(SettingsError) as info:
        load_project(project(tmp_path, {MAHA: f"workers:\n  context_threshold_percent: {value}\n"}))
    assert info.value.path == MAHA
    assert "threshold_percent" in info.value.message


def test_system_threshold_of_100_is_accepted(tmp_path: Path) -> None:
    p = load_project(project(tmp_path, {MAHA: "workers:\n  context_threshold_percent: 100\n"}))
    assert p.settings.threshold_percent == 100.0


def test_a_system_config_that_is_not_a_mapping_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(SettingsError) as info:
        load_project(project(tmp_path, {MAHA: "- just\n- a list\n"}))
    assert info.value.path == MAHA


def test_an_empty_system_config_changes_nothing(tmp_path: Path) -> None:
    p = load_project(project(tmp_path, {MAHA: "# nothing here\n"}))
    assert p.system_config == MAHA
    assert p.settings.budget == 4000
    assert p.settings.origin("budget") == "default"


# -- ctxviewer.yaml --------------------------------------------------------------------------

CTX_ALL = """\
profile: mahabharatha
tokenizer: o200k_base
budget:
  total: 30000          # above the system's 20,000: allowed here
  shares:
    security_rules: 0.25
    spec_excerpts: 0.5
top_k: 3
threshold_percent: 80
max_context_tokens: 100000
fallback_to_full: false
security_rule_filtering: false
command_splitting: false
paths:
  specs: specs
  rules: rules/sec/
  commands: cmds
"""


def test_ctxviewer_yaml_keys(tmp_path: Path) -> None:
    p = load_project(project(tmp_path, {CTX: CTX_ALL}))
    s = p.settings
    assert p.ctxviewer_config == CTX
    assert (s.tokenizer, s.budget, s.security_share, s.spec_share, s.top_k) == (
        "o200k_base",
        30000,
        0.25,
        0.5,
        3,
    )
    assert (s.threshold_percent, s.max_context_tokens) == (80.0, 100_000)
    assert (s.fallback_to_full, s.security_rule_filtering, s.command_splitting) == (
        False,
        False,
        False,
    )
    assert (s.paths.specs, s.paths.rules, s.paths.commands) == ("specs", "rules/sec", "cmds")
    for key in (
        "tokenizer",
        "budget",
        "security_share",
        "spec_share",
        "top_k",
        "threshold_percent",
        "max_context_tokens",
        "paths.specs",
        "paths.rules",
        "paths.commands",
    ):
        assert s.origin(key) == CTX, key


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("colour: blue\n", "colour"),
        ("budget:\n  totl: 5000\n", "budget.totl"),
        ("budget:\n  shares:\n    tests: 0.1\n", "budget.shares.tests"),
        ("paths:\n  docs: docs\n", "paths.docs"),
    ],
)
def test_unknown_ctxviewer_yaml_keys_are_errors(tmp_path: Path, text: str, key: str) -> None:
    with pytest.raises(SettingsError) as info:
        load_project(project(tmp_path, {CTX: text}))
    assert info.value.path == CTX
    assert info.value.message.startswith(f"{key}: unknown setting; ")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("budget:\n  totl: 5000\n", "budget.totl: unknown setting; did you mean budget.total?"),
        ("budget: 3200\n", "budget: write it as a mapping of shares, total (e.g. budget: {shares: ...})"),
        ("top-k: 3\n", "top-k: unknown setting; did you mean top_k?"),
    ],
)
def test_ctxviewer_yaml_mistakes_get_a_hint(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(SettingsError) as info:
        load_project(project(tmp_path, {CTX: text}))
    assert info.value.message == message


def test_an_unknown_override_suggests_the_near_key() -> None:
    with pytest.raises(SettingsError, match="budgt: unknown setting; did you mean budget"):
        Settings().with_overrides({"budgt": 1}, "command line")


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("tokenizer: gpt2\n", "tokenizer"),
        ("profile: other\n", "profile"),
        ("top_k: 0\n", "top_k"),
        # Named as the file writes them, not by the flat setting (budget, spec_share).
        ("budget:\n  total: 0\n", "budget.total"),
        ("budget:\n  total: true\n", "budget.total"),
        ("budget:\n  shares:\n    security_rules: 1.5\n", "budget.shares.security_rules"),
        ("budget:\n  shares:\n    spec_excerpts: -0.1\n", "budget.shares.spec_excerpts"),
        ("max_context_tokens: 999\n", "max_context_tokens"),
        ("fallback_to_full: 1\n", "fallback_to_full"),
        ("paths:\n  specs: ''\n", "paths.specs"),
    ],
)
def test_invalid_ctxviewer_yaml_values_name_file_and_key(tmp_path: Path, text: str, key: str) -> None:
    with pytest.raises(SettingsError) as info:
        load_project(project(tmp_path, {CTX: text}))
    assert info.value.path == CTX
    assert info.value.message.startswith(f"{key}: ")


def test_a_path_setting_outside_the_project_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(SettingsError) as info:
        load_project(project(tmp_path, {CTX: "paths:\n  specs: ../elsewhere\n"}))
    assert info.value.path == CTX
    assert info.value.message.startswith("paths.specs: ")


def test_paths_config_chooses_the_system_config(tmp_path: Path) -> None:
    root = project(
        tmp_path,
        {
            CTX: "paths:\n  config: conf/system.yaml\n",
            "conf/system.yaml": system_budget(800),
            MAHA: system_budget(900),
        },
    )
    p = load_project(root)
    assert (p.system_config, p.settings.budget) == ("conf/system.yaml", 800)
    assert p.settings.origin("budget") == "conf/system.yaml"


def test_a_missing_paths_config_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ProjectError):
        load_project(project(tmp_path, {CTX: "paths:\n  config: conf/none.yaml\n"}))


def test_a_ctxviewer_yaml_that_is_not_a_mapping_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(SettingsError) as info:
        load_project(project(tmp_path, {CTX: "just text\n"}))
    assert info.value.path == CTX


# -- layering and origins -------------------------------------------------------------------


def test_layers_later_wins_and_origins_follow(tmp_path: Path) -> None:
    root = project(
        tmp_path,
        {
            MAHA: SYSTEM_CONFIG,  # threshold 55, budget 6000, flags false
            CTX: "threshold_percent: 80\ncommand_splitting: true\n",
        },
    )
    p = load_project(root, overrides={"budget": 9000, "top_k": 2}, override_origin="command line")
    s = p.settings
    assert (s.threshold_percent, s.origin("threshold_percent")) == (80.0, CTX)
    assert (s.command_splitting, s.origin("command_splitting")) == (True, CTX)
    assert (s.budget, s.origin("budget")) == (9000, "command line")
    assert (s.top_k, s.origin("top_k")) == (2, "command line")
    assert (s.fallback_to_full, s.origin("fallback_to_full")) == (False, MAHA)
    assert (s.spec_share, s.origin("spec_share")) == (0.5, "default")
    table = s.as_table()
    assert table["budget"] == (9000, "command line")
    assert table["threshold_percent"] == (80.0, CTX)
    assert table["paths.specs"] == (".gsd/specs", "default")


def test_invalid_override_names_its_origin(tmp_path: Path) -> None:
    with pytest.raises(SettingsError) as info:
        load_project(project(tmp_path, {}), overrides={"top_k": "five"}, override_origin="GUI")
    assert info.value.path == "GUI"
    assert info.value.message.startswith("top_k: ")


def test_unknown_override_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(SettingsError):
        load_project(project(tmp_path, {}), overrides={"colour": "blue"})


# -- shares and section budgets ------------------------------------------------------------


def test_shares_over_100_percent_are_an_error(tmp_path: Path) -> None:
    text = "budget:\n  shares:\n    security_rules: 0.6\n    spec_excerpts: 0.5\n"
    with pytest.raises(SettingsError) as info:
        load_project(project(tmp_path, {CTX: text}))
    assert info.value.path == CTX
    assert "110%" in info.value.message  # 0.6 + 0.5


def test_one_share_raised_against_the_other_default_is_checked_together(tmp_path: Path) -> None:
    # security 0.6 + the default spec 0.5 = 1.1
    with pytest.raises(SettingsError):
        load_project(project(tmp_path, {CTX: "budget:\n  shares:\n    security_rules: 0.6\n"}))


def test_shares_of_exactly_100_percent_are_allowed(tmp_path: Path) -> None:
    text = "budget:\n  shares:\n    security_rules: 0.7\n    spec_excerpts: 0.3\n"
    s = load_project(project(tmp_path, {CTX: text})).settings
    assert (s.security_share, s.spec_share) == (0.7, 0.3)


def test_shares_over_100_percent_by_override_are_an_error(tmp_path: Path) -> None:
    with pytest.raises(SettingsError) as info:
        load_project(project(tmp_path, {}), overrides={"spec_share": 0.8}, override_origin="GUI")
    assert info.value.path == "GUI"  # 0.3 default + 0.8 = 110%


@pytest.mark.parametrize(
    ("budget", "security", "spec", "expected"),
    [
        (4000, 0.30, 0.50, (1200, 2000, 800)),  # the defaults
        (1001, 0.25, 0.50, (250, 500, 251)),  # 250.25 -> 250, 500.5 -> 500, 1001 - 750
        (1003, 0.30, 0.50, (300, 501, 202)),  # 300.9 -> 300, 501.5 -> 501, 1003 - 801
        (7, 0.5, 0.5, (3, 3, 1)),  # 3.5 -> 3 twice, 7 - 6
    ],
)
def test_section_budgets_are_int_of_budget_times_share(
    tmp_path: Path, budget: int, security: float, spec: float, expected: tuple[int, int, int]
) -> None:
    text = f"budget:\n  total: {budget}\n  shares:\n    security_rules: {security}\n    spec_excerpts: {spec}\n"
    s: Settings = load_project(project(tmp_path, {CTX: text})).settings
    assert s.section_budgets == {"security_rules": expected[0], "spec_excerpts": expected[1]}
    assert s.buffer == expected[2]


def test_zones_and_replay_settings_from_ctxviewer_yaml(tmp_path: Path) -> None:
    root = tmp_path / "p"
    (root / ".gsd/specs").mkdir(parents=True)
    (root / "ctxviewer.yaml").write_text(
        "threshold_percent: 70\nzones:\n  compaction: 75\n  warn: 50\nreplay:\n  tool_calls_per_task: 3\n"
        "  minutes_per_task: 1.5\n",
        encoding="utf-8",
    )
    settings = load_project(root).settings
    assert settings.zones == (("warn", 50.0), ("compaction", 75.0))
    assert settings.all_zones == (("warn", 50.0), ("checkpoint", 70.0), ("compaction", 75.0))
    assert (settings.replay_tool_calls, settings.replay_minutes) == (3, 1.5)
    assert settings.as_table()["zones"] == ({"warn": 50.0, "compaction": 75.0}, "ctxviewer.yaml")


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ({"checkpoint": 80}, "'checkpoint' is threshold_percent"),
        ({"compaction": 0}, "zones.compaction: must be above 0"),
        ({"compaction": 120}, "zones.compaction: must be between 0 and 100"),
        ({"compaction": "high"}, "zones.compaction: must be a number"),
        ([1, 2, 3], "must be a mapping of zone name to percent"),
    ],
)
def test_invalid_zones_are_refused(value: object, message: str) -> None:
    with pytest.raises(SettingsError) as err:
        Settings().with_overrides({"zones": value}, "gui")
    assert message in str(err.value)


def test_replay_settings_are_range_checked() -> None:
    with pytest.raises(SettingsError, match="replay_tool_calls: must be a whole number"):
        Settings().with_overrides({"replay_tool_calls": 2.5}, "gui")
    with pytest.raises(SettingsError, match="replay_minutes: must be between 0 and 10000"):
        Settings().with_overrides({"replay_minutes": -1}, "gui")


def test_python_for_sources_is_auto_or_a_program_and_in_the_table_only_where_set() -> None:
    s = Settings()
    assert s.python_for_sources == "auto" and "python_for_sources" not in s.as_table()
    set_ = s.with_overrides({"python_for_sources": " ~/.pyenv/versions/3.12.1/bin/python3.12 "}, "command line")
    assert set_.python_for_sources == "~/.pyenv/versions/3.12.1/bin/python3.12"
    assert set_.as_table()["python_for_sources"] == (set_.python_for_sources, "command line")
    for bad in (3, "", "  ", "python3.12\nrm", "py\x00thon"):
        with pytest.raises(SettingsError, match="python_for_sources: must be auto, or a Python program's name"):
            s.with_overrides({"python_for_sources": bad}, "command line")


def test_python_for_sources_from_ctxviewer_yaml(tmp_path: Path) -> None:
    p = load_project(project(tmp_path, {CTX: "python_for_sources: python3.13\n"}))
    assert (p.settings.python_for_sources, p.settings.origin("python_for_sources")) == ("python3.13", CTX)
