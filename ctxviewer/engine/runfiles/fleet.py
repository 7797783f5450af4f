"""The fleet of a real run: one frozen snapshot per poll of every worker's recorded state.

:class:`RunWatcher` owns a reader per file of the run and, on each :meth:`~RunWatcher.poll`,
reads what changed and returns a :class:`FleetSnapshot`: per worker its recorded status and
``context_usage`` against the threshold (:mod:`.fleetconfig`), beside ctxviewer's
recomputation of the real tracker (:mod:`.realtracker`), and the run's events.
:func:`follow_run` and :func:`read_run` poll it live and once.  ``docs/run-files.md#the-fleet``.
"""

from __future__ import annotations

import bisect
import math
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace

from ctxviewer.engine.files.reading import ProjectFS
from ctxviewer.engine.runfiles.fleetconfig import FleetConfig, read_fleet_config, upstream_band, zone_of
from ctxviewer.engine.runfiles.heartbeats import HeartbeatReader
from ctxviewer.engine.runfiles.problems import RunProblem, worker_order
from ctxviewer.engine.runfiles.realtracker import TrackerEstimate, tracker_estimate
from ctxviewer.engine.runfiles.rundir import RunFiles, rescan, scan_signature
from ctxviewer.engine.runfiles.statefile import (
    CHECKPOINT_EVENT,
    LIVE_STATUSES,
    ExecutionEvent,
    FeatureState,
    StateFileReader,
)
from ctxviewer.engine.runfiles.tokenrecords import TokenRecord, TokenRecordReader
from ctxviewer.engine.runfiles.workerlog import (
    PROCESS_START,
    TASK_COMPLETED,
    LogPoll,
    LogRecord,
    RecordFold,
    WorkerLogReader,
)

#: A worker recorded as live with no log line and no health check for this long is shown as
#: stale, its estimate's clock stopped at its last sign of life (upstream's default worker
#: timeout, ``workers.timeout_minutes``, is 60 minutes).
STALE_AFTER_SECONDS = 3600.0
#: Events a watcher holds (the latest; older ones are counted in ``events_dropped``): with the
#: log readers keeping no records, this is what bounds a follower's memory (docs/run-files.md).
MAX_EVENTS = 50_000
#: New events a poll inserts one by one into those held; more are merged by one sort.
_FEW_EVENTS = 16


@dataclass(frozen=True, slots=True)
class RunEvent:
    """One thing that happened: a log line's task event, or an entry of a state file's execution log."""

    time: float | None
    worker_id: str | None
    event: str
    task_id: str | None
    source: str
    """``log`` or ``state``."""
    file: str
    line: int
    """The log line, or the execution-log index + 1 for a state event."""


@dataclass(frozen=True, slots=True)
class WorkerRow:
    """One worker of the fleet.  Values the files do not give are None."""

    worker_id: str
    feature: str | None
    status: str | None
    """As recorded in the state file (``running``, ``checkpointing``, ``crashed``, ``stopped``...)."""
    context_usage: float | None
    """Recorded, 0-1 (the state file's ``context_usage``)."""
    threshold_percent: float
    zone: str | None
    """The highest zone line the recorded usage reached (ctxviewer's tracker zones)."""
    band: str | None
    """Upstream's dashboard colour for the recorded usage."""
    current_task: str | None
    tasks_done: int
    """``task_completed`` events of this worker in its log (every process)."""
    tasks_in_process: int | None
    """The state file's ``tasks_completed``: tasks of the current process."""
    checkpoints: int
    """``worker_checkpoint`` entries for this worker in the execution log."""
    last_heartbeat: float | None
    """The latest of its heartbeat file's ``timestamp`` and the state file's ``health_check_at``."""
    last_log: float | None
    process_started: float | None
    estimate: TrackerEstimate | None
    log_file: str | None = None
    state_file: str | None = None
    stale: bool = False
    """Recorded as live, but silent (no log line, no health check) for :data:`STALE_AFTER_SECONDS`."""

    @property
    def usage_percent(self) -> float | None:
        """The recorded usage in percent (None when none is recorded)."""
        return None if self.context_usage is None else self.context_usage * 100


@dataclass(frozen=True, slots=True)
class LogSummary:
    """One worker log as read so far."""

    file: str
    records: int
    tasks_executed: int
    """Its ``task_completed`` events."""
    pending_line: int | None
    """A last line held back until its newline arrives."""


