"""The Worker logs panel: a run's worker logs as a filterable, live table.

The rows and their filters are the engine's (:mod:`ctxviewer.engine.runfiles.logstore`, fed by
:mod:`ctxviewer.engine.runfiles.logpieces`); here ``model`` is the table's model and ``panel``
the widget: the filter bar, the table, the line's detail, reading in slices and following
(``docs/run-files.md``, The log viewer).
"""

from ctxviewer.gui.views.logview.panel import LogView, ask_worker_logs

__all__ = ["LogView", "ask_worker_logs"]
