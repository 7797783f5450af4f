"""``ctxviewer verify`` run from inside a project, with ``PYTHONPATH`` ending in ``:`` (an empty entry: the
current folder): the project's ``sitecustomize.py`` and a ``glob.py`` shadowing the standard library's
are never imported by the driver, nor its ``glob.py`` by ctxviewer; an entry the driver needs to find
upstream's package is kept.  Run as processes, as a user runs them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ctxviewer import __version__
from ctxviewer.engine.upstream.verify import driver_environment
from ctxviewer.startpath import drop_current_folder

REPO = Path(__file__).resolve().parents[2]

#: Appends the process's command line to the marker file when imported.
MARK = "import sys\nwith open({marker!r}, 'a') as out:\n    out.write({what!r} + ' ' + repr(sys.orig_argv) + '\\n')\n"


def _hostile(project: Path, marker: Path) -> None:
    for name in ("sitecustomize", "glob"):
        (project / f"{name}.py").write_text(MARK.format(marker=str(marker), what=name))


def _fake_upstream(site: Path, marker: Path) -> None:
    """A ``mahabharatha`` package outside the project, as a user's PYTHONPATH may name one: it imports
    glob (the real one reads files with it), says it was imported, and is not a usable plugin."""
    package = site / "mahabharatha"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "context_plugin.py").write_text(
        "import glob\n" + MARK.format(marker=str(marker), what="upstream") + "raise ImportError('not a plugin')\n"
    )


def test_verify_from_inside_a_project_imports_none_of_its_files(project: Path, tmp_path: Path) -> None:
    marker = tmp_path / "imported.txt"
    _hostile(project, marker)
    site = tmp_path / "site"
    _fake_upstream(site, marker)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(REPO), ""])}  # ends in ':'
    env.pop("PYTHONSAFEPATH", None)
    done = subprocess.run(
        [sys.executable, "-m", "ctxviewer", "verify", str(project), "--upstream-python", sys.executable],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    # The fake package is no plugin: exit 2, saying so -- after the driver imported it.
    assert done.returncode == 2 and "no zerg or mahabharatha package" in done.stderr, done.stderr
    lines = marker.read_text().splitlines()
    driver = [line for line in lines if "verify_driver.py" in line]
    assert [line.split()[0] for line in driver] == ["upstream"]  # found through PYTHONPATH; nothing else
    # ctxviewer's own process: the interpreter imports sitecustomize from the empty entry before any
    # of ctxviewer runs (that cannot be helped from inside); glob.py is never imported by it.
    ours = [line.split()[0] for line in lines if "verify_driver.py" not in line]
    assert ours == ["sitecustomize"]


@pytest.mark.parametrize(
    ("start", "pythonpath"),
    [
        (["-m", "ctxviewer"], [str(REPO)]),  # python -m puts the current folder first on sys.path
        (["-c", "from ctxviewer.startpath import run; run()"], [str(REPO), ""]),  # the console script's start
    ],
    ids=["python -m", "console script"],
)
def test_ctxviewer_imports_no_module_of_the_current_folder(
    project: Path, tmp_path: Path, start: list[str], pythonpath: list[str]
) -> None:
    """A project's argparse.py (imported by ctxviewer's command line once it starts) is not the
    standard library's."""
    marker = tmp_path / "imported.txt"
    (project / "argparse.py").write_text(MARK.format(marker=str(marker), what="argparse"))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(pythonpath)}
    env.pop("PYTHONSAFEPATH", None)
    done = subprocess.run(
        [sys.executable, *start, "--version"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert (done.returncode, done.stdout) == (0, f"ctxviewer {__version__}\n"), done.stderr
    assert not marker.exists()


def test_drop_current_folder_keeps_what_is_not_the_current_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    path = ["", str(tmp_path), "/usr/lib/python3", ".", str(tmp_path / "sub")]
    assert drop_current_folder(path) == ["", str(tmp_path), "."]
    assert path == ["/usr/lib/python3", str(tmp_path / "sub")]


def test_driver_environment_drops_empty_dot_and_project_entries(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    (project / "src").mkdir(parents=True)
    elsewhere = tmp_path / "upstream"
    given = os.pathsep.join(["", ".", str(project / "src"), str(elsewhere), "rel", str(project), ""])
    env = driver_environment(project, {"PYTHONPATH": given, "HOME": "/h"}, cwd=str(tmp_path))
    # 'rel' is taken against the folder ctxviewer was started in, and kept: it is not in the project.
    assert env == {
        "PYTHONPATH": os.pathsep.join([str(elsewhere), str(tmp_path / "rel")]),
        "HOME": "/h",
        "PYTHONHASHSEED": "1",
        "PYTHONSAFEPATH": "1",
    }
    # Started inside the project, a relative entry is inside it.
    env = driver_environment(project, {"PYTHONPATH": "src:"}, cwd=str(project))
    assert "PYTHONPATH" not in env