@dataclass(frozen=True, slots=True)
class FleetSnapshot:
    """Everything a poll found, frozen: what a fleet view or ``follow`` draws."""

    sequence: int
    taken_at: float
    root: str
    config: FleetConfig
    workers: tuple[WorkerRow, ...]
    logs: tuple[LogSummary, ...]
    token_records: tuple[TokenRecord, ...]
    events: tuple[RunEvent, ...]
    """Every event so far, in time order (events without a time last), the latest
    :data:`MAX_EVENTS` of them."""
    new_events: tuple[RunEvent, ...]
    new_problems: tuple[RunProblem, ...]
    problem_count: int
    changed: bool
    more: bool
    """A log stopped at its read limit: poll again soon."""
    events_dropped: int = 0
    """Events left out of :attr:`events` (the earliest), over :data:`MAX_EVENTS`."""


@dataclass(slots=True)
class _WorkerFacts:
    """What a log says about one worker, kept up to date record by record."""

    last_time: float | None = None
    feature: str | None = None
    started: float | None = None
    tasks_since_start: int = 0
    tasks_total: int = 0
    seen_start: bool = False

    def add(self, record: LogRecord) -> None:
        if record.time is not None:
            self.last_time = record.time if self.last_time is None else max(self.last_time, record.time)
        if record.feature is not None:
            self.feature = record.feature
        if record.message is not None and PROCESS_START.match(record.message):
            self.started, self.tasks_since_start, self.seen_start = record.time, 0, True
        if record.event == TASK_COMPLETED:
            self.tasks_total += 1
            self.tasks_since_start += 1


def _event_of(record: LogRecord) -> RunEvent | None:
    if record.event is None:
        return None
    return RunEvent(record.time, record.worker, record.event, record.task_id, "log", record.file, record.line)


@dataclass(slots=True)
class _LogState(RecordFold):
    """One worker log's facts, counted record by record as its reader polls (:meth:`take`)."""

    reader: WorkerLogReader
    facts: dict[str, _WorkerFacts] = field(default_factory=dict)
    count: int = 0
    events: deque[RunEvent] = field(default_factory=lambda: deque(maxlen=MAX_EVENTS))
    event_count: int = 0
    """Events folded, including those the bounded :attr:`events` no longer holds."""
    fresh: list[RunEvent] = field(default_factory=list)
    """Events of the records taken since the last :meth:`take`."""

    def record(self, record: LogRecord) -> None:
        worker = record.worker or "?"
        facts = self.facts.get(worker)
        if facts is None:
            facts = self.facts[worker] = _WorkerFacts()
        facts.add(record)
        self.count += 1
        event = _event_of(record)
        if event is not None:
            self.fresh.append(event)

    def plain(self, worker: str, time: float, feature: str) -> None:
        facts = self.facts.get(worker)
        if facts is None:
            facts = self.facts[worker] = _WorkerFacts()
        last = facts.last_time
        if last is None or time > last:
            facts.last_time = time
        facts.feature = feature
        self.count += 1

    def take(self) -> list[RunEvent]:
        """The events taken since the last call; they are not held yet (see :meth:`hold`)."""
        fresh, self.fresh = self.fresh, []
        return fresh

    def hold(self, events: list[RunEvent]) -> None:
        self.events.extend(events)
        self.event_count += len(events)

    def fold(self, records: Iterable[LogRecord]) -> list[RunEvent]:
        for record in records:
            self.record(record)
        new = self.take()
        self.hold(new)
        return new

    def rebuild(self) -> None:
        self.facts.clear()
        self.count = self.event_count = 0
        self.events.clear()
        self.fresh.clear()
        self.fold(self.reader.replay())


def _state_event(event: ExecutionEvent, file: str) -> RunEvent:
    return RunEvent(event.time, event.worker_id, event.event or "?", event.task_id, "state", file, event.index + 1)


def _time_key(event: RunEvent) -> float:
    """Time order, events without a time last: every time is finite (a plausible one), so
    infinity stands after them all, as (time is None, time) put them, and costs no tuple."""
    time = event.time
    return math.inf if time is None else time


