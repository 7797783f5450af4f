"""A fleet snapshot as plain text for a terminal: a header, then one line per worker.

Each worker's line: its recorded status, a gauge of its recorded ``context_usage`` with the
checkpoint threshold, zone and band, current task, tasks done, the tracker's recomputed
estimate and how long ago its last log line and health check were; ``color`` colours the gauge
by its band.  The columns and an example: ``docs/run-files.md#in-a-terminal``.
"""

from __future__ import annotations

from ctxviewer.engine.runfiles.fleet import FleetSnapshot, WorkerRow
from ctxviewer.engine.wording import plural

GAUGE_CELLS = 20
_ANSI = {"green": "\x1b[32m", "yellow": "\x1b[33m", "red": "\x1b[31m"}
_RESET = "\x1b[0m"


def gauge(usage: float | None, threshold_percent: float, cells: int = GAUGE_CELLS) -> str:
    """``[####....|....]``: *usage* (0-1) in *cells* cells, ``|`` where the threshold falls."""
    if usage is None:
        body = [" "] * cells
    else:
        filled = round(min(max(usage, 0.0), 1.0) * cells)
        body = ["#"] * filled + ["."] * (cells - filled)
    mark = max(0, min(cells - 1, int(threshold_percent / 100 * cells)))
    body[mark] = "|"
    return "[" + "".join(body) + "]"


def ago(moment: float | None, now: float) -> str:
    """``5s ago``, ``3m ago``, ``2h ago``, ``4d ago``; ``-`` for no time; ``in 3s`` for the future."""
    if moment is None:
        return "-"
    seconds = now - moment
    future = seconds < 0
    seconds = abs(seconds)
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            amount = f"{int(seconds // size)}{unit}"
            break
    else:
        amount = f"{int(seconds)}s"
    return f"in {amount}" if future else f"{amount} ago"


def worker_line(row: WorkerRow, now: float, *, color: bool = False, cells: int = GAUGE_CELLS) -> str:
    """One worker as one line (see the module's example)."""
    percent = "   n/a" if row.usage_percent is None else f"{row.usage_percent:5.1f}%"
    bar = gauge(row.context_usage, row.threshold_percent, cells)
    if color and row.band is not None:
        bar = f"{_ANSI[row.band]}{bar}{_RESET}"
        percent = f"{_ANSI[row.band]}{percent}{_RESET}"
    status = row.status or "(log only)"
    if row.stale:
        status += "?"
    status = f"{status:<13}"
    if color and row.status == "crashed":
        status = f"{_ANSI['red']}{status}{_RESET}"
    estimate = "    -" if row.estimate is None else f"{row.estimate.percent:5.1f}%"
    return (
        f"W{row.worker_id:<3} {status}  {bar} {percent} / {row.threshold_percent:g}%  "
        f"{row.zone or '-':<10}  {row.band or '-':<6}  {row.current_task or '-':<12}  "
        f"{row.tasks_done:>3} done  est {estimate}  log {ago(row.last_log, now):<8}  hb {ago(row.last_heartbeat, now)}"
    ).rstrip()


def render_fleet_text(snapshot: FleetSnapshot, *, color: bool = False, cells: int = GAUGE_CELLS) -> str:
    """The whole snapshot: a header line, then one line per worker; ends with a newline."""
    config = snapshot.config
    lines = sum(log.records for log in snapshot.logs)
    header = (
        f"run {snapshot.root}: {plural(len(snapshot.workers), 'worker')}, "
        f"threshold {config.threshold_percent:g}% ({config.threshold_origin}), "
        f"{plural(lines, 'log line')}, {plural(snapshot.problem_count, 'problem')}"
    )
    out = [header]
    if snapshot.events_dropped:
        out.append(
            f"(the earliest {plural(snapshot.events_dropped, 'event')} are not held: "
            f"a follower keeps the latest {len(snapshot.events):,})"
        )
    out += [worker_line(row, snapshot.taken_at, color=color, cells=cells) for row in snapshot.workers]
    if not snapshot.workers:
        out.append("(no workers yet)")
    return "\n".join(out) + "\n"
