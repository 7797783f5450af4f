"""``--shard K/N``: shards 1 to N of ``batch`` and ``sweep``, concatenated in order, are the unsharded
output byte for byte (JSON lines; CSV, whose header only shard 1 writes); ``check``'s shards exit
with codes whose largest is the unsharded check's; one-document formats refuse to be sharded."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.helpers import SAMPLES, run

LEDGER = SAMPLES / "ledger-service"


def _joined(capsys: pytest.CaptureFixture[str], n: int, *argv: str) -> tuple[str, list[int]]:
    outs, codes = [], []
    for k in range(1, n + 1):
        code, out, _ = run(capsys, *argv, "--shard", f"{k}/{n}")
        outs.append(out)
        codes.append(code)
    return "".join(outs), codes


@pytest.mark.parametrize(("fmt", "n", "jobs"), [("jsonl", 4, "1"), ("csv", 3, "1"), ("jsonl", 2, "2")])
def test_batch_shards_join_into_the_whole_batch(
    capsys: pytest.CaptureFixture[str], fmt: str, n: int, jobs: str
) -> None:
    argv = ("batch", str(LEDGER), "--format", fmt, "--no-exact", "--jobs", jobs)
    code, whole, _ = run(capsys, *argv)
    joined, codes = _joined(capsys, n, *argv)
    assert joined == whole and codes == [code] * n
    lines = whole.splitlines()
    assert len(lines) == 25 + (fmt == "csv")  # ledger-service has 25 tasks
    if fmt == "csv":
        _, first, _ = run(capsys, *argv, "--shard", f"1/{n}")
        _, second, _ = run(capsys, *argv, "--shard", f"2/{n}")
        # 25 tasks in 3 shards: [0:8], [8:16], [16:25]; the header is the first shard's only.
        assert first.splitlines()[0] == lines[0] and len(first.splitlines()) == 1 + 8
        assert second.splitlines() == lines[9:17]


def test_more_shards_than_tasks_leaves_some_empty(three_features: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ("batch", str(three_features), "--format", "jsonl", "--no-exact")
    _, whole, _ = run(capsys, *argv)
    joined, codes = _joined(capsys, 5, *argv)  # 3 tasks, 5 shards: [0:0], [0:1], [1:1], [1:2], [2:3]
    assert joined == whole and codes == [0] * 5
    assert run(capsys, *argv, "--shard", "1/5")[1] == ""


def test_sweep_shards_join_into_the_whole_sweep(three_features: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ("sweep", str(three_features), "--budget", "100:300:100", "--format", "csv")
    code, whole, _ = run(capsys, *argv)
    joined, codes = _joined(capsys, 2, *argv)
    assert joined == whole and codes == [code, code]
    assert len(whole.splitlines()) == 1 + 3 * 3  # a header, then 3 tasks at 3 budgets


def test_check_shards_exit_as_the_whole_check_would(three_features: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Three tasks in feature order: billing's B-001, then feat's T1 and T2; T2's empty context
    # fails (exit 1).  Four shards are [0:0] (no task: exit 0), [0:1], [1:2], [2:3].
    assert run(capsys, "check", str(three_features))[0] == 1
    for n, expected in [(1, [1]), (2, [0, 1]), (3, [0, 0, 1]), (4, [0, 0, 0, 1])]:
        _, codes = _joined(capsys, n, "check", str(three_features))
        assert codes == expected and max(codes) == 1


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (("batch", "--format", "tokens"), "--shard: the tokens format is one document"),
        (("sweep", "--budget", "1000", "--format", "json"), "--shard: the JSON output is one document"),
    ],
)
def test_a_one_document_format_refuses_shards(
    project: Path, capsys: pytest.CaptureFixture[str], argv: tuple[str, ...], message: str
) -> None:
    code, out, err = run(capsys, argv[0], str(project), *argv[1:], "--shard", "1/2")
    assert (code, out) == (2, "") and message in err


@pytest.mark.parametrize("bad", ["0/2", "3/2", "1", "a/b", "1/0"])
def test_a_bad_shard_is_a_usage_error(project: Path, capsys: pytest.CaptureFixture[str], bad: str) -> None:
    with pytest.raises(SystemExit) as exc:
        run(capsys, "batch", str(project), "--shard", bad)
    assert exc.value.code == 2 and "write K/N, the K-th of N shards" in capsys.readouterr().err
