"""The Qt-free engine. Data flows down the folder list, each package importing only those below it:

* :mod:`.upstream`, :mod:`.exports` -- the worker prompt upstream composes and checking an installed
  plugin against our profile; a trace written out as Markdown, JSON or HTML.
* :mod:`.runs` -- running a profile: one task (:mod:`.runs.pipeline`), a batch, a comparison, a
  session replay.
* :mod:`.analysis` -- what reads a finished trace: explain, findings, what-if, the window layout.
* :mod:`.profiles` -- a package per profile (its run, its refit) over a small shared base.
* :mod:`.runtime` -- what a real worker does while it runs: its tracker, its event log.
* :mod:`.signals` -- what the pipelines read from a task and the project's text: keywords, task
  signals, spec paragraphs and their scores, rule matching, words.
* :mod:`.trace` -- the immutable record of one run: the contract between engine and views.
* :mod:`.project` -- the project on disk: loading, settings, the upstream version it runs, tuning.
* :mod:`.registry` -- every profile, one record each: the facts settings, runs and readers take.
* :mod:`.tokens` -- the pipeline's estimate and exact tiktoken counts, offline.
* :mod:`.files` -- every read from and write to disk: contained, bounded, atomic.
* :mod:`.errors` -- errors for input a user must fix.

Nothing here imports Qt; the import contract in ``pyproject.toml`` (run by ``lint-imports``
and by ``tests/test_architecture.py``) fails the build if anything does, or if a lower
package imports a higher one.  ``docs/architecture.md`` draws the whole house.
"""
