"""Profile ``ctxviewer``: what we think a task's context should be, within its budgets exactly.

Its run (:mod:`.run`) and its refit for exact sensitivity (:mod:`.refit`).  The rules are in
``docs/profiles.md`` (ctxviewer).
"""
