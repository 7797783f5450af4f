"""The log viewer's rows and filters, without Qt: parsed lines, and which rows each filter keeps."""

from __future__ import annotations

import json

import pytest

from ctxviewer.engine.runfiles.logstore import ANY_EVENT, LogFilter, LogStore, values_of
from tests.engine.runfiles.small_log import WORKER_1, WORKER_2


@pytest.fixture
def store() -> LogStore:
    s = LogStore()
    s.add_lines("".join(WORKER_1).encode(), s.file_code("worker-1.jsonl"), 1)
    s.add_lines("".join(WORKER_2).encode(), s.file_code("worker-2.jsonl"), 1)
    return s


def shown(store: LogStore, spec: LogFilter) -> list[tuple[str, int]]:
    return [(store.row(n).file[7], store.row(n).line) for n in store.matcher(spec).rows(0, len(store))]


def test_every_line_is_a_row_with_its_fields(store: LogStore) -> None:
    assert len(store) == 8  # 5 lines of worker 1 (one not JSON) and 3 of worker 2
    row = store.row(3)
    assert (row.file, row.line, row.ts) == ("worker-1.jsonl", 4, "2026-02-14T08:02:00.000000Z")
    assert (row.level, row.worker, row.feature, row.task, row.event) == ("info", "1", "shop", "T1", "task_completed")
    assert (row.phase, row.duration_ms, row.message, row.bad) == ("execute", "115000", "Task T1 completed", None)
    plain = store.row(0)
    assert (plain.task, plain.event, plain.phase, plain.duration_ms) == (None, None, None, "")
    bad = store.row(4)
    assert (bad.line, bad.message, bad.level) == (5, "oops {", None)
    assert bad.bad is not None and bad.bad.startswith("not JSON")


@pytest.mark.parametrize(
    ("spec", "rows"),
    [
        (LogFilter(), [("1", 1), ("1", 2), ("1", 3), ("1", 4), ("1", 5), ("2", 1), ("2", 2), ("2", 3)]),
        (LogFilter(level="error"), [("2", 2), ("2", 3)]),
        (LogFilter(level="warning"), [("1", 3)]),
        (LogFilter(worker="2"), [("2", 1), ("2", 2), ("2", 3)]),
        (LogFilter(level="info", worker="1"), [("1", 1), ("1", 2), ("1", 4)]),
        (LogFilter(task="T1"), [("1", 2), ("1", 4)]),
        (LogFilter(task="t2"), [("2", 1), ("2", 2)]),  # any case; line 3 names T2 only in its message
        (LogFilter(event=ANY_EVENT), [("1", 2), ("1", 4), ("2", 1), ("2", 2)]),
        (LogFilter(event="task_failed"), [("2", 2)]),
        (LogFilter(text="LINT"), [("1", 3)]),
        (LogFilter(text="failed"), [("2", 2), ("2", 3)]),
        (LogFilter(text="task_completed"), [("1", 4)]),  # the event column, not the message
        (LogFilter(text="oops"), [("1", 5)]),  # a line that is not JSON is searched as written
        (LogFilter(feature="shop", event="task_started", worker="2"), [("2", 1)]),
        (LogFilter(level="debug"), []),  # a value no line has
        (LogFilter(worker="7"), []),
    ],
)
def test_a_filter_keeps_the_rows_worked_out_by_hand(store: LogStore, spec: LogFilter, rows: list) -> None:
    assert shown(store, spec) == rows


def test_a_range_of_rows_is_tested_alone(store: LogStore) -> None:
    test = store.matcher(LogFilter(event=ANY_EVENT))
    assert test.rows(0, 4) == [1, 3]
    assert test.rows(4, 8) == [5, 6]


def test_fields_of_the_wrong_type_are_shown_as_text_and_blank_lines_are_skipped() -> None:
    s = LogStore()
    lines = [
        json.dumps({"ts": 5, "level": ["x"], "worker_id": 3.5, "feature": None, "message": {"a": 1}}),
        "",
        "   " + json.dumps({"ts": "t", "level": "info", "worker_id": "orchestrator", "feature": "f", "message": "m"}),
        "[1, 2]",
        "\ufeff" + json.dumps({"message": "bom"}),
    ]
    assert s.add_lines(("\n".join(lines) + "\n").encode(), s.file_code("w.jsonl"), 1) == 5
    assert len(s) == 4  # the blank line is no row
    first = s.row(0)
    assert (first.ts, first.level, first.worker, first.feature, first.message) == ("5", '["x"]', "3.5", None, '{"a":1}')
    spaced = s.row(1)
    assert (spaced.line, spaced.worker, spaced.message) == (3, "orchestrator", "m")
    assert (s.row(2).line, s.row(2).bad) == (4, "not a JSON object")
    assert s.row(3).bad is not None  # a BOM is only taken off line 1


def test_a_piece_that_is_not_utf8_marks_only_its_bad_line() -> None:
    s = LogStore()
    good = json.dumps({"ts": "t", "level": "info", "worker_id": 1, "feature": "f", "message": "fine"}).encode()
    s.add_lines(good + b"\n" + b'{"message": "\xff"}\n' + good + b"\n", s.file_code("w.jsonl"), 10)
    assert [s.row(n).line for n in range(3)] == [10, 11, 12]
    assert [s.row(n).bad for n in range(3)] == [None, "not UTF-8 (byte 0xff at byte 14)", None]


def test_values_sort_numbers_by_value() -> None:
    s = LogStore()
    for worker in ("10", "2", "orchestrator", "1"):
        s.workers.code(worker)
    assert list(values_of(s.workers)) == ["1", "2", "10", "orchestrator"]
