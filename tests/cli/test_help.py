"""Every command and every argument says what it is: a test walks the whole parser.

A command's description says what it prints and ends with its exit codes; ``ctxviewer --help``
ends with the one exit-code table, which docs/cli.md repeats.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from ctxviewer.cli.app import COMMANDS, build_parser
from ctxviewer.cli.common import EXIT_CODES_HELP

DOCS = Path(__file__).resolve().parents[2] / "docs" / "cli.md"


def _commands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    [sub] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(sub.choices)


def _command_help() -> dict[str, str | None]:
    parser = build_parser()
    [sub] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return {action.dest: action.help for action in sub._choices_actions}


def test_the_walk_sees_every_command() -> None:
    assert len(_commands()) == len(COMMANDS) == 17


@pytest.mark.parametrize("name", sorted(_commands()))
def test_every_command_and_argument_has_help(name: str) -> None:
    command = _commands()[name]
    assert _command_help()[name], f"{name} has no one-line help in ctxviewer --help"
    without = [
        "/".join(action.option_strings) or action.dest
        for action in command._actions
        if not isinstance(action, argparse._HelpAction) and not action.help
    ]
    assert without == [], f"{name}: arguments without help: {without}"


@pytest.mark.parametrize("name", sorted(_commands()))
def test_every_description_says_its_exit_codes(name: str) -> None:
    description = _commands()[name].description or ""
    assert "print" in description.lower() or "open the window" in description.lower(), description
    assert "Exit 0 when done" in description and "2 on bad input" in description


def test_the_walk_fails_on_an_argument_without_help() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("project")
    undocumented = [a.dest for a in parser._actions if not isinstance(a, argparse._HelpAction) and not a.help]
    assert undocumented == ["project"]  # what the test above would name


def test_the_exit_code_table_ends_the_help_and_is_in_the_docs(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["--help"])
    shown = capsys.readouterr().out
    assert shown.endswith(EXIT_CODES_HELP)
    codes = [line.split()[0] for line in EXIT_CODES_HELP.splitlines()[1:] if line[:3].strip()]
    assert codes == ["0", "1", "2", "130"]
    docs = DOCS.read_text(encoding="utf-8")
    table = docs.split("## Exit codes", 1)[1].split("\n## ", 1)[0]
    for code in codes:
        assert f"\n| {code} |" in table


@pytest.mark.parametrize("command", ["whatif", "compare", "diff", "assemble", "list", "check", "batch", "why"])
def test_a_budget_is_given_the_same_way_wherever_one_applies(command: str) -> None:
    options = {opt for action in _commands()[command]._actions for opt in action.option_strings}
    assert {"--budget", "--set"} <= options
    if command != "compare":  # compare's sides name their profiles
        assert "--profile" in options
