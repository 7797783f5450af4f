"""Benchmark: how batch assembly, opening, GUI responsiveness and memory grow with project size.

For each scale factor (``--scales 1,10,100``) a project of ``--base-tasks`` x scale tasks
and ``--base-spec-mb`` x scale MB of specs is generated (bench_batch's generator), then
measured in two fresh child processes, so peak memory is per size and per side:

* engine child: ``load_project`` time; one ``run_batch`` with exact counts
  (cl100k_base + o200k_base) from cold caches, tasks/s, and its ratio to one tiktoken
  pass (both encodings) over exactly the distinct texts the batch counted; peak RSS.
* window child (offscreen): from ``open_project`` to the first ``traceShown``; the
  background batch pass the window starts on opening, to ``batchFinished``; then a
  second, cold pass (``start_batch`` after clearing the engine caches) while a 10 ms
  ``QTimer`` heartbeat on the GUI thread records its worst and p99 gap; peak RSS.

Timing columns are medians of ``--repeat`` runs inside a child (window timings are one
run).  The parent prints one table row per scale, then the growth of every column from
one scale to the next against the growth of the project; a column growing notably faster
than the project (more than 1.5 x the size ratio) is flagged ``SUPER-LINEAR``.  Peak RSS
is the phase's own (on Linux the high-water mark is reset once the interpreter, Qt and the
tiktoken encodings are loaded) and its growth is taken above the RSS at that point.  The
longest garbage-collector pause is printed too: a full collection holds the GIL, so it
stalls the GUI thread however well the work is moved off it.

    python bench/bench_scale.py                          # 1x, 10x, 100x: 100 .. 10,000 tasks
    python bench/bench_scale.py --scales 1,10 --skip-gui
    python bench/bench_scale.py --base-features 3        # grow by adding features, not by growing them
    python bench/bench_scale.py --scales 100 --profile batch   # cProfile of a phase, to stderr

Project shape: by default the generator makes one feature per 30 tasks, at most 20, so
past 600 tasks a bigger project has bigger features (at 100x: 20 features of 500 tasks
and 1.5 MB of spec each).  A task's assembly costs in proportion to its feature's spec,
so that shape makes the batch grow with tasks x spec per feature; ``--base-features N``
instead keeps every feature the same size and adds features.  The window child sets
``QT_QPA_PLATFORM=offscreen`` unless it is set.

``--one-window-pass`` takes the window's batch time and heartbeat from the pass opening
starts (after the first trace) instead of a separate second pass: one whole pass fewer
per size.  ``--profile load|batch|open|gui-batch`` runs that phase of the child under
cProfile and prints the top ``--profile-top`` functions by cumulative and own time to
stderr.  Progress goes to stderr every 15 s.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
PROGRESS_S = 15.0  # seconds between progress lines on stderr
TIKTOKEN_SLICE = 512  # texts per encode_ordinary_batch call in the tiktoken pass
sys.path.insert(0, str(BENCH))


def _log(message: str) -> None:
    print(f"[bench_scale {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def _proc_status_mb(field: str) -> float | None:
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


def _rss_reset() -> float:
    """Collect garbage, restart the peak-RSS high-water mark, and return the current RSS in MB.

    On Linux writing 5 to /proc/self/clear_refs resets VmHWM, so the peak read later is
    the peak of the phase measured, not of the imports and encoding loads before it.
    """
    gc.collect()
    try:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as refs:
            refs.write("5")
    except OSError:
        pass
    current = _proc_status_mb("VmRSS")
    return current if current is not None else _rss_peak()


def _rss_peak() -> float:
    """Peak resident set size (since the last reset where possible), in MB."""
    peak = _proc_status_mb("VmHWM")
    if peak is not None:
        return peak
    maxrss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux, bytes on macOS
    return maxrss / (1024 * 1024) if sys.platform == "darwin" else maxrss / 1024


class _GcPauses:
    """Durations of the garbage collector's runs (a full collection holds the GIL, so every thread waits)."""

    def __init__(self) -> None:
        self.longest = 0.0
        self.total = 0.0
        self.full = 0
        self._start = 0.0
        #: (start, end) of every collection over 5 ms, in perf_counter seconds.
        self.spans: list[tuple[float, float]] = []
        gc.callbacks.append(self._callback)

    def reset(self) -> None:
        self.longest = self.total = 0.0
        self.full = 0
        self.spans.clear()

    def within(self, start: float, end: float) -> float:
        """Milliseconds of the collections over 5 ms that overlap [start, end]."""
        return sum(max(0.0, min(end, b) - max(start, a)) for a, b in self.spans) * 1000

    def _callback(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._start = time.perf_counter()
            return
        now = time.perf_counter()
        took = (now - self._start) * 1000
        if took > 5:
            self.spans.append((self._start, now))
        self.total += took
        self.longest = max(self.longest, took)
        if info.get("generation") == 2:
            self.full += 1


def _p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] if ordered else 0.0


