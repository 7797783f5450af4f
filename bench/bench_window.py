"""Benchmark: the window's four speed targets, each printed as a median and a 95th percentile.

1. *Cold start*: ``ctxviewer gui PROJECT`` in ``--starts`` fresh processes (the CLI's own
   entry point, offscreen), from spawning the process to the window's first paint done
   (target under 0.5 s), and on to the first task's trace shown in every view.  Bytecode
   is cached as an installed package has it (a private ``PYTHONPYCACHEPREFIX``, one untimed
   warm-up start; this sandbox sets ``PYTHONDONTWRITEBYTECODE``, which would add a
   compilation of every module to each start).  Each start also reports where its time
   went: interpreter, imports, the window built, the first paint.
2. *Click to first results*: a real mouse click on a task in the outline, to the trace
   shown in every view (``traceShown``) and to the paint that follows, ``--clicks`` clicks
   per project over different tasks (target: p95 under 100 ms), and the GUI thread's CPU
   time from the click to that paint (less stretched by other processes on the cores).  On
   the sample projects and a generated one (``--tasks`` tasks, ``--spec-mb`` MB of specs; ``--shape
   nine-section`` for one the nine-section pipeline runs, ``nine_section.py``), once the
   background pass is done and again while it runs: the project opened afresh (no engine
   cache), its first task shown, the pass started, then the clicks one after another (the
   pass gives way to each, so most land on a feature whose specs no run has read yet).
   ``--click-gap-ms`` waits that long after each paint before the next click, as a user
   reading the views does (the pass goes on meanwhile); the default, 0, clicks at once.
3. *The GUI thread never blocked*: a 10 ms heartbeat ``QTimer`` on the GUI thread; its
   worst gap while the background batch pass runs over the generated project (from cold
   caches), while the Session panel follows a worker log that another process writes
   ``--log-rate`` events a second into after a ``--log-mb`` MB backlog, and idle (target:
   no gap over 50 ms).  Sweeps are measured when the window has one (``start_sweep``).
4. *Re-budget in the engine*: ``assemble_task`` after a budget or share change, exact
   counts (what the window runs), on the largest sample spec and a generated
   ``--rebudget-mb`` MB spec (target: median under 16 ms); see ``bench_rebudget.py``.

    python bench/bench_window.py                       # everything (about 3 minutes on 2 cores)
    python bench/bench_window.py --only start,click    # a part
    python bench/bench_window.py --machine "vm, 2 cores"

The machine is named on the first line (``--machine``; by default the host name and the
core count).  Nothing here imports Qt or the package at module level, so a start child
pays exactly what ``ctxviewer gui`` pays.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
sys.path.insert(0, str(BENCH))
import host_speed  # noqa: E402  (from the folder just put on the path)

#: Targets (issue 20): seconds to a shown window, ms click to first results (p95), ms of
#: the worst heartbeat gap, ms re-budget median.
START_TARGET_S = 0.5
CLICK_TARGET_MS = 100.0
GAP_TARGET_MS = 50.0
REBUDGET_TARGET_MS = 16.0
HEARTBEAT_MS = 10


def p95(values: list[float]) -> float:
    """The 95th percentile, nearest rank."""
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered) - 1, -(-95 * len(ordered) // 100) - 1))]


def _stats(values: list[float], unit: str, scale: float = 1.0, digits: int = 0) -> str:
    return (
        f"median {statistics.median(values) * scale:.{digits}f} {unit}, p95 {p95(values) * scale:.{digits}f} {unit}"
        f", max {max(values) * scale:.{digits}f} {unit} (n={len(values)})"
    )


def _verdict(ok: bool) -> str:
    return "meets the target" if ok else "MISSES the target"


# -- 1. cold start (fresh processes) --------------------------------------------------------------


def child_start(project: str) -> None:
    """One ``ctxviewer gui [PROJECT]`` start; prints its marks (perf_counter, one clock for all processes)."""
    marks: dict[str, float] = {"main": time.perf_counter()}
    import ctxviewer.cli.app as cli_app  # what the console script imports
    import ctxviewer.gui.app as gui_app  # the gui command imports it on its way (counted either way)

    marks["imported"] = time.perf_counter()
    from PySide6.QtCore import QEvent, QObject, QTimer

    window_class = gui_app.MainWindow
    built: list[Any] = []

    class Timed(window_class):  # type: ignore[misc, valid-type]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            marks["app"] = time.perf_counter()
            super().__init__(*args, **kwargs)
            marks["window"] = time.perf_counter()
            built.append(self)
            if project:
                self.traceShown.connect(traced)

    def finish() -> None:
        print(json.dumps(marks), flush=True)
        os._exit(0)  # the worker pool may still run: a benchmark child need not wait for it

    class FirstPaint(QObject):
        def eventFilter(self, obj: QObject, event: QEvent) -> bool:
            if event.type() == QEvent.Type.Paint and "paint" not in marks and built and obj is built[0]:
                marks["paint"] = time.perf_counter()
                QTimer.singleShot(0, shown)
            return False

    def shown() -> None:
        marks["shown"] = time.perf_counter()
        if not project:
            finish()

    def traced(_trace: object) -> None:
        marks["trace"] = time.perf_counter()
        if "shown" in marks:
            finish()
        else:
            QTimer.singleShot(0, finish)  # never before the paint (it cannot come after the trace here)

    watcher = FirstPaint()
    make_app = gui_app.make_app

    def timed_make_app(theme: str = "system") -> Any:
        app = make_app(theme)
        app.installEventFilter(watcher)
        QTimer.singleShot(60_000, lambda: os._exit(3))
        return app

    gui_app.make_app = timed_make_app
    gui_app.MainWindow = Timed
    sys.exit(cli_app.main(["gui", project] if project else ["gui"]))


def _start_env(tmp: Path, bytecode: bool = True) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(tmp / "pycache")
    if not bytecode:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        env["PYTHONPYCACHEPREFIX"] = str(tmp / "empty")  # nothing cached: every module compiled
    env["XDG_CONFIG_HOME"] = str(tmp / "config")  # the window's QSettings: not the user's
    env.setdefault("QT_QPA_PLATFORM", "offscreen")
    return env


def one_start(project: str, env: dict[str, str]) -> dict[str, float]:
    spawned = time.perf_counter()
    out = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--child-start", project or "-"],
        env=env,
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
    )
    if out.returncode != 0:
        raise SystemExit(f"start child failed ({out.returncode}): {out.stderr.strip()[-400:]}")
    marks: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    return {key: value - spawned for key, value in marks.items()}


def bench_start(starts: int, projects: list[tuple[str, str]], bytecode: bool = True) -> dict[str, Any]:
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="bench-window-") as tmp:
        env = _start_env(Path(tmp), bytecode)
        one_start("", env)  # untimed: writes the bytecode cache
        for label, project in [("no project", ""), *projects]:
            label = label if bytecode else f"{label}, no bytecode cache"
            runs = [one_start(project, env) for _ in range(starts)]
            shown = [r["shown"] for r in runs]
            parts = {
                "interpreter": [r["main"] for r in runs],
                "imports": [r["imported"] - r["main"] for r in runs],
                "application": [r["app"] - r["imported"] for r in runs],
                "window built": [r["window"] - r["app"] for r in runs],
                "first paint": [r["shown"] - r["window"] for r in runs],
            }
            line = f"cold start ({label}) -> window shown: {_stats(shown, 's', digits=3)}"
            print(f"{line}  [{_verdict(p95(shown) < START_TARGET_S)} < {START_TARGET_S} s at p95]")
            print(
                "    of which (medians): "
                + ", ".join(f"{k} {statistics.median(v) * 1000:.0f} ms" for k, v in parts.items())
            )
            if project:
                trace = [r["trace"] for r in runs]
                print(f"    -> first task's trace shown: {_stats(trace, 's', digits=3)}")
            results[label] = {"shown": shown, **({"trace": [r["trace"] for r in runs]} if project else {})}
    return results


# -- the window, in this process ------------------------------------------------------------------


class Heartbeat:
    """A 10 ms timer on the GUI thread recording the gap (ms) between its ticks."""

    def __init__(self) -> None:
        import gc

        from PySide6.QtCore import Qt, QTimer

        self.gaps: list[float] = []
        #: The longest garbage collection (ms) since start(): it holds the lock every thread needs.
        self.longest_gc = 0.0
        self._gc_began = 0.0
        gc.callbacks.append(self._on_gc)
        self._last = 0.0
        self.timer = QTimer()
        self.timer.setTimerType(Qt.TimerType.PreciseTimer)
        self.timer.setInterval(HEARTBEAT_MS)
        self.timer.timeout.connect(self._tick)

    def _tick(self) -> None:
        now = time.perf_counter()
        self.gaps.append((now - self._last) * 1000)
        self._last = now

    def _on_gc(self, phase: str, _info: dict[str, int]) -> None:
        now = time.perf_counter()
        if phase == "start":
            self._gc_began = now
        elif self._gc_began:
            self.longest_gc = max(self.longest_gc, (now - self._gc_began) * 1000)

    def start(self) -> None:
        self.gaps = []
        self.longest_gc = 0.0
        self._last = time.perf_counter()
        self.timer.start()

    def stop(self) -> list[float]:
        self.timer.stop()
        return self.gaps


def _spin_until(done: Callable[[], bool], timeout_s: float) -> None:
    from PySide6.QtCore import QEventLoop, QTimer

    loop = QEventLoop()
    ticker = QTimer()
    ticker.setInterval(5)
    ticker.timeout.connect(lambda: loop.quit() if done() else None)
    ticker.start()
    QTimer.singleShot(int(timeout_s * 1000), loop.quit)
    if not done():
        loop.exec()
    ticker.stop()
    if not done():
        raise SystemExit(f"timed out after {timeout_s:.0f} s")


def _spin_for(seconds: float) -> None:
    from PySide6.QtCore import QEventLoop, QTimer

    loop = QEventLoop()
    QTimer.singleShot(int(seconds * 1000), loop.quit)
    loop.exec()


def _open(window: Any, root: Path, wait_batch: bool = True) -> None:
    shown: list[object] = []
    window.traceShown.connect(shown.append)
    window.open_project(root)
    _spin_until(lambda: bool(shown), 120)
    window.traceShown.disconnect(shown.append)
    if wait_batch:
        _spin_until(lambda: window.batch.is_settled(), 600)


def _reset_engine_caches() -> None:
    import gc

    from bench_batch import _reset_caches

    _reset_caches()
    gc.collect()


class ClickTimer:
    """Clicks tasks in the outline; times each click to ``traceShown`` and to the paint after it."""

    def __init__(self, window: Any) -> None:
        from PySide6.QtCore import QEvent, QObject

        self.window = window
        self.to_trace: list[float] = []
        self.to_paint: list[float] = []
        #: The GUI thread's CPU time (s) from each click to its paint.
        self.gui_cpu: list[float] = []
        self._clicked = 0.0
        self._cpu_at_click = 0.0
        self._traced = 0.0
        self._painted = False
        timer = self

        class AfterTrace(QObject):
            def eventFilter(self, obj: QObject, event: QEvent) -> bool:
                if timer._traced and not timer._painted and event.type() == QEvent.Type.Paint:
                    timer._painted = True
                    from PySide6.QtCore import QTimer

                    QTimer.singleShot(0, timer._paint_done)
                return False

        self._filter = AfterTrace()
        window.traceShown.connect(self._on_trace)

    def _on_trace(self, _trace: object) -> None:
        if self._clicked and not self._traced:
            self._traced = time.perf_counter()

    def _paint_done(self) -> None:
        self.to_trace.append(self._traced - self._clicked)
        self.to_paint.append(time.perf_counter() - self._clicked)
        self.gui_cpu.append(time.thread_time() - self._cpu_at_click)
        self._clicked = 0.0

    def click(self, feature: str, task_id: str) -> None:
        from PySide6.QtCore import QPoint, Qt
        from PySide6.QtTest import QTest
        from PySide6.QtWidgets import QApplication

        outline = self.window.docks.outline
        at = outline._locate(feature, task_id)
        source = outline.model.index(at[1], 0, outline.model.index(at[0], 0))
        index = outline.proxy.mapFromSource(source)
        outline.tree.scrollTo(index)
        QApplication.processEvents()
        rect = outline.tree.visualRect(index)
        app = QApplication.instance()
        app.installEventFilter(self._filter)
        self._traced, self._painted = 0.0, False
        self._cpu_at_click = time.thread_time()
        self._clicked = time.perf_counter()
        QTest.mouseClick(
            outline.tree.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, QPoint(rect.center())
        )
        _spin_until(lambda: not self._clicked, 60)
        app.removeEventFilter(self._filter)


def _click_targets(project: Any, clicks: int) -> list[tuple[str, str]]:
    """*clicks* tasks, spread over the project's features, never the same one twice in a row."""
    tasks = [(f.name, t.id) for f, t in project.tasks()]
    step = max(1, len(tasks) // clicks) if len(tasks) > clicks else 1
    picked = tasks[::step]
    out: list[tuple[str, str]] = []
    while len(out) < clicks:
        out.extend(picked)
    return out[:clicks]


def bench_clicks(window: Any, roots: list[tuple[str, Path]], clicks: int, gap_ms: int = 0) -> dict[str, Any]:
    results: dict[str, Any] = {}
    timer = ClickTimer(window)
    for label, root in roots:
        for phase in ("pass done", "during the pass"):
            if phase == "during the pass":
                # As after opening the project: its first task shown (the project's sources
                # parsed for the map on the way), every other feature's specs and texts not
                # yet read or counted, the pass started and not far in.
                _reset_engine_caches()
                _open(window, root, wait_batch=False)
                _spin_until(lambda: window.lanes.batch.is_busy(), 60)
            else:
                _open(window, root, wait_batch=True)
            targets = _click_targets(window.project, clicks)
            # Start from the second target so no click lands on the task shown already.
            targets = targets[1:] + targets[:1] if targets[0] == window.current else targets
            timer.to_trace, timer.to_paint, timer.gui_cpu = [], [], []
            for feature, task_id in targets:
                if phase == "during the pass" and window.batch.is_settled():
                    break
                if (feature, task_id) == window.current:
                    continue
                timer.click(feature, task_id)
                if gap_ms:
                    _spin_for(gap_ms / 1000)
            _spin_until(lambda: window.batch.is_settled(), 600)
            if not timer.to_trace:
                continue
            ok = p95(timer.to_paint) * 1000 < CLICK_TARGET_MS
            gap = f", {gap_ms} ms apart" if gap_ms else ""
            print(
                f"click a task ({label}, {phase}{gap}) -> views filled: {_stats(timer.to_trace, 'ms', 1000)}; "
                f"-> painted: {_stats(timer.to_paint, 'ms', 1000)}  [{_verdict(ok)} < {CLICK_TARGET_MS:.0f} ms at p95]"
            )
            print(f"    the GUI thread's CPU, click -> painted: {_stats(timer.gui_cpu, 'ms', 1000)}")
            results[f"{label}, {phase}"] = {"trace": timer.to_trace, "paint": timer.to_paint, "cpu": timer.gui_cpu}
    return results


def _gap_line(what: str, gaps: list[float], extra: str = "", longest_gc: float = 0.0) -> str:
    worst = max(gaps, default=0.0)
    return (
        f"heartbeat ({what}): worst gap {worst:.0f} ms, p99 {sorted(gaps)[int(len(gaps) * 0.99)]:.0f} ms, "
        f"median {statistics.median(gaps):.1f} ms over {len(gaps)} ticks{extra}; "
        f"longest collection {longest_gc:.0f} ms  "
        f"[{_verdict(worst <= GAP_TARGET_MS)}: no gap over {GAP_TARGET_MS:.0f} ms]"
    )


def _write_log(path: Path, mb: float, t0: float) -> int:
    """A worker event log of about *mb* MB (file reads, tool calls, tasks); returns its events."""
    lines: list[str] = []
    size = 0
    n = 0
    while size < mb * 1_000_000:
        if n % 25 == 0:
            line = json.dumps({"ts": t0 + n, "event": "task_executed", "id": f"T-{n // 25:04d}"})
        elif n % 5 == 0:
            line = json.dumps({"ts": t0 + n, "event": "tool_call", "count": 1 + n % 3})
        else:
            line = json.dumps(
                {"ts": t0 + n, "event": "file_read", "path": f"src/mod_{n % 97}.py", "size": 800 + n % 4000}
            )
        lines.append(line)
        size += len(line) + 1
        n += 1
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return n


LOG_WRITER = """
import json, sys, time
path, rate, seconds, t0 = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
end = time.monotonic() + seconds
n = 0
with open(path, "a", encoding="utf-8") as out:
    while time.monotonic() < end:
        for _ in range(max(1, int(rate / 20))):
            event = {"ts": t0 + n, "event": "file_read", "path": f"src/w{n % 50}.py", "size": 1200}
            out.write(json.dumps(event) + "\\n")
            n += 1
        out.flush()
        time.sleep(0.05)
"""


def bench_heartbeat(window: Any, big: Path, args: argparse.Namespace) -> dict[str, Any]:
    results: dict[str, Any] = {}
    beat = Heartbeat()
    _open(window, big, wait_batch=True)
    beat.start()
    _spin_for(2.0)
    idle = beat.stop()
    print(_gap_line("idle, 2 s", idle, longest_gc=beat.longest_gc))
    results["idle"] = idle

    if args.log_only:
        return bench_log(window, beat, args, results)
    # The background pass, from cold engine caches, as after a budget change on a fresh start.
    _reset_engine_caches()
    beat.start()
    started = time.perf_counter()
    window.start_batch()
    _spin_until(lambda: window.batch.is_settled(), 900)
    seconds = time.perf_counter() - started
    gaps = beat.stop()
    n = len(window.project.tasks())
    print(_gap_line("batch pass", gaps, f" ({n:,} tasks in {seconds:.1f} s)", longest_gc=beat.longest_gc))
    results["batch pass"] = gaps

    # Opening the project again: load, first trace, then the pass it starts.
    _reset_engine_caches()
    beat.start()
    _open(window, big, wait_batch=True)
    gaps = beat.stop()
    print(_gap_line("open + first trace + its pass", gaps, longest_gc=beat.longest_gc))
    results["open and pass"] = gaps

    if hasattr(window, "start_sweep"):
        beat.start()
        window.start_sweep()
        _spin_until(lambda: window.is_settled(), 900)
        gaps = beat.stop()
        print(_gap_line("sweep", gaps, longest_gc=beat.longest_gc))
        results["sweep"] = gaps
    else:
        print("heartbeat (sweep): not measured -- this window has no sweep (start_sweep)")

    if args.skip_log:
        return results
    return bench_log(window, beat, args, results)


def bench_log(window: Any, beat: Heartbeat, args: argparse.Namespace, results: dict[str, Any]) -> dict[str, Any]:
    """Following a worker log: a backlog read in bounded polls, then lines as another process writes them."""
    with tempfile.TemporaryDirectory(prefix="bench-window-log-") as tmp:
        log = Path(tmp) / "worker.jsonl"
        t0 = 1_790_000_000.0
        events = _write_log(log, args.log_mb, t0)
        beat.start()
        started = time.perf_counter()
        window.following.follow_log(log)
        _spin_until(
            lambda: window.docks.session.live.last_poll is not None and not window.docks.session.live.last_poll.more,
            300,
        )
        catch_up = time.perf_counter() - started
        backlog = beat.stop()
        print(
            _gap_line(
                f"log follow, {args.log_mb:g} MB backlog",
                backlog,
                f" ({events:,} events read in {catch_up:.1f} s)",
                longest_gc=beat.longest_gc,
            )
        )
        writer = subprocess.Popen(
            [sys.executable, "-c", LOG_WRITER, str(log), str(args.log_rate), str(args.log_seconds), str(t0 + events)]
        )
        _spin_for(0.5)  # the writer's interpreter starting takes a core of two: not the window's doing
        beat.start()
        _spin_for(args.log_seconds - 0.5)
        writer.wait(30)
        _spin_for(1.2)  # the last poll
        live = beat.stop()
        print(
            _gap_line(
                f"log follow, {args.log_rate:g} events/s written for {args.log_seconds:g} s",
                live,
                longest_gc=beat.longest_gc,
            )
        )
        window.following.stop()
        results["log backlog"] = backlog
        results["log live"] = live
    return results


def bench_window_parts(args: argparse.Namespace, parts: set[str]) -> dict[str, Any]:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    import nine_section
    from bench_batch import generate
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from ctxviewer.gui.app import make_app
    from ctxviewer.gui.window import MainWindow

    app = QApplication.instance() or make_app("light")
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="bench-window-") as tmp:
        settings = QSettings(str(Path(tmp) / "s.ini"), QSettings.Format.IniFormat)
        window = MainWindow(settings)
        window.resize(1280, 800)
        window.show()
        app.processEvents()
        if args.shape == "nine-section":
            big = nine_section.generate(
                Path(tmp) / "generated", args.tasks, 20, args.sources, args.spec_mb, sources_from=args.sources_from
            )
            label = f"generated nine-section, {args.tasks:,} tasks, {args.sources} sources, {args.spec_mb:g} MB"
            if args.sources_from:
                label += " (real, from " + ", ".join(str(d) for d in args.sources_from) + ")"
        else:
            big = generate(Path(tmp) / "generated", args.tasks, args.spec_mb)
            label = f"generated, {args.tasks:,} tasks, {args.spec_mb:g} MB"
        if "click" in parts:
            wanted = [name.strip() for name in args.click_projects.split(",") if name.strip()]
            roots = [(label, big) if name == "generated" else _click_root(name) for name in wanted]
            results["click"] = bench_clicks(window, roots, args.clicks, args.click_gap_ms)
        if "heartbeat" in parts:
            results["heartbeat"] = bench_heartbeat(window, big, args)
        window.close()
    return results