def _merge(joined: list[RunEvent], new: list[RunEvent]) -> None:
    """Put *new* (in time order) into *joined* (in time order), each after the events of its time.

    A few are inserted one by one (mostly later than everything: appended); more, as when a
    log is read whole, by one stable sort, which gives the same list (held events first on a tie).
    """
    if len(new) <= _FEW_EVENTS:
        for event in new:
            if not joined or _time_key(joined[-1]) <= _time_key(event):
                joined.append(event)
            else:
                bisect.insort_right(joined, event, key=_time_key)
        return
    unsorted = bool(joined) and _time_key(joined[-1]) > _time_key(new[0])
    joined.extend(new)
    if unsorted:
        joined.sort(key=_time_key)


class RunWatcher:
    """Follows every file of a run; each :meth:`poll` returns a :class:`FleetSnapshot`."""

    def __init__(self, run: RunFiles, config: FleetConfig | None = None) -> None:
        self.run = run
        self.fs = ProjectFS(run.root)
        config_problems: tuple[RunProblem, ...] = ()
        if config is None:
            config, config_problems = read_fleet_config(run)
        self.config = config
        self._pending_problems = list(config_problems)
        self._config_problems = len(config_problems)
        self._logs: list[_LogState] = []
        self._states: list[StateFileReader] = []
        self._tokens: list[TokenRecordReader] = []
        self._beats: list[HeartbeatReader] = []
        self._adopt(run)
        self._scanned = scan_signature(run)
        self._state_events: dict[str, list[RunEvent]] = {}
        self._all_events: list[RunEvent] = []
        self._events: tuple[RunEvent, ...] = ()
        self._dropped = 0
        self._sequence = 0

    def _adopt(self, run: RunFiles) -> None:
        """Start following the files of *run* not followed yet."""
        known = {log.reader.rel for log in self._logs}
        self._logs += [_LogState(WorkerLogReader(self.fs, rel)) for rel in run.worker_logs if rel not in known]
        known = {reader.rel for reader in self._states}
        self._states += [StateFileReader(self.fs, rel) for rel in run.state_files if rel not in known]
        known = {reader.rel for reader in self._tokens}
        self._tokens += [TokenRecordReader(self.fs, rel) for rel in run.token_records if rel not in known]
        known = {reader.rel for reader in self._beats}
        self._beats += [HeartbeatReader(self.fs, rel) for rel in run.heartbeats if rel not in known]
        self.run = run

    @property
    def tracker_records(self) -> tuple[LogRecord, ...]:
        """The worker-log records a tracker replay needs, log by log
        (:attr:`~.workerlog.WorkerLogReader.tracker_records`)."""
        return tuple(r for log in self._logs for r in log.reader.tracker_records)

    def replay(self) -> Iterator[LogRecord]:
        """Every worker-log record read so far that is still on disk, log by log, read again."""
        for log in self._logs:
            yield from log.reader.replay()

    def poll(self, now: float | None = None, *, finish: bool = False) -> FleetSnapshot:
        """Read what changed; *now* (epoch seconds) is the clock of live workers' estimates.

        *finish* takes every log's held-back last line as complete: for a run read once
        whose writers are done (``follow --once``).
        """
        taken = time.time() if now is None else now
        problems = self._pending_problems
        self._pending_problems = []
        new_events: list[RunEvent] = []
        changed = bool(problems)
        more = False
        scanned = scan_signature(self.run)
        if scanned != self._scanned:  # a file was added, renamed or removed: a new worker's log?
            self._scanned = scanned
            self._adopt(rescan(self.run))
        rebuild = False  # events went or changed: sort them all again
        for log in self._logs:
            counted = log.count
            result = log.reader.poll(log)  # the records go to log as they are read
            if finish and not result.more:
                finished = log.reader.finish(log)
                result = LogPoll((), result.problems + finished.problems, result.restarted, False)
            problems.extend(result.problems)
            more = more or result.more
            read = log.count > counted
            fresh = log.take()
            if result.restarted or log.count != log.reader.record_count:
                log.rebuild()  # records went (truncated, replaced, rotated away): count again
                rebuild = True
            else:
                log.hold(fresh)
            new_events.extend(fresh)
            changed = changed or read or result.restarted
        for reader in self._states:
            state_poll = reader.poll()
            problems.extend(state_poll.problems)
            if state_poll.changed and state_poll.state is not None:
                changed = True
                before = self._state_events.get(reader.shown, [])
                fresh = [_state_event(e, reader.shown) for e in state_poll.new_events]
                if len(before) + len(fresh) == len(state_poll.state.execution_log):
                    before.extend(fresh)  # appended, as upstream does
                else:
                    rebuild = True
                    before = [_state_event(e, reader.shown) for e in state_poll.state.execution_log]
                self._state_events[reader.shown] = before
                new_events.extend(fresh)
        for token_reader in self._tokens:
            token_poll = token_reader.poll()
            problems.extend(token_poll.problems)
            changed = changed or token_poll.changed
        for beat_reader in self._beats:
            beat, beat_problems = beat_reader.poll()
            problems.extend(beat_problems)
            changed = changed or beat
        new_events.sort(key=_time_key)
        if rebuild:
            everything = [e for log in self._logs for e in log.events]
            for events in self._state_events.values():
                everything.extend(events)
            everything.sort(key=_time_key)
            held = sum(log.event_count for log in self._logs) + sum(map(len, self._state_events.values()))
            del everything[: max(0, len(everything) - MAX_EVENTS)]
            self._dropped = held - len(everything)
            self._all_events = everything
            self._events = tuple(everything)
        elif new_events:
            joined = self._all_events
            _merge(joined, new_events)
            over = len(joined) - MAX_EVENTS
            if over > 0:
                del joined[:over]
                self._dropped += over
            self._events = tuple(joined)
        self._sequence += 1
        return FleetSnapshot(
            sequence=self._sequence,
            taken_at=taken,
            root=str(self.run.root),
            config=self.config,
            workers=self._rows(taken),
            logs=tuple(
                LogSummary(
                    log.reader.shown,
                    log.count,
                    sum(f.tasks_total for f in log.facts.values()),
                    log.reader.pending_line,
                )
                for log in self._logs
            ),
            token_records=tuple(r.record for r in self._tokens if r.record is not None),
            events=self._events,
            new_events=tuple(new_events),
            new_problems=tuple(problems),
            problem_count=self.problem_count,
            changed=changed,
            more=more,
            events_dropped=self._dropped,
        )

    @property
    def problem_count(self) -> int:
        """Every problem so far, including those not kept."""
        return (
            sum(log.reader.problems.count for log in self._logs)
            + sum(r.problems.count for r in self._states)
            + sum(r.problems.count for r in self._tokens)
            + sum(r.problems.count for r in self._beats)
            + self._config_problems
        )

    # -- rows ----------------------------------------------------------------------------

    def _rows(self, now: float) -> tuple[WorkerRow, ...]:
        facts: dict[str, tuple[_WorkerFacts, str]] = {}
        for log in self._logs:
            for worker, known in log.facts.items():
                if worker in ("orchestrator", "?"):
                    continue
                # A worker in two logs (both layouts, say): the one it wrote to last.
                seen = facts.get(worker)
                if seen is None or (known.last_time or 0.0) > (seen[0].last_time or 0.0):
                    facts[worker] = (known, log.reader.shown)
        beats: dict[str, float] = {}
        for beat_reader in self._beats:
            beat = beat_reader.heartbeat
            if beat is not None and beat.time is not None:
                beats[beat.worker_id] = max(beat.time, beats.get(beat.worker_id, beat.time))
        checkpoints: dict[str, int] = {}
        for events in self._state_events.values():
            for event in events:
                if event.event == CHECKPOINT_EVENT and event.worker_id is not None:
                    checkpoints[event.worker_id] = checkpoints.get(event.worker_id, 0) + 1
        rows: list[WorkerRow] = []
        placed: set[str] = set()
        # A worker in several features' files: the most recently written file's entry wins.
        for reader in sorted(self._states, key=lambda r: -(r.modified or 0)):
            state: FeatureState | None = reader.state
            if state is None:
                continue
            for ws in state.workers:
                if ws.worker_id in placed:
                    continue
                placed.add(ws.worker_id)
                found = facts.get(ws.worker_id)
                fact: _WorkerFacts | None = None if found is None else found[0]
                log_file = None if found is None else found[1]
                usage = ws.context_usage
                started = fact.started if fact is not None and fact.seen_start else ws.started_at
                tasks = (
                    fact.tasks_since_start
                    if fact is not None and fact.seen_start
                    else (ws.tasks_completed if ws.tasks_completed is not None else 0)
                )
                last_log = None if fact is None else fact.last_time
                heartbeat = _latest(beats.get(ws.worker_id), ws.health_check_at)
                signs = [t for t in (last_log, heartbeat) if t is not None]
                last_sign = max(signs) if signs else None
                live = ws.status in LIVE_STATUSES
                stale = live and last_sign is not None and now - last_sign > STALE_AFTER_SECONDS
                if live and not stale:
                    at = now
                else:  # the process ended (or went silent): its tracker's clock stopped then
                    at = last_log if last_log is not None else (last_sign if last_sign is not None else now)
                rows.append(
                    WorkerRow(
                        worker_id=ws.worker_id,
                        feature=state.feature,
                        status=ws.status,
                        context_usage=usage,
                        threshold_percent=self.config.threshold_percent,
                        zone=None if usage is None else zone_of(usage * 100, self.config),
                        band=None if usage is None else upstream_band(usage),
                        current_task=ws.current_task,
                        tasks_done=0 if fact is None else fact.tasks_total,
                        tasks_in_process=ws.tasks_completed,
                        checkpoints=checkpoints.get(ws.worker_id, 0),
                        last_heartbeat=heartbeat,
                        last_log=last_log,
                        process_started=started,
                        estimate=None
                        if started is None
                        else tracker_estimate(tasks, started, at, self.config.max_tokens),
                        log_file=log_file,
                        state_file=reader.shown,
                        stale=stale,
                    )
                )
        for worker_id, (only_log, log_file) in facts.items():
            if worker_id in placed:
                continue
            # Only a log names this worker: no recorded status or gauge; the clock stops at its last record.
            at = only_log.last_time if only_log.last_time is not None else now
            rows.append(
                WorkerRow(
                    worker_id=worker_id,
                    feature=only_log.feature,
                    status=None,
                    context_usage=None,
                    threshold_percent=self.config.threshold_percent,
                    zone=None,
                    band=None,
                    current_task=None,
                    tasks_done=only_log.tasks_total,
                    tasks_in_process=None,
                    checkpoints=checkpoints.get(worker_id, 0),
                    last_heartbeat=beats.get(worker_id),
                    last_log=only_log.last_time,
                    process_started=only_log.started,
                    estimate=None
                    if only_log.started is None
                    else tracker_estimate(only_log.tasks_since_start, only_log.started, at, self.config.max_tokens),
                    log_file=log_file,
                )
            )
        return tuple(sorted(rows, key=lambda r: worker_order(r.worker_id)))