class _Profile:
    """cProfile around one phase when asked for, printing the top functions to stderr."""

    def __init__(self, wanted: str, top: int) -> None:
        self.wanted, self.top = wanted, top

    def run(self, phase: str, fn: Callable[[], Any]) -> Any:
        if phase != self.wanted:
            return fn()
        import cProfile
        import io
        import pstats

        profiler = cProfile.Profile()
        result = profiler.runcall(fn)
        for order in ("cumulative", "tottime"):
            out = io.StringIO()
            pstats.Stats(profiler, stream=out).sort_stats(order).print_stats(self.top)
            print(f"--- cProfile of {phase!r}, by {order} ---\n{out.getvalue()}", file=sys.stderr, flush=True)
        return result


# -- engine child --------------------------------------------------------------------------------


def _reset_caches() -> None:
    from bench_batch import _reset_caches as reset

    reset()
    gc.collect()


def child_engine(root: Path, repeat: int, profile: _Profile) -> dict[str, Any]:
    from ctxviewer.engine.project.loading import load_project
    from ctxviewer.engine.runs.batch import run_batch
    from ctxviewer.engine.tokens import counting as tokens

    encodings = [tokens.load_encoding(n) for n in tokens.EXACT_ENCODINGS]  # loaded once, untimed
    for name in tokens.EXACT_ENCODINGS:
        tokens.get_counter(name)
    baseline = _rss_reset()
    pauses = _GcPauses()

    load_times = []
    project = None
    for _ in range(repeat):
        project = None
        gc.collect()
        start = time.perf_counter()
        project = profile.run("load", lambda: load_project(root))
        load_times.append(time.perf_counter() - start)
    assert project is not None
    n_tasks = len(project.tasks())
    _log(f"  load_project: {statistics.median(load_times):.2f} s, {n_tasks} tasks")

    def one_batch() -> tuple[float, set[str], int]:
        """Seconds spent in the batch (collecting the texts excluded), its distinct texts, rows."""
        distinct: set[str] = set()
        collecting = 0.0
        rows = 0
        start = next_log = time.perf_counter()
        for row in run_batch(project, exact=True):
            mark = time.perf_counter()
            tr = row.trace
            distinct.add(tr.context)
            distinct.update(s.text for s in tr.sections)
            distinct.update(i.text for i in tr.items)
            rows += 1
            if mark >= next_log + PROGRESS_S:
                next_log = mark
                rate = rows / (mark - start)
                _log(f"  batch: {rows} of {n_tasks} tasks, {rate:.0f} tasks/s, ~{(n_tasks - rows) / rate:.0f} s left")
            collecting += time.perf_counter() - mark
        return time.perf_counter() - start - collecting, distinct, rows

    batch_times: list[float] = []
    distinct: set[str] = set()
    for _ in range(repeat):
        distinct = set()
        _reset_caches()
        seconds, distinct, rows = profile.run("batch", one_batch)
        assert rows == n_tasks, (rows, n_tasks)
        batch_times.append(seconds)
    batch = statistics.median(batch_times)
    # Taken before the tiktoken pass below: its token lists are the bench's, not the engine's.
    peak = _rss_peak()
    gc_stats = {"gc_longest_ms": pauses.longest, "gc_total_s": pauses.total / 1000, "gc_full": pauses.full}
    _log(
        f"  batch: {batch:.2f} s ({n_tasks / batch:.0f} tasks/s); peak RSS {peak:.0f} MB (baseline {baseline:.0f}); "
        f"longest GC pause {pauses.longest:.0f} ms, {pauses.full} full collections, {pauses.total / 1000:.2f} s in GC"
    )

    texts = sorted(distinct)
    distinct.clear()
    chars = sum(len(t) for t in texts)
    pass_times = []
    for _ in range(repeat):
        start = time.perf_counter()
        for enc in encodings:
            # In slices, dropping the token lists: the same work in bounded memory (one call over
            # 100 M characters would hold ~25 M Python ints per encoding and spend its time in GC).
            for at in range(0, len(texts), TIKTOKEN_SLICE):
                enc.encode_ordinary_batch(texts[at : at + TIKTOKEN_SLICE], num_threads=2)
        pass_times.append(time.perf_counter() - start)
    tk = statistics.median(pass_times)
    _log(f"  tiktoken pass over {len(texts):,} distinct texts: {tk:.2f} s")
    return {
        "tasks": n_tasks,
        "load_s": statistics.median(load_times),
        "batch_s": batch,
        "tasks_per_s": n_tasks / batch,
        "tiktoken_s": tk,
        "ratio": batch / tk,
        "distinct_texts": len(texts),
        "distinct_mchars": chars / 1e6,
        "rss_base_mb": baseline,
        "rss_engine_mb": peak,
        **gc_stats,
    }


