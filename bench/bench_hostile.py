"""Benchmark: hostile sizes that once took quadratic time or unbounded memory.

Each case times one engine call on generated input, so a change can be measured
before and after (issue 15).  Sizes are arguments; the defaults finish in seconds on
the current code.

    python bench/bench_hostile.py keywords --files 100000    # keyword de-duplication
    python bench/bench_hostile.py match --keywords 2000      # ctxviewer profile matching, one 'İ' keyword
    python bench/bench_hostile.py tokens --mb 50             # exact count of one line without spaces

``keywords``: a task listing N files ``src/mod_NNNNN.py`` (every stem shares the word
``mod``), through the reference keywords, the ctxviewer profile's keywords and the
task signals.  ``match``: N keywords (one starting with U+0130, whose lowercase is two
characters) matched against 2,000 paragraphs.  ``tokens``: cl100k_base and o200k_base
counts of one run of N MB of letters with no whitespace or punctuation; reports the
peak resident memory too (``ru_maxrss``, which only grows: run one case per process).
"""

from __future__ import annotations

import argparse
import platform
import resource
import sys
import time
from collections.abc import Callable
from typing import Any


def _timed(label: str, fn: Callable[[], Any]) -> Any:
    start = time.perf_counter()
    result = fn()
    print(f"{label}: {time.perf_counter() - start:.3f} s")
    return result


def bench_keywords(files: int) -> None:
    from ctxviewer.engine.profiles.ctxviewer.run import extract
    from ctxviewer.engine.signals.keywords import extract_keywords
    from ctxviewer.engine.signals.task import extract_signals

    paths = [f"src/mod_{i:05d}.py" for i in range(files)]
    task = {"id": "T1", "title": "Hostile", "description": " ".join(paths), "files": {"create": paths}}
    _timed(f"reference keywords, {files:,} files", lambda: extract_keywords(task))
    _timed(f"ctxviewer keywords, {files:,} files", lambda: extract(task))
    _timed(f"signals, {files:,} paths in the description", lambda: extract_signals(task))


def bench_match(keywords: int) -> None:
    from ctxviewer.engine.profiles.ctxviewer.run import _match_counts
    from ctxviewer.engine.signals.spec import build_index

    words = ["\u0130stanbul".lower(), *(f"word{i:05d}x" for i in range(keywords - 1))]
    text = "\n\n".join(f"Paragraph {i} mentions word{i % keywords:05d}x and \u0130stanbul once." for i in range(2000))
    index = build_index(text, 1)
    counts = _timed(
        f"ctxviewer matching, {keywords:,} keywords x 2,000 paragraphs",
        lambda: _match_counts(index, tuple(sorted(set(words))), None),
    )
    print(f"  paragraphs with matches: {len(counts):,}")


def bench_tokens(mb: float) -> None:
    from ctxviewer.engine.tokens.counting import Census

    census = Census(True)
    census.measure("warm up")
    import random

    size = int(mb * (1 << 20))
    rng = random.Random(1)
    block = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(1 << 20))
    text = (block * (size // len(block) + 1))[:size]  # letters only: one pre-token for tiktoken
    counts = _timed(f"exact counts of one {mb:g} MB run of letters", lambda: census.measure(text))
    print(f"  {counts}")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(f"  peak resident memory: {peak / 1024:.0f} MB")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="case", required=True)
    sub.add_parser("keywords").add_argument("--files", type=int, default=32_000)
    sub.add_parser("match").add_argument("--keywords", type=int, default=500)
    sub.add_parser("tokens").add_argument("--mb", type=float, default=5.0)
    args = parser.parse_args(argv)
    print(f"python {platform.python_version()} on {platform.machine()}")
    if args.case == "keywords":
        bench_keywords(args.files)
    elif args.case == "match":
        bench_match(args.keywords)
    else:
        bench_tokens(args.mb)
    return 0


if __name__ == "__main__":
    sys.exit(main())
