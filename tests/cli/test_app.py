"""The command line as a whole: ``python -m ctxviewer`` and every command on the sample projects."""

from __future__ import annotations

import gc
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.helpers import run

SAMPLE_ROOTS = __import__("tests.conftest", fromlist=["sample_projects"]).sample_projects()


def test_module_entry_point_runs(project: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "ctxviewer", "assemble", str(project), "--feature", "feat", "--task", "T2"],
        capture_output=True,
        text=True,
        check=False,
    )
    # T2 has no files and title words 'other', 'work' match nothing: the context is empty.
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")


@pytest.mark.parametrize("root", SAMPLE_ROOTS, ids=[p.name for p in SAMPLE_ROOTS])
def test_every_command_works_on_samples(root: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    from ctxviewer.engine.project.loading import load_project

    project = load_project(root)
    feature, task = project.tasks()[0]
    code, out, _ = run(capsys, "assemble", str(root), "--feature", feature.name, "--task", task.id)
    assert code in (0, 2) and out
    code, out, _ = run(capsys, "batch", str(root), "--no-exact", "--format", "csv")
    assert code in (0, 2) and len(out.splitlines()) == len(project.tasks()) + 1
    code, out, _ = run(capsys, "check", str(root))
    assert code in (0, 1) and "tasks over" in out
    code, out, _ = run(capsys, "split", str(root), "--no-exact")
    assert code in (0, 2)


def test_a_command_paces_the_collector_for_batches_and_the_window_does_not(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from ctxviewer.cli import gui as gui_command
    from ctxviewer.engine.runs.collector import BATCH_THRESHOLDS

    default = gc.get_threshold()
    assert default != BATCH_THRESHOLDS
    code, _, _ = run(capsys, "list", str(project))
    assert code == 0 and gc.get_threshold() == BATCH_THRESHOLDS
    gc.set_threshold(*default)
    seen: list[tuple[int, int, int]] = []

    def fake_gui(args: object) -> int:
        seen.append(gc.get_threshold())
        return 0

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(gui_command, "cmd_gui", fake_gui)
        run(capsys, "gui", str(project))
    assert seen == [default]
