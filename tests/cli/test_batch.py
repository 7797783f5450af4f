"""``ctxviewer batch``: JSON lines and CSV rows, each carrying its task's findings."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from tests.cli.helpers import run
from tests.factories import make_project, write


def test_batch_jsonl_and_csv(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "batch", str(project))
    lines = [json.loads(line) for line in out.splitlines()]
    assert code == 0
    assert [(d["feature"], d["task_id"]) for d in lines] == [("feat", "T1"), ("feat", "T2")]
    assert all("context" in d for d in lines)
    code, out, _ = run(capsys, "batch", str(project), "--format", "csv", "--no-exact")
    rows = out.splitlines()
    assert rows[0].startswith("feature,task,title,budget")
    assert rows[1].startswith("feat,T1,Login session,4000,")
    assert len(rows) == 3


def test_batch_rows_carry_their_findings(three_features: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "batch", str(three_features), "--no-exact")
    assert code == 0
    rows = {row["task_id"]: row for row in map(json.loads, out.splitlines())}
    assert rows["T1"]["findings"] == []
    t2 = rows["T2"]["findings"]
    assert [f["code"] for f in t2] == ["context-empty", "section-empty", "section-empty"]  # errors first
    assert set(t2[0]) == {"code", "severity", "item", "message"} and t2[0]["item"] is None
    code, out, _ = run(capsys, "batch", str(three_features), "--no-exact", "--format", "csv")
    table = list(csv.DictReader(io.StringIO(out)))
    by_task = {r["task"]: (r["findings"], r["finding_codes"]) for r in table}
    assert by_task == {
        "B-001": ("1", "section-empty"),
        "T1": ("0", ""),
        "T2": ("3", "context-empty section-empty"),
    }


def test_batch_output_file_is_the_stdout_stream(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "batch", str(project), "--no-exact")
    assert code == 0
    target = tmp_path / "rows.jsonl"
    target.write_text("yesterday's rows\n", encoding="utf-8")
    assert run(capsys, "batch", str(project), "--no-exact", "-o", str(target))[0] == 0
    assert target.read_text(encoding="utf-8") == out
    assert len(out.splitlines()) == 2


def test_streamed_output_stops_when_the_reader_has_gone(monkeypatch: pytest.MonkeyPatch) -> None:
    from ctxviewer.cli import common

    produced: list[int] = []
    written: list[str] = []

    def chunks():  # type: ignore[no-untyped-def]
        for n in range(10):
            produced.append(n)
            yield "x" * 600_000 + "\n"  # two chunks pass the 1 MiB piece size

    def gone_after_first(text: str) -> bool:
        written.append(text)
        return False

    monkeypatch.setattr(common, "print_text", gone_after_first)
    common.stream_out(chunks(), None)
    assert len(written) == 1 and len(written[0]) == 2 * 600_001
    assert produced == [0, 1]  # nothing produced after the reader went


def _parts_producer(closed: list[bool], fail: bool = False):  # type: ignore[no-untyped-def]
    """A producer of text and parts (as ``batch --jobs`` gives them) noting when it is closed."""
    from ctxviewer.engine.files.writing import write_scratch_part

    def produce(folder: Path):  # type: ignore[no-untyped-def]
        try:
            yield "head\n"
            yield write_scratch_part(folder, "part-1", ["one \x1b[31mred\n", "x" * 600_000 + "\n"])
            yield write_scratch_part(folder, "part-2", ["two\n"])
            if fail:
                raise ValueError("the producer broke")
            yield "tail\n"
        finally:
            closed.append(True)

    return produce


def test_streamed_parts_reach_stdout_in_order(capsys: pytest.CaptureFixture[str]) -> None:
    from ctxviewer.cli import common

    closed: list[bool] = []
    common.stream_out(_parts_producer(closed), None)
    assert capsys.readouterr().out == "head\none \x1b[31mred\n" + "x" * 600_000 + "\ntwo\ntail\n"
    assert closed == [True]


def test_streamed_parts_are_escaped_on_a_terminal(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from ctxviewer.cli import common
    from ctxviewer.engine.exports.terminal import visible

    monkeypatch.setattr(common, "is_terminal", lambda _stream: True)
    common.stream_out(_parts_producer([]), None)
    expected = "head\none \x1b[31mred\n" + "x" * 600_000 + "\ntwo\ntail\n"
    assert capsys.readouterr().out == visible(expected, lines=True)
    assert "\x1b" not in visible(expected, lines=True)


def test_streamed_parts_stop_and_close_the_producer_when_the_reader_has_gone(monkeypatch: pytest.MonkeyPatch) -> None:
    from ctxviewer.cli import common

    written: list[str | bytes] = []

    def gone_after_first(text: str | bytes) -> bool:
        written.append(text)
        return False

    monkeypatch.setattr(common, "print_text", gone_after_first)
    closed: list[bool] = []
    common.stream_out(_parts_producer(closed), None)
    assert written == [b"head\n"]  # the first piece went (as UTF-8: not a terminal), then the reader
    assert closed == [True]  # the producer (its workers) stopped before its scratch folder went


@pytest.mark.parametrize("jobs", [False, True])
def test_what_was_produced_before_a_failure_is_written(capsys: pytest.CaptureFixture[str], jobs: bool) -> None:
    from ctxviewer.cli import common

    def rows():  # type: ignore[no-untyped-def]
        yield "one\n"
        yield "two\n"
        raise ValueError("the producer broke")

    with pytest.raises(ValueError, match="the producer broke"):
        common.stream_out(_parts_producer([], fail=True) if jobs else rows(), None)
    out = capsys.readouterr().out
    # Less than a piece was gathered: it is still written, as the rows a part holds are.
    assert out == ("head\none \x1b[31mred\n" + "x" * 600_000 + "\ntwo\n" if jobs else "one\ntwo\n")


def test_a_source_no_python_parses_is_a_note_not_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Upstream's repository map skips a file that does not parse, and so does the reproduction:
    # the output is exact, so batch exits 0; the trace keeps the note.
    task = {"id": "T1", "title": "Loader", "description": "Refactor loader", "files": {"create": ["src/x.py"]}}
    root = make_project(tmp_path, [task])
    write(root, "src/loader.py", "def loader() -> int:\n    return 1\n")
    write(root, "tests/fixtures/not_python.py", "this file is deliberately not Python (\n")
    code, out, err = run(capsys, "batch", str(root), "--profile", "zerg-0.3.2", "--no-exact")
    assert (code, err) == (0, "")
    [line] = map(json.loads, out.splitlines())
    assert "- `def loader() -> int`" in line["context"]
    assert [(e["kind"], e["path"]) for e in line["errors"]] == [("pipeline", "tests/fixtures/not_python.py")]
    code, _, err = run(capsys, "assemble", str(root), "--profile", "zerg-0.3.2", "--feature", "feat", "--task", "T1")
    assert code == 0
    assert (
        "note: tests/fixtures/not_python.py: does not parse as Python (not in the symbol map, as upstream skips it)\n"
    ) in err
