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


def _entry(*code: str) -> list[str]:
    """A Python command that registers an exit handler, then runs the console script's entry."""
    return [
        sys.executable,
        "-c",
        "import atexit, sys\n"
        "atexit.register(lambda: print('exit handler ran', file=sys.stderr))\n"
        "from ctxviewer.cli import run\n" + "\n".join(code),
    ]


def test_the_console_entry_ends_a_command_at_once_yet_runs_exit_handlers_and_flushes(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from ctxviewer.cli import main

    for command in (["batch", str(project), "--no-exact", "--format", "csv"], ["list", str(project)]):
        expected = main(command)
        out = capsys.readouterr().out
        assert expected == 0 and len(out.splitlines()) > 2
        result = subprocess.run(
            _entry(f"sys.argv = ['ctxviewer', *{command!r}]", "run()"), capture_output=True, text=True, check=False
        )
        # All of it, though stdout is a pipe (buffered) and the process ends without teardown.
        assert (result.returncode, result.stdout, result.stderr) == (0, out, "exit handler ran\n")


def test_the_console_entry_gives_bad_input_its_code_and_a_closed_pipe_no_traceback(project: Path) -> None:
    bad = subprocess.run(
        _entry("sys.argv = ['ctxviewer', 'list', '/no/such/folder']", "run()"),
        capture_output=True,
        text=True,
        check=False,
    )
    assert bad.returncode == 2
    assert bad.stderr.endswith("exit handler ran\n") and "Traceback" not in bad.stderr
    # The reader stops after one line: the rest of the batch is dropped, quietly.
    script = _entry(f"sys.argv = ['ctxviewer', 'batch', {str(project)!r}, '--no-exact']", "run()")
    with subprocess.Popen(script, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        first = proc.stdout.readline()
        proc.stdout.close()
        err = proc.stderr.read().decode()
        code = proc.wait()
    assert first.startswith(b"{") and code == 0
    assert "Traceback" not in err


def test_a_thread_left_running_gets_the_interpreters_own_exit(tmp_path: Path) -> None:
    # A non-daemon thread still working when the command returns: the interpreter waits for it.
    marker = tmp_path / "done"
    script = _entry(
        "import threading, time",
        f"threading.Thread(target=lambda: (time.sleep(0.5), open({str(marker)!r}, 'w').close())).start()",
        "sys.argv = ['ctxviewer', 'list', '/no/such/folder']",
        "run()",
    )
    result = subprocess.run(script, capture_output=True, text=True, check=False)
    assert result.returncode == 2 and marker.exists()