# -- window child --------------------------------------------------------------------------------


def child_gui(root: Path, profile: _Profile, timeout_s: float, one_pass: bool) -> dict[str, Any]:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QEventLoop, QSettings, Qt, QTimer
    from PySide6.QtWidgets import QApplication

    from ctxviewer.engine.tokens import counting as tokens
    from ctxviewer.gui.app import make_app
    from ctxviewer.gui.window import MainWindow

    app = QApplication.instance() or make_app("light")  # as ctxviewer gui starts it (its lock interval)
    for name in tokens.EXACT_ENCODINGS:  # loaded once, untimed, as in the engine child
        tokens.get_counter(name)
    tmp = tempfile.TemporaryDirectory()
    settings = QSettings(str(Path(tmp.name) / "s.ini"), QSettings.Format.IniFormat)
    window = MainWindow(settings)
    window.resize(1280, 800)
    window.show()
    app.processEvents()
    baseline = _rss_reset()
    pauses = _GcPauses()

    # Heartbeat: a 10 ms timer on the GUI thread; each tick records (when, gap since the last).
    ticks: list[tuple[float, float]] = []
    last = [time.perf_counter()]

    def tick() -> None:
        now = time.perf_counter()
        ticks.append((now, (now - last[0]) * 1000))
        last[0] = now

    heartbeat = QTimer()
    heartbeat.setTimerType(Qt.TimerType.PreciseTimer)
    heartbeat.setInterval(10)
    heartbeat.timeout.connect(tick)

    marks: dict[str, float] = {}
    loop = QEventLoop()

    def on_trace(_trace: object) -> None:
        marks.setdefault("trace", time.perf_counter())
        if "batch" in marks:
            loop.quit()

    def on_batch() -> None:
        marks.setdefault("batch", time.perf_counter())
        if "trace" in marks:
            loop.quit()

    window.traceShown.connect(on_trace)
    window.batchFinished.connect(on_batch)
    timed_out = [False]

    def give_up() -> None:
        timed_out[0] = True
        loop.quit()

    guard = QTimer()
    guard.setSingleShot(True)
    guard.timeout.connect(give_up)
    began = time.perf_counter()
    progress = QTimer()
    progress.setInterval(int(PROGRESS_S * 1000))
    progress.timeout.connect(
        lambda: _log(f"  window {time.perf_counter() - began:.0f} s: {window.status.batch_label.text()}")
    )
    progress.start()

    # 1. Open the project: first trace shown, and the batch pass the window starts on its own.
    def open_and_wait() -> None:
        last[0] = time.perf_counter()
        heartbeat.start()
        guard.start(int(timeout_s * 1000))
        marks["open"] = time.perf_counter()
        window.open_project(root)
        loop.exec()
        heartbeat.stop()
        guard.stop()

    profile.run("open", open_and_wait)
    if timed_out[0]:
        raise SystemExit(f"window: no first trace/batch end within {timeout_s:.0f} s")
    open_ticks = [g for t, g in ticks if t <= marks["trace"]]
    first_ticks = [g for t, g in ticks if t > marks["trace"]]
    opened: dict[str, Any] = {
        "open_to_trace_s": marks["trace"] - marks["open"],
        "open_to_batch_s": marks["batch"] - marks["open"],
        "open_worst_gap_ms": max(open_ticks, default=0.0),
        "first_pass_worst_gap_ms": max(first_ticks, default=0.0),
    }
    _log(
        f"  window: first trace {opened['open_to_trace_s']:.2f} s after open_project, "
        f"batch pass done at {opened['open_to_batch_s']:.2f} s; worst gap {opened['open_worst_gap_ms']:.0f} ms "
        f"before the trace, {opened['first_pass_worst_gap_ms']:.0f} ms after"
    )

    n_tasks = len(window.project.tasks()) if window.project else 0
    if one_pass:
        # The heartbeat of the pass started on opening, from the first trace on.
        after = [(t, g) for t, g in ticks if t > marks["trace"]]
        opened["heartbeat_pass"] = "pass started on opening"
        return _gui_result(opened, n_tasks, marks["batch"] - marks["open"], after, baseline, pauses, window, tmp)

    # 2. A second, cold batch pass on its own, under the heartbeat.
    opened["heartbeat_pass"] = "second pass"
    _reset_caches()
    ticks.clear()
    pauses.reset()
    marks.pop("batch")

    def batch_and_wait() -> None:
        last[0] = time.perf_counter()
        heartbeat.start()
        guard.start(int(timeout_s * 1000))
        marks["start"] = time.perf_counter()
        window.start_batch()
        loop.exec()
        heartbeat.stop()
        guard.stop()

    profile.run("gui-batch", batch_and_wait)
    if timed_out[0]:
        raise SystemExit(f"window: the batch pass did not finish within {timeout_s:.0f} s")
    return _gui_result(opened, n_tasks, marks["batch"] - marks["start"], list(ticks), baseline, pauses, window, tmp)


