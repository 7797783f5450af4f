"""What a worker does while it runs: the checkpoint tracker and the files a run writes.

:mod:`.tracker` -- the worker's ContextTracker against the checkpoint threshold;
:mod:`.eventlog` -- following a JSON-lines event log.  Readers of a real run's files (worker
logs, state, token records) belong here.
"""
