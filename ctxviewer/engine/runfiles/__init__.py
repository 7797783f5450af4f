"""The files a real upstream run writes, read as they grow (``docs/run-files.md``).

:mod:`.workerlog` (worker logs, rotation included), :mod:`.statefile` (a feature's state:
workers, tasks, execution log), :mod:`.tokenrecords` (tokens per task and section),
:mod:`.heartbeats` (a running worker's last sign of life), found by :mod:`.rundir`, followed
together by :mod:`.fleet` (one frozen snapshot per poll, its scale from :mod:`.fleetconfig`,
the real tracker recomputed by :mod:`.realtracker`); :mod:`.problems`, :mod:`.jsondoc` and
:mod:`.plausible` are what the readers share.  The window's log viewer keeps its rows in
:mod:`.logstore`, fed by :mod:`.logpieces`.  A log is tailed by
:mod:`ctxviewer.engine.files.tail`; a snapshot is written out by
:mod:`ctxviewer.engine.exports.fleet_text` and :mod:`ctxviewer.engine.exports.fleet_json`.
"""