def _click_root(name: str) -> tuple[str, Path]:
    """A ``--click-projects`` entry: a sample's name, or a project folder (a path with a slash:
    a real repository, say), labelled by its folder's name."""
    if "/" in name:
        return f"{Path(name).name} (project folder)", Path(name).resolve()
    return name, REPO / "sample_projects" / name


def bench_rebudget(args: argparse.Namespace) -> dict[str, Any]:
    from bench_batch import generate
    from bench_rebudget import _largest_sample, _measure

    from ctxviewer.engine.project.loading import load_project
    from ctxviewer.engine.tokens import counting as tokens

    for name in tokens.EXACT_ENCODINGS:
        tokens.load_encoding(name)
    results: dict[str, Any] = {}
    sample, feature_name = _largest_sample()
    project = load_project(sample)
    cases = [(f"{sample.name} {feature_name}", project, project.feature(feature_name))]
    with tempfile.TemporaryDirectory() as tmp:
        root = generate(Path(tmp) / "project", 30, args.rebudget_mb)
        generated = load_project(root)
        cases.append((f"generated, {args.rebudget_mb:g} MB spec", generated, generated.features[0]))
        for label, proj, feature in cases:
            cold, median, high = _measure(proj, feature, True, args.rebudgets, "mahabharatha")
            print(
                f"re-budget in the engine ({label}, exact counts): median {median * 1000:.1f} ms, "
                f"p95 {high * 1000:.1f} ms (cold first run {cold * 1000:.0f} ms, n={args.rebudgets})  "
                f"[{_verdict(median * 1000 < REBUDGET_TARGET_MS)} < {REBUDGET_TARGET_MS:.0f} ms median]"
            )
            results[label] = {"median": median, "p95": high}
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", default="start,click,heartbeat,rebudget", help="comma-separated parts to run")
    parser.add_argument("--machine", default=f"{platform.node()}, {os.cpu_count()} cores")
    parser.add_argument("--starts", type=int, default=9, help="fresh processes per start case")
    parser.add_argument("--no-bytecode", action="store_true", help="also start without cached bytecode")
    parser.add_argument("--clicks", type=int, default=40, help="clicks per project and phase")
    parser.add_argument(
        "--click-gap-ms", type=int, default=0, help="wait this long after each click's paint before the next"
    )
    parser.add_argument(
        "--click-projects",
        default="ledger-service,edge-cases,generated",
        help="sample names, 'generated' and/or project folders (a path with a '/': ./my-project)",
    )
    parser.add_argument("--tasks", type=int, default=700)
    parser.add_argument("--spec-mb", type=float, default=2.0)
    parser.add_argument(
        "--shape",
        choices=("seed", "nine-section"),
        default="seed",
        help="the generated project: bench_batch.py's (the seed's pipeline) or nine_section.py's (zerg-0.3.2, "
        "engineering rules in YAML, --sources sources for the repository map)",
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
    parser.add_argument("--skip-log", action="store_true", help="no log-follow heartbeat")
    parser.add_argument("--log-only", action="store_true", help="of the heartbeats, only the log follow")
    parser.add_argument("--log-mb", type=float, default=5.0)
    parser.add_argument("--log-rate", type=float, default=2000.0, help="events a second the writer appends")
    parser.add_argument("--log-seconds", type=float, default=5.0)
    parser.add_argument("--rebudget-mb", type=float, default=5.0)
    parser.add_argument("--rebudgets", type=int, default=100)
    parser.add_argument("--child-start", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child_start is not None:
        child_start("" if args.child_start == "-" else args.child_start)
        return 0
    parts = {p.strip() for p in args.only.split(",") if p.strip()}
    print(
        f"machine: {args.machine} ({platform.machine()} {platform.system()}, "
        f"{platform.python_implementation()} {platform.python_version()}); offscreen Qt; {_load()}"
    )
    print(host_speed.describe())
    if "start" in parts:
        bench_start(args.starts, [("ledger-service", str(REPO / "sample_projects" / "ledger-service"))])
        if args.no_bytecode:
            bench_start(args.starts, [], bytecode=False)
    if parts & {"click", "heartbeat"}:
        bench_window_parts(args, parts)
    if "rebudget" in parts:
        bench_rebudget(args)
    print(f"at the end: {_load()}")
    return 0


def _load() -> str:
    """The load average: other processes on the cores stretch every figure above (and its tail most)."""
    one, five, _ = os.getloadavg()
    return f"load average {one:.1f} (1 min), {five:.1f} (5 min) on {os.cpu_count()} cores"


if __name__ == "__main__":
    threading.current_thread().name = "bench"
    sys.exit(main())
