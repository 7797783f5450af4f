"""The Worker logs panel: a run's worker logs as a filterable, live table (issue 18).

``store`` holds the rows column by column and filters them (no Qt); ``tail`` reads the
logs' new bytes as whole lines (no Qt); ``model`` is the table's model; ``panel`` the
widget: the filter bar, the table, the line's detail, reading in slices and following.
"""

from ctxviewer.gui.views.logview.panel import LogView, ask_worker_logs

__all__ = ["LogView", "ask_worker_logs"]
