"""``ctxviewer follow`` on figures of the right type but absurd: a usage of 1e308, a count or token count over
10^9, a time before 2000 or after 2100, a duration over a year.  Each is a problem naming the file, line
and field (exit 2) and reads as absent: not ``inf%``, not a 300-digit estimate."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.cli.helpers import run
from tests.factories import write

STATE = ".zerg/state/shop.json"
TOKENS = ".zerg/state/tokens-1.json"
BEAT = ".zerg/state/heartbeat-1.json"
LOG = ".zerg/logs/workers/worker-1.jsonl"

COUNT_RANGE = "0 to 1,000,000,000"
YEARS = "the years 2000 to 2100"


def _worker(**fields: Any) -> dict[str, Any]:
    return {"status": "stopped", "tasks_completed": 2, "context_usage": 0.5, **fields}


def _state(**fields: Any) -> str:
    doc = {"feature": "shop", "workers": {"1": _worker(**fields)}, "execution_log": []}
    return json.dumps(doc)  # one line: every value is on line 1


def _tokens(total: Any = 15, section: Any = 15, cumulative: Any = 15) -> str:
    task = {"breakdown": {"spec_excerpt": section}, "mode": "estimated"}
    if total is not None:  # none: no total to compare with the sections
        task["total"] = total
    return json.dumps({"worker_id": "1", "tasks": {"T1": task}, "cumulative": {"total_tokens": cumulative}})


def _log_line(**fields: Any) -> str:
    line = {"ts": "2026-02-16T10:00:00Z", "level": "info", "worker_id": 1, "feature": "shop", "message": "m"}
    return json.dumps({**line, **fields}) + "\n"


def _worker_doc(doc: dict[str, Any]) -> dict[str, Any]:
    (worker,) = doc["workers"]
    return dict(worker)


# (file, its text, the problem after "file:line: ", what the document shows instead)
CASES: dict[str, tuple[str, str, str, Any]] = {
    "usage 1e308": (
        STATE,
        _state(context_usage=1e308),
        '"workers.1.context_usage" is 1e+308, outside 0 to 10 (1,000 %); left out',
        lambda doc: _worker_doc(doc)["context_usage"] is None and _worker_doc(doc)["band"] is None,
    ),
    "usage 11": (
        STATE,
        _state(context_usage=11),
        '"workers.1.context_usage" is 11, outside 0 to 10 (1,000 %); left out',
        lambda doc: _worker_doc(doc)["context_usage"] is None,
    ),
    "tasks completed 1e308": (
        STATE,
        _state(tasks_completed=1e308, started_at="2026-02-16T10:00:00+00:00"),
        f'"workers.1.tasks_completed" is 1e+308, outside {COUNT_RANGE}; left out',
        # No count: the estimate counts no task, only the minutes since the start.
        lambda doc: _worker_doc(doc)["tasks_in_process"] is None and _worker_doc(doc)["tracker"]["tasks"] == 0,
    ),
    "tasks completed 10^9 + 1": (
        STATE,
        _state(tasks_completed=1_000_000_001),
        f'"workers.1.tasks_completed" is 1000000001, outside {COUNT_RANGE}; left out',
        lambda doc: _worker_doc(doc)["tasks_in_process"] is None,
    ),
    "started in 1970": (
        STATE,
        _state(started_at="1970-01-01T00:00:00+00:00"),
        f'"workers.1.started_at" is 1970-01-01T00:00:00Z, outside {YEARS}; left out',
        lambda doc: _worker_doc(doc)["tracker"] is None,  # no start: no estimate
    ),
    "health check in 2150": (
        STATE,
        _state(health_check_at="2150-06-01T12:00:00+00:00"),
        f'"workers.1.health_check_at" is 2150-06-01T12:00:00Z, outside {YEARS}; left out',
        lambda doc: _worker_doc(doc)["last_heartbeat"] is None,
    ),
    "token total over 10^9": (
        TOKENS,
        _tokens(total=2e9),
        f'"tasks.T1.total" is 2e+09, outside {COUNT_RANGE}; left out',
        lambda doc: doc["token_records"][0]["tasks"][0]["total"] is None,
    ),
    "token cumulative over 10^9": (
        TOKENS,
        _tokens(cumulative=10**12),
        f'"cumulative.total_tokens" is 1000000000000, outside {COUNT_RANGE}; left out',
        lambda doc: doc["token_records"][0]["tasks"][0]["total"] == 15,
    ),
    "token section 1e308": (
        TOKENS,
        _tokens(section=1e308, total=None),
        f'"tasks.T1.breakdown.spec_excerpt" is 1e+308, outside {COUNT_RANGE}; left out',
        lambda doc: doc["token_records"][0]["tasks"][0]["sections"] == {},
    ),
    "heartbeat from 1999": (
        BEAT,
        json.dumps({"worker_id": 1, "timestamp": "1999-12-31T23:59:59Z", "progress_pct": 10}),
        f'"timestamp" is 1999-12-31T23:59:59Z, outside {YEARS}; left out',
        lambda doc: _worker_doc(doc)["last_heartbeat"] is None,
    ),
    "heartbeat progress 1e308": (
        BEAT,
        json.dumps({"worker_id": 1, "timestamp": "2026-02-16T10:00:00Z", "progress_pct": 1e308}),
        '"progress_pct" is 1e+308, outside 0 to 100; left out',
        lambda doc: _worker_doc(doc)["last_heartbeat"] == "2026-02-16T10:00:00Z",
    ),
    "log line from 1970": (
        LOG,
        _log_line(ts="1970-01-01T00:00:01Z"),
        f'"ts" is 1970-01-01T00:00:01Z, outside {YEARS}; left out',
        lambda doc: _worker_doc(doc)["last_log"] is None,
    ),
    "log duration over a year": (
        LOG,
        # A year and a day (366 days) in milliseconds, plus one.
        _log_line(event="task_completed", task_id="T1", duration_ms=366 * 86_400_000 + 1),
        f'"duration_ms" is {366 * 86_400_000 + 1}, outside 0 ms to a year; left out',
        lambda doc: doc["logs"][0]["events"][0]["event"] == "task_completed",
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_an_absurd_figure_is_a_problem_and_not_shown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str
) -> None:
    rel, text, problem, shows = CASES[case]
    root = tmp_path / "p"
    if rel != STATE:  # a worker for the other files to belong to
        write(root, STATE, _state())
    write(root, rel, text)
    code, out, err = run(capsys, "follow", str(root), "--once", "--format", "json")
    expected = f"{rel}:1: {problem}"
    assert (code, err) == (2, f"ctxviewer: {expected}\n")
    doc = json.loads(out)
    assert (doc["problems"], doc["problem_count"]) == ([expected], 1)
    assert shows(doc)
    code, out, _ = run(capsys, "follow", str(root), "--once")
    assert code == 2 and out.splitlines()[0].endswith(", 1 problem")
    assert "inf" not in out and max(len(line) for line in out.splitlines()) < 200


def test_usage_1e308_was_drawn_as_inf(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The text line: the gauge of a usage left out is empty, its percentage n/a."""
    write(tmp_path / "p", STATE, _state(context_usage=1e308))
    code, out, _ = run(capsys, "follow", str(tmp_path / "p"), "--once")
    assert code == 2 and "n/a / 70%" in out.splitlines()[1]


