"""Every command resolves feature and task ids one way: as written, else case ignored where only
one id fits; an unknown one is one line naming the closest ids (engine/project/ids.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.helpers import run
from tests.factories import write

#: Each command that takes --feature (and --task), with what else it needs.
COMMANDS: dict[str, list[str]] = {
    "assemble": ["--task", "{task}"],
    "why": ["--task", "{task}", "login"],
    "prompt": ["--task", "{task}"],
    "window": ["--task", "{task}", "--no-exact"],
    "whatif": ["--task", "{task}", "--budget", "1500", "--no-exact"],
    "compare": ["--task", "{task}", "--profiles", "drift,shaktiman", "--no-exact"],
    "list": [],
    "batch": ["--no-exact"],
    "check": [],
    "sweep": ["--budget", "1000:2000:1000"],
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_ids_in_another_case_name_the_same_task(
    command: str, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    more = [a.format(task="T1") for a in COMMANDS[command]]
    exact = run(capsys, command, str(project), "--feature", "feat", *more)
    more = [a.format(task="t1") for a in COMMANDS[command]]
    other_case = run(capsys, command, str(project), "--feature", "FEAT", *more)
    assert exact[0] in (0, 1)
    assert other_case == exact  # the same output: the ids resolve to the project's own


@pytest.mark.parametrize("command", sorted(c for c, more in COMMANDS.items() if "--task" in more))
def test_an_unknown_task_is_one_line_with_the_closest(
    command: str, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    more = [a.format(task="T") for a in COMMANDS[command]]
    code, out, err = run(capsys, command, str(project), "--feature", "feat", *more)
    assert (code, out) == (2, "")
    # T1 and T2 both begin with "T": both are named, and no others are left.
    assert err == (
        "ctxviewer: .gsd/specs/feat/task-graph.json: no task 'T' in feature 'feat'; did you mean T1 or T2?\n"
    )


def test_two_features_equal_but_for_case_must_be_written_as_they_are(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(project, ".gsd/specs/FEAT/task-graph.json", '{"tasks": [{"id": "T1", "title": "Login session"}]}')
    code, _, err = run(capsys, "assemble", str(project), "--feature", "Feat", "--task", "T1")
    assert code == 2
    assert "feature 'Feat' in .gsd/specs could be " in err and err.count("\n") == 1
    assert {"FEAT", "feat"} == set(err.split("could be ")[1].split(":")[0].split(" or "))
    assert run(capsys, "assemble", str(project), "--feature", "FEAT", "--task", "t1")[0] == 0
