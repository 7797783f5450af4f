"""Benchmark: the whole ``ctxviewer batch`` command against its floor.

The floor is one process that loads both exact encodings and tokenizes, once each, every
distinct text the batch had to count (spec paragraphs, rule blocks, sections, the worker's
memory files and prompt parts) and every assembled text (each task's context and the
worker's whole prompt) -- the work no implementation can skip.  The batch is the command a user
runs: ``ctxviewer batch PROJECT -o rows.jsonl`` (both exact encodings, findings, JSON lines
written atomically), start-up included.  Both run as fresh processes; the medians of
``--repeat`` runs and their ratio are printed, for ``--jobs 1`` and ``--jobs N``.  The CPU
time counts every process a run started (``--jobs N``'s workers too); the load averages
say how busy the machine was.

    python bench/bench_floor.py                       # ~700 tasks
    python bench/bench_floor.py --tasks 10000                   # 20 features of 500 tasks
    python bench/bench_floor.py --tasks 10000 --spec-mb 28.6 --features 286   # 14x the features
    python bench/bench_floor.py --tasks 10000 --skip-one        # only --jobs N (and the floor)
    python bench/bench_floor.py --shape nine-section            # nine_section.py's project, 470 sources
    python bench/bench_floor.py --project ~/src/real-repo        # a project folder as it is
    git archive --prefix=old/ HEAD~3 | tar -x -C /tmp && python bench/bench_floor.py --compare /tmp/old
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import hashlib
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import host_speed
import nine_section
from bench_batch import generate

from ctxviewer.engine.profiles.zerg.repomap import source_files
from ctxviewer.engine.registry import profile_of

#: The checkout this file is in: the ctxviewer timed (``--compare`` names another).
REPO = Path(__file__).resolve().parents[1]

FLOOR = """
import sys, time
start = time.perf_counter()
from ctxviewer.engine.tokens.counting import EXACT_ENCODINGS, load_encoding
encodings = [load_encoding(n) for n in EXACT_ENCODINGS]
texts = open(sys.argv[1], encoding="utf-8").read().split("\\x00")
for enc in encodings:
    for at in range(0, len(texts), 512):
        enc.encode_ordinary_batch(texts[at : at + 512], num_threads=1)
