"""``ctxviewer follow``: a real run's fleet once (text, one JSON document, JSON lines) and live (changes as
a log grows, ended by Ctrl+C or SIGTERM), recorded vs reproduced, what it refuses; and ctxviewer's own
event log, still replayed as a what-if."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from ctxviewer.cli import follow as follow_cli
from ctxviewer.engine.exports.schemas import schema
from ctxviewer.engine.runfiles.rundir import discover_run
from tests.cli.helpers import run
from tests.factories import write
from tests.runfactory import write_run

# -- a run written by hand ---------------------------------------------------------------------------

LOG_1 = (
    '{"ts": "2026-02-16T10:00:00.000000Z", "level": "info", "worker_id": 1, "feature": "shop", '
    '"message": "Worker 1 starting for feature shop"}\n'
    '{"ts": "2026-02-16T10:01:00.000000Z", "level": "info", "worker_id": 1, "feature": "shop", '
    '"message": "Task T1 started", "task_id": "T1", "phase": "execute", "event": "task_started"}\n'
    '{"ts": "2026-02-16T10:05:00.000000Z", "level": "info", "worker_id": 1, "feature": "shop", '
    '"message": "Task T1 completed", "task_id": "T1", "phase": "execute", "event": "task_completed", '
    '"duration_ms": 240000}\n'
)
STATE = {
    "feature": "shop",
    "workers": {
        "1": {"worker_id": 1, "status": "running", "current_task": "T2", "tasks_completed": 1, "context_usage": 0.4},
        "2": {"worker_id": 2, "status": "crashed", "current_task": None, "tasks_completed": 0, "context_usage": 0.9},
    },
    "tasks": {"T1": {"status": "complete", "worker_id": 1}},
    "execution_log": [],
}
TOKENS_1 = {
    "worker_id": "1",
    "tasks": {
        "T1": {"breakdown": {"spec_excerpt": 10, "repo_map": 5}, "total": 15, "mode": "estimated"},
        "T2": {"breakdown": {"security_rules": 7}, "total": 7, "mode": "estimated"},
    },
    "cumulative": {"total_tokens": 22, "tasks_completed": 2},
}


def _hand_run(root: Path, layout: str = ".zerg", log: str = LOG_1) -> Path:
    write(root, f"{layout}/logs/workers/worker-1.jsonl", log)
    write(root, f"{layout}/state/shop.json", json.dumps(STATE, indent=2))
    write(root, f"{layout}/state/tokens-1.json", json.dumps(TOKENS_1, indent=2))
    write(root, f"{layout}/config.yaml", "workers:\n  context_threshold_percent: 80\n")
    return root


@pytest.mark.parametrize("layout", [".zerg", ".mahabharatha"])
def test_once_json_of_a_hand_written_run(tmp_path: Path, capsys: pytest.CaptureFixture[str], layout: str) -> None:
    root = _hand_run(tmp_path / "p", layout)
    code, out, err = run(capsys, "follow", str(root), "--once", "--format", "json")
    assert (code, err) == (0, "")
    doc = json.loads(out)
    assert doc["threshold_percent"] == 80 and doc["threshold_origin"] == f"{layout}/config.yaml"
    workers = {w["worker_id"]: w for w in doc["workers"]}
    assert {k: (w["status"], w["context_usage"], w["current_task"]) for k, w in workers.items()} == {
        "1": ("running", 0.4, "T2"),
        "2": ("crashed", 0.9, None),
    }
    # Worker 1: one task_completed in its log; 40 % of 200,000 is under the 80 % threshold; upstream's
    # colour for 0.9 is red (above 0.85).
    assert (workers["1"]["tasks_done"], workers["1"]["zone"], workers["2"]["band"]) == (1, None, "red")
    assert workers["2"]["zone"] == "checkpoint" and workers["1"]["tracker"]["tasks"] == 1
    (log,) = doc["logs"]
    assert (log["file"], log["records"], log["tasks_executed"]) == (f"{layout}/logs/workers/worker-1.jsonl", 3, 1)
    assert [(e["event"], e["task_id"], e["line"]) for e in log["events"]] == [
        ("task_started", "T1", 2),
        ("task_completed", "T1", 3),
    ]
    (record,) = doc["token_records"]
    assert record["worker_id"] == "1"
    assert [(t["task_id"], t["total"], t["sections"]) for t in record["tasks"]] == [
        ("T1", 15, {"spec_excerpt": 10, "repo_map": 5}),
        ("T2", 7, {"security_rules": 7}),
    ]
    assert (doc["problems"], doc["problem_count"]) == ([], 0)


def test_once_text_is_the_fleet_without_colour_in_a_pipe(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _hand_run(tmp_path / "p")
    code, out, err = run(capsys, "follow", str(root), "--once")
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0] == f"run {root}: 2 workers, threshold 80% (.zerg/config.yaml), 3 log lines, 0 problems"
    # 0.4 of 20 cells = 8 '#'; the threshold's cell is 80 % of 20 = cell 16.  Worker 1 is recorded as
    # running but its last line was in February: stale, "running?".
    assert lines[1].startswith("W1   running?       [########........|...]  40.0% / 80%  -           green   T2")
    # 0.9 of 20 = 18 cells, the one at the threshold drawn as '|'.
    assert lines[2].startswith("W2   crashed        [################|#..]  90.0% / 80%  checkpoint  red")
    assert "\x1b" not in out


def test_a_single_file_works(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _hand_run(tmp_path / "p")
    code, out, _ = run(capsys, "follow", str(root / ".zerg/state/tokens-1.json"), "--once", "--format", "json")
    doc = json.loads(out)
    assert code == 0 and doc["workers"] == [] and doc["logs"] == []
    assert [t["total"] for t in doc["token_records"][0]["tasks"]] == [15, 7]
    code, out, _ = run(capsys, "follow", str(root / ".zerg/logs/workers/worker-1.jsonl"), "--once", "--format", "json")
    doc = json.loads(out)
    assert code == 0 and [log["tasks_executed"] for log in doc["logs"]] == [1]
    assert [(w["worker_id"], w["status"], w["tasks_done"]) for w in doc["workers"]] == [("1", None, 1)]


@pytest.mark.parametrize("layout", [".mahabharatha", ".zerg"])
def test_once_json_of_a_generated_run(tmp_path: Path, capsys: pytest.CaptureFixture[str], layout: str) -> None:
    made = write_run(tmp_path, workers=3, lines=900, layout=layout)
    code, out, err = run(capsys, "follow", str(tmp_path), "--once", "--format", "json")
    assert (code, err) == (0, "")
    doc = json.loads(out)
    # Every log's tasks_executed is its task_completed lines, counted here in the files themselves.
    for log in doc["logs"]:
        path = tmp_path / log["file"]
        text = "".join(p.read_text() for p in (path.with_name(path.name + ".1"), path) if p.exists())
        assert log["tasks_executed"] == text.count('"event": "task_completed"')
        assert log["tasks_executed"] == sum(e["event"] == "task_completed" for e in log["events"])
    assert sum(log["tasks_executed"] for log in doc["logs"]) == made.task_completed
    # Every recorded context_usage beside its worker id, every recorded total beside its task id.
    state = json.loads((tmp_path / layout / "state" / "checkout-flow.json").read_text())
    assert {w["worker_id"]: w["context_usage"] for w in doc["workers"]} == {
        k: v["context_usage"] for k, v in state["workers"].items()
    }
    for record in doc["token_records"]:
        on_disk = json.loads((tmp_path / record["file"]).read_text())["tasks"]
        assert {t["task_id"]: t["total"] for t in record["tasks"]} == {k: v["total"] for k, v in on_disk.items()}
        assert {t["task_id"]: t["sections"] for t in record["tasks"]} == {k: v["breakdown"] for k, v in on_disk.items()}
    assert len(doc["token_records"]) == 3 and doc["problem_count"] == 0


def test_once_json_of_a_run_the_real_writers_wrote(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tests.engine.runfiles.test_real_writers import DRIVER, VENV

    python = VENV / "bin" / "python"
    if not (VENV / "ready").exists() or not python.exists():
        pytest.skip(f"no zerg-ai 0.3.2 virtualenv at {VENV} (tests/engine/profiles/test_upstream_oracle.py makes it)")
    done = subprocess.run(
        [str(python), str(DRIVER), str(tmp_path)], capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr
    wrote = json.loads(done.stdout)
    code, out, err = run(capsys, "follow", str(tmp_path), "--once", "--format", "json")
    assert (code, err) == (0, "")
    doc = json.loads(out)
    assert sum(log["records"] for log in doc["logs"]) == wrote["lines"]
    for log in doc["logs"]:
        assert log["tasks_executed"] == sum(e["event"] == "task_completed" for e in log["events"])
    assert sum(log["tasks_executed"] for log in doc["logs"]) == wrote["task_completed"]
    assert {w["worker_id"]: w["context_usage"] for w in doc["workers"]} == {
        k: v["context_usage"] for k, v in wrote["workers"].items()
    }
    assert {r["worker_id"]: {t["task_id"]: t["total"] for t in r["tasks"]} for r in doc["token_records"]} == wrote[
        "tokens"
    ]


def test_once_reports_each_problem_and_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _hand_run(tmp_path / "p", log=LOG_1 + "not json\n")
    code, out, err = run(capsys, "follow", str(root), "--once", "--format", "json")
    assert code == 2
    assert err == "ctxviewer: .zerg/logs/workers/worker-1.jsonl:4: not JSON (Expecting value at column 1)\n"
    doc = json.loads(out)  # the document is still printed, the problem in it
    assert doc["problems"] == [err.removeprefix("ctxviewer: ").strip()] and doc["problem_count"] == 1


def test_a_missing_path_is_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nope"
    for extra in (["--once"], [], ["--once", "--format", "json"]):
        assert run(capsys, "follow", str(missing), *extra) == (2, "", f"ctxviewer: {missing}: no such file or folder\n")
    code, out, err = run(capsys, "follow", str(tmp_path), "--once")
    assert (code, out) == (2, "") and err.count("\n") == 1 and "no worker logs" in err


def test_options_that_need_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _hand_run(tmp_path / "p")
    code, _, err = run(capsys, "follow", str(root), "--format", "json")
    assert code == 2 and "add --once" in err
    code, _, err = run(capsys, "follow", str(root), "--recorded")
    assert code == 2 and "use it with --once" in err
    code, _, err = run(capsys, "follow", str(root), "--interval", "0")
    assert code == 2 and "--interval: 0 s is too short" in err


def test_set_changes_the_threshold(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _hand_run(tmp_path / "p")
    code, out, _ = run(capsys, "follow", str(root), "--once", "--format", "json", "--set", "threshold_percent=35")
    doc = json.loads(out)
    assert (code, doc["threshold_percent"], doc["threshold_origin"]) == (0, 35, "--set")
    assert [w["zone"] for w in doc["workers"]] == ["checkpoint", "checkpoint"]  # 40 % and 90 % reach 35 %


def test_a_broken_config_is_a_problem_with_or_without_set(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _hand_run(tmp_path / "p")
    write(root, ".zerg/config.yaml", "workers:\n  context_threshold_percent: lots\n")
    for extra in ([], ["--set", "max_context_tokens=100000"]):
        code, out, err = run(capsys, "follow", str(root), "--once", *extra)
        assert code == 2 and err.count("\n") == 1 and err.startswith("ctxviewer: .zerg/config.yaml")
        assert "threshold 70% (default)" in out  # the default used instead


def test_text_from_the_files_is_shown_escaped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    state = json.loads(json.dumps(STATE))
    state["workers"]["1"]["current_task"] = "T\x1b[2J\u202e\nW9   forged"
    root = _hand_run(tmp_path / "p")
    write(root, ".zerg/state/shop.json", json.dumps(state))
    _, out, _ = run(capsys, "follow", str(root), "--once")
    assert "T\\x1b[2J\\u202e\\x0aW9   forged" in out and "\x1b" not in out and "\u202e" not in out
    assert len(out.splitlines()) == 3  # the header and two workers: no line forged


def test_colour_only_on_a_terminal_and_not_with_no_color(monkeypatch: pytest.MonkeyPatch) -> None:
    class Tty:
        def isatty(self) -> bool:
            return True

    monkeypatch.delenv("NO_COLOR", raising=False)
    assert follow_cli.use_color(Tty()) and not follow_cli.use_color(object())
    monkeypatch.setenv("NO_COLOR", "1")
    assert not follow_cli.use_color(Tty())
    monkeypatch.setenv("NO_COLOR", "")  # set but empty: colours (no-color.org)
    assert follow_cli.use_color(Tty())


# -- live --------------------------------------------------------------------------------------------


def _capture(monkeypatch: pytest.MonkeyPatch) -> queue.Queue[str]:
    """What follow prints, one item per write, instead of stdout."""
    out: queue.Queue[str] = queue.Queue()

    def put(text: str) -> bool:
        out.put(text)
        return True

    monkeypatch.setattr(follow_cli, "print_text", put)
    return out


def test_jsonl_streams_the_changes_after_a_log_grows(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _hand_run(tmp_path / "p")
    out = _capture(monkeypatch)
    stop = threading.Event()
    codes: list[int] = []
    live = threading.Thread(
        target=lambda: codes.append(
            follow_cli.follow_live(discover_run(root), fmt="jsonl", interval=0.05, stop=stop, clock=lambda: 1.8e9)
        )
    )
    live.start()
    try:
        first = [json.loads(line) for line in out.get(timeout=20).splitlines()]
        # The first poll: both workers, then the log's two events.
        assert [(c["type"], c.get("worker_id"), c.get("event")) for c in first] == [
            ("worker", "1", None),
            ("worker", "2", None),
            ("event", "1", "task_started"),
            ("event", "1", "task_completed"),
        ]
        log = root / ".zerg/logs/workers/worker-1.jsonl"
        with log.open("a") as handle:
            handle.write(
                LOG_1.splitlines(keepends=True)[2].replace("T1", "T2").replace("10:05:00", "10:09:00") + "not json\n"
            )
        changes: list[dict[str, Any]] = []
        while not any(c.get("type") == "problem" for c in changes):
            changes += [json.loads(line) for line in out.get(timeout=20).splitlines()]
    finally:
        stop.set()
        live.join(timeout=20)
    assert not live.is_alive() and codes == [2]  # a problem was reported: exit 2
    # Worker 1 now has two task_completed events; worker 2 did not change.
    assert [
        (c["type"], c.get("worker_id"), c.get("tasks_done"), c.get("event"), c.get("task_id")) for c in changes
    ] == [
        ("worker", "1", 2, None, None),
        ("event", "1", None, "task_completed", "T2"),
        ("problem", None, None, None, None),
    ]
    assert changes[-1]["problem"] == ".zerg/logs/workers/worker-1.jsonl:5: not JSON (Expecting value at column 1)"


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_live_follow_ends_cleanly_on_a_signal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], signum: int
) -> None:
    root = _hand_run(tmp_path / "p")
    shown: list[str] = []

    def show(text: str) -> bool:  # the first fleet printed: the user presses Ctrl+C (or a supervisor stops it)
        shown.append(text)
        signal.raise_signal(signum)
        return True

    monkeypatch.setattr(follow_cli, "print_text", show)
    # A process started in the background by a non-interactive shell inherits SIGINT ignored,
    # and Python then installs no KeyboardInterrupt handler: give the test the usual one.
    interrupt = signal.signal(signal.SIGINT, signal.default_int_handler)
    before = signal.getsignal(signal.SIGTERM)
    try:
        assert run(capsys, "follow", str(root), "--interval", "0.05") == (0, "", "")
    finally:
        signal.signal(signal.SIGINT, interrupt)
    assert len(shown) >= 1 and shown[0].startswith(f"run {root}: 2 workers")
    assert signal.getsignal(signal.SIGTERM) == before  # the handler is put back


def test_live_text_in_a_pipe_prints_the_fleet_when_it_changes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _hand_run(tmp_path / "p")
    out = _capture(monkeypatch)
    stop = threading.Event()
    live = threading.Thread(
        target=follow_cli.follow_live,
        args=(discover_run(root),),
        kwargs={"fmt": "text", "interval": 0.05, "stop": stop},
    )
    live.start()
    try:
        first = out.get(timeout=20)
        with (root / ".zerg/logs/workers/worker-1.jsonl").open("a") as handle:
            handle.write(LOG_1.splitlines(keepends=True)[2].replace("T1", "T3"))
        second = out.get(timeout=20)
    finally:
        stop.set()
        live.join(timeout=20)
    assert "3 log lines" in first and "  1 done" in first
    assert "4 log lines" in second and "  2 done" in second
    assert out.empty()  # nothing printed while nothing changed


def test_live_on_a_terminal_redraws_the_fleet_in_place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _hand_run(tmp_path / "p")
    monkeypatch.setenv("COLUMNS", "1000")  # no line wraps: the fleet is its 3 lines
    out = _capture(monkeypatch)
    stop = threading.Event()
    live = threading.Thread(
        target=follow_cli.follow_live,
        args=(discover_run(root),),
        kwargs={"fmt": "text", "interval": 0.05, "stop": stop, "terminal": True, "color": True},
    )
    live.start()
    try:
        writes = [out.get(timeout=20) for _ in range(3)]
    finally:
        stop.set()
        live.join(timeout=20)
    first, clear, second = writes
    # Worker 1 at 40 % is green, worker 2 at 90 % red (upstream's dashboard colours).
    assert "\x1b[32m[########" in first and "\x1b[31m[################|#..]\x1b[0m" in first
    assert clear == "\x1b[3F\x1b[J"  # up to the fleet's first row, cleared to the end
    assert second.startswith(f"run {root}: 2 workers")


def test_rows_a_text_takes_on_a_terminal() -> None:
    # 10 visible characters (the colour escapes take no room) at 4 columns: 3 rows; an empty line: 1.
    assert follow_cli._rows("\x1b[32m0123456789\x1b[0m\n\nab", 4) == 3 + 1 + 1


# -- recorded vs reproduced ----------------------------------------------------------------------------


def test_recorded_beside_reproduced(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # T1 under zerg-0.3.2 (token records in .zerg/state make it the version detected): security
    # rules 85 characters -> round(21.25) = 21, spec excerpts 106 -> round(26.5) = 26.
    record = {
        "worker_id": "1",
        "tasks": {
            "T1": {"breakdown": {"security_rules": 21, "spec_excerpt": 26}, "total": 47, "mode": "estimated"},
            "T2": {"breakdown": {"spec_excerpt": 9}, "total": 9, "mode": "estimated"},
            "T9": {"breakdown": {"repo_map": 3}, "total": 3, "mode": "estimated"},
        },
    }
    write(project, ".zerg/state/tokens-1.json", json.dumps(record))
    code, out, err = run(capsys, "follow", str(project), "--once", "--recorded")
    assert (code, err) == (1, "")  # T2 differs
    text = out[out.index("recorded vs reproduced") :].splitlines()
    assert text[0].startswith("recorded vs reproduced (zerg-0.3.2: detected zerg-ai-0.3.2: token records in .zerg/")
    assert text[1:] == [
        "W1   T1             feat             recorded      47  reproduced      47  same",
        "W1   T2             feat             recorded       9  reproduced       0  differs: spec_excerpt 9/-",
        "     likely cause (spec_excerpt): settings: the budget and the worker's switches are not in the run's "
        "files: the settings in force stood for them",
        "W1   T9             -                recorded       3  not in the project's task graphs",
        "3 tasks: 1 the same, 1 different, 1 not reproduced",
    ]
    code, out, _ = run(capsys, "follow", str(project), "--once", "--recorded", "--format", "json")
    recorded = json.loads(out)["recorded"]
    assert code == 1 and (recorded["same"], recorded["differ"], recorded["not_reproduced"]) == (1, 1, 1)
    assert recorded["tasks"][0]["sections"] == [
        {"section": "security_rules", "recorded": 21, "reproduced": 21, "verdict": "same", "cause": None, "why": None},
        {"section": "spec_excerpt", "recorded": 26, "reproduced": 26, "verdict": "same", "cause": None, "why": None},
    ]
    code, out, _ = run(capsys, "follow", str(project), "--once", "--recorded", "--format", "jsonl")
    lines = [json.loads(line) for line in out.splitlines()]
    assert [(c["task_id"], c["matches"]) for c in lines if c["type"] == "recorded"] == [
        ("T1", True),
        ("T2", False),
        ("T9", False),
    ]


def test_recorded_names_each_differences_likely_cause(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # T1 recorded 10 s after the design was written, then the design edited: ", revised" adds 9
    # characters to the spec excerpt, 115 / 4 = 28.75 -> 29 against the recorded 26.  T2's record
    # has no time, so no file is known to have changed: the settings stood in for the run's.
    design = project / ".gsd/specs/feat/design.md"
    moment = design.stat().st_mtime + 10
    stamp = datetime.fromtimestamp(moment, UTC).isoformat()
    record = {
        "worker_id": "1",
        "tasks": {
            "T1": {
                "breakdown": {"security_rules": 21, "spec_excerpt": 26},
                "total": 47,
                "mode": "estimated",
                "timestamp": stamp,
            },
            "T2": {"breakdown": {"spec_excerpt": 9}, "total": 9, "mode": "estimated"},
        },
    }
    write(project, ".zerg/state/tokens-1.json", json.dumps(record))
    design.write_text("Login screen design, revised.", encoding="utf-8")
    os.utime(design, (moment + 60, moment + 60))
    code, out, _ = run(capsys, "follow", str(project), "--once", "--recorded")
    text = out[out.index("recorded vs reproduced") :].splitlines()
    settings = "the budget and the worker's switches are not in the run's files: the settings in force stood for them"
    assert code == 1 and text[1:] == [
        "W1   T1             feat             recorded      47  reproduced      50  differs: spec_excerpt 26/29",
        "     likely cause (spec_excerpt): files changed since: .gsd/specs/feat/design.md",
        "W1   T2             feat             recorded       9  reproduced       0  differs: spec_excerpt 9/-",
        f"     likely cause (spec_excerpt): settings: {settings}",
        "2 tasks: 0 the same, 2 different, 0 not reproduced",
    ]
    code, out, _ = run(capsys, "follow", str(project), "--once", "--recorded", "--format", "json")
    document = json.loads(out)
    t1, t2 = document["recorded"]["tasks"]
    assert t1["sections"] == [
        {"section": "security_rules", "recorded": 21, "reproduced": 21, "verdict": "same", "cause": None, "why": None},
        {
            "section": "spec_excerpt",
            "recorded": 26,
            "reproduced": 29,
            "verdict": "differs",
            "cause": "files changed since",
            "why": ".gsd/specs/feat/design.md",
        },
    ]
    assert t1["changed"] == [".gsd/specs/feat/design.md"]
    assert datetime.fromisoformat(t1["recorded_at"]).timestamp() == pytest.approx(moment, abs=1e-6)
    assert (t2["recorded_at"], t2["changed"], t2["sections"][0]["cause"]) == (None, [], "settings")
    assert [
        (list(e.absolute_path), e.message) for e in Draft202012Validator(schema("follow")).iter_errors(document)
    ] == []
    code, out, _ = run(capsys, "follow", str(project), "--once", "--recorded", "--format", "jsonl")
    changes = [json.loads(line) for line in out.splitlines()]
    recorded = [c for c in changes if c["type"] == "recorded"]
    assert [c["sections"][-1]["cause"] for c in recorded] == ["files changed since", "settings"]
    validator = Draft202012Validator(schema("follow-change"))
    assert [e for c in changes for e in validator.iter_errors(c)] == []


def test_recorded_needs_a_project(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tmp_path / "copied", "tokens-1.json", json.dumps(TOKENS_1))
    code, _, err = run(capsys, "follow", str(tmp_path / "copied"), "--once", "--recorded")
    assert code == 2 and "name the project with --project" in err and err.count("\n") == 1


# -- ctxviewer's own event log: still replayed, as a what-if ---------------------------------------------


def test_own_event_log_once_prints_the_trackers_usage(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "w.jsonl"
    log.write_text(
        '{"ts": 0, "event": "task_executed", "id": "A"}\n'
        '{"ts": 60, "event": "file_read", "path": "x.py", "size": 4000}\n'
        '{"ts": 120, "event": "tool_call", "count": 4}\n'
        '{"ts": 180, "event": "tool_call"}',  # no newline: with --once it is the last line all the same
        encoding="utf-8",
    )
    code, out, err = run(capsys, "follow", str(log), "--once", "--set", "max_context_tokens=2000", "--format", "json")
    # 500 (task) + 4000*0.25+100 (read) + 5*50 (tools) + int(3 min * 100) = 2,150 tokens.
    assert code == 0 and err == ""
    data = json.loads(out)
    assert (data["estimated_tokens"], data["tool_calls"], data["events"]) == (2150, 5, 4)
    # After the read (1 min in): 500 + 1,100 + 100 = 1,700 >= 70% of 2,000, so event index 1.
    assert data["is_over_threshold"] and data["first_checkpoint"] == 1


def test_own_event_log_reports_bad_lines_with_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "w.jsonl"
    log.write_text('{"ts": 0, "event": "task_executed", "id": "A"}\nnot json\n', encoding="utf-8")
    code, out, err = run(capsys, "follow", str(log), "--once")
    assert code == 2 and "line 2" in err and "500 / 200,000 tokens" in out
    code, _, err = run(capsys, "follow", str(log), "--once", "--recorded")
    assert code == 2 and "holds no token records" in err


def test_own_event_log_status_counts_the_finished_last_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "w.jsonl"
    log.write_text('{"ts": 0, "event": "task_executed", "id": "A"}\n{"ts": 60, "event": "tool_call"}', encoding="utf-8")
    code, out, _ = run(capsys, "follow", str(log), "--once")
    assert code == 0 and "2 events:" in out and "1 task, 0 files, 1 tool call, 1.0 min" in out


def test_an_upstream_line_is_not_taken_for_the_own_format(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # An upstream record whose event happens to share a name would still carry level and message.
    line = '{"ts": "2026-02-16T10:00:00Z", "level": "info", "worker_id": 1, "feature": "f", "message": "m", '
    log = write(tmp_path, "worker-1.jsonl", line + '"event": "tool_call"}\n')
    code, out, _ = run(capsys, "follow", str(log), "--once", "--format", "json")
    assert code == 0 and json.loads(out)["logs"][0]["records"] == 1
