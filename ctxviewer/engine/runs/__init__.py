"""Running a profile: the entry points the CLI and the GUI's worker call.

:mod:`.pipeline` runs one task to a :class:`~ctxviewer.engine.trace.model.Trace`; the other
modules run many (a batch, a comparison, a replay, two revisions, a sweep, a sensitivity walk)
through it.  Each module's part: docs/architecture.md#package-map.
"""