"""


#: prctl(2) option: orphaned descendants are re-parented to this process, not to init.
PR_SET_CHILD_SUBREAPER = 36


def _adopt_orphans() -> bool:
    """Make this process the reaper of its orphaned descendants (Linux), so the CPU time of
    ``--jobs N``'s workers counts: they are children of the forkserver, which the batch
    leaves behind when it exits.  Whether it worked."""
    with contextlib.suppress(OSError, AttributeError):
        return ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    return False


def _reap_orphans() -> None:
    """Wait for every descendant left behind (the forkserver exits once the batch has)."""
    with contextlib.suppress(ChildProcessError):
        while True:
            os.waitpid(-1, 0)


def _timed(cmd: list[str], env: dict[str, str] | None = None, cwd: str | None = None) -> tuple[float, float]:
    """The wall-clock seconds *cmd* took, and the CPU seconds (user + system) it and every
    process it started used (see :func:`_adopt_orphans`): on a shared machine the CPU time
    moves far less with the load."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, env=env, cwd=cwd)
    _reap_orphans()
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _medians(runs: list[tuple[float, float]]) -> tuple[float, float]:
    return statistics.median(w for w, _ in runs), statistics.median(c for _, c in runs)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=700)
    parser.add_argument("--spec-mb", type=float, default=2.0)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument(
        "--features",
        type=int,
        help="spread the tasks over this many features (default: one per 30 tasks, at most 20, so a "
        "bigger project has bigger features and longer traces); with --spec-mb in proportion, a "
        "project grows by adding features of the same size",
    )
    parser.add_argument(
        "--shape",
        choices=("seed", "nine-section"),
        default="seed",
        help="seed: bench_batch.py's project (the seed's pipeline runs); nine-section: nine_section.py's "
        "(engineering rules in YAML, --sources sources for the repository map; zerg-0.3.2 runs)",
    )
    parser.add_argument("--sources", type=int, default=470, help="sources of a nine-section project")
    parser.add_argument(
        "--sources-from",
        nargs="+",
        type=Path,
        default=[],
        metavar="DIR",
        help="a nine-section project's sources: at most --sources real files copied from these folders",
    )
    parser.add_argument(
        "--compare",
        metavar="DIR",
        help="also time the batch of the ctxviewer in DIR (a checkout of another revision), each of its "
        "runs right after the same run of this one, so a before/after comparison shares the machine's load",
    )
    parser.add_argument(
        "--project",
        metavar="DIR",
        help="time this project folder (a real repository, say) instead of a generated one; it is read, "
        "not written: the batch runs on a copy",
    )
    parser.add_argument(
        "--skip-one",
        action="store_true",
        help="time only --jobs N against the floor, not --jobs 1 (on 10,000 tasks its runs take minutes)",
    )
    args = parser.parse_args()
    whole = _adopt_orphans()
    load_before = os.getloadavg()
    exe = [sys.executable, "-m", "ctxviewer"]
    with tempfile.TemporaryDirectory() as tmp:
        if args.project:
            # A copy, as the batch's working tree: nothing of the user's folder is touched, and
            # every run reads the same bytes.
            root = Path(tmp) / "project"
            shutil.copytree(args.project, root, symlinks=True, ignore=shutil.ignore_patterns(".git"))
        elif args.shape == "nine-section":
            features = args.features or 20
            root = nine_section.generate(
                Path(tmp) / "project", args.tasks, features, args.sources, args.spec_mb, sources_from=args.sources_from
            )
        else:
            root = generate(Path(tmp) / "project", args.tasks, args.spec_mb, features=args.features)
        rows = Path(tmp) / "rows.jsonl"
        # Each tree first on the path, and run from the temporary folder: ``python -m`` puts the
        # working directory before PYTHONPATH, so run from a checkout it would time that one.
        paths = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
        trees = {"": str(REPO)}
        if args.compare:
            trees[f" [{os.path.abspath(args.compare)}]"] = os.path.abspath(args.compare)
        envs = {name: {**os.environ, "PYTHONPATH": os.pathsep.join([tree, *paths])} for name, tree in trees.items()}
        # Each tree's bytecode written first, as installing a wheel writes it: else, where the
        # environment says not to write it (PYTHONDONTWRITEBYTECODE), every process compiles
        # the whole package before its first task.
        compile_env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        for tree in trees.values():
            subprocess.run(
                [sys.executable, "-m", "compileall", "-q", os.path.join(tree, "ctxviewer")], check=True, env=compile_env
            )
        subprocess.run([*exe, "batch", str(root), "-o", str(rows), "--jobs", "1"], check=True, env=envs[""], cwd=tmp)
        distinct: set[str] = set()
        tasks = 0
        profiles: set[str] = set()
        with rows.open(encoding="utf-8") as handle:
            for line in handle:
                trace = json.loads(line)
                tasks += 1
                profiles.add(trace["profile"])
                distinct.add(trace["context"])
                distinct.update(s["text"] for s in trace["sections"])
                distinct.update(i["text"] for i in trace["items"])
                # The worker's window: its memory files and prompt parts, and the whole prompt,
                # each counted exactly (the prompt is the text the worker's session was given).
                worker = trace.get("worker") or {}
                blocks = worker.get("blocks") or ()
                distinct.update(b["text"] for b in blocks if b["text"])
                prompt = [b["text"] for b in blocks if b["kind"] == "prompt"]
                if prompt:
                    distinct.add("\n".join(prompt))
        sources = 0
        # The floor reads the sources the repository map is built from too, where a profile builds one.
        if any("repo_map" in profile_of(name).sections for name in profiles):
            for _, rel in source_files(root):
                text = (root / rel).read_text(encoding="utf-8", errors="replace")
                sources += len(text)
                distinct.add(text)
        texts = Path(tmp) / "texts"
        texts.write_text("\x00".join(sorted(distinct)), encoding="utf-8")
        size = rows.stat().st_size
        rows.unlink()
        floor: list[tuple[float, float]] = []
        batch = [*exe, "batch", str(root), "-o", str(rows), "--jobs"]
        runs: dict[tuple[str, str], list[tuple[float, float]]] = {}
        digests: dict[str, set[str]] = {}  # of every run's output, per tree: one when every run wrote the same
        # Round by round, the floor first: the shared host's speed drifts over minutes, and each
        # round's runs share it.
        for _ in range(args.repeat):
            floor.append(_timed([sys.executable, "-c", FLOOR, str(texts)], envs[""], tmp))
            for jobs in (str(args.jobs),) if args.skip_one else ("1", str(args.jobs)):
                for name in trees:
                    runs.setdefault((name, jobs), []).append(_timed([*batch, jobs], envs[name], tmp))
                    digests.setdefault(name, set()).add(hashlib.sha256(rows.read_bytes()).hexdigest())
    (f, fc) = _medians(floor)
    machine = f"{platform.node()}, {platform.machine()}, {os.cpu_count()} cores"
    print(f"machine: {machine}, Python {platform.python_version()}")
    print(host_speed.describe())
    # Other work on the machine moves the wall-clock times; the 1-, 5- and 15-minute averages:
    loads = (" ".join(f"{x:.2f}" for x in before) for before in (load_before, os.getloadavg()))
    print("load average before: {}; after: {}".format(*loads))
    print(
        f"project ({args.project or args.shape}; {', '.join(sorted(profiles))}): {tasks} tasks, "
        f"{len(distinct):,} distinct texts "
        f"({sum(map(len, distinct)) / 1e6:.1f} M chars"
        + (f", {sources / 1e6:.1f} M of them the sources" if sources else "")
        + f"); output {size / 1e6:.0f} MB of JSON lines"
    )
    for name, found in digests.items():
        print(f"every run's output{name} byte-identical (--jobs 1 and --jobs {args.jobs}): {len(found) == 1}")
    print(f"medians of {args.repeat} runs; wall-clock seconds, then CPU seconds (user + system)")
    print(f"floor (load both encodings, tokenize each distinct text once): {f:.2f} s, CPU {fc:.2f} s")
    for name in trees:
        bn, bnc = _medians(runs[name, str(args.jobs)])
        b1 = None
        if not args.skip_one:
            b1, b1c = _medians(runs[name, "1"])
            print(
                f"ctxviewer batch --jobs 1{name}: {b1:.2f} s (ratio to floor {b1 / f:.2f}), "
                f"CPU {b1c:.2f} s (ratio {b1c / fc:.2f})"
            )
        many = f"ctxviewer batch --jobs {args.jobs}{name}: {bn:.2f} s (ratio to floor {bn / f:.2f})"
        if whole:
            many += f", CPU {bnc:.2f} s (ratio {bnc / fc:.2f})"
        else:  # the workers are the forkserver's children, not the batch's: their CPU time was lost
            many += " (the workers' CPU time was not counted)"
        if b1 is not None:
            many += f", speed-up {b1 / bn:.2f}x over --jobs 1"
        print(many)
        each = [run[0] / base[0] for run, base in zip(runs[name, str(args.jobs)], floor, strict=True)]
        print(
            f"  --jobs {args.jobs}{name} / the floor of its round: "
            + ", ".join(f"{r:.2f}" for r in each)
            + f" (median {statistics.median(each):.2f})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