def _gui_result(
    opened: dict[str, Any],
    n_tasks: int,
    seconds: float,
    ticks: list[tuple[float, float]],
    baseline: float,
    pauses: _GcPauses,
    window: Any,
    tmp: tempfile.TemporaryDirectory[str],
) -> dict[str, Any]:
    gaps = [g for _t, g in ticks]
    worst_at, worst = max(ticks, key=lambda tick: tick[1], default=(0.0, 0.0))
    result = {
        **opened,
        "gui_tasks": n_tasks,
        "gui_batch_s": seconds,
        "worst_gap_ms": max(gaps, default=0.0),
        "p99_gap_ms": _p99(gaps),
        "median_gap_ms": statistics.median(gaps) if gaps else 0.0,
        "ticks": len(gaps),
        "rss_gui_base_mb": baseline,
        "rss_gui_mb": _rss_peak(),
        "gui_gc_longest_ms": pauses.longest,
        "gui_gc_full": pauses.full,
        "gc_in_worst_gap_ms": pauses.within(worst_at - worst / 1000, worst_at),
    }
    _log(
        f"  window batch pass: {result['gui_batch_s']:.2f} s; heartbeat worst {result['worst_gap_ms']:.0f} ms, "
        f"p99 {result['p99_gap_ms']:.0f} ms, median {result['median_gap_ms']:.1f} ms ({len(gaps)} ticks); "
        f"longest GC pause {pauses.longest:.0f} ms ({pauses.full} full collections; "
        f"{result['gc_in_worst_gap_ms']:.0f} ms of the worst gap was garbage collection)"
    )
    window.close()
    tmp.cleanup()
    return result


def child_main(args: argparse.Namespace) -> int:
    profile = _Profile(args.profile or "", args.profile_top)
    root = Path(args.child_root)
    if args.child == "engine":
        result = child_engine(root, args.repeat, profile)
    else:
        result = child_gui(root, profile, args.timeout, args.one_window_pass)
    print(json.dumps(result), flush=True)
    return 0


# -- parent --------------------------------------------------------------------------------------

