"""What a worker does while it runs: the checkpoint tracker and the files a run writes.

:mod:`.tracker` -- the worker's ContextTracker against the checkpoint threshold;
:mod:`.eventlog` -- following a JSON-lines event log of ctxviewer's own format.

A real run's files (``docs/run-files.md``): :mod:`.workerlog` (worker logs, rotation
included), :mod:`.statefile` (a feature's state: workers, tasks, execution log),
:mod:`.tokenrecords` (tokens per task and section), :mod:`.heartbeats` (a running
worker's last sign of life), found by :mod:`.rundir`, followed
together by :mod:`.fleet` (one frozen snapshot per poll, its scale from :mod:`.fleetconfig`,
the real tracker recomputed by :mod:`.realtracker`), drawn for a terminal by
:mod:`.fleettext` and written as JSON by :mod:`.fleetjson`; :mod:`.problems` and
:mod:`.jsondoc` are what the readers share.
"""