def _latest(*moments: float | None) -> float | None:
    known = [m for m in moments if m is not None]
    return max(known) if known else None


def read_run(run: RunFiles, now: float | None = None, config: FleetConfig | None = None) -> FleetSnapshot:
    """Read a run once, whole: poll until every log is read, last lines taken as complete."""
    watcher = RunWatcher(run, config)
    problems: list[RunProblem] = []
    snapshot = watcher.poll(now)
    while True:
        problems.extend(snapshot.new_problems)
        if not snapshot.more:
            break
        snapshot = watcher.poll(now)
    final = watcher.poll(now, finish=True)
    problems.extend(final.new_problems)
    # Read whole and at once, every event held is new (the held ones: memory stays bounded).
    return replace(final, new_problems=tuple(problems), new_events=final.events, changed=True)


def follow_run(
    run: RunFiles,
    *,
    interval: float = 1.0,
    stop: threading.Event | None = None,
    config: FleetConfig | None = None,
    clock: Callable[[], float] = time.time,
) -> Iterator[FleetSnapshot]:
    """Snapshots of *run* as it changes: one per poll, polls *interval* seconds apart.

    A poll that stopped at a log's read limit is followed by the next at once.  The wait is
    on *stop* (a ``threading.Event``), so setting it ends the generator without waiting
    out the interval; so does closing the generator.  *clock* gives each poll's ``now``.
    """
    watcher = RunWatcher(run, config)
    stop = stop or threading.Event()
    while not stop.is_set():
        snapshot = watcher.poll(clock())
        yield snapshot
        if not snapshot.more:
            stop.wait(interval)