BATCH_FLOOR_S = 1.0
# (key, header, format, kind, floor): kind "extensive" should grow at most linearly with
# the size; "intensive" should stay flat and "rate" too (flagged when it falls faster than
# the size grows).  Growth is flagged only once the larger value is above *floor*: below
# it a ratio of two tiny numbers is noise.
COLUMNS: list[tuple[str, str, str, str, float]] = [
    ("tasks", "tasks", "{:,.0f}", "size", 0),
    ("spec_mb", "spec MB", "{:.1f}", "size", 0),
    ("load_s", "load s", "{:.2f}", "extensive", 0.1),
    ("batch_s", "batch s", "{:.2f}", "extensive", BATCH_FLOOR_S),
    ("tasks_per_s", "tasks/s", "{:.0f}", "rate", 0),
    ("ratio", "ratio to tiktoken", "{:.2f}", "intensive", 0),
    ("open_to_trace_s", "open→first trace s", "{:.2f}", "intensive", 0.2),
    ("gui_batch_s", "window batch s", "{:.2f}", "extensive", 1.0),
    ("worst_gap_ms", "worst GUI gap ms", "{:.0f}", "intensive", 50),
    ("p99_gap_ms", "p99 gap ms", "{:.0f}", "intensive", 50),
    ("gui_gc_longest_ms", "longest GC pause ms", "{:.0f}", "intensive", 50),
    ("open_worst_gap_ms", "worst gap opening ms", "{:.0f}", "intensive", 50),
    ("rss_engine_mb", "peak RSS batch MB", "{:.0f}", "memory", 20),
    ("rss_gui_mb", "peak RSS window MB", "{:.0f}", "memory", 20),
]
BASELINES = {"rss_engine_mb": "rss_base_mb", "rss_gui_mb": "rss_gui_base_mb"}
LIMIT = 1.5  # a column growing more than this times the size ratio is super-linear


def _run_child(kind: str, root: Path, args: argparse.Namespace) -> dict[str, Any]:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", kind, "--child-root", str(root)]
    cmd += ["--repeat", str(args.repeat), "--timeout", str(args.timeout), "--profile-top", str(args.profile_top)]
    if args.profile:
        cmd += ["--profile", args.profile]
    if args.one_window_pass:
        cmd.append("--one-window-pass")
    env = dict(os.environ)
    env.setdefault("QT_QPA_PLATFORM", "offscreen")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH", "")) if p)
    done = subprocess.run(cmd, stdout=subprocess.PIPE, text=True, env=env, check=False)
    lines = [ln for ln in done.stdout.splitlines() if ln.startswith("{")]
    if done.returncode != 0 or not lines:
        raise SystemExit(f"{kind} child failed (exit {done.returncode}) on {root}")
    return json.loads(lines[-1])


def _growth_rows(rows: list[dict[str, Any]], scales: list[float]) -> list[list[str]]:
    out = []
    for i in range(1, len(rows)):
        size = scales[i] / scales[i - 1]
        cells = [f"{scales[i]:g}x/{scales[i - 1]:g}x"]
        for key, _h, _f, kind, floor in COLUMNS:
            a, b = rows[i - 1].get(key), rows[i].get(key)
            if a is None or b is None:
                cells.append("-")
                continue
            if kind == "memory":  # growth above the RSS once the interpreter, Qt and tiktoken are loaded
                a, b = a - rows[i - 1][BASELINES[key]], b - rows[i][BASELINES[key]]
            if a <= 0:
                cells.append("-")
                continue
            g = b / a
            cell = f"{g:.2f}"
            if kind == "rate":  # tasks/s: its noise floor is the batch time's
                if g < 1 / LIMIT and rows[i].get("batch_s", 0) > BATCH_FLOOR_S:
                    cell += " SUPER-LINEAR"
            elif kind != "size" and g > LIMIT * size and max(a, b) > floor:
                cell += " SUPER-LINEAR"
            cells.append(cell)
        out.append(cells)
    return out


def _print_table(header: list[str], body: list[list[str]]) -> None:
    widths = [max(len(r[i]) for r in [header, *body]) for i in range(len(header))]
    print(" | ".join(h.rjust(w) for h, w in zip(header, widths, strict=True)))
    print("-+-".join("-" * w for w in widths))
    for r in body:
        print(" | ".join(c.rjust(w) for c, w in zip(r, widths, strict=True)))