def test_a_number_too_long_for_python_is_a_problem_not_a_crash(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "p"
    write(root, STATE, _state().replace('"tasks_completed": 2', '"tasks_completed": ' + "9" * 5000))
    write(root, LOG, _log_line().replace('"worker_id": 1', '"worker_id": ' + "9" * 5000))
    code, _, err = run(capsys, "follow", str(root), "--once", "--format", "json")
    assert code == 2
    assert err.splitlines() == [
        f"ctxviewer: {LOG}:1: not JSON (a number too long to read)",
        f"ctxviewer: {STATE}: not JSON (a number too long to read); showing what was read last",
    ]


def test_worker_keys_of_digits_that_are_not_ascii_or_too_long_sort_as_names(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # "²".isdigit() is true but int("²") raises; a 30-digit key is past any worker count.
    workers = {"10": _worker(), "\u00b2": _worker(), "9" * 30: _worker(), "2": _worker()}
    write(tmp_path, STATE, json.dumps({"feature": "shop", "workers": workers, "execution_log": []}))
    write(tmp_path, ".zerg/logs/workers/worker-\u00b2.jsonl", _log_line(worker_id="\u00b2"))
    code, out, err = run(capsys, "follow", str(tmp_path), "--once", "--format", "json")
    assert err == "" and code == 0
    order = [w["worker_id"] for w in json.loads(out)["workers"]]
    assert order == ["2", "10", "9" * 30, "\u00b2"]  # numbers by value, then names in text order
