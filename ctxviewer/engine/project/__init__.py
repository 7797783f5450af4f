"""The project on disk as the pipelines see it.

:mod:`.loading` -- features, task graphs and configuration (both ``.mahabharatha/`` and
``.zerg/`` layouts); :mod:`.ids` -- a feature or task id as the user writes it;
:mod:`.settings` -- a run's effective settings and where each came from;
:mod:`.upstream` -- which upstream version the project runs; :mod:`.tuning` -- saving tuned
settings to ``ctxviewer.yaml``; :mod:`.splitter` -- command-file splitting.
"""