def parent_main(args: argparse.Namespace) -> int:
    from bench_batch import generate

    scales = [float(s) for s in args.scales.split(",") if s.strip()]
    print(
        f"machine: {platform.node()}, {platform.machine()} {platform.system()}, {os.cpu_count()} cpus, "
        f"{platform.python_implementation()} {platform.python_version()}"
    )
    shape = (
        f"{args.base_features:g} features per 1x (features grow with the size)"
        if args.base_features
        else "features: one per 30 tasks, at most 20 (bench_batch's generator)"
    )
    print(
        f"1x = {args.base_tasks} tasks, {args.base_spec_mb:g} MB of specs; {shape}; "
        f"repeat {args.repeat}{'; window skipped' if args.skip_gui else ''}"
    )
    rows: list[dict[str, Any]] = []
    for scale in scales:
        tasks = max(1, round(args.base_tasks * scale))
        spec_mb = args.base_spec_mb * scale
        features = max(1, round(args.base_features * scale)) if args.base_features else None
        with tempfile.TemporaryDirectory() as tmp:
            _log(f"{scale:g}x: generating {tasks} tasks, {spec_mb:g} MB of specs")
            start = time.perf_counter()
            root = generate(Path(tmp) / "project", tasks, spec_mb, features=features)
            spec_bytes = sum(p.stat().st_size for p in root.glob(".gsd/specs/*/*.md"))
            n_features = sum(1 for _ in root.glob(".gsd/specs/*"))
            _log(f"{scale:g}x: generated in {time.perf_counter() - start:.1f} s; engine child")
            row: dict[str, Any] = {"scale": scale, "spec_mb": spec_bytes / 1e6, "features": n_features}
            row.update(_run_child("engine", root, args))
            if not args.skip_gui:
                _log(f"{scale:g}x: window child")
                row.update(_run_child("gui", root, args))
        rows.append(row)
        _log(f"{scale:g}x: {json.dumps(row)}")

    columns = [c for c in COLUMNS if any(c[0] in r for r in rows)]
    header = ["scale"] + [c[1] for c in columns]
    body = [[f"{r['scale']:g}x"] + [c[2].format(r[c[0]]) if c[0] in r else "-" for c in columns] for r in rows]
    print()
    _print_table(header, body)
    if len(rows) > 1:
        print()
        print(
            f"growth from one scale to the next (memory above the RSS before loading); SUPER-LINEAR = more than "
            f"{LIMIT}x the size ratio (tasks/s: falling below 1/{LIMIT}), ignored below a noise floor per column"
        )
        growth = _growth_rows(rows, scales)
        keep = [0] + [i + 1 for i, c in enumerate(COLUMNS) if c in columns]
        _print_table(["growth", *header[1:]], [[g[i] for i in keep] for g in growth])
    print()
    for r in rows:
        print(
            f"{r['scale']:g}x: {r['features']} features, {r['distinct_texts']:,} distinct texts "
            f"({r['distinct_mchars']:.1f} M chars) counted, tiktoken pass {r['tiktoken_s']:.2f} s; engine: RSS "
            f"{r['rss_base_mb']:.0f} MB before loading, longest GC pause {r['gc_longest_ms']:.0f} ms, "
            f"{r['gc_total_s']:.2f} s in GC ({r['gc_full']} full collections)"
        )
        if "open_to_batch_s" in r:
            print(
                f"    window: RSS {r['rss_gui_base_mb']:.0f} MB before opening; the pass started on opening "
                f"ended {r['open_to_batch_s']:.2f} s after open_project, worst gap after the first trace "
                f"{r['first_pass_worst_gap_ms']:.0f} ms; {r['heartbeat_pass']}: heartbeat median "
                f"{r['median_gap_ms']:.1f} ms over {r['ticks']} ticks, {r['gui_gc_full']} full collections, "
                f"{r['gc_in_worst_gap_ms']:.0f} ms of the worst gap in GC"
            )
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scales", default="1,10,100", help="comma-separated scale factors (default 1,10,100)")
    parser.add_argument("--base-tasks", type=int, default=100, help="tasks at 1x (default 100)")
    parser.add_argument("--base-spec-mb", type=float, default=0.3, help="MB of specs at 1x (default 0.3)")
    parser.add_argument(
        "--base-features",
        type=float,
        default=0,
        help="features at 1x, grown with the scale (default: the generator's one per 30 tasks, at most 20)",
    )
    parser.add_argument("--repeat", type=int, default=1, help="runs per timing inside a child; medians (default 1)")
    parser.add_argument("--skip-gui", action="store_true", help="engine measurements only")
    parser.add_argument(
        "--one-window-pass",
        action="store_true",
        help="time the window's batch pass and its heartbeat on the pass started by opening (from the first "
        "trace on) instead of a second, separate cold pass: one pass fewer per size",
    )
    parser.add_argument("--timeout", type=float, default=1800, help="seconds the window child waits for a pass")
    parser.add_argument("--profile", choices=["load", "batch", "open", "gui-batch"], help="cProfile this phase")
    parser.add_argument("--profile-top", type=int, default=25, help="functions listed by --profile")
    parser.add_argument("--child", choices=["engine", "gui"], help=argparse.SUPPRESS)
    parser.add_argument("--child-root", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return child_main(args)
    return parent_main(args)


if __name__ == "__main__":
    sys.exit(main())
