"""Benchmark: ``batch`` with exact counts over a generated project, against tiktoken alone.

Generates a project of about ``--tasks`` tasks and ``--spec-mb`` MB of specs (spread
over features), runs the whole batch with exact cl100k_base/o200k_base counts from
cold caches, then times one tiktoken pass (both encodings) over exactly the distinct
texts the batch had to count.  Prints the medians of ``--repeat`` runs and their ratio.

    python bench/bench_batch.py                 # ~700 tasks, ~2 MB of specs
    python bench/bench_batch.py --tasks 10000 --spec-mb 20
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from ctxviewer.engine.profiles import mahabharatha
from ctxviewer.engine.profiles.zerg import engrules, repomap
from ctxviewer.engine.project.loading import load_project
from ctxviewer.engine.runs.batch import run_batch
from ctxviewer.engine.signals import spec as spec_mod
from ctxviewer.engine.tokens import counting as tokens

WORDS = [
    "ledger",
    "account",
    "session",
    "token",
    "queue",
    "schema",
    "ingest",
    "payment",
    "refund",
    "audit",
    "export",
    "report",
    "cache",
    "retry",
    "webhook",
    "tenant",
    "invoice",
    "balance",
    "transfer",
    "currency",
    "limit",
    "policy",
    "secret",
    "login",
    "logout",
    "rotate",
    "encrypt",
    "validate",
    "sanitize",
    "migrate",
    "index",
    "shard",
    "replica",
    "backup",
    "restore",
    "throttle",
    "metric",
    "alert",
    "trace",
    "span",
    "worker",
    "scheduler",
    "cursor",
    "page",
    "filter",
    "sort",
]


def _sentence(rng: random.Random) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(6, 18))]
    return " ".join(words).capitalize() + "."


def _paragraph(rng: random.Random) -> str:
    return " ".join(_sentence(rng) for _ in range(rng.randint(1, 5)))


def generate(root: Path, tasks: int, spec_mb: float, seed: int = 7, features: int | None = None) -> Path:
    """Write a project with *tasks* tasks and ~*spec_mb* MB of specs, spread over features.

    *features* defaults to one per 30 tasks, at most 20 (so beyond 600 tasks a bigger
    project has bigger features); pass it to grow a project by adding features instead.
    """
    rng = random.Random(seed)
    features = max(1, min(20, tasks // 30)) if features is None else max(1, features)
    per_feature_bytes = int(spec_mb * 1_000_000 / features / 2)
    rules = root / ".claude/rules/security"
    for rel, n in (
        ("_core/owasp-2025.md", 20),
        ("languages/python/CLAUDE.md", 12),
        ("languages/javascript/CLAUDE.md", 12),
        ("containers/docker/CLAUDE.md", 8),
    ):
        path = rules / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        body = "".join(
            f"## Rule: {_sentence(rng)}\n**Level**: strict\n**When**: {_sentence(rng)}\n\n{_paragraph(rng)}\n\n"
            f"```python\nexample()\n```\n\n"
            for _ in range(n)
        )
        path.write_text(body, encoding="utf-8")
    suffixes = [".py", ".ts", ".tsx", ".md", "Dockerfile"]
    left = tasks
    for f in range(features):
        spec_dir = root / f".gsd/specs/feature-{f:02d}"
        spec_dir.mkdir(parents=True)
        for name in ("requirements.md", "design.md"):
            parts, size = [], 0
            while size < per_feature_bytes:
                p = _paragraph(rng)
                parts.append(p)
                size += len(p) + 2
            (spec_dir / name).write_text("\n\n".join(parts), encoding="utf-8")
        count = left // (features - f)
        left -= count
        task_list = []
        for t in range(count):
            files = []
            for _ in range(rng.randint(0, 4)):
                s = rng.choice(suffixes)
                stem = f"{rng.choice(WORDS)}_{rng.choice(WORDS)}"
                files.append(f"src/{stem}{s}" if s != "Dockerfile" else f"deploy/{stem}/Dockerfile")
            task_list.append(
                {
                    "id": f"F{f:02d}-{t:03d}",
                    "title": _sentence(rng)[:60],
                    "description": _paragraph(rng)[:300],
                    "files": {"create": files[:2], "modify": files[2:], "read": []},
                    "dependencies": [],
                    "level": 1 + t % 3,
                }
            )
        (spec_dir / "task-graph.json").write_text(json.dumps({"tasks": task_list}), encoding="utf-8")
    return root


def _reset_caches() -> None:
    for counter in tokens._counters.values():
        if isinstance(counter, tokens.TiktokenCounter):
            counter._cache.clear()
    spec_mod.clear_caches()
    mahabharatha.clear_caches()
    engrules.clear_caches()
    repomap.clear_caches()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=700)
    parser.add_argument("--spec-mb", type=float, default=2.0)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        root = generate(Path(tmp) / "project", args.tasks, args.spec_mb)
        spec_bytes = sum(p.stat().st_size for p in root.glob(".gsd/specs/*/*.md"))
        encodings = [tokens.load_encoding(n) for n in tokens.EXACT_ENCODINGS]  # load once, untimed
        project = load_project(root)

        batch_times, distinct = [], set()
        n_tasks = 0
        for _ in range(args.repeat):
            _reset_caches()
            # Rows are streamed, as `ctxviewer batch` writes them: holding every trace would
            # make the batch pay for the bench's memory (ever longer garbage collections).
            # Collecting the distinct texts is left out of the time.
            distinct, n_tasks, collecting = set(), 0, 0.0
            start = time.perf_counter()
            for row in run_batch(project, exact=True):
                mark = time.perf_counter()
                tr = row.trace
                distinct.add(tr.context)
                distinct.update(s.text for s in tr.sections)
                distinct.update(i.text for i in tr.items)
                n_tasks += 1
                collecting += time.perf_counter() - mark
            batch_times.append(time.perf_counter() - start - collecting)

        texts = sorted(distinct)
        chars = sum(len(t) for t in texts)
        pass_times = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            for enc in encodings:
                # In slices, dropping the token lists: the same work in bounded memory.
                for at in range(0, len(texts), 512):
                    enc.encode_ordinary_batch(texts[at : at + 512], num_threads=2)
            pass_times.append(time.perf_counter() - start)

    b, p = statistics.median(batch_times), statistics.median(pass_times)
    print(
        f"machine: {platform.machine()}, {platform.python_implementation()} {platform.python_version()}, "
        f"{__import__('os').cpu_count()} cores"
    )
    print(
        f"project: {n_tasks} tasks, {spec_bytes / 1e6:.2f} MB of specs; "
        f"{len(texts):,} distinct texts, {chars / 1e6:.2f} M characters counted"
    )
    print(
        f"batch with exact counts (cl100k_base + o200k_base), median of {args.repeat}: {b:.2f} s "
        f"({n_tasks / b:.0f} tasks/s)"
    )
    print(f"one tiktoken pass over the same distinct text (both encodings), median: {p:.2f} s")
    print(f"ratio batch / tiktoken pass: {b / p:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
