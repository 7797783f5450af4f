"""Running a profile: the entry points the CLI and the GUI's worker call.

:mod:`.pipeline` -- one task to a :class:`~ctxviewer.engine.trace.model.Trace`; :mod:`.batch` --
every task of a project; :mod:`.compare` -- one task two ways; :mod:`.session` -- a feature's
tasks replayed through one worker's tracker (a what-if, not a real run); :mod:`.revisions` -- tasks
at two git revisions, each moved candidate with the edit that moved it (:mod:`.revision_report`
writes it out); :mod:`.recorded` -- a run's
token records beside what the upstream profile reproduces for each task; :mod:`.sweep` -- every
task at every budget of a range (and share), reduced to a heatmap's cells.
"""
