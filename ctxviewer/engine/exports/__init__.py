"""A trace written out for people and scripts: the context as Markdown, the trace as JSON, a
standalone HTML report (:mod:`.report`).  Every write goes through
:mod:`ctxviewer.engine.files.writing`.
"""
