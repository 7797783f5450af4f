"""ctxviewer's own model of a running worker: the checkpoint tracker and its event log.

:mod:`.tracker` -- the worker's ContextTracker against the checkpoint threshold;
:mod:`.eventlog` -- following a JSON-lines event log of ctxviewer's own format
(``docs/event-log.md``).  The files a real upstream run writes are read by
:mod:`ctxviewer.engine.runfiles`.
"""
