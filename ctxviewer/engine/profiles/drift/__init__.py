"""Profile ``drift`` (seed 001): build everything, then cut in priority order until the budget is met.

Its run (:mod:`.run`) and its refit for exact sensitivity (:mod:`.refit`).  The rules are in
``docs/profiles.md`` (drift).
"""
