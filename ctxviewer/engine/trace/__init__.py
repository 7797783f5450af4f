"""The trace: the immutable record of one assembly run, and the contract between engine and views.

:mod:`.model` holds the frozen dataclasses (sections, items and their fates, trim steps, tracker,
settings with sources) and their JSON form; ``docs/trace-schema.md`` documents the schema.  The
GUI, the CLI and every export read a trace and nothing else.
"""
