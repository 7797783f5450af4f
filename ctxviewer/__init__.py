"""ctxviewer: inspect what an LLM context-assembly pipeline gave each task, and why.

A Qt-free engine with two front ends over it:

* :mod:`ctxviewer.engine` -- Qt-free: project loading, the pipeline profiles, token
  counting, the immutable trace, exports.  Used by the CLI, the tests and the GUI.
* ``ctxviewer.gui`` -- the PySide6 inspector window, a thin reader of engine traces.
* ``ctxviewer.cli`` -- the ``ctxviewer`` command; it starts the GUI (``ctxviewer``, ``ctxviewer gui``).

The import contracts in ``pyproject.toml`` keep these apart; ``docs/architecture.md`` is the map.
"""

__version__ = "0.1.0"
