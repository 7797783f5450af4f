"""``ctxviewer follow`` on a run whose files are not all files: a named pipe, a link to a device or out of
the run's folder, a folder, a file over the size limit in place of a run file.  Each is named with the
reason, counted among the problems (text header, JSON ``problems`` and ``problem_count``, exit 2), the
rest of the run is still read, and nothing blocks."""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from ctxviewer.cli import main
from ctxviewer.engine.files.reading import DEFAULT_MAX_FILE_BYTES
from tests.cli.test_follow import LOG_1, STATE
from tests.factories import write

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")

#: Seconds a --once read of a handful of small files may take before it counts as blocked.
PROMPT = 30.0


def _run(root: Path) -> None:
    """A good state file and worker log, so the run has something besides what is skipped."""
    write(root, ".zerg/state/shop.json", json.dumps(STATE, indent=2))
    write(root, ".zerg/logs/workers/worker-1.jsonl", LOG_1)


def _fifo(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(path)


def _link(target: str) -> Callable[[Path], None]:
    def make(path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.symlink_to(target)

    return make


def _folder(path: Path) -> None:
    path.mkdir(parents=True)


def _oversize(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as out:  # sparse: no disk taken, never read
        out.truncate(DEFAULT_MAX_FILE_BYTES + 1)


def follow_once(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """``follow --once`` in a thread that must end within :data:`PROMPT` seconds."""
    result: list[int] = []
    worker = threading.Thread(target=lambda: result.append(main(["follow", *argv, "--once"])), daemon=True)
    worker.start()
    worker.join(PROMPT)
    assert not worker.is_alive(), "follow --once blocked on a run file"
    out, err = capsys.readouterr()
    return result[0], out, err


OUTSIDE = "outside.json"  # written beside the project, not in it

CASES = {
    "state file a named pipe": (".zerg/state/other.json", _fifo, "not read: a named pipe, not a file"),
    "token record a named pipe": (".zerg/state/tokens-2.json", _fifo, "not read: a named pipe, not a file"),
    "heartbeat a named pipe": (".zerg/state/heartbeat-1.json", _fifo, "not read: a named pipe, not a file"),
    "worker log a named pipe": (".zerg/logs/workers/worker-2.jsonl", _fifo, "is a named pipe, not a log file"),
    "token record a link to /dev/zero": (
        ".zerg/state/tokens-2.json",
        _link("/dev/zero"),
        "not read: symlink to /dev/zero outside the project",
    ),
    "worker log a link to /dev/zero": (
        ".zerg/logs/workers/worker-2.jsonl",
        _link("/dev/zero"),
        "not read: symlink to /dev/zero outside the project",
    ),
    "state file a folder": (".zerg/state/other.json", _folder, "not read: a folder, not a file"),
    "heartbeat a folder": (".zerg/state/heartbeat-1.json", _folder, "not read: a folder, not a file"),
    "worker log a folder": (".zerg/logs/workers/worker-2.jsonl", _folder, "is a folder, not a log file"),
    "state file over the size limit": (
        ".zerg/state/other.json",
        _oversize,
        f"not read: {DEFAULT_MAX_FILE_BYTES + 1:,} bytes is over the {DEFAULT_MAX_FILE_BYTES:,}-byte limit",
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_skipped_run_file_is_named_counted_and_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str
) -> None:
    rel, make, reason = CASES[case]
    root = tmp_path / "p"
    _run(root)
    make(root / rel)
    expected = f"{rel}: {reason}"
    code, out, err = follow_once(capsys, str(root))
    assert (code, err) == (2, f"ctxviewer: {expected}\n")
    # The header counts it; the good state file's two workers are still shown.
    assert out.splitlines()[0] == f"run {root}: 2 workers, threshold 70% (default), 3 log lines, 1 problem"
    code, out, _ = follow_once(capsys, str(root), "--format", "json")
    doc = json.loads(out)
    assert (code, doc["problems"], doc["problem_count"]) == (2, [expected], 1)
    assert [w["worker_id"] for w in doc["workers"]] == ["1", "2"]


def test_a_link_out_of_the_run_folder_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "p"
    _run(root)
    write(tmp_path, OUTSIDE, json.dumps(STATE))
    (root / ".zerg/state/other.json").symlink_to(tmp_path / OUTSIDE)
    (root / ".zerg/logs/workers/worker-2.jsonl").symlink_to("../../../../" + OUTSIDE)
    code, out, err = follow_once(capsys, str(root), "--format", "json")
    expected = [
        f".zerg/logs/workers/worker-2.jsonl: not read: symlink to ../../../../{OUTSIDE} outside the project",
        f".zerg/state/other.json: not read: symlink to {tmp_path / OUTSIDE} outside the project",
    ]
    doc = json.loads(out)
    assert (code, doc["problems"], doc["problem_count"]) == (2, expected, 2)
    assert err == "".join(f"ctxviewer: {line}\n" for line in expected)


def test_a_run_of_nothing_but_a_pipe_names_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Not "no worker logs ... found": the log is there, and what it is is said."""
    root = tmp_path / "p"
    _fifo(root / ".zerg/logs/workers/worker-1.jsonl")
    code, out, err = follow_once(capsys, str(root))
    assert (code, err) == (2, "ctxviewer: .zerg/logs/workers/worker-1.jsonl: is a named pipe, not a log file\n")
    assert out.splitlines()[0] == f"run {root}: 0 workers, threshold 70% (default), 0 log lines, 1 problem"
    # Named alone, it is refused in one line that says what it is.
    pipe = root / ".zerg/logs/workers/worker-1.jsonl"
    code, out, err = follow_once(capsys, str(pipe))
    assert (code, out, err) == (2, "", f"ctxviewer: {pipe}: is a named pipe, not a run's file or folder; not read\n")
